// The cuda backend end to end. Without a GPU (as on CI) every call that needs
// a device must raise a clear "no CUDA device" lt::Error, never crash; with a
// GPU every corpus program must match the reference evaluator.
#define BOOST_TEST_MODULE cuda_device
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "runtime/cuda_backend.h"
#include "cache/kernel_cache.h"
#include "cuda_test_util.h"
#include "ir/counters.h"
#include "ir/evaluator.h"
#include "jit/cuda/allocator.h"
#include "lazy/runtime.h"
#include "lazy/tensor.h"

using namespace lt;
using namespace lt::test;

namespace {

bool says_no_device(const Error& e) { return std::string(e.what()).find("no CUDA device is available") != std::string::npos; }

template <typename F>
void expect_no_device_error(const char* what, F&& f) {
  try {
    f();
    BOOST_ERROR(what << " did not raise without a device");
  } catch (const Error& e) {
    BOOST_CHECK_MESSAGE(says_no_device(e), what << ": " << e.what());
  }
}

double rtol_for(DType d) { return d == DType::Float32 ? 1e-4 : 1e-11; }

/// Compares every output of the cuda backend with the reference; returns the number of mismatching outputs.
int compare_with_reference(const CorpusProgram& p) {
  CapturedTrace ct = capture_trace(p.roots);
  std::vector<BufferPtr> want = evaluate_reference(ct.trace);
  std::vector<BufferPtr> got = cuda_backend().run(ct.trace, RunOptions{p.policy});
  BOOST_REQUIRE_EQUAL(want.size(), got.size());
  int bad_outputs = 0;
  for (size_t o = 0; o < want.size(); ++o) {
    DType d = want[o]->dtype();
    BOOST_REQUIRE(d == got[o]->dtype());
    BOOST_REQUIRE_EQUAL(want[o]->numel(), got[o]->numel());
    if (!is_floating(d)) {
      bool eq = std::memcmp(want[o]->data(), got[o]->data(), want[o]->nbytes()) == 0;
      BOOST_CHECK_MESSAGE(eq, p.name << " output " << o << " (" << dtype_name(d) << ") differs bit-wise");
      bad_outputs += !eq;
      continue;
    }
    auto w = values(want[o]), g = values(got[o]);
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < w.size(); ++i) {
      if ((std::isnan(w[i]) && std::isnan(g[i])) || w[i] == g[i]) continue;
      // Reductions add in another order than the reference: relative to the row's scale.
      if (std::fabs(w[i] - g[i]) <= rtol_for(d) * std::max(1.0, std::fabs(w[i]))) continue;
      if (!bad++) first = i;
    }
    if (bad)  // (w may be empty: w[first] only when something differs)
      BOOST_ERROR(p.name << " output " << o << " (" << dtype_name(d) << "): " << bad << " of " << w.size()
                         << " differ; first at " << first << ": want " << w[first] << " got " << g[first]);
    bad_outputs += bad != 0;
  }
  return bad_outputs;
}

}  // namespace

BOOST_AUTO_TEST_CASE(calls_that_need_a_device_raise_no_cuda_device_without_one) {
  if (cuda::device_available()) {
    std::cerr << "skipped: a CUDA device is present (" << cuda::device_info().name << ")\n";
    BOOST_CHECK(true);
    return;
  }
  std::cerr << "no device, as expected here: " << cuda::device_unavailable_reason() << "\n";
  BOOST_CHECK(!cuda::device_unavailable_reason().empty());
  expect_no_device_error("require_device", [] { cuda::require_device(); });
  expect_no_device_error("device_info", [] { (void)cuda::device_info(); });
  expect_no_device_error("device_arch", [] { (void)cuda::device_arch(); });
  expect_no_device_error("device_alloc", [] { (void)cuda::device_alloc(1024); });
  expect_no_device_error("raw_alloc", [] { (void)cuda::raw_alloc(1024); });
  expect_no_device_error("load_module", [] { (void)cuda::load_module("not a cubin"); });
  expect_no_device_error("copy_to_device", [] {
    int x = 0;
    cuda::copy_to_device(0, &x, sizeof x);
  });
  expect_no_device_error("synchronize", [] { cuda::synchronize(); });
  expect_no_device_error("Event", [] { cuda::Event e; });
  // The rest of jit/cuda/driver.h and allocator.h (Event::record and
  // elapsed_ms_since need an Event, which cannot exist without a device).
  expect_no_device_error("module_function", [] { (void)cuda::module_function(nullptr, "lt_k"); });
  expect_no_device_error("launch", [] { cuda::launch(nullptr, 1, 1, 0, nullptr); });
  expect_no_device_error("try_raw_alloc", [] {
    cuda::DevicePtr p = 0;
    (void)cuda::try_raw_alloc(1024, &p);
  });
  expect_no_device_error("raw_free", [] { cuda::raw_free(0); });
  expect_no_device_error("copy_to_host", [] {
    int x = 0;
    cuda::copy_to_host(&x, 0, sizeof x);
  });
  expect_no_device_error("copy_on_device", [] { cuda::copy_on_device(0, 0, 16); });
  expect_no_device_error("fill_zero", [] { cuda::fill_zero(0, 16); });
  expect_no_device_error("DeviceBlock", [] { cuda::DeviceBlock b(1024); });
  NodePtr x = corpus_input(DType::Float32, {4, 4});
  CapturedTrace ct = capture_trace({ops::softmax(x, -1)});
  expect_no_device_error("cuda_backend().run", [&] { cuda_backend().run(ct.trace, RunOptions{}); });
  expect_no_device_error("cuda_kernel_times_ms", [&] { (void)cuda_kernel_times_ms(ct.trace, 1); });
  // A failed run leaves nothing behind: the same trace raises the same way again.
  expect_no_device_error("cuda_backend().run again", [&] { cuda_backend().run(ct.trace, RunOptions{}); });
  BOOST_CHECK(cuda_backend().name() == "cuda");
}

BOOST_AUTO_TEST_CASE(calls_that_need_no_device_work_without_one) {
  // Reporting, stats and cache housekeeping must not raise on a machine with no GPU.
  (void)cuda::device_available();
  (void)cuda::device_allocator_stats();
  cuda::device_release_cached();
  cuda_clear_caches();
  cuda::DeviceBlock empty;  // an empty block owns nothing and frees nothing
  BOOST_CHECK_EQUAL(empty.ptr(), 0u);
  BOOST_CHECK(cuda_backend().name() == "cuda");
}

BOOST_AUTO_TEST_CASE(every_corpus_program_matches_the_reference_on_the_gpu) {
  LT_REQUIRE_GPU_OR_SKIP();
  std::cerr << "device: " << cuda::device_info().name << " (" << cuda::device_arch() << ")\n";
  int failed = 0, programs = 0;
  for (const CorpusProgram& p : kernel_corpus()) {
    ++programs;
    try {
      failed += compare_with_reference(p) != 0;
    } catch (const Error& e) {
      ++failed;
      BOOST_ERROR(p.name << ": " << e.what());
    }
  }
  std::cerr << programs - failed << " of " << programs << " corpus programs match the reference\n";
}

BOOST_AUTO_TEST_CASE(large_programs_match_the_reference_on_the_gpu) {
  LT_REQUIRE_GPU_OR_SKIP();
  int64_t n = (int64_t{1} << 24) + 3;
  NodePtr x = corpus_input(DType::Float32, {n}, -3, 3, 91);
  NodePtr y = ops::add(ops::mul(ops::gelu(x), ops::sigmoid(x)), ops::mul(x, ops::scalar(0.5, DType::Float32)));
  compare_with_reference({"large_elementwise", {y}, ""});
  compare_with_reference({"large_softmax", {ops::softmax(corpus_input(DType::Float32, {512, 4099}, -4, 4, 92), -1)}, ""});
  compare_with_reference({"large_sum", {ops::sum(corpus_input(DType::Float64, {3000000}, -1, 1, 93))}, ""});
  compare_with_reference({"large_matmul", {ops::matmul(corpus_input(DType::Float64, {300, 200}, -1, 1, 94),
                                                       corpus_input(DType::Float64, {200, 250}, -1, 1, 95))}, ""});
}

BOOST_AUTO_TEST_CASE(out_of_range_indices_raise_on_the_gpu) {
  LT_REQUIRE_GPU_OR_SKIP();
  NodePtr x = corpus_input(DType::Float32, {5, 6}, -5, 5, 41);
  NodePtr bad = input(DType::Int64, {5, 1}, {0, 1, 6, 2, 3});
  CapturedTrace g = capture_trace({ops::gather(x, 1, bad)});
  try {
    cuda_backend().run(g.trace, RunOptions{});
    BOOST_ERROR("gather with index 6 did not raise");
  } catch (const Error& e) {
    BOOST_CHECK(e.kind() == ErrorKind::Runtime);  // gather: RuntimeError, as in PyTorch
    BOOST_CHECK_MESSAGE(std::string(e.what()).find("gather") != std::string::npos, e.what());
  }
  // The slot is per run: the next good run is clean.
  NodePtr ok = input(DType::Int64, {5, 1}, {0, 1, 5, 2, 3});
  compare_with_reference({"gather_ok", {ops::gather(x, 1, ok)}, ""});
}

BOOST_AUTO_TEST_CASE(a_second_run_of_the_same_trace_compiles_nothing) {
  LT_REQUIRE_GPU_OR_SKIP();
  NodePtr x = corpus_input(DType::Float32, {33, 77}, -1, 1, 7);
  CapturedTrace ct = capture_trace({ops::layer_norm(x, {77}, nullptr, nullptr)});
  cuda_backend().run(ct.trace, RunOptions{});
  int64_t compiled = counter_value("cuda_kernels_compiled"), hits = counter_value("cuda_trace_cache_hits");
  cuda_backend().run(ct.trace, RunOptions{});
  BOOST_CHECK_EQUAL(counter_value("cuda_kernels_compiled"), compiled);
  BOOST_CHECK_EQUAL(counter_value("cuda_trace_cache_hits"), hits + 1);
}

BOOST_AUTO_TEST_CASE(after_the_memory_caches_are_dropped_modules_load_from_disk_without_nvrtc) {
  LT_REQUIRE_GPU_OR_SKIP();
  char dir[] = "/tmp/lt-cuda-device-cache-XXXXXX";
  BOOST_REQUIRE(mkdtemp(dir));
  KernelCacheConfig config;
  config.dir = dir;
  set_kernel_cache_config(config);
  cuda_clear_caches();
  CorpusProgram p{"softmax_from_disk", {ops::softmax(corpus_input(DType::Float32, {31, 45}, -2, 2, 11), -1)}, ""};
  BOOST_CHECK_EQUAL(compare_with_reference(p), 0);  // compiled and stored
  cuda_clear_caches();  // as a new process: nothing in memory
  int64_t nvrtc = counter_value("cuda_nvrtc_compiles"), loads = counter_value("cuda_disk_loads");
  BOOST_CHECK_EQUAL(compare_with_reference(p), 0);
  BOOST_CHECK_EQUAL(counter_value("cuda_nvrtc_compiles"), nvrtc);
  BOOST_CHECK_EQUAL(counter_value("cuda_disk_loads"), loads + 1);
  set_kernel_cache_config(KernelCacheConfig::from_env());
  std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(the_device_allocator_reuses_freed_blocks) {
  LT_REQUIRE_GPU_OR_SKIP();
  cuda::DeviceAllocatorStats before = cuda::device_allocator_stats();
  { cuda::DeviceBlock a(1 << 20); }
  { cuda::DeviceBlock b(1 << 20); }
  cuda::DeviceAllocatorStats after = cuda::device_allocator_stats();
  BOOST_CHECK_EQUAL(after.allocations - before.allocations, 2);
  BOOST_CHECK_GE(after.cache_hits - before.cache_hits, 1);
}

BOOST_AUTO_TEST_CASE(lt_backend_cuda_routes_every_sync_to_the_gpu) {
  runtime::set_backend("cuda");
  BOOST_CHECK_EQUAL(runtime::backend_name(), "cuda");
  Tensor x = Tensor::from_vector(std::vector<float>{1, 2, 3, 4}, Shape{2, 2});
  Tensor y = lt::softmax(x * 2.0, -1);
  if (!cuda::device_available()) {
    try {
      y.to_vector<float>();
      BOOST_ERROR("a sync on the cuda backend ran without a device");
    } catch (const Error& e) {
      BOOST_CHECK_MESSAGE(says_no_device(e), e.what());
    }
  } else {
    std::vector<float> got = y.to_vector<float>();
    BOOST_REQUIRE_EQUAL(got.size(), 4u);
    BOOST_CHECK_LT(std::fabs(got[1] - 1.0f / (1.0f + std::exp(-2.0f))), 1e-6f);
  }
  runtime::set_backend("reference");
}
