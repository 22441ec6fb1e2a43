// MatMul kernels (jit/cpu/matmul.cpp) against the reference evaluator: edge
// sizes, batched and broadcast-batched products, strided (transposed, sliced)
// operands read in place, fused epilogues, float32/float64/integers, and the
// scheduler's kernel counts for fused epilogues.
//
// Tolerance (docs/matmul.md): the JIT accumulates in the output dtype like
// BLAS (float32 sums in float32, blocked over k), the reference in double.
// The classic bound for a length-K dot product is |err| <= K u sum|a_k b_k|,
// u = 2^-24 (float32) or 2^-53 (float64); in practice the error is ~sqrt(K) u
// sum|a_k b_k|. We check |got - want| <= 4 sqrt(K) u amax bmax K + rtol |want|.
#define BOOST_TEST_MODULE matmul
#include "jit_test_util.h"

using namespace lt;
using namespace lt::test;

namespace {

double amax(const NodePtr& x) {
  CapturedTrace ct = capture_trace({x});
  double m = 0;
  for (double v : values(evaluate_reference(ct.trace)[0])) m = std::max(m, std::fabs(v));
  return m;
}

// Compares the JIT with the reference for `roots`, where each output is built
// from products with inner size K of operands bounded by `bound`.
size_t check(const std::vector<NodePtr>& roots, int64_t K, double bound = 9.0, DType product = DType::Bool) {
  CapturedTrace ct = capture_trace(roots);
  check_outputs(evaluate_reference(ct.trace), run_cpu(ct.trace), [&](DType d) {
    DType pd = product == DType::Bool ? d : product;  // the matmul's dtype when the epilogue casts
    double u = pd == DType::Float32 ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53);
    double atol = 4 * std::sqrt(static_cast<double>(std::max<int64_t>(K, 1))) * u * bound * K + 1e-30;
    return Tolerance{atol, rtol_for(d), 0};
  });
  return cpu_plan_for(ct.trace, RunOptions{})->kernels.size();
}

const DType kFloats[] = {DType::Float32, DType::Float64};

}  // namespace

BOOST_AUTO_TEST_CASE(edge_sizes) {
  struct S {
    int64_t m, k, n;
  };
  S sizes[] = {{1, 1, 1},   {1, 37, 1},  {1, 64, 200}, {200, 64, 1}, {7, 0, 5},    {0, 3, 4},
               {13, 17, 33}, {127, 127, 127}, {15, 300, 65}, {31, 513, 97}};
  uint32_t seed = 1;
  for (DType d : kFloats)
    for (S s : sizes) {
      NodePtr a = random_input(d, {s.m, s.k}, -3, 3, seed++), b = random_input(d, {s.k, s.n}, -3, 3, seed++);
      BOOST_TEST_CONTEXT(dtype_name(d) << " " << s.m << "x" << s.k << "x" << s.n) { check({ops::matmul(a, b)}, s.k); }
    }
}

BOOST_AUTO_TEST_CASE(prime_size_1031) {
  for (DType d : kFloats) {
    NodePtr a = random_input(d, {1031, 1031}, -3, 3, 11), b = random_input(d, {1031, 1031}, -3, 3, 12);
    check({ops::matmul(a, b)}, 1031);
  }
}

BOOST_AUTO_TEST_CASE(vectors) {
  for (DType d : kFloats) {
    NodePtr a = random_input(d, {1, 300}, -3, 3, 1), b = random_input(d, {300, 1}, -3, 3, 2);
    NodePtr v = random_input(d, {300}, -3, 3, 3), m = random_input(d, {300, 45}, -3, 3, 4);
    check({ops::matmul(a, b), ops::matmul(b, a)}, 300);
    check({ops::matmul(v, m), ops::matmul(ops::transpose(m, 0, 1), v), ops::matmul(v, v)}, 300);
  }
}

BOOST_AUTO_TEST_CASE(batched_and_broadcast_batched) {
  for (DType d : kFloats) {
    NodePtr a = random_input(d, {3, 2, 29, 40}, -3, 3, 1), b = random_input(d, {3, 2, 40, 35}, -3, 3, 2);
    check({ops::matmul(a, b)}, 40);
    NodePtr w = random_input(d, {40, 35}, -3, 3, 3);
    check({ops::matmul(a, w)}, 40);                    // rhs broadcast over the batch: folded into M
    NodePtr l = random_input(d, {29, 40}, -3, 3, 4);
    check({ops::matmul(l, b)}, 40);                    // lhs broadcast
    NodePtr bb = random_input(d, {2, 40, 35}, -3, 3, 5);
    check({ops::matmul(a, bb)}, 40);                   // broadcast over the outer batch dim
    NodePtr a1 = random_input(d, {3, 1, 29, 40}, -3, 3, 6);
    check({ops::matmul(a1, b)}, 40);                   // size-1 batch dim expanded
  }
}

BOOST_AUTO_TEST_CASE(strided_operands) {
  for (DType d : kFloats) {
    NodePtr at = random_input(d, {70, 50}, -3, 3, 1), bt = random_input(d, {90, 70}, -3, 3, 2);
    NodePtr a = ops::transpose(at, 0, 1), b = ops::transpose(bt, 0, 1);  // [50, 70] and [70, 90]
    check({ops::matmul(a, b)}, 70);
    NodePtr big = random_input(d, {120, 160}, -3, 3, 3);
    NodePtr s1 = ops::slice(big, 1, 10, 80, 1);           // [120, 70] row stride 160
    NodePtr s2 = ops::slice(ops::slice(big, 0, 1, 71, 1), 1, 0, 160, 2);  // [70, 80] col stride 2
    check({ops::matmul(s1, s2)}, 70);
    NodePtr x3 = random_input(d, {4, 33, 21}, -3, 3, 4);
    check({ops::matmul(ops::transpose(x3, 1, 2), x3)}, 33);  // batched A^T A
    // The plan reads the transposed weight in place (no copy kernel) and knows its strides.
    CapturedTrace ct = capture_trace({ops::matmul(a, b)});
    auto plan = cpu_plan_for(ct.trace, RunOptions{});
    BOOST_REQUIRE_EQUAL(plan->kernels.size(), 1u);
    const Kernel& k = plan->kernels[0];
    BOOST_CHECK(k.mm_lhs_view.valid() && k.mm_lhs_view.row_stride == 1 && k.mm_lhs_view.col_stride == 50);
    BOOST_CHECK(k.mm_rhs_view.valid() && k.mm_rhs_view.row_stride == 1 && k.mm_rhs_view.col_stride == 70);
  }
}

BOOST_AUTO_TEST_CASE(fused_epilogues) {
  for (DType d : kFloats) {
    NodePtr x = random_input(d, {67, 90}, -2, 2, 1), w = random_input(d, {45, 90}, -1, 1, 2);
    NodePtr bias = random_input(d, {45}, -1, 1, 3), res = random_input(d, {67, 45}, -1, 1, 4);
    NodePtr y = ops::linear(x, w, bias);
    BOOST_CHECK_EQUAL(check({ops::relu(y)}, 90, 2), 1u);
    BOOST_CHECK_EQUAL(check({ops::gelu(y)}, 90, 2), 1u);
    BOOST_CHECK_EQUAL(check({ops::tanh(ops::mul(y, ops::scalar(0.5, d)))}, 90, 2), 1u);
    BOOST_CHECK_EQUAL(check({ops::add(ops::mul(ops::matmul(x, ops::transpose(w, 0, 1)), ops::scalar(0.25, d)), res)}, 90, 2), 1u);
    BOOST_CHECK_EQUAL(check({ops::cast(y, d == DType::Float32 ? DType::Float64 : DType::Float32)}, 90, 2, DType::Float32), 1u);
    // 3-D input through linear: batch folded into M, bias fused.
    NodePtr x3 = random_input(d, {3, 11, 90}, -2, 2, 5);
    BOOST_CHECK_EQUAL(check({ops::relu(ops::linear(x3, w, bias))}, 90, 2), 1u);
    // The product and the epilogue both needed: still correct.
    NodePtr mm = ops::matmul(x, ops::transpose(w, 0, 1));
    check({mm, ops::relu(ops::add(mm, bias))}, 90, 2);
    // The product read at other coordinates than its own: not an epilogue.
    NodePtr sq = ops::matmul(x, ops::transpose(x, 0, 1));
    check({ops::add(sq, ops::transpose(sq, 0, 1))}, 90, 2);
    check({ops::sum(ops::relu(y), {1}, false)}, 90, 2);
  }
}

// (A B)^T that nothing else reads is computed as B^T A^T (scheduler/simplify.cpp):
// one matmul kernel storing the transposed layout, and its elementwise reader
// (an optimizer update, here) as the epilogue; same values as the reference.
BOOST_AUTO_TEST_CASE(the_transpose_of_a_product_is_the_product_of_the_transposes) {
  NodePtr x = random_input(DType::Float32, {48, 20}), g = random_input(DType::Float32, {48, 12});
  NodePtr w = random_input(DType::Float32, {12, 20});
  NodePtr grad = ops::transpose(ops::matmul(ops::transpose(x, 0, 1), g), 0, 1);  // autograd's dW of x @ W.t()
  NodePtr update = ops::sub(w, ops::mul(grad, ops::scalar(0.1, DType::Float32)));
  BOOST_TEST(check_against_reference({update}) == 1u);
  Plan plan = schedule(capture_trace({update}).trace, fusion_policy("default"));
  BOOST_TEST_REQUIRE(plan.kernels.size() == 1u);
  BOOST_TEST((plan.kernels[0].kind == KernelKind::MatMul));
  BOOST_TEST(plan.kernels[0].domain[1] == 12);  // M: W's rows, so the product is stored as W is
  // Read elsewhere too: the product is kept as it is, and read transposed.
  BOOST_TEST(check_against_reference({update, ops::matmul(ops::transpose(x, 0, 1), g)}) >= 2u);
}

// The same through a cast (autocast's weight gradient: a bfloat16 product
// cast back to the float32 weight's dtype): the product is stored in W's
// layout, so its reader streams it.
BOOST_AUTO_TEST_CASE(the_transpose_of_a_cast_product_is_the_cast_product_of_the_transposes) {
  NodePtr x = ops::cast(random_input(DType::Float32, {48, 20}), DType::BFloat16);
  NodePtr g = ops::cast(random_input(DType::Float32, {48, 12}), DType::BFloat16);
  NodePtr w = random_input(DType::Float32, {12, 20});
  NodePtr prod = ops::matmul(ops::transpose(x, 0, 1), g);  // bf16 [20, 12]
  BOOST_TEST_REQUIRE((prod->op == Op::Cast));             // a float32 product cast to bfloat16 (ops::matmul)
  NodePtr grad = ops::cast(ops::transpose(prod, 0, 1), DType::Float32);
  NodePtr update = ops::sub(w, ops::mul(grad, ops::scalar(0.1, DType::Float32)));
  Plan plan = schedule(capture_trace({update}).trace, fusion_policy("default"));
  size_t matmuls = 0;
  for (const Kernel& k : plan.kernels)
    if (k.kind == KernelKind::MatMul) {
      ++matmuls;
      BOOST_TEST(k.domain[1] == 12);  // M: W's rows
    }
  BOOST_TEST(matmuls == 1u);
  check_against_reference({update}, "", 50.0);  // bfloat16 rounding of the product
}

BOOST_AUTO_TEST_CASE(linear_bias_relu_is_one_kernel) {
  NodePtr x = random_input(DType::Float32, {64, 128}), w = random_input(DType::Float32, {32, 128});
  NodePtr b = random_input(DType::Float32, {32});
  BOOST_CHECK_EQUAL(kernel_count({ops::relu(ops::linear(x, w, b))}), 1u);
  // One kernel per primitive: matmul, bias add, and relu's two compares and
  // two selects (its -0 branch; detach is no kernel).
  BOOST_CHECK_EQUAL(kernel_count({ops::relu(ops::linear(x, w, b))}, "none"), 6u);
}

BOOST_AUTO_TEST_CASE(integers) {
  for (DType d : {DType::Int32, DType::Int64}) {
    NodePtr a = random_input(d, {37, 300}, -50, 50, 1), b = random_input(d, {300, 41}, -50, 50, 2);
    check({ops::matmul(a, b), ops::add(ops::matmul(a, b), ops::scalar_int(3, d))}, 300);
    NodePtr c = random_input(d, {2, 5, 7}, -9, 9, 3), e = random_input(d, {2, 7, 3}, -9, 9, 4);
    check({ops::matmul(c, e)}, 7);
  }
}

BOOST_AUTO_TEST_CASE(autograd_products) {
  // linear's backward products: dX = dY W (W read as stored), dW = dY^T X (dY transposed in place).
  for (DType d : kFloats) {
    NodePtr x = random_input(d, {50, 70}, -2, 2, 1), w = random_input(d, {30, 70}, -2, 2, 2);
    NodePtr dy = random_input(d, {50, 30}, -2, 2, 3);
    check({ops::matmul(dy, w), ops::matmul(ops::transpose(dy, 0, 1), x)}, 50, 4);
  }
}

// Index checks inside operands (CheckIndex is an effect, scheduler/kernel.h):
// one_hot's range check is read by no value (its gathered ones fold to a
// constant) and a gather along k checks an index that depends on k; both must
// raise when the product is computed by a MatMul kernel, and leave good
// results alone when the indices are valid.
BOOST_AUTO_TEST_CASE(operand_index_checks_raise) {
  auto idx = [](Shape s, std::vector<double> v) { return make_input(buffer_of(DType::Int64, v), std::move(s)); };
  // Bad indices computed by a pending op: known values would raise at the op already (check_known_index).
  auto pending = [](const NodePtr& i) { return ops::add(i, ops::scalar_int(0, DType::Int64)); };
  auto raises = [](const std::vector<NodePtr>& roots) {
    CapturedTrace ct = capture_trace(roots);
    try {
      run_cpu(ct.trace);
    } catch (const Error& e) {
      return e.kind() == ErrorKind::Runtime;  // one_hot and gather: RuntimeError, as in PyTorch
    }
    return false;
  };
  NodePtr w = random_input(DType::Float32, {5, 7}, -1, 1, 1);
  auto hot = [](const NodePtr& i) { return ops::cast(ops::one_hot(i, 5), DType::Float32); };
  NodePtr good = idx({3}, {0, 4, 2}), bad = pending(idx({3}, {0, 5, 2}));
  check({ops::relu(ops::matmul(hot(good), w))}, 5);
  BOOST_CHECK(raises({ops::relu(ops::matmul(hot(bad), w))}));
  BOOST_CHECK(raises({ops::matmul(ops::transpose(w, 0, 1), ops::transpose(hot(bad), 0, 1))}));  // in the rhs
  // Gathers along k in the lhs ([M, K] index) and in the rhs ([K, N] index).
  NodePtr g = random_input(DType::Float32, {6, 9}, -1, 1, 2), v = random_input(DType::Float32, {4, 3}, -1, 1, 3);
  NodePtr gi = random_input(DType::Int64, {6, 4}, 0, 9, 4);
  check({ops::matmul(ops::gather(g, 1, gi), v)}, 4);
  std::vector<double> bad_gi(24, 1.0);
  bad_gi[13] = 9;
  BOOST_CHECK(raises({ops::matmul(ops::gather(g, 1, pending(idx({6, 4}, bad_gi))), v)}));
  NodePtr h = random_input(DType::Float32, {9, 3}, -1, 1, 5), u = random_input(DType::Float32, {2, 4}, -1, 1, 6);
  NodePtr hi = random_input(DType::Int64, {4, 3}, 0, 9, 7);
  check({ops::matmul(u, ops::gather(h, 0, hi))}, 4);
  std::vector<double> bad_hi(12, 2.0);
  bad_hi[7] = -1;
  BOOST_CHECK(raises({ops::matmul(u, ops::gather(h, 0, pending(idx({4, 3}, bad_hi))))}));
}

// bfloat16 products (docs/matmul.md "bfloat16"): float32 accumulation of
// exact bfloat16 products (AMX tiles, vdpbf16ps or operands widened while
// they are packed: ctest runs this suite with each, LT_MM_BF16), one
// rounding at the store. The summation order differs from the reference's
// (double), so the float32 sum is within 4 sqrt(K) u bound^2 K of it, and the
// rounding may then land one bfloat16 ulp (2^-8 |p|) either side; each
// further rounded primitive of an epilogue adds one ulp of the largest value
// it sees. `pmax` is max |product| (the reference's).
namespace {
size_t check_bf16(const std::vector<NodePtr>& roots, int64_t K, double bound, double pmax, int roundings = 1) {
  CapturedTrace ct = capture_trace(roots);
  const double u = std::ldexp(1.0, -24);
  const double atol = 4 * std::sqrt(static_cast<double>(std::max<int64_t>(K, 1))) * u * bound * bound * K +
                      roundings * std::ldexp(pmax, -7) + 1e-30;
  check_outputs(evaluate_reference(ct.trace), run_cpu(ct.trace), [&](DType) { return Tolerance{atol, 0, 0}; });
  return cpu_plan_for(ct.trace, RunOptions{})->kernels.size();
}
NodePtr bf16_input(Shape shape, uint32_t seed) { return random_input(DType::BFloat16, shape, -2, 2, seed); }
}  // namespace

BOOST_AUTO_TEST_CASE(bfloat16_products_accumulate_in_float32) {
  struct S {
    int64_t m, k, n;
  };
  // K = 1 and odd K (a zero pad k), tails of M and N, several k blocks.
  const S sizes[] = {{1, 1, 1},    {7, 1, 5},  {13, 17, 33},  {14, 32, 32},
                     {15, 31, 65}, {29, 2, 3}, {31, 513, 97}, {100, 256, 70}};
  uint32_t seed = 100;
  for (S s : sizes) {
    BOOST_TEST_CONTEXT(s.m << "x" << s.k << "x" << s.n) {
      NodePtr a = bf16_input({s.m, s.k}, seed++), b = bf16_input({s.k, s.n}, seed++);
      NodePtr p = ops::matmul(a, b);
      BOOST_CHECK(p->dtype == DType::BFloat16);
      // One kernel: the operands are packed from their bfloat16 values, not widened by a kernel of their own.
      BOOST_CHECK_EQUAL(check_bf16({p}, s.k, 2, amax(p)), 1u);
    }
  }
}

BOOST_AUTO_TEST_CASE(bfloat16_products_of_strided_operands_and_batches) {
  NodePtr at = bf16_input({71, 33}, 1), bt = bf16_input({18, 71}, 2);
  NodePtr a = ops::transpose(at, 0, 1), b = ops::transpose(bt, 0, 1);  // [33, 71] and [71, 18]
  BOOST_CHECK_EQUAL(check_bf16({ops::matmul(a, b)}, 71, 2, amax(ops::matmul(a, b))), 1u);
  NodePtr big = bf16_input({40, 90}, 3);
  NodePtr s1 = ops::slice(big, 1, 3, 40, 1),
          s2 = ops::slice(ops::slice(big, 0, 1, 38, 1), 1, 0, 90, 2);  // [40, 37] x [37, 45]
  check_bf16({ops::matmul(s1, s2)}, 37, 2, amax(ops::matmul(s1, s2)));
  NodePtr x = bf16_input({3, 2, 20, 31}, 4), y = bf16_input({3, 2, 31, 18}, 5), w = bf16_input({31, 18}, 6);
  check_bf16({ops::matmul(x, y)}, 31, 2, amax(ops::matmul(x, y)));
  check_bf16({ops::matmul(x, w)}, 31, 2, amax(ops::matmul(x, w)));  // batch folded into M
  check_bf16({ops::matmul(ops::transpose(x, 2, 3), x)}, 20, 2, amax(ops::matmul(ops::transpose(x, 2, 3), x)));
}

BOOST_AUTO_TEST_CASE(bfloat16_linear_runs_bias_and_relu_as_its_epilogue) {
  NodePtr x = bf16_input({67, 91}, 7), w = bf16_input({45, 91}, 8), bias = bf16_input({45}, 9);
  NodePtr y = ops::linear(x, w, bias);  // the weight read transposed in place
  const double pmax = amax(ops::matmul(x, ops::transpose(w, 0, 1)));
  BOOST_CHECK_EQUAL(check_bf16({ops::relu(y)}, 91, 2, pmax + 2, 2), 1u);
  NodePtr x3 = bf16_input({3, 11, 91}, 10);
  BOOST_CHECK_EQUAL(
      check_bf16({ops::relu(ops::linear(x3, w, bias))}, 91, 2, amax(ops::matmul(x3, ops::transpose(w, 0, 1))) + 2, 2),
      1u);
}

// vdpbf16ps and AMX's tdpbf16ps treat a bfloat16 subnormal operand as zero
// (measured; torch 1.13's oneDNN product on this CPU does the same from 64 x 64
// up): 1e-39 * 2^100 is 0 there, 1.28e-9 when the operands are widened and in
// the reference (docs/matmul.md "bfloat16").
BOOST_AUTO_TEST_CASE(bfloat16_subnormal_operands_flush_only_on_the_bfloat16_paths) {
  NodePtr a = make_input(buffer_of(DType::BFloat16, {1e-39, 1.0}), Shape{1, 2});
  NodePtr b = make_input(buffer_of(DType::BFloat16, {std::ldexp(1.0, 100), 0.0}), Shape{2, 1});
  CapturedTrace ct = capture_trace({ops::matmul(a, b)});
  const double got = values(run_cpu(ct.trace)[0])[0], want = values(evaluate_reference(ct.trace)[0])[0];
  BOOST_TEST(want > 1.2e-9);
  if (cpu::bf16_matmul() == cpu::Bf16MatMul::Widen)
    BOOST_TEST(got == want);
  else
    BOOST_TEST(got == 0.0);
}

// A weight read by matmul after matmul keeps its packed panels from its second
// launch on (jit/cpu/matmul.cpp, "packed operands, kept across launches"):
// later launches read them and give the same bits as packing afresh. Another
// buffer of the same shape, likely at the same address once the first is
// freed, is packed from its own values: the key is the buffer's id, never
// its address; and the freed weight's panels are dropped.
BOOST_AUTO_TEST_CASE(a_weight_packed_twice_is_kept_and_never_read_for_another_buffer) {
  for (DType d : kFloats) {
    BOOST_TEST_CONTEXT(dtype_name(d)) {
      auto product = [&](const NodePtr& x, const NodePtr& w) { return ops::matmul(x, ops::transpose(w, 0, 1)); };
      auto run = [&](const NodePtr& root) { return run_cpu(capture_trace({root}).trace)[0]; };
      auto same_bits = [](const BufferPtr& a, const BufferPtr& b) {
        return a->nbytes() == b->nbytes() && std::memcmp(a->data(), b->data(), a->nbytes()) == 0;
      };
      NodePtr w = random_input(d, {96, 80}, -1, 1, 21);
      std::vector<NodePtr> xs;
      for (uint32_t s = 0; s < 4; ++s) xs.push_back(random_input(d, {40, 80}, -2, 2, 30 + s));
      const int64_t kept0 = counter_value("matmul_packs_kept"), hits0 = counter_value("matmul_pack_hits");
      std::vector<BufferPtr> got;
      for (const NodePtr& x : xs) got.push_back(run(product(x, w)));
      BOOST_TEST(counter_value("matmul_packs_kept") - kept0 >= 1);   // the second launch kept w's panels
      BOOST_TEST(counter_value("matmul_pack_hits") - hits0 >= 2);    // the third and fourth read them
      for (size_t i = 0; i < xs.size(); ++i) check({product(xs[i], w)}, 80, 2);
      // The kept panels give the bits of a fresh pack (a weight seen once is packed into scratch).
      NodePtr w_copy = random_input(d, {96, 80}, -1, 1, 21);
      BOOST_TEST(same_bits(got[3], run(product(xs[3], w_copy))));
      // w freed, another weight of its shape: its own panels, and w's are
      // dropped when w2's are kept (the cache holds no panels of freed buffers).
      const int64_t bytes_with_w = counter_value("matmul_pack_cache_bytes");
      w.reset();
      w_copy.reset();
      got.clear();
      NodePtr w2 = random_input(d, {96, 80}, -1, 1, 22);
      for (int rep = 0; rep < 3; ++rep) check({product(xs[0], w2)}, 80, 2);
      BOOST_TEST(counter_value("matmul_pack_cache_bytes") <= bytes_with_w);
    }
  }
}
