// ir/dtype.h — element types and PyTorch's type-promotion rules.
//
// The enum order is part of every trace and kernel hash, so new dtypes are
// appended. Float16 and BFloat16 are storage types: arithmetic on them runs in
// float32 and each primitive rounds its result to the narrow type (ir/lowp.h,
// docs/dtypes.md). Int8, UInt8 and Int16 wrap as two's complement.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace lt {

enum class DType : uint8_t { Bool, Int32, Int64, Float32, Float64, Float16, BFloat16, Int8, UInt8, Int16 };

inline constexpr int kNumDTypes = 10;

size_t dtype_size(DType dtype);
/// "bool", "i32", "i64", "f32", "f64", "f16", "bf16", "i8", "u8", "i16"
std::string_view dtype_name(DType dtype);
bool parse_dtype(std::string_view name, DType* out);
inline bool is_floating(DType d) {
  return d == DType::Float32 || d == DType::Float64 || d == DType::Float16 || d == DType::BFloat16;
}
inline bool is_integral(DType d) {
  return d == DType::Int32 || d == DType::Int64 || d == DType::Int8 || d == DType::UInt8 || d == DType::Int16;
}
/// Float16 and BFloat16: stored narrow, computed in float32, rounded per primitive.
inline bool is_low_precision_float(DType d) { return d == DType::Float16 || d == DType::BFloat16; }
/// Int8, UInt8 and Int16: stored narrow; backends may compute in a wider int and wrap.
inline bool is_narrow_int(DType d) { return d == DType::Int8 || d == DType::UInt8 || d == DType::Int16; }
/// Integer bits of an integral dtype (0 for others).
int integer_bits(DType d);
inline bool is_unsigned(DType d) { return d == DType::UInt8; }

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
