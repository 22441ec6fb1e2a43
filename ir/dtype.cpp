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

DTypeCategory dtype_category(DType d) {
  if (d == DType::Bool) return DTypeCategory::Bool;
  if (is_integral(d)) return DTypeCategory::Integral;
  return DTypeCategory::Floating;
}

DType promote_types(DType a, DType b) {
  // The five dtypes are ordered so that the larger enum value wins, which is
  // what PyTorch's promotion table gives for this subset.
  return static_cast<DType>(std::max(static_cast<int>(a), static_cast<int>(b)));
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
