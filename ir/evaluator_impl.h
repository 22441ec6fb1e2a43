// ir/evaluator_impl.h — internals shared by the reference evaluator's files
// (evaluator.cpp, evaluator_elementwise.cpp): element types, the store rules,
// strided walks and the per-node evaluation context. Not a public API.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "ir/buffer.h"
#include "ir/error.h"
#include "ir/lowp.h"
#include "ir/trace.h"

namespace lt::eval_detail {

// ---- element types ------------------------------------------------------------

/// Storage type S (what the buffer holds) and compute type C (what arithmetic uses).
template <typename S, typename C>
struct Elem {
  using Storage = S;
  using Compute = C;
};

/// UInt8's storage type: a distinct 8-bit unsigned type, since uint8_t is
/// Bool's (whose store is `!= 0`, where UInt8's wraps).
using UInt8Storage = char8_t;

template <typename S>
inline constexpr bool kLowpFloat = std::is_same_v<S, Half> || std::is_same_v<S, BFloat16>;

template <typename F>
decltype(auto) visit_dtype(DType dtype, F&& f) {
  switch (dtype) {
    case DType::Bool:
      return f(Elem<uint8_t, int64_t>{});
    case DType::Int32:
      return f(Elem<int32_t, int64_t>{});
    case DType::Int64:
      return f(Elem<int64_t, int64_t>{});
    case DType::Float32:
      return f(Elem<float, double>{});
    case DType::Float64:
      return f(Elem<double, double>{});
    case DType::Float16:
      return f(Elem<Half, double>{});
    case DType::BFloat16:
      return f(Elem<BFloat16, double>{});
    case DType::Int8:
      return f(Elem<int8_t, int64_t>{});
    case DType::UInt8:
      return f(Elem<UInt8Storage, int64_t>{});
    case DType::Int16:
      return f(Elem<int16_t, int64_t>{});
  }
  fail(ErrorKind::Runtime, "evaluate_reference: unknown dtype ", static_cast<int>(dtype));
}

template <typename S>
S store(double v) {
  if constexpr (std::is_same_v<S, uint8_t>) {
    return v != 0.0;
  } else if constexpr (std::is_floating_point_v<S>) {
    return static_cast<S>(v);
  } else if constexpr (kLowpFloat<S>) {
    return S(static_cast<float>(v));  // through float, as torch
  } else if constexpr (sizeof(S) < 4) {
    // Through int32 as torch's C cast compiles on x86 (cvttss2si, then the
    // low bits): NaN and values outside int32 give INT32_MIN's low bits (0),
    // others wrap: 300.0 -> i8 44, -1.0 -> u8 255.
    return static_cast<S>(store<int32_t>(v));
  } else {
    constexpr double lo = static_cast<double>(std::numeric_limits<S>::min());  // -2^(bits-1), exact
    if (!(v >= lo && v < -lo)) return std::numeric_limits<S>::min();           // NaN, out of range
    return static_cast<S>(v);
  }
}

template <typename S>
S store(int64_t v) {
  if constexpr (std::is_same_v<S, uint8_t>)
    return v != 0;
  else if constexpr (kLowpFloat<S>)
    return S(static_cast<float>(v));  // int64 -> float -> narrow, as torch
  else
    return static_cast<S>(v);  // floats: rounded directly; ints: modular (C++20)
}

inline int64_t wrap_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
inline int64_t wrap_sub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
inline int64_t wrap_mul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

inline bool is_nan(double v) { return std::isnan(v); }
inline bool is_nan(int64_t) { return false; }

inline int64_t int_pow(int64_t base, int64_t exp) {
  if (exp < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exp & 1) ? -1 : 1;
    return 0;
  }
  int64_t result = 1;
  while (exp) {
    if (exp & 1) result = wrap_mul(result, base);
    base = wrap_mul(base, base);
    exp >>= 1;
  }
  return result;
}

inline int64_t int_div(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return wrap_sub(0, a);  // INT64_MIN / -1 wraps
  return a / b;
}

// ---- strided walks ------------------------------------------------------------

template <size_t N>
using Offsets = std::array<int64_t, N>;
template <size_t N>
using StrideSet = std::array<const int64_t*, N>;

template <size_t N, typename F>
void walk(const int64_t* shape, size_t ndim, size_t d, const StrideSet<N>& strides, Offsets<N> off, F& f) {
  const int64_t n = shape[d];
  if (d + 1 == ndim) {
    for (int64_t i = 0; i < n; ++i) {
      Offsets<N> o;
      for (size_t k = 0; k < N; ++k) o[k] = off[k] + i * strides[k][d];
      f(o);
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    Offsets<N> o;
    for (size_t k = 0; k < N; ++k) o[k] = off[k] + i * strides[k][d];
    walk<N>(shape, ndim, d + 1, strides, o, f);
  }
}

/// Calls f(offsets) for every index of `shape` in row-major order, where
/// offsets[k] = start[k] + sum_d index[d] * strides[k][d].
template <size_t N, typename F>
void for_each_index(const Shape& shape, const StrideSet<N>& strides, Offsets<N> start, F&& f) {
  if (shape.empty()) {
    f(start);
    return;
  }
  if (shape_numel(shape) == 0) return;
  walk<N>(shape.data(), shape.size(), 0, strides, start, f);
}

/// dst[dst_start + index . dst_strides] = src[src_start + index . src_strides] over `shape`.
inline void copy_strided(const Buffer& src, int64_t src_start, const Shape& src_strides, Buffer& dst, int64_t dst_start,
                         const Shape& dst_strides, const Shape& shape) {
  visit_dtype(src.dtype(), [&](auto e) {
    using S = typename decltype(e)::Storage;
    const S* x = src.as<S>();
    S* y = dst.as<S>();
    for_each_index<2>(shape, {src_strides.data(), dst_strides.data()}, {src_start, dst_start},
                      [&](const Offsets<2>& o) { y[o[1]] = x[o[0]]; });
  });
}

// ---- the evaluation context ---------------------------------------------------

struct Evaluator {
  const Trace& trace;
  std::vector<BufferPtr> values;
  int32_t id = 0;  ///< node being evaluated, for error messages

  const TraceNode& node() const { return trace.nodes[id]; }
  const TraceNode& in_node(size_t k) const { return trace.nodes[node().inputs[k]]; }
  const Buffer& in(size_t k) const { return *values[node().inputs[k]]; }
  const BufferPtr& in_ptr(size_t k) const { return values[node().inputs[k]]; }

  template <typename... Args>
  [[noreturn]] void error(ErrorKind kind, const Args&... args) const {
    const TraceNode& n = node();
    fail(kind, "evaluate_reference: %", id, " = ", op_name(n.op), " ", dtype_name(n.dtype), shape_str(n.shape), ": ",
         args...);
  }
  /// error() for a value out of range (Error::on_data).
  template <typename... Args>
  [[noreturn]] void error_on_data(ErrorKind kind, const Args&... args) const {
    const TraceNode& n = node();
    fail_on_data(kind, "evaluate_reference: %", id, " = ", op_name(n.op), " ", dtype_name(n.dtype), shape_str(n.shape),
                 ": ", args...);
  }
  void check(bool cond, const char* what) const {
    if (!cond) error(ErrorKind::Runtime, what);
  }

  BufferPtr output() const { return make_buffer(node().dtype, shape_numel(node().shape)); }

  BufferPtr eval();
  BufferPtr eval_input();
  BufferPtr eval_scalar();
  BufferPtr eval_iota();
  BufferPtr eval_rand_uniform();
  BufferPtr eval_elementwise();  ///< unary and binary ops
  BufferPtr eval_cast();
  BufferPtr eval_where();
  BufferPtr eval_reduce();
  BufferPtr eval_arg_reduce();
  BufferPtr eval_cumsum();
  BufferPtr eval_view();
  BufferPtr eval_pad();
  BufferPtr eval_concat();
  BufferPtr eval_gather();
  BufferPtr eval_scatter_add();
  BufferPtr eval_matmul();
  BufferPtr eval_conv();

  int64_t scalar_input_as_int(size_t k) const;
  int64_t axis_attr() const;
};

}  // namespace lt::eval_detail
