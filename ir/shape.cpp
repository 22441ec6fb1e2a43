// ir/shape.cpp — shape helpers.
#include "ir/shape.h"

#include <algorithm>

#include "absl/strings/str_join.h"
#include "ir/error.h"

namespace lt {

int64_t shape_numel(absl::Span<const int64_t> shape) {
  int64_t n = 1;
  bool overflow = false;
  for (int64_t d : shape) overflow |= __builtin_mul_overflow(n, d, &n);
  // A product past int64 would be UB and then a small or negative count (a
  // buffer too small for the shape); any shape with a zero dim is still empty.
  if (overflow && std::find(shape.begin(), shape.end(), 0) == shape.end()) {
    fail(ErrorKind::Runtime, "shape ", shape_str(shape), " has more elements than fit in int64 (expected at most 2^63-1)");
  }
  return overflow ? 0 : n;
}

std::string shape_str(absl::Span<const int64_t> shape) { return absl::StrCat("[", absl::StrJoin(shape, ", "), "]"); }

Shape contiguous_strides(absl::Span<const int64_t> shape) {
  Shape strides(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= shape[i];
  }
  return strides;
}

Shape broadcast_shapes(std::string_view op, absl::Span<const int64_t> a, absl::Span<const int64_t> b) {
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1) {
      fail(ErrorKind::Runtime, op, ": shapes ", shape_str(a), " and ", shape_str(b),
           " cannot be broadcast (size ", da, " vs ", db, " at dim ", i, " of the result; expected equal sizes or 1)");
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

int64_t normalize_dim(std::string_view op, int64_t dim, int64_t ndim) {
  int64_t lo = ndim == 0 ? -1 : -ndim;
  int64_t hi = ndim == 0 ? 0 : ndim - 1;
  if (dim < lo || dim > hi) {
    fail(ErrorKind::Index, op, ": dim ", dim, " is out of range for a tensor of ", ndim,
         " dims (expected to be in range [", lo, ", ", hi, "])");
  }
  return dim < 0 ? dim + std::max<int64_t>(ndim, 1) : dim;
}

Dims normalize_dims(std::string_view op, absl::Span<const int64_t> dims, int64_t ndim, bool empty_means_all) {
  Dims out;
  if (dims.empty() && empty_means_all) {
    for (int64_t i = 0; i < ndim; ++i) out.push_back(i);
    return out;
  }
  for (int64_t d : dims) {
    int64_t n = normalize_dim(op, d, ndim);
    if (ndim == 0) continue;  // dim 0 / -1 of a 0-dim tensor names nothing to reduce
    if (std::find(out.begin(), out.end(), n) != out.end()) {
      fail(ErrorKind::Runtime, op, ": dim ", n, " appears multiple times in the list of dims");
    }
    out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace lt
