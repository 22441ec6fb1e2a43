// ir/dtype.h — element types and PyTorch's type-promotion rules.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace lt {

enum class DType : uint8_t { Bool, Int32, Int64, Float32, Float64 };

inline constexpr int kNumDTypes = 5;

size_t dtype_size(DType dtype);
std::string_view dtype_name(DType dtype);  // "bool", "i32", "i64", "f32", "f64"
bool parse_dtype(std::string_view name, DType* out);
inline bool is_floating(DType d) { return d == DType::Float32 || d == DType::Float64; }
inline bool is_integral(DType d) { return d == DType::Int32 || d == DType::Int64; }

/// Category used by PyTorch's promotion: bool < integral < floating.
enum class DTypeCategory : uint8_t { Bool, Integral, Floating };
DTypeCategory dtype_category(DType d);

/// How an operand takes part in promotion (PyTorch's "dimension category"):
/// a wrapped Python/C++ number ranks below a 0-dim tensor, which ranks below a
/// tensor with dims. A lower rank only changes the result when it is of a
/// higher category, and then contributes its category's default type.
enum class OperandRank : uint8_t { Scalar, ZeroDim, Tensor };

struct PromotionOperand {
  DType dtype;
  OperandRank rank;
};

/// torch.result_type for a list of operands.
DType result_type(const PromotionOperand* operands, size_t count);
/// Plain promotion of two tensor dtypes (torch.promote_types).
DType promote_types(DType a, DType b);

inline constexpr DType kDefaultFloat = DType::Float32;
inline constexpr DType kDefaultInt = DType::Int64;

}  // namespace lt
