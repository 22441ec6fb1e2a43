// ir/evaluator.cpp — the reference evaluator: what every primitive means.
//
// Values. Every trace node's value is one contiguous row-major Buffer of the
// node's dtype (bool as uint8 0/1). Arithmetic runs in a compute type per
// dtype — double for floats, int64 for integers and bool — and each result is
// stored back with store<S>(): floats round once (float32 = (float)double),
// integers wrap (two's complement), bool is `!= 0`. Integer arithmetic goes
// through uint64 so overflow wraps instead of being undefined; the low 32 bits
// of a wrapped 64-bit result are the wrapped 32-bit result, so int32 needs no
// path of its own. int64 is never routed through double.
//
// Loops. Elementwise inputs have the output's shape or are rank-0 Scalars
// (read with stride 0), so they are flat loops.
// Everything else walks a shape with precomputed strides (for_each_index):
// movement ops are a strided copy from (offset, strides) views of the input,
// reductions walk the input once in row-major order and accumulate into the
// output slot (reduced dims have stride 0), so accumulation order is always
// increasing index order and "first index" for argmax falls out naturally.
//
// Memory. A value is released right after its last consumer ran; Reshape and
// Detach share their input's buffer (values are immutable). An output that
// would alias a parameter buffer is copied, so callers own what they get.
//
// Semantics chosen where PyTorch (1.13, Debian's) is the reference:
// - sign(NaN) = 0, like torch.sign; maximum/minimum and reduce max/min
//   propagate NaN; argmax/argmin return the first NaN if there is one.
// - Comparisons with NaN are false except ne. Round is half to even.
// - Cast float -> int truncates toward zero; NaN and out-of-range values give
//   the type's minimum (what PyTorch gives on x86). float -> bool is != 0, so
//   NaN is true. LogicalNot/And/Or and Where's condition treat nonzero as true.
// - Integer pow is exact repeated squaring (wrapping); a negative exponent
//   gives 0 except for bases 1 and -1, like PyTorch's integer pow.
// - Integer div is not produced by the builder (true division casts to float
//   first); if it appears it truncates toward zero, and x / 0 is defined as 0.
// - Transcendental ops (exp, log, sin, ...) on integer dtypes are a Type error;
//   floor/ceil/round on integers are the identity.
// - Reductions over zero elements: sum 0, prod 1; max/min/argmax/argmin raise.
#include "ir/evaluator.h"

#include <cstring>

#include "ir/conv.h"
#include "ir/counters.h"
#include "ir/evaluator_impl.h"

namespace lt {
namespace eval_detail {

namespace {
// What an index out of range raises for a Gather or ScatterAdd (attrs {axis, 1}: Runtime).
ErrorKind bad_index_kind(const TraceNode& n) {
  return n.attrs.size() > 1 && n.attrs[1] == 1 ? ErrorKind::Runtime : ErrorKind::Index;
}
// A class target of nll_loss (attrs {axis, 2}) raises PyTorch's message.
bool is_class_target(const TraceNode& n) { return n.attrs.size() > 1 && n.attrs[1] == 2; }
}  // namespace

BufferPtr Evaluator::eval() {
  const TraceNode& n = node();
  const int arity = op_info(n.op).arity;
  if (arity >= 0 && static_cast<int>(n.inputs.size()) != arity && n.op != Op::RandUniform) {
    error(ErrorKind::Runtime, "expected ", arity, " inputs, got ", n.inputs.size());
  }
  for (size_t k = 0; k < n.inputs.size(); ++k) {
    if (n.inputs[k] < 0 || n.inputs[k] >= id || !values[n.inputs[k]])
      error(ErrorKind::Runtime, "bad input %", n.inputs[k]);
  }
  if (is_elementwise(n.op)) {
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      const TraceNode& x = in_node(k);
      check(x.shape == n.shape || (x.op == Op::Scalar && x.shape.empty()),
            "elementwise input shape differs from the output's (and is no rank-0 scalar)");
    }
  }
  switch (n.op) {
    case Op::Input:
      return eval_input();
    case Op::Scalar:
      return eval_scalar();
    case Op::Iota:
      return eval_iota();
    case Op::RandUniform:
      return eval_rand_uniform();
    case Op::Cast:
      return eval_cast();
    case Op::Detach:
      return in_ptr(0);
    case Op::Where:
      return eval_where();
    case Op::ArgMax:
    case Op::ArgMin:
      return eval_arg_reduce();
    case Op::CumSum:
      return eval_cumsum();
    case Op::Pad:
      return eval_pad();
    case Op::Concat:
      return eval_concat();
    case Op::Gather:
      return eval_gather();
    case Op::ScatterAdd:
      return eval_scatter_add();
    case Op::MatMul:
      return eval_matmul();
    case Op::Conv:
    case Op::ConvInputGrad:
    case Op::ConvWeightGrad:
      return eval_conv();
    case Op::Reshape:
      check(shape_numel(in_node(0).shape) == shape_numel(n.shape), "reshape changes the element count");
      return in_ptr(0);
    default:
      break;
  }
  switch (op_kind(n.op)) {
    case OpKind::Unary:
    case OpKind::Binary:
      return eval_elementwise();
    case OpKind::Reduce:
      return eval_reduce();
    case OpKind::Movement:
      return eval_view();
    default:
      error(ErrorKind::NotImplemented, "no reference implementation");
  }
}

int64_t Evaluator::scalar_input_as_int(size_t k) const {
  const Buffer& b = in(k);
  check(b.numel() == 1, "expected a one-element scalar input");
  return visit_dtype(b.dtype(), [&](auto e) -> int64_t {
    using E = decltype(e);
    return store<int64_t>(static_cast<typename E::Compute>(b.as<typename E::Storage>()[0]));
  });
}

int64_t Evaluator::axis_attr() const {
  const TraceNode& n = node();
  // Gather and ScatterAdd may carry a second attr: 1 = an index out of range raises ErrorKind::Runtime,
  // 2 = the index is a class target (nll_loss's IndexError "Target N is out of bounds.").
  bool indexed = (n.op == Op::Gather || n.op == Op::ScatterAdd) && n.attrs.size() == 2 &&
                 (n.attrs[1] == 0 || n.attrs[1] == 1 || n.attrs[1] == 2);
  if (n.attrs.size() != 1 && !indexed) error(ErrorKind::Runtime, "expected attrs {axis}");
  int64_t axis = n.attrs[0];
  if (axis < 0 || axis >= static_cast<int64_t>(n.shape.size())) error(ErrorKind::Index, "axis ", axis, " out of range");
  return axis;
}

// ---- sources --------------------------------------------------------------------

BufferPtr Evaluator::eval_input() {
  const TraceNode& n = node();
  if (n.param < 0 || n.param >= static_cast<int32_t>(trace.params.size()) || !trace.params[n.param]) {
    error(ErrorKind::Runtime, "no buffer bound to param ", n.param);
  }
  const BufferPtr& b = trace.params[n.param];
  if (b->dtype() != n.dtype || b->numel() != shape_numel(n.shape)) {
    error(ErrorKind::Runtime, "param ", n.param, " is ", dtype_name(b->dtype()), " with ", b->numel(),
          " elements, expected ", dtype_name(n.dtype), shape_str(n.shape));
  }
  return b;
}

BufferPtr Evaluator::eval_scalar() {
  const TraceNode& n = node();
  if (n.param < 0 || n.param >= static_cast<int32_t>(trace.scalars.size()))
    error(ErrorKind::Runtime, "no value for scalar ", n.param);
  const ScalarValue& v = trace.scalars[n.param];
  BufferPtr out = output();
  visit_dtype(n.dtype, [&](auto e) {
    using S = typename decltype(e)::Storage;
    S value = is_floating(n.dtype) ? store<S>(v.f) : store<S>(v.i);
    for (int64_t i = 0; i < out->numel(); ++i) out->as<S>()[i] = value;
  });
  return out;
}

BufferPtr Evaluator::eval_iota() {
  const TraceNode& n = node();
  const int64_t axis = axis_attr();
  const int64_t size = n.shape[axis];
  const int64_t inner = contiguous_strides(n.shape)[axis];
  BufferPtr out = output();
  visit_dtype(n.dtype, [&](auto e) {
    using S = typename decltype(e)::Storage;
    S* y = out->as<S>();
    for (int64_t i = 0; i < out->numel(); ++i) y[i] = store<S>(static_cast<int64_t>((i / inner) % size));
  });
  return out;
}

BufferPtr Evaluator::eval_rand_uniform() {
  const TraceNode& n = node();
  if (n.inputs.empty() || n.inputs.size() > 2) error(ErrorKind::Runtime, "expected inputs (seed, offset)");
  if (n.attrs.size() != 1 || n.attrs[0] < 0 || n.attrs[0] > 3)
    error(ErrorKind::Runtime, "expected attrs {stream} with stream in [0, 4)");
  if (!is_floating(n.dtype)) error(ErrorKind::Type, "rand_uniform needs a floating dtype");
  const uint64_t seed = static_cast<uint64_t>(scalar_input_as_int(0));
  const uint64_t offset = n.inputs.size() == 2 ? static_cast<uint64_t>(scalar_input_as_int(1)) : 0;
  const int stream = static_cast<int>(n.attrs[0]);
  BufferPtr out = output();
  visit_dtype(n.dtype, [&](auto e) {
    using S = typename decltype(e)::Storage;
    S* y = out->as<S>();
    uint32_t words[4];
    for (int64_t i = 0; i < out->numel(); ++i) {
      philox4x32(seed, offset + static_cast<uint64_t>(i), words);
      y[i] = static_cast<S>(uniform_from_bits(words[stream], n.dtype));
    }
  });
  return out;
}

// ---- reductions and scans -------------------------------------------------------

/// The input's strides with the reduced dims zeroed: maps an input index to its output slot.
Shape reduced_output_strides(const Shape& in_shape, const Shape& out_shape) {
  Shape strides = contiguous_strides(out_shape);
  for (size_t d = 0; d < in_shape.size(); ++d)
    if (out_shape[d] != in_shape[d]) strides[d] = 0;
  return strides;
}

BufferPtr Evaluator::eval_reduce() {
  const TraceNode& n = node();
  const Shape& in_shape = in_node(0).shape;
  check(in_shape.size() == n.shape.size(), "reduction output must keep the reduced dims");
  for (size_t d = 0; d < in_shape.size(); ++d) {
    bool reduced = std::find(n.attrs.begin(), n.attrs.end(), static_cast<int64_t>(d)) != n.attrs.end();
    check(reduced ? n.shape[d] == 1 : n.shape[d] == in_shape[d], "reduction output shape does not match its axes");
  }
  const int64_t out_numel = shape_numel(n.shape);
  const int64_t in_numel = shape_numel(in_shape);
  if ((n.op == Op::ReduceMax || n.op == Op::ReduceMin) && in_numel == 0 && out_numel > 0) {
    error(ErrorKind::Runtime, "cannot reduce over zero elements; the operation has no identity");
  }
  const Shape in_strides = contiguous_strides(in_shape);
  const Shape out_strides = reduced_output_strides(in_shape, n.shape);
  const Buffer& a = in(0);
  BufferPtr out = output();
  visit_dtype(a.dtype(), [&](auto e) {
    using S = typename decltype(e)::Storage;
    using C = typename decltype(e)::Compute;
    const S* x = a.as<S>();
    auto reduce = [&](C init, auto combine) {
      std::vector<C> acc(out_numel, init);
      for_each_index<2>(in_shape, {in_strides.data(), out_strides.data()}, {0, 0},
                        [&](const Offsets<2>& o) { acc[o[1]] = combine(acc[o[1]], static_cast<C>(x[o[0]])); });
      visit_dtype(n.dtype, [&](auto oe) {
        using OS = typename decltype(oe)::Storage;
        for (int64_t i = 0; i < out_numel; ++i) out->as<OS>()[i] = store<OS>(acc[i]);
      });
    };
    constexpr bool kFloat = std::is_same_v<C, double>;
    using Limits = std::numeric_limits<C>;
    constexpr C kLowest = Limits::has_infinity ? -Limits::infinity() : Limits::min();
    constexpr C kHighest = Limits::has_infinity ? Limits::infinity() : Limits::max();
    switch (n.op) {
      case Op::ReduceSum:
        if constexpr (kFloat)
          return reduce(0.0, [](double s, double v) { return s + v; });
        else
          return reduce(0, wrap_add);
      case Op::ReduceProd:
        if constexpr (kFloat)
          return reduce(1.0, [](double s, double v) { return s * v; });
        else
          return reduce(1, wrap_mul);
      case Op::ReduceMax:
        return reduce(kLowest, [](C s, C v) { return is_nan(s) || !(is_nan(v) || v > s) ? s : v; });
      case Op::ReduceMin:
        return reduce(kHighest, [](C s, C v) { return is_nan(s) || !(is_nan(v) || v < s) ? s : v; });
      default:
        error(ErrorKind::NotImplemented, "no reference implementation");
    }
  });
  return out;
}

BufferPtr Evaluator::eval_arg_reduce() {
  const TraceNode& n = node();
  const Shape& in_shape = in_node(0).shape;
  const int64_t axis = axis_attr();
  check(in_shape.size() == n.shape.size() && n.shape[axis] == 1, "argmax/argmin output must keep the axis with size 1");
  const int64_t out_numel = shape_numel(n.shape);
  if (in_shape[axis] == 0 && out_numel > 0)
    error(ErrorKind::Index, "cannot take ", op_name(n.op), " over an empty axis");
  const Shape in_strides = contiguous_strides(in_shape);
  const Shape out_strides = reduced_output_strides(in_shape, n.shape);
  Shape position(in_shape.size(), 0);  // index along the axis
  position[axis] = 1;
  const bool is_max = n.op == Op::ArgMax;
  const Buffer& a = in(0);
  std::vector<int64_t> best_index(out_numel, -1);
  visit_dtype(a.dtype(), [&](auto e) {
    using S = typename decltype(e)::Storage;
    using C = typename decltype(e)::Compute;
    const S* x = a.as<S>();
    std::vector<C> best(out_numel);
    for_each_index<3>(in_shape, {in_strides.data(), out_strides.data(), position.data()}, {0, 0, 0},
                      [&](const Offsets<3>& o) {
                        const C v = static_cast<C>(x[o[0]]);
                        C& b = best[o[1]];
                        int64_t& bi = best_index[o[1]];
                        bool take = bi < 0 || (!is_nan(b) && (is_nan(v) || (is_max ? v > b : v < b)));
                        if (take) b = v, bi = o[2];
                      });
  });
  BufferPtr out = output();
  visit_dtype(n.dtype, [&](auto oe) {
    using OS = typename decltype(oe)::Storage;
    for (int64_t i = 0; i < out_numel; ++i) out->as<OS>()[i] = store<OS>(best_index[i]);
  });
  return out;
}

BufferPtr Evaluator::eval_cumsum() {
  const TraceNode& n = node();
  const int64_t axis = axis_attr();
  check(in_node(0).shape == n.shape && in(0).dtype() == n.dtype, "cumsum keeps shape and dtype");
  const int64_t len = n.shape[axis];
  const int64_t inner = contiguous_strides(n.shape)[axis];
  const int64_t outer = len * inner == 0 ? 0 : shape_numel(n.shape) / (len * inner);
  const Buffer& a = in(0);
  BufferPtr out = output();
  visit_dtype(n.dtype, [&](auto e) {
    using S = typename decltype(e)::Storage;
    using C = typename decltype(e)::Compute;
    const S* x = a.as<S>();
    S* y = out->as<S>();
    std::vector<C> acc(inner);
    for (int64_t o = 0; o < outer; ++o) {
      std::fill(acc.begin(), acc.end(), C{0});
      for (int64_t k = 0; k < len; ++k) {
        const int64_t base = (o * len + k) * inner;
        for (int64_t i = 0; i < inner; ++i) {
          if constexpr (std::is_same_v<C, double>)
            acc[i] += static_cast<C>(x[base + i]);
          else
            acc[i] = wrap_add(acc[i], static_cast<C>(x[base + i]));
          y[base + i] = store<S>(acc[i]);
        }
      }
    }
  });
  return out;
}

// ---- movement -------------------------------------------------------------------

/// Permute, Expand, Slice and Flip read the input through a strided view:
/// out[i] = in[offset + i . strides].
BufferPtr Evaluator::eval_view() {
  const TraceNode& n = node();
  const Shape& in_shape = in_node(0).shape;
  const Shape in_strides = contiguous_strides(in_shape);
  const size_t ndim = n.shape.size();
  const auto& at = n.attrs;
  Shape strides(ndim, 0);
  int64_t offset = 0;
  switch (n.op) {
    case Op::Permute: {
      check(at.size() == ndim && in_shape.size() == ndim, "permute needs one attr per dim");
      std::vector<bool> seen(ndim, false);
      for (size_t i = 0; i < ndim; ++i) {
        check(at[i] >= 0 && at[i] < static_cast<int64_t>(ndim) && !seen[at[i]], "permute attrs must be a permutation");
        seen[at[i]] = true;
        check(n.shape[i] == in_shape[at[i]], "permute output shape does not match");
        strides[i] = in_strides[at[i]];
      }
      break;
    }
    case Op::Expand:
      if (in_shape.empty()) break;  // a rank-0 input broadcasts to any shape
      check(in_shape.size() == ndim, "expand keeps the rank");
      for (size_t d = 0; d < ndim; ++d) {
        check(in_shape[d] == n.shape[d] || in_shape[d] == 1, "expand can only stretch size-1 dims");
        strides[d] = in_shape[d] == n.shape[d] ? in_strides[d] : 0;
      }
      break;
    case Op::Slice:
      check(in_shape.size() == ndim && at.size() == 2 * ndim, "slice needs {start, step} per dim");
      for (size_t d = 0; d < ndim; ++d) {
        const int64_t start = at[2 * d], step = at[2 * d + 1];
        check(step > 0 && start >= 0, "slice needs start >= 0 and step > 0");
        if (n.shape[d] > 0 && start + (n.shape[d] - 1) * step >= in_shape[d]) {
          error(ErrorKind::Index, "slice of dim ", d, " reads past its size ", in_shape[d]);
        }
        offset += start * in_strides[d];
        strides[d] = step * in_strides[d];
      }
      break;
    case Op::Flip:
      check(in_shape == n.shape, "flip keeps the shape");
      for (size_t d = 0; d < ndim; ++d) strides[d] = in_strides[d];
      for (int64_t d : at) {
        check(d >= 0 && d < static_cast<int64_t>(ndim), "flip axis out of range");
        if (n.shape[d] > 0) offset += (n.shape[d] - 1) * in_strides[d];
        strides[d] = -in_strides[d];
      }
      break;
    default:
      error(ErrorKind::NotImplemented, "no reference implementation");
  }
  BufferPtr out = output();
  copy_strided(in(0), offset, strides, *out, 0, contiguous_strides(n.shape), n.shape);
  return out;
}

BufferPtr Evaluator::eval_pad() {
  const TraceNode& n = node();
  const Shape& in_shape = in_node(0).shape;
  const size_t ndim = n.shape.size();
  check(in_shape.size() == ndim && n.attrs.size() == 2 * ndim, "pad needs {lo, hi} per dim");
  check(in(0).dtype() == n.dtype, "pad keeps the dtype");
  check(in(1).numel() == 1, "pad fill value must be a scalar");
  const Shape out_strides = contiguous_strides(n.shape);
  int64_t start = 0;
  for (size_t d = 0; d < ndim; ++d) {
    const int64_t lo = n.attrs[2 * d], hi = n.attrs[2 * d + 1];
    check(lo >= 0 && hi >= 0 && in_shape[d] + lo + hi == n.shape[d], "pad widths do not match the output shape");
    start += lo * out_strides[d];
  }
  BufferPtr out = output();
  const Buffer& fill = in(1);
  visit_dtype(fill.dtype(), [&](auto fe) {
    using FE = decltype(fe);
    visit_dtype(n.dtype, [&](auto e) {
      using S = typename decltype(e)::Storage;
      const S value = store<S>(static_cast<typename FE::Compute>(fill.as<typename FE::Storage>()[0]));
      std::fill(out->as<S>(), out->as<S>() + out->numel(), value);
    });
  });
  copy_strided(in(0), 0, contiguous_strides(in_shape), *out, start, out_strides, in_shape);
  return out;
}

BufferPtr Evaluator::eval_concat() {
  const TraceNode& n = node();
  const int64_t axis = axis_attr();
  const Shape out_strides = contiguous_strides(n.shape);
  BufferPtr out = output();
  int64_t position = 0;
  for (size_t k = 0; k < n.inputs.size(); ++k) {
    const Shape& s = in_node(k).shape;
    check(in(k).dtype() == n.dtype && s.size() == n.shape.size(), "concat inputs need the output's dtype and rank");
    for (size_t d = 0; d < s.size(); ++d)
      check(static_cast<int64_t>(d) == axis || s[d] == n.shape[d], "concat inputs differ outside the axis");
    copy_strided(in(k), 0, contiguous_strides(s), *out, position * out_strides[axis], out_strides, s);
    position += s[axis];
  }
  check(position == n.shape[axis], "concat inputs do not fill the output");
  return out;
}

// ---- gather, scatter, matmul ----------------------------------------------------

/// Reads index buffers of either integer dtype as int64.
struct IndexReader {
  const Buffer& b;
  int64_t operator[](int64_t i) const {
    return b.dtype() == DType::Int64 ? b.as<int64_t>()[i] : static_cast<int64_t>(b.as<int32_t>()[i]);
  }
};

BufferPtr Evaluator::eval_gather() {
  const TraceNode& n = node();
  const int64_t axis = axis_attr();
  const Shape& x_shape = in_node(0).shape;
  const Buffer& x = in(0);
  const Buffer& index = in(1);
  check(is_integral(index.dtype()), "gather index must be an integer tensor");
  check(in_node(1).shape == n.shape, "gather index shape must be the output shape");
  check(x_shape.size() == n.shape.size() && x.dtype() == n.dtype, "gather input needs the output's rank and dtype");
  for (size_t d = 0; d < x_shape.size(); ++d)
    check(static_cast<int64_t>(d) == axis || n.shape[d] <= x_shape[d],
          "gather index is larger than the input outside the axis");
  const int64_t size = x_shape[axis];
  Shape x_strides = contiguous_strides(x_shape);
  const int64_t axis_stride = x_strides[axis];
  x_strides[axis] = 0;
  const Shape out_strides = contiguous_strides(n.shape);
  const IndexReader idx{index};
  BufferPtr out = output();
  visit_dtype(n.dtype, [&](auto e) {
    using S = typename decltype(e)::Storage;
    const S* xs = x.as<S>();
    S* y = out->as<S>();
    for_each_index<2>(n.shape, {out_strides.data(), x_strides.data()}, {0, 0}, [&](const Offsets<2>& o) {
      const int64_t i = idx[o[0]];
      if ((i < 0 || i >= size) && is_class_target(n)) error_on_data(ErrorKind::Index, "Target ", i, " is out of bounds.");
      if (i < 0 || i >= size)
        error_on_data(bad_index_kind(n), "gather index ", i, " is out of bounds for dim ", axis, " with size ", size);
      y[o[0]] = xs[o[1] + i * axis_stride];
    });
  });
  return out;
}

BufferPtr Evaluator::eval_scatter_add() {
  const TraceNode& n = node();
  const int64_t axis = axis_attr();
  const Buffer& self = in(0);
  const Buffer& index = in(1);
  const Buffer& src = in(2);
  const Shape& index_shape = in_node(1).shape;
  const Shape& src_shape = in_node(2).shape;
  check(in_node(0).shape == n.shape && self.dtype() == n.dtype && src.dtype() == n.dtype,
        "scatter_add self/src must have the output's shape and dtype");
  check(is_integral(index.dtype()), "scatter_add index must be an integer tensor");
  check(index_shape.size() == n.shape.size() && src_shape.size() == n.shape.size(),
        "scatter_add operands need equal ranks");
  for (size_t d = 0; d < index_shape.size(); ++d) {
    check(index_shape[d] <= src_shape[d], "scatter_add index is larger than src");
    check(static_cast<int64_t>(d) == axis || index_shape[d] <= n.shape[d],
          "scatter_add index is larger than self outside the axis");
  }
  const int64_t size = n.shape[axis];
  const Shape index_strides = contiguous_strides(index_shape);
  const Shape src_strides = contiguous_strides(src_shape);
  Shape out_strides = contiguous_strides(n.shape);
  const int64_t axis_stride = out_strides[axis];
  out_strides[axis] = 0;
  const IndexReader idx{index};
  BufferPtr out = output();
  visit_dtype(n.dtype, [&](auto e) {
    using S = typename decltype(e)::Storage;
    using C = typename decltype(e)::Compute;
    const S* s = src.as<S>();
    std::vector<C> acc(self.as<S>(), self.as<S>() + self.numel());
    for_each_index<3>(index_shape, {index_strides.data(), src_strides.data(), out_strides.data()}, {0, 0, 0},
                      [&](const Offsets<3>& o) {
                        const int64_t i = idx[o[0]];
                        if (i < 0 || i >= size)
                          error_on_data(bad_index_kind(n), "scatter_add index ", i, " is out of bounds for dim ", axis,
                                " with size ", size);
                        C& slot = acc[o[2] + i * axis_stride];
                        if constexpr (kLowpFloat<S>)
                          // As torch's CPU kernel: each add in float, rounded into the narrow
                          // type (so a term float16 cannot hold next to the running sum is lost).
                          slot = static_cast<C>(static_cast<float>(S(static_cast<float>(slot) + static_cast<float>(s[o[1]]))));
                        else if constexpr (std::is_same_v<C, double>)
                          slot += static_cast<C>(s[o[1]]);
                        else
                          slot = wrap_add(slot, static_cast<C>(s[o[1]]));
                      });
    for (int64_t i = 0; i < out->numel(); ++i) out->as<S>()[i] = store<S>(acc[i]);
  });
  return out;
}

BufferPtr Evaluator::eval_matmul() {
  const TraceNode& n = node();
  const Shape& as = in_node(0).shape;
  const Shape& bs = in_node(1).shape;
  const size_t r = n.shape.size();
  check(r >= 2 && as.size() == r && bs.size() == r, "matmul operands need the output's rank (>= 2)");
  for (size_t d = 0; d + 2 < r; ++d)
    check(as[d] == n.shape[d] && bs[d] == n.shape[d], "matmul batch dims must be equal");
  const int64_t M = as[r - 2], K = as[r - 1], N = bs[r - 1];
  check(bs[r - 2] == K && n.shape[r - 2] == M && n.shape[r - 1] == N,
        "matmul needs [.., M, K] x [.., K, N] -> [.., M, N]");
  check(in(0).dtype() == n.dtype && in(1).dtype() == n.dtype, "matmul operands need the output's dtype");
  const int64_t batch = M * N == 0 ? 0 : shape_numel(n.shape) / (M * N);
  const Buffer& a = in(0);
  const Buffer& b = in(1);
  BufferPtr out = output();
  visit_dtype(n.dtype, [&](auto e) {
    using S = typename decltype(e)::Storage;
    using C = typename decltype(e)::Compute;
    std::vector<C> acc(N);
    for (int64_t bt = 0; bt < batch; ++bt) {
      const S* A = a.as<S>() + bt * M * K;
      const S* B = b.as<S>() + bt * K * N;
      S* Y = out->as<S>() + bt * M * N;
      for (int64_t m = 0; m < M; ++m) {
        std::fill(acc.begin(), acc.end(), C{0});
        for (int64_t k = 0; k < K; ++k) {
          const C av = static_cast<C>(A[m * K + k]);
          const S* row = B + k * N;
          for (int64_t j = 0; j < N; ++j) {
            if constexpr (std::is_same_v<C, double>)
              acc[j] += av * static_cast<C>(row[j]);
            else
              acc[j] = wrap_add(acc[j], wrap_mul(av, static_cast<C>(row[j])));
          }
        }
        for (int64_t j = 0; j < N; ++j) Y[m * N + j] = store<S>(acc[j]);
      }
    }
  });
  return out;
}

// The three convolutions walk one relation (ir/conv.h): for each (n, group,
// oi, ci, out, kk) whose input position is inside the input, the product of
// the two operands' elements accumulates into the output's; outside it
// (padding: x's for the forward and the weight gradient, dy's for the input
// gradient) they add 0 times the other operand, so an inf or NaN there gives
// NaN. That is PyTorch's padded im2col for the first two; for the input
// gradient PyTorch (col2im) has no such term, so there a non-finite weight
// reaches up to (kernel - 1) * dilation border positions that torch leaves
// finite (docs/convolution.md). Positions a strided convolution skips add
// nothing (the CPU computes a strided input gradient per phase of the
// stride, ir/builder_nn.cpp). Sums are in the compute type (double for
// floats) and stored once.
BufferPtr Evaluator::eval_conv() {
  const TraceNode& n = node();
  const ConvGeometry g = conv_geometry(n.op, n.attrs, in_node(0).shape, in_node(1).shape, n.shape);
  check(is_floating(n.dtype) && in(0).dtype() == n.dtype && in(1).dtype() == n.dtype,
        "convolution operands need the output's floating dtype");
  const int nd = g.nd;
  const int64_t L = g.out_numel(), S = g.in_numel(), K = g.kernel_numel(), Cg = g.cg(), Og = g.og();
  // Per (out, kk): the input position's linear index, or -1 where it is padding.
  std::vector<int64_t> tap(static_cast<size_t>(L * K));
  std::vector<int64_t> oc(nd), kc(nd);
  for (int64_t l = 0; l < L; ++l) {
    for (int64_t r = l, j = nd; j-- > 0;) oc[j] = r % g.out[j], r /= g.out[j];
    for (int64_t kk = 0; kk < K; ++kk) {
      for (int64_t r = kk, j = nd; j-- > 0;) kc[j] = r % g.kernel[j], r /= g.kernel[j];
      int64_t lin = 0;
      for (int j = 0; j < nd && lin >= 0; ++j) {
        int64_t p = oc[j] * g.stride[j] + kc[j] * g.dilation[j] - g.pad[j];
        lin = p < 0 || p >= g.in[j] ? -1 : lin * g.in[j] + p;
      }
      tap[l * K + kk] = lin;
    }
  }
  // ConvInputGrad: the (input position, tap) pairs whose output position is
  // a multiple of the stride but outside the output (the padding of dy).
  std::vector<std::pair<int64_t, int64_t>> dy_pad;
  if (n.op == Op::ConvInputGrad) {
    std::vector<int64_t> ic(nd);
    for (int64_t i = 0; i < S; ++i) {
      for (int64_t r = i, j = nd; j-- > 0;) ic[j] = r % g.in[j], r /= g.in[j];
      for (int64_t kk = 0; kk < K; ++kk) {
        for (int64_t r = kk, j = nd; j-- > 0;) kc[j] = r % g.kernel[j], r /= g.kernel[j];
        bool divisible = true, outside = false;
        for (int j = 0; j < nd; ++j) {
          int64_t v = ic[j] + g.pad[j] - kc[j] * g.dilation[j];
          divisible = divisible && v % g.stride[j] == 0;
          outside = outside || v < 0 || v / g.stride[j] >= g.out[j];
        }
        if (divisible && outside) dy_pad.push_back({i, kk});
      }
    }
  }
  BufferPtr out = output();
  visit_dtype(n.dtype, [&](auto e) {
    using S_ = typename decltype(e)::Storage;
    using C_ = typename decltype(e)::Compute;
    const Buffer& a = in(0);
    const Buffer& b = in(1);
    const S_ *A = a.as<S_>(), *B = b.as<S_>();

    std::vector<C_> acc(static_cast<size_t>(shape_numel(n.shape)), C_{0});
    for (int64_t bn = 0; bn < g.N; ++bn)
      for (int64_t gi = 0; gi < g.groups; ++gi)
        for (int64_t oi = 0; oi < Og; ++oi)
          for (int64_t ci = 0; ci < Cg; ++ci) {
            const int64_t o = gi * Og + oi, c = gi * Cg + ci;
            const int64_t xs = (bn * g.C + c) * S, ys = (bn * g.O + o) * L, ws = (o * Cg + ci) * K;
            for (int64_t l = 0; l < L; ++l)
              for (int64_t kk = 0; kk < K; ++kk) {
                const int64_t p = tap[l * K + kk];
                if (p < 0) {
                  // Padding is a zero that the forward and the weight gradient multiply, as PyTorch's
                  // padded im2col does (0 * inf is NaN); the input gradient has no such term (col2im).
                  if (n.op == Op::Conv) acc[ys + l] += static_cast<C_>(B[ws + kk]) * C_{0};
                  else if (n.op == Op::ConvWeightGrad) acc[ws + kk] += C_{0} * static_cast<C_>(B[ys + l]);
                  continue;
                }
                switch (n.op) {
                  case Op::Conv:  // a = x, b = w
                    acc[ys + l] += static_cast<C_>(B[ws + kk]) * static_cast<C_>(A[xs + p]);
                    break;
                  case Op::ConvInputGrad:  // a = dy, b = w
                    acc[xs + p] += static_cast<C_>(B[ws + kk]) * static_cast<C_>(A[ys + l]);
                    break;
                  default:  // ConvWeightGrad: a = x, b = dy
                    acc[ws + kk] += static_cast<C_>(A[xs + p]) * static_cast<C_>(B[ys + l]);
                    break;
                }
              }
          }
    for (int64_t bn = 0; bn < g.N && !dy_pad.empty(); ++bn)  // dy's padding: 0 times the weight
      for (int64_t gi = 0; gi < g.groups; ++gi)
        for (int64_t oi = 0; oi < Og; ++oi)
          for (int64_t ci = 0; ci < Cg; ++ci) {
            const int64_t xs = (bn * g.C + gi * Cg + ci) * S, ws = ((gi * Og + oi) * Cg + ci) * K;
            for (auto [i, kk] : dy_pad) acc[xs + i] += static_cast<C_>(B[ws + kk]) * C_{0};
          }
    S_* Y = out->as<S_>();
    for (size_t i = 0; i < acc.size(); ++i) Y[i] = store<S_>(acc[i]);
  });
  return out;
}

}  // namespace eval_detail

using eval_detail::Evaluator;

// ---- driver ---------------------------------------------------------------------

std::vector<BufferPtr> evaluate_reference(const Trace& trace) {
  const int32_t count = static_cast<int32_t>(trace.nodes.size());
  for (int32_t o : trace.outputs) {
    if (o < 0 || o >= count) fail(ErrorKind::Runtime, "evaluate_reference: output %", o, " is not a node of the trace");
  }
  // last_use[i]: the last node reading value i; outputs live to the end.
  std::vector<int32_t> last_use(count, -1);
  for (int32_t i = 0; i < count; ++i)
    for (int32_t j : trace.nodes[i].inputs)
      if (j >= 0 && j < i) last_use[j] = i;
  for (int32_t o : trace.outputs) last_use[o] = count;

  Evaluator ev{trace, std::vector<BufferPtr>(count), 0};
  for (int32_t i = 0; i < count; ++i) {
    const TraceNode& n = trace.nodes[i];
    if (last_use[i] < 0) continue;  // dead: nothing reads it
    ev.id = i;
    ev.values[i] = ev.eval();
    if (n.op != Op::Input && n.op != Op::Scalar) counters::nodes_evaluated.add();
    for (int32_t j : n.inputs)
      if (last_use[j] == i) ev.values[j].reset();
  }

  std::vector<BufferPtr> results;
  results.reserve(trace.outputs.size());
  for (int32_t o : trace.outputs) {
    BufferPtr v = ev.values[o];
    if (std::find(trace.params.begin(), trace.params.end(), v) != trace.params.end()) {
      BufferPtr copy = make_buffer(v->dtype(), v->numel());
      if (v->nbytes()) std::memcpy(copy->data(), v->data(), v->nbytes());
      v = std::move(copy);
    }
    results.push_back(std::move(v));
  }
  return results;
}

// ---- Philox4x32-10 ----------------------------------------------------------------

void philox4x32_block(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]) {
  constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  uint32_t c0 = counter[0], c1 = counter[1], c2 = counter[2], c3 = counter[3];
  uint32_t k0 = key[0], k1 = key[1];
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = static_cast<uint64_t>(kMul0) * c0;
    const uint64_t p1 = static_cast<uint64_t>(kMul1) * c2;
    const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
    const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
  out[0] = c0, out[1] = c1, out[2] = c2, out[3] = c3;
}

void philox4x32(uint64_t seed, uint64_t counter, uint32_t out[4]) {
  const uint32_t ctr[4] = {static_cast<uint32_t>(counter), static_cast<uint32_t>(counter >> 32), 0, 0};
  const uint32_t key[2] = {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
  philox4x32_block(ctr, key, out);
}

}  // namespace lt
