// trace/backend.cpp — the reference backend.
#include "trace/backend.h"

#include "ir/evaluator.h"

namespace lt {
namespace {
class ReferenceBackend final : public Backend {
 public:
  std::string_view name() const override { return "reference"; }
  std::vector<BufferPtr> run(const Trace& trace, const RunOptions&) override { return evaluate_reference(trace); }
};
}  // namespace

Backend& reference_backend() {
  static ReferenceBackend backend;
  return backend;
}

}  // namespace lt
