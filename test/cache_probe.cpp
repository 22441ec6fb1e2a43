// test/cache_probe.cpp — runs a fixed program on the cpu backend and prints
// the kernel/disk-cache counters and a checksum of the results, so a test can
// run it as separate processes sharing one LT_CACHE_DIR.
//
// usage: cache_probe [variant]   (variant changes shapes, hence the kernels)
// output: one line "key=value ..." with kernels_compiled, disk_loads,
//         disk_stores, disk_rejects, disk_write_errors, kernels, checksum, and
//         ok=1 when every output matches the reference evaluator.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "runtime/cpu_backend.h"
#include "ir/builder.h"
#include "ir/counters.h"
#include "ir/error.h"
#include "ir/evaluator.h"
#include "jit/cpu/jit.h"
#include "scheduler/plan.h"
#include "trace/capture.h"

using namespace lt;

namespace {

NodePtr input(Shape shape, uint64_t seed) {
  int64_t n = shape_numel(shape);
  BufferPtr b = make_buffer(DType::Float32, n);
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (int64_t i = 0; i < n; ++i) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    b->as<float>()[i] = static_cast<float>(static_cast<double>(s % 20001) / 10000.0 - 1.0);
  }
  return make_input(std::move(b), std::move(shape));
}

bool close(const BufferPtr& a, const BufferPtr& b) {
  if (a->dtype() != b->dtype() || a->numel() != b->numel()) return false;
  if (a->dtype() != DType::Float32) return std::memcmp(a->data(), b->data(), a->nbytes()) == 0;
  for (int64_t i = 0; i < a->numel(); ++i) {
    double x = a->as<float>()[i], y = b->as<float>()[i];
    if (std::abs(x - y) > 1e-4 * (1 + std::abs(x))) return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t v = argc > 1 ? std::atoll(argv[1]) : 0;
  int64_t rows = 5 + v, cols = 7 + v;
  try {
    NodePtr x = input({rows, cols}, 1 + v), w = input({cols, 3}, 2 + v), b = input({3}, 3 + v);
    NodePtr h = ops::relu(ops::add(ops::matmul(x, w), b));
    NodePtr y = ops::softmax(h, 1);
    NodePtr z = ops::sum(ops::exp(ops::mul(x, ops::scalar(0.5, DType::Float32))), {0});
    NodePtr m = ops::amax(ops::tanh(x), {1});
    // Rows kernels with transcendentals: objects of a few KiB each, so one
    // run writes more than a 16 KiB filesystem holds (test_cache_disk).
    NodePtr s = ops::sum(ops::tanh(ops::mul(x, ops::scalar(2.0, DType::Float32))), {1});
    NodePtr l = ops::logsumexp(x, {0});
    CapturedTrace ct = capture_trace({y, z, m, ops::argmax(x, 1), s, l});
    RunOptions o;
    o.fusion = "none";  // one kernel per op: plenty of cache files
    std::vector<BufferPtr> got = cpu_backend().run(ct.trace, o);
    std::vector<BufferPtr> want = evaluate_reference(ct.trace);
    cpu_wait_for_promotions();  // LT_TIER_UP_MS=0: each kernel's first launch made it hot
    bool ok = got.size() == want.size();
    for (size_t i = 0; ok && i < got.size(); ++i) ok = close(want[i], got[i]);
    // Distinct kernels with a quick tier (jit/cpu/jit.h), and those of them that call math functions there.
    absl::flat_hash_set<Hash128> quick, with_math;
    for (const Kernel& k : cpu_plan_for(ct.trace, o)->kernels) {
      if (!cpu::kernel_has_quick_tier(k)) continue;
      quick.insert(k.hash());
      if (!cpu::kernel_math_functions(k).empty()) with_math.insert(k.hash());
    }
    StableHasher digest;
    for (const BufferPtr& g : got) digest.add_bytes(g->data(), static_cast<size_t>(g->nbytes()));
    // compiled: every object compiled, kernels, the math functions their
    // quick tier calls and the matmul micro-kernels (jit/cpu/jit.h), each of
    // which goes to the disk cache.
    std::printf("kernels=%zu kernels_compiled=%lld compiled=%lld disk_loads=%lld disk_stores=%lld disk_rejects=%lld "
                "disk_write_errors=%lld kernels_promoted=%lld kernels_specialised=%lld math_functions_compiled=%lld runtime_functions_compiled=%lld "
                "quick_kernels=%zu "
                "math_kernels=%zu checksum=%s ok=%d\n",
                cpu_plan_for(ct.trace, o)->kernels.size(), static_cast<long long>(counter_value("kernels_compiled")),
                static_cast<long long>(counter_value("kernels_compiled") + counter_value("math_functions_compiled") +
                                       counter_value("runtime_functions_compiled")),
                static_cast<long long>(counter_value("disk_loads")), static_cast<long long>(counter_value("disk_stores")),
                static_cast<long long>(counter_value("disk_rejects")),
                static_cast<long long>(counter_value("disk_write_errors")),
                static_cast<long long>(counter_value("kernels_promoted")),
                static_cast<long long>(counter_value("kernels_specialised")),
                static_cast<long long>(counter_value("math_functions_compiled")),
                static_cast<long long>(counter_value("runtime_functions_compiled")), quick.size(), with_math.size(),
                digest.finish().hex().c_str(), ok ? 1 : 0);
    return ok ? 0 : 1;
  } catch (const Error& e) {
    std::printf("error=1 ok=0\n");
    std::fprintf(stderr, "cache_probe: %s\n", e.what());
    return 2;
  }
}
