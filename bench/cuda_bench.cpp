// bench/cuda_bench.cpp — device time of the cuda backend's kernels on a few
// workloads, against the H200's limits (4.8 TB/s HBM3e, ~67 TFLOP/s FP32
// without tensor cores). Prints "BENCH <name> <ms> <rate> <unit> <pct>" lines
// that scripts/device-check turns into its closing table.
#include <cstdio>
#include <random>

#include "runtime/cuda_backend.h"
#include "ir/builder.h"
#include "ir/node.h"
#include "jit/cuda/driver.h"
#include "trace/capture.h"

using namespace lt;

namespace {

NodePtr random_input(DType d, Shape shape, uint32_t seed) {
  BufferPtr b = make_buffer(d, shape_numel(shape));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  if (d == DType::Float32)
    for (int64_t i = 0; i < b->numel(); ++i) b->as<float>()[i] = u(gen);
  return make_input(std::move(b), std::move(shape));
}

void report(const char* name, const std::vector<NodePtr>& roots, double work, const char* unit, double peak) {
  CapturedTrace ct = capture_trace(roots);
  std::vector<double> ms = cuda_kernel_times_ms(ct.trace, 20);
  double total = 0;
  for (double m : ms) total += m;
  double rate = total > 0 ? work / (total * 1e-3) / 1e9 : 0;
  std::printf("BENCH %-22s %9.4f ms %10.1f %-7s %5.1f%% kernels=%zu\n", name, total, rate, unit, 100.0 * rate / peak,
              ms.size());
  std::fflush(stdout);
}

}  // namespace

int main() {
  if (!cuda::device_available()) {
    std::printf("bench_cuda: skipped: no CUDA device is available: %s\n", cuda::device_unavailable_reason().c_str());
    return 0;
  }
  const cuda::DeviceInfo& dev = cuda::device_info();
  std::printf("device: %s, %d SMs, cc %d.%d, driver %d\n", dev.name.c_str(), dev.sm_count, dev.cc_major, dev.cc_minor,
              dev.driver_version);
  const double hbm = 4800, fp32 = 67000;  // GB/s, GFLOP/s
  const DType f = DType::Float32;
  int64_t n = int64_t{1} << 26;
  NodePtr x = random_input(f, {n}, 1);
  NodePtr half = ops::scalar(0.5, f);
  report("add_mul_64M", {ops::add(ops::mul(x, half), half)}, 2.0 * 4 * n, "GB/s", hbm);
  report("gelu_64M", {ops::gelu(x)}, 2.0 * 4 * n, "GB/s", hbm);
  NodePtr rows = random_input(f, {8192, 4096}, 2);
  report("softmax_8192x4096", {ops::softmax(rows, -1)}, 2.0 * 4 * 8192 * 4096, "GB/s", hbm);
  report("layer_norm_8192x4096", {ops::layer_norm(rows, {4096}, nullptr, nullptr)}, 2.0 * 4 * 8192 * 4096, "GB/s", hbm);
  report("sum_rows_8192x4096", {ops::sum(rows, {1})}, 4.0 * 8192 * 4096, "GB/s", hbm);
  report("sum_all_64M", {ops::sum(x)}, 4.0 * n, "GB/s", hbm);
  NodePtr a = random_input(f, {2048, 2048}, 3), b = random_input(f, {2048, 2048}, 4);
  report("matmul_2048_f32", {ops::matmul(a, b)}, 2.0 * 2048 * 2048 * 2048, "GFLOP/s", fp32);
  return 0;
}
