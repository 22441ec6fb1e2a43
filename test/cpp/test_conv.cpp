// The convolution primitives (ir/conv.h: Conv, ConvInputGrad, ConvWeightGrad)
// on the CPU backend against the reference evaluator over many geometries,
// operands read in place (contiguous, channels-last) and through the element
// DAG (sliced and computed inputs), their gradients against finite
// differences, the scheduler's structure (one kernel with a fused epilogue,
// no im2col-sized buffer), and bad geometry raising a named lt::Error.
//
// Tolerance: each output is a sum of K products of operands in [-1, 1]
// accumulated in the output dtype (blocked), the reference in double; as in
// test_matmul, |got - want| <= 4 sqrt(K) u K + rtol |want|.
#define BOOST_TEST_MODULE conv
#include <algorithm>
#include <cctype>
#include <sstream>

#include "gradcheck.h"
#include "ir/conv.h"
#include "jit_test_util.h"
#include "lazy/tensor.h"
#include "scheduler/plan.h"

using namespace lt;
using namespace lt::test;

namespace {

using V = std::vector<int64_t>;

struct Geo {
  int64_t N, C, O, groups;
  V in, kernel, stride, pad_lo, pad_hi, dilation;
  V out() const {
    V o;
    for (size_t j = 0; j < in.size(); ++j)
      o.push_back((in[j] + pad_lo[j] + pad_hi[j] - dilation[j] * (kernel[j] - 1) - 1) / stride[j] + 1);
    return o;
  }
  Shape x_shape() const { return cat({N, C}, in); }
  Shape w_shape() const { return cat({O, C / groups}, kernel); }
  Shape y_shape() const { return cat({N, O}, out()); }
  Attrs attrs() const { return conv_attrs(groups, stride, pad_lo, dilation); }
  int64_t prod(const V& v) const {
    int64_t p = 1;
    for (int64_t x : v) p *= x;
    return p;
  }
  // Inner sizes of the three products.
  int64_t k_conv() const { return C / groups * prod(kernel); }
  int64_t k_input_grad() const { return O / groups * prod(kernel); }
  int64_t k_weight_grad() const { return N * prod(out()); }
  static Shape cat(Shape a, const V& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  }
  std::string str() const {
    std::ostringstream s;
    auto v = [&](const char* n, const V& x) {
      s << " " << n << "=[";
      for (size_t i = 0; i < x.size(); ++i) s << (i ? "," : "") << x[i];
      s << "]";
    };
    s << "N=" << N << " C=" << C << " O=" << O << " groups=" << groups;
    v("in", in);
    v("kernel", kernel);
    v("stride", stride);
    v("pad_lo", pad_lo);
    v("pad_hi", pad_hi);
    v("dilation", dilation);
    return s.str();
  }
};

// Symmetric padding, one value for every spatial dim unless given per dim.
Geo geo(int64_t N, int64_t C, int64_t O, int64_t groups, V in, V kernel, V stride, V pad, V dilation) {
  return Geo{N, C, O, groups, in, kernel, stride, pad, pad, dilation};
}

double tol_u(DType d) { return d == DType::Float32 ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53); }

// Compares the CPU backend with the reference for `roots`, each a sum of at
// most K products of values in [-bound, bound]; returns the plan.
std::shared_ptr<const Plan> check(const std::vector<NodePtr>& roots, int64_t K, double bound = 1.0) {
  CapturedTrace ct = capture_trace(roots);
  check_outputs(evaluate_reference(ct.trace), run_cpu(ct.trace), [&](DType d) {
    double kk = static_cast<double>(std::max<int64_t>(K, 1));
    return Tolerance{4 * std::sqrt(kk) * tol_u(d) * bound * bound * kk + 1e-30, rtol_for(d), 0};
  });
  return cpu_plan_for(ct.trace, RunOptions{});
}

// How the convolution's input is presented: as stored, channels-last
// ([N, *in, C] permuted to [N, C, *in]; both packed by conv_pack), a slice of
// a larger tensor (its offsets are runtime index arguments, so the kernel has
// no literal strided source and packs through the element DAG), or computed
// (x * 2 - x: stored by a kernel of its own, then packed by conv_pack).
enum class View { Contiguous, ChannelsLast, Sliced, Computed };
const char* view_name(View v) {
  switch (v) {
    case View::Contiguous: return "contiguous";
    case View::ChannelsLast: return "channels-last";
    case View::Sliced: return "sliced";
    case View::Computed: return "computed";
  }
  return "?";
}

NodePtr presented(DType d, const Shape& s, View v, uint32_t seed) {
  const int64_t r = static_cast<int64_t>(s.size());
  switch (v) {
    case View::Contiguous:
      return random_input(d, s, -1, 1, seed);
    case View::ChannelsLast: {
      Shape cl{s[0]};
      for (int64_t j = 2; j < r; ++j) cl.push_back(s[j]);
      cl.push_back(s[1]);
      V perm{0, r - 1};
      for (int64_t j = 1; j < r - 1; ++j) perm.push_back(j);
      return ops::permute(random_input(d, cl, -1, 1, seed), perm);
    }
    case View::Sliced: {
      // Every spatial dim taken with an offset of 1 and (for the last) a step of 2; channels offset by 1.
      Shape big = s;
      big[1] += 2;
      for (int64_t j = 2; j < r; ++j) big[j] = j == r - 1 ? 2 * s[j] + 1 : s[j] + 2;
      NodePtr x = ops::slice(random_input(d, big, -1, 1, seed), 1, 1, 1 + s[1], 1);
      for (int64_t j = 2; j < r; ++j)
        x = j == r - 1 ? ops::slice(x, j, 1, 1 + 2 * s[j], 2) : ops::slice(x, j, 1, 1 + s[j], 1);
      BOOST_REQUIRE(x->shape == s);
      return x;
    }
    case View::Computed: {
      NodePtr x = random_input(d, s, -1, 1, seed);
      return ops::sub(ops::mul(x, ops::scalar(2.0, d)), x);
    }
  }
  return nullptr;
}

// The three primitives of `g` (conv; its input gradient and weight gradient
// for a random dy) with x presented as `v`; against the reference.
void check_geometry(const Geo& g, DType d, View v, uint32_t seed) {
  BOOST_TEST_CONTEXT(dtype_name(d) << " " << view_name(v) << " " << g.str()) {
    NodePtr x = presented(d, g.x_shape(), v, seed);
    NodePtr w = random_input(d, g.w_shape(), -1, 1, seed + 1);
    NodePtr dy = presented(d, g.y_shape(), v == View::ChannelsLast || v == View::Sliced ? v : View::Contiguous, seed + 2);
    NodePtr y = ops::conv(x, w, g.stride, g.pad_lo, g.pad_hi, g.dilation, g.groups);
    BOOST_REQUIRE(y->shape == g.y_shape());
    // Each primitive in a plan of its own (the scheduler may not share one operand's reads between them).
    check({y}, g.k_conv());
    check({ops::conv_input_grad(dy, w, g.attrs(), g.in)}, g.k_input_grad());
    check({ops::conv_weight_grad(x, dy, g.attrs(), g.kernel)}, g.k_weight_grad());
  }
}

const DType kFloats[] = {DType::Float32, DType::Float64};

// The MatMul kernels of `plan` computing a convolution `op`.
std::vector<const Kernel*> conv_kernels(const Plan& plan, Op op) {
  std::vector<const Kernel*> r;
  for (const Kernel& k : plan.kernels)
    if (k.kind == KernelKind::MatMul && k.mm_conv.op == op) r.push_back(&k);
  return r;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

// ---- a. the CPU backend against the evaluator ------------------------------------

BOOST_AUTO_TEST_CASE(conv2d_strides_padding_dilation_kernels) {
  const Geo geos[] = {
      geo(1, 3, 4, 1, {7, 7}, {3, 3}, {1, 1}, {0, 0}, {1, 1}),
      geo(1, 3, 4, 1, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}),
      geo(3, 4, 5, 1, {9, 8}, {3, 3}, {2, 2}, {1, 1}, {1, 1}),   // non-square, stride does not divide
      geo(2, 3, 6, 1, {10, 11}, {3, 3}, {3, 3}, {2, 2}, {1, 1}),
      geo(2, 5, 3, 1, {9, 13}, {3, 3}, {2, 3}, {1, 2}, {1, 1}),  // mixed stride and padding
      geo(1, 4, 4, 1, {11, 11}, {3, 3}, {1, 1}, {2, 2}, {2, 2}), // dilation
      geo(2, 3, 2, 1, {12, 9}, {3, 2}, {2, 1}, {0, 1}, {2, 1}),  // mixed dilation
      geo(1, 6, 8, 1, {6, 6}, {1, 1}, {1, 1}, {0, 0}, {1, 1}),   // 1x1
      geo(2, 6, 8, 1, {7, 5}, {1, 1}, {2, 2}, {0, 0}, {1, 1}),   // 1x1 strided
      geo(1, 3, 5, 1, {13, 12}, {5, 5}, {1, 1}, {2, 2}, {1, 1}), // 5x5
      geo(3, 2, 3, 1, {9, 10}, {5, 5}, {3, 2}, {1, 0}, {1, 1}),
      geo(2, 4, 3, 1, {8, 7}, {2, 3}, {1, 1}, {0, 1}, {1, 1}),   // 2x3 kernel
      geo(1, 2, 3, 1, {3, 3}, {3, 3}, {1, 1}, {0, 0}, {1, 1}),   // output 1x1
      geo(1, 1, 1, 1, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {1, 1}),   // tiny
      geo(2, 1, 2, 1, {2, 3}, {3, 3}, {2, 2}, {1, 1}, {1, 1}),   // kernel larger than the input, padded
  };
  uint32_t seed = 1;
  for (DType d : kFloats)
    for (const Geo& g : geos) check_geometry(g, d, View::Contiguous, seed += 3);
}

BOOST_AUTO_TEST_CASE(conv2d_groups_depthwise_and_channel_multiplier) {
  const Geo geos[] = {
      geo(2, 4, 6, 2, {8, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}),    // groups 2
      geo(3, 6, 6, 3, {7, 7}, {3, 3}, {2, 2}, {1, 1}, {1, 1}),    // groups 3, stride 2
      geo(2, 8, 8, 8, {9, 10}, {3, 3}, {1, 1}, {1, 1}, {1, 1}),   // depthwise
      geo(1, 5, 5, 5, {11, 9}, {5, 5}, {2, 2}, {2, 2}, {1, 1}),   // depthwise 5x5 strided
      geo(2, 4, 8, 4, {8, 8}, {3, 3}, {1, 1}, {2, 2}, {2, 2}),    // channel multiplier 2, dilation 2
      geo(1, 6, 12, 6, {7, 6}, {2, 3}, {3, 2}, {1, 0}, {1, 1}),   // multiplier 2, mixed
      geo(2, 4, 2, 2, {6, 7}, {1, 1}, {1, 1}, {0, 0}, {1, 1}),    // groups with 1x1
  };
  uint32_t seed = 100;
  for (DType d : kFloats)
    for (const Geo& g : geos) check_geometry(g, d, View::Contiguous, seed += 3);
}

BOOST_AUTO_TEST_CASE(conv1d_and_conv3d) {
  const Geo geos[] = {
      geo(2, 3, 4, 1, {17}, {3}, {1}, {1}, {1}),
      geo(3, 4, 6, 2, {20}, {5}, {2}, {2}, {1}),
      geo(1, 4, 4, 4, {15}, {3}, {3}, {0}, {2}),
      geo(2, 2, 3, 1, {1}, {1}, {1}, {0}, {1}),
      geo(1, 8, 16, 1, {64}, {7}, {2}, {3}, {1}),
      geo(1, 2, 3, 1, {5, 6, 4}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}),
      geo(2, 4, 4, 2, {7, 6, 5}, {3, 2, 3}, {2, 1, 2}, {1, 0, 1}, {1, 2, 1}),
      geo(1, 3, 3, 3, {6, 6, 6}, {3, 3, 3}, {2, 2, 2}, {2, 2, 2}, {2, 2, 2}),
      geo(3, 2, 4, 1, {3, 4, 5}, {1, 1, 1}, {1, 2, 3}, {0, 0, 0}, {1, 1, 1}),
  };
  uint32_t seed = 200;
  for (DType d : kFloats)
    for (const Geo& g : geos) check_geometry(g, d, View::Contiguous, seed += 3);
}

BOOST_AUTO_TEST_CASE(asymmetric_padding) {
  const Geo geos[] = {
      Geo{2, 3, 4, 1, {8, 9}, {3, 3}, {1, 1}, {0, 2}, {2, 0}, {1, 1}},
      Geo{1, 4, 4, 2, {9, 7}, {3, 3}, {2, 2}, {1, 0}, {2, 1}, {1, 1}},
      Geo{2, 2, 3, 1, {10, 10}, {2, 3}, {3, 2}, {2, 0}, {0, 1}, {2, 1}},
      Geo{1, 3, 2, 1, {13}, {4}, {2}, {0}, {3}, {1}},
      Geo{1, 2, 2, 1, {4, 5, 6}, {2, 2, 3}, {1, 2, 1}, {1, 0, 2}, {0, 1, 0}, {1, 1, 2}},
  };
  uint32_t seed = 300;
  for (DType d : kFloats)
    for (const Geo& g : geos) check_geometry(g, d, View::Contiguous, seed += 3);
}

// The input (and dy) read in place through strides (channels-last: conv_pack),
// through a slice (the element DAG), and computed: every path agrees with the
// evaluator.
BOOST_AUTO_TEST_CASE(permuted_sliced_and_computed_inputs) {
  const Geo geos[] = {
      geo(2, 4, 6, 1, {9, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}),
      geo(3, 6, 6, 2, {11, 10}, {3, 3}, {2, 2}, {1, 1}, {1, 1}),
      geo(1, 4, 4, 4, {8, 9}, {3, 3}, {1, 2}, {2, 1}, {2, 1}),
      geo(2, 3, 5, 1, {12}, {3}, {2}, {1}, {1}),
      geo(1, 2, 4, 1, {5, 4, 6}, {3, 3, 3}, {1, 1, 2}, {1, 1, 1}, {1, 1, 1}),
  };
  uint32_t seed = 400;
  for (DType d : kFloats)
    for (View v : {View::ChannelsLast, View::Sliced, View::Computed})
      for (const Geo& g : geos) check_geometry(g, d, v, seed += 3);
}

// Sizes that need several tiles of M and N and several KC blocks (K > 256):
// 16 channels of 40x40 with 3x3 (K = 144) and 5x5 (K = 400) kernels, and
// the weight gradient's K = N * out = 3 * 1600 = 4800 > 4096.
BOOST_AUTO_TEST_CASE(moderately_large_sizes) {
  const Geo geos[] = {
      geo(2, 16, 24, 1, {40, 40}, {3, 3}, {1, 1}, {1, 1}, {1, 1}),
      geo(1, 16, 20, 1, {40, 37}, {5, 5}, {1, 1}, {2, 2}, {1, 1}),
      geo(3, 16, 16, 1, {40, 40}, {3, 3}, {1, 1}, {1, 1}, {1, 1}),  // weight grad K = 4800
      geo(2, 32, 32, 2, {33, 31}, {3, 3}, {2, 2}, {1, 1}, {1, 1}),  // groups, K per group 144
      geo(1, 48, 8, 1, {20, 20}, {3, 3}, {1, 1}, {1, 1}, {1, 1}),   // K = 432: two KC blocks
  };
  uint32_t seed = 500;
  for (DType d : kFloats)
    for (const Geo& g : geos) check_geometry(g, d, View::Contiguous, seed += 3);
  check_geometry(geos[2], DType::Float32, View::ChannelsLast, 600);
  check_geometry(geos[4], DType::Float32, View::Sliced, 603);
}

// Few output tiles over a long k (>= 8 KC blocks): the matmul driver splits k
// and sums the parts before the epilogue. A forward conv of 256 channels on a
// 4x4 image (K = 2304), a weight gradient over 3 x 48 x 48 pixels (K = 6912),
// each with an epilogue (bias + relu; an SGD update of the weight).
BOOST_AUTO_TEST_CASE(long_k_split_with_epilogues) {
  for (DType d : kFloats) {
    BOOST_TEST_CONTEXT(dtype_name(d)) {
      const Geo f = geo(1, 256, 8, 1, {4, 4}, {3, 3}, {1, 1}, {1, 1}, {1, 1});
      check_geometry(f, d, View::Contiguous, 800);
      NodePtr x = random_input(d, f.x_shape(), -1, 1, 801), w = random_input(d, f.w_shape(), -1, 1, 802);
      NodePtr b = random_input(d, {8}, -1, 1, 803);
      Tensor y = lt::conv(Tensor(x), Tensor(w), Tensor(b), {1}, {1}).relu();
      BOOST_TEST(check({y.node()}, f.k_conv(), 1.5)->kernels.size() == 1u);

      const Geo g = geo(3, 4, 6, 1, {48, 48}, {3, 3}, {1, 1}, {1, 1}, {1, 1});
      check_geometry(g, d, View::Contiguous, 810);
      NodePtr xg = random_input(d, g.x_shape(), -1, 1, 811), dy = random_input(d, g.y_shape(), -1, 1, 812);
      NodePtr w0 = random_input(d, g.w_shape(), -1, 1, 813);
      NodePtr update = ops::sub(w0, ops::mul(ops::conv_weight_grad(xg, dy, g.attrs(), g.kernel), ops::scalar(0.01, d)));
      auto plan = check({update}, g.k_weight_grad());
      BOOST_TEST(plan->kernels.size() == 1u);
      BOOST_TEST(conv_kernels(*plan, Op::ConvWeightGrad).size() == 1u);
    }
  }
}

// float16 / bfloat16 operands compute in float32 (ops::conv casts around
// the primitive): within one rounding of the narrow result (either side of
// the float32 sum) of the reference.
BOOST_AUTO_TEST_CASE(narrow_float_operands_compute_in_float32) {
  const Geo g = geo(2, 4, 6, 2, {9, 8}, {3, 3}, {2, 1}, {1, 1}, {1, 1});
  for (DType d : {DType::Float16, DType::BFloat16}) {
    BOOST_TEST_CONTEXT(dtype_name(d)) {
      NodePtr x = random_input(d, g.x_shape(), -1, 1, 1), w = random_input(d, g.w_shape(), -1, 1, 2);
      NodePtr dy = random_input(d, g.y_shape(), -1, 1, 3);
      NodePtr y = ops::conv(x, w, g.stride, g.pad_lo, g.pad_hi, g.dilation, g.groups);
      BOOST_TEST((y->dtype == d));
      NodePtr dx = ops::conv_input_grad(dy, w, g.attrs(), g.in), dw = ops::conv_weight_grad(x, dy, g.attrs(), g.kernel);
      CapturedTrace ct = capture_trace({y, dx, dw});
      const double ulp = d == DType::Float16 ? std::ldexp(1.0, -10) : std::ldexp(1.0, -7);
      const double K = static_cast<double>(g.k_weight_grad());
      check_outputs(evaluate_reference(ct.trace), run_cpu(ct.trace),
                    [&](DType) { return Tolerance{4 * std::sqrt(K) * tol_u(DType::Float32) * K, ulp, 0}; });
    }
  }
}

// Transposed convolutions (ConvInputGrad with an input size the forward
// convolution could not give back, output_padding) through lt::conv_transpose,
// against the evaluator, and checked against conv_input_grad built by hand.
BOOST_AUTO_TEST_CASE(conv_transpose_output_padding) {
  struct T {
    int64_t N, Cin, Cout, groups;
    V in, kernel, stride, pad, out_pad, dilation;
  };
  const T ts[] = {
      {2, 4, 3, 1, {5, 6}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}},
      {1, 4, 6, 2, {4, 5}, {3, 3}, {3, 2}, {0, 1}, {2, 1}, {1, 1}},
      {2, 3, 2, 1, {7}, {4}, {2}, {1}, {1}, {1}},
      {1, 2, 2, 1, {3, 3, 4}, {2, 3, 3}, {2, 2, 3}, {0, 1, 1}, {1, 0, 2}, {1, 1, 1}},
      {1, 6, 6, 3, {6, 6}, {3, 3}, {2, 2}, {2, 2}, {1, 1}, {2, 2}},  // output_padding < dilation
  };
  uint32_t seed = 700;
  for (DType d : kFloats)
    for (const T& t : ts) {
      BOOST_TEST_CONTEXT(dtype_name(d) << " conv_transpose case " << (&t - ts)) {
        Shape xs = Geo::cat({t.N, t.Cin}, t.in), ws = Geo::cat({t.Cin, t.Cout / t.groups}, t.kernel);
        NodePtr x = random_input(d, xs, -1, 1, seed++), w = random_input(d, ws, -1, 1, seed++);
        Tensor y = lt::conv_transpose(Tensor(x), Tensor(w), Tensor(), t.stride, t.pad, t.out_pad, t.groups, t.dilation);
        V size;
        for (size_t j = 0; j < t.in.size(); ++j)
          size.push_back((t.in[j] - 1) * t.stride[j] - 2 * t.pad[j] + t.dilation[j] * (t.kernel[j] - 1) + t.out_pad[j] + 1);
        BOOST_TEST(y.shape() == Geo::cat({t.N, t.Cout}, size));
        NodePtr by_hand = ops::conv_input_grad(x, w, conv_attrs(t.groups, t.stride, t.pad, t.dilation), size);
        check({y.node(), by_hand}, t.Cin / t.groups * Geo{}.prod(t.kernel));
        // The forward convolution of the result has x's shape again (its adjoint).
        NodePtr back = ops::conv(y.node(), w, t.stride, t.pad, t.pad, t.dilation, t.groups);
        Shape want_back = xs;
        BOOST_TEST(back->shape == want_back);
      }
    }
}

// ---- c. gradients against finite differences -----------------------------------

namespace {
using Xs = const std::vector<Tensor>&;
struct ConvArgs {
  V stride, padding, dilation;
  int64_t groups;
};
Tensor conv_of(Xs x, const ConvArgs& a) { return lt::conv(x[0], x[1], Tensor(), a.stride, a.padding, a.dilation, a.groups); }
}  // namespace

BOOST_AUTO_TEST_CASE(gradients_match_finite_differences) {
  struct Case {
    Shape x, w;
    ConvArgs a;
  };
  const Case cases[] = {
      {{1, 2, 5, 5}, {3, 2, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 1}},
      {{2, 2, 6, 5}, {2, 2, 3, 3}, {{2, 2}, {1, 0}, {1, 1}, 1}},  // stride 2
      {{1, 4, 5, 4}, {4, 2, 2, 3}, {{1, 1}, {1, 1}, {1, 1}, 2}},  // groups 2
      {{1, 2, 7, 6}, {2, 2, 3, 2}, {{1, 1}, {2, 1}, {2, 2}, 1}},  // dilation 2
      {{2, 3, 9}, {3, 1, 3}, {{2}, {1}, {1}, 3}},                 // conv1d depthwise stride 2
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT("x " << shape_str(c.x) << " w " << shape_str(c.w)) {
      gradcheck::check([&](Xs x) { return conv_of(x, c.a); }, {{c.x}, {c.w}}, 1e-7, 1e-6);
    }
  }
  // With a bias and relu after it.
  gradcheck::check(
      [](Xs x) { return lt::conv(x[0], x[1], x[2], {2, 1}, {1, 1}).relu(); },
      {{{1, 2, 5, 6}}, {{3, 2, 3, 3}}, {{3}}}, 1e-7, 1e-6);
}

// Second derivatives: the gradient of sum(conv(x, w)^2) wrt x and wrt w, as
// functions of (x, w), differentiated again (create_graph) and checked by
// finite differences of the first gradient.
BOOST_AUTO_TEST_CASE(second_derivatives) {
  const ConvArgs a{{2, 1}, {1, 1}, {1, 2}, 2};
  for (int which = 0; which < 2; ++which) {
    BOOST_TEST_CONTEXT("d/d(x, w) of dL/d" << (which ? "w" : "x")) {
      gradcheck::check(
          [&](Xs xs) {
            GradModeGuard on(true);
            std::vector<Tensor> in;
            for (const Tensor& t : xs) {
              Tensor u = t;
              if (!u.requires_grad()) u = t.detach().requires_grad_();
              in.push_back(u);
            }
            Tensor y = conv_of(in, a);
            Tensor loss = lt::sum(y * y);
            return lt::grad({loss}, in, {}, true, false, /*create_graph=*/true)[which];
          },
          {{{1, 4, 5, 6}}, {{2, 2, 3, 3}}}, 1e-6, 1e-5);
    }
  }
}

// ---- d. structure ----------------------------------------------------------------

BOOST_AUTO_TEST_CASE(conv_bias_relu_is_one_kernel) {
  for (DType d : kFloats) {
    NodePtr x = random_input(d, {2, 8, 12, 12}, -1, 1, 1), w = random_input(d, {16, 8, 3, 3}, -1, 1, 2);
    NodePtr b = random_input(d, {16}, -1, 1, 3);
    Tensor y = lt::conv(Tensor(x), Tensor(w), Tensor(b), {1}, {1}).relu();
    auto plan = check({y.node()}, 72, 1.5);
    BOOST_TEST(plan->kernels.size() == 1u);
    BOOST_TEST((plan->kernels[0].kind == KernelKind::MatMul));
    BOOST_TEST(plan->kernels[0].mm_conv.valid());
    BOOST_TEST(kernel_count({y.node()}) == 1u);
    // Channels-last too, 1d too.
    NodePtr xcl = ops::permute(random_input(d, {2, 12, 12, 8}, -1, 1, 4), {0, 3, 1, 2});
    BOOST_TEST(kernel_count({lt::conv(Tensor(xcl), Tensor(w), Tensor(b), {2}, {1}).relu().node()}) == 1u);
    NodePtr x1 = random_input(d, {3, 8, 20}, -1, 1, 5), w1 = random_input(d, {16, 8, 5}, -1, 1, 6);
    Tensor y1 = lt::conv(Tensor(x1), Tensor(w1), Tensor(b), {1}, {2}).relu();
    BOOST_TEST(check({y1.node()}, 40, 1.5)->kernels.size() == 1u);
  }
}


// A 3x3 convolution of 16 channels of 32x32: the im2col matrix would hold
// N*C*9*L = 2*16*9*1024 = 294912 elements, 9x the input. No buffer of the
// weight gradient's or the input gradient's plan (nor the forward's) comes near.
BOOST_AUTO_TEST_CASE(gradient_plans_hold_no_im2col_buffer) {
  const Geo g = geo(2, 16, 16, 1, {32, 32}, {3, 3}, {1, 1}, {1, 1}, {1, 1});
  const int64_t im2col = g.N * g.C * 9 * g.prod(g.out());
  const int64_t largest_tensor = std::max(shape_numel(g.x_shape()), shape_numel(g.y_shape()));
  BOOST_REQUIRE(im2col >= 8 * largest_tensor);
  for (DType d : kFloats) {
    BOOST_TEST_CONTEXT(dtype_name(d)) {
      NodePtr x = random_input(d, g.x_shape(), -1, 1, 1), w = random_input(d, g.w_shape(), -1, 1, 2);
      NodePtr dy = random_input(d, g.y_shape(), -1, 1, 3);
      struct P {
        const char* name;
        Op op;
        NodePtr root;
        int64_t K;
      };
      const P ps[] = {
          {"weight grad", Op::ConvWeightGrad, ops::conv_weight_grad(x, dy, g.attrs(), g.kernel), g.k_weight_grad()},
          {"input grad", Op::ConvInputGrad, ops::conv_input_grad(dy, w, g.attrs(), g.in), g.k_input_grad()},
          {"forward", Op::Conv, ops::conv(x, w, g.stride, g.pad_lo, g.pad_hi, g.dilation, 1), g.k_conv()},
      };
      for (const P& p : ps) {
        BOOST_TEST_CONTEXT(p.name) {
          auto plan = check({p.root}, p.K);
          for (const PlanBuffer& b : plan->buffers) BOOST_TEST(b.numel <= largest_tensor);
          for (int64_t bytes : plan->temp_slot_bytes)
            BOOST_TEST(bytes <= largest_tensor * static_cast<int64_t>(dtype_size(d)));
          auto ks = conv_kernels(*plan, p.op);
          BOOST_TEST(ks.size() == 1u);
          for (const Kernel* k : ks) BOOST_TEST(k->mm_conv.rhs.valid());
        }
      }
      // And the gradients through autograd: both from one backward, no large buffer either.
      Tensor xt = Tensor(x).detach().requires_grad_(), wt = Tensor(w).detach().requires_grad_();
      std::vector<Tensor> grads = lt::grad({lt::conv(xt, wt, Tensor(), {1}, {1})}, {xt, wt}, {Tensor(dy)});
      CapturedTrace ct = capture_trace({grads[0].node(), grads[1].node()});
      Plan plan = schedule(ct.trace, fusion_policy(""));
      for (const PlanBuffer& b : plan.buffers) BOOST_TEST(b.numel <= largest_tensor);
      BOOST_TEST(conv_kernels(plan, Op::ConvWeightGrad).size() == 1u);
      BOOST_TEST(conv_kernels(plan, Op::ConvInputGrad).size() == 1u);
    }
  }
}

// conv_pack's strided sources: a contiguous and a channels-last input are
// read in place (mm_conv.rhs valid with the strides of the layout); the
// weight gradient's dy too (mm_conv.lhs). A sliced input has none, so the
// Sliced cases above run the element-DAG packing (should slices ever get a
// strided source, give those cases another input that takes that path).
BOOST_AUTO_TEST_CASE(forward_kernels_read_contiguous_and_channels_last_inputs_in_place) {
  const Geo g = geo(2, 8, 12, 1, {10, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1});
  for (View v : {View::Contiguous, View::ChannelsLast}) {
    BOOST_TEST_CONTEXT(view_name(v)) {
      NodePtr x = presented(DType::Float32, g.x_shape(), v, 1), w = random_input(DType::Float32, g.w_shape(), -1, 1, 2);
      auto plan = check({ops::conv(x, w, g.stride, g.pad_lo, g.pad_hi, g.dilation, 1)}, g.k_conv());
      BOOST_TEST_REQUIRE(plan->kernels.size() == 1u);
      const MatMulConv& mc = plan->kernels[0].mm_conv;
      BOOST_TEST_REQUIRE(mc.valid());
      BOOST_TEST((mc.op == Op::Conv));
      BOOST_TEST(mc.N == 2);
      BOOST_TEST(mc.C == 8);
      BOOST_TEST(mc.O == 12);
      BOOST_TEST(mc.rhs.valid());
      // Strides of x [N, C, H, W] in elements.
      const int64_t H = 10, W = 9, C = 8;
      if (v == View::Contiguous) {
        BOOST_TEST(mc.rhs.strides[1] == H * W);
        BOOST_TEST(mc.rhs.strides[3] == 1);
      } else {
        BOOST_TEST(mc.rhs.strides[1] == 1);
        BOOST_TEST(mc.rhs.strides[3] == C);
      }
      NodePtr dy = presented(DType::Float32, g.y_shape(), v, 3);
      auto wplan = check({ops::conv_weight_grad(x, dy, g.attrs(), g.kernel)}, g.k_weight_grad());
      auto ks = conv_kernels(*wplan, Op::ConvWeightGrad);
      BOOST_TEST_REQUIRE(ks.size() == 1u);
      BOOST_TEST(ks[0]->mm_conv.rhs.valid());
      BOOST_TEST(ks[0]->mm_conv.lhs.valid());
    }
  }
  NodePtr xs = presented(DType::Float32, g.x_shape(), View::Sliced, 4), w = random_input(DType::Float32, g.w_shape(), -1, 1, 5);
  auto plan = check({ops::conv(xs, w, g.stride, g.pad_lo, g.pad_hi, g.dilation, 1)}, g.k_conv());
  BOOST_TEST_REQUIRE(plan->kernels.size() == 1u);
  BOOST_TEST((plan->kernels[0].kind == KernelKind::MatMul));
  BOOST_TEST(!plan->kernels[0].mm_conv.rhs.valid());
}

// ---- e. bad input ----------------------------------------------------------------

BOOST_AUTO_TEST_CASE(bad_geometry_raises_naming_conv) {
  auto msg_of = [](const std::function<void()>& f) { return lower(gradcheck::error_of(f)); };
  auto names_conv = [&](const std::function<void()>& f) {
    std::string m = msg_of(f);
    BOOST_TEST_MESSAGE("error: " << m);
    return !m.empty() && m.find("conv") != std::string::npos;
  };
  NodePtr x = random_input(DType::Float32, {2, 4, 6, 6}, -1, 1, 1), w = random_input(DType::Float32, {6, 4, 3, 3}, -1, 1, 2);
  const V one{1, 1}, zero{0, 0};
  // Wrong ranks.
  BOOST_TEST(names_conv([&] { ops::conv(random_input(DType::Float32, {4, 6, 6}), w, {1}, {0}, {0}, {1}, 1); }));
  BOOST_TEST(names_conv([&] { ops::conv(x, random_input(DType::Float32, {6, 4, 3}), one, zero, zero, one, 1); }));
  BOOST_TEST(names_conv([&] { ops::conv(x, w, {1}, zero, zero, one, 1); }));  // one stride for two dims
  BOOST_TEST(names_conv([&] { lt::conv(Tensor(random_input(DType::Float32, {6, 6})), Tensor(w)); }));
  BOOST_TEST(names_conv([&] { lt::conv(Tensor(x), Tensor(w), Tensor(), {1, 1, 1}); }));
  // Channel mismatch, groups not dividing.
  BOOST_TEST(names_conv([&] { ops::conv(x, random_input(DType::Float32, {6, 3, 3, 3}), one, zero, zero, one, 1); }));
  BOOST_TEST(names_conv([&] { ops::conv(x, random_input(DType::Float32, {6, 2, 3, 3}), one, zero, zero, one, 3); }));
  BOOST_TEST(names_conv([&] { ops::conv(x, random_input(DType::Float32, {5, 2, 3, 3}), one, zero, zero, one, 2); }));
  BOOST_TEST(names_conv([&] { ops::conv(x, w, one, zero, zero, one, 0); }));
  BOOST_TEST(names_conv([&] { lt::conv(Tensor(x), Tensor(w), Tensor(), {}, {}, {}, 3); }));
  // Kernel larger than the padded input (6 + 2*1 < 9; dilation 4 spans 9).
  BOOST_TEST(names_conv([&] { ops::conv(x, random_input(DType::Float32, {6, 4, 9, 3}), one, one, one, one, 1); }));
  BOOST_TEST(names_conv([&] { ops::conv(x, w, one, zero, zero, {4, 1}, 1); }));
  // Non-positive stride, negative padding.
  BOOST_TEST(names_conv([&] { ops::conv(x, w, {0, 1}, zero, zero, one, 1); }));
  BOOST_TEST(names_conv([&] { ops::conv(x, w, one, {-1, 0}, zero, one, 1); }));
  // Integer and mixed dtypes.
  BOOST_TEST(names_conv([&] {
    ops::conv(random_input(DType::Int32, {2, 4, 6, 6}), random_input(DType::Int32, {6, 4, 3, 3}), one, zero, zero, one, 1);
  }));
  BOOST_TEST(names_conv([&] { ops::conv(x, random_input(DType::Float64, {6, 4, 3, 3}), one, zero, zero, one, 1); }));
  BOOST_TEST(names_conv([&] { lt::conv(Tensor(random_input(DType::Int64, {2, 4, 6, 6})), Tensor(random_input(DType::Int64, {6, 4, 3, 3}))); }));
  // Bias of the wrong size.
  BOOST_TEST(names_conv([&] { lt::conv(Tensor(x), Tensor(w), Tensor(random_input(DType::Float32, {5}))); }));
  // The gradient primitives with an inconsistent geometry.
  const Attrs at = conv_attrs(1, one, zero, one);
  BOOST_TEST(names_conv([&] { ops::conv_input_grad(random_input(DType::Float32, {2, 5, 4, 4}), w, at, {6, 6}); }));
  BOOST_TEST(names_conv([&] { ops::conv_weight_grad(x, random_input(DType::Float32, {2, 6, 4}), at, {3, 3}); }));
  BOOST_TEST(names_conv([&] { ops::conv_weight_grad(x, random_input(DType::Float32, {3, 6, 4, 4}), at, {3, 3}); }));
  BOOST_TEST(names_conv([&] { ops::conv_weight_grad(x, random_input(DType::Float32, {2, 6, 4, 4}), conv_attrs(3, one, zero, one), {3, 3}); }));
  // conv_transpose: channel mismatch, output_padding too large.
  BOOST_TEST(names_conv([&] { lt::conv_transpose(Tensor(x), Tensor(random_input(DType::Float32, {5, 3, 3, 3}))); }));
  BOOST_TEST(names_conv([&] { lt::conv_transpose(Tensor(x), Tensor(random_input(DType::Float32, {4, 3, 3, 3})), Tensor(), {1}, {0}, {1}); }));
  // After the errors, convolutions and other work still evaluate.
  NodePtr y = ops::conv(x, w, one, one, one, one, 1);
  check({y, ops::add(x, x)}, 36);
  BOOST_TEST(Tensor(ops::sum(ops::add(x, x))).item<double>() != 0.0);
}


