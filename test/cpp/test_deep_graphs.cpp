// Very deep pending graphs (issue #3): a 200k-op chain recorded without a sync
// must capture, schedule, compile, run and free on an ordinary 8 MiB stack,
// on the JIT and on the reference backend, with or without auto-sync.
//
// Each case runs its work on a thread created with an explicit 8 MiB stack (so
// the result does not depend on the ulimit of the shell running ctest) and
// checks the values on the main thread (Boost.Test assertions are not thread-safe).
#define BOOST_TEST_MODULE deep_graphs
#include <boost/test/unit_test.hpp>

#include <pthread.h>

#include <exception>
#include <functional>
#include <string>

#include "lazy/lazytensor.h"
#include "lazy/runtime.h"

using namespace lt;

namespace {

constexpr size_t kStackBytes = size_t{8} << 20;
constexpr int kDepth = 200000;

/// Runs f on a fresh thread with an 8 MiB stack; rethrows what it threw.
void run_on_8mib_stack(const std::function<void()>& f) {
  struct Job {
    const std::function<void()>* f;
    std::exception_ptr error;
  } job{&f, nullptr};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, kStackBytes);
  pthread_t thread;
  auto body = [](void* p) -> void* {
    Job* j = static_cast<Job*>(p);
    try {
      (*j->f)();
    } catch (...) {
      j->error = std::current_exception();
    }
    return nullptr;
  };
  int rc = pthread_create(&thread, &attr, body, &job);
  pthread_attr_destroy(&attr);
  BOOST_REQUIRE(rc == 0);
  pthread_join(thread, nullptr);
  if (job.error) std::rethrow_exception(job.error);
}

/// Backend and sync threshold for one case, restored afterwards.
class Setting {
 public:
  Setting(const std::string& backend, int64_t threshold)
      : backend_(runtime::backend_name()), threshold_(sync_threshold()) {
    runtime::set_backend(backend);
    set_sync_threshold(threshold);
  }
  ~Setting() {
    set_sync_threshold(threshold_);
    runtime::set_backend(backend_);
  }

 private:
  std::string backend_;
  int64_t threshold_;
};

constexpr int64_t kNoAutoSync = int64_t{1} << 40;

/// x = x + 1 (kDepth times) from `start`, then one sync; returns x's elements.
std::vector<float> add_one_chain(std::vector<float> start) {
  std::vector<float> out;
  run_on_8mib_stack([&] {
    Tensor x = Tensor::from_vector<float>(start);
    for (int i = 0; i < kDepth; ++i) x = x + 1.0;
    out = x.to_vector<float>();
  });
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_200k_op_chain_without_auto_sync_runs_on_the_jit) {
  Setting s("cpu", kNoAutoSync);
  int64_t autos = counter_value("auto_syncs");
  std::vector<float> v = add_one_chain({0.0f, -100000.0f, 0.5f});
  BOOST_TEST(counter_value("auto_syncs") == autos);  // one trace of the whole chain
  BOOST_REQUIRE(v.size() == 3u);
  BOOST_TEST(v[0] == 200000.0f);
  BOOST_TEST(v[1] == 100000.0f);
  BOOST_TEST(v[2] == 200000.5f);
}

BOOST_AUTO_TEST_CASE(a_200k_op_chain_without_auto_sync_runs_on_the_reference_backend) {
  Setting s("reference", kNoAutoSync);
  std::vector<float> v = add_one_chain({0.0f, -100000.0f, 0.5f});
  BOOST_REQUIRE(v.size() == 3u);
  BOOST_TEST(v[0] == 200000.0f);
  BOOST_TEST(v[1] == 100000.0f);
  BOOST_TEST(v[2] == 200000.5f);
}

BOOST_AUTO_TEST_CASE(a_200k_op_chain_with_the_default_auto_sync_runs_on_the_jit) {
  // Each auto-sync captures a chain as deep as the threshold allows (tens of
  // thousands of ops), which is itself deep enough to have overflowed.
  Setting s("cpu", 50000);
  int64_t autos = counter_value("auto_syncs");
  std::vector<float> v = add_one_chain({1.0f, 2.0f});
  BOOST_TEST(counter_value("auto_syncs") > autos);
  BOOST_REQUIRE(v.size() == 2u);
  BOOST_TEST(v[0] == 200001.0f);
  BOOST_TEST(v[1] == 200002.0f);
}

BOOST_AUTO_TEST_CASE(a_deep_chain_of_mixed_ops_matches_the_reference_backend) {
  // Unary, binary with a second tensor, a reduction feeding back and views:
  // the fused expressions are cut where they get too deep, never changing values.
  auto run = [](const std::string& backend) {
    Setting s(backend, kNoAutoSync);
    std::vector<double> out;
    run_on_8mib_stack([&] {
      Tensor x = Tensor::from_vector<double>({0.25, -0.5, 1.0, 2.0, -1.5, 0.75}, {2, 3});
      Tensor w = Tensor::from_vector<double>({0.5, 1.0, -0.25, 0.0, 0.125, 2.0}, {2, 3});
      for (int i = 0; i < 20000; ++i) {
        x = tanh(x * 0.9 + w);
        if (i % 1000 == 999) x = x - x.sum({1}, true) / 3.0;
        if (i % 2 == 1) x = x.transpose(0, 1).reshape({3, 2}).reshape({2, 3});
      }
      out = x.to_vector<double>();
    });
    return out;
  };
  std::vector<double> jit = run("cpu"), ref = run("reference");
  BOOST_REQUIRE(jit.size() == ref.size());
  for (size_t i = 0; i < ref.size(); ++i) BOOST_TEST(jit[i] == ref[i], boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(backward_through_a_200k_op_chain) {
  Setting s("cpu", kNoAutoSync);
  double grad = 0, value = 0;
  run_on_8mib_stack([&] {
    Tensor w = Tensor::from_vector<double>({1.5});
    w.requires_grad_(true);
    Tensor x = w;
    for (int i = 0; i < kDepth; ++i) x = x + 1.0;
    Tensor loss = (x * 2.0).sum();
    loss.backward();
    value = loss.item<double>();
    grad = w.grad().item<double>();
  });
  BOOST_TEST(value == 2.0 * (1.5 + kDepth));
  BOOST_TEST(grad == 2.0);
}

BOOST_AUTO_TEST_CASE(a_wide_reduction_tree_is_cut_into_bounded_kernels_of_one_structure) {
  // 16k chains over one tensor, summed pairwise: one fused expression of 100k
  // ops unless its width is bounded. Bounded, it is a few dozen kernels of a
  // few thousand ops, nearly all of one structure (the chains differ only in
  // scalars), and the values do not change.
  constexpr int kChains = 16384;
  auto run = [](const std::string& backend) {
    Setting s(backend, kNoAutoSync);
    std::vector<double> out;
    run_on_8mib_stack([&] {
      Tensor x = Tensor::from_vector<double>({0.25, -0.5, 1.0, 2.0, -1.5, 0.75, 0.1, -2.0});
      std::vector<Tensor> level;
      for (int i = 0; i < kChains; ++i) level.push_back(tanh(x * (0.5 + 1e-4 * i)) + 1e-3 * i);
      while (level.size() > 1) {
        std::vector<Tensor> next;
        for (size_t i = 0; i + 1 < level.size(); i += 2) next.push_back(level[i] + level[i + 1]);
        level = std::move(next);
      }
      out = level[0].to_vector<double>();
    });
    return out;
  };
  int64_t launched = counter_value("kernels_launched"), compiled = counter_value("kernels_compiled");
  std::vector<double> jit = run("cpu");
  launched = counter_value("kernels_launched") - launched;
  compiled = counter_value("kernels_compiled") - compiled;
  BOOST_TEST(launched >= 8);  // 64k ops, at most 2 x 4096 per kernel (a node joins two bounded trees)
  BOOST_TEST(compiled <= 4);   // the cut subtrees share their structure
  std::vector<double> ref = run("reference");
  BOOST_REQUIRE(jit.size() == ref.size());
  for (size_t i = 0; i < ref.size(); ++i) BOOST_TEST(jit[i] == ref[i], boost::test_tools::tolerance(1e-9));
}
