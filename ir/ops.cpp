// ir/ops.cpp — the op table.
#include "ir/ops.h"

namespace lt {

static constexpr OpInfo kOpTable[] = {
#define LT_OP_INFO(name, text, kind, arity) {text, OpKind::kind, arity},
    LT_PRIMITIVE_OPS(LT_OP_INFO)
#undef LT_OP_INFO
};
static_assert(sizeof(kOpTable) / sizeof(kOpTable[0]) == static_cast<size_t>(Op::NumOps));

const OpInfo& op_info(Op op) { return kOpTable[static_cast<size_t>(op)]; }

bool parse_op(std::string_view name, Op* out) {
  for (size_t i = 0; i < static_cast<size_t>(Op::NumOps); ++i) {
    if (kOpTable[i].name == name) {
      *out = static_cast<Op>(i);
      return true;
    }
  }
  return false;
}

}  // namespace lt
