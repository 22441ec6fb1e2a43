// Tests for dtype promotion and shape helpers (ir/dtype.h, ir/shape.h).
#define BOOST_TEST_MODULE dtype_shape
#include <boost/test/unit_test.hpp>

#include "ir/dtype.h"
#include "ir/error.h"
#include "ir/shape.h"

using namespace lt;

static DType rt(std::initializer_list<PromotionOperand> ops) { return result_type(ops.begin(), ops.size()); }

BOOST_AUTO_TEST_CASE(tensor_tensor_promotion_takes_the_wider_type) {
  BOOST_TEST((promote_types(DType::Int32, DType::Float32) == DType::Float32));
  BOOST_TEST((promote_types(DType::Bool, DType::Int32) == DType::Int32));
  BOOST_TEST((promote_types(DType::Float32, DType::Float64) == DType::Float64));
  BOOST_TEST((promote_types(DType::Int64, DType::Float32) == DType::Float32));
}

BOOST_AUTO_TEST_CASE(wrapped_scalars_only_change_the_category) {
  using R = OperandRank;
  BOOST_TEST((rt({{DType::Int32, R::Tensor}, {DType::Int64, R::Scalar}}) == DType::Int32));
  BOOST_TEST((rt({{DType::Int32, R::Tensor}, {DType::Float64, R::Scalar}}) == DType::Float32));
  BOOST_TEST((rt({{DType::Float32, R::Tensor}, {DType::Float64, R::Scalar}}) == DType::Float32));
  BOOST_TEST((rt({{DType::Bool, R::Tensor}, {DType::Int64, R::Scalar}}) == DType::Int64));
}

BOOST_AUTO_TEST_CASE(zero_dim_tensors_rank_below_dimensioned_ones) {
  using R = OperandRank;
  BOOST_TEST((rt({{DType::Float32, R::Tensor}, {DType::Float64, R::ZeroDim}}) == DType::Float32));
  BOOST_TEST((rt({{DType::Int32, R::Tensor}, {DType::Float64, R::ZeroDim}}) == DType::Float64));
  BOOST_TEST((rt({{DType::Int32, R::Tensor}, {DType::Int64, R::ZeroDim}}) == DType::Int32));
  BOOST_TEST((rt({{DType::Int64, R::ZeroDim}, {DType::Float64, R::Scalar}}) == DType::Float32));
}

BOOST_AUTO_TEST_CASE(broadcasting_follows_numpy) {
  BOOST_TEST((broadcast_shapes("add", Shape{3, 1}, Shape{4}) == Shape{3, 4}));
  BOOST_TEST((broadcast_shapes("add", Shape{}, Shape{2, 0}) == Shape{2, 0}));
  BOOST_TEST((broadcast_shapes("add", Shape{5, 1, 1}, Shape{2, 1}) == Shape{5, 2, 1}));
  BOOST_CHECK_THROW(broadcast_shapes("add", Shape{3}, Shape{4}), Error);
}

BOOST_AUTO_TEST_CASE(bad_dims_raise_index_errors_naming_the_op) {
  BOOST_TEST(normalize_dim("sum", -1, 3) == 2);
  try {
    normalize_dim("sum", 3, 3);
    BOOST_FAIL("expected an error");
  } catch (const Error& e) {
    BOOST_TEST((e.kind() == ErrorKind::Index));
    BOOST_TEST(std::string(e.what()).find("sum") != std::string::npos);
  }
}
