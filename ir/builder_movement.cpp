// ir/builder_movement.cpp — views (reshape, permute, expand, slice, flip, pad)
// and the ops built from them (cat, stack, split, chunk, tril, triu). No copy
// is recorded: backends turn these into index expressions.
#include <algorithm>
#include <numeric>

#include "absl/strings/str_join.h"
#include "ir/builder_util.h"

namespace lt::ops {
using namespace detail;

NodePtr reshape(const NodePtr& x, absl::Span<const int64_t> shape) {
  Shape out(shape.begin(), shape.end());
  int64_t infer = -1, known = 1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      if (infer >= 0) fail(ErrorKind::Runtime, "reshape: only one dimension can be inferred in ", shape_str(shape));
      infer = static_cast<int64_t>(i);
    } else if (out[i] < 0) {
      fail(ErrorKind::Runtime, "reshape: invalid shape dimension ", out[i], " in ", shape_str(shape));
    } else {
      known *= out[i];
    }
  }
  int64_t n = x->numel();
  if (infer >= 0) {
    if (known == 0 || n % known != 0) {
      fail(ErrorKind::Runtime, "reshape: shape ", shape_str(shape), " is invalid for input of size ", n, " (shape ",
           shape_str(x->shape), ")");
    }
    out[infer] = n / known;
  }
  if (shape_numel(out) != n) {
    fail(ErrorKind::Runtime, "reshape: shape ", shape_str(shape), " is invalid for input of size ", n, " (shape ",
         shape_str(x->shape), ")");
  }
  return reshape_exact(x, std::move(out));
}

NodePtr flatten(const NodePtr& x, int64_t start_dim, int64_t end_dim) {
  if (x->ndim() == 0) return reshape_exact(x, Shape{1});
  int64_t s = normalize_dim("flatten", start_dim, x->ndim());
  int64_t e = normalize_dim("flatten", end_dim, x->ndim());
  if (s > e) fail(ErrorKind::Runtime, "flatten: start_dim ", start_dim, " cannot come after end_dim ", end_dim);
  Shape out(x->shape.begin(), x->shape.begin() + s);
  int64_t n = 1;
  for (int64_t i = s; i <= e; ++i) n *= x->shape[i];
  out.push_back(n);
  out.insert(out.end(), x->shape.begin() + e + 1, x->shape.end());
  return reshape_exact(x, std::move(out));
}

NodePtr permute(const NodePtr& x, absl::Span<const int64_t> perm) {
  int64_t n = x->ndim();
  if (static_cast<int64_t>(perm.size()) != n) {
    fail(ErrorKind::Runtime, "permute: number of dims in ", shape_str(perm), " does not match the input's ", n,
         " dims (shape ", shape_str(x->shape), ")");
  }
  Attrs p;
  std::vector<bool> seen(n, false);
  for (int64_t d : perm) {
    int64_t nd = normalize_dim("permute", d, n);
    if (seen[nd]) fail(ErrorKind::Runtime, "permute: repeated dim ", nd, " in ", shape_str(perm));
    seen[nd] = true;
    p.push_back(nd);
  }
  bool identity = true;
  for (int64_t i = 0; i < n; ++i) identity &= p[i] == i;
  if (identity) return x;
  Shape out;
  for (int64_t d : p) out.push_back(x->shape[d]);
  return make_node(Op::Permute, x->dtype, std::move(out), std::move(p), {x});
}

NodePtr transpose(const NodePtr& x, int64_t dim0, int64_t dim1) {
  if (x->ndim() == 0) {
    normalize_dim("transpose", dim0, 0);
    normalize_dim("transpose", dim1, 0);
    return x;
  }
  int64_t a = normalize_dim("transpose", dim0, x->ndim());
  int64_t b = normalize_dim("transpose", dim1, x->ndim());
  Dims perm(x->ndim());
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[a], perm[b]);
  return permute(x, perm);
}

NodePtr expand(const NodePtr& x, absl::Span<const int64_t> shape) {
  if (shape.size() < x->shape.size()) {
    fail(ErrorKind::Runtime, "expand: the number of sizes provided (", shape.size(),
         ") must be greater or equal to the number of dimensions in the tensor (", x->ndim(), ")");
  }
  size_t lead = shape.size() - x->shape.size();
  Shape out(shape.begin(), shape.end());
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t have = i < lead ? -2 : x->shape[i - lead];
    if (out[i] == -1) {
      if (i < lead) fail(ErrorKind::Runtime, "expand: -1 is not allowed in a leading, non-existing dimension");
      out[i] = have;
    } else if (out[i] < 0) {
      fail(ErrorKind::Runtime, "expand: invalid size ", out[i], " in ", shape_str(shape));
    } else if (i >= lead && have != 1 && have != out[i]) {
      fail(ErrorKind::Runtime, "expand: the expanded size of the tensor (", out[i],
           ") must match the existing size (", have, ") at non-singleton dimension ", i, ". Target sizes: ",
           shape_str(shape), ". Tensor sizes: ", shape_str(x->shape));
    }
  }
  return expand_to(x, out);
}

NodePtr broadcast_to(const NodePtr& x, absl::Span<const int64_t> shape) { return expand(x, shape); }

NodePtr squeeze(const NodePtr& x, std::optional<int64_t> dim) {
  Shape out;
  if (!dim) {
    for (int64_t d : x->shape)
      if (d != 1) out.push_back(d);
    return reshape_exact(x, std::move(out));
  }
  if (x->ndim() == 0) {
    normalize_dim("squeeze", *dim, 0);
    return x;
  }
  int64_t d = normalize_dim("squeeze", *dim, x->ndim());
  if (x->shape[d] != 1) return x;
  out = x->shape;
  out.erase(out.begin() + d);
  return reshape_exact(x, std::move(out));
}

NodePtr unsqueeze(const NodePtr& x, int64_t dim) {
  int64_t d = normalize_dim("unsqueeze", dim, x->ndim() + 1);
  Shape out = x->shape;
  out.insert(out.begin() + d, 1);
  return reshape_exact(x, std::move(out));
}

// One Slice primitive over all dims; `starts`/`steps`/`sizes` per dim.
static NodePtr slice_all(const NodePtr& x, const Shape& starts, const Shape& steps, const Shape& sizes) {
  bool identity = true;
  for (int64_t i = 0; i < x->ndim(); ++i) identity &= starts[i] == 0 && steps[i] == 1 && sizes[i] == x->shape[i];
  if (identity) return x;
  Attrs attrs;
  for (int64_t i = 0; i < x->ndim(); ++i) {
    attrs.push_back(starts[i]);
    attrs.push_back(steps[i]);
  }
  return make_node(Op::Slice, x->dtype, sizes, std::move(attrs), {x});
}

static NodePtr slice_dim(const NodePtr& x, int64_t d, int64_t start, int64_t size, int64_t step) {
  Shape starts(x->ndim(), 0), steps(x->ndim(), 1), sizes = x->shape;
  starts[d] = start;
  steps[d] = step;
  sizes[d] = size;
  return slice_all(x, starts, steps, sizes);
}

NodePtr slice(const NodePtr& x, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step) {
  if (x->ndim() == 0) fail(ErrorKind::Index, "slice: cannot slice a 0-dim tensor");
  int64_t d = normalize_dim("slice", dim, x->ndim());
  if (step <= 0) fail(ErrorKind::Value, "slice: step must be greater than zero, got ", step);
  int64_t n = x->shape[d];
  auto clampi = [n](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + n : v, 0, n); };
  int64_t s = start ? clampi(*start) : 0;
  int64_t e = stop ? clampi(*stop) : n;
  int64_t size = e > s ? (e - s + step - 1) / step : 0;
  return slice_dim(x, d, size == 0 ? 0 : s, size, step);
}

NodePtr narrow(const NodePtr& x, int64_t dim, int64_t start, int64_t length) {
  if (x->ndim() == 0) fail(ErrorKind::Runtime, "narrow: cannot be applied to a 0-dim tensor");
  int64_t d = normalize_dim("narrow", dim, x->ndim());
  int64_t n = x->shape[d];
  if (start < -n || start > n) {
    fail(ErrorKind::Index, "narrow: start ", start, " is out of range for dim ", d, " of size ", n, " (shape ",
         shape_str(x->shape), "; expected start in [", -n, ", ", n, "])");
  }
  if (start < 0) start += n;
  if (length < 0 || start + length > n) {
    fail(ErrorKind::Runtime, "narrow: start (", start, ") + length (", length, ") exceeds dimension size (", n,
         ") of dim ", d, " in shape ", shape_str(x->shape));
  }
  return slice_dim(x, d, start, length, 1);
}

NodePtr select(const NodePtr& x, int64_t dim, int64_t index) {
  if (x->ndim() == 0) fail(ErrorKind::Index, "select: invalid index of a 0-dim tensor");
  int64_t d = normalize_dim("select", dim, x->ndim());
  int64_t n = x->shape[d];
  if (index < -n || index >= n) {
    fail(ErrorKind::Index, "select: index ", index, " is out of bounds for dimension ", d, " with size ", n,
         " (shape ", shape_str(x->shape), ")");
  }
  if (index < 0) index += n;
  NodePtr s = slice_dim(x, d, index, 1, 1);
  Shape out = x->shape;
  out.erase(out.begin() + d);
  return reshape_exact(s, std::move(out));
}

NodePtr flip(const NodePtr& x, absl::Span<const int64_t> dims) {
  Dims d = normalize_dims("flip", dims, x->ndim(), /*empty_means_all=*/false);
  Dims keep;
  for (int64_t i : d)
    if (x->shape[i] > 1) keep.push_back(i);
  if (keep.empty()) return x;
  return make_node(Op::Flip, x->dtype, x->shape, Attrs(keep.begin(), keep.end()), {x});
}

NodePtr pad(const NodePtr& x, absl::Span<const int64_t> pads, double value) {
  if (pads.size() % 2 != 0 || static_cast<int64_t>(pads.size()) > 2 * x->ndim()) {
    fail(ErrorKind::Runtime, "pad: padding length ", pads.size(), " must be even and at most twice the ", x->ndim(),
         " dims of the input (shape ", shape_str(x->shape), ")");
  }
  int64_t n = x->ndim();
  Shape lo(n, 0), hi(n, 0);
  for (size_t i = 0; i < pads.size() / 2; ++i) {
    lo[n - 1 - i] = pads[2 * i];
    hi[n - 1 - i] = pads[2 * i + 1];
  }
  // Negative pads crop first.
  Shape starts(n, 0), steps(n, 1), sizes = x->shape;
  for (int64_t i = 0; i < n; ++i) {
    int64_t crop_lo = lo[i] < 0 ? -lo[i] : 0, crop_hi = hi[i] < 0 ? -hi[i] : 0;
    if (crop_lo + crop_hi > x->shape[i]) {
      fail(ErrorKind::Runtime, "pad: cropping ", crop_lo + crop_hi, " elements from dim ", i, " of size ",
           x->shape[i], " leaves a negative size");
    }
    starts[i] = crop_lo;
    sizes[i] = x->shape[i] - crop_lo - crop_hi;
    lo[i] = std::max<int64_t>(lo[i], 0);
    hi[i] = std::max<int64_t>(hi[i], 0);
  }
  NodePtr y = slice_all(x, starts, steps, sizes);
  bool any = false;
  Attrs attrs;
  Shape out = y->shape;
  for (int64_t i = 0; i < n; ++i) {
    any |= lo[i] || hi[i];
    attrs.push_back(lo[i]);
    attrs.push_back(hi[i]);
    out[i] += lo[i] + hi[i];
  }
  if (!any) return y;
  return make_node(Op::Pad, y->dtype, std::move(out), std::move(attrs), {y, scalar(value, y->dtype, false)});
}

NodePtr cat(absl::Span<const NodePtr> xs, int64_t dim) {
  if (xs.empty()) fail(ErrorKind::Runtime, "cat: expected a non-empty list of tensors");
  // Legacy PyTorch behaviour: 1-D empty tensors are skipped.
  std::vector<NodePtr> parts;
  for (const NodePtr& x : xs)
    if (!(x->ndim() == 1 && x->shape[0] == 0)) parts.push_back(x);
  if (parts.empty()) return xs[0];
  const NodePtr& ref = parts[0];
  if (ref->ndim() == 0) fail(ErrorKind::Runtime, "cat: zero-dimensional tensor (at position 0) cannot be concatenated");
  int64_t d = normalize_dim("cat", dim, ref->ndim());
  DType dt = parts[0]->dtype;
  for (const NodePtr& x : parts) dt = promote_types(dt, x->dtype);
  Shape out = ref->shape;
  out[d] = 0;
  NodeList ins;
  for (size_t k = 0; k < parts.size(); ++k) {
    const NodePtr& x = parts[k];
    bool ok = x->ndim() == ref->ndim();
    for (int64_t i = 0; ok && i < ref->ndim(); ++i) ok = i == d || x->shape[i] == ref->shape[i];
    if (!ok) {
      fail(ErrorKind::Runtime, "cat: sizes of tensors must match except in dimension ", d, "; tensor 0 has shape ",
           shape_str(ref->shape), " but tensor ", k, " has shape ", shape_str(x->shape));
    }
    out[d] += x->shape[d];
    ins.push_back(cast(x, dt));
  }
  if (ins.size() == 1) return ins[0];
  return make_node(Op::Concat, dt, std::move(out), {d}, std::move(ins));
}

NodePtr stack(absl::Span<const NodePtr> xs, int64_t dim) {
  if (xs.empty()) fail(ErrorKind::Runtime, "stack: expected a non-empty list of tensors");
  for (size_t k = 1; k < xs.size(); ++k) {
    if (xs[k]->shape != xs[0]->shape) {
      fail(ErrorKind::Runtime, "stack: expects each tensor to be equal size, but got ", shape_str(xs[0]->shape),
           " at entry 0 and ", shape_str(xs[k]->shape), " at entry ", k);
    }
  }
  int64_t d = normalize_dim("stack", dim, xs[0]->ndim() + 1);
  std::vector<NodePtr> parts;
  for (const NodePtr& x : xs) parts.push_back(unsqueeze(x, d));
  return ops::cat(absl::MakeConstSpan(parts), d);
}

std::vector<NodePtr> split_sizes(const NodePtr& x, absl::Span<const int64_t> sizes, int64_t dim) {
  int64_t d = normalize_dim("split", dim, x->ndim());
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0) fail(ErrorKind::Runtime, "split: split sizes must be non-negative, got ", shape_str(sizes));
    total += s;
  }
  if (total != x->shape[d]) {
    fail(ErrorKind::Runtime, "split: split sizes ", shape_str(sizes), " must sum to the size of dim ", d, " (",
         x->shape[d], ") of shape ", shape_str(x->shape));
  }
  std::vector<NodePtr> out;
  int64_t start = 0;
  for (int64_t s : sizes) {
    out.push_back(slice_dim(x, d, s == 0 ? 0 : start, s, 1));
    start += s;
  }
  return out;
}

std::vector<NodePtr> split(const NodePtr& x, int64_t split_size, int64_t dim) {
  int64_t d = normalize_dim("split", dim, x->ndim());
  if (split_size <= 0 && !(split_size == 0 && x->shape[d] == 0)) {
    fail(ErrorKind::Runtime, "split: split_size must be positive, got ", split_size);
  }
  Dims sizes;
  int64_t n = x->shape[d];
  if (n == 0) sizes.push_back(0);
  for (int64_t s = 0; s < n; s += split_size) sizes.push_back(std::min(split_size, n - s));
  return split_sizes(x, sizes, d);
}

std::vector<NodePtr> chunk(const NodePtr& x, int64_t chunks, int64_t dim) {
  if (chunks <= 0) fail(ErrorKind::Runtime, "chunk: number of chunks must be positive, got ", chunks);
  int64_t d = normalize_dim("chunk", dim, x->ndim());
  int64_t n = x->shape[d];
  int64_t size = (n + chunks - 1) / chunks;
  return split(x, std::max<int64_t>(size, n == 0 ? 0 : 1), d);
}

static NodePtr triangle(std::string_view name, const NodePtr& x, int64_t diagonal, bool lower) {
  if (x->ndim() < 2) {
    fail(ErrorKind::Runtime, name, ": input tensor must have at least 2 dimensions, got shape ", shape_str(x->shape));
  }
  Shape mat{x->shape[x->ndim() - 2], x->shape[x->ndim() - 1]};
  NodePtr diff = sub(iota(mat, 1), iota(mat, 0));  // col - row
  NodePtr k = scalar_int(diagonal, DType::Int64, false);
  NodePtr keep = lower ? le(diff, k) : ge(diff, k);
  return where(keep, x, scalar(0.0, x->dtype, false));
}

NodePtr tril(const NodePtr& x, int64_t diagonal) { return triangle("tril", x, diagonal, true); }
NodePtr triu(const NodePtr& x, int64_t diagonal) { return triangle("triu", x, diagonal, false); }

}  // namespace lt::ops
