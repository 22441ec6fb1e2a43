// Reference evaluator: reductions, scans, movement, gather/scatter, matmul and
// random numbers, checked against hand-written loops and literal values.
#define BOOST_TEST_MODULE evaluator_structural
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <set>
#include <string>

#include "eval_test_util.h"
#include "ir/error.h"

using namespace lt;
using namespace lt::test;

namespace {

std::vector<double> iota_values(int64_t n, double start = 0) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = start + static_cast<double>(i);
  return v;
}

std::vector<double> reduce(Op op, DType dt, Shape in_shape, const std::vector<double>& x, Attrs axes, DType out_dt) {
  Shape out_shape = in_shape;
  for (int64_t a : axes) out_shape[a] = 1;
  NodePtr in = input(dt, in_shape, x);
  return values(eval(node(op, out_dt, out_shape, axes, {in})));
}
std::vector<double> reduce(Op op, DType dt, Shape in_shape, const std::vector<double>& x, Attrs axes) {
  return reduce(op, dt, std::move(in_shape), x, std::move(axes), dt);
}

void expect_error(const std::function<void()>& f, ErrorKind kind, std::initializer_list<std::string> parts) {
  try {
    f();
    BOOST_FAIL("expected an error");
  } catch (const Error& e) {
    BOOST_TEST((e.kind() == kind));
    for (const std::string& p : parts) BOOST_TEST_CONTEXT(e.what()) {
        BOOST_TEST(std::string(e.what()).find(p) != std::string::npos);
      }
  }
}

}  // namespace

// ---- reductions -------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(reduce_sum_keeps_the_reduced_dims) {
  const std::vector<double> x{1, 2, 3, 4, 5, 6};  // [2, 3]
  for (DType dt : {DType::Int32, DType::Int64, DType::Float32, DType::Float64}) {
    BOOST_TEST((reduce(Op::ReduceSum, dt, {2, 3}, x, {0}) == std::vector<double>{5, 7, 9}));
    BOOST_TEST((reduce(Op::ReduceSum, dt, {2, 3}, x, {1}) == std::vector<double>{6, 15}));
    BOOST_TEST((reduce(Op::ReduceSum, dt, {2, 3}, x, {0, 1}) == std::vector<double>{21}));
  }
}

BOOST_AUTO_TEST_CASE(reduce_over_middle_axes_of_a_rank_4_tensor) {
  Shape s{2, 3, 4, 5};
  std::vector<double> x = iota_values(120);
  std::vector<double> want(10, 0.0);  // [2, 1, 1, 5]
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 4; ++c)
        for (int d = 0; d < 5; ++d) want[a * 5 + d] += x[((a * 3 + b) * 4 + c) * 5 + d];
  BOOST_TEST((reduce(Op::ReduceSum, DType::Float64, s, x, {1, 2}) == want));
}

BOOST_AUTO_TEST_CASE(float32_sums_accumulate_in_double) {
  // In float32, 1e8 + 1 == 1e8; accumulating in double keeps the 1.
  BOOST_TEST(reduce(Op::ReduceSum, DType::Float32, {3}, {1e8, 1, -1e8}, {0})[0] == 1.0);
}

BOOST_AUTO_TEST_CASE(int64_sums_are_exact) {
  int64_t big = (int64_t{1} << 53) + 1;
  NodePtr x = make_input(buffer_of_i64({big, 2, -1}), {3});
  BOOST_TEST(ints(eval(node(Op::ReduceSum, DType::Int64, {1}, {0}, {x})))[0] == big + 1);
  BOOST_TEST(ints(eval(node(Op::ReduceProd, DType::Int64, {1}, {0}, {x})))[0] == -2 * big);
}

BOOST_AUTO_TEST_CASE(reduce_prod_max_min) {
  const std::vector<double> x{1, -2, 3, 4, 0.5, -6};  // [2, 3]
  BOOST_TEST((reduce(Op::ReduceProd, DType::Float64, {2, 3}, x, {1}) == std::vector<double>{-6, -12}));
  BOOST_TEST((reduce(Op::ReduceMax, DType::Float32, {2, 3}, x, {1}) == std::vector<double>{3, 4}));
  BOOST_TEST((reduce(Op::ReduceMin, DType::Float32, {2, 3}, x, {0}) == std::vector<double>{1, -2, -6}));
  BOOST_TEST((reduce(Op::ReduceMax, DType::Int64, {2, 3}, {1, -2, 3, 4, 0, -6}, {0, 1}) == std::vector<double>{4}));
  BOOST_TEST((reduce(Op::ReduceMin, DType::Int32, {2, 3}, {1, -2, 3, 4, 0, -6}, {1}) == std::vector<double>{-2, -6}));
  BOOST_TEST((reduce(Op::ReduceMax, DType::Bool, {3}, {0, 1, 0}, {0}) == std::vector<double>{1}));
}

BOOST_AUTO_TEST_CASE(reduce_max_and_min_propagate_nan) {
  BOOST_TEST(std::isnan(reduce(Op::ReduceMax, DType::Float32, {3}, {1, kNaN, 3}, {0})[0]));
  BOOST_TEST(std::isnan(reduce(Op::ReduceMin, DType::Float64, {3}, {kNaN, 1, 3}, {0})[0]));
  BOOST_TEST(std::isnan(reduce(Op::ReduceMax, DType::Float64, {3}, {1, 3, kNaN}, {0})[0]));
  BOOST_TEST(reduce(Op::ReduceMax, DType::Float64, {2}, {-kInf, -kInf}, {0})[0] == -kInf);
}

BOOST_AUTO_TEST_CASE(bool_sum_counts_true_values) {
  BOOST_TEST((reduce(Op::ReduceSum, DType::Bool, {4}, {1, 0, 1, 1}, {0}, DType::Int64) == std::vector<double>{3}));
}

BOOST_AUTO_TEST_CASE(reductions_over_zero_elements) {
  BOOST_TEST((reduce(Op::ReduceSum, DType::Float32, {0, 3}, {}, {0}) == std::vector<double>{0, 0, 0}));
  BOOST_TEST((reduce(Op::ReduceProd, DType::Int64, {0, 3}, {}, {0}) == std::vector<double>{1, 1, 1}));
  BOOST_TEST(reduce(Op::ReduceSum, DType::Float32, {3, 0}, {}, {0}).empty());
  BOOST_CHECK_THROW(reduce(Op::ReduceMax, DType::Float32, {0, 3}, {}, {0}), Error);
  BOOST_CHECK_THROW(reduce(Op::ArgMax, DType::Float32, {0, 3}, {}, {0}, DType::Int64), Error);
}

BOOST_AUTO_TEST_CASE(argmax_and_argmin_return_the_first_extreme) {
  const std::vector<double> x{3, 1, 3, 1, 2, 2};  // [2, 3]
  BOOST_TEST((reduce(Op::ArgMax, DType::Float32, {2, 3}, x, {1}, DType::Int64) == std::vector<double>{0, 1}));
  BOOST_TEST((reduce(Op::ArgMin, DType::Float32, {2, 3}, x, {1}, DType::Int64) == std::vector<double>{1, 0}));
  BOOST_TEST((reduce(Op::ArgMax, DType::Int32, {2, 3}, x, {0}, DType::Int64) == std::vector<double>{0, 1, 0}));
  BOOST_TEST((reduce(Op::ArgMin, DType::Int64, {2, 3}, x, {0}, DType::Int64) == std::vector<double>{1, 0, 1}));
}

BOOST_AUTO_TEST_CASE(argmax_treats_the_first_nan_as_the_extreme) {
  // torch: tensor([1, nan, 3, nan]).argmax() == argmin() == 1
  const std::vector<double> x{1, kNaN, 3, kNaN};
  BOOST_TEST(reduce(Op::ArgMax, DType::Float32, {4}, x, {0}, DType::Int64)[0] == 1);
  BOOST_TEST(reduce(Op::ArgMin, DType::Float64, {4}, x, {0}, DType::Int64)[0] == 1);
}

BOOST_AUTO_TEST_CASE(cumsum_runs_along_its_axis) {
  const std::vector<double> x{1, 2, 3, 4, 5, 6};  // [2, 3]
  for (DType dt : {DType::Int32, DType::Int64, DType::Float32, DType::Float64}) {
    NodePtr in = input(dt, {2, 3}, x);
    BOOST_TEST((values(eval(node(Op::CumSum, dt, {2, 3}, {1}, {in}))) == std::vector<double>{1, 3, 6, 4, 9, 15}));
    BOOST_TEST((values(eval(node(Op::CumSum, dt, {2, 3}, {0}, {in}))) == std::vector<double>{1, 2, 3, 5, 7, 9}));
  }
  // The running sum is kept in double for floats: 1e8 + 1 - 1e8 is 1.
  NodePtr f = input(DType::Float32, {3}, {1e8, 1, -1e8});
  BOOST_TEST(values(eval(node(Op::CumSum, DType::Float32, {3}, {0}, {f})))[2] == 1.0);
  NodePtr empty = input(DType::Float32, {0, 2}, {});
  BOOST_TEST(eval(node(Op::CumSum, DType::Float32, {0, 2}, {0}, {empty}))->numel() == 0);
}

// ---- movement ---------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(reshape_keeps_row_major_order) {
  NodePtr x = input(DType::Int64, {2, 3}, iota_values(6));
  BOOST_TEST((values(eval(node(Op::Reshape, DType::Int64, {3, 2}, {}, {x}))) == iota_values(6)));
}

BOOST_AUTO_TEST_CASE(permute_moves_input_dims_to_output_positions) {
  Shape s{2, 3, 4};
  std::vector<double> x = iota_values(24);
  NodePtr in = input(DType::Float32, s, x);
  // out dim i = in dim perm[i] with perm = {2, 0, 1}: out[k, i, j] = in[i, j, k]
  std::vector<double> want;
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) want.push_back(x[(i * 3 + j) * 4 + k]);
  BOOST_TEST((values(eval(node(Op::Permute, DType::Float32, {4, 2, 3}, {2, 0, 1}, {in}))) == want));
}

BOOST_AUTO_TEST_CASE(expand_stretches_size_one_dims) {
  NodePtr x = input(DType::Int32, {3, 1}, {1, 2, 3});
  BOOST_TEST((values(eval(node(Op::Expand, DType::Int32, {3, 2}, {}, {x}))) == std::vector<double>{1, 1, 2, 2, 3, 3}));
  NodePtr y = input(DType::Bool, {1, 2}, {1, 0});
  BOOST_TEST((values(eval(node(Op::Expand, DType::Bool, {2, 2}, {}, {y}))) == std::vector<double>{1, 0, 1, 0}));
  BOOST_TEST(eval(node(Op::Expand, DType::Bool, {0, 2}, {}, {y}))->numel() == 0);
}

BOOST_AUTO_TEST_CASE(slice_takes_start_and_step_per_dim) {
  NodePtr x = input(DType::Float64, {4, 5}, iota_values(20));
  // rows 1, 3 (start 1 step 2), cols 0, 3 (start 0 step 3)
  BOOST_TEST(
      (values(eval(node(Op::Slice, DType::Float64, {2, 2}, {1, 2, 0, 3}, {x}))) == std::vector<double>{5, 8, 15, 18}));
  BOOST_TEST(eval(node(Op::Slice, DType::Float64, {0, 5}, {4, 1, 0, 1}, {x}))->numel() == 0);
  BOOST_CHECK_THROW(eval(node(Op::Slice, DType::Float64, {3, 5}, {1, 2, 0, 1}, {x})), Error);
}

BOOST_AUTO_TEST_CASE(flip_reverses_the_listed_axes) {
  NodePtr x = input(DType::Int64, {2, 3}, iota_values(6));
  BOOST_TEST((values(eval(node(Op::Flip, DType::Int64, {2, 3}, {1}, {x}))) == std::vector<double>{2, 1, 0, 5, 4, 3}));
  BOOST_TEST(
      (values(eval(node(Op::Flip, DType::Int64, {2, 3}, {0, 1}, {x}))) == std::vector<double>{5, 4, 3, 2, 1, 0}));
}

BOOST_AUTO_TEST_CASE(pad_fills_around_the_input) {
  NodePtr x = input(DType::Float32, {2, 2}, {1, 2, 3, 4});
  NodePtr fill = scalar(-1, DType::Float32);
  // dim 0: 1 before, 0 after; dim 1: 0 before, 2 after -> [3, 4]
  BOOST_TEST((values(eval(node(Op::Pad, DType::Float32, {3, 4}, {1, 0, 0, 2}, {x, fill}))) ==
              std::vector<double>{-1, -1, -1, -1, 1, 2, -1, -1, 3, 4, -1, -1}));
  NodePtr e = input(DType::Int32, {0}, {});
  BOOST_TEST((values(eval(node(Op::Pad, DType::Int32, {3}, {2, 1}, {e, scalar(7, DType::Int32)}))) ==
              std::vector<double>{7, 7, 7}));
}

BOOST_AUTO_TEST_CASE(concat_joins_inputs_along_the_axis) {
  NodePtr a = input(DType::Int64, {2, 1}, {1, 2});
  NodePtr b = input(DType::Int64, {2, 2}, {3, 4, 5, 6});
  NodePtr c = input(DType::Int64, {2, 0}, {});
  BOOST_TEST(
      (values(eval(node(Op::Concat, DType::Int64, {2, 3}, {1}, {a, c, b}))) == std::vector<double>{1, 3, 4, 2, 5, 6}));
  BOOST_TEST((values(eval(node(Op::Concat, DType::Int64, {4, 2}, {0}, {b, b}))) ==
              std::vector<double>{3, 4, 5, 6, 3, 4, 5, 6}));
}

BOOST_AUTO_TEST_CASE(movement_chain_of_views_composes) {
  // flip(permute(x)) sliced: checks strides compose through intermediates.
  NodePtr x = input(DType::Float32, {2, 3}, iota_values(6));
  NodePtr p = node(Op::Permute, DType::Float32, {3, 2}, {1, 0}, {x});      // [[0,3],[1,4],[2,5]]
  NodePtr f = node(Op::Flip, DType::Float32, {3, 2}, {0}, {p});            // [[2,5],[1,4],[0,3]]
  NodePtr s = node(Op::Slice, DType::Float32, {2, 1}, {0, 2, 1, 1}, {f});  // [[5],[3]]
  BOOST_TEST((values(eval(s)) == std::vector<double>{5, 3}));
}

// ---- gather and scatter -------------------------------------------------------------

BOOST_AUTO_TEST_CASE(gather_picks_along_the_axis) {
  NodePtr x = input(DType::Float32, {2, 3}, {10, 11, 12, 20, 21, 22});
  NodePtr idx = input(DType::Int64, {2, 2}, {2, 0, 1, 1});
  BOOST_TEST(
      (values(eval(node(Op::Gather, DType::Float32, {2, 2}, {1}, {x, idx}))) == std::vector<double>{12, 10, 21, 21}));
  NodePtr idx0 = input(DType::Int32, {1, 3}, {1, 0, 1});
  BOOST_TEST(
      (values(eval(node(Op::Gather, DType::Float32, {1, 3}, {0}, {x, idx0}))) == std::vector<double>{20, 11, 22}));
}

BOOST_AUTO_TEST_CASE(gather_out_of_range_index_is_an_index_error) {
  NodePtr x = input(DType::Float32, {2, 3}, iota_values(6));
  NodePtr bad = input(DType::Int64, {2, 1}, {0, 3});
  expect_error(
      [&] {
        eval(node(Op::Gather, DType::Float32, {2, 1}, {1}, {x, bad}));
      },
      ErrorKind::Index, {"gather", "index 3", "dim 1", "size 3"});
  NodePtr negative = input(DType::Int64, {2, 1}, {-1, 0});
  expect_error(
      [&] {
        eval(node(Op::Gather, DType::Float32, {2, 1}, {1}, {x, negative}));
      },
      ErrorKind::Index, {"gather", "index -1"});
}

BOOST_AUTO_TEST_CASE(scatter_add_accumulates_duplicates) {
  NodePtr self = input(DType::Float64, {2, 3}, {1, 1, 1, 1, 1, 1});
  NodePtr idx = input(DType::Int64, {2, 2}, {0, 0, 2, 1});
  NodePtr src = input(DType::Float64, {2, 3}, {5, 6, 100, 7, 8, 100});  // src larger than index: extra ignored
  BOOST_TEST((values(eval(node(Op::ScatterAdd, DType::Float64, {2, 3}, {1}, {self, idx, src}))) ==
              std::vector<double>{12, 1, 1, 1, 9, 8}));
  NodePtr self_i = input(DType::Int64, {3}, {0, 0, 0});
  NodePtr idx_i = input(DType::Int64, {4}, {2, 2, 0, 2});
  NodePtr src_i = input(DType::Int64, {4}, {1, 2, 3, 4});
  BOOST_TEST((values(eval(node(Op::ScatterAdd, DType::Int64, {3}, {0}, {self_i, idx_i, src_i}))) ==
              std::vector<double>{3, 0, 7}));
}

BOOST_AUTO_TEST_CASE(scatter_add_in_float32_accumulates_in_double) {
  NodePtr self = input(DType::Float32, {1}, {1e8});
  NodePtr idx = input(DType::Int64, {2}, {0, 0});
  NodePtr src = input(DType::Float32, {2}, {1, -1e8});
  BOOST_TEST(values(eval(node(Op::ScatterAdd, DType::Float32, {1}, {0}, {self, idx, src})))[0] == 1.0);
}

BOOST_AUTO_TEST_CASE(scatter_add_out_of_range_index_is_an_index_error) {
  NodePtr self = input(DType::Float32, {3}, {0, 0, 0});
  NodePtr idx = input(DType::Int64, {2}, {1, 5});
  NodePtr src = input(DType::Float32, {2}, {1, 1});
  expect_error(
      [&] {
        eval(node(Op::ScatterAdd, DType::Float32, {3}, {0}, {self, idx, src}));
      },
      ErrorKind::Index, {"scatter_add", "index 5", "dim 0", "size 3"});
}

// ---- matmul -------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(matmul_batched_matches_a_triple_loop) {
  const int B = 2, M = 3, K = 4, N = 5;
  std::vector<double> a = iota_values(B * M * K, -7), b = iota_values(B * K * N, -11);
  for (double& v : a) v *= 0.25;
  for (DType dt : {DType::Float32, DType::Float64, DType::Int64}) {
    std::vector<double> av = a, bv = b;
    if (dt == DType::Int64)
      for (double& v : av) v = std::trunc(v);
    std::vector<double> want(B * M * N, 0.0);
    for (int t = 0; t < B; ++t)
      for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j)
          for (int k = 0; k < K; ++k) want[(t * M + i) * N + j] += av[(t * M + i) * K + k] * bv[(t * K + k) * N + j];
    NodePtr x = input(dt, {B, M, K}, av), y = input(dt, {B, K, N}, bv);
    BOOST_TEST_CONTEXT(dtype_name(dt)) {
      BOOST_TEST((values(eval(node(Op::MatMul, dt, {B, M, N}, {}, {x, y}))) == want));
    }
  }
}

BOOST_AUTO_TEST_CASE(matmul_with_empty_inner_dim_gives_zeros) {
  NodePtr x = input(DType::Float32, {2, 0}, {}), y = input(DType::Float32, {0, 3}, {});
  BOOST_TEST((values(eval(node(Op::MatMul, DType::Float32, {2, 3}, {}, {x, y}))) == std::vector<double>(6, 0.0)));
}

// ---- random numbers -----------------------------------------------------------------

namespace {
NodePtr rand_node(Shape shape, int64_t seed, int64_t offset, int64_t stream = 0, DType dt = DType::Float32) {
  return node(Op::RandUniform, dt, std::move(shape), {stream},
              {scalar(seed, DType::Int64), scalar(offset, DType::Int64)});
}
}  // namespace

BOOST_AUTO_TEST_CASE(philox_matches_the_random123_known_answers) {
  uint32_t out[4];
  philox4x32(0, 0, out);
  BOOST_TEST(
      (std::vector<uint32_t>(out, out + 4) == std::vector<uint32_t>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  const uint32_t ones[4] = {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff};
  philox4x32_block(ones, ones, out);
  BOOST_TEST(
      (std::vector<uint32_t>(out, out + 4) == std::vector<uint32_t>{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  const uint32_t ctr[4] = {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344};
  const uint32_t key[2] = {0xa4093822, 0x299f31d0};
  philox4x32_block(ctr, key, out);
  BOOST_TEST(
      (std::vector<uint32_t>(out, out + 4) == std::vector<uint32_t>{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

BOOST_AUTO_TEST_CASE(rand_uniform_is_philox_of_seed_and_offset_plus_index) {
  std::vector<double> r = values(eval(rand_node({2, 3}, 42, 7, 1)));
  for (int i = 0; i < 6; ++i) {
    uint32_t w[4];
    philox4x32(42, 7 + i, w);
    BOOST_TEST(r[i] == uniform_from_bits(w[1], DType::Float32));
  }
}

BOOST_AUTO_TEST_CASE(rand_uniform_is_reproducible_and_offset_shifts_the_sequence) {
  std::vector<double> a = values(eval(rand_node({10}, 1234, 0)));
  BOOST_TEST((a == values(eval(rand_node({10}, 1234, 0)))));
  std::vector<double> b = values(eval(rand_node({10}, 1234, 3)));
  for (int i = 0; i + 3 < 10; ++i) BOOST_TEST(b[i] == a[i + 3]);
  BOOST_TEST((a != values(eval(rand_node({10}, 1235, 0)))));
  BOOST_TEST((a != values(eval(rand_node({10}, 1234, 0, 2)))));
}

BOOST_AUTO_TEST_CASE(rand_uniform_lies_in_the_unit_interval_and_looks_uniform) {
  for (DType dt : {DType::Float32, DType::Float64}) {
    std::vector<double> r = values(eval(rand_node({4096}, 99, 0, 3, dt)));
    double mean = 0;
    for (double v : r) {
      BOOST_TEST((v >= 0.0 && v < 1.0));
      mean += v / r.size();
    }
    BOOST_TEST(std::fabs(mean - 0.5) < 0.02);
    BOOST_TEST(std::set<double>(r.begin(), r.end()).size() > 4000u);
  }
}
