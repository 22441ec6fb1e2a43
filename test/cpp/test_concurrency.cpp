// Threads sharing one runtime: four training loops reading shared weights,
// a thread syncing everything while the others record, and a sync threshold
// small enough that threads sync each other's graphs. Every result must equal
// the single-threaded run bit for bit. `make test-tsan` runs this file under
// ThreadSanitizer (ctest -R concurrency); see docs/reliability.md.
//
// Why bit for bit is the right bar: syncs are serialised (one trace runs at a
// time), each kernel's result does not depend on how TBB splits its outer
// loop (every output element is computed by one task, in a fixed order), and
// the kernels that compute a value do not depend on which thread recorded it.
// A sync that another thread triggers may cut a graph at a different place
// (an intermediate is stored and reloaded instead of fused); stores are exact
// in float32, and the code generator contracts no multiply-add across a
// kernel boundary, so the values still agree exactly.
#define BOOST_TEST_MODULE concurrency
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "cache/trace_cache.h"
#include "ir/counters.h"
#include "lazy/lazytensor.h"
#include "lazy/runtime.h"

using namespace lt;

namespace {

constexpr int kThreads = 4;
constexpr int kSteps = 12;

/// What one training loop produced: its loss at every step and its final parameters.
struct Run {
  std::vector<float> losses;
  std::vector<std::vector<float>> params;
};

bool bitwise_equal(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

/// A small MLP on features read through `shared` (never written): forward,
/// backward and SGD recorded lazily, one sync per step.
Run train(const Tensor& shared, int seed) {
  const int64_t batch = 16, in = 8, features = 12, hidden = 16, classes = 4;
  Tensor x = randn({batch, in}, 100 * seed + 1);
  Tensor y = randint(0, classes, {batch}, 100 * seed + 2);
  Tensor w1 = randn({features, hidden}, 100 * seed + 3) * 0.3;
  Tensor b1 = zeros({hidden});
  Tensor w2 = randn({hidden, classes}, 100 * seed + 4) * 0.3;
  Tensor b2 = zeros({classes});
  std::vector<Tensor*> params = {&w1, &b1, &w2, &b2};
  for (Tensor* p : params) p->requires_grad_();
  Run run;
  for (int step = 0; step < kSteps; ++step) {
    for (Tensor* p : params) p->set_grad(Tensor());
    Tensor feats = tanh(matmul(x, shared));
    Tensor h = relu(matmul(feats, w1) + b1);
    Tensor loss = cross_entropy(matmul(h, w2) + b2, y);
    loss.backward();
    {
      NoGradGuard no_grad;
      for (Tensor* p : params) p->sub_(p->grad() * 0.1);
    }
    sync({w1, b1, w2, b2, loss});
    run.losses.push_back(loss.item<float>());
  }
  for (Tensor* p : params) run.params.push_back(p->to_vector<float>());
  return run;
}

Tensor make_shared_weights() { return randn({8, 12}, 7) * 0.5; }  // pending until someone syncs it

std::vector<Run> single_threaded() {
  Tensor shared = make_shared_weights();
  std::vector<Run> runs;
  for (int i = 0; i < kThreads; ++i) runs.push_back(train(shared, i));
  return runs;
}

/// Runs the four loops on four threads over one (initially pending) shared
/// tensor; `while_running` runs on the calling thread until they finish.
std::vector<Run> multi_threaded(const std::function<void(const std::atomic<int>& done)>& while_running = {}) {
  Tensor shared = make_shared_weights();
  std::vector<Run> runs(kThreads);
  std::atomic<int> done{0};
  // With a watcher, the trainers start when it does: on a loaded 2-vCPU
  // machine they could otherwise all finish before it first runs.
  std::atomic<bool> go{!while_running};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      while (!go.load()) std::this_thread::yield();
      runs[i] = train(shared, i);
      done.fetch_add(1);
    });
  if (while_running) {
    go.store(true);
    while_running(done);
  }
  for (std::thread& t : threads) t.join();
  BOOST_CHECK(bitwise_equal(shared.to_vector<float>(), make_shared_weights().to_vector<float>()));
  return runs;
}

void check_same(const std::vector<Run>& got, const std::vector<Run>& want) {
  BOOST_REQUIRE_EQUAL(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    BOOST_TEST_CONTEXT("loop " << i) {
      BOOST_CHECK(bitwise_equal(got[i].losses, want[i].losses));
      BOOST_REQUIRE_EQUAL(got[i].params.size(), want[i].params.size());
      for (size_t p = 0; p < got[i].params.size(); ++p)
        BOOST_CHECK_MESSAGE(bitwise_equal(got[i].params[p], want[i].params[p]), "parameter " << p << " differs");
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_single_threaded_reference_trains) {
  std::vector<Run> runs = single_threaded();
  for (const Run& r : runs) {
    BOOST_CHECK_LT(r.losses.back(), r.losses.front());  // it learns: the comparison below is not of constants
    BOOST_CHECK(std::isfinite(r.losses.back()));
  }
  check_same(single_threaded(), runs);  // and it is deterministic
}

BOOST_AUTO_TEST_CASE(four_training_loops_on_shared_weights_match_single_threaded_runs_bit_for_bit) {
  std::vector<Run> want = single_threaded();
  for (int round = 0; round < 2; ++round) check_same(multi_threaded(), want);
}

BOOST_AUTO_TEST_CASE(a_thread_syncing_everything_while_others_record_changes_no_result) {
  std::vector<Run> want = single_threaded();
  int64_t syncs_by_watcher = 0, wrong_own_values = 0;
  std::vector<Run> got = multi_threaded([&](const std::atomic<int>& done) {
    // Syncs every live pending tensor (the trainers' half-recorded graphs
    // included) and records and reads its own values in between. `own`
    // halves its distance to 0.5 each round (exact in float32), so it stays
    // in [0.5, 1] however many rounds the watcher gets (x * 1.5 - 0.25, used
    // before, overflowed to inf after ~220 rounds once syncs got cheaper).
    // No BOOST_REQUIRE on this thread: a throw here would terminate.
    Tensor own = ones({32});
    float expect = 1.0f;
    do {  // at least once, however the threads are scheduled
      own = own * 0.5 + 0.25;
      expect = expect * 0.5f + 0.25f;
      lt::sync();
      ++syncs_by_watcher;
      if (own.sum().item<float>() != 32 * expect) ++wrong_own_values;
      std::this_thread::yield();
    } while (done.load() < kThreads);
  });
  BOOST_TEST_MESSAGE("the watcher synced " << syncs_by_watcher << " times");
  BOOST_CHECK_GT(syncs_by_watcher, 0);
  BOOST_CHECK_EQUAL(wrong_own_values, 0);
  check_same(got, want);
}

BOOST_AUTO_TEST_CASE(threads_auto_syncing_each_others_graphs_change_no_result) {
  std::vector<Run> want = single_threaded();
  int64_t threshold = sync_threshold();
  int64_t auto_before = counter_value("auto_syncs");
  set_sync_threshold(40);  // a step records more nodes than this: every thread's ops sync all threads' graphs
  std::vector<Run> got = multi_threaded();
  set_sync_threshold(threshold);
  BOOST_CHECK_GT(counter_value("auto_syncs"), auto_before);
  check_same(got, want);
}

BOOST_AUTO_TEST_CASE(an_error_on_one_thread_leaves_the_others_untouched) {
  std::vector<Run> want = single_threaded();
  std::atomic<int> errors{0};
  std::vector<Run> got = multi_threaded([&](const std::atomic<int>& done) {
    Tensor a = ones({2, 3});
    Tensor idx = Tensor::from_vector<int64_t>({0, 9}, {2});
    while (done.load() < kThreads) {
      try {
        add(a, ones({4}));  // a shape mismatch, raised at record time
      } catch (const Error&) {
        errors.fetch_add(1);
      }
      try {
        index_select(a, 0, idx).sum().item<float>();  // an index out of range, found inside a kernel
      } catch (const Error&) {
        errors.fetch_add(1);
      }
    }
  });
  BOOST_CHECK_GT(errors.load(), 0);
  BOOST_CHECK_EQUAL(errors.load() % 2, 0);  // every attempt raised both errors
  check_same(got, want);
}

BOOST_AUTO_TEST_CASE(kernels_unloaded_and_reloaded_under_a_one_trace_cache_change_no_result) {
  // With room for one trace, the trainers' syncs and this thread's syncs of
  // other shapes evict each other all the time: kernels are unloaded when
  // their last trace goes and loaded again (from disk) on the next miss,
  // while other threads record and sync.
  std::vector<Run> want = single_threaded();
  size_t old = trace_cache_capacity();
  set_trace_cache_capacity(1);
  int64_t evicted = counter_value("trace_cache_evictions");
  std::vector<Run> got = multi_threaded([&](const std::atomic<int>& done) {
    for (int n = 0; done.load() < kThreads; ++n) {
      Tensor t = randn({3 + n % 5}, n);
      float s = (t * 2.0).sum().item<float>();
      BOOST_CHECK(std::isfinite(s));
    }
  });
  set_trace_cache_capacity(old);
  check_same(got, want);
  BOOST_TEST(counter_value("trace_cache_evictions") > evicted);
}
