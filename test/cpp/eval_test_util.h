// Helpers for the evaluator and trace-format tests: build traces by hand from
// primitives and read results back as plain vectors.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "ir/buffer.h"
#include "ir/evaluator.h"
#include "ir/node.h"
#include "trace/capture.h"

namespace lt::test {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

/// A buffer of `dtype` holding `values` converted like a C++ static_cast (bool: != 0).
inline BufferPtr buffer_of(DType dtype, const std::vector<double>& values) {
  BufferPtr b = make_buffer(dtype, static_cast<int64_t>(values.size()));
  for (size_t i = 0; i < values.size(); ++i) {
    double v = values[i];
    switch (dtype) {
      case DType::Bool:
        b->as<uint8_t>()[i] = v != 0;
        break;
      case DType::Int32:
        b->as<int32_t>()[i] = static_cast<int32_t>(v);
        break;
      case DType::Int64:
        b->as<int64_t>()[i] = static_cast<int64_t>(v);
        break;
      case DType::Float32:
        b->as<float>()[i] = static_cast<float>(v);
        break;
      case DType::Float64:
        b->as<double>()[i] = v;
        break;
      case DType::Float16:  // rounded / wrapped as the Cast primitive does
      case DType::BFloat16:
      case DType::Int8:
      case DType::UInt8:
      case DType::Int16:
        convert_elements_reference(&v, DType::Float64, 1, static_cast<char*>(b->data()) + i * dtype_size(dtype), dtype);
        break;
    }
  }
  return b;
}

/// Exact int64 contents (values that a double cannot hold).
inline BufferPtr buffer_of_i64(const std::vector<int64_t>& values) {
  BufferPtr b = make_buffer(DType::Int64, static_cast<int64_t>(values.size()));
  if (!values.empty()) std::memcpy(b->data(), values.data(), values.size() * sizeof(int64_t));
  return b;
}

inline NodePtr input(DType dtype, Shape shape, const std::vector<double>& values) {
  return make_input(buffer_of(dtype, values), std::move(shape));
}

inline NodePtr scalar(double v, DType dtype) { return make_scalar(ScalarValue::of(v, dtype), dtype, false); }

inline NodePtr node(Op op, DType dtype, Shape shape, Attrs attrs, NodeList inputs) {
  return make_node(op, dtype, std::move(shape), std::move(attrs), std::move(inputs));
}

/// Expand a scalar to `shape` (the builder's job, done by hand here).
inline NodePtr filled(double v, DType dtype, Shape shape) {
  NodePtr s = scalar(v, dtype);
  if (shape.empty()) return s;
  Shape ones(shape.size(), 1);
  NodePtr r = node(Op::Reshape, dtype, ones, {}, {s});
  return node(Op::Expand, dtype, std::move(shape), {}, {r});
}

inline std::vector<BufferPtr> eval_all(const std::vector<NodePtr>& roots) {
  CapturedTrace ct = capture_trace(roots);
  return evaluate_reference(ct.trace);
}
inline BufferPtr eval(const NodePtr& root) { return eval_all({root})[0]; }

/// Buffer contents as doubles (exact for every dtype except huge int64).
inline std::vector<double> values(const BufferPtr& b) {
  std::vector<double> out(b->numel());
  for (int64_t i = 0; i < b->numel(); ++i) {
    switch (b->dtype()) {
      case DType::Bool:
        out[i] = b->as<uint8_t>()[i];
        break;
      case DType::Int32:
        out[i] = b->as<int32_t>()[i];
        break;
      case DType::Int64:
        out[i] = static_cast<double>(b->as<int64_t>()[i]);
        break;
      case DType::Float32:
        out[i] = b->as<float>()[i];
        break;
      case DType::Float64:
        out[i] = b->as<double>()[i];
        break;
      case DType::Float16:
      case DType::BFloat16:
      case DType::Int8:
      case DType::UInt8:
      case DType::Int16:
        convert_elements_reference(static_cast<const char*>(b->data()) + i * dtype_size(b->dtype()), b->dtype(), 1,
                                   &out[i], DType::Float64);
        break;
    }
  }
  return out;
}

inline std::vector<int64_t> ints(const BufferPtr& b) {
  std::vector<int64_t> out(b->numel());
  for (int64_t i = 0; i < b->numel(); ++i) {
    switch (b->dtype()) {
      case DType::Int64:
        out[i] = b->as<int64_t>()[i];
        break;
      case DType::Int32:
        out[i] = b->as<int32_t>()[i];
        break;
      case DType::Bool:
        out[i] = b->as<uint8_t>()[i];
        break;
      default:
        out[i] = static_cast<int64_t>(values(b)[i]);
    }
  }
  return out;
}

/// Element-wise equality where NaN equals NaN.
inline bool same(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) && std::isnan(b[i])) continue;
    if (a[i] != b[i]) return false;
  }
  return true;
}

}  // namespace lt::test
