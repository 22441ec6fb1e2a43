// test/cpp/gradcheck.h — gradient vs central finite differences (float64),
// shared by the autograd tests (header-only; not a test executable itself).
#pragma once

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "ir/error.h"
#include "lazy/runtime.h"
#include "lazy/tensor.h"

namespace gradcheck {

using Fn = std::function<lt::Tensor(const std::vector<lt::Tensor>&)>;

/// One differentiable input: its shape and either explicit values or a
/// uniform range to draw them from.
struct Input {
  lt::Shape shape;
  double lo = -1.0, hi = 1.0;
  std::vector<double> values = {};
};

inline std::vector<double> draw(const Input& in, std::mt19937_64& rng) {
  if (!in.values.empty()) return in.values;
  std::uniform_real_distribution<double> u(in.lo, in.hi);
  std::vector<double> v(lt::shape_numel(in.shape));
  for (double& x : v) x = u(rng);
  return v;
}

/// <f(inputs), weight> as a double: a fixed random weighting makes every
/// output element count, so a non-scalar f is checked fully.
inline double weighted(const Fn& f, const std::vector<std::vector<double>>& values, const std::vector<Input>& ins,
                       const std::vector<double>& weight) {
  lt::NoGradGuard no_grad;
  std::vector<lt::Tensor> xs;
  for (size_t i = 0; i < ins.size(); ++i) xs.push_back(lt::Tensor::from_vector(values[i], ins[i].shape));
  std::vector<double> y = lt::cast(f(xs), lt::DType::Float64).to_vector<double>();
  double s = 0;
  for (size_t i = 0; i < y.size(); ++i) s += y[i] * weight[i];
  return s;
}

/// Checks lt::grad of f against central differences for every input element.
inline void check(const Fn& f, const std::vector<Input>& ins, double atol = 1e-6, double rtol = 1e-5,
                  uint64_t seed = 7) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<double>> values;
  for (const Input& in : ins) values.push_back(draw(in, rng));

  std::vector<lt::Tensor> leaves;
  for (size_t i = 0; i < ins.size(); ++i) {
    leaves.push_back(lt::Tensor::from_vector(values[i], ins[i].shape));
    leaves.back().requires_grad_();
  }
  lt::Tensor out = f(leaves);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  std::vector<double> weight(out.numel());
  for (double& w : weight) w = u(rng);
  lt::Tensor w = lt::cast(lt::Tensor::from_vector(weight, out.shape()), out.dtype());
  std::vector<lt::Tensor> grads = lt::grad({out}, leaves, {w}, false, /*allow_unused=*/true);

  const double eps = 1e-6;
  for (size_t i = 0; i < ins.size(); ++i) {
    std::vector<double> analytic(values[i].size(), 0.0);
    if (grads[i].defined()) {
      BOOST_REQUIRE(grads[i].shape() == ins[i].shape);
      analytic = grads[i].to_vector<double>();
    }
    for (size_t j = 0; j < values[i].size(); ++j) {
      std::vector<std::vector<double>> plus = values, minus = values;
      plus[i][j] += eps;
      minus[i][j] -= eps;
      double numeric = (weighted(f, plus, ins, weight) - weighted(f, minus, ins, weight)) / (2 * eps);
      BOOST_TEST_CONTEXT("input " << i << " element " << j << ": analytic " << analytic[j] << " numeric " << numeric) {
        BOOST_TEST(std::abs(analytic[j] - numeric) <= atol + rtol * std::abs(numeric));
      }
    }
  }
}

inline void check_values(const lt::Tensor& t, const std::vector<double>& want, double tol = 1e-12) {
  BOOST_REQUIRE(t.defined());
  std::vector<double> got = t.to_vector<double>();
  BOOST_REQUIRE_EQUAL(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    BOOST_TEST_CONTEXT("element " << i << ": got " << got[i] << " want " << want[i]) {
      BOOST_TEST(std::abs(got[i] - want[i]) <= tol);
    }
  }
}

inline lt::Tensor f64(const std::vector<double>& v, lt::Shape shape) { return lt::Tensor::from_vector(v, shape); }
inline lt::Tensor i64(const std::vector<int64_t>& v, lt::Shape shape) { return lt::Tensor::from_vector(v, shape); }

/// A float64 vector leaf that requires grad.
inline lt::Tensor leaf(const std::vector<double>& v) {
  lt::Tensor t = f64(v, {static_cast<int64_t>(v.size())});
  t.requires_grad_();
  return t;
}

/// The message of the lt::Error that f throws, "" if it throws none.
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const lt::Error& e) {
    return e.what();
  }
  return "";
}

/// Global fixture of the autograd tests: they check autograd, not the JIT, so
/// they run on the reference evaluator (`using gradcheck::ReferenceBackend; BOOST_GLOBAL_FIXTURE(ReferenceBackend);`).
struct ReferenceBackend {
  ReferenceBackend() { lt::runtime::set_backend("reference"); }
};

}  // namespace gradcheck
