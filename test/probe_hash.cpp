// test/probe_hash.cpp — prints the trace hash of a fixed program, so a test
// can check that the hash is the same in a separate process.
#include <cstdio>

#include "lazy/lazytensor.h"
#include "trace/capture.h"

int main() {
  using namespace lt;
  Tensor x = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor y = softmax(relu(x * 2.0 + 1.0), 1).sum({0});
  std::printf("%s\n", capture_trace({y.node()}).trace.hash.hex().c_str());
  return 0;
}
