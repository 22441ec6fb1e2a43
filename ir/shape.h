// ir/shape.h — shapes, broadcasting and dim normalisation.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"

namespace lt {

using Shape = absl::InlinedVector<int64_t, 6>;
using Dims = absl::InlinedVector<int64_t, 6>;

int64_t shape_numel(absl::Span<const int64_t> shape);
std::string shape_str(absl::Span<const int64_t> shape);  // "[2, 3]"
/// Row-major strides in elements.
Shape contiguous_strides(absl::Span<const int64_t> shape);

/// NumPy broadcasting; throws lt::Error naming `op` when the shapes do not broadcast.
Shape broadcast_shapes(std::string_view op, absl::Span<const int64_t> a, absl::Span<const int64_t> b);

/// Wraps a possibly negative dim into [0, ndim); throws IndexError naming `op`.
int64_t normalize_dim(std::string_view op, int64_t dim, int64_t ndim);
/// Normalises, sorts and de-duplicates a dim list; an empty list means all dims.
Dims normalize_dims(std::string_view op, absl::Span<const int64_t> dims, int64_t ndim, bool empty_means_all = true);

}  // namespace lt
