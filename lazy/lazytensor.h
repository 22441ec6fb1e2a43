// lazy/lazytensor.h — the one header a C++ user includes.
#pragma once

#include "ir/counters.h"  // IWYU pragma: export
#include "lazy/tensor.h"  // IWYU pragma: export
