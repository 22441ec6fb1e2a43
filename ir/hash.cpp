// ir/hash.cpp — Hash128 formatting.
#include "ir/hash.h"

#include <cstdio>

namespace lt {

std::string Hash128::hex() const {
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(hi),
                static_cast<unsigned long long>(lo));
  return buf;
}

}  // namespace lt
