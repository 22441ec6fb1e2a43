// ir/builder.h — every tensor operation, as node constructors.
//
// This is where op semantics live: shape and dtype rules, broadcasting, type
// promotion, errors (raised here, at record time, naming the op, the shapes
// and what was expected), and the decompositions of composite ops into
// primitives. lazy/ wraps these in lt::Tensor; autograd/ writes derivative
// rules with them. Nothing here computes: each call returns a new node.
//
// Scalars: a number from user code is a Scalar node made with
// scalar(..., wrapped=true); it ranks below tensors in type promotion, as a
// Python number does in PyTorch.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "absl/types/span.h"
#include "ir/error.h"
#include "ir/node.h"

namespace lt::ops {

// ---- sources ----------------------------------------------------------------
NodePtr from_buffer(BufferPtr buffer, Shape shape);
/// A runtime scalar. Integer dtypes keep the exact int64 value.
NodePtr scalar(double value, DType dtype, bool wrapped = true);
NodePtr scalar_int(int64_t value, DType dtype, bool wrapped = true);
NodePtr full(Shape shape, double value, DType dtype);
NodePtr full_like_node(const NodePtr& scalar_node, Shape shape);  ///< expands a scalar node
NodePtr zeros(Shape shape, DType dtype);
NodePtr ones(Shape shape, DType dtype);
/// torch.arange: length ceil((end - start) / step); int64 when all three are
/// integral and dtype is not given, else float32.
NodePtr arange(double start, double end, double step, std::optional<DType> dtype = std::nullopt);
NodePtr linspace(double start, double end, int64_t steps, DType dtype = DType::Float32);
NodePtr eye(int64_t n, std::optional<int64_t> m = std::nullopt, DType dtype = DType::Float32);
/// i64 index along `axis` of a tensor of `shape`.
NodePtr iota(Shape shape, int64_t axis);
/// Counter-based random numbers: philox(seed, offset + linear index).
NodePtr rand(Shape shape, int64_t seed, int64_t offset, DType dtype = DType::Float32);
NodePtr randn(Shape shape, int64_t seed, int64_t offset, DType dtype = DType::Float32);
NodePtr randint(int64_t low, int64_t high, Shape shape, int64_t seed, int64_t offset, DType dtype = DType::Int64);

// ---- elementwise --------------------------------------------------------------
NodePtr cast(const NodePtr& x, DType dtype);
NodePtr neg(const NodePtr& x);
NodePtr abs(const NodePtr& x);
NodePtr exp(const NodePtr& x);   ///< integer inputs promote to float32 (as in PyTorch)
NodePtr log(const NodePtr& x);
NodePtr log1p(const NodePtr& x);
NodePtr expm1(const NodePtr& x);
NodePtr sqrt(const NodePtr& x);
NodePtr rsqrt(const NodePtr& x);
NodePtr sin(const NodePtr& x);
NodePtr cos(const NodePtr& x);
NodePtr tanh(const NodePtr& x);
NodePtr erf(const NodePtr& x);
NodePtr sigmoid(const NodePtr& x);
NodePtr relu(const NodePtr& x);
NodePtr gelu(const NodePtr& x, bool tanh_approximation = false);
NodePtr silu(const NodePtr& x);
NodePtr softplus(const NodePtr& x, double beta = 1.0, double threshold = 20.0);
NodePtr floor(const NodePtr& x);
NodePtr ceil(const NodePtr& x);
NodePtr round(const NodePtr& x);  ///< half to even
NodePtr sign(const NodePtr& x);
NodePtr reciprocal(const NodePtr& x);
NodePtr logical_not(const NodePtr& x);
NodePtr isnan(const NodePtr& x);
NodePtr isfinite(const NodePtr& x);
NodePtr detach(const NodePtr& x);  ///< the same value; gradients stop here

NodePtr add(const NodePtr& a, const NodePtr& b);
NodePtr sub(const NodePtr& a, const NodePtr& b);
NodePtr mul(const NodePtr& a, const NodePtr& b);
NodePtr div(const NodePtr& a, const NodePtr& b);  ///< true division: integers promote to float32
NodePtr pow(const NodePtr& a, const NodePtr& b);
NodePtr maximum(const NodePtr& a, const NodePtr& b);
NodePtr minimum(const NodePtr& a, const NodePtr& b);
NodePtr eq(const NodePtr& a, const NodePtr& b);
NodePtr ne(const NodePtr& a, const NodePtr& b);
NodePtr lt(const NodePtr& a, const NodePtr& b);
NodePtr le(const NodePtr& a, const NodePtr& b);
NodePtr gt(const NodePtr& a, const NodePtr& b);
NodePtr ge(const NodePtr& a, const NodePtr& b);
NodePtr logical_and(const NodePtr& a, const NodePtr& b);
NodePtr logical_or(const NodePtr& a, const NodePtr& b);
NodePtr where(const NodePtr& cond, const NodePtr& a, const NodePtr& b);
/// Either bound may be null (but not both).
NodePtr clamp(const NodePtr& x, const NodePtr& min, const NodePtr& max);
/// Generic dispatch used by autograd and the text tools: builds `op` on
/// operands that already obey the primitive conventions.
NodePtr primitive(Op op, DType dtype, Shape shape, Attrs attrs, NodeList inputs);
/// Builds elementwise `op` on operands of any shapes and dtypes: broadcasts,
/// promotes (PyTorch rules) and applies the op's dtype rule (ir/ops.def),
/// raising for dtypes the rule rejects. `b` is null for a unary op.
NodePtr apply_elementwise(Op op, const NodePtr& a, const NodePtr& b = nullptr);
// Public functions that are one primitive each (ir/api.def).
#define LT_API_UNARY(fn, op, cxx, py) NodePtr fn(const NodePtr& x);
#define LT_API_BINARY(fn, op, cxx, py) NodePtr fn(const NodePtr& a, const NodePtr& b);
#include "ir/api.def"

// ---- reductions ---------------------------------------------------------------
// `dims` empty means all dims. Sum of bool/int gives int64 (PyTorch).
NodePtr sum(const NodePtr& x, absl::Span<const int64_t> dims = {}, bool keepdim = false,
            std::optional<DType> dtype = std::nullopt);
NodePtr prod(const NodePtr& x, absl::Span<const int64_t> dims = {}, bool keepdim = false,
             std::optional<DType> dtype = std::nullopt);
NodePtr mean(const NodePtr& x, absl::Span<const int64_t> dims = {}, bool keepdim = false);
NodePtr amax(const NodePtr& x, absl::Span<const int64_t> dims = {}, bool keepdim = false);
NodePtr amin(const NodePtr& x, absl::Span<const int64_t> dims = {}, bool keepdim = false);
/// No dim: over the flattened tensor.
NodePtr argmax(const NodePtr& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
NodePtr argmin(const NodePtr& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
/// correction 1 = unbiased, 0 = biased.
NodePtr var(const NodePtr& x, absl::Span<const int64_t> dims = {}, int64_t correction = 1, bool keepdim = false);
NodePtr std(const NodePtr& x, absl::Span<const int64_t> dims = {}, int64_t correction = 1, bool keepdim = false);
NodePtr logsumexp(const NodePtr& x, absl::Span<const int64_t> dims, bool keepdim = false);
NodePtr all(const NodePtr& x, absl::Span<const int64_t> dims = {}, bool keepdim = false);
NodePtr any(const NodePtr& x, absl::Span<const int64_t> dims = {}, bool keepdim = false);
NodePtr cumsum(const NodePtr& x, int64_t dim, std::optional<DType> dtype = std::nullopt);

// ---- movement (views: no copy is ever recorded) --------------------------------
NodePtr reshape(const NodePtr& x, absl::Span<const int64_t> shape);  ///< one -1 allowed
NodePtr flatten(const NodePtr& x, int64_t start_dim = 0, int64_t end_dim = -1);
NodePtr permute(const NodePtr& x, absl::Span<const int64_t> perm);
NodePtr transpose(const NodePtr& x, int64_t dim0, int64_t dim1);
NodePtr expand(const NodePtr& x, absl::Span<const int64_t> shape);  ///< -1 keeps a size; new leading dims allowed
NodePtr broadcast_to(const NodePtr& x, absl::Span<const int64_t> shape);
NodePtr squeeze(const NodePtr& x, std::optional<int64_t> dim = std::nullopt);
NodePtr unsqueeze(const NodePtr& x, int64_t dim);
/// Python slicing semantics: start/stop clamp to the size; step must be > 0.
NodePtr slice(const NodePtr& x, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> stop,
              int64_t step = 1);
/// Strict: start and length must lie inside the dim.
NodePtr narrow(const NodePtr& x, int64_t dim, int64_t start, int64_t length);
/// x[index] along dim (removes the dim); index out of range raises IndexError.
NodePtr select(const NodePtr& x, int64_t dim, int64_t index);
NodePtr flip(const NodePtr& x, absl::Span<const int64_t> dims);
/// torch.nn.functional.pad order: (last_lo, last_hi, second_last_lo, ...); constant mode.
/// Negative pads crop.
NodePtr pad(const NodePtr& x, absl::Span<const int64_t> pads, double value = 0.0);
NodePtr cat(absl::Span<const NodePtr> xs, int64_t dim = 0);
NodePtr stack(absl::Span<const NodePtr> xs, int64_t dim = 0);
std::vector<NodePtr> split(const NodePtr& x, int64_t split_size, int64_t dim = 0);
std::vector<NodePtr> split_sizes(const NodePtr& x, absl::Span<const int64_t> sizes, int64_t dim = 0);
std::vector<NodePtr> chunk(const NodePtr& x, int64_t chunks, int64_t dim = 0);
NodePtr tril(const NodePtr& x, int64_t diagonal = 0);
NodePtr triu(const NodePtr& x, int64_t diagonal = 0);

// ---- indexing -------------------------------------------------------------------
/// An index whose values are known (a materialised node) is checked at the op,
/// so a bad one raises before any tensor changes: `kind`, "<op>: index v is out
/// of bounds for dimension `dim` with size `size`" (no "<op>: " when op is
/// empty). With `wrap`, -size <= v < 0 counts from the end. A pending index is
/// left to the kernels' check at sync. The builders below call it.
void check_known_index(std::string_view op, ErrorKind kind, const NodePtr& index, int64_t dim, int64_t size,
                       bool wrap = false);
NodePtr index_select(const NodePtr& x, int64_t dim, const NodePtr& index);
NodePtr gather(const NodePtr& x, int64_t dim, const NodePtr& index);
NodePtr scatter_add(const NodePtr& x, int64_t dim, const NodePtr& index, const NodePtr& src);
NodePtr index_add(const NodePtr& x, int64_t dim, const NodePtr& index, const NodePtr& src, double alpha = 1.0);
NodePtr masked_fill(const NodePtr& x, const NodePtr& mask, const NodePtr& value);

// ---- linear algebra and nn ---------------------------------------------------------
/// torch.matmul: 1-D, 2-D and batched with broadcasting.
NodePtr matmul(const NodePtr& a, const NodePtr& b);
/// Convolution of x [N, C, *in] with w [O, C/groups, *kernel] (nd = x.ndim - 2
/// spatial dims; no bias): per spatial dim the stride, the padding before and
/// after, the dilation. Float dtypes; float16/bfloat16 compute in float32.
NodePtr conv(const NodePtr& x, const NodePtr& w, absl::Span<const int64_t> stride, absl::Span<const int64_t> pad_lo,
             absl::Span<const int64_t> pad_hi, absl::Span<const int64_t> dilation, int64_t groups);
/// The input gradient of a convolution, i.e. the transposed convolution of dy
/// [N, O, *out] with w [O, C/groups, *kernel]: [N, C, *in_size]. `attrs` as
/// ir/conv.h (conv_attrs). conv_transpose is this op.
NodePtr conv_input_grad(const NodePtr& dy, const NodePtr& w, const Attrs& attrs, absl::Span<const int64_t> in_size);
/// The weight gradient of a convolution of x with a weight of spatial size
/// `kernel_size`, given the output gradient dy: [O, C/groups, *kernel_size].
NodePtr conv_weight_grad(const NodePtr& x, const NodePtr& dy, const Attrs& attrs,
                         absl::Span<const int64_t> kernel_size);
/// x @ weight^T + bias (bias may be null).
NodePtr linear(const NodePtr& x, const NodePtr& weight, const NodePtr& bias);
NodePtr softmax(const NodePtr& x, int64_t dim);
NodePtr log_softmax(const NodePtr& x, int64_t dim);
/// weight and bias may be null.
NodePtr layer_norm(const NodePtr& x, absl::Span<const int64_t> normalized_shape, const NodePtr& weight,
                   const NodePtr& bias, double eps = 1e-5);
enum class Reduction { None, Mean, Sum };
/// Logits [N, C] or [C] (or [N, C, d...]); class indices i64 [N] (or [N, d...]).
NodePtr cross_entropy(const NodePtr& logits, const NodePtr& target, Reduction reduction = Reduction::Mean,
                      int64_t ignore_index = -100);
NodePtr nll_loss(const NodePtr& log_probs, const NodePtr& target, Reduction reduction = Reduction::Mean,
                 int64_t ignore_index = -100);
/// The int64 class indices `target`, checked against [0, num_classes) wherever they are read: a value or
/// gradient computed from the result raises PyTorch's IndexError "Target N is out of bounds.".
NodePtr class_target(const NodePtr& target, int64_t num_classes);
NodePtr mse_loss(const NodePtr& input, const NodePtr& target, Reduction reduction = Reduction::Mean);
NodePtr one_hot(const NodePtr& index, int64_t num_classes = -1);
NodePtr embedding(const NodePtr& weight, const NodePtr& index);

}  // namespace lt::ops
