// Helpers shared by the op value tests (test_ops_*.cpp): a plain host tensor
// (row-major doubles) with hand-written loops for the expectations, builders
// that feed an op through non-contiguous views, and checks of shape, dtype and
// values (tolerance for floats, exact for integers and bool).
#pragma once

#include <boost/test/unit_test.hpp>

#include "ir/evaluator.h"

#include <algorithm>
#include <cmath>
#include <climits>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "lazy/lazytensor.h"

namespace opt {

using lt::DType;
using lt::Shape;
using lt::Tensor;

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline const std::vector<DType> kAllDTypes{DType::Bool, DType::Int32, DType::Int64, DType::Float32, DType::Float64};
inline const std::vector<DType> kNumeric{DType::Int32, DType::Int64, DType::Float32, DType::Float64};
inline const std::vector<DType> kFloats{DType::Float32, DType::Float64};
inline const std::vector<DType> kInts{DType::Int32, DType::Int64};

inline int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

/// A host tensor: row-major doubles.
struct Host {
  Shape shape;
  std::vector<double> v;
  int64_t ndim() const { return static_cast<int64_t>(shape.size()); }
  int64_t offset(const std::vector<int64_t>& idx) const {
    int64_t o = 0;
    for (size_t i = 0; i < shape.size(); ++i) o = o * shape[i] + idx[i];
    return o;
  }
  double at(const std::vector<int64_t>& idx) const { return v[offset(idx)]; }
};

/// The multi-index of row-major position `lin` in `shape`.
inline std::vector<int64_t> unravel(int64_t lin, const Shape& shape) {
  std::vector<int64_t> idx(shape.size());
  for (int64_t i = static_cast<int64_t>(shape.size()) - 1; i >= 0; --i) {
    idx[i] = shape[i] == 0 ? 0 : lin % shape[i];
    lin = shape[i] == 0 ? 0 : lin / shape[i];
  }
  return idx;
}

inline Host host(Shape shape, std::vector<double> v) {
  BOOST_REQUIRE_EQUAL(numel(shape), static_cast<int64_t>(v.size()));
  return Host{std::move(shape), std::move(v)};
}
/// A host tensor whose element at each multi-index is fn(index).
inline Host generate(Shape shape, const std::function<double(const std::vector<int64_t>&)>& fn) {
  Host h{shape, std::vector<double>(numel(shape))};
  for (int64_t i = 0; i < numel(shape); ++i) h.v[i] = fn(unravel(i, shape));
  return h;
}
/// Values in [lo, hi) that float32 holds exactly (multiples of 1/64).
inline Host random_host(Shape shape, uint32_t seed, double lo = -4, double hi = 4) {
  std::mt19937 g(seed);
  std::uniform_int_distribution<int64_t> d(static_cast<int64_t>(lo * 64), static_cast<int64_t>(hi * 64) - 1);
  Host h{shape, std::vector<double>(numel(shape))};
  for (double& x : h.v) x = static_cast<double>(d(g)) / 64.0;
  return h;
}
/// Integers in [lo, hi).
inline Host random_ints(Shape shape, uint32_t seed, int64_t lo, int64_t hi) {
  std::mt19937 g(seed);
  std::uniform_int_distribution<int64_t> d(lo, hi - 1);
  Host h{shape, std::vector<double>(numel(shape))};
  for (double& x : h.v) x = static_cast<double>(d(g));
  return h;
}

/// The value `v` stored in `dtype` (as a C++ conversion; bool: != 0).
inline double round_to(double v, DType dt) {
  switch (dt) {
    case DType::Bool: return v != 0 ? 1.0 : 0.0;
    case DType::Int32: return static_cast<double>(static_cast<int32_t>(v));
    case DType::Int64: return static_cast<double>(static_cast<int64_t>(v));
    case DType::Float32: return static_cast<double>(static_cast<float>(v));
    case DType::Float64: return v;
    default: {  // the narrow dtypes: as the Cast primitive rounds or wraps
      std::vector<char> tmp(dtype_size(dt));
      double out;
      convert_elements_reference(&v, DType::Float64, 1, tmp.data(), dt);
      convert_elements_reference(tmp.data(), dt, 1, &out, DType::Float64);
      return out;
    }
  }
  return v;
}
inline Host round_to(Host h, DType dt) {
  for (double& x : h.v) x = round_to(x, dt);
  return h;
}

// ---- host reference operations (hand-written loops) ----

inline Host map(const Host& a, const std::function<double(double)>& f) {
  Host r = a;
  for (double& x : r.v) x = f(x);
  return r;
}

inline Shape broadcast_shape(const Shape& a, const Shape& b) {
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    BOOST_REQUIRE(da == db || da == 1 || db == 1);
    out[i] = da == 1 ? db : da;
  }
  return out;
}
/// Element of `h` seen through broadcasting to an index of a larger shape.
inline double bcast_at(const Host& h, const std::vector<int64_t>& idx) {
  size_t lead = idx.size() - h.shape.size();
  int64_t o = 0;
  for (size_t i = 0; i < h.shape.size(); ++i) o = o * h.shape[i] + (h.shape[i] == 1 ? 0 : idx[lead + i]);
  return h.v[o];
}
inline Host expand_host(const Host& h, const Shape& shape) {
  return generate(shape, [&](const std::vector<int64_t>& i) { return bcast_at(h, i); });
}
inline Host zip(const Host& a, const Host& b, const std::function<double(double, double)>& f) {
  Shape s = broadcast_shape(a.shape, b.shape);
  return generate(s, [&](const std::vector<int64_t>& i) { return f(bcast_at(a, i), bcast_at(b, i)); });
}

/// out.shape[i] = h.shape[perm[i]].
inline Host permute_host(const Host& h, const std::vector<int64_t>& perm) {
  Shape s;
  for (int64_t p : perm) s.push_back(h.shape[p]);
  return generate(s, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> src(h.shape.size());
    for (size_t k = 0; k < perm.size(); ++k) src[perm[k]] = i[k];
    return h.at(src);
  });
}
inline Host flip_host(const Host& h, const std::vector<int64_t>& dims) {
  return generate(h.shape, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> src = i;
    for (int64_t d : dims) src[d] = h.shape[d] - 1 - i[d];
    return h.at(src);
  });
}

/// For each output position of a reduction over `dims` (sorted, non-negative),
/// the reduced elements in increasing index order. Output shape keeps dims as 1.
inline std::vector<std::vector<double>> groups(const Host& h, const std::vector<int64_t>& dims, Shape* kept_shape) {
  Shape out = h.shape;
  for (int64_t d : dims) out[d] = 1;
  if (kept_shape) *kept_shape = out;
  std::vector<std::vector<double>> g(numel(out));
  for (int64_t i = 0; i < numel(h.shape); ++i) {
    std::vector<int64_t> idx = unravel(i, h.shape);
    for (int64_t d : dims) idx[d] = 0;
    int64_t o = 0;
    for (size_t k = 0; k < out.size(); ++k) o = o * out[k] + idx[k];
    g[o].push_back(h.v[i]);
  }
  return g;
}
/// Reduction of `h` over `dims` (may be negative; empty = all) with f(group).
inline Host reduce_host(const Host& h, std::vector<int64_t> dims, bool keepdim,
                        const std::function<double(const std::vector<double>&)>& f) {
  if (dims.empty())
    for (int64_t i = 0; i < h.ndim(); ++i) dims.push_back(i);
  for (int64_t& d : dims)
    if (d < 0) d += h.ndim();
  std::sort(dims.begin(), dims.end());
  Shape kept;
  std::vector<std::vector<double>> g = groups(h, dims, &kept);
  Host r{kept, {}};
  for (auto& grp : g) r.v.push_back(f(grp));
  if (!keepdim) {
    Shape s;
    for (int64_t i = 0; i < h.ndim(); ++i)
      if (!std::binary_search(dims.begin(), dims.end(), i)) s.push_back(h.shape[i]);
    r.shape = s;
  }
  return r;
}

// ---- building lt tensors ----

inline Tensor make(const Host& h, DType dt) {
  switch (dt) {
    case DType::Bool: {
      std::vector<bool> b;
      for (double x : h.v) b.push_back(x != 0);
      return Tensor::from_vector<bool>(b, h.shape);
    }
    case DType::Int32: {
      std::vector<int32_t> b;
      for (double x : h.v) b.push_back(static_cast<int32_t>(x));
      return Tensor::from_vector<int32_t>(b, h.shape);
    }
    case DType::Int64: {
      std::vector<int64_t> b;
      for (double x : h.v) b.push_back(static_cast<int64_t>(x));
      return Tensor::from_vector<int64_t>(b, h.shape);
    }
    case DType::Float32: {
      std::vector<float> b;
      for (double x : h.v) b.push_back(static_cast<float>(x));
      return Tensor::from_vector<float>(b, h.shape);
    }
    case DType::Float64: return Tensor::from_vector<double>(h.v, h.shape);
    default: {
      std::vector<char> b(h.v.size() * dtype_size(dt));
      convert_elements_reference(h.v.data(), DType::Float64, static_cast<int64_t>(h.v.size()), b.data(), dt);
      return Tensor::from_data(b.data(), dt, h.shape);
    }
  }
  return Tensor();
}
inline Tensor make(Shape shape, std::vector<double> v, DType dt) { return make(host(std::move(shape), std::move(v)), dt); }
inline Tensor make_i64(Shape shape, const std::vector<int64_t>& v) { return Tensor::from_vector<int64_t>(v, shape); }

/// How a test tensor reaches the op: stored contiguously or through a view of
/// another stored tensor.
enum class Via { Contiguous, Transpose, Permute, StepSlice, NegStepFlip, Expand };
inline const char* via_name(Via v) {
  switch (v) {
    case Via::Contiguous: return "contiguous";
    case Via::Transpose: return "transpose";
    case Via::Permute: return "permute";
    case Via::StepSlice: return "slice-with-step";
    case Via::NegStepFlip: return "flip";
    case Via::Expand: return "expand+select";
  }
  return "?";
}
inline const std::vector<Via> kAllVias{Via::Contiguous, Via::Transpose, Via::Permute, Via::StepSlice,
                                       Via::NegStepFlip, Via::Expand};

/// An lt tensor equal to `h` (in dtype `dt`) produced by a view of some other stored data.
inline Tensor make_via(const Host& h, DType dt, Via via) {
  int64_t n = h.ndim();
  switch (via) {
    case Via::Contiguous: return make(h, dt);
    case Via::Transpose: {
      if (n < 2) return make(h, dt);
      std::vector<int64_t> p(n);
      for (int64_t i = 0; i < n; ++i) p[i] = i;
      std::swap(p[n - 1], p[n - 2]);
      return lt::transpose(make(permute_host(h, p), dt), -1, -2);
    }
    case Via::Permute: {
      if (n < 2) return make(h, dt);
      std::vector<int64_t> p(n), q(n);  // p rotates left, q is its inverse
      for (int64_t i = 0; i < n; ++i) p[i] = (i + 1) % n;
      for (int64_t i = 0; i < n; ++i) q[p[i]] = i;
      return lt::permute(make(permute_host(h, p), dt), q);
    }
    case Via::StepSlice: {
      if (n < 1) return make(h, dt);
      // Stored with junk between and around the elements of the last dim: base[..., 1 + 2j] = h[..., j].
      int64_t last = h.shape[n - 1];
      Shape bs = h.shape;
      bs[n - 1] = 2 * last + 2;
      Host base = generate(bs, [&](const std::vector<int64_t>& i) {
        if (i[n - 1] % 2 == 1 && (i[n - 1] - 1) / 2 < last) {
          std::vector<int64_t> src = i;
          src[n - 1] = (i[n - 1] - 1) / 2;
          return h.at(src);
        }
        return 77.0;
      });
      return lt::slice(make(base, dt), -1, 1, 2 * last + 1, 2);
    }
    case Via::NegStepFlip: {
      std::vector<int64_t> all;
      for (int64_t i = 0; i < n; ++i) all.push_back(i);
      return lt::flip(make(flip_host(h, all), dt), all);
    }
    case Via::Expand: {
      // Stored once, expanded along a new leading dim of 3, then row 1 selected.
      Shape es = h.shape;
      es.insert(es.begin(), 3);
      return lt::select(lt::expand(lt::unsqueeze(make(h, dt), 0), es), 0, 1);
    }
  }
  return Tensor();
}

// ---- checks ----

inline std::string shape_text(const Shape& s) { return lt::shape_str(s); }

struct Tol {
  double rtol, atol;
};
inline Tol default_tol(DType dt) {
  if (dt == DType::Float32) return {1e-5, 1e-6};
  if (dt == DType::Float64) return {1e-12, 1e-12};
  return {0, 0};
}

inline bool close(double got, double want, Tol tol) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= tol.atol + tol.rtol * std::fabs(want);
}

/// Checks dtype, shape and every value; floats within `tol`, integers and bool exactly.
inline void expect_values(const Tensor& t, const Host& want, DType dt, std::optional<Tol> tol_opt = std::nullopt,
                          const std::string& what = "") {
  BOOST_TEST_CONTEXT(what) {
    BOOST_TEST(lt::dtype_name(t.dtype()) == lt::dtype_name(dt));
    BOOST_TEST(shape_text(t.shape()) == shape_text(want.shape));
    if (t.shape() != want.shape) return;
    std::vector<double> got = t.to_vector<double>();
    Tol tol = tol_opt ? *tol_opt : default_tol(dt);
    int failures = 0;
    for (size_t i = 0; i < got.size() && failures < 5; ++i) {
      double w = lt::is_floating(dt) ? want.v[i] : round_to(want.v[i], dt);
      bool ok = lt::is_floating(dt) ? close(got[i], w, tol) : got[i] == w;
      if (!ok) ++failures;
      BOOST_TEST(ok, "element " << i << ": got " << got[i] << ", expected " << w);
    }
  }
}
/// Values as int64, exactly (for values a double cannot hold).
inline void expect_i64(const Tensor& t, const std::vector<int64_t>& want, const Shape& shape, DType dt = DType::Int64) {
  BOOST_TEST(lt::dtype_name(t.dtype()) == lt::dtype_name(dt));
  BOOST_TEST(shape_text(t.shape()) == shape_text(shape));
  std::vector<int64_t> got = t.to_vector<int64_t>();
  BOOST_TEST(got == want, boost::test_tools::per_element());
}

/// Runs `body` and checks it raises lt::Error (at record time or at sync).
template <typename F>
bool raises(F&& body) {
  try {
    body();
  } catch (const lt::Error&) {
    return true;
  }
  return false;
}

}  // namespace opt
