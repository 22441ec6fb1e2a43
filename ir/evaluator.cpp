// ir/evaluator.cpp — placeholder until the reference evaluator lands.
#include "ir/evaluator.h"

#include "ir/error.h"

namespace lt {
std::vector<BufferPtr> evaluate_reference(const Trace&) { fail(ErrorKind::NotImplemented, "evaluate_reference"); }
void philox4x32(uint64_t, uint64_t, uint32_t*) { fail(ErrorKind::NotImplemented, "philox4x32"); }
}  // namespace lt
