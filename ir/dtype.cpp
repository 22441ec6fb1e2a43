// ir/dtype.cpp — dtype names and promotion.
#include "ir/dtype.h"

#include <algorithm>

namespace lt {

size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::Bool: return 1;
    case DType::Int32: return 4;
    case DType::Int64: return 8;
    case DType::Float32: return 4;
    case DType::Float64: return 8;
    case DType::Float16: return 2;
    case DType::BFloat16: return 2;
    case DType::Int8: return 1;
    case DType::UInt8: return 1;
    case DType::Int16: return 2;
  }
  return 0;
}

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::Bool: return "bool";
    case DType::Int32: return "i32";
    case DType::Int64: return "i64";
    case DType::Float32: return "f32";
    case DType::Float64: return "f64";
    case DType::Float16: return "f16";
    case DType::BFloat16: return "bf16";
    case DType::Int8: return "i8";
    case DType::UInt8: return "u8";
    case DType::Int16: return "i16";
  }
  return "?";
}

bool parse_dtype(std::string_view name, DType* out) {
  for (int i = 0; i < kNumDTypes; ++i) {
    if (dtype_name(static_cast<DType>(i)) == name) {
      *out = static_cast<DType>(i);
      return true;
    }
  }
  return false;
}

int integer_bits(DType d) {
  switch (d) {
    case DType::Int8:
    case DType::UInt8: return 8;
    case DType::Int16: return 16;
    case DType::Int32: return 32;
    case DType::Int64: return 64;
    default: return 0;
  }
}

DTypeCategory dtype_category(DType d) {
  if (d == DType::Bool) return DTypeCategory::Bool;
  if (is_integral(d)) return DTypeCategory::Integral;
  return DTypeCategory::Floating;
}

// Rank of a floating dtype by range and precision: f16 and bf16 are not
// ordered against each other (either loses what the other keeps), so their
// join is f32.
static int float_rank(DType d) {
  switch (d) {
    case DType::Float16:
    case DType::BFloat16: return 0;
    case DType::Float32: return 1;
    default: return 2;  // Float64
  }
}

DType promote_types(DType a, DType b) {
  // torch.promote_types (c10/core/ScalarType.h's table) as rules.
  if (a == b) return a;
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  bool fa = is_floating(a), fb = is_floating(b);
  if (fa && fb) {
    int ra = float_rank(a), rb = float_rank(b);
    if (ra == rb) return DType::Float32;  // f16 with bf16
    return ra > rb ? a : b;
  }
  if (fa) return a;  // a float with an integer keeps the float, however narrow
  if (fb) return b;
  // Both integers: the wider signed type; u8 with i8 needs i16 to hold both ranges.
  if (a == DType::UInt8 || b == DType::UInt8) {
    DType other = a == DType::UInt8 ? b : a;
    return integer_bits(other) <= 8 ? DType::Int16 : other;
  }
  return integer_bits(a) >= integer_bits(b) ? a : b;
}

static DType default_for(DTypeCategory c) {
  switch (c) {
    case DTypeCategory::Bool: return DType::Bool;
    case DTypeCategory::Integral: return kDefaultInt;
    case DTypeCategory::Floating: return kDefaultFloat;
  }
  return kDefaultFloat;
}

DType result_type(const PromotionOperand* operands, size_t count) {
  // Promote separately within each rank, then let a lower rank win only when
  // its category is higher (PyTorch's ResultTypeState).
  bool have[3] = {false, false, false};
  DType best[3] = {DType::Bool, DType::Bool, DType::Bool};
  for (size_t i = 0; i < count; ++i) {
    int r = static_cast<int>(operands[i].rank);
    best[r] = have[r] ? promote_types(best[r], operands[i].dtype) : operands[i].dtype;
    have[r] = true;
  }
  DType result = DType::Bool;
  bool any = false;
  for (int r = 2; r >= 0; --r) {
    if (!have[r]) continue;
    if (!any) {
      result = r == static_cast<int>(OperandRank::Scalar) ? default_for(dtype_category(best[r])) : best[r];
      // A wrapped scalar alone keeps its exact type for float64/int: PyTorch
      // gives the default dtype of its category.
      any = true;
      continue;
    }
    if (dtype_category(best[r]) > dtype_category(result)) {
      result = r == static_cast<int>(OperandRank::ZeroDim) ? best[r] : default_for(dtype_category(best[r]));
    }
  }
  return result;
}

}  // namespace lt
