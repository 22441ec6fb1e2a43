// ir/ops.cpp — the op table, built from the rows of ir/ops.def.
#include "ir/ops.h"

namespace lt {
namespace {

// Names used by the `saves(...)` column of ir/ops.def.
constexpr uint8_t in0 = SavedValues::kIn0, in1 = SavedValues::kIn1, in2 = SavedValues::kIn2, out = SavedValues::kOut;
constexpr SavedValues saves(uint8_t w0 = 0, uint8_t w1 = 0, uint8_t w2 = 0) { return SavedValues{{w0, w1, w2}}; }

constexpr OpInfo kOpTable[] = {
#define LT_OP_INFO(name, text, kind, arity, rule, cost, saved, transcendental, interpreted) \
  {text, OpKind::kind, arity, DTypeRule::rule, CostClass::cost, saved, transcendental != 0, interpreted != 0},
    LT_PRIMITIVE_OPS(LT_OP_INFO)
#undef LT_OP_INFO
};
static_assert(sizeof(kOpTable) / sizeof(kOpTable[0]) == kNumOps);

}  // namespace

const OpInfo& op_info(Op op) { return kOpTable[static_cast<size_t>(op)]; }

bool parse_op(std::string_view name, Op* out) {
  for (size_t i = 0; i < kNumOps; ++i) {
    if (kOpTable[i].name == name) {
      *out = static_cast<Op>(i);
      return true;
    }
  }
  return false;
}

}  // namespace lt
