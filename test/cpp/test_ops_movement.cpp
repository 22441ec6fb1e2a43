// Values of the movement ops (views and the ops built from them) against
// hand-written index loops: negative dims, size-0 and size-1 dims, chains of
// views, every dtype (views never look at values, so one value set per dtype).
#define BOOST_TEST_MODULE ops_movement
#include "ops_test_util.h"

using namespace opt;

namespace {

/// 0, 1, 2, ... in row-major order (bool: alternating), so every element is identifiable.
Host iota_host(Shape s) {
  Host h{s, std::vector<double>(numel(s))};
  for (size_t i = 0; i < h.v.size(); ++i) h.v[i] = static_cast<double>(i) + 1;
  return h;
}
Host values_for(const Host& h, DType dt) {
  if (dt == DType::Bool) return map(h, [](double v) { return static_cast<double>(static_cast<int64_t>(v) % 3 != 0); });
  if (lt::is_floating(dt)) return map(h, [](double v) { return v / 4; });
  return h;
}

std::string tag(DType dt, Via via) { return std::string(lt::dtype_name(dt)) + " via " + via_name(via); }

/// Host slice along `dim` with Python semantics (step > 0).
Host slice_host(const Host& h, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step) {
  int64_t n = h.shape[dim];
  auto norm = [n](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + n : v, 0, n); };
  int64_t s = start ? norm(*start) : 0, e = stop ? norm(*stop) : n;
  std::vector<int64_t> picked;
  for (int64_t i = s; i < e; i += step) picked.push_back(i);
  Shape out = h.shape;
  out[dim] = static_cast<int64_t>(picked.size());
  return generate(out, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> src = i;
    src[dim] = picked[i[dim]];
    return h.at(src);
  });
}

}  // namespace

BOOST_AUTO_TEST_CASE(reshape_and_view_keep_row_major_order_and_infer_minus_one) {
  Host base = iota_host({2, 3, 4});
  for (DType dt : kAllDTypes) {
    Host x = values_for(base, dt);
    for (Via via : kAllVias) {
      Tensor t = make_via(x, dt, via);
      for (Shape s : std::vector<Shape>{{24}, {4, 6}, {2, 12}, {1, 24, 1}, {4, 3, 2}}) {
        expect_values(lt::reshape(t, s), host(s, x.v), dt, std::nullopt, tag(dt, via) + " to " + shape_text(s));
      }
      expect_values(lt::reshape(t, {-1, 4}), host({6, 4}, x.v), dt, std::nullopt, tag(dt, via));
      expect_values(t.view({3, -1}), host({3, 8}, x.v), dt, std::nullopt, tag(dt, via));
      expect_values(lt::reshape(t, {-1}), host({24}, x.v), dt, std::nullopt, tag(dt, via));
    }
  }
  expect_values(lt::reshape(lt::zeros({0, 3}), {3, -1, 2}), host({3, 0, 2}, {}), DType::Float32);
  expect_values(lt::reshape(lt::scalar_tensor(7, DType::Int64), {1, 1}), host({1, 1}, {7}), DType::Int64);
  expect_values(lt::reshape(make({1}, {7}, DType::Int64), {}), host({}, {7}), DType::Int64);
  BOOST_TEST(raises([] { lt::reshape(lt::zeros({2, 3}), {4, -1}); }));
  BOOST_TEST(raises([] { lt::reshape(lt::zeros({2, 3}), {-1, -1}); }));
  BOOST_TEST(raises([] { lt::reshape(lt::zeros({0, 3}), {0, -1}); }));
}

BOOST_AUTO_TEST_CASE(flatten_merges_a_range_of_dims_including_negative_bounds) {
  Host x = iota_host({2, 3, 4, 5});
  for (Via via : kAllVias) {
    Tensor t = make_via(x, DType::Float32, via);
    expect_values(lt::flatten(t), host({120}, x.v), DType::Float32, std::nullopt, via_name(via));
    expect_values(lt::flatten(t, 1), host({2, 60}, x.v), DType::Float32, std::nullopt, via_name(via));
    expect_values(lt::flatten(t, 1, 2), host({2, 12, 5}, x.v), DType::Float32, std::nullopt, via_name(via));
    expect_values(t.flatten(-3, -2), host({2, 12, 5}, x.v), DType::Float32, std::nullopt, via_name(via));
    expect_values(lt::flatten(t, 2, 2), host({2, 3, 4, 5}, x.v), DType::Float32, std::nullopt, via_name(via));
  }
  // torch: flatten of a 0-dim tensor is [1]
  expect_values(lt::flatten(lt::scalar_tensor(3.0)), host({1}, {3}), DType::Float32);
  expect_values(lt::flatten(lt::zeros({2, 0, 3}), 0, 1), host({0, 3}, {}), DType::Float32);
  BOOST_TEST(raises([] { lt::flatten(lt::zeros({2, 3}), 1, 0); }));
}

BOOST_AUTO_TEST_CASE(permute_and_transpose_move_dims_including_negative) {
  Host base = iota_host({2, 3, 4});
  for (DType dt : kAllDTypes) {
    Host x = values_for(base, dt);
    for (Via via : kAllVias) {
      Tensor t = make_via(x, dt, via);
      for (std::vector<int64_t> p : std::vector<std::vector<int64_t>>{{2, 0, 1}, {1, 0, 2}, {0, 2, 1}, {2, 1, 0}}) {
        expect_values(lt::permute(t, p), permute_host(x, p), dt, std::nullopt, tag(dt, via));
      }
      expect_values(t.permute({-1, 0, -2}), permute_host(x, {2, 0, 1}), dt, std::nullopt, tag(dt, via));
      expect_values(lt::transpose(t, 0, -1), permute_host(x, {2, 1, 0}), dt, std::nullopt, tag(dt, via));
      expect_values(t.transpose(-2, 1), x, dt, std::nullopt, tag(dt, via));
    }
  }
  Host m = iota_host({3, 1});
  expect_values(make(m, DType::Int64).t(), host({1, 3}, m.v), DType::Int64);
  expect_values(lt::transpose(lt::zeros({0, 2}), 0, 1), host({2, 0}, {}), DType::Float32);
  BOOST_TEST(raises([] { lt::permute(lt::zeros({2, 3}), {0, 0}); }));
  BOOST_TEST(raises([] { lt::permute(lt::zeros({2, 3}), {0}); }));
  BOOST_TEST(raises([] { lt::transpose(lt::zeros({2, 3}), 0, 2); }));
}

BOOST_AUTO_TEST_CASE(expand_stretches_size_one_dims_adds_leading_dims_and_keeps_minus_one) {
  Host col = iota_host({3, 1});
  for (DType dt : kAllDTypes) {
    Host x = values_for(col, dt);
    for (Via via : kAllVias) {
      Tensor t = make_via(x, dt, via);
      expect_values(lt::expand(t, {3, 4}), expand_host(x, {3, 4}), dt, std::nullopt, tag(dt, via));
      expect_values(t.expand({2, -1, 5}), expand_host(x, {2, 3, 5}), dt, std::nullopt, tag(dt, via));
      expect_values(lt::expand(t, {3, 0}), host({3, 0}, {}), dt, std::nullopt, tag(dt, via));
    }
  }
  // expand of an expand, and of a 0-dim tensor
  Tensor twice = lt::expand(lt::expand(make({1, 2}, {5, 6}, DType::Int32), {3, 2}), {4, 3, 2});
  expect_values(twice, expand_host(host({1, 2}, {5, 6}), {4, 3, 2}), DType::Int32);
  expect_values(lt::expand(lt::scalar_tensor(2.0), {2, 2}), host({2, 2}, {2, 2, 2, 2}), DType::Float32);
  BOOST_TEST(raises([] { lt::expand(lt::zeros({3, 2}), {3, 4}); }));
  BOOST_TEST(raises([] { lt::expand(lt::zeros({3}), {-1, 3}); }));
}

BOOST_AUTO_TEST_CASE(squeeze_and_unsqueeze_with_negative_dims) {
  Host x = iota_host({1, 3, 1, 2});
  for (Via via : kAllVias) {
    Tensor t = make_via(x, DType::Int64, via);
    expect_values(lt::squeeze(t), host({3, 2}, x.v), DType::Int64, std::nullopt, via_name(via));
    expect_values(lt::squeeze(t, 0), host({3, 1, 2}, x.v), DType::Int64, std::nullopt, via_name(via));
    expect_values(t.squeeze(-2), host({1, 3, 2}, x.v), DType::Int64, std::nullopt, via_name(via));
    expect_values(lt::squeeze(t, 1), host({1, 3, 1, 2}, x.v), DType::Int64, std::nullopt, via_name(via));  // size 3: no-op
    expect_values(lt::unsqueeze(t, 0), host({1, 1, 3, 1, 2}, x.v), DType::Int64, std::nullopt, via_name(via));
    expect_values(t.unsqueeze(-1), host({1, 3, 1, 2, 1}, x.v), DType::Int64, std::nullopt, via_name(via));
    expect_values(lt::unsqueeze(t, -3), host({1, 3, 1, 1, 2}, x.v), DType::Int64, std::nullopt, via_name(via));
  }
  expect_values(lt::squeeze(lt::zeros({1, 0, 1})), host({0}, {}), DType::Float32);
  expect_values(lt::unsqueeze(lt::scalar_tensor(4.0), -1), host({1}, {4}), DType::Float32);
  expect_values(lt::squeeze(make({1, 1}, {9}, DType::Bool)), host({}, {1}), DType::Bool);
  BOOST_TEST(raises([] { lt::unsqueeze(lt::zeros({2}), 2); }));
  BOOST_TEST(raises([] { lt::squeeze(lt::zeros({2}), 1); }));
}

BOOST_AUTO_TEST_CASE(slice_with_start_stop_step_and_negative_and_clamped_bounds) {
  Host x = iota_host({4, 7});
  struct S {
    int64_t dim;
    std::optional<int64_t> start, stop;
    int64_t step;
  };
  std::vector<S> cases{{1, 1, 5, 1},   {1, 0, 7, 2},   {1, 1, std::nullopt, 3}, {1, -3, std::nullopt, 1},
                       {1, -100, 100, 2}, {1, 5, 2, 1}, {-1, -5, -1, 2},        {0, std::nullopt, -1, 1},
                       {-2, 1, 10, 2},  {1, 7, 9, 1},  {1, std::nullopt, std::nullopt, 10}, {0, -1, std::nullopt, 5}};
  for (DType dt : kAllDTypes) {
    Host h = values_for(x, dt);
    for (const S& c : cases) {
      int64_t dim = c.dim < 0 ? c.dim + 2 : c.dim;
      for (Via via : kAllVias) {
        expect_values(lt::slice(make_via(h, dt, via), c.dim, c.start, c.stop, c.step),
                      slice_host(h, dim, c.start, c.stop, c.step), dt, std::nullopt, tag(dt, via));
      }
    }
  }
  // slice of a slice (both with steps) and of a size-0 dim
  Tensor t = make(x, DType::Float64);
  expect_values(lt::slice(lt::slice(t, 1, 1, std::nullopt, 2), 1, 1, std::nullopt, 2),
                slice_host(slice_host(x, 1, 1, std::nullopt, 2), 1, 1, std::nullopt, 2), DType::Float64);
  expect_values(t.slice(0, std::nullopt, std::nullopt, 2).slice(1, -2, std::nullopt), slice_host(slice_host(x, 0, std::nullopt, std::nullopt, 2), 1, -2, std::nullopt, 1),
                DType::Float64);
  expect_values(lt::slice(lt::zeros({0, 3}), 0, 1, 5), host({0, 3}, {}), DType::Float32);
  BOOST_TEST(raises([&] { lt::slice(t, 1, 0, 3, 0); }));
  BOOST_TEST(raises([&] { lt::slice(t, 1, 0, 3, -1); }));
  BOOST_TEST(raises([&] { lt::slice(t, 2, 0, 3); }));
}

BOOST_AUTO_TEST_CASE(narrow_takes_a_strict_range_with_negative_start) {
  Host x = iota_host({3, 5});
  for (Via via : kAllVias) {
    Tensor t = make_via(x, DType::Int32, via);
    expect_values(lt::narrow(t, 1, 1, 3), slice_host(x, 1, 1, 4, 1), DType::Int32, std::nullopt, via_name(via));
    expect_values(lt::narrow(t, -1, -2, 2), slice_host(x, 1, 3, 5, 1), DType::Int32, std::nullopt, via_name(via));
    expect_values(lt::narrow(t, 0, 3, 0), host({0, 5}, {}), DType::Int32, std::nullopt, via_name(via));
  }
  Tensor t = make(x, DType::Int32);
  BOOST_TEST(raises([&] { lt::narrow(t, 1, 3, 3); }));
  BOOST_TEST(raises([&] { lt::narrow(t, 1, 6, 0); }));
  BOOST_TEST(raises([&] { lt::narrow(t, 1, -6, 1); }));
}

BOOST_AUTO_TEST_CASE(select_removes_the_dim_and_accepts_negative_index) {
  Host x = iota_host({2, 3, 4});
  for (DType dt : kAllDTypes) {
    Host h = values_for(x, dt);
    for (Via via : kAllVias) {
      Tensor t = make_via(h, dt, via);
      for (int64_t dim : {0, 1, 2, -1}) {
        int64_t d = dim < 0 ? dim + 3 : dim;
        for (int64_t idx : {int64_t{0}, int64_t{1}, int64_t{-1}}) {
          int64_t i = idx < 0 ? idx + h.shape[d] : idx;
          Host sl = slice_host(h, d, i, i + 1, 1);
          Shape out = h.shape;
          out.erase(out.begin() + d);
          expect_values(lt::select(t, dim, idx), host(out, sl.v), dt, std::nullopt, tag(dt, via));
        }
      }
    }
  }
  BOOST_TEST(raises([] { lt::select(lt::zeros({2, 3}), 1, 3); }));
  BOOST_TEST(raises([] { lt::select(lt::zeros({2, 3}), 1, -4); }));
  BOOST_TEST(raises([] { lt::select(lt::zeros({0, 3}), 0, 0); }));
}

BOOST_AUTO_TEST_CASE(flip_reverses_any_set_of_dims) {
  Host x = iota_host({2, 3, 4});
  for (DType dt : kAllDTypes) {
    Host h = values_for(x, dt);
    for (Via via : kAllVias) {
      Tensor t = make_via(h, dt, via);
      expect_values(lt::flip(t, {0}), flip_host(h, {0}), dt, std::nullopt, tag(dt, via));
      expect_values(lt::flip(t, {-1}), flip_host(h, {2}), dt, std::nullopt, tag(dt, via));
      expect_values(lt::flip(t, {0, 2}), flip_host(h, {0, 2}), dt, std::nullopt, tag(dt, via));
      expect_values(lt::flip(t, {2, 1, 0}), flip_host(h, {0, 1, 2}), dt, std::nullopt, tag(dt, via));
      expect_values(lt::flip(lt::flip(t, {1}), {-2}), h, dt, std::nullopt, tag(dt, via));
    }
  }
  expect_values(lt::flip(lt::zeros({0, 2}), {0, 1}), host({0, 2}, {}), DType::Float32);
  expect_values(lt::flip(make({1, 3}, {1, 2, 3}, DType::Int64), {0, 1}), host({1, 3}, {3, 2, 1}), DType::Int64);
  BOOST_TEST(raises([] { lt::flip(lt::zeros({2}), {1}); }));
}

BOOST_AUTO_TEST_CASE(pad_adds_constant_borders_last_dim_first_and_negative_pads_crop) {
  Host x = iota_host({2, 3, 4});
  auto pad_ref = [](const Host& h, std::vector<int64_t> pads, double value) {
    int64_t n = h.ndim();
    std::vector<int64_t> lo(n, 0), hi(n, 0);
    for (size_t i = 0; i < pads.size() / 2; ++i) {
      lo[n - 1 - i] = pads[2 * i];
      hi[n - 1 - i] = pads[2 * i + 1];
    }
    Shape out = h.shape;
    for (int64_t i = 0; i < n; ++i) out[i] += lo[i] + hi[i];
    return generate(out, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> src(n);
      for (int64_t k = 0; k < n; ++k) {
        src[k] = i[k] - lo[k];
        if (src[k] < 0 || src[k] >= h.shape[k]) return value;
      }
      return h.at(src);
    });
  };
  std::vector<std::vector<int64_t>> cases{{1, 2},       {0, 0, 2, 1},  {1, 1, 1, 1, 1, 1}, {-1, 2},
                                          {-1, -2},     {2, -1, -1, 1}, {0, 0},             {-1, -1, 0, 0, 1, 0}};
  for (DType dt : kAllDTypes) {
    Host h = values_for(x, dt);
    for (const auto& p : cases) {
      for (Via via : kAllVias) {
        expect_values(lt::pad(make_via(h, dt, via), p, dt == DType::Bool ? 1 : -2.5),
                      pad_ref(h, p, round_to(dt == DType::Bool ? 1 : -2.5, dt)), dt, std::nullopt, tag(dt, via));
      }
    }
  }
  // cropping a dim to nothing, and padding an empty dim
  expect_values(lt::pad(make(x, DType::Float32), {-2, -2}), host({2, 3, 0}, {}), DType::Float32);
  expect_values(lt::pad(lt::zeros({2, 0}), {1, 1}, 3), host({2, 2}, {3, 3, 3, 3}), DType::Float32);
  BOOST_TEST(raises([&] { lt::pad(make(x, DType::Float32), {1}); }));
  BOOST_TEST(raises([&] { lt::pad(make(x, DType::Float32), {-3, -2}); }));
}

BOOST_AUTO_TEST_CASE(cat_joins_along_any_dim_and_promotes_dtypes) {
  Host a = iota_host({2, 3}), b = map(iota_host({2, 1}), [](double v) { return -v; }),
       c = map(iota_host({2, 2}), [](double v) { return 10 * v; });
  auto cat1 = [&](const std::vector<Host>& hs) {
    Shape out{2, 0};
    for (const Host& h : hs) out[1] += h.shape[1];
    return generate(out, [&](const std::vector<int64_t>& i) {
      int64_t j = i[1];
      for (const Host& h : hs) {
        if (j < h.shape[1]) return h.at({i[0], j});
        j -= h.shape[1];
      }
      return 0.0;
    });
  };
  for (DType dt : kNumeric) {
    for (Via via : kAllVias) {
      std::vector<Tensor> ts{make_via(a, dt, via), make(b, dt), make_via(c, dt, via)};
      expect_values(lt::cat(ts, 1), cat1({a, b, c}), dt, std::nullopt, tag(dt, via));
      expect_values(lt::cat(ts, -1), cat1({a, b, c}), dt, std::nullopt, tag(dt, via));
    }
  }
  // along dim 0: rows of a then rows of a transposed view
  Host at = permute_host(iota_host({3, 2}), {1, 0});
  std::vector<double> rows = a.v;
  rows.insert(rows.end(), at.v.begin(), at.v.end());
  expect_values(lt::cat({make(a, DType::Int64), lt::transpose(make(iota_host({3, 2}), DType::Int64), 0, 1)}, 0),
                host({4, 3}, rows), DType::Int64);
  // torch: cat of int32 and float32 is float32; of bool and int64 is int64
  expect_values(lt::cat({make({2}, {1, 2}, DType::Int32), make({1}, {0.5}, DType::Float32)}),
                host({3}, {1, 2, 0.5}), DType::Float32);
  expect_values(lt::cat({make({2}, {1, 0}, DType::Bool), make({1}, {7}, DType::Int64)}), host({3}, {1, 0, 7}),
                DType::Int64);
  // size-0 parts and legacy 1-D empty tensors are skipped
  expect_values(lt::cat({make(a, DType::Float32), lt::zeros({0, 3}), make(a, DType::Float32)}),
                host({4, 3}, [&] {
                  std::vector<double> v = a.v;
                  v.insert(v.end(), a.v.begin(), a.v.end());
                  return v;
                }()),
                DType::Float32);
  expect_values(lt::cat({lt::zeros({0}), make(a, DType::Float32)}, 1), a, DType::Float32);
  BOOST_TEST(raises([&] { lt::cat({make(a, DType::Float32), make(b, DType::Float32)}, 0); }));
  BOOST_TEST(raises([] { lt::cat({lt::scalar_tensor(1.0), lt::scalar_tensor(2.0)}); }));
}

BOOST_AUTO_TEST_CASE(stack_adds_a_new_dim_at_any_position) {
  Host a = iota_host({2, 3}), b = map(iota_host({2, 3}), [](double v) { return -v; });
  for (DType dt : kAllDTypes) {
    Host ha = values_for(a, dt), hb = round_to(values_for(b, dt), dt);
    for (int64_t dim : {0, 1, 2, -1, -3}) {
      int64_t d = dim < 0 ? dim + 3 : dim;
      Shape out{2, 3};
      out.insert(out.begin() + d, 2);
      Host want = generate(out, [&](const std::vector<int64_t>& i) {
        std::vector<int64_t> j = i;
        int64_t which = j[d];
        j.erase(j.begin() + d);
        return which == 0 ? ha.at(j) : hb.at(j);
      });
      for (Via via : kAllVias) {
        expect_values(lt::stack({make_via(ha, dt, via), make(hb, dt)}, dim), want, dt, std::nullopt, tag(dt, via));
      }
    }
  }
  expect_values(lt::stack({lt::scalar_tensor(1.0), lt::scalar_tensor(2.0)}), host({2}, {1, 2}), DType::Float32);
  expect_values(lt::stack({lt::zeros({0}), lt::zeros({0})}, 1), host({0, 2}, {}), DType::Float32);
  BOOST_TEST(raises([] { lt::stack({lt::zeros({2}), lt::zeros({3})}); }));
}

BOOST_AUTO_TEST_CASE(split_by_size_and_by_sizes_along_any_dim) {
  Host x = iota_host({3, 7});
  for (Via via : kAllVias) {
    Tensor t = make_via(x, DType::Float32, via);
    std::vector<Tensor> parts = lt::split(t, 3, 1);
    BOOST_TEST_REQUIRE(parts.size() == 3u);
    expect_values(parts[0], slice_host(x, 1, 0, 3, 1), DType::Float32, std::nullopt, via_name(via));
    expect_values(parts[1], slice_host(x, 1, 3, 6, 1), DType::Float32, std::nullopt, via_name(via));
    expect_values(parts[2], slice_host(x, 1, 6, 7, 1), DType::Float32, std::nullopt, via_name(via));
    std::vector<Tensor> sized = lt::split(t, std::vector<int64_t>{2, 0, 5}, -1);
    BOOST_TEST_REQUIRE(sized.size() == 3u);
    expect_values(sized[0], slice_host(x, 1, 0, 2, 1), DType::Float32, std::nullopt, via_name(via));
    expect_values(sized[1], host({3, 0}, {}), DType::Float32, std::nullopt, via_name(via));
    expect_values(sized[2], slice_host(x, 1, 2, 7, 1), DType::Float32, std::nullopt, via_name(via));
    std::vector<Tensor> rows = lt::split(t, 5, 0);  // one piece larger than the dim
    BOOST_TEST_REQUIRE(rows.size() == 1u);
    expect_values(rows[0], x, DType::Float32, std::nullopt, via_name(via));
  }
  BOOST_TEST(raises([] { lt::split(lt::zeros({3}), std::vector<int64_t>{1, 1}); }));
  BOOST_TEST(raises([] { lt::split(lt::zeros({3}), 0); }));
}

BOOST_AUTO_TEST_CASE(chunk_splits_into_ceil_sized_pieces) {
  // torch: arange(7).chunk(3) -> sizes [3, 3, 1]; arange(6).chunk(4) -> [2, 2, 2]; arange(2).chunk(5) -> [1, 1]
  auto sizes = [](int64_t n, int64_t chunks) {
    std::vector<int64_t> s;
    for (const Tensor& t : lt::chunk(lt::arange(n), chunks)) s.push_back(t.size(0));
    return s;
  };
  BOOST_TEST(sizes(7, 3) == std::vector<int64_t>({3, 3, 1}), boost::test_tools::per_element());
  BOOST_TEST(sizes(6, 4) == std::vector<int64_t>({2, 2, 2}), boost::test_tools::per_element());
  BOOST_TEST(sizes(2, 5) == std::vector<int64_t>({1, 1}), boost::test_tools::per_element());
  Host x = iota_host({2, 5});
  for (Via via : kAllVias) {
    std::vector<Tensor> parts = lt::chunk(make_via(x, DType::Int64, via), 2, -1);
    BOOST_TEST_REQUIRE(parts.size() == 2u);
    expect_values(parts[0], slice_host(x, 1, 0, 3, 1), DType::Int64, std::nullopt, via_name(via));
    expect_values(parts[1], slice_host(x, 1, 3, 5, 1), DType::Int64, std::nullopt, via_name(via));
  }
  BOOST_TEST(raises([] { lt::chunk(lt::zeros({3}), 0); }));
}

BOOST_AUTO_TEST_CASE(tril_and_triu_with_diagonals_on_batches_and_non_square) {
  Host x = iota_host({2, 3, 5});
  for (DType dt : kAllDTypes) {
    Host h = values_for(x, dt);
    for (int64_t k : {0, 1, -1, 3, -3, 10}) {
      Host lower = generate(h.shape, [&](const std::vector<int64_t>& i) { return i[2] - i[1] <= k ? h.at(i) : 0.0; });
      Host upper = generate(h.shape, [&](const std::vector<int64_t>& i) { return i[2] - i[1] >= k ? h.at(i) : 0.0; });
      for (Via via : kAllVias) {
        Tensor t = make_via(h, dt, via);
        std::string what = tag(dt, via) + " k=" + std::to_string(k);
        expect_values(lt::tril(t, k), lower, dt, std::nullopt, what);
        expect_values(lt::triu(t, k), upper, dt, std::nullopt, what);
      }
    }
  }
  expect_values(lt::tril(lt::ones({0, 3})), host({0, 3}, {}), DType::Float32);
  BOOST_TEST(raises([] { lt::tril(lt::zeros({3})); }));
}

BOOST_AUTO_TEST_CASE(a_chain_of_views_reads_the_right_elements) {
  // permute -> slice with step -> flip -> expand -> reshape, checked against the same chain on the host.
  Host x = iota_host({2, 3, 4});
  Host h = permute_host(x, {2, 0, 1});                  // [4, 2, 3]
  h = slice_host(h, 0, 1, std::nullopt, 2);             // [2, 2, 3]
  h = flip_host(h, {0, 2});                             // [2, 2, 3]
  Host e = expand_host(host({2, 1, 2, 3}, h.v), {2, 2, 2, 3});
  Tensor t = lt::permute(make(x, DType::Float32), {2, 0, 1});
  t = lt::slice(t, 0, 1, std::nullopt, 2);
  t = lt::flip(t, {0, -1});
  t = lt::expand(lt::unsqueeze(t, 1), {2, 2, 2, 3});
  expect_values(lt::reshape(t, {4, 6}), host({4, 6}, e.v), DType::Float32);
  expect_values(lt::sum(t, {1}), map(host({2, 2, 3}, h.v), [](double v) { return 2 * v; }), DType::Float32);
}
