// lazy/tensor.h — lt::Tensor, the public C++ API.
//
// A Tensor is a handle to a mutable slot (TensorImpl) that points at its
// current value: a pending IR node, or a materialised one. Every op records a
// node and returns at once; values are computed at a sync point: lt::sync(),
// or reading data (item, to_vector). In-place ops rebind the slot to a new
// node, so a parameter keeps its identity while its value moves on.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "ir/builder.h"
#include "ir/error.h"
#include "ir/lowp.h"
#include "ir/node.h"

// The C++ API table lazy/api_cxx.def expands through these (lazy/tensor.cpp too).
#define LT_CXX_UNPACK(...) __VA_ARGS__
#define LT_CXX_APPLY(m, arguments) m arguments
/// m(name, fields...) for each of up to three names.
#define LT_CXX_EACH_NAME(m, fields, name, ...) \
  LT_CXX_APPLY(m, (name, LT_CXX_UNPACK fields)) __VA_OPT__(LT_CXX_EACH_NAME2(m, fields, __VA_ARGS__))
#define LT_CXX_EACH_NAME2(m, fields, name, ...) \
  LT_CXX_APPLY(m, (name, LT_CXX_UNPACK fields)) __VA_OPT__(LT_CXX_EACH_NAME3(m, fields, __VA_ARGS__))
#define LT_CXX_EACH_NAME3(m, fields, name) LT_CXX_APPLY(m, (name, LT_CXX_UNPACK fields))
/// LT_CXX_IF_FUNCTION_<forms>(x): x when the row's forms include the function; _METHOD: the method.
#define LT_CXX_IF_FUNCTION_FUNCTION(...) __VA_ARGS__
#define LT_CXX_IF_FUNCTION_METHOD(...)
#define LT_CXX_IF_FUNCTION_BOTH(...) __VA_ARGS__
#define LT_CXX_IF_METHOD_FUNCTION(...)
#define LT_CXX_IF_METHOD_METHOD(...) __VA_ARGS__
#define LT_CXX_IF_METHOD_BOTH(...) __VA_ARGS__

namespace lt {

struct TensorImpl;

/// A number in user code: ranks below tensors in type promotion, like a
/// Python number in PyTorch.
class Scalar {
 public:
  Scalar(double v) : f_(v), i_(0), dtype_(DType::Float64) {}
  Scalar(float v) : Scalar(static_cast<double>(v)) {}
  Scalar(int v) : f_(v), i_(v), dtype_(DType::Int64) {}
  Scalar(long v) : f_(static_cast<double>(v)), i_(v), dtype_(DType::Int64) {}
  Scalar(long long v) : f_(static_cast<double>(v)), i_(v), dtype_(DType::Int64) {}
  Scalar(bool v) : f_(v), i_(v), dtype_(DType::Bool) {}
  DType dtype() const { return dtype_; }
  double to_double() const { return f_; }
  int64_t to_int() const { return i_; }
  /// A wrapped Scalar node.
  NodePtr node() const;

 private:
  double f_;
  int64_t i_;
  DType dtype_;
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(NodePtr node);
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  // ---- creation from host data ----
  static Tensor from_data(const void* data, DType dtype, Shape shape);  ///< copies
  template <typename T>
  static Tensor from_vector(const std::vector<T>& values, Shape shape);
  template <typename T>
  static Tensor from_vector(const std::vector<T>& values) {
    return from_vector(values, Shape{static_cast<int64_t>(values.size())});
  }

  bool defined() const { return impl_ != nullptr; }
  const NodePtr& node() const;  ///< the current value
  const Shape& shape() const { return node()->shape; }
  DType dtype() const { return node()->dtype; }
  int64_t ndim() const { return node()->ndim(); }
  int64_t dim() const { return ndim(); }
  int64_t numel() const { return node()->numel(); }
  int64_t size(int64_t dim) const;
  bool is_materialized() const { return node()->is_materialized(); }
  const std::shared_ptr<TensorImpl>& impl() const { return impl_; }
  /// Two handles to the same slot.
  bool is_same(const Tensor& other) const { return impl_ == other.impl_; }
  std::string to_string() const;  ///< syncs; values like PyTorch's repr

  // ---- data (each syncs this tensor) ----
  template <typename T>
  T item() const;
  template <typename T>
  std::vector<T> to_vector() const;  ///< row-major, converted to T
  void copy_to(void* dst, size_t nbytes) const;  ///< raw row-major bytes of dtype()
  /// The materialised buffer (syncs). Shares storage.
  BufferPtr buffer() const;

  // ---- autograd ----
  bool requires_grad() const;
  Tensor& requires_grad_(bool enabled = true);
  bool is_leaf() const;
  Tensor grad() const;  ///< undefined when none
  void set_grad(const Tensor& g);
  /// Seeds with ones for a scalar; a non-scalar needs `gradient`. With
  /// `create_graph`, the gradients (and .grad) can be differentiated again.
  void backward(const Tensor& gradient = Tensor(), bool retain_graph = false, bool create_graph = false) const;
  Tensor detach() const;
  /// Version counter of this tensor's storage, bumped by every in-place change.
  /// backward() raises when a value saved for backward was recorded at an
  /// older version (docs/autograd.md).
  uint64_t version() const;

  // ---- in-place: rebind this slot to a new value ----
  /// value must have this shape; cast to this dtype. `value` keeps its own
  /// value (a copy, for autograd's in-place check: changing this tensor later
  /// is no change of `value`). Pass `take_value` when value is a temporary
  /// whose value becomes this tensor's (the Python in-place ops).
  Tensor& assign(const Tensor& value, bool take_value = false);
  Tensor& add_(const Tensor& other, Scalar alpha = 1);
  Tensor& sub_(const Tensor& other, Scalar alpha = 1);
  Tensor& mul_(const Tensor& other);
  Tensor& add_(Scalar other);
  Tensor& sub_(Scalar other);
  Tensor& mul_(Scalar other);
  Tensor& zero_();
  Tensor& fill_(Scalar value);
  Tensor& copy_(const Tensor& src);
  Tensor& masked_fill_(const Tensor& mask, Scalar value);

  // ---- methods (same as the free functions below) ----
  // From lazy/api_cxx.def: for each METHOD or BOTH row, `result row(parameters) const`
  // and its aliases (sum, mean, transpose and swapdims, swapaxes, permute, reshape,
  // view, squeeze, unsqueeze, flatten, matmul); for each LT_CXX_INPLACE row,
  // `Tensor& row_(parameters)` and its aliases (clamp_, clip_, div_ and divide_, true_divide_).
#define LT_CXX_DEFAULT(...) = __VA_ARGS__
#define LT_CXX_DECLARE_METHOD(name, result, builder, first, parameters, arguments) \
  result name(LT_CXX_UNPACK parameters) const;
#define LT_CXX_FUNCTION(row, forms, result, builder, first, parameters, arguments, ...)                             \
  LT_CXX_IF_METHOD_##forms(LT_CXX_EACH_NAME(LT_CXX_DECLARE_METHOD, (result, builder, first, parameters, arguments), \
                                            row __VA_OPT__(, ) __VA_ARGS__))
#define LT_CXX_DECLARE_INPLACE(name, builder, parameters, arguments) Tensor& name(LT_CXX_UNPACK parameters);
#define LT_CXX_INPLACE(row, builder, parameters, arguments, ...) \
  LT_CXX_EACH_NAME(LT_CXX_DECLARE_INPLACE, (builder, parameters, arguments), row##_ __VA_OPT__(, ) __VA_ARGS__)
#include "lazy/api_cxx.def"
#undef LT_CXX_DECLARE_METHOD
#undef LT_CXX_DECLARE_INPLACE
#undef LT_CXX_DEFAULT
  Tensor to(DType dtype) const;
  Tensor t() const { return transpose(0, ndim() < 2 ? 0 : 1); }
  Tensor expand(absl::Span<const int64_t> shape) const;
  Tensor slice(int64_t dim, std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step = 1) const;
  Tensor select(int64_t dim, int64_t index) const;
  /// The full reductions; an empty tensor raises.
  Tensor max() const;
  Tensor min() const;
  Tensor exp() const;
  Tensor log() const;
  Tensor neg() const;
  Tensor abs() const;
  Tensor sqrt() const;
  Tensor relu() const;
  Tensor sigmoid() const;
  Tensor tanh() const;
  Tensor clone() const;
  Tensor contiguous() const { return *this; }

 private:
  std::shared_ptr<TensorImpl> impl_;
};

// ---- sync ----
/// Computes the given tensors (and any intermediate they share with other
/// live pending tensors) in one trace.
void sync(absl::Span<const Tensor> tensors);
inline void sync(const Tensor& t) { sync(absl::MakeConstSpan(&t, 1)); }
/// Computes every live pending tensor. A tensor whose computation fails (an
/// index out of range found in a kernel) does not fail the others: they are
/// computed, the first such error is raised after, and the failed tensor is
/// left out of later syncs of everything (it raises again when used). The
/// automatic sync (set_sync_threshold) does the same without raising.
void sync();
/// The sync an optimizer's step() ends with: every live pending tensor in one
/// trace, `own` (its parameters, state and gradients) as the first outputs in
/// the order given and the others after them as sync() orders them. The
/// trace therefore does not depend on the order in which the tensors were
/// created (the state in step 1, after that step's gradients; the gradients
/// of later steps after the state), so step 1 and step 2 can be one trace.
/// Only an error of `own` raises; another tensor whose computation fails is
/// marked and raises when it is used, as after the automatic sync.
void sync_step(absl::Span<const Tensor> own);
/// Pending node count past which an op syncs all live tensors (LT_SYNC_THRESHOLD, default 50000).
void set_sync_threshold(int64_t nodes);
int64_t sync_threshold();
/// Number of live tensors whose value is pending.
int64_t pending_tensor_count();

// ---- creation ----
Tensor zeros(Shape shape, DType dtype = DType::Float32);
Tensor ones(Shape shape, DType dtype = DType::Float32);
Tensor full(Shape shape, Scalar value, std::optional<DType> dtype = std::nullopt);
Tensor arange(Scalar end);
Tensor arange(Scalar start, Scalar end, Scalar step = 1, std::optional<DType> dtype = std::nullopt);
Tensor linspace(double start, double end, int64_t steps, DType dtype = DType::Float32);
Tensor eye(int64_t n, std::optional<int64_t> m = std::nullopt, DType dtype = DType::Float32);
/// Random numbers from an explicit seed; `offset` selects a disjoint stream
/// position (a generator advances it by numel per call).
Tensor rand(Shape shape, int64_t seed, int64_t offset = 0, DType dtype = DType::Float32);
Tensor randn(Shape shape, int64_t seed, int64_t offset = 0, DType dtype = DType::Float32);
Tensor randint(int64_t low, int64_t high, Shape shape, int64_t seed, int64_t offset = 0, DType dtype = DType::Int64);
Tensor scalar_tensor(Scalar value, std::optional<DType> dtype = std::nullopt);  ///< 0-dim

// ---- elementwise ----
Tensor cast(const Tensor& x, DType dtype);
#define LT_DECLARE_UNARY(name) Tensor name(const Tensor& x);
LT_DECLARE_UNARY(neg) LT_DECLARE_UNARY(abs) LT_DECLARE_UNARY(exp) LT_DECLARE_UNARY(log) LT_DECLARE_UNARY(log1p)
LT_DECLARE_UNARY(expm1) LT_DECLARE_UNARY(sqrt) LT_DECLARE_UNARY(rsqrt) LT_DECLARE_UNARY(sin) LT_DECLARE_UNARY(cos)
LT_DECLARE_UNARY(tanh) LT_DECLARE_UNARY(erf) LT_DECLARE_UNARY(sigmoid) LT_DECLARE_UNARY(relu) LT_DECLARE_UNARY(silu)
LT_DECLARE_UNARY(floor) LT_DECLARE_UNARY(ceil) LT_DECLARE_UNARY(round) LT_DECLARE_UNARY(sign)
LT_DECLARE_UNARY(reciprocal) LT_DECLARE_UNARY(logical_not) LT_DECLARE_UNARY(isnan) LT_DECLARE_UNARY(isfinite)
#undef LT_DECLARE_UNARY
Tensor gelu(const Tensor& x, bool tanh_approximation = false);
Tensor softplus(const Tensor& x, double beta = 1.0, double threshold = 20.0);

#define LT_DECLARE_BINARY(name)                   \
  Tensor name(const Tensor& a, const Tensor& b);  \
  Tensor name(const Tensor& a, Scalar b);         \
  Tensor name(Scalar a, const Tensor& b);
LT_DECLARE_BINARY(add) LT_DECLARE_BINARY(sub) LT_DECLARE_BINARY(mul) LT_DECLARE_BINARY(div) LT_DECLARE_BINARY(pow)
LT_DECLARE_BINARY(maximum) LT_DECLARE_BINARY(minimum) LT_DECLARE_BINARY(eq) LT_DECLARE_BINARY(ne)
LT_DECLARE_BINARY(lt) LT_DECLARE_BINARY(le) LT_DECLARE_BINARY(gt) LT_DECLARE_BINARY(ge)
LT_DECLARE_BINARY(logical_and) LT_DECLARE_BINARY(logical_or)
#undef LT_DECLARE_BINARY
Tensor clamp(const Tensor& x, const Tensor& min, const Tensor& max);  ///< either may be undefined
Tensor detach(const Tensor& x);

Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, Scalar b);
Tensor operator-(const Tensor& a, Scalar b);
Tensor operator*(const Tensor& a, Scalar b);
Tensor operator/(const Tensor& a, Scalar b);
Tensor operator+(Scalar a, const Tensor& b);
Tensor operator-(Scalar a, const Tensor& b);
Tensor operator*(Scalar a, const Tensor& b);
Tensor operator/(Scalar a, const Tensor& b);
Tensor operator-(const Tensor& a);
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, const Tensor& b);
#define LT_DECLARE_CMP(sym)                      \
  Tensor operator sym(const Tensor& a, Scalar b); \
  Tensor operator sym(Scalar a, const Tensor& b);
LT_DECLARE_CMP(==) LT_DECLARE_CMP(!=) LT_DECLARE_CMP(<) LT_DECLARE_CMP(<=) LT_DECLARE_CMP(>) LT_DECLARE_CMP(>=)
#undef LT_DECLARE_CMP
Tensor operator&&(const Tensor& a, const Tensor& b);
Tensor operator||(const Tensor& a, const Tensor& b);
Tensor operator!(const Tensor& a);
// Functions that are one primitive each, with their operators (ir/api.def).
#define LT_API_UNARY(fn, op, cxx, py) \
  Tensor fn(const Tensor& x);         \
  Tensor operator cxx(const Tensor& x);
#define LT_API_BINARY(fn, op, cxx, py)                    \
  Tensor fn(const Tensor& a, const Tensor& b);            \
  Tensor fn(const Tensor& a, Scalar b);                   \
  Tensor fn(Scalar a, const Tensor& b);                   \
  Tensor operator cxx(const Tensor& a, const Tensor& b);  \
  Tensor operator cxx(const Tensor& a, Scalar b);         \
  Tensor operator cxx(Scalar a, const Tensor& b);
#include "ir/api.def"

// ---- the rows of ir/api_functions.def (lazy/api_cxx.def) ----
// For each FUNCTION or BOTH row: `result row(first x, parameters)` and the same
// under each alias. The reductions sum, mean, prod, amax, amin, argmax, argmin,
// var, std, logsumexp, cumsum, softmax, log_softmax; the indexing gather,
// scatter_add, index_select, where; cat (concat), stack, split, chunk, transpose
// (swapdims), swapaxes, permute, reshape, squeeze, unsqueeze, flatten, flip; clamp
// and clip with optional numbers, and matmul. The hand-written div also answers
// to divide and true_divide.
#define LT_CXX_DEFAULT(...) = __VA_ARGS__
#define LT_CXX_DECLARE_FUNCTION(name, result, builder, first, parameters, arguments) \
  result name(first x, LT_CXX_UNPACK parameters);
#define LT_CXX_FUNCTION(row, forms, result, builder, first, parameters, arguments, ...) \
  LT_CXX_IF_FUNCTION_##forms(LT_CXX_EACH_NAME(LT_CXX_DECLARE_FUNCTION, (result, builder, first, parameters, arguments), \
                                              row __VA_OPT__(, ) __VA_ARGS__))
#define LT_CXX_FORWARD(name, function)                               \
  template <class... A>                                              \
  auto name(A&&... a) -> decltype(function(std::forward<A>(a)...)) { \
    return function(std::forward<A>(a)...);                          \
  }
#define LT_CXX_ALIAS(row, function, ...) LT_CXX_EACH_NAME(LT_CXX_FORWARD, (function), __VA_ARGS__)
#include "lazy/api_cxx.def"
#undef LT_CXX_DECLARE_FUNCTION
#undef LT_CXX_FORWARD
#undef LT_CXX_DEFAULT

// ---- reductions ----
Tensor all(const Tensor& x, absl::Span<const int64_t> dims = {}, bool keepdim = false);
Tensor any(const Tensor& x, absl::Span<const int64_t> dims = {}, bool keepdim = false);

// ---- movement (views) ----
Tensor expand(const Tensor& x, absl::Span<const int64_t> shape);
Tensor slice(const Tensor& x, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step = 1);
Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length);
Tensor select(const Tensor& x, int64_t dim, int64_t index);
Tensor pad(const Tensor& x, absl::Span<const int64_t> pads, double value = 0.0);
Tensor tril(const Tensor& x, int64_t diagonal = 0);
Tensor triu(const Tensor& x, int64_t diagonal = 0);

// ---- indexing ----
Tensor index_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src, double alpha = 1.0);
Tensor masked_fill(const Tensor& x, const Tensor& mask, Scalar value);
Tensor masked_fill(const Tensor& x, const Tensor& mask, const Tensor& value);

// ---- linear algebra, nn ----
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor());
Tensor layer_norm(const Tensor& x, absl::Span<const int64_t> normalized_shape, const Tensor& weight = Tensor(),
                  const Tensor& bias = Tensor(), double eps = 1e-5);
using ops::Reduction;
Tensor cross_entropy(const Tensor& logits, const Tensor& target, Reduction reduction = Reduction::Mean,
                     int64_t ignore_index = -100);
Tensor class_target(const Tensor& target, int64_t num_classes);
Tensor nll_loss(const Tensor& log_probs, const Tensor& target, Reduction reduction = Reduction::Mean,
                int64_t ignore_index = -100);
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
/// num_classes = -1 infers max(index) + 1 (this syncs the index).
Tensor one_hot(const Tensor& index, int64_t num_classes = -1);
Tensor embedding(const Tensor& weight, const Tensor& index);
/// torch.nn.functional.conv1d/2d/3d on batched input: x [N, C, *spatial] (1-3
/// spatial dims), weight [O, C/groups, *kernel], bias [O] or empty. Per spatial
/// dim (or one value for all; empty: the default) the stride (1), the padding
/// before (0) and after (`padding_after`; empty: as before) and the dilation
/// (1). One implicit-GEMM kernel with the bias (and what follows elementwise)
/// fused (docs/convolution.md).
Tensor conv(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor(), absl::Span<const int64_t> stride = {},
            absl::Span<const int64_t> padding = {}, absl::Span<const int64_t> dilation = {}, int64_t groups = 1,
            absl::Span<const int64_t> padding_after = {});
/// torch.nn.functional.conv_transpose1d/2d/3d on batched input: x [N, C_in,
/// *spatial], weight [C_in, C_out/groups, *kernel] (the input gradient of a
/// convolution with that weight).
Tensor conv_transpose(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor(),
                      absl::Span<const int64_t> stride = {}, absl::Span<const int64_t> padding = {},
                      absl::Span<const int64_t> output_padding = {}, int64_t groups = 1,
                      absl::Span<const int64_t> dilation = {});

// ---- grad mode ----
class NoGradGuard {
 public:
  NoGradGuard() : guard_(false) {}

 private:
  GradModeGuard guard_;
};

/// Gradients of `outputs` w.r.t. `inputs` without touching .grad.
std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs = {}, bool retain_graph = false,
                         bool allow_unused = false, bool create_graph = false);

// ---- template definitions ----
template <typename T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, bool>) return DType::Bool;
  else if constexpr (std::is_same_v<T, int32_t>) return DType::Int32;
  else if constexpr (std::is_same_v<T, int64_t>) return DType::Int64;
  else if constexpr (std::is_same_v<T, float>) return DType::Float32;
  else if constexpr (std::is_same_v<T, double>) return DType::Float64;
  else if constexpr (std::is_same_v<T, Half>) return DType::Float16;
  else if constexpr (std::is_same_v<T, BFloat16>) return DType::BFloat16;
  else if constexpr (std::is_same_v<T, int8_t>) return DType::Int8;
  else if constexpr (std::is_same_v<T, uint8_t>) return DType::UInt8;
  else if constexpr (std::is_same_v<T, int16_t>) return DType::Int16;
  else static_assert(sizeof(T) == 0, "unsupported element type");
}

template <typename T>
Tensor Tensor::from_vector(const std::vector<T>& values, Shape shape) {
  if constexpr (std::is_same_v<T, bool>) {
    std::vector<uint8_t> bytes(values.begin(), values.end());
    if (static_cast<int64_t>(bytes.size()) != shape_numel(shape)) {
      fail(ErrorKind::Runtime, "from_vector: ", bytes.size(), " values cannot fill shape ", shape_str(shape));
    }
    return from_data(bytes.data(), DType::Bool, std::move(shape));
  } else {
    if (static_cast<int64_t>(values.size()) != shape_numel(shape)) {
      fail(ErrorKind::Runtime, "from_vector: ", values.size(), " values cannot fill shape ", shape_str(shape));
    }
    return from_data(values.data(), dtype_of<T>(), std::move(shape));
  }
}

/// Converts n elements of `src` (dtype) to T.
void convert_elements(const void* src, DType dtype, int64_t n, void* dst, DType dst_dtype);

template <typename T>
std::vector<T> Tensor::to_vector() const {
  BufferPtr b = buffer();
  if constexpr (std::is_same_v<T, bool>) {
    std::vector<uint8_t> tmp(b->numel());
    convert_elements(b->data(), b->dtype(), b->numel(), tmp.data(), DType::Bool);
    return std::vector<bool>(tmp.begin(), tmp.end());
  } else {
    std::vector<T> out(b->numel());
    convert_elements(b->data(), b->dtype(), b->numel(), out.data(), dtype_of<T>());
    return out;
  }
}

template <typename T>
T Tensor::item() const {
  if (numel() != 1) {
    fail(ErrorKind::Runtime, "item: a Tensor with ", numel(), " elements (shape ", shape_str(shape()),
         ") cannot be converted to a scalar");
  }
  return to_vector<T>()[0];
}

}  // namespace lt
