// Built by test/install_consumer.sh against the installed package.
#include <cstdio>

#include <lazy/lazytensor.h>

int main() {
  lt::Tensor x = lt::arange(0, 4, 1, lt::DType::Float32);
  float s = (x * x).sum().item<float>();
  std::printf("%g\n", s);
  return s == 14.0f ? 0 : 1;
}
