// lab/compare.cpp — a backend's results against the reference evaluator (see compare.h).
#include "lab/compare.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ir/conv.h"
#include "ir/error.h"
#include "ir/evaluator.h"
#include "trace/capture.h"

namespace lt::lab {
namespace {

double element(const Buffer& b, int64_t i) {
  double v;
  convert_elements_reference(static_cast<const char*>(b.data()) + i * dtype_size(b.dtype()), b.dtype(), 1, &v,
                             DType::Float64);
  return v;
}

// `f32_upstream`: a float32 value feeds this output (a cast to float64 keeps its error).
// `allowance`: per element, an absolute difference allowed on top of the tolerance.
std::optional<std::string> compare_buffers(const Buffer& got, const Buffer& want, size_t output, bool f32_upstream,
                                           const std::vector<double>* allowance = nullptr) {
  if (got.dtype() != want.dtype() || got.numel() != want.numel()) {
    return cat("output ", output, ": got ", dtype_name(got.dtype()), " x", got.numel(), ", expected ",
               dtype_name(want.dtype()), " x", want.numel());
  }
  if (!is_floating(want.dtype())) {
    if (std::memcmp(got.data(), want.data(), want.nbytes()) == 0) return std::nullopt;
    for (int64_t i = 0; i < want.numel(); ++i) {
      if (element(got, i) != element(want, i)) {
        return cat("output ", output, " element ", i, ": got ", element(got, i), ", expected ", element(want, i));
      }
    }
    return std::nullopt;
  }
  // Floats: relative to the element and to the tensor's scale (cancellation).
  double scale = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    double w = element(want, i);
    if (std::isfinite(w)) scale = std::max(scale, std::fabs(w));
  }
  bool f32 = want.dtype() == DType::Float32 || f32_upstream;
  double rtol = f32 ? 2e-3 : 1e-9, atol = (f32 ? 1e-4 : 1e-11) * (1.0 + scale);
  double overflow = f32 ? 1e37 : 1e307;
  // float16 / bfloat16: a transcendental computed in float32 here and in double by the
  // reference may round to the neighbouring narrow value (ulp 2^-10 and 2^-7).
  if (want.dtype() == DType::Float16) rtol = 4e-3, atol = 1e-3 * (1.0 + scale), overflow = 6e4;
  if (want.dtype() == DType::BFloat16) rtol = 2.4e-2, atol = 8e-3 * (1.0 + scale), overflow = 3e38;
  for (int64_t i = 0; i < want.numel(); ++i) {
    double g = element(got, i), w = element(want, i);
    if (std::isnan(w) && std::isnan(g)) continue;
    if (std::isinf(w) || std::isinf(g)) {
      if (g == w) continue;
      // Near the overflow threshold a correct backend may round either way.
      double finite = std::isinf(w) ? g : w;
      if (std::isfinite(finite) && std::fabs(finite) > overflow && std::signbit(g) == std::signbit(w)) {
        continue;
      }
    }
    if (std::fabs(g - w) <= atol + rtol * std::fabs(w) + (allowance ? (*allowance)[i] : 0.0)) continue;
    return cat("output ", output, " element ", i, ": got ", g, ", expected ", w, " (scale ", scale, ")");
  }
  return std::nullopt;
}

}  // namespace

// A sum of K rounded terms (matmul, convolutions, reduce_sum, cumsum, scatter_add) may differ from the
// reference's double sum by up to about K eps sum|terms|, which cancellation
// can make far larger than the output's scale (16 x 3 @ 3 x 6 in float32:
// 2040 - 969 - 1071 = -1.8e-4 exactly, -7.2e-5 with FMAs, a 7e-4 bound). The
// allowance per element is 2 (K + 1) eps times the same op on the operands'
// magnitudes; empty for other ops.
static std::vector<double> accumulation_allowance(const Trace& trace, int32_t n, const std::vector<BufferPtr>& values) {
  const TraceNode& tn = trace.nodes[n];
  if (!is_floating(tn.dtype) || tn.inputs.empty()) return {};
  const TraceNode& in0 = trace.nodes[tn.inputs[0]];
  int64_t k = 0;
  if (tn.op == Op::MatMul && !in0.shape.empty()) k = in0.shape.back();
  else if (tn.op == Op::ReduceSum) k = shape_numel(in0.shape) / std::max<int64_t>(1, shape_numel(tn.shape));
  else if (tn.op == Op::CumSum && !tn.attrs.empty()) k = in0.shape[tn.attrs[0]];
  else if (tn.op == Op::ScatterAdd && tn.inputs.size() == 3) k = shape_numel(trace.nodes[tn.inputs[1]].shape) + 1;
  else if (is_conv_op(tn.op) && tn.inputs.size() == 2) {  // the implicit GEMM's inner size (ir/conv.h)
    ConvGeometry g = conv_geometry(tn.op, tn.attrs, in0.shape, trace.nodes[tn.inputs[1]].shape, tn.shape);
    k = tn.op == Op::Conv            ? g.cg() * g.kernel_numel()
        : tn.op == Op::ConvInputGrad ? g.og() * g.kernel_numel()
                                     : g.N * g.out_numel();
  }
  if (k <= 1) return {};
  std::vector<BufferPtr> mags(trace.nodes.size());
  std::vector<bool> cut(trace.nodes.size(), false);
  for (int32_t in : tn.inputs) {
    const TraceNode& it = trace.nodes[in];
    if (it.op == Op::Scalar) continue;
    const BufferPtr& v = it.op == Op::Input ? trace.params[it.param] : values[in];
    if (!v) return {};
    cut[in] = true;
    if (!is_floating(v->dtype())) {  // an index: as it is
      mags[in] = v;
      continue;
    }
    BufferPtr m = make_buffer(v->dtype(), v->numel());
    std::vector<double> abs_values(static_cast<size_t>(v->numel()));
    for (int64_t i = 0; i < v->numel(); ++i) abs_values[i] = std::fabs(element(*v, i));
    convert_elements_reference(abs_values.data(), DType::Float64, v->numel(), m->data(), v->dtype());
    mags[in] = m;
  }
  BufferPtr mag = evaluate_reference(sub_trace(trace, n, &mags, &cut))[0];
  double eps = tn.dtype == DType::Float64 ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24);  // narrow floats sum in f32
  std::vector<double> out(static_cast<size_t>(mag->numel()));
  for (int64_t i = 0; i < mag->numel(); ++i) out[i] = 2.0 * static_cast<double>(k + 1) * eps * element(*mag, i);
  return out;
}

// A mismatch that rounding explains. Run with every computed node as an
// output, each node's backend value must be what the reference computes from
// the backend's values of that node's operands (to the tolerance above), and
// each output must match the run under test. Then every op is right on its
// operands, and the reference and the backend differ only by in-tolerance
// differences that an ill-conditioned op amplified: a division by an exact
// zero whose numerator cancels to 0 in one and to 1e-16 in the other (NaN
// against inf), a comparison of two nearly equal values. A sum of terms that
// cancel is right on its operands within accumulation_allowance. Every other
// mismatch (a wrong op, a fused kernel that differs from the unfused one, an
// error) stays a mismatch.
static bool explained_by_rounding(const Trace& trace, Backend& backend, const std::string& policy,
                                  const std::vector<BufferPtr>& got, bool f32_upstream) {
  std::vector<int32_t> computed;
  for (size_t i = 0; i < trace.nodes.size(); ++i) {
    if (trace.nodes[i].op != Op::Input && trace.nodes[i].op != Op::Scalar) computed.push_back(static_cast<int32_t>(i));
  }
  std::vector<BufferPtr> values(trace.nodes.size());
  try {
    // Captured anew (its own hash): the same trace with more outputs.
    std::vector<NodePtr> nodes = rebuild_nodes(trace), roots;
    for (int32_t n : computed) roots.push_back(nodes[n]);
    RunOptions options;
    options.fusion = policy;
    std::vector<BufferPtr> out = backend.run(capture_trace(roots).trace, options);
    if (out.size() != computed.size()) return false;
    for (size_t k = 0; k < computed.size(); ++k) values[computed[k]] = out[k];
    for (int32_t n : computed) {
      std::vector<bool> cut(trace.nodes.size(), false);
      for (int32_t in : trace.nodes[n].inputs) cut[in] = values[in] != nullptr;
      std::vector<BufferPtr> want = evaluate_reference(sub_trace(trace, n, &values, &cut));
      if (!compare_buffers(*values[n], *want[0], 0, f32_upstream)) continue;
      std::vector<double> allowance = accumulation_allowance(trace, n, values);
      if (allowance.empty() || compare_buffers(*values[n], *want[0], 0, f32_upstream, &allowance)) return false;
    }
  } catch (const Error&) {
    return false;
  }
  for (size_t i = 0; i < trace.outputs.size(); ++i) {
    const BufferPtr& v = values[trace.outputs[i]];
    if (v && compare_buffers(*got[i], *v, i, f32_upstream)) return false;
  }
  return true;
}


std::optional<std::string> compare(const Trace& trace, Backend& backend, const std::string& policy) {
  std::vector<BufferPtr> want, got;
  std::string want_error, got_error;
  try {
    want = evaluate_reference(trace);
  } catch (const Error& e) {
    want_error = e.what();
  }
  try {
    RunOptions options;
    options.fusion = policy;
    got = backend.run(trace, options);
  } catch (const Error& e) {
    got_error = e.what();
  }
  if (!want_error.empty() || !got_error.empty()) {
    if (!want_error.empty() && !got_error.empty()) return std::nullopt;
    return cat("reference ", want_error.empty() ? "succeeded" : "raised: " + want_error, "; backend ",
               got_error.empty() ? "succeeded" : "raised: " + got_error);
  }
  bool f32_upstream = false;
  for (const TraceNode& n : trace.nodes) f32_upstream |= n.dtype == DType::Float32 || is_low_precision_float(n.dtype);
  for (size_t i = 0; i < want.size(); ++i) {
    if (auto m = compare_buffers(*got[i], *want[i], i, f32_upstream)) {
      if (explained_by_rounding(trace, backend, policy, got, f32_upstream)) return std::nullopt;
      return m;
    }
  }
  return std::nullopt;
}

// The trace's nodes as a graph again, with the `cut` ones replaced by inputs
// holding `cut_values`.
std::vector<NodePtr> rebuild_nodes(const Trace& trace, const std::vector<BufferPtr>* cut_values,
                                          const std::vector<bool>* cut) {
  std::vector<NodePtr> nodes(trace.nodes.size());
  for (size_t i = 0; i < trace.nodes.size(); ++i) {
    const TraceNode& tn = trace.nodes[i];
    if (cut && (*cut)[i]) {
      nodes[i] = make_input((*cut_values)[i], tn.shape);
      continue;
    }
    if (tn.op == Op::Input) {
      nodes[i] = make_input(trace.params[tn.param], tn.shape);
    } else if (tn.op == Op::Scalar) {
      nodes[i] = make_scalar(trace.scalars[tn.param], tn.dtype, !tn.attrs.empty() && tn.attrs[0]);
    } else {
      NodeList ins;
      for (int32_t in : tn.inputs) ins.push_back(nodes[in]);
      nodes[i] = make_node(tn.op, tn.dtype, tn.shape, tn.attrs, std::move(ins));
    }
  }
  return nodes;
}

// The sub-trace computing `root` (indices of `trace`), params shared;
// captured anew, so capture canonicalises the sub-DAG.
Trace sub_trace(const Trace& trace, int32_t root, const std::vector<BufferPtr>* cut_values,
                       const std::vector<bool>* cut) {
  return capture_trace({rebuild_nodes(trace, cut_values, cut)[root]}).trace;
}


}  // namespace lt::lab
