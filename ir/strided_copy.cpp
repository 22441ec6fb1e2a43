// ir/strided_copy.cpp — the public entry to the evaluator's strided copy.
#include "ir/strided_copy.h"

#include "ir/evaluator_impl.h"

namespace lt {

void copy_strided(const Buffer& src, int64_t src_start, const Shape& src_strides, Buffer& dst, int64_t dst_start,
                  const Shape& dst_strides, const Shape& shape) {
  LT_CHECK(src.dtype() == dst.dtype(), ErrorKind::Runtime, "copy_strided: ", dtype_name(src.dtype()), " into ",
           dtype_name(dst.dtype()));
  eval_detail::copy_strided(src, src_start, src_strides, dst, dst_start, dst_strides, shape);
}

}  // namespace lt
