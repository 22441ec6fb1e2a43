// examples/demo.cpp — a small program through the lazy C++ API: records ops,
// prints the captured trace, syncs and prints the result and counters.
#include <cstdio>

#include "lazy/lazytensor.h"
#include "trace/capture.h"
#include "trace/text.h"

int main() {
  using namespace lt;
  Tensor x = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor w = arange(0, 3, 1, DType::Float32).reshape({3, 1});
  Tensor h = relu(matmul(x, w) - 4.0) + 0.5 * sigmoid(x).sum({1}, true);
  Tensor y = softmax(h.reshape({1, 2}), -1);

  std::printf("recorded %lld nodes, evaluated %lld so far (nothing runs before a sync)\n",
              static_cast<long long>(counter_value("nodes_recorded")),
              static_cast<long long>(counter_value("nodes_evaluated")));
  CapturedTrace captured = capture_trace({y.node()});
  std::printf("\n--- trace ---\n%s\n", print_trace(captured.trace).c_str());

  std::vector<float> values = y.to_vector<float>();
  std::printf("softmax = [%g, %g]\n", values[0], values[1]);
  for (const auto& [name, value] : counters_snapshot()) std::printf("  %-20s %lld\n", name.c_str(), static_cast<long long>(value));
  return 0;
}
