// Values of the creation ops: from host data, constants, ranges, eye, and the
// seeded random numbers (determinism, offsets, range and statistics).
#define BOOST_TEST_MODULE ops_creation
#include "ops_test_util.h"

using namespace opt;
using lt::Scalar;

BOOST_AUTO_TEST_CASE(from_vector_and_from_data_round_trip_every_dtype) {
  Host h = host({2, 3}, {1, 0, -3, 4, 5, 0});
  for (DType dt : kAllDTypes) expect_values(make(h, dt), round_to(h, dt), dt, std::nullopt, std::string(lt::dtype_name(dt)));
  std::vector<int32_t> raw{7, -8, 9, 10};
  expect_values(Tensor::from_data(raw.data(), DType::Int32, {2, 2}), host({2, 2}, {7, -8, 9, 10}), DType::Int32);
  raw[0] = 100;  // from_data copies
  expect_values(Tensor::from_data(raw.data(), DType::Int32, {4}), host({4}, {100, -8, 9, 10}), DType::Int32);
  expect_values(Tensor::from_vector<double>({2.5}), host({1}, {2.5}), DType::Float64);
  expect_values(Tensor::from_vector<float>({}, {0, 3}), host({0, 3}, {}), DType::Float32);
  expect_values(Tensor::from_vector<int64_t>({42}, {}), host({}, {42}), DType::Int64);
  expect_i64(make_i64({2}, {std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()}),
             {std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()}, {2});
  BOOST_TEST(raises([] { Tensor::from_vector<float>({1, 2, 3}, {2, 2}); }));
}

BOOST_AUTO_TEST_CASE(zeros_ones_full_in_every_dtype_and_shape) {
  for (DType dt : kAllDTypes) {
    for (Shape s : std::vector<Shape>{{2, 3}, {}, {0, 4}, {1, 1, 1}}) {
      std::string what = std::string(lt::dtype_name(dt)) + " " + shape_text(s);
      expect_values(lt::zeros(s, dt), generate(s, [](const auto&) { return 0.0; }), dt, std::nullopt, what);
      expect_values(lt::ones(s, dt), generate(s, [](const auto&) { return 1.0; }), dt, std::nullopt, what);
      expect_values(lt::full(s, Scalar(3), dt), generate(s, [dt](const auto&) { return round_to(3, dt); }), dt,
                    std::nullopt, what);
    }
  }
  BOOST_TEST(raises([] { lt::zeros({2, -1}); }));
}

BOOST_AUTO_TEST_CASE(full_infers_its_dtype_from_the_value_like_torch) {
  // torch.full((2,), 1.5) is float32, (2,), 7 is int64, (2,), True is bool
  expect_values(lt::full({2}, 1.5), host({2}, {1.5, 1.5}), DType::Float32);
  expect_values(lt::full({2}, 7), host({2}, {7, 7}), DType::Int64);
  expect_values(lt::full({2}, true), host({2}, {1, 1}), DType::Bool);
  expect_values(lt::full({2}, 2.7, DType::Int32), host({2}, {2, 2}), DType::Int32);
  expect_values(lt::full({1}, -kInf), host({1}, {-kInf}), DType::Float32);
  expect_values(lt::scalar_tensor(2.5), host({}, {2.5}), DType::Float32);
  expect_values(lt::scalar_tensor(3), host({}, {3}), DType::Int64);
}

BOOST_AUTO_TEST_CASE(arange_integer_forms_give_int64_including_negative_steps) {
  // torch: arange(5) = [0..4] int64; arange(10, 0, -3) = [10, 7, 4, 1]; arange(-2, 3, 2) = [-2, 0, 2]
  expect_values(lt::arange(5), host({5}, {0, 1, 2, 3, 4}), DType::Int64);
  expect_values(lt::arange(10, 0, -3), host({4}, {10, 7, 4, 1}), DType::Int64);
  expect_values(lt::arange(-2, 3, 2), host({3}, {-2, 0, 2}), DType::Int64);
  expect_values(lt::arange(3, 3), host({0}, {}), DType::Int64);
  expect_values(lt::arange(0, 5, 1, DType::Float64), host({5}, {0, 1, 2, 3, 4}), DType::Float64);
  expect_values(lt::arange(0, 4, 2, DType::Int32), host({2}, {0, 2}), DType::Int32);
  expect_i64(lt::arange(int64_t{1} << 40, (int64_t{1} << 40) + 3), {int64_t{1} << 40, (int64_t{1} << 40) + 1,
                                                                     (int64_t{1} << 40) + 2},
             {3});
  BOOST_TEST(raises([] { lt::arange(0, 5, 0); }));
  BOOST_TEST(raises([] { lt::arange(5, 0, 1); }));
}

BOOST_AUTO_TEST_CASE(arange_float_forms_give_float32_including_negative_steps) {
  // torch: arange(1.0, 0.0, -0.3) = [1.0, 0.7, 0.4, 0.1]; arange(0., 1., 0.1) has 10 elements; arange(2.5) = [0, 1, 2]
  auto ref = [](double start, double step, int64_t n) {
    Host h{{n}, {}};
    for (int64_t i = 0; i < n; ++i) h.v.push_back(start + static_cast<double>(i) * step);
    return h;
  };
  expect_values(lt::arange(1.0, 0.0, -0.3), ref(1.0, -0.3, 4), DType::Float32);
  expect_values(lt::arange(0.0, 1.0, 0.1), ref(0, 0.1, 10), DType::Float32);
  expect_values(lt::arange(2.5), host({3}, {0, 1, 2}), DType::Float32);
  expect_values(lt::arange(1, 2.5, 0.5), host({3}, {1, 1.5, 2}), DType::Float32);
  expect_values(lt::arange(-1.0, -2.0, -0.25, DType::Float64), ref(-1, -0.25, 4), DType::Float64);
  expect_values(lt::arange(0.5, 3.0, 1, DType::Int64), host({3}, {0, 1, 2}), DType::Int64);
}

BOOST_AUTO_TEST_CASE(linspace_includes_both_ends_and_handles_one_and_zero_steps) {
  for (DType dt : kFloats) {
    for (auto [a, b, n] : std::vector<std::tuple<double, double, int64_t>>{{-1, 1, 5}, {0, 1, 7}, {3, -2, 4}, {0, 10, 101}}) {
      Host want{{n}, {}};
      for (int64_t i = 0; i < n; ++i) want.v.push_back(a + (b - a) * static_cast<double>(i) / static_cast<double>(n - 1));
      Tensor t = lt::linspace(a, b, n, dt);
      expect_values(t, want, dt);
      std::vector<double> v = t.to_vector<double>();
      BOOST_TEST(v.front() == round_to(a, dt));  // both ends exact
      BOOST_TEST(v.back() == round_to(b, dt));
    }
  }
  // torch: linspace(0, 1, 1) = [0.]; linspace(2, 3, 0) = []
  expect_values(lt::linspace(0, 1, 1), host({1}, {0}), DType::Float32);
  expect_values(lt::linspace(2, 3, 0), host({0}, {}), DType::Float32);
  expect_values(lt::linspace(0, 6, 4, DType::Int64), host({4}, {0, 2, 4, 6}), DType::Int64);
  BOOST_TEST(raises([] { lt::linspace(0, 1, -1); }));
}

BOOST_AUTO_TEST_CASE(eye_square_and_rectangular_in_every_dtype) {
  for (DType dt : kAllDTypes) {
    for (auto [n, m] : std::vector<std::pair<int64_t, int64_t>>{{3, 3}, {2, 4}, {4, 2}, {0, 3}, {1, 1}}) {
      expect_values(lt::eye(n, m, dt), generate({n, m}, [](const std::vector<int64_t>& i) { return i[0] == i[1] ? 1.0 : 0.0; }),
                    dt);
    }
  }
  expect_values(lt::eye(2), host({2, 2}, {1, 0, 0, 1}), DType::Float32);
  BOOST_TEST(raises([] { lt::eye(-1); }));
}

BOOST_AUTO_TEST_CASE(rand_is_deterministic_per_seed_and_offset_selects_the_stream_position) {
  std::vector<float> a = lt::rand({1000}, 42).to_vector<float>();
  std::vector<float> b = lt::rand({1000}, 42).to_vector<float>();
  BOOST_TEST(a == b, boost::test_tools::per_element());
  std::vector<float> other_seed = lt::rand({1000}, 43).to_vector<float>();
  std::vector<float> other_offset = lt::rand({1000}, 42, 1000).to_vector<float>();
  int same_seed = 0, same_offset = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    same_seed += a[i] == other_seed[i];
    same_offset += a[i] == other_offset[i];
  }
  BOOST_TEST(same_seed < 5);
  BOOST_TEST(same_offset < 5);
  // element i of (seed, offset) is element offset + i of (seed, 0)
  std::vector<float> shifted = lt::rand({10}, 42, 990).to_vector<float>();
  for (size_t i = 0; i < shifted.size(); ++i) BOOST_TEST(shifted[i] == a[990 + i]);
  // the shape does not change the values, only their arrangement
  std::vector<float> grid = lt::rand({10, 100}, 42).to_vector<float>();
  BOOST_TEST(grid == a, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(rand_is_uniform_in_zero_one_with_mean_half) {
  for (DType dt : kFloats) {
    std::vector<double> v = lt::rand({100000}, 7, 0, dt).to_vector<double>();
    double sum = 0, sq = 0, lo = 1, hi = 0;
    for (double x : v) {
      sum += x;
      sq += x * x;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
    double mean = sum / v.size(), var = sq / v.size() - mean * mean;
    BOOST_TEST(lo >= 0.0);
    BOOST_TEST(hi < 1.0);
    BOOST_TEST(std::fabs(mean - 0.5) < 0.005);
    BOOST_TEST(std::fabs(var - 1.0 / 12) < 0.002);
    BOOST_TEST(lt::dtype_name(lt::rand({2, 3}, 7, 0, dt).dtype()) == lt::dtype_name(dt));
  }
  BOOST_TEST(raises([] { lt::rand({2}, 1, 0, DType::Int64); }));
}

BOOST_AUTO_TEST_CASE(randn_has_mean_zero_and_std_one_and_is_deterministic) {
  for (DType dt : kFloats) {
    std::vector<double> v = lt::randn({100000}, 11, 0, dt).to_vector<double>();
    double sum = 0, sq = 0;
    int64_t beyond3 = 0;
    for (double x : v) {
      BOOST_TEST_REQUIRE(std::isfinite(x));
      sum += x;
      sq += x * x;
      beyond3 += std::fabs(x) > 3;
    }
    double mean = sum / v.size(), sd = std::sqrt(sq / v.size() - mean * mean);
    BOOST_TEST(std::fabs(mean) < 0.02);
    BOOST_TEST(std::fabs(sd - 1) < 0.02);
    BOOST_TEST(beyond3 > 150);  // expected about 270 (0.27%)
    BOOST_TEST(beyond3 < 400);
  }
  BOOST_TEST(lt::randn({50}, 3).to_vector<float>() == lt::randn({50}, 3).to_vector<float>(),
             boost::test_tools::per_element());
  std::vector<float> a = lt::randn({50}, 3).to_vector<float>(), b = lt::randn({50}, 3, 50).to_vector<float>();
  int same = 0;
  for (size_t i = 0; i < a.size(); ++i) same += a[i] == b[i];
  BOOST_TEST(same == 0);
}

BOOST_AUTO_TEST_CASE(randint_stays_in_low_high_and_covers_the_range) {
  for (auto [lo, hi] : std::vector<std::pair<int64_t, int64_t>>{{0, 10}, {-5, 3}, {7, 8}, {-1000000, 1000000}}) {
    Tensor t = lt::randint(lo, hi, {100000}, 5);
    BOOST_TEST(lt::dtype_name(t.dtype()) == "i64");
    std::vector<int64_t> v = t.to_vector<int64_t>();
    std::vector<int64_t> counts(std::min<int64_t>(hi - lo, 100), 0);
    double sum = 0;
    for (int64_t x : v) {
      BOOST_TEST_REQUIRE(x >= lo);
      BOOST_TEST_REQUIRE(x < hi);
      sum += static_cast<double>(x);
      if (hi - lo <= 100) ++counts[x - lo];
    }
    if (hi - lo <= 100) {
      for (int64_t c : counts) BOOST_TEST(c > 0);
    }
    double mean = sum / v.size(), want = (static_cast<double>(lo) + static_cast<double>(hi - 1)) / 2;
    BOOST_TEST(std::fabs(mean - want) < 0.01 * (hi - lo) + 0.01);
  }
  // the dtype only changes the storage: int32 holds the same draws as int64
  expect_values(lt::randint(0, 3, {4}, 9, 0, DType::Int32), host({4}, lt::randint(0, 3, {4}, 9).to_vector<double>()),
                DType::Int32);
  BOOST_TEST(raises([] { lt::randint(3, 3, {2}, 1); }));
}

BOOST_AUTO_TEST_CASE(linspace_and_arange_into_integer_dtypes_truncate_like_torch) {
  // torch: linspace(0, 1, 5, dtype=int64) = [0, 0, 0, 0, 1]; arange(0.5, 3.0, 1, dtype=int64) = [0, 1, 2]
  expect_values(lt::linspace(0, 1, 5, DType::Int64), host({5}, {0, 0, 0, 0, 1}), DType::Int64);
  expect_values(lt::linspace(-3, 3, 4, DType::Int32), host({4}, {-3, -1, 1, 3}), DType::Int32);
}
