// The cuda backend's disk cache of module images (cubins), without a GPU:
// NVRTC runs on the CPU, so the cached path compiles, stores, loads and
// rejects exactly as it does on a GPU machine; only cuModuleLoadData is left.
#define BOOST_TEST_MODULE cuda_disk_cache
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "runtime/cuda_backend.h"
#include "cache/kernel_cache.h"
#include "cuda_test_util.h"
#include "ir/counters.h"
#include "jit/cuda/codegen.h"

using namespace lt;
using namespace lt::test;

namespace {

/// A fresh cache directory, made the process-wide disk cache for one test case.
struct TempCache {
  std::string dir;
  TempCache() {
    char tmpl[] = "/tmp/lt-cuda-disk-cache-XXXXXX";
    BOOST_REQUIRE(mkdtemp(tmpl));
    dir = tmpl;
    KernelCacheConfig config;
    config.dir = dir;
    set_kernel_cache_config(config);
  }
  ~TempCache() {
    set_kernel_cache_config(KernelCacheConfig{});
    std::filesystem::remove_all(dir);
  }
  size_t files() const {
    size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir)) n += e.path().extension() == ".ltk";
    return n;
  }
};

/// The translation unit the backend would compile for a small trace (a softmax and a matmul, one program).
std::string softmax_translation_unit() {
  NodePtr x = corpus_input(DType::Float32, {16, 40});
  CapturedTrace ct = capture_trace({ops::matmul(ops::softmax(x, -1), ops::transpose(x, 0, 1))});
  Plan plan = schedule(ct.trace, fusion_policy(""));
  std::vector<cuda::KernelSource> sources;
  for (const Kernel& k : plan.kernels) sources.push_back(cuda::generate_cuda_kernel(k));
  std::vector<const cuda::KernelSource*> parts;
  for (const cuda::KernelSource& s : sources) parts.push_back(&s);
  return cuda::cuda_translation_unit(parts);
}

struct Counts {
  int64_t nvrtc = counter_value("cuda_nvrtc_compiles");
  int64_t cuda_disk_loads = counter_value("cuda_disk_loads");
  int64_t stores = counter_value("disk_stores");
  int64_t rejects = counter_value("disk_rejects");
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_compiled_cubin_is_stored_and_a_second_request_loads_it_without_nvrtc) {
  TempCache cache;
  std::string tu = softmax_translation_unit();
  Counts before;
  CudaModuleImage first = cuda_module_image(tu, "lt_test_softmax", "sm_90");
  Counts compiled;
  BOOST_CHECK(!first.from_disk);
  BOOST_CHECK_EQUAL(compiled.nvrtc - before.nvrtc, 1);
  BOOST_CHECK_EQUAL(compiled.stores - before.stores, 1);
  BOOST_CHECK_EQUAL(cache.files(), 1u);
  BOOST_CHECK(std::filesystem::exists(kernel_cache()->path_for(cuda_module_key(tu, "sm_90"))));
  BOOST_CHECK(first.image.compare(0, 4, "\177ELF") == 0);  // a cubin is an ELF image

  CudaModuleImage second = cuda_module_image(tu, "lt_test_softmax", "sm_90");
  Counts loaded;
  BOOST_CHECK(second.from_disk);
  BOOST_CHECK(second.image == first.image);
  BOOST_CHECK_EQUAL(loaded.nvrtc - compiled.nvrtc, 0);
  BOOST_CHECK_EQUAL(loaded.cuda_disk_loads - compiled.cuda_disk_loads, 1);
  BOOST_CHECK_EQUAL(loaded.rejects - before.rejects, 0);
}

BOOST_AUTO_TEST_CASE(a_damaged_cubin_entry_is_rejected_and_recompiled) {
  TempCache cache;
  std::string tu = softmax_translation_unit();
  CudaModuleImage good = cuda_module_image(tu, "lt_test_softmax", "sm_90");
  std::string path = kernel_cache()->path_for(cuda_module_key(tu, "sm_90"));
  for (const char* damage : {"bit flip", "truncated"}) {
    BOOST_TEST_MESSAGE(damage);
    {
      std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
      BOOST_REQUIRE(f);
      f.seekg(KernelCache::kHeaderSize + 100);
      char c = 0;
      f.read(&c, 1);
      f.seekp(KernelCache::kHeaderSize + 100);
      c ^= 0x10;
      f.write(&c, 1);
    }
    if (std::string(damage) == "truncated") std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
    Counts before;
    CudaModuleImage rebuilt = cuda_module_image(tu, "lt_test_softmax", "sm_90");
    Counts after;
    BOOST_CHECK(!rebuilt.from_disk);
    BOOST_CHECK(rebuilt.image == good.image);
    BOOST_CHECK_EQUAL(after.rejects - before.rejects, 1);
    BOOST_CHECK_EQUAL(after.nvrtc - before.nvrtc, 1);
    BOOST_CHECK_EQUAL(after.stores - before.stores, 1);
    CudaModuleImage again = cuda_module_image(tu, "lt_test_softmax", "sm_90");  // the rebuilt entry is good
    BOOST_CHECK(again.from_disk);
    BOOST_CHECK(again.image == good.image);
  }
}

BOOST_AUTO_TEST_CASE(the_cubin_key_includes_the_architecture_and_the_kernels) {
  TempCache cache;
  std::string tu = softmax_translation_unit();
  BOOST_CHECK(cuda_module_key(tu, "sm_90") != cuda_module_key(tu, "sm_80"));
  BOOST_CHECK(cuda_module_key(tu, "sm_90") != cuda_module_key(tu + "\n", "sm_90"));
  cuda_module_image(tu, "lt_test_softmax", "sm_90");
  Counts before;
  CudaModuleImage other_arch = cuda_module_image(tu, "lt_test_softmax", "sm_80");
  Counts after;
  BOOST_CHECK(!other_arch.from_disk);  // an sm_90 cubin never serves sm_80
  BOOST_CHECK_EQUAL(after.nvrtc - before.nvrtc, 1);
  BOOST_CHECK_EQUAL(cache.files(), 2u);
}

BOOST_AUTO_TEST_CASE(with_the_disk_cache_off_every_request_compiles_and_nothing_is_written) {
  TempCache cache;
  set_kernel_cache_config(KernelCacheConfig{});  // dir "": disabled
  std::string tu = softmax_translation_unit();
  Counts before;
  BOOST_CHECK(!cuda_module_image(tu, "lt_test_softmax", "sm_90").from_disk);
  BOOST_CHECK(!cuda_module_image(tu, "lt_test_softmax", "sm_90").from_disk);
  Counts after;
  BOOST_CHECK_EQUAL(after.nvrtc - before.nvrtc, 2);
  BOOST_CHECK_EQUAL(after.stores - before.stores, 0);
  BOOST_CHECK_EQUAL(cache.files(), 0u);
}
