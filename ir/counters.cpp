// ir/counters.cpp — the counter registry.
#include "ir/counters.h"

#include <mutex>
#include <vector>

namespace lt {
namespace {
struct Registry {
  std::mutex mu;
  std::vector<Counter*> all;
};
Registry& registry() {
  static Registry* r = new Registry();
  return *r;
}
}  // namespace

Counter::Counter(const char* name) : name_(name) {
  std::lock_guard<std::mutex> lock(registry().mu);
  registry().all.push_back(this);
}

std::map<std::string, int64_t> counters_snapshot() {
  std::lock_guard<std::mutex> lock(registry().mu);
  std::map<std::string, int64_t> out;
  for (Counter* c : registry().all) out[c->name()] += c->get();
  return out;
}

int64_t counter_value(const std::string& name) {
  std::lock_guard<std::mutex> lock(registry().mu);
  int64_t v = 0;
  for (Counter* c : registry().all)
    if (name == c->name()) v += c->get();
  return v;
}

void counters_reset() {
  std::lock_guard<std::mutex> lock(registry().mu);
  for (Counter* c : registry().all)
    if (std::string(c->name()) != "nodes_live") c->reset();
}

namespace counters {
Counter nodes_recorded("nodes_recorded");
Counter nodes_live("nodes_live");
Counter syncs("syncs");
Counter traces_captured("traces_captured");
Counter nodes_evaluated("nodes_evaluated");
Counter auto_syncs("auto_syncs");
}  // namespace counters

}  // namespace lt
