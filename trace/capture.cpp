// trace/capture.cpp — canonical capture and the trace hash.
#include "trace/capture.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "ir/counters.h"
#include "ir/error.h"
#include "ir/strided_copy.h"

namespace lt {

int32_t Trace::num_params() const {
  int32_t n = 0;
  for (const TraceNode& tn : nodes)
    if (tn.op == Op::Input) n = std::max(n, tn.param + 1);
  return n;
}

namespace {

std::mutex& capture_mutex() {
  static std::mutex* m = new std::mutex();
  return *m;
}
uint64_t g_epoch = 0;  // guarded by capture_mutex()

// One node of the trace hash. Small fields share one header word (with an
// escape for counts that do not fit), so a typical node costs 3-4 hasher
// steps instead of 10. Every record starts with a non-zero header and the node
// list ends with a 0 word, so the encoding is prefix-free. Only inputs and
// scalars carry a param.
void hash_node(StableHasher& h, Op op, DType dtype, absl::Span<const int64_t> shape, absl::Span<const int64_t> attrs,
               absl::Span<const int32_t> inputs, int32_t param) {
  constexpr uint64_t kMax16 = 0xFFFF, kMax12 = 0xFFF;
  uint64_t ndim = std::min<uint64_t>(shape.size(), kMax16), nattrs = std::min<uint64_t>(attrs.size(), kMax12),
           ninputs = std::min<uint64_t>(inputs.size(), kMax12);
  h.add(0x80 | static_cast<uint64_t>(op) << 8 | static_cast<uint64_t>(dtype) << 16 | ndim << 24 | nattrs << 40 |
        ninputs << 52);
  if (ndim == kMax16) h.add(shape.size());
  if (nattrs == kMax12) h.add(attrs.size());
  if (ninputs == kMax12) h.add(inputs.size());
  for (int64_t d : shape) h.add(static_cast<uint64_t>(d));
  for (int64_t a : attrs) h.add(static_cast<uint64_t>(a));
  size_t i = 0;
  for (; i + 1 < inputs.size(); i += 2)
    h.add(static_cast<uint64_t>(static_cast<uint32_t>(inputs[i])) | static_cast<uint64_t>(static_cast<uint32_t>(inputs[i + 1])) << 32);
  if (i < inputs.size()) h.add(static_cast<uint64_t>(static_cast<uint32_t>(inputs[i])));
  if (op == Op::Input || op == Op::Scalar) h.add(static_cast<uint64_t>(static_cast<int64_t>(param)));
}

Hash128 finish_hash(StableHasher h, absl::Span<const int32_t> outputs) {
  h.add(0).add(outputs.size());
  for (int32_t o : outputs) h.add(static_cast<uint64_t>(o));
  return h.finish();
}

// The buffer a Slice of materialised data reads when its elements are one
// contiguous run of that data: right of the first dim it takes partly, every
// dim is taken whole; left of it, every dim has size 1. Null otherwise (and
// for an empty slice). The view's offset is not part of the trace.
// Whether every element a Slice names lies inside its input. A malformed
// slice (a hand-built node) is left in the trace, where the evaluator or the
// scheduler rejects it with an error instead of a read past the buffer.
bool slice_in_bounds(const Node& n, const Node& x) {
  if (n.shape.size() != x.shape.size() || n.attrs.size() != 2 * n.shape.size()) return false;
  for (size_t k = 0; k < n.shape.size(); ++k) {
    int64_t start = n.attrs[2 * k], step = n.attrs[2 * k + 1], out = n.shape[k];
    if (out == 0) continue;
    if (start < 0 || step <= 0 || start >= x.shape[k] || (out - 1) > (x.shape[k] - 1 - start) / step) return false;
  }
  return true;
}

BufferPtr contiguous_view(const Node& n) {
  const Node& x = *n.inputs[0];
  if (!x.is_materialized() || !slice_in_bounds(n, x)) return nullptr;
  int64_t numel = n.numel();
  if (numel == 0) return nullptr;
  int64_t offset = 0, stride = 1;
  bool whole = true;  // every dim right of this one is taken whole
  for (size_t k = n.shape.size(); k-- > 0;) {
    int64_t start = n.attrs[2 * k], step = n.attrs[2 * k + 1], in = x.shape[k], out = n.shape[k];
    if (!whole && out != 1) return nullptr;
    if (whole && out != in) {
      whole = false;
      if (out > 1 && step != 1) return nullptr;
    }
    offset += start * stride;
    stride *= in;
  }
  if (x.buffer->numel() != stride) return nullptr;
  return std::make_shared<Buffer>(x.buffer, offset, numel);
}

// Slices of materialised data up to this size that are not one contiguous
// run are copied into a fresh input at capture (see strided_copy).
constexpr size_t kCopySliceBytes = size_t{1} << 20;

// A Slice of materialised data that contiguous_view() cannot view, copied on
// the host into a buffer of its own, when it is at most kCopySliceBytes: the
// slice becomes a trace input whose start is not part of the trace, so a loop
// over `x[:, t]` (a time step, a column block) of loaded data is one trace for
// every t instead of one per t, as contiguous slices already were. The copy
// reads what a kernel would read at this sync, so the value is the same.
// Larger slices stay in the trace, where a kernel reads them in parallel.
BufferPtr strided_copy(const Node& n) {
  const Node& x = *n.inputs[0];
  if (!x.is_materialized() || !slice_in_bounds(n, x)) return nullptr;
  int64_t numel = n.numel();
  if (numel == 0) return nullptr;
  size_t elem = dtype_size(n.dtype);
  if (static_cast<size_t>(numel) * elem > kCopySliceBytes) return nullptr;
  // The slice's element strides in x: x's contiguous strides times the steps.
  Shape strides = contiguous_strides(x.shape);
  if (x.buffer->numel() != shape_numel(x.shape)) return nullptr;
  int64_t start = 0;
  for (size_t k = 0; k < strides.size(); ++k) {
    start += n.attrs[2 * k] * strides[k];
    strides[k] *= n.attrs[2 * k + 1];
  }
  BufferPtr out = make_buffer(n.dtype, numel);
  copy_strided(*x.buffer, start, strides, *out, 0, contiguous_strides(n.shape), n.shape);
  return out;
}

// A concat whose pieces are all materialised data, up to this size, is joined
// on the host at capture (see joined_pieces).
constexpr size_t kJoinConcatBytes = size_t{16} << 20;

// A Concat of materialised pieces (a corpus of one tensor per line, a batch
// assembled from samples) joined into one fresh input buffer: the trace then
// holds one input instead of n inputs and an n-way concat, so its hash does
// not depend on how many pieces there were, and no kernel is planned or
// compiled for it. It is a copy of what a kernel would read at this sync.
BufferPtr joined_pieces(const Node& n) {
  if (n.attrs.size() != 1 || n.inputs.empty()) return nullptr;
  int64_t axis = n.attrs[0];
  if (axis < 0 || axis >= static_cast<int64_t>(n.shape.size())) return nullptr;
  size_t elem = dtype_size(n.dtype);
  if (static_cast<size_t>(n.numel()) * elem > kJoinConcatBytes || n.numel() == 0) return nullptr;
  for (const NodePtr& x : n.inputs)
    if (!x->is_materialized() || x->dtype != n.dtype || x->shape.size() != n.shape.size() ||
        x->buffer->numel() != x->numel())
      return nullptr;
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= n.shape[i];
  for (size_t i = axis + 1; i < n.shape.size(); ++i) inner *= n.shape[i];
  size_t row = static_cast<size_t>(n.shape[axis] * inner) * elem;  // bytes of one output row
  BufferPtr out = make_buffer(n.dtype, n.numel());
  auto* dst = static_cast<char*>(out->data());
  size_t at = 0;
  for (const NodePtr& x : n.inputs) {
    size_t piece = static_cast<size_t>(x->shape[axis] * inner) * elem;
    const auto* src = static_cast<const char*>(x->buffer->data());
    for (int64_t o = 0; o < outer; ++o) std::memcpy(dst + o * row + at, src + o * piece, piece);
    at += piece;
  }
  return out;
}

}  // namespace

TraceCapture::TraceCapture(absl::Span<const NodePtr> roots) : lock_(capture_mutex()), epoch_(++g_epoch) {
  // Sized like the previous capture on this thread: a training loop captures
  // the same graph every step.
  thread_local size_t t_last_nodes = 0, t_last_inputs = 0;
  entries_.reserve(t_last_nodes);
  inputs_.reserve(t_last_inputs);
  struct Frame {
    Node* node;
    size_t next_input;
  };
  std::vector<Frame> stack;
  auto visit = [&](Node* n) -> bool {  // true when n already has an index
    if (trace_state(*n).epoch == epoch_) return true;
    if (n->is_materialized() || n->op == Op::Scalar) {
      trace_state(*n).index = emit_leaf(n);
      trace_state(*n).epoch = epoch_;
      return true;
    }
    // A concat of materialised pieces is joined on the host and realised
    // with that value (joined_pieces): it is then data like any input, for
    // this capture and the next. So a slice of it is a view of data
    // (generation's sliding window `idx[:, -T:]` over `idx = cat((idx,
    // next))`, whose trace then does not depend on idx's length), and the
    // next step's concat has a materialised piece to join.
    Node* joinable = n->op == Op::Concat ? n : n->op == Op::Slice ? n->inputs[0].get() : nullptr;
    if (joinable && joinable->op == Op::Concat && !joinable->is_materialized() &&
        trace_state(*joinable).epoch != epoch_)
      if (BufferPtr joined = joined_pieces(*joinable)) joinable->realize(std::move(joined));
    if (n->is_materialized()) {
      trace_state(*n).index = emit_leaf(n);
      trace_state(*n).epoch = epoch_;
      return true;
    }
    if (n->op == Op::Slice) {
      BufferPtr view = contiguous_view(*n);
      if (!view) view = strided_copy(*n);
      if (view) {
        trace_state(*n).index = emit_input(n, std::move(view));
        trace_state(*n).epoch = epoch_;
        return true;
      }
    }
    stack.push_back({n, 0});
    return false;
  };
  for (const NodePtr& root : roots) {
    if (!visit(root.get())) {
      while (!stack.empty()) {
        Frame& f = stack.back();
        Node* cur = f.node;
        if (f.next_input < cur->inputs.size()) {
          visit(cur->inputs[f.next_input++].get());
          continue;
        }
        stack.pop_back();
        trace_state(*cur).index = emit_node(cur);
        trace_state(*cur).epoch = epoch_;
      }
    }
    outputs_.push_back(trace_state(*root).index);
  }
  t_last_nodes = entries_.size();
  t_last_inputs = inputs_.size();
}

int32_t TraceCapture::emit_input(Node* n, BufferPtr buffer) {
  int32_t id = static_cast<int32_t>(entries_.size());
  auto [it, fresh] = by_buffer_.try_emplace(buffer.get(), id);
  if (!fresh) return it->second;
  int32_t param = static_cast<int32_t>(params_.size());
  params_.push_back(std::move(buffer));
  entries_.push_back({n, Op::Input, param, 0});
  hash_node(hash_, Op::Input, n->dtype, n->shape, {}, {}, param);
  return id;
}

int32_t TraceCapture::emit_leaf(Node* n) {
  if (n->is_materialized()) return emit_input(n, n->buffer);
  int32_t id = static_cast<int32_t>(entries_.size());
  // A Scalar node.
  int32_t slot = static_cast<int32_t>(scalars_.size());
  scalars_.push_back(n->scalar);
  entries_.push_back({n, Op::Scalar, slot, 0});
  hash_node(hash_, Op::Scalar, n->dtype, n->shape, n->attrs, {}, slot);
  return id;
}

int32_t TraceCapture::emit_node(Node* n) {
  int32_t first = static_cast<int32_t>(inputs_.size());
  for (const NodePtr& in : n->inputs) inputs_.push_back(trace_state(*in).index);
  hash_node(hash_, n->op, n->dtype, n->shape, n->attrs, absl::MakeConstSpan(inputs_).subspan(first), -1);
  entries_.push_back({n, n->op, -1, first});
  return static_cast<int32_t>(entries_.size() - 1);
}

int32_t TraceCapture::index_of(const Node* n) const {
  const TraceState& s = trace_state(*n);
  return s.epoch == epoch_ ? s.index : -1;
}

void TraceCapture::seal() {
  hash_value_ = finish_hash(hash_, outputs_);
  counters::traces_captured.add();
  lock_.unlock();
}

Trace TraceCapture::trace() const {
  Trace t;
  t.nodes.reserve(entries_.size());
  for (const Entry& e : entries_) {
    const Node& n = *e.node;
    TraceNode& tn = t.nodes.emplace_back(TraceNode{e.op, n.dtype, n.shape, {}, {}, e.param});
    if (e.op == Op::Input) continue;
    tn.attrs = n.attrs;
    if (e.op == Op::Scalar) continue;
    tn.inputs.assign(inputs_.begin() + e.first_input, inputs_.begin() + e.first_input + static_cast<int32_t>(n.inputs.size()));
  }
  t.outputs = outputs_;
  t.params = params_;
  t.scalars = scalars_;
  t.hash = hash_value_;
  return t;
}

CapturedTrace capture_trace(absl::Span<const NodePtr> roots) {
  TraceCapture capture(roots);
  capture.seal();
  return CapturedTrace{capture.trace()};
}

Hash128 hash_trace(const Trace& t) {
  StableHasher h;
  for (const TraceNode& n : t.nodes) hash_node(h, n.op, n.dtype, n.shape, n.attrs, n.inputs, n.param);
  return finish_hash(h, t.outputs);
}

}  // namespace lt
