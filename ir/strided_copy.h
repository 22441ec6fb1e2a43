// ir/strided_copy.h — copying a strided view of a buffer into another buffer.
//
// The reference evaluator's strided walk (the one its Slice, Pad and Cat
// use), for layers that need to copy a view of materialised data on the host:
// trace capture copies small non-contiguous slices of loaded data into
// inputs of their own (trace/capture.cpp).
#pragma once

#include <cstdint>

#include "ir/buffer.h"
#include "ir/shape.h"

namespace lt {

/// dst[dst_start + index . dst_strides] = src[src_start + index . src_strides]
/// for every index of `shape`; strides and starts count elements. src and dst
/// have the same dtype.
void copy_strided(const Buffer& src, int64_t src_start, const Shape& src_strides, Buffer& dst, int64_t dst_start,
                  const Shape& dst_strides, const Shape& shape);

}  // namespace lt
