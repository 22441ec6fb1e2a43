// ir/counters.h — named process-wide counters, readable from C++ and Python.
//
// Tests use them to assert structure ("no node evaluated before sync", "the
// second step compiles nothing"), the way PyTorch LTC tests use its metrics.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <string>

namespace lt {

class Counter {
 public:
  explicit Counter(const char* name);  ///< registers itself; define at namespace scope
  void add(int64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  int64_t get() const { return value_.load(std::memory_order_relaxed); }
  void reset() { value_.store(0, std::memory_order_relaxed); }
  const char* name() const { return name_; }

 private:
  const char* name_;
  std::atomic<int64_t> value_{0};
};

/// Every registered counter by name.
std::map<std::string, int64_t> counters_snapshot();
/// Value of one counter; 0 for an unknown name.
int64_t counter_value(const std::string& name);
void counters_reset();

namespace counters {
extern Counter nodes_recorded;   ///< IR nodes created
extern Counter nodes_live;       ///< IR nodes alive now (created minus destroyed)
extern Counter syncs;            ///< sync calls that had pending work
extern Counter traces_captured;  ///< traces built from pending graphs
extern Counter nodes_evaluated;  ///< nodes run by the reference evaluator
extern Counter auto_syncs;       ///< syncs forced by the pending-graph size limit
}  // namespace counters

}  // namespace lt
