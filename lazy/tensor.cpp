// lazy/tensor.cpp — lt::Tensor: handles, data access, in-place rebinding and
// the thin wrappers over ir/builder.h.
#include "lazy/tensor.h"

#include <cstring>
#include <sstream>

#include "autograd/autograd.h"
#include "ir/api_rows.h"
#include "ir/block_cache.h"
#include "ir/conv.h"
#include "ir/evaluator.h"
#include "lazy/runtime.h"
#include "lazy/tensor_impl.h"

namespace lt {

// ---- TensorImpl ----

static uint64_t next_storage_id() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

// A node keeps the first storage that holds it: a clone (a new slot on the
// same node) is then a copy whose later in-place changes say nothing about
// the original's saved value.
TensorImpl::TensorImpl(NodePtr n) : node(std::move(n)), storage_id(next_storage_id()) {
  if (node && lazy_state(*node).storage_id == 0) adopt(*node);
  runtime::register_live(this);
}
TensorImpl::~TensorImpl() {
  runtime::unregister_live(this);
  if (!undo.empty()) runtime::count_undo_holder(-1);
}

void TensorImpl::rebind(NodePtr n, uint64_t take_from, bool count_as_change) {
  if (leaf_requires_grad && !n->requires_grad) {
    // A leaf that requires grad keeps doing so after an update made under
    // no_grad: mark a fresh identity node, never a node others may share.
    n = ops::detach(n);
    n->requires_grad = true;
  }
  std::vector<Undo> dropped;
  runtime::with_registry_lock([&] {
    if (leaf_requires_grad && node && node->requires_grad) {
      std::erase_if(earlier_leaf_nodes, [](const std::weak_ptr<Node>& w) { return w.expired(); });
      earlier_leaf_nodes.push_back(node);
    }
    if (node && n->unchecked_index.load(std::memory_order_relaxed)) {
      if (undo.empty()) runtime::count_undo_holder(+1);
      undo.push_back({node, version, lazy_state(*node).replaced_at_version});
    } else if (!undo.empty()) {
      dropped = forget_writes();
    }
    ++rebinds;
    if (count_as_change) {
      ++version;
      mark_replaced();
    }
    const uint64_t owner = lazy_state(*n).storage_id;
    if (owner == 0 || owner == storage_id || (take_from != 0 && owner == take_from)) adopt(*n);
    node.swap(n);
  });
  // `n` now holds the old value, `dropped` older ones: released here, outside the lock.
}

NodePtr TensorImpl::undo_write() {
  Undo u = std::move(undo.back());
  undo.pop_back();
  if (undo.empty()) runtime::count_undo_holder(-1);
  lazy_state(*u.node).replaced_at_version = u.replaced_at_version;
  std::erase_if(earlier_leaf_nodes, [&](const std::weak_ptr<Node>& w) { return w.expired() || w.lock() == u.node; });
  version = u.version;
  ++rebinds;  // Python views re-derive from the restored value
  node.swap(u.node);
  return std::move(u.node);
}

std::vector<TensorImpl::Undo> TensorImpl::forget_writes() {
  if (!undo.empty()) runtime::count_undo_holder(-1);
  std::vector<Undo> out;
  out.swap(undo);
  return out;
}

void TensorImpl::set_node(NodePtr n, std::optional<bool> leaf) {
  runtime::with_registry_lock([&] {
    adopt(*n);
    node.swap(n);
    if (leaf) leaf_requires_grad = *leaf;
  });
}

NodePtr Scalar::node() const {
  if (dtype_ == DType::Float64) return ops::scalar(f_, DType::Float64, true);
  return ops::scalar_int(i_, dtype_, true);
}

namespace {
Tensor wrap(NodePtr n) {
  Tensor t(std::move(n));
  runtime::maybe_auto_sync();
  return t;
}
const NodePtr& N(const Tensor& t) {
  if (!t.defined()) fail(ErrorKind::Runtime, "use of an undefined tensor");
  return t.node();
}
NodePtr opt(const Tensor& t) { return t.defined() ? t.node() : nullptr; }
std::vector<NodePtr> nodes_of(const std::vector<Tensor>& xs) {
  std::vector<NodePtr> out;
  for (const Tensor& x : xs) out.push_back(N(x));
  return out;
}
std::vector<Tensor> tensors_of(const std::vector<NodePtr>& ns) {
  std::vector<Tensor> out;
  for (const NodePtr& n : ns) out.push_back(wrap(n));
  return out;
}
}  // namespace

// Every recorded op makes a slot: from the per-thread block cache (ir/block_cache.h).
Tensor::Tensor(NodePtr node)
    : impl_(std::allocate_shared<TensorImpl>(BlockCacheAllocator<TensorImpl>(), std::move(node))) {}

const NodePtr& Tensor::node() const {
  if (!impl_) fail(ErrorKind::Runtime, "use of an undefined tensor");
  return impl_->node;
}

int64_t Tensor::size(int64_t dim) const { return shape()[normalize_dim("size", dim, ndim())]; }

Tensor Tensor::from_data(const void* data, DType dtype, Shape shape) {
  for (int64_t d : shape)
    if (d < 0) fail(ErrorKind::Runtime, "from_data: negative dimension in shape ", shape_str(shape));
  BufferPtr b = make_buffer(dtype, shape_numel(shape));
  if (b->nbytes()) std::memcpy(b->data(), data, b->nbytes());
  return Tensor(make_input(std::move(b), std::move(shape)));
}

BufferPtr Tensor::buffer() const {
  const NodePtr& n = node();
  if (n->op == Op::Scalar) {  // a bare scalar has no buffer: materialise it
    BufferPtr b = make_buffer(n->dtype, 1);
    if (is_floating(n->dtype)) convert_elements_reference(&n->scalar.f, DType::Float64, 1, b->data(), n->dtype);
    else convert_elements_reference(&n->scalar.i, DType::Int64, 1, b->data(), n->dtype);
    return b;
  }
  return runtime::materialized_buffer(n);
}

void Tensor::copy_to(void* dst, size_t nbytes) const {
  BufferPtr b = buffer();
  if (nbytes != b->nbytes()) {
    fail(ErrorKind::Runtime, "copy_to: destination has ", nbytes, " bytes, tensor ", shape_str(shape()), " of ",
         dtype_name(dtype()), " has ", b->nbytes());
  }
  if (nbytes) std::memcpy(dst, b->data(), nbytes);
}

void convert_elements(const void* src, DType dtype, int64_t n, void* dst, DType dst_dtype) {
  convert_elements_reference(src, dtype, n, dst, dst_dtype);
}

std::string Tensor::to_string() const {
  std::vector<double> v = to_vector<double>();
  std::ostringstream os;
  os << "tensor(" << dtype_name(dtype()) << shape_str(shape()) << " [";
  for (size_t i = 0; i < v.size() && i < 64; ++i) os << (i ? ", " : "") << v[i];
  if (v.size() > 64) os << ", ...";
  os << "])";
  return os.str();
}

// ---- autograd ----

bool Tensor::requires_grad() const { return node()->requires_grad; }

Tensor& Tensor::requires_grad_(bool enabled) {
  const NodePtr& n = node();
  if (enabled && !is_floating(n->dtype)) {
    fail(ErrorKind::Runtime, "requires_grad_: only tensors of floating point dtype can require gradients, got ",
         dtype_name(n->dtype));
  }
  if (!enabled) {
    if (n->requires_grad && !is_leaf()) {
      fail(ErrorKind::Runtime, "requires_grad_: you can only change requires_grad flags of leaf variables");
    }
    impl_->set_node(n->requires_grad ? ops::detach(n) : n, false);
    return *this;
  }
  if (n->requires_grad) return *this;
  NodePtr d = ops::detach(n);
  d->requires_grad = true;
  impl_->set_node(std::move(d), true);
  return *this;
}

bool Tensor::is_leaf() const { return !node()->requires_grad || impl_->leaf_requires_grad; }

Tensor Tensor::grad() const { return impl_ && impl_->grad ? Tensor(impl_->grad) : Tensor(); }

void Tensor::set_grad(const Tensor& g) {
  if (g.defined() && g.shape() != shape()) {
    fail(ErrorKind::Runtime, "set_grad: assigned grad has shape ", shape_str(g.shape()), " but the tensor has shape ",
         shape_str(shape()));
  }
  impl_->grad = g.defined() ? g.impl() : nullptr;
}

uint64_t Tensor::version() const { return impl_->version; }

Tensor Tensor::detach() const { return Tensor(ops::detach(node())); }

// ---- in-place ----

static void check_inplace(const Tensor& t, std::string_view op) {
  if (t.impl()->leaf_requires_grad && grad_mode_enabled()) {
    fail(ErrorKind::Runtime, op, ": a leaf Variable that requires grad is being used in an in-place operation.");
  }
}

Tensor& Tensor::assign(const Tensor& value, bool take_value) {
  check_inplace(*this, "assign");
  NodePtr v = N(value);
  if (v->shape != shape()) v = ops::expand(v, shape());
  impl_->rebind(ops::cast(v, dtype()), take_value ? value.impl()->storage_id : 0);
  runtime::maybe_auto_sync();
  return *this;
}

static Tensor& inplace(Tensor& self, std::string_view op, NodePtr value) {
  check_inplace(self, op);
  if (value->shape != self.shape()) {
    fail(ErrorKind::Runtime, op, ": output with shape ", shape_str(self.shape()),
         " doesn't match the broadcast shape ", shape_str(value->shape));
  }
  if (value->dtype != self.dtype() && !is_floating(self.dtype()) && is_floating(value->dtype)) {
    fail(ErrorKind::Runtime, op, ": result type ", dtype_name(value->dtype), " can't be cast to the desired output type ",
         dtype_name(self.dtype()));
  }
  self.impl()->rebind(ops::cast(value, self.dtype()));
  runtime::maybe_auto_sync();
  return self;
}

Tensor& Tensor::add_(const Tensor& o, Scalar alpha) {
  NodePtr rhs = alpha.to_double() == 1.0 ? N(o) : ops::mul(N(o), alpha.node());
  return inplace(*this, "add_", ops::add(node(), rhs));
}
Tensor& Tensor::sub_(const Tensor& o, Scalar alpha) {
  NodePtr rhs = alpha.to_double() == 1.0 ? N(o) : ops::mul(N(o), alpha.node());
  return inplace(*this, "sub_", ops::sub(node(), rhs));
}
Tensor& Tensor::mul_(const Tensor& o) { return inplace(*this, "mul_", ops::mul(node(), N(o))); }
Tensor& Tensor::add_(Scalar o) { return inplace(*this, "add_", ops::add(node(), o.node())); }
Tensor& Tensor::sub_(Scalar o) { return inplace(*this, "sub_", ops::sub(node(), o.node())); }
Tensor& Tensor::mul_(Scalar o) { return inplace(*this, "mul_", ops::mul(node(), o.node())); }
Tensor& Tensor::zero_() { return fill_(0); }
Tensor& Tensor::fill_(Scalar v) {
  return inplace(*this, "fill_", ops::full_like_node(ops::cast(v.node(), dtype()), shape()));
}
Tensor& Tensor::copy_(const Tensor& src) {
  NodePtr s = N(src);
  if (s->shape != shape()) s = ops::expand(s, shape());
  check_inplace(*this, "copy_");
  impl_->rebind(ops::cast(s, dtype()));
  runtime::maybe_auto_sync();
  return *this;
}
Tensor& Tensor::masked_fill_(const Tensor& mask, Scalar value) {
  return inplace(*this, "masked_fill_", ops::masked_fill(node(), N(mask), value.node()));
}

// ---- methods ----
Tensor Tensor::to(DType d) const { return lt::cast(*this, d); }
Tensor Tensor::expand(absl::Span<const int64_t> s) const { return lt::expand(*this, s); }
Tensor Tensor::slice(int64_t d, std::optional<int64_t> s, std::optional<int64_t> e, int64_t st) const {
  return lt::slice(*this, d, s, e, st);
}
Tensor Tensor::select(int64_t d, int64_t i) const { return lt::select(*this, d, i); }
// PyTorch: a full max/min of an empty tensor is a RuntimeError (amax over an empty dim is an IndexError).
static void check_full_extreme(std::string_view op, const Tensor& t) {
  if (t.numel() == 0) {
    fail(ErrorKind::Runtime, op, ": expected a non-empty tensor, got an empty one of shape ", shape_str(t.shape()),
         " (give a reduction dim for empty input)");
  }
}
Tensor Tensor::max() const {
  check_full_extreme("max", *this);
  return lt::amax(*this);
}
Tensor Tensor::min() const {
  check_full_extreme("min", *this);
  return lt::amin(*this);
}
Tensor Tensor::exp() const { return lt::exp(*this); }
Tensor Tensor::log() const { return lt::log(*this); }
Tensor Tensor::neg() const { return lt::neg(*this); }
Tensor Tensor::abs() const { return lt::abs(*this); }
Tensor Tensor::sqrt() const { return lt::sqrt(*this); }
Tensor Tensor::relu() const { return lt::relu(*this); }
Tensor Tensor::sigmoid() const { return lt::sigmoid(*this); }
Tensor Tensor::tanh() const { return lt::tanh(*this); }
Tensor Tensor::clone() const { return Tensor(node()); }

// ---- creation ----
Tensor zeros(Shape s, DType d) { return wrap(ops::zeros(std::move(s), d)); }
Tensor ones(Shape s, DType d) { return wrap(ops::ones(std::move(s), d)); }
Tensor full(Shape s, Scalar v, std::optional<DType> d) {
  DType dt = d.value_or(v.dtype() == DType::Float64 ? kDefaultFloat : v.dtype());
  return wrap(ops::full_like_node(ops::cast(v.node(), dt), std::move(s)));
}
Tensor scalar_tensor(Scalar v, std::optional<DType> d) {
  DType dt = d.value_or(v.dtype() == DType::Float64 ? kDefaultFloat : v.dtype());
  // A 0-dim tensor, not a wrapped number: it ranks as a tensor in promotion.
  if (is_floating(dt)) return wrap(ops::scalar(v.to_double(), dt, /*wrapped=*/false));
  return wrap(ops::scalar_int(v.dtype() == DType::Float64 ? static_cast<int64_t>(v.to_double()) : v.to_int(), dt, false));
}
Tensor arange(Scalar end) { return arange(0, end); }
Tensor arange(Scalar start, Scalar end, Scalar step, std::optional<DType> d) {
  bool integral = start.dtype() != DType::Float64 && end.dtype() != DType::Float64 && step.dtype() != DType::Float64;
  return wrap(ops::arange(start.to_double(), end.to_double(), step.to_double(),
                          d ? d : (integral ? std::optional<DType>(DType::Int64) : std::optional<DType>(kDefaultFloat))));
}
Tensor linspace(double a, double b, int64_t n, DType d) { return wrap(ops::linspace(a, b, n, d)); }
Tensor eye(int64_t n, std::optional<int64_t> m, DType d) { return wrap(ops::eye(n, m, d)); }
Tensor rand(Shape s, int64_t seed, int64_t off, DType d) { return wrap(ops::rand(std::move(s), seed, off, d)); }
Tensor randn(Shape s, int64_t seed, int64_t off, DType d) { return wrap(ops::randn(std::move(s), seed, off, d)); }
Tensor randint(int64_t lo, int64_t hi, Shape s, int64_t seed, int64_t off, DType d) {
  return wrap(ops::randint(lo, hi, std::move(s), seed, off, d));
}

// ---- elementwise ----
Tensor cast(const Tensor& x, DType d) { return wrap(ops::cast(N(x), d)); }
#define LT_DEFINE_UNARY(name) \
  Tensor name(const Tensor& x) { return wrap(ops::name(N(x))); }
LT_DEFINE_UNARY(neg) LT_DEFINE_UNARY(abs) LT_DEFINE_UNARY(exp) LT_DEFINE_UNARY(log) LT_DEFINE_UNARY(log1p)
LT_DEFINE_UNARY(expm1) LT_DEFINE_UNARY(sqrt) LT_DEFINE_UNARY(rsqrt) LT_DEFINE_UNARY(sin) LT_DEFINE_UNARY(cos)
LT_DEFINE_UNARY(tanh) LT_DEFINE_UNARY(erf) LT_DEFINE_UNARY(sigmoid) LT_DEFINE_UNARY(relu) LT_DEFINE_UNARY(silu)
LT_DEFINE_UNARY(floor) LT_DEFINE_UNARY(ceil) LT_DEFINE_UNARY(round) LT_DEFINE_UNARY(sign)
LT_DEFINE_UNARY(reciprocal) LT_DEFINE_UNARY(logical_not) LT_DEFINE_UNARY(isnan) LT_DEFINE_UNARY(isfinite)
#undef LT_DEFINE_UNARY
Tensor gelu(const Tensor& x, bool t) { return wrap(ops::gelu(N(x), t)); }
Tensor softplus(const Tensor& x, double b, double th) { return wrap(ops::softplus(N(x), b, th)); }
Tensor detach(const Tensor& x) { return x.detach(); }

namespace {
// The Scalar node of a number operand of an arithmetic or comparison op with
// `other`, made directly in the dtype the op computes in. The builder would
// otherwise fold a cast of the number's own float64/int64 node into a second
// Scalar node: one more node (allocation, hash, free) per tensor-scalar op.
// Only where the promotion is plainly idempotent (other is a tensor or 0-dim,
// the number goes to a floating dtype) and the value is what the cast fold
// computes (ScalarValue::of of the number as a double); else the number's node.
NodePtr number_operand(const Scalar& s, const NodePtr& other) {
  bool wrapped_other = other->op == Op::Scalar && !other->attrs.empty() && other->attrs[0] == 1;
  if (wrapped_other) return s.node();
  PromotionOperand operands[2] = {{other->dtype, other->shape.empty() ? OperandRank::ZeroDim : OperandRank::Tensor},
                                  {s.dtype(), OperandRank::Scalar}};
  DType dt = result_type(operands, 2);
  if (dt == s.dtype() || !is_floating(dt)) return s.node();
  return ops::scalar(s.to_double(), dt, /*wrapped=*/true);
}
}  // namespace

#define LT_DEFINE_BINARY(name, operand)                                                          \
  Tensor name(const Tensor& a, const Tensor& b) { return wrap(ops::name(N(a), N(b))); }          \
  Tensor name(const Tensor& a, Scalar b) {                                                       \
    const NodePtr& x = N(a);                                                                     \
    return wrap(ops::name(x, operand(b, x)));                                                    \
  }                                                                                              \
  Tensor name(Scalar a, const Tensor& b) {                                                       \
    const NodePtr& y = N(b);                                                                     \
    return wrap(ops::name(operand(a, y), y));                                                    \
  }
#define LT_NUMBER_NODE(s, other) s.node()
LT_DEFINE_BINARY(add, number_operand) LT_DEFINE_BINARY(sub, number_operand) LT_DEFINE_BINARY(mul, number_operand)
LT_DEFINE_BINARY(div, number_operand)
Tensor pow(const Tensor& a, const Tensor& b) { return wrap(ops::pow(N(a), N(b))); }
Tensor pow(const Tensor& a, Scalar b) {
  const NodePtr& x = N(a);
  // As torch: an integer tensor to a negative integer number has no integer value (a
  // tensor exponent is computed elementwise: 2 ** -1 is 0 there).
  if (!is_floating(x->dtype) && !is_floating(b.dtype()) && b.to_int() < 0) {
    fail(ErrorKind::Runtime, "pow: Integers to negative integer powers are not allowed (base ", dtype_name(x->dtype),
         " ", shape_str(x->shape), ", exponent ", b.to_int(), "); use a floating base or exponent");
  }
  return wrap(ops::pow(x, number_operand(b, x)));
}
Tensor pow(Scalar a, const Tensor& b) {
  const NodePtr& y = N(b);
  return wrap(ops::pow(number_operand(a, y), y));
}
LT_DEFINE_BINARY(maximum, number_operand) LT_DEFINE_BINARY(minimum, number_operand)
LT_DEFINE_BINARY(eq, number_operand) LT_DEFINE_BINARY(ne, number_operand) LT_DEFINE_BINARY(lt, number_operand)
LT_DEFINE_BINARY(le, number_operand) LT_DEFINE_BINARY(gt, number_operand) LT_DEFINE_BINARY(ge, number_operand)
// Logical ops cast the number to bool: from its own dtype, as before.
LT_DEFINE_BINARY(logical_and, LT_NUMBER_NODE) LT_DEFINE_BINARY(logical_or, LT_NUMBER_NODE)
#undef LT_NUMBER_NODE
#undef LT_DEFINE_BINARY

Tensor clamp(const Tensor& x, const Tensor& lo, const Tensor& hi) { return wrap(ops::clamp(N(x), opt(lo), opt(hi))); }

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator+(const Tensor& a, Scalar b) { return add(a, b); }
Tensor operator-(const Tensor& a, Scalar b) { return sub(a, b); }
Tensor operator*(const Tensor& a, Scalar b) { return mul(a, b); }
Tensor operator/(const Tensor& a, Scalar b) { return div(a, b); }
Tensor operator+(Scalar a, const Tensor& b) { return add(a, b); }
Tensor operator-(Scalar a, const Tensor& b) { return sub(a, b); }
Tensor operator*(Scalar a, const Tensor& b) { return mul(a, b); }
Tensor operator/(Scalar a, const Tensor& b) { return div(a, b); }
Tensor operator-(const Tensor& a) { return neg(a); }
Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }
#define LT_DEFINE_CMP(sym, fn)                                                \
  Tensor operator sym(const Tensor& a, Scalar b) { return fn(a, b); }       \
  Tensor operator sym(Scalar a, const Tensor& b) { return fn(a, b); }
LT_DEFINE_CMP(==, eq) LT_DEFINE_CMP(!=, ne) LT_DEFINE_CMP(<, lt) LT_DEFINE_CMP(<=, le) LT_DEFINE_CMP(>, gt)
LT_DEFINE_CMP(>=, ge)
#undef LT_DEFINE_CMP
Tensor operator&&(const Tensor& a, const Tensor& b) { return logical_and(a, b); }
Tensor operator||(const Tensor& a, const Tensor& b) { return logical_or(a, b); }
Tensor operator!(const Tensor& a) { return logical_not(a); }

#define LT_API_UNARY(fn, op, cxx, py)                              \
  Tensor fn(const Tensor& x) { return wrap(ops::fn(N(x))); }     \
  Tensor operator cxx(const Tensor& x) { return fn(x); }
#define LT_API_BINARY(fn, op, cxx, py)                                                      \
  Tensor fn(const Tensor& a, const Tensor& b) { return wrap(ops::fn(N(a), N(b))); }        \
  Tensor fn(const Tensor& a, Scalar b) { return wrap(ops::fn(N(a), b.node())); }           \
  Tensor fn(Scalar a, const Tensor& b) { return wrap(ops::fn(a.node(), N(b))); }           \
  Tensor operator cxx(const Tensor& a, const Tensor& b) { return fn(a, b); }               \
  Tensor operator cxx(const Tensor& a, Scalar b) { return fn(a, b); }                      \
  Tensor operator cxx(Scalar a, const Tensor& b) { return fn(a, b); }
#include "ir/api.def"

// ---- the rows of ir/api_functions.def (lazy/api_cxx.def) ----
namespace {
// A C++ argument as its builder takes it: a tensor (or a list of them) as its
// node, a number as its Scalar node, an absent bound as nullptr; the rest as is.
const NodePtr& node_arg(const Tensor& t) { return N(t); }
std::vector<NodePtr> node_arg(const std::vector<Tensor>& ts) { return nodes_of(ts); }
NodePtr node_arg(const Scalar& s) { return s.node(); }
NodePtr node_arg(const std::optional<Scalar>& s) { return s ? s->node() : nullptr; }
template <class T>
const T& node_arg(const T& v) {
  return v;
}
template <class Builder, class... Args>
auto build(Builder builder, const Args&... args) {
  return builder(node_arg(args)...);
}
Tensor as_result(NodePtr n) { return wrap(std::move(n)); }
std::vector<Tensor> as_result(const std::vector<NodePtr>& ns) { return tensors_of(ns); }
}  // namespace

#define LT_CXX_DEFAULT(...)
#define LT_CXX_BUILDER(builder) [](const auto&... a) { return ops::builder(a...); }
#define LT_CXX_DEFINE_FUNCTION(name, result, builder, first, parameters, arguments) \
  result name(first x, LT_CXX_UNPACK parameters) {                                  \
    return as_result(build(LT_CXX_BUILDER(builder), x, LT_CXX_UNPACK arguments));   \
  }
#define LT_CXX_DEFINE_METHOD(name, result, builder, first, parameters, arguments)     \
  result Tensor::name(LT_CXX_UNPACK parameters) const {                               \
    return as_result(build(LT_CXX_BUILDER(builder), *this, LT_CXX_UNPACK arguments)); \
  }
#define LT_CXX_DEFINE_INPLACE(name, builder, parameters, arguments)                               \
  Tensor& Tensor::name(LT_CXX_UNPACK parameters) {                                                \
    return inplace(*this, #name, build(LT_CXX_BUILDER(builder), *this, LT_CXX_UNPACK arguments)); \
  }
// Each row's names against its row of ir/api_functions.def; ApiRow::row fails to
// compile for an id that is not a row.
#define LT_CXX_FUNCTION(row, forms, result, builder, first, parameters, arguments, ...)            \
  LT_CXX_IF_FUNCTION_##forms(                                                                      \
      LT_CXX_EACH_NAME(LT_CXX_DEFINE_FUNCTION, (result, builder, first, parameters, arguments),    \
                       row __VA_OPT__(, ) __VA_ARGS__)                                             \
      static_assert(functions_match(ApiRow::row, #row " " #__VA_ARGS__),                           \
                    "lazy/api_cxx.def: the functions of row " #row " are not its torch.* names");) \
  LT_CXX_IF_METHOD_##forms(                                                                        \
      LT_CXX_EACH_NAME(LT_CXX_DEFINE_METHOD, (result, builder, first, parameters, arguments),      \
                       row __VA_OPT__(, ) __VA_ARGS__)                                             \
      static_assert(methods_match(ApiRow::row, #row " " #__VA_ARGS__),                             \
                    "lazy/api_cxx.def: the methods of row " #row " are not Tensor methods or miss the row's own");)
#define LT_CXX_INPLACE(row, builder, parameters, arguments, ...)                                               \
  LT_CXX_EACH_NAME(LT_CXX_DEFINE_INPLACE, (builder, parameters, arguments), row##_ __VA_OPT__(, ) __VA_ARGS__) \
  static_assert(inplace_match(ApiRow::row, #row "_ " #__VA_ARGS__),                                            \
                "lazy/api_cxx.def: the in-place methods of row " #row " are not its in-place names");
#define LT_CXX_ALIAS(row, function, ...)                             \
  static_assert(aliases_match(ApiRow::row, #function, #__VA_ARGS__), \
                "lazy/api_cxx.def: the aliases of row " #row " are not its torch.* names");
#include "lazy/api_cxx.def"
#undef LT_CXX_DEFINE_FUNCTION
#undef LT_CXX_DEFINE_METHOD
#undef LT_CXX_DEFINE_INPLACE
#undef LT_CXX_BUILDER
#undef LT_CXX_DEFAULT

// ---- reductions outside the table ----
Tensor all(const Tensor& x, absl::Span<const int64_t> d, bool k) { return wrap(ops::all(N(x), d, k)); }
Tensor any(const Tensor& x, absl::Span<const int64_t> d, bool k) { return wrap(ops::any(N(x), d, k)); }

// ---- movement ----
Tensor expand(const Tensor& x, absl::Span<const int64_t> s) { return wrap(ops::expand(N(x), s)); }
Tensor slice(const Tensor& x, int64_t d, std::optional<int64_t> s, std::optional<int64_t> e, int64_t st) {
  return wrap(ops::slice(N(x), d, s, e, st));
}
Tensor narrow(const Tensor& x, int64_t d, int64_t s, int64_t l) { return wrap(ops::narrow(N(x), d, s, l)); }
Tensor select(const Tensor& x, int64_t d, int64_t i) { return wrap(ops::select(N(x), d, i)); }
Tensor pad(const Tensor& x, absl::Span<const int64_t> p, double v) { return wrap(ops::pad(N(x), p, v)); }
Tensor tril(const Tensor& x, int64_t k) { return wrap(ops::tril(N(x), k)); }
Tensor triu(const Tensor& x, int64_t k) { return wrap(ops::triu(N(x), k)); }

// ---- indexing ----
Tensor index_add(const Tensor& x, int64_t d, const Tensor& i, const Tensor& s, double a) {
  return wrap(ops::index_add(N(x), d, N(i), N(s), a));
}
Tensor masked_fill(const Tensor& x, const Tensor& m, Scalar v) { return wrap(ops::masked_fill(N(x), N(m), v.node())); }
Tensor masked_fill(const Tensor& x, const Tensor& m, const Tensor& v) {
  return wrap(ops::masked_fill(N(x), N(m), N(v)));
}

// ---- nn ----
Tensor linear(const Tensor& x, const Tensor& w, const Tensor& b) { return wrap(ops::linear(N(x), N(w), opt(b))); }
Tensor layer_norm(const Tensor& x, absl::Span<const int64_t> ns, const Tensor& w, const Tensor& b, double eps) {
  return wrap(ops::layer_norm(N(x), ns, opt(w), opt(b), eps));
}
Tensor cross_entropy(const Tensor& l, const Tensor& t, Reduction r, int64_t ig) {
  return wrap(ops::cross_entropy(N(l), N(t), r, ig));
}
Tensor class_target(const Tensor& t, int64_t n) { return wrap(ops::class_target(N(t), n)); }
Tensor nll_loss(const Tensor& l, const Tensor& t, Reduction r, int64_t ig) {
  return wrap(ops::nll_loss(N(l), N(t), r, ig));
}
Tensor mse_loss(const Tensor& a, const Tensor& b, Reduction r) { return wrap(ops::mse_loss(N(a), N(b), r)); }
Tensor one_hot(const Tensor& index, int64_t num_classes) {
  if (num_classes < 0) {
    if (index.dtype() != DType::Int64) {
      fail(ErrorKind::Runtime, "one_hot: is only applicable to index tensors of dtype int64");
    }
    num_classes = index.numel() == 0 ? 0 : amax(index).item<int64_t>() + 1;
  }
  return wrap(ops::one_hot(N(index), num_classes));
}
Tensor embedding(const Tensor& w, const Tensor& i) { return wrap(ops::embedding(N(w), N(i))); }

namespace {
// A per-spatial-dim argument: `nd` values, one value for all, or `fallback` when empty.
std::vector<int64_t> per_dim(const char* fn, const char* what, absl::Span<const int64_t> v, size_t nd,
                             int64_t fallback) {
  if (v.empty()) return std::vector<int64_t>(nd, fallback);
  if (v.size() == 1) return std::vector<int64_t>(nd, v[0]);
  if (v.size() != nd) fail(ErrorKind::Runtime, fn, ": expected ", what, " to have 1 or ", nd, " values, got ", v.size());
  return {v.begin(), v.end()};
}
size_t spatial_dims(const char* fn, const Tensor& x, const Tensor& w) {
  if (x.dim() < 3 || x.dim() > 5 || w.dim() != x.dim())
    fail(ErrorKind::Runtime, fn, ": expected a batched input [N, C, *spatial] with 1-3 spatial dims and a weight of "
         "the same rank, got input ", shape_str(x.shape()), " and weight ", shape_str(w.shape()));
  return x.dim() - 2;
}
Tensor add_channel_bias(const char* fn, const Tensor& y, const Tensor& bias) {
  if (!bias.defined()) return y;
  if (bias.dim() != 1 || bias.shape()[0] != y.shape()[1])
    fail(ErrorKind::Runtime, fn, ": expected bias of shape [", y.shape()[1], "], got ", shape_str(bias.shape()));
  Shape s(y.dim(), 1);
  s[1] = y.shape()[1];
  return wrap(ops::add(N(y), ops::reshape(N(bias), s)));
}
}  // namespace

Tensor conv(const Tensor& x, const Tensor& w, const Tensor& bias, absl::Span<const int64_t> stride,
            absl::Span<const int64_t> padding, absl::Span<const int64_t> dilation, int64_t groups,
            absl::Span<const int64_t> padding_after) {
  size_t nd = spatial_dims("conv", x, w);
  std::vector<int64_t> s = per_dim("conv", "stride", stride, nd, 1), lo = per_dim("conv", "padding", padding, nd, 0),
                       d = per_dim("conv", "dilation", dilation, nd, 1);
  std::vector<int64_t> hi = padding_after.empty() ? lo : per_dim("conv", "padding_after", padding_after, nd, 0);
  return add_channel_bias("conv", wrap(ops::conv(N(x), N(w), s, lo, hi, d, groups)), bias);
}

Tensor conv_transpose(const Tensor& x, const Tensor& w, const Tensor& bias, absl::Span<const int64_t> stride,
                      absl::Span<const int64_t> padding, absl::Span<const int64_t> output_padding, int64_t groups,
                      absl::Span<const int64_t> dilation) {
  const char* fn = "conv_transpose";
  size_t nd = spatial_dims(fn, x, w);
  std::vector<int64_t> s = per_dim(fn, "stride", stride, nd, 1), p = per_dim(fn, "padding", padding, nd, 0),
                       op = per_dim(fn, "output_padding", output_padding, nd, 0),
                       d = per_dim(fn, "dilation", dilation, nd, 1);
  if (groups <= 0 || x.shape()[1] != w.shape()[0] || w.shape()[0] % groups != 0)
    fail(ErrorKind::Runtime, fn, ": given groups=", groups, " and weight ", shape_str(w.shape()),
         ", expected input ", shape_str(x.shape()), " to have ", w.shape()[0], " channels, divisible by groups");
  std::vector<int64_t> size;
  for (size_t j = 0; j < nd; ++j) {
    if (s[j] <= 0 || d[j] <= 0 || p[j] < 0 || op[j] < 0 || (op[j] >= s[j] && op[j] >= d[j]))
      fail(ErrorKind::Runtime, fn, ": expected positive stride and dilation, non-negative padding, and "
           "output_padding smaller than stride or dilation");
    size.push_back((x.shape()[2 + j] - 1) * s[j] - 2 * p[j] + d[j] * (w.shape()[2 + j] - 1) + op[j] + 1);
    if (size.back() <= 0)
      fail(ErrorKind::Runtime, fn, ": input ", shape_str(x.shape()), " and weight ", shape_str(w.shape()),
           " give an output size ", size.back(), " <= 0 in spatial dim ", j);
  }
  Tensor y = wrap(ops::conv_input_grad(N(x), N(w), conv_attrs(groups, s, p, d), size));
  return add_channel_bias(fn, y, bias);
}

}  // namespace lt
