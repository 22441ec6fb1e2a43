// scheduler/fusion.cpp — the built-in fusion policies and the registry.
#include "scheduler/fusion.h"

#include <cstdlib>
#include <map>
#include <mutex>

#include "ir/error.h"

namespace lt {
namespace {

bool is_view_or_leaf(Op op) {
  OpKind k = op_kind(op);
  return k == OpKind::Movement || op == Op::Input || op == Op::Scalar;
}

class DefaultPolicy : public FusionPolicy {
 public:
  std::string_view name() const override { return "default"; }
  bool materialize(const Trace&, int32_t) const override { return false; }
  bool fuse_reduction_with_consumers() const override { return true; }
  bool materialize_shared(int kernels, int64_t cost, bool has_reduction) const override {
    // A recomputed reduction costs a whole extra pass over its input; cheap
    // arithmetic costs less than the store + reload that materialising adds.
    return kernels > 1 && (has_reduction || cost >= 12);
  }
};

class NonePolicy : public FusionPolicy {
 public:
  std::string_view name() const override { return "none"; }
  bool materialize(const Trace& t, int32_t node) const override { return !is_view_or_leaf(t.nodes[node].op); }
  bool fuse_reduction_with_consumers() const override { return false; }
  bool materialize_shared(int kernels, int64_t, bool) const override { return kernels > 1; }
  bool fuse_siblings() const override { return false; }
};

class ElementwisePolicy : public FusionPolicy {
 public:
  std::string_view name() const override { return "elementwise"; }
  bool materialize(const Trace& t, int32_t node) const override {
    const TraceNode& n = t.nodes[node];
    if (op_kind(n.op) == OpKind::Reduce) return true;
    // The non-view producer of a reduction's input is materialised, so the
    // reduction kernel only loads.
    for (size_t i = 0; i < t.nodes.size(); ++i) {
      const TraceNode& c = t.nodes[i];
      if (op_kind(c.op) != OpKind::Reduce) continue;
      int32_t base = c.inputs[0];
      while (op_kind(t.nodes[base].op) == OpKind::Movement) base = t.nodes[base].inputs[0];
      if (base == node && !is_view_or_leaf(n.op)) return true;
    }
    return false;
  }
  bool fuse_reduction_with_consumers() const override { return false; }
  bool materialize_shared(int kernels, int64_t cost, bool has_reduction) const override {
    return kernels > 1 && (has_reduction || cost >= 12);
  }
};

struct Registry {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<const FusionPolicy>, std::less<>> policies;
  std::vector<std::shared_ptr<const FusionPolicy>> keep_alive;  // references handed out stay valid
  Registry() {
    for (auto p : {std::shared_ptr<const FusionPolicy>(new DefaultPolicy), std::shared_ptr<const FusionPolicy>(new NonePolicy),
                   std::shared_ptr<const FusionPolicy>(new ElementwisePolicy)})
      policies[std::string(p->name())] = p;
  }
};
Registry& registry() {
  static Registry* r = new Registry();
  return *r;
}
}  // namespace

void register_fusion_policy(std::shared_ptr<const FusionPolicy> policy) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.keep_alive.push_back(policy);
  r.policies[std::string(policy->name())] = std::move(policy);
}

const FusionPolicy& fusion_policy(std::string_view name) {
  // Read once: every sync asks for the default policy.
  static const std::string env_default = [] {
    const char* env = std::getenv("LT_FUSION");
    return std::string(env && *env ? env : "default");
  }();
  std::string_view n = name.empty() ? std::string_view(env_default) : name;
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.policies.find(n);
  if (it == r.policies.end()) fail(ErrorKind::Value, "unknown fusion policy '", n, "' (LT_FUSION / RunOptions::fusion)");
  return *it->second;
}

std::vector<std::string> fusion_policy_names() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> out;
  for (auto& [k, v] : r.policies) out.push_back(k);
  return out;
}

}  // namespace lt
