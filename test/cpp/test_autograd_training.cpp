// A 2-layer MLP training loop: forward, backward and the SGD step are one lazy
// graph per step, computed by one sync. Steps after the first reuse the
// compiled trace; the IR and resident memory stay flat across steps.
//
// Runs on the default backend (LT_BACKEND, else the CPU JIT when built, else
// the reference evaluator); the compile/kernel-count test needs the JIT.
#define BOOST_TEST_MODULE autograd_training
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <unistd.h>

#include "gradcheck.h"
#include "ir/counters.h"
#include "lazy/runtime.h"

using namespace lt;

namespace {

struct Mlp {
  Tensor w1, b1, w2, b2;
  Tensor x, y;

  Mlp(int64_t batch, int64_t in, int64_t hidden, int64_t classes) {
    w1 = randn({in, hidden}, 1) * (1.0 / std::sqrt(static_cast<double>(in)));
    b1 = zeros({hidden});
    w2 = randn({hidden, classes}, 2) * (1.0 / std::sqrt(static_cast<double>(hidden)));
    b2 = zeros({classes});
    for (Tensor* p : params()) p->requires_grad_();
    x = randn({batch, in}, 3);
    y = randint(0, classes, {batch}, 4);
    sync({w1, b1, w2, b2, x, y});
  }
  std::vector<Tensor*> params() { return {&w1, &b1, &w2, &b2}; }

  /// One SGD step; returns the loss (computed by the step's one sync).
  /// zero_grad(set_to_none=True) comes first, as in most PyTorch loops, so the
  /// gradients are live at the sync and get stored; `zero_grad_last` drops
  /// them before the sync instead, so they fuse into the update.
  Tensor step(double lr, bool zero_grad_last = false) {
    if (!zero_grad_last) zero_grad();
    Tensor h = relu(matmul(x, w1) + b1);
    Tensor loss = cross_entropy(matmul(h, w2) + b2, y);
    loss.backward();
    {
      NoGradGuard no_grad;
      for (Tensor* p : params()) p->sub_(p->grad() * lr);
    }
    if (zero_grad_last) zero_grad();
    sync({w1, b1, w2, b2, loss});
    return loss;
  }
  void zero_grad() {
    for (Tensor* p : params()) p->set_grad(Tensor());
  }
};

int64_t resident_pages() {
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident;
}

bool has_counter(const char* name) { return counters_snapshot().count(name) > 0; }

/// The compile counters exist only with the CPU JIT.
boost::test_tools::assertion_result jit_backend(boost::unit_test::test_unit_id) {
  boost::test_tools::assertion_result ok(runtime::backend_name() == "cpu" && has_counter("trace_cache_hits") &&
                                         has_counter("kernels_compiled"));
  ok.message() << "needs the cpu JIT backend and its counters (backend is " << runtime::backend_name() << ")";
  return ok;
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_loss_goes_down) {
  Mlp m(16, 8, 32, 4);
  double first = m.step(0.5).item<double>();
  double last = first;
  for (int i = 0; i < 50; ++i) last = m.step(0.5).item<double>();
  BOOST_TEST(last < 0.5 * first);
}

BOOST_AUTO_TEST_CASE(each_step_is_one_sync_and_the_live_ir_returns_to_the_same_size) {
  Mlp m(8, 4, 16, 3);
  m.step(0.1);
  int64_t live = counters::nodes_live.get();
  for (int i = 0; i < 5; ++i) {
    int64_t syncs = counters::syncs.get();
    m.step(0.1);
    BOOST_TEST(counters::syncs.get() == syncs + 1);
    BOOST_TEST(counters::nodes_live.get() == live);
  }
  // Everything the step needs afterwards is materialised and holds no graph.
  for (Tensor* p : m.params()) {
    BOOST_TEST(p->is_materialized());
    BOOST_TEST(p->node()->inputs.empty());
    BOOST_TEST(p->grad().node()->inputs.empty());
  }
}

BOOST_AUTO_TEST_CASE(steps_after_the_first_hit_the_trace_cache_and_compile_nothing,
                     *boost::unit_test::precondition(jit_backend)) {
  Mlp m(8, 5, 12, 3);  // sizes no other test uses: the first step is a trace-cache miss
  int64_t misses = counter_value("trace_cache_misses");
  m.step(0.1);
  BOOST_TEST(counter_value("trace_cache_misses") == misses + 1);
  for (int i = 0; i < 3; ++i) {
    int64_t hits = counter_value("trace_cache_hits");
    int64_t compiled = counter_value("kernels_compiled");
    m.step(0.1 / (i + 2));  // a new learning rate is a runtime scalar, not a recompile
    BOOST_TEST(counter_value("trace_cache_hits") == hits + 1);
    BOOST_TEST(counter_value("trace_cache_misses") == misses + 1);
    BOOST_TEST(counter_value("kernels_compiled") == compiled);
  }
}

// docs/autograd.md explains each kernel. Forward 6 (x@W1 + b1; the valid-target
// count of the mean; relu(h); h@W2 + b2; row max; row sum of exp), loss 1,
// backward 4 (dlogits; dlogits@W2^T with the relu mask as its epilogue;
// x^T@dh; h^T@dlogits), bias gradients with their updates 2 (column sums, each
// a sibling kernel storing the gradient and the new bias), weight updates 2.
BOOST_AUTO_TEST_CASE(an_mlp_step_is_15_kernels, *boost::unit_test::precondition(jit_backend)) {
  Mlp m(8, 6, 12, 3);
  m.step(0.1);
  int64_t launched = counter_value("kernels_launched");
  m.step(0.1);
  BOOST_TEST(counter_value("kernels_launched") - launched == 15);
}

BOOST_AUTO_TEST_CASE(dropping_the_gradients_before_the_sync_fuses_them_into_the_update,
                     *boost::unit_test::precondition(jit_backend)) {
  Mlp m(8, 7, 12, 3);
  m.step(0.1, true);
  int64_t launched = counter_value("kernels_launched");
  m.step(0.1, true);
  // The two bias-gradient column sums fuse with their updates and the two
  // weight updates run as the epilogues of their gradient matmuls: 17 - 4.
  BOOST_TEST(counter_value("kernels_launched") - launched == 13);
}

BOOST_AUTO_TEST_CASE(resident_memory_stays_flat_over_10000_steps) {
  Mlp m(4, 4, 8, 3);
  auto start = std::chrono::steady_clock::now();
  int64_t at_100 = 0;
  for (int i = 1; i <= 10000; ++i) {
    m.step(0.01);
    if (i == 100) at_100 = resident_pages();
  }
  int64_t at_end = resident_pages();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  BOOST_TEST_MESSAGE("10000 steps on " << runtime::backend_name() << ": " << seconds << " s, resident "
                                       << at_100 << " -> " << at_end << " pages");
#if defined(__SANITIZE_ADDRESS__)
  // ASan replaces malloc and holds freed blocks in its quarantine (256 MiB by
  // default) to catch uses after free, so the resident size says nothing about
  // our allocator here; the steps still run under ASan.
  BOOST_TEST_MESSAGE("AddressSanitizer build: resident-size check skipped");
#else
  BOOST_TEST(at_end <= at_100 * 1.05);
#endif
}
