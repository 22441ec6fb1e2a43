// Values of indexing, matmul and the nn composites against hand-written double
// loops (literals checked with torch 1.13), with inputs through views, size-0
// and size-1 dims, and index errors raised at sync.
#define BOOST_TEST_MODULE ops_nn
#include "ops_test_util.h"

using namespace opt;
using lt::Scalar;
using lt::ops::Reduction;

namespace {

std::string tag(DType dt, Via via) { return std::string(lt::dtype_name(dt)) + " via " + via_name(via); }
Host values_for(Shape s, DType dt, uint32_t seed) {
  if (dt == DType::Bool) return random_ints(s, seed, 0, 2);
  if (!lt::is_floating(dt)) return random_ints(s, seed, -9, 10);
  return random_host(s, seed, -4, 4);
}
const Tol kTol32{1e-5, 1e-5};
Tol tol_for(DType dt) { return dt == DType::Float32 ? kTol32 : default_tol(dt); }

}  // namespace

// ---- indexing ----

BOOST_AUTO_TEST_CASE(index_select_picks_slices_along_any_dim_with_repeats) {
  Host x = random_host({3, 4, 2}, 1);
  std::vector<int64_t> idx{2, 0, 2, 1};
  for (DType dt : kAllDTypes) {
    Host h = round_to(values_for({3, 4, 2}, dt, 2), dt);
    for (int64_t dim : {0, 1, -1}) {
      int64_t d = dim < 0 ? dim + 3 : dim;
      std::vector<int64_t> ix;
      for (int64_t i : idx)
        if (i < h.shape[d]) ix.push_back(i);
      Shape out = h.shape;
      out[d] = static_cast<int64_t>(ix.size());
      Host want = generate(out, [&](const std::vector<int64_t>& i) {
        std::vector<int64_t> src = i;
        src[d] = ix[i[d]];
        return h.at(src);
      });
      for (Via via : kAllVias) {
        std::vector<int32_t> ix32(ix.begin(), ix.end());
        expect_values(lt::index_select(make_via(h, dt, via), dim, make_i64({static_cast<int64_t>(ix.size())}, ix)), want,
                      dt, std::nullopt, tag(dt, via));
        expect_values(lt::index_select(make_via(h, dt, via), dim,
                                       Tensor::from_vector<int32_t>(ix32, {static_cast<int64_t>(ix32.size())})),
                      want, dt, std::nullopt, tag(dt, via) + " int32 index");
      }
    }
  }
  // index through a view (flipped), empty index, 0-dim index keeps the dim with size 1 (torch)
  Tensor t = make(x, DType::Float32);
  expect_values(lt::index_select(t, 0, lt::flip(make_i64({3}, {0, 1, 2}), {0})), flip_host(x, {0}), DType::Float32);
  expect_values(lt::index_select(t, 1, make_i64({0}, {})), host({3, 0, 2}, {}), DType::Float32);
  expect_values(lt::index_select(t, 0, lt::scalar_tensor(1)), host({1, 4, 2}, std::vector<double>(x.v.begin() + 8, x.v.begin() + 16)),
                DType::Float32);
}

BOOST_AUTO_TEST_CASE(gather_reads_along_a_dim_with_a_smaller_index) {
  Host x = random_host({3, 4}, 3);
  Host idx0 = random_ints({2, 4}, 4, 0, 3), idx1 = random_ints({3, 2}, 5, 0, 4);
  for (DType dt : kAllDTypes) {
    Host h = round_to(values_for({3, 4}, dt, 6), dt);
    Host want0 = generate({2, 4}, [&](const std::vector<int64_t>& i) {
      return h.at({static_cast<int64_t>(idx0.at(i)), i[1]});
    });
    Host want1 = generate({3, 2}, [&](const std::vector<int64_t>& i) {
      return h.at({i[0], static_cast<int64_t>(idx1.at(i))});
    });
    for (Via via : kAllVias) {
      expect_values(lt::gather(make_via(h, dt, via), 0, make_via(idx0, DType::Int64, via)), want0, dt, std::nullopt,
                    tag(dt, via));
      expect_values(lt::gather(make_via(h, dt, via), -1, make_via(idx1, DType::Int64, via)), want1, dt, std::nullopt,
                    tag(dt, via));
    }
  }
  expect_values(lt::gather(make(x, DType::Float32), 1, make_i64({3, 0}, {})), host({3, 0}, {}), DType::Float32);
  BOOST_TEST(raises([&] { lt::gather(make(x, DType::Float32), 0, make({2, 4}, std::vector<double>(8, 0), DType::Int32)); }));
}

BOOST_AUTO_TEST_CASE(scatter_add_accumulates_duplicate_indices) {
  Host self = random_host({3, 4}, 7), src = random_host({2, 4}, 8);
  Host idx = host({2, 4}, {0, 2, 2, 1, 2, 2, 0, 1});  // column 1 hits row 2 twice, column 3 hits row 1 twice
  for (DType dt : kNumeric) {
    Host s = round_to(values_for({3, 4}, dt, 9), dt), r = round_to(values_for({2, 4}, dt, 10), dt);
    Host want = s;
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 4; ++j) want.v[want.offset({static_cast<int64_t>(idx.at({i, j})), j})] += r.at({i, j});
    for (Via via : kAllVias) {
      expect_values(lt::scatter_add(make_via(s, dt, via), 0, make_via(idx, DType::Int64, via), make_via(r, dt, via)),
                    want, dt, tol_for(dt), tag(dt, via));
    }
    // along the last dim with a src larger than the index (only the index's extent is read)
    Host idx_t = host({3, 2}, {3, 3, 0, 1, 1, 1});
    Host big = round_to(values_for({3, 5}, dt, 11), dt);
    Host want_t = s;
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 2; ++j) want_t.v[want_t.offset({i, static_cast<int64_t>(idx_t.at({i, j}))})] += big.at({i, j});
    expect_values(lt::scatter_add(make(s, dt), -1, make(idx_t, DType::Int64), make(big, dt)), want_t, dt, tol_for(dt));
  }
  (void)self;
  (void)src;
}

BOOST_AUTO_TEST_CASE(index_add_adds_scaled_rows_at_repeated_indices) {
  for (DType dt : kFloats) {
    Host s = round_to(random_host({4, 3}, 12), dt), r = round_to(random_host({3, 3}, 13), dt);
    std::vector<int64_t> idx{3, 0, 3};
    for (double alpha : {1.0, 2.0, -0.5}) {
      Host want = s;
      for (int64_t k = 0; k < 3; ++k)
        for (int64_t j = 0; j < 3; ++j) want.v[want.offset({idx[k], j})] += alpha * r.at({k, j});
      for (Via via : kAllVias) {
        expect_values(lt::index_add(make_via(s, dt, via), 0, make_i64({3}, idx), make_via(r, dt, via), alpha), want, dt,
                      tol_for(dt), tag(dt, via));
      }
      // along dim -1 with an int32 index
      Host want_c = s;
      std::vector<int32_t> cidx{2, 2, 0};
      Host rc = round_to(random_host({4, 3}, 14), dt);
      for (int64_t i = 0; i < 4; ++i)
        for (int64_t k = 0; k < 3; ++k) want_c.v[want_c.offset({i, cidx[k]})] += alpha * rc.at({i, k});
      expect_values(lt::index_add(make(s, dt), -1, Tensor::from_vector<int32_t>(cidx, {3}), make(rc, dt), alpha), want_c,
                    dt, tol_for(dt));
    }
  }
  // integers: exact
  expect_values(lt::index_add(make({3}, {1, 2, 3}, DType::Int64), 0, make_i64({2}, {2, 2}), make({2}, {10, 20}, DType::Int64)),
                host({3}, {1, 2, 33}), DType::Int64);
}

BOOST_AUTO_TEST_CASE(masked_fill_with_broadcast_mask_and_scalar_or_zero_dim_value) {
  Host x = random_host({2, 3}, 15);
  Host mask = host({3}, {1, 0, 1});
  for (DType dt : kAllDTypes) {
    Host h = round_to(values_for({2, 3}, dt, 16), dt);
    Host want = zip(h, mask, [dt](double v, double m) { return m != 0 ? round_to(7, dt) : v; });
    for (Via via : kAllVias) {
      expect_values(lt::masked_fill(make_via(h, dt, via), make(mask, DType::Bool), Scalar(7)), want, dt, std::nullopt,
                    tag(dt, via));
      expect_values(lt::masked_fill(make_via(h, dt, via), make_via(mask, DType::Bool, via), lt::scalar_tensor(7, dt)),
                    want, dt, std::nullopt, tag(dt, via));
    }
  }
  // torch: arange(6).reshape(2, 3).masked_fill([T, F, T], 2.7) = [[2, 1, 2], [2, 4, 2]] (int64)
  expect_values(lt::masked_fill(lt::reshape(lt::arange(6), {2, 3}), make({3}, {1, 0, 1}, DType::Bool), 2.7),
                host({2, 3}, {2, 1, 2, 2, 4, 2}), DType::Int64);
  expect_values(lt::masked_fill(make({2}, {1, 2}, DType::Float32), make({2}, {1, 0}, DType::Bool), -kInf),
                host({2}, {-kInf, 2}), DType::Float32);
  BOOST_TEST(raises([&] { lt::masked_fill(make(x, DType::Float32), make({3}, {1, 0, 1}, DType::Int64), 1.0); }));
  // Out of place, self broadcasts with the mask as in torch 1.13 (zeros(2, 3).masked_fill(ones(2, 2, 3)) is
  // [2, 2, 3]); in place it cannot grow ("output with shape [2, 3] doesn't match the broadcast shape [2, 2, 3]").
  Tensor grown = lt::masked_fill(make(x, DType::Float32), make({2, 2, 3}, std::vector<double>(12, 1), DType::Bool), 1.0);
  BOOST_TEST(grown.shape() == (Shape{2, 2, 3}));
  BOOST_TEST(grown.to_vector<float>() == std::vector<float>(12, 1.0f));
  Tensor self = make(x, DType::Float32);
  BOOST_TEST(raises([&] { self.masked_fill_(make({2, 2, 3}, std::vector<double>(12, 1), DType::Bool), 1.0); }));
  BOOST_TEST(raises([&] { lt::masked_fill(make(x, DType::Float32), make({4}, std::vector<double>(4, 1), DType::Bool), 1.0); }));
}

BOOST_AUTO_TEST_CASE(index_out_of_range_raises_at_sync) {
  Tensor x = make({3, 2}, {1, 2, 3, 4, 5, 6}, DType::Float32);
  BOOST_TEST(raises([&] { lt::gather(x, 0, make_i64({1, 2}, {0, 3})).to_vector<float>(); }));
  BOOST_TEST(raises([&] { lt::gather(x, 1, make_i64({1, 1}, {-1})).to_vector<float>(); }));
  BOOST_TEST(raises([&] { lt::index_select(x, 0, make_i64({2}, {1, 3})).to_vector<float>(); }));
  BOOST_TEST(raises([&] { lt::index_select(x, 1, make_i64({1}, {-1})).to_vector<float>(); }));
  BOOST_TEST(raises([&] {
    lt::scatter_add(x, 0, make_i64({1, 2}, {0, 5}), make({1, 2}, {1, 1}, DType::Float32)).to_vector<float>();
  }));
  BOOST_TEST(raises([&] { lt::index_add(x, 0, make_i64({1}, {3}), make({1, 2}, {1, 1}, DType::Float32)).to_vector<float>(); }));
  BOOST_TEST(raises([&] { lt::embedding(x, make_i64({2}, {0, 3})).to_vector<float>(); }));
  BOOST_TEST(raises([&] { lt::one_hot(make_i64({2}, {0, 4}), 3).to_vector<int64_t>(); }));
  BOOST_TEST(raises([&] { lt::one_hot(make_i64({2}, {0, -1}), 3).to_vector<int64_t>(); }));
  BOOST_TEST(raises([&] { lt::nll_loss(x, make_i64({3}, {0, 2, 1})).item<float>(); }));
  // the runtime is usable afterwards
  expect_values(lt::gather(x, 0, make_i64({1, 2}, {2, 0})), host({1, 2}, {5, 2}), DType::Float32);
}

// ---- matmul ----

namespace {
/// [.., m, k] x [.., k, n] with broadcasting of the batch dims, in double.
Host matmul_host(const Host& a, const Host& b) {
  Host x = a, y = b;
  bool a1 = a.ndim() == 1, b1 = b.ndim() == 1;
  if (a1) x.shape.insert(x.shape.begin(), 1);
  if (b1) y.shape.push_back(1);
  int64_t m = x.shape[x.ndim() - 2], k = x.shape[x.ndim() - 1], n = y.shape[y.ndim() - 1];
  Shape xb(x.shape.begin(), x.shape.end() - 2), yb(y.shape.begin(), y.shape.end() - 2);
  Shape batch = broadcast_shape(xb, yb);
  Shape full = batch;
  full.push_back(m);
  full.push_back(n);
  Host out = generate(full, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> bi(i.begin(), i.end() - 2);
    double s = 0;
    for (int64_t t = 0; t < k; ++t) {
      std::vector<int64_t> xi = bi, yi = bi;
      xi.push_back(i[i.size() - 2]);
      xi.push_back(t);
      yi.push_back(t);
      yi.push_back(i[i.size() - 1]);
      s += bcast_at(x, xi) * bcast_at(y, yi);
    }
    return s;
  });
  Shape final = batch;
  if (!a1) final.push_back(m);
  if (!b1) final.push_back(n);
  out.shape = final;
  return out;
}
}  // namespace

BOOST_AUTO_TEST_CASE(matmul_of_every_rank_combination_with_batch_broadcasting) {
  struct Case {
    Shape a, b;
  };
  std::vector<Case> cases{{{3}, {3}},          {{3}, {3, 4}},          {{2, 3}, {3}},       {{2, 3}, {3, 4}},
                          {{5, 2, 3}, {3, 4}}, {{2, 3}, {5, 3, 4}},    {{2, 1, 2, 3}, {3, 3, 4}}, {{3}, {2, 3, 4}},
                          {{2, 2, 3}, {3}},    {{0, 3}, {3, 2}},       {{2, 0}, {0, 3}},    {{1, 1}, {1, 1}},
                          {{2, 3}, {3, 0}}};
  uint32_t seed = 20;
  for (DType dt : kNumeric) {
    for (const Case& c : cases) {
      Host a = round_to(values_for(c.a, dt, seed++), dt), b = round_to(values_for(c.b, dt, seed++), dt);
      Host want = matmul_host(a, b);
      for (size_t k = 0; k < kAllVias.size(); ++k) {
        Via va = kAllVias[k], vb = kAllVias[(k + 1) % kAllVias.size()];
        expect_values(lt::matmul(make_via(a, dt, va), make_via(b, dt, vb)), want, dt, tol_for(dt),
                      std::string(lt::dtype_name(dt)) + " " + shape_text(c.a) + "@" + shape_text(c.b) + " via " +
                          via_name(va) + "/" + via_name(vb));
      }
    }
  }
  // torch: [[1, 2], [3, 4]] @ [5, 6] = [17, 39]
  expect_values(make({2, 2}, {1, 2, 3, 4}, DType::Int64).matmul(make({2}, {5, 6}, DType::Int64)), host({2}, {17, 39}),
                DType::Int64);
  BOOST_TEST(raises([] { lt::matmul(lt::zeros({2, 3}), lt::zeros({2, 3})); }));
  BOOST_TEST(raises([] { lt::matmul(lt::zeros({2, 2}), lt::zeros({2, 2}, DType::Float64)); }));
  BOOST_TEST(raises([] { lt::matmul(lt::zeros({2, 2, 3}), lt::zeros({3, 3, 1})); }));
  BOOST_TEST(raises([] { lt::matmul(lt::scalar_tensor(1.0), lt::zeros({1})); }));
}

BOOST_AUTO_TEST_CASE(linear_is_x_times_weight_transposed_plus_bias) {
  Host x = random_host({2, 3, 4}, 30), w = random_host({5, 4}, 31), b = random_host({5}, 32);
  Host xw = matmul_host(x, permute_host(w, {1, 0}));
  for (DType dt : kFloats) {
    expect_values(lt::linear(make(x, dt), make(w, dt)), xw, dt, tol_for(dt));
    expect_values(lt::linear(make_via(x, dt, Via::Permute), make_via(w, dt, Via::Transpose), make(b, dt)),
                  zip(xw, b, [](double p, double q) { return p + q; }), dt, tol_for(dt));
  }
}

// ---- softmax family ----

BOOST_AUTO_TEST_CASE(softmax_and_log_softmax_along_any_dim) {
  Host x = random_host({2, 3, 4}, 40, -6, 6);
  for (DType dt : kFloats) {
    Host h = round_to(x, dt);
    for (int64_t dim : {0, 1, 2, -1, -2}) {
      int64_t d = dim < 0 ? dim + 3 : dim;
      Host lse = reduce_host(h, {d}, true, [](const std::vector<double>& g) {
        double s = 0;
        for (double v : g) s += std::exp(v);
        return std::log(s);
      });
      Host logp = zip(h, lse, [](double v, double l) { return v - l; });
      for (Via via : kAllVias) {
        std::string what = tag(dt, via) + " dim " + std::to_string(dim);
        expect_values(lt::softmax(make_via(h, dt, via), dim), map(logp, [](double v) { return std::exp(v); }), dt,
                      tol_for(dt), what);
        expect_values(lt::log_softmax(make_via(h, dt, via), dim), logp, dt, tol_for(dt), what);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(softmax_is_stable_for_large_logits_and_handles_minus_inf_and_size_one) {
  Tensor big = make({3}, {1000, 1001, 999}, DType::Float32);
  double z = std::exp(-1.0) + 1 + std::exp(-2.0);
  expect_values(lt::softmax(big, 0), host({3}, {std::exp(-1.0) / z, 1 / z, std::exp(-2.0) / z}), DType::Float32, kTol32);
  expect_values(lt::log_softmax(big, 0), host({3}, {-1 - std::log(z), -std::log(z), -2 - std::log(z)}), DType::Float32,
                kTol32);
  Tensor masked = make({2, 3}, {0, -kInf, 0, -kInf, 5, -kInf}, DType::Float64);
  expect_values(lt::softmax(masked, 1), host({2, 3}, {0.5, 0, 0.5, 0, 1, 0}), DType::Float64);
  expect_values(lt::log_softmax(masked, -1), host({2, 3}, {-std::log(2.0), -kInf, -std::log(2.0), -kInf, 0, -kInf}),
                DType::Float64);
  expect_values(lt::softmax(make({2, 1}, {3, -7}, DType::Float32), 1), host({2, 1}, {1, 1}), DType::Float32);
  expect_values(lt::log_softmax(make({2, 1}, {3, -7}, DType::Float32), 1), host({2, 1}, {0, 0}), DType::Float32);
  expect_values(lt::softmax(lt::zeros({0, 3}), 1), host({0, 3}, {}), DType::Float32);
  BOOST_TEST(raises([] { lt::softmax(make({2}, {1, 2}, DType::Int64), 0); }));
}

BOOST_AUTO_TEST_CASE(layer_norm_with_and_without_weight_and_bias) {
  Host x = random_host({2, 3, 4}, 50);
  Host w = random_host({4}, 51, 0.5, 2), b = random_host({4}, 52);
  Host w2 = random_host({3, 4}, 53, 0.5, 2), b2 = random_host({3, 4}, 54);
  const double eps = 1e-5;
  auto norm = [&](const Host& h, int64_t k) {
    std::vector<int64_t> dims;
    for (int64_t i = h.ndim() - k; i < h.ndim(); ++i) dims.push_back(i);
    Host m = reduce_host(h, dims, true, [](const std::vector<double>& g) {
      double s = 0;
      for (double v : g) s += v;
      return s / static_cast<double>(g.size());
    });
    Host v = reduce_host(h, dims, true, [](const std::vector<double>& g) {
      double s = 0, ss = 0;
      for (double x : g) s += x;
      double mean = s / static_cast<double>(g.size());
      for (double x : g) ss += (x - mean) * (x - mean);
      return ss / static_cast<double>(g.size());
    });
    return zip(zip(h, m, [](double p, double q) { return p - q; }), v,
               [eps](double c, double var) { return c / std::sqrt(var + eps); });
  };
  for (DType dt : kFloats) {
    Host h = round_to(x, dt);
    Host n1 = norm(h, 1), n2 = norm(h, 2);
    for (Via via : kAllVias) {
      Tensor t = make_via(h, dt, via);
      std::string what = tag(dt, via);
      expect_values(lt::layer_norm(t, {4}), n1, dt, Tol{1e-4, 1e-5}, what);
      expect_values(lt::layer_norm(t, {4}, make(w, dt), make(b, dt)),
                    zip(zip(n1, w, [](double p, double q) { return p * q; }), b, [](double p, double q) { return p + q; }),
                    dt, Tol{1e-4, 1e-5}, what);
      expect_values(lt::layer_norm(t, {4}, make(w, dt)), zip(n1, w, [](double p, double q) { return p * q; }), dt,
                    Tol{1e-4, 1e-5}, what);
      expect_values(lt::layer_norm(t, {4}, Tensor(), make(b, dt)), zip(n1, b, [](double p, double q) { return p + q; }),
                    dt, Tol{1e-4, 1e-5}, what);
      expect_values(lt::layer_norm(t, {3, 4}, make(w2, dt), make(b2, dt)),
                    zip(zip(n2, w2, [](double p, double q) { return p * q; }), b2, [](double p, double q) { return p + q; }),
                    dt, Tol{1e-4, 1e-5}, what);
    }
  }
  // torch: layer_norm([[1, 2, 4]], (3,)) = [[-1.0690, -0.2673, 1.3363]]
  expect_values(lt::layer_norm(make({1, 3}, {1, 2, 4}, DType::Float32), {3}), host({1, 3}, {-1.0690, -0.2673, 1.3363}),
                DType::Float32, Tol{1e-4, 1e-4});
  // a constant row normalises to 0, not NaN
  expect_values(lt::layer_norm(make({1, 3}, {5, 5, 5}, DType::Float32), {3}), host({1, 3}, {0, 0, 0}), DType::Float32);
  BOOST_TEST(raises([] { lt::layer_norm(lt::zeros({2, 3}), {2}); }));
  BOOST_TEST(raises([] { lt::layer_norm(lt::zeros({2, 3}), {3}, lt::zeros({2})); }));
}

// ---- losses ----

namespace {
/// Per-sample cross entropy of logits [N, C] at class targets (ignored -> nan marker).
std::vector<double> ce_rows(const Host& logits, const std::vector<int64_t>& target) {
  int64_t n = logits.shape[0], c = logits.shape[1];
  std::vector<double> out;
  for (int64_t i = 0; i < n; ++i) {
    double s = 0;
    for (int64_t j = 0; j < c; ++j) s += std::exp(logits.at({i, j}));
    out.push_back(std::log(s) - logits.at({i, target[i] < 0 ? 0 : target[i]}));
  }
  return out;
}
}  // namespace

BOOST_AUTO_TEST_CASE(cross_entropy_mean_sum_none_with_ignore_index) {
  Host logits = random_host({5, 4}, 60);
  std::vector<int64_t> target{3, 0, -100, 2, 3};
  for (DType dt : kFloats) {
    Host l = round_to(logits, dt);
    std::vector<double> rows = ce_rows(l, target);
    double sum = 0;
    int valid = 0;
    Host none{{5}, {}};
    for (size_t i = 0; i < rows.size(); ++i) {
      bool ok = target[i] != -100;
      none.v.push_back(ok ? rows[i] : 0);
      sum += ok ? rows[i] : 0;
      valid += ok;
    }
    for (Via via : kAllVias) {
      Tensor t = make_via(l, dt, via), y = make_i64({5}, target);
      std::string what = tag(dt, via);
      expect_values(lt::cross_entropy(t, y), host({}, {sum / valid}), dt, tol_for(dt), what);
      expect_values(lt::cross_entropy(t, y, Reduction::Sum), host({}, {sum}), dt, tol_for(dt), what);
      expect_values(lt::cross_entropy(t, y, Reduction::None), none, dt, tol_for(dt), what);
    }
    // a custom ignore_index
    std::vector<int64_t> t2{3, 0, 1, 2, 3};
    std::vector<double> r2 = ce_rows(l, t2);
    expect_values(lt::cross_entropy(make(l, dt), make_i64({5}, t2), Reduction::Mean, 3),
                  host({}, {(r2[1] + r2[2] + r2[3]) / 3}), dt, tol_for(dt));
  }
  // torch: cross_entropy([[1, 2, 3], [1, 0, -1], [.5, .5, .5]], [2, 0, -100]) = 0.4076 (mean), 0.8152 (sum)
  Tensor l = make({3, 3}, {1, 2, 3, 1, 0, -1, 0.5, 0.5, 0.5}, DType::Float32);
  Tensor y = make_i64({3}, {2, 0, -100});
  expect_values(lt::cross_entropy(l, y), host({}, {0.40760596}), DType::Float32, kTol32);
  expect_values(lt::cross_entropy(l, y, Reduction::Sum), host({}, {0.81521192}), DType::Float32, kTol32);
  // torch: all targets ignored -> nan (mean)
  expect_values(lt::cross_entropy(l, make_i64({3}, {-100, -100, -100})), host({}, {kNaN}), DType::Float32);
  // torch: cross_entropy([1, 2, 3], tensor(1)) = 1.4076 (unbatched)
  expect_values(lt::cross_entropy(make({3}, {1, 2, 3}, DType::Float32), lt::scalar_tensor(1)), host({}, {1.40760596}),
                DType::Float32, kTol32);
}

BOOST_AUTO_TEST_CASE(cross_entropy_over_spatial_dims_takes_classes_from_dim_one) {
  Host logits = random_host({2, 3, 4}, 61);  // [N, C, d]
  std::vector<int64_t> target{0, 2, 1, 1, 2, 2, -100, 0};  // [N, d]
  double sum = 0;
  int valid = 0;
  Host none{{2, 4}, {}};
  for (int64_t n = 0; n < 2; ++n) {
    for (int64_t k = 0; k < 4; ++k) {
      int64_t t = target[n * 4 + k];
      if (t == -100) {
        none.v.push_back(0);
        continue;
      }
      double s = 0;
      for (int64_t c = 0; c < 3; ++c) s += std::exp(logits.at({n, c, k}));
      double loss = std::log(s) - logits.at({n, t, k});
      none.v.push_back(loss);
      sum += loss;
      ++valid;
    }
  }
  Tensor t = make_via(logits, DType::Float64, Via::Permute), y = make_i64({2, 4}, target);
  expect_values(lt::cross_entropy(t, y, Reduction::None), none, DType::Float64);
  expect_values(lt::cross_entropy(t, y), host({}, {sum / valid}), DType::Float64);
  expect_values(lt::cross_entropy(t, y, Reduction::Sum), host({}, {sum}), DType::Float64);
}

BOOST_AUTO_TEST_CASE(nll_loss_picks_negated_log_probs_with_ignore_index) {
  Host lp = random_host({4, 3}, 70, -3, 0);
  std::vector<int64_t> target{2, -1, 0, 2};
  for (DType dt : kFloats) {
    Host l = round_to(lp, dt);
    double sum = -(l.at({0, 2}) + l.at({2, 0}) + l.at({3, 2}));
    for (Via via : kAllVias) {
      Tensor t = make_via(l, dt, via), y = make_i64({4}, target);
      expect_values(lt::nll_loss(t, y, Reduction::Mean, -1), host({}, {sum / 3}), dt, tol_for(dt), tag(dt, via));
      expect_values(lt::nll_loss(t, y, Reduction::Sum, -1), host({}, {sum}), dt, tol_for(dt), tag(dt, via));
      expect_values(lt::nll_loss(t, y, Reduction::None, -1), host({4}, {-l.at({0, 2}), 0, -l.at({2, 0}), -l.at({3, 2})}),
                    dt, tol_for(dt), tag(dt, via));
    }
  }
  BOOST_TEST(raises([] { lt::nll_loss(lt::zeros({2, 3}), make({2}, {0, 1}, DType::Int32)); }));
  BOOST_TEST(raises([] { lt::nll_loss(lt::zeros({2, 3}), make_i64({3}, {0, 1, 1})); }));
}

BOOST_AUTO_TEST_CASE(mse_loss_mean_sum_none) {
  Host a = random_host({2, 3}, 80), b = random_host({2, 3}, 81);
  Host sq = zip(a, b, [](double p, double q) { return (p - q) * (p - q); });
  double sum = 0;
  for (double v : sq.v) sum += v;
  for (DType dt : kFloats) {
    for (Via via : kAllVias) {
      Tensor x = make_via(a, dt, via), y = make(b, dt);
      expect_values(lt::mse_loss(x, y), host({}, {sum / 6}), dt, tol_for(dt), tag(dt, via));
      expect_values(lt::mse_loss(x, y, Reduction::Sum), host({}, {sum}), dt, tol_for(dt), tag(dt, via));
      expect_values(lt::mse_loss(x, y, Reduction::None), sq, dt, tol_for(dt), tag(dt, via));
    }
  }
  expect_values(lt::mse_loss(lt::zeros({0}), lt::zeros({0})), host({}, {kNaN}), DType::Float32);
}

// ---- one_hot, embedding ----

BOOST_AUTO_TEST_CASE(one_hot_with_explicit_and_inferred_num_classes) {
  // torch: one_hot([2, 0, 1]) = [[0, 0, 1], [1, 0, 0], [0, 1, 0]]; one_hot([[1], [3]], 5).shape = [2, 1, 5]
  expect_values(lt::one_hot(make_i64({3}, {2, 0, 1})), host({3, 3}, {0, 0, 1, 1, 0, 0, 0, 1, 0}), DType::Int64);
  Tensor idx = make_i64({2, 1}, {1, 3});
  expect_values(lt::one_hot(idx, 5), host({2, 1, 5}, {0, 1, 0, 0, 0, 0, 0, 0, 1, 0}), DType::Int64);
  Host h = random_ints({3, 4}, 90, 0, 6);
  for (Via via : kAllVias) {
    Tensor t = make_via(h, DType::Int64, via);
    Host want = generate({3, 4, 7}, [&](const std::vector<int64_t>& i) { return h.at({i[0], i[1]}) == i[2] ? 1.0 : 0.0; });
    expect_values(lt::one_hot(t, 7), want, DType::Int64, std::nullopt, via_name(via));
    double mx = *std::max_element(h.v.begin(), h.v.end());
    Shape inferred{3, 4, static_cast<int64_t>(mx) + 1};
    expect_values(lt::one_hot(t), generate(inferred, [&](const std::vector<int64_t>& i) {
                    return h.at({i[0], i[1]}) == i[2] ? 1.0 : 0.0;
                  }),
                  DType::Int64, std::nullopt, via_name(via));
  }
  expect_values(lt::one_hot(make_i64({0}, {})), host({0, 0}, {}), DType::Int64);
  expect_values(lt::one_hot(make_i64({0}, {}), 3), host({0, 3}, {}), DType::Int64);
  BOOST_TEST(raises([] { lt::one_hot(make({2}, {0, 1}, DType::Int32), 2); }));
}

BOOST_AUTO_TEST_CASE(embedding_looks_up_rows_for_any_index_shape) {
  Host w = random_host({5, 3}, 100);
  std::vector<int64_t> idx{4, 0, 4, 2, 1, 1};
  for (DType dt : kFloats) {
    Host wr = round_to(w, dt);
    Host want = generate({2, 3, 3}, [&](const std::vector<int64_t>& i) { return wr.at({idx[i[0] * 3 + i[1]], i[2]}); });
    for (Via via : kAllVias) {
      expect_values(lt::embedding(make_via(wr, dt, via), make_i64({2, 3}, idx)), want, dt, std::nullopt, tag(dt, via));
      std::vector<int32_t> i32(idx.begin(), idx.end());
      expect_values(lt::embedding(make_via(wr, dt, via), Tensor::from_vector<int32_t>(i32, {2, 3})), want, dt,
                    std::nullopt, tag(dt, via) + " int32 index");
    }
    expect_values(lt::embedding(make(wr, dt), lt::scalar_tensor(2)), host({3}, {wr.at({2, 0}), wr.at({2, 1}), wr.at({2, 2})}),
                  dt);
    expect_values(lt::embedding(make(wr, dt), make_i64({0}, {})), host({0, 3}, {}), dt);
  }
  BOOST_TEST(raises([] { lt::embedding(lt::zeros({5}), make_i64({1}, {0})); }));
}

BOOST_AUTO_TEST_CASE(scatter_add_and_index_add_leave_their_inputs_unchanged) {
  Tensor self = make({3}, {1, 2, 3}, DType::Float32);
  Tensor src = make({2}, {10, 20}, DType::Float32);
  Tensor idx = make_i64({2}, {0, 0});
  expect_values(lt::scatter_add(self, 0, idx, src), host({3}, {31, 2, 3}), DType::Float32);
  expect_values(lt::index_add(self, 0, make_i64({2}, {2, 2}), src, 0.5), host({3}, {1, 2, 18}), DType::Float32);
  expect_values(self, host({3}, {1, 2, 3}), DType::Float32);
  // a reshaped (buffer-sharing) self
  Tensor m = make({2, 2}, {1, 2, 3, 4}, DType::Float64);
  Tensor flat = lt::reshape(m, {4});
  expect_values(lt::scatter_add(flat, 0, make_i64({1}, {3}), make({1}, {100}, DType::Float64)), host({4}, {1, 2, 3, 104}),
                DType::Float64);
  expect_values(m, host({2, 2}, {1, 2, 3, 4}), DType::Float64);
  expect_values(flat, host({4}, {1, 2, 3, 4}), DType::Float64);
}
