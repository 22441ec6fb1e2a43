// Values of the reductions and cumsum against hand-written double loops: any
// set of dims (negative included), keepdim, size-0 and size-1 dims, inputs
// reaching the op through views, every accepted dtype (results checked with
// torch 1.13 where a rule is PyTorch's).
#define BOOST_TEST_MODULE ops_reduce
#include "ops_test_util.h"

using namespace opt;

namespace {

struct Case {
  Shape shape;
  std::vector<int64_t> dims;
};
const std::vector<Case> kCases{
    {{2, 3, 4}, {}},       {{2, 3, 4}, {0}},      {{2, 3, 4}, {1}},         {{2, 3, 4}, {-1}},
    {{2, 3, 4}, {0, 2}},   {{2, 3, 4}, {-1, -3}}, {{2, 3, 4}, {2, 0, 1}},   {{2, 3, 4}, {1, -1}},
    {{5}, {0}},            {{5}, {-1}},           {{1, 3, 1}, {0, 2}},      {{1, 3, 1}, {-1}},
    {{1, 3, 1}, {1}},      {{0, 3}, {0}},         {{0, 3}, {1}},            {{0, 3}, {}},
    {{}, {}},              {{3, 0, 2}, {-1}},
};

bool reduces_empty(const Case& c) {
  if (numel(c.shape) != 0) return false;
  if (c.dims.empty()) return true;
  for (int64_t d : c.dims)
    if (c.shape[d < 0 ? d + c.shape.size() : d] == 0) return true;
  return false;
}

using ReduceOp = std::function<Tensor(const Tensor&, const std::vector<int64_t>&, bool)>;
using GroupRef = std::function<double(const std::vector<double>&)>;

const Tol kSumTol{1e-5, 1e-5};

void check_reduce(const ReduceOp& op, const GroupRef& ref, const std::vector<DType>& dtypes,
                  const std::function<DType(DType)>& out, const std::function<Host(Shape, DType)>& gen,
                  bool skip_empty = false, bool need_dims = false, std::optional<Tol> tol = std::nullopt) {
  for (DType dt : dtypes) {
    for (const Case& c : kCases) {
      if (skip_empty && reduces_empty(c)) continue;
      if (need_dims && c.dims.empty()) continue;
      Host in = round_to(gen(c.shape, dt), dt);
      for (bool keepdim : {false, true}) {
        Host want = reduce_host(in, c.dims, keepdim, ref);
        for (Via via : kAllVias) {
          Tensor r = op(make_via(in, dt, via), c.dims, keepdim);
          std::string dims = "{";
          for (int64_t d : c.dims) dims += std::to_string(d) + ",";
          expect_values(r, want, out(dt), lt::is_floating(out(dt)) ? std::optional<Tol>(tol.value_or(kSumTol)) : tol,
                        std::string(lt::dtype_name(dt)) + " " + shape_text(c.shape) + " dims " + dims +
                            "} keepdim=" + std::to_string(keepdim) + " via " + via_name(via));
        }
      }
    }
  }
}

Host gen_any(Shape s, DType dt) {
  if (dt == DType::Bool) return random_ints(s, 1, 0, 2);
  if (!lt::is_floating(dt)) return random_ints(s, 2, -9, 10);
  return random_host(s, 3, -4, 4);
}
Host gen_prod(Shape s, DType dt) {
  if (dt == DType::Bool) return random_ints(s, 4, 0, 2);
  if (!lt::is_floating(dt)) return random_ints(s, 5, -3, 4);
  return random_host(s, 6, 0.5, 1.5);
}
DType same(DType d) { return d; }
DType accum(DType d) { return lt::is_floating(d) ? d : DType::Int64; }
DType to_bool(DType) { return DType::Bool; }

double gsum(const std::vector<double>& g) {
  double s = 0;
  for (double v : g) s += v;
  return s;
}
double gmean(const std::vector<double>& g) { return gsum(g) / static_cast<double>(g.size()); }
double gvar(const std::vector<double>& g, int64_t correction) {
  double m = gmean(g), ss = 0;
  for (double v : g) ss += (v - m) * (v - m);
  return ss / static_cast<double>(std::max<int64_t>(static_cast<int64_t>(g.size()) - correction, 0));
}

std::vector<int64_t> vec(absl::Span<const int64_t> s) { return {s.begin(), s.end()}; }

}  // namespace

BOOST_AUTO_TEST_CASE(sum_over_any_dims_with_keepdim_and_int_accumulates_in_int64) {
  check_reduce([](const Tensor& x, const std::vector<int64_t>& d, bool k) { return lt::sum(x, d, k); }, gsum, kAllDTypes,
               accum, gen_any);
}

BOOST_AUTO_TEST_CASE(sum_with_explicit_dtype) {
  // torch: tensor([1., 2.]).sum(dtype=float64) is float64; int32.sum(dtype=int32) is int32
  expect_values(lt::sum(make({2}, {1, 2}, DType::Float32), {}, false, DType::Float64), host({}, {3}), DType::Float64);
  expect_values(lt::sum(make({2}, {1, 2}, DType::Int32), {}, false, DType::Int32), host({}, {3}), DType::Int32);
  expect_values(lt::sum(make({2, 2}, {1, 0, 1, 1}, DType::Bool), {1}, true, DType::Float32), host({2, 1}, {1, 2}),
                DType::Float32);
}

BOOST_AUTO_TEST_CASE(sum_of_int64_is_exact_beyond_double_precision) {
  int64_t big = (int64_t{1} << 53) + 1;
  expect_i64(lt::sum(make_i64({3}, {big, 2, -1})), {big + 1}, {});
}

BOOST_AUTO_TEST_CASE(prod_over_any_dims_and_empty_product_is_one) {
  auto gprod = [](const std::vector<double>& g) {
    double p = 1;
    for (double v : g) p *= v;
    return p;
  };
  check_reduce([](const Tensor& x, const std::vector<int64_t>& d, bool k) { return lt::prod(x, d, k); }, gprod,
               kAllDTypes, accum, gen_prod);
  // torch: zeros(0, 3).prod(0) = [1, 1, 1]; int32.prod(1) is int64
  expect_values(lt::prod(lt::zeros({0, 3}), {0}), host({3}, {1, 1, 1}), DType::Float32);
  expect_values(lt::prod(make({2, 2}, {1, 2, 3, 4}, DType::Int32), {1}), host({2}, {2, 12}), DType::Int64);
}

BOOST_AUTO_TEST_CASE(mean_over_any_dims_for_floats_and_nan_when_empty) {
  check_reduce([](const Tensor& x, const std::vector<int64_t>& d, bool k) { return lt::mean(x, d, k); },
               [](const std::vector<double>& g) { return g.empty() ? kNaN : gmean(g); }, kFloats, same, gen_any);
  // torch: integer mean raises ("could not infer output dtype")
  BOOST_TEST(raises([] { lt::mean(make({2}, {1, 2}, DType::Int64)); }));
}

BOOST_AUTO_TEST_CASE(amax_amin_over_any_dims_for_every_dtype) {
  auto gmax = [](const std::vector<double>& g) { return *std::max_element(g.begin(), g.end()); };
  auto gmin = [](const std::vector<double>& g) { return *std::min_element(g.begin(), g.end()); };
  check_reduce([](const Tensor& x, const std::vector<int64_t>& d, bool k) { return lt::amax(x, d, k); }, gmax,
               kAllDTypes, same, gen_any, /*skip_empty=*/true);
  check_reduce([](const Tensor& x, const std::vector<int64_t>& d, bool k) { return lt::amin(x, d, k); }, gmin,
               kAllDTypes, same, gen_any, /*skip_empty=*/true);
  // torch: amax(tensor([[1, 5], [7, 2]]), (0, 1), keepdim=True) = [[7]]
  expect_values(lt::amax(make({2, 2}, {1, 5, 7, 2}, DType::Int64), {0, 1}, true), host({1, 1}, {7}), DType::Int64);
}

BOOST_AUTO_TEST_CASE(amax_amin_propagate_nan_and_raise_over_size_zero_dims) {
  Tensor x = make({2, 3}, {1, kNaN, 3, -kInf, 2, 0}, DType::Float32);
  expect_values(lt::amax(x, {1}), host({2}, {kNaN, 2}), DType::Float32);
  expect_values(lt::amin(x, {-1}), host({2}, {kNaN, -kInf}), DType::Float32);
  expect_values(lt::amax(x, {0}), host({3}, {1, kNaN, 3}), DType::Float32);
  BOOST_TEST(raises([] { lt::amax(lt::zeros({0, 3}), {0}); }));
  BOOST_TEST(raises([] { lt::amin(lt::zeros({0, 3})); }));
  // reducing the non-empty dim of a size-0 tensor is fine: shape [0]
  expect_values(lt::amax(lt::zeros({0, 3}), {1}), host({0}, {}), DType::Float32);
}

BOOST_AUTO_TEST_CASE(argmax_argmin_along_a_dim_with_keepdim_and_first_index_on_ties) {
  Host in = random_ints({2, 3, 4}, 50, 0, 4);  // small range: many ties
  auto first_arg = [](const std::vector<double>& g, bool mx) {
    size_t best = 0;
    for (size_t i = 1; i < g.size(); ++i)
      if (mx ? g[i] > g[best] : g[i] < g[best]) best = i;
    return static_cast<double>(best);
  };
  for (DType dt : kNumeric) {
    Host x = round_to(in, dt);
    for (int64_t d : {0, 1, 2, -1, -3}) {
      for (bool keepdim : {false, true}) {
        for (Via via : kAllVias) {
          Tensor t = make_via(x, dt, via);
          std::string what = std::string(lt::dtype_name(dt)) + " dim " + std::to_string(d) + " " + via_name(via);
          expect_values(lt::argmax(t, d, keepdim),
                        reduce_host(x, {d}, keepdim, [&](const std::vector<double>& g) { return first_arg(g, true); }),
                        DType::Int64, std::nullopt, what);
          expect_values(lt::argmin(t, d, keepdim),
                        reduce_host(x, {d}, keepdim, [&](const std::vector<double>& g) { return first_arg(g, false); }),
                        DType::Int64, std::nullopt, what);
        }
      }
    }
    // no dim: index into the flattened tensor
    Tensor t = make_via(x, dt, Via::Transpose);
    expect_values(lt::argmax(t), host({}, {first_arg(x.v, true)}), DType::Int64);
    expect_values(lt::argmin(t, std::nullopt, true), host({1, 1, 1}, {first_arg(x.v, false)}), DType::Int64);
  }
  // size-1 dim gives 0
  expect_values(lt::argmax(make({1, 3}, {4, 5, 6}, DType::Float32), 0), host({3}, {0, 0, 0}), DType::Int64);
}

BOOST_AUTO_TEST_CASE(argmax_picks_the_first_nan) {
  // torch: argmax(tensor([1, 3, 3, nan, nan])) = 3; argmin(tensor([2, 1, 1, 5])) = 1
  expect_values(lt::argmax(make({5}, {1, 3, 3, kNaN, kNaN}, DType::Float32)), host({}, {3}), DType::Int64);
  expect_values(lt::argmin(make({5}, {1, kNaN, -3, kNaN, 0}, DType::Float64)), host({}, {1}), DType::Int64);
  expect_values(lt::argmin(make({4}, {2, 1, 1, 5}, DType::Int64)), host({}, {1}), DType::Int64);
  BOOST_TEST(raises([] { lt::argmax(lt::zeros({0})); }));
  BOOST_TEST(raises([] { lt::argmax(lt::zeros({2, 0}), 1); }));
}

BOOST_AUTO_TEST_CASE(var_and_std_biased_and_unbiased_over_any_dims) {
  for (int64_t correction : {0, 1}) {
    check_reduce(
        [correction](const Tensor& x, const std::vector<int64_t>& d, bool k) { return lt::var(x, d, correction, k); },
        [correction](const std::vector<double>& g) { return g.empty() ? kNaN : gvar(g, correction); }, kFloats, same,
        gen_any);
    check_reduce(
        [correction](const Tensor& x, const std::vector<int64_t>& d, bool k) { return lt::std(x, d, correction, k); },
        [correction](const std::vector<double>& g) { return g.empty() ? kNaN : std::sqrt(gvar(g, correction)); },
        kFloats, same, gen_any);
  }
}

BOOST_AUTO_TEST_CASE(var_of_one_element_is_nan_unbiased_and_zero_biased) {
  // torch: tensor([3.]).var() = nan; var(unbiased=False) = 0
  Tensor x = make({1}, {3}, DType::Float32);
  expect_values(lt::var(x), host({}, {kNaN}), DType::Float32);
  expect_values(lt::var(x, {}, 0), host({}, {0}), DType::Float32);
  expect_values(lt::std(x), host({}, {kNaN}), DType::Float32);
  // a known value: var([1, 2, 3, 4]) = 1.6667, std biased = 1.1180
  expect_values(lt::var(make({4}, {1, 2, 3, 4}, DType::Float64)), host({}, {5.0 / 3.0}), DType::Float64);
  expect_values(lt::std(make({4}, {1, 2, 3, 4}, DType::Float64), {0}, 0), host({}, {std::sqrt(1.25)}), DType::Float64);
}

BOOST_AUTO_TEST_CASE(logsumexp_over_any_dims_and_integers_promote_to_float32) {
  auto ref = [](const std::vector<double>& g) {
    double s = 0;
    for (double v : g) s += std::exp(v);
    return std::log(s);
  };
  check_reduce([](const Tensor& x, const std::vector<int64_t>& d, bool k) { return lt::logsumexp(x, d, k); }, ref,
               kNumeric, [](DType d) { return lt::is_floating(d) ? d : DType::Float32; }, gen_any, false,
               /*need_dims=*/true);
  // torch: logsumexp(tensor([1, 2, 3]), 0) = 3.4076 (float32)
  expect_values(lt::logsumexp(make({3}, {1, 2, 3}, DType::Int64), {0}), host({}, {3.4076059644}), DType::Float32);
}

BOOST_AUTO_TEST_CASE(logsumexp_is_stable_for_large_and_infinite_values) {
  expect_values(lt::logsumexp(make({2}, {1000, 1000}, DType::Float32), {0}), host({}, {1000 + std::log(2.0)}),
                DType::Float32);
  // torch: logsumexp([-inf, -inf]) = -inf; [inf, 1] = inf; zeros(0, 3) over dim 0 = [-inf]*3
  expect_values(lt::logsumexp(make({2}, {-kInf, -kInf}, DType::Float32), {0}), host({}, {-kInf}), DType::Float32);
  expect_values(lt::logsumexp(make({2}, {kInf, 1}, DType::Float32), {0}), host({}, {kInf}), DType::Float32);
  expect_values(lt::logsumexp(lt::zeros({0, 3}), {0}), host({3}, {-kInf, -kInf, -kInf}), DType::Float32);
  expect_values(lt::logsumexp(make({2, 2}, {-kInf, 0, -kInf, -kInf}, DType::Float64), {-1}, true),
                host({2, 1}, {0, -kInf}), DType::Float64);
}

BOOST_AUTO_TEST_CASE(all_and_any_over_any_dims_for_every_dtype) {
  auto gall = [](const std::vector<double>& g) {
    for (double v : g)
      if (v == 0) return 0.0;
    return 1.0;
  };
  auto gany = [](const std::vector<double>& g) {
    for (double v : g)
      if (v != 0) return 1.0;
    return 0.0;
  };
  auto sparse = [](Shape s, DType dt) {  // mostly nonzero, some zeros
    return map(random_ints(s, 60, 0, 7), [dt](double v) { return v == 0 ? 0.0 : (lt::is_floating(dt) ? v / 4 : v); });
  };
  auto dense_zero = [](Shape s, DType) { return map(random_ints(s, 61, 0, 8), [](double v) { return v == 0 ? 1.0 : 0.0; }); };
  for (auto gen : {std::function<Host(Shape, DType)>(sparse), std::function<Host(Shape, DType)>(dense_zero)}) {
    check_reduce([](const Tensor& x, const std::vector<int64_t>& d, bool k) { return lt::all(x, d, k); }, gall,
                 kAllDTypes, to_bool, gen);
    check_reduce([](const Tensor& x, const std::vector<int64_t>& d, bool k) { return lt::any(x, d, k); }, gany,
                 kAllDTypes, to_bool, gen);
  }
  // NaN is true; torch: all over an empty dim is True, any is False
  expect_values(lt::all(make({2}, {kNaN, 1}, DType::Float32)), host({}, {1}), DType::Bool);
  expect_values(lt::any(lt::zeros({0, 2}), {0}), host({2}, {0, 0}), DType::Bool);
  expect_values(lt::all(lt::zeros({0, 2}), {0}), host({2}, {1, 1}), DType::Bool);
}

BOOST_AUTO_TEST_CASE(cumsum_along_each_dim_including_negative) {
  Host in = random_host({2, 3, 4}, 70);
  for (DType dt : kAllDTypes) {
    Host x = round_to(dt == DType::Bool ? random_ints({2, 3, 4}, 71, 0, 2)
                      : lt::is_floating(dt)  ? in
                                            : random_ints({2, 3, 4}, 72, -9, 10),
                      dt);
    for (int64_t d : {0, 1, 2, -1, -2}) {
      int64_t dd = d < 0 ? d + 3 : d;
      Host want = generate(x.shape, [&](const std::vector<int64_t>& i) {
        std::vector<int64_t> j = i;
        double s = 0;
        for (j[dd] = 0; j[dd] <= i[dd]; ++j[dd]) s += x.at(j);
        return s;
      });
      for (Via via : kAllVias) {
        expect_values(lt::cumsum(make_via(x, dt, via), d), want, accum(dt), kSumTol,
                      std::string(lt::dtype_name(dt)) + " dim " + std::to_string(d) + " " + via_name(via));
      }
    }
  }
  // torch: cumsum(tensor([True, True]), 0) = [1, 2] (int64); explicit dtype; size 0 and 0-dim
  expect_values(lt::cumsum(make({2}, {1, 1}, DType::Bool), 0), host({2}, {1, 2}), DType::Int64);
  expect_values(lt::cumsum(make({3}, {1, 2, 3}, DType::Int32), 0, DType::Float64), host({3}, {1, 3, 6}),
                DType::Float64);
  expect_values(lt::cumsum(lt::zeros({0, 3}), 1), host({0, 3}, {}), DType::Float32);
  expect_values(lt::cumsum(lt::scalar_tensor(2.5), 0), host({}, {2.5}), DType::Float32);
}

BOOST_AUTO_TEST_CASE(reductions_of_a_zero_dim_tensor_accept_dim_zero) {
  // torch: tensor(2.5).sum(0) = 2.5; .amax(-1) = 2.5
  Tensor x = lt::scalar_tensor(2.5);
  expect_values(lt::sum(x, {0}), host({}, {2.5}), DType::Float32);
  expect_values(lt::amax(x, {-1}, true), host({}, {2.5}), DType::Float32);
  expect_values(lt::mean(x, {0}), host({}, {2.5}), DType::Float32);
  expect_values(lt::argmax(x, 0), host({}, {0}), DType::Int64);
}

BOOST_AUTO_TEST_CASE(reductions_reject_out_of_range_and_repeated_dims) {
  Tensor x = lt::zeros({2, 3});
  BOOST_TEST(raises([&] { lt::sum(x, {2}); }));
  BOOST_TEST(raises([&] { lt::sum(x, {-3}); }));
  BOOST_TEST(raises([&] { lt::sum(x, {1, -1}); }));
  BOOST_TEST(raises([&] { lt::argmax(x, 2); }));
  BOOST_TEST(raises([&] { lt::cumsum(x, -3); }));
}

BOOST_AUTO_TEST_CASE(method_forms_match_the_free_functions) {
  Tensor x = make({2, 3}, {1, 2, 3, 4, 5, 6}, DType::Float32);
  expect_values(x.sum({1}), host({2}, {6, 15}), DType::Float32);
  expect_values(x.mean({0}, true), host({1, 3}, {2.5, 3.5, 4.5}), DType::Float32);
  expect_values(x.max(), host({}, {6}), DType::Float32);
  expect_values(x.min(), host({}, {1}), DType::Float32);
  (void)vec;
}
