// The C++ API generated from lazy/api_cxx.def: each function and method
// records what its builder records, and each torch alias of ir/api_functions.def
// (concat, swapdims, divide, divide_, ...) is its function.
#define BOOST_TEST_MODULE cxx_api
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "ir/api_rows.h"
#include "lazy/lazytensor.h"

using namespace lt;

namespace {

Tensor matrix() { return Tensor::from_vector<float>({1, -2, 3, -4, 5, -6}, {2, 3}); }

/// The same node structure (op, attrs, dtype, shape, inputs) and the same values.
void check_same(const Tensor& got, const Tensor& want) {
  BOOST_TEST(shape_str(got.shape()) == shape_str(want.shape()));
  BOOST_TEST(dtype_name(got.dtype()) == dtype_name(want.dtype()));
  BOOST_TEST((got.node()->hash == want.node()->hash));
  std::vector<double> g = got.to_vector<double>(), w = want.to_vector<double>();
  BOOST_TEST(g == w, boost::test_tools::per_element());
}

void check_same(const std::vector<Tensor>& got, const std::vector<Tensor>& want) {
  BOOST_TEST_REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) check_same(got[i], want[i]);
}

Tensor built(NodePtr n) { return Tensor(std::move(n)); }

}  // namespace

// The name checks lazy/tensor.cpp applies to every row, on rows they accept and reject.
static_assert(functions_match(ApiRow::cat, "cat concat"));
static_assert(!functions_match(ApiRow::cat, "cat"), "a missing alias fails");
static_assert(!functions_match(ApiRow::cat, "cat concat concatenate"), "a name the row lacks fails");
static_assert(methods_match(ApiRow::permute, "permute"), "a method may have a row of its own (permute_method)");
static_assert(!methods_match(ApiRow::transpose, "transpose"), "a missing method alias fails");
static_assert(aliases_match(ApiRow::div, "div", "divide"));
static_assert(aliases_match(ApiRow::true_divide, "div", "true_divide"), "the function need not be a row name");
static_assert(!aliases_match(ApiRow::div, "div", ""), "a missing alias fails");
static_assert(inplace_match(ApiRow::div, "div_ divide_"));
static_assert(!inplace_match(ApiRow::div, "div_"));

BOOST_AUTO_TEST_CASE(generated_reductions_record_what_their_builders_record) {
  Tensor x = matrix();
  const NodePtr& n = x.node();
  check_same(sum(x, {1}, true, DType::Float64), built(ops::sum(n, {1}, true, DType::Float64)));
  check_same(sum(x), built(ops::sum(n)));
  check_same(mean(x, {0}), built(ops::mean(n, {0})));
  check_same(prod(x, {1}), built(ops::prod(n, {1})));
  check_same(amax(x, {1}), built(ops::amax(n, {1})));
  check_same(amin(x, {0}, true), built(ops::amin(n, {0}, true)));
  check_same(argmax(x, 1), built(ops::argmax(n, 1)));
  check_same(argmin(x), built(ops::argmin(n)));
  check_same(var(x, {1}, 0), built(ops::var(n, {1}, 0)));
  check_same(lt::std(x, {0}, 1, true), built(ops::std(n, {0}, 1, true)));
  check_same(logsumexp(x, {1}), built(ops::logsumexp(n, {1})));
  check_same(cumsum(x, 1, DType::Float64), built(ops::cumsum(n, 1, DType::Float64)));
  check_same(softmax(x, 1), built(ops::softmax(n, 1)));
  check_same(log_softmax(x, 0), built(ops::log_softmax(n, 0)));
}

BOOST_AUTO_TEST_CASE(generated_indexing_and_movement_record_what_their_builders_record) {
  Tensor x = matrix(), y = matrix() * 2;
  const NodePtr& n = x.node();
  Tensor index = Tensor::from_vector<int64_t>({2, 0, 1, 1}, {2, 2});
  check_same(gather(x, 1, index), built(ops::gather(n, 1, index.node())));
  check_same(index_select(x, 1, Tensor::from_vector<int64_t>({2, 0})),
             built(ops::index_select(n, 1, Tensor::from_vector<int64_t>({2, 0}).node())));
  check_same(scatter_add(x, 1, index, y), built(ops::scatter_add(n, 1, index.node(), y.node())));
  Tensor cond = x > 0;
  check_same(where(cond, x, y), built(ops::where(cond.node(), n, y.node())));
  check_same(where(cond, x, 0.5), built(ops::where(cond.node(), n, Scalar(0.5).node())));
  check_same(where(cond, 7, y), built(ops::where(cond.node(), Scalar(7).node(), y.node())));
  check_same(clamp(x, -1.0, std::nullopt), built(ops::clamp(n, Scalar(-1.0).node(), nullptr)));
  check_same(cat({x, y}, 1), built(ops::cat(std::vector<NodePtr>{n, y.node()}, 1)));
  check_same(stack({x, y}), built(ops::stack(std::vector<NodePtr>{n, y.node()}, 0)));
  std::vector<Tensor> by_sizes;
  for (const NodePtr& part : ops::split_sizes(n, {1, 2}, 1)) by_sizes.push_back(built(part));
  check_same(split(x, {1, 2}, 1), by_sizes);
  std::vector<Tensor> by_size;
  for (const NodePtr& part : ops::split(n, 1)) by_size.push_back(built(part));
  check_same(split(x, 1), by_size);
  check_same(chunk(x, 3, 1)[2], built(ops::chunk(n, 3, 1)[2]));
  check_same(transpose(x, 0, 1), built(ops::transpose(n, 0, 1)));
  check_same(permute(x, {1, 0}), built(ops::permute(n, {1, 0})));
  check_same(reshape(x, {3, -1}), built(ops::reshape(n, {3, -1})));
  check_same(squeeze(unsqueeze(x, 0)), built(ops::squeeze(ops::unsqueeze(n, 0))));
  check_same(flatten(x), built(ops::flatten(n)));
  check_same(flip(x, {0, 1}), built(ops::flip(n, {0, 1})));
  check_same(matmul(x, transpose(y, 0, 1)), built(ops::matmul(n, ops::transpose(y.node(), 0, 1))));
}

BOOST_AUTO_TEST_CASE(generated_methods_are_their_functions) {
  Tensor x = matrix(), y = matrix() + 1;
  check_same(x.sum({1}, false, DType::Float64), sum(x, {1}, false, DType::Float64));
  check_same(x.sum(), sum(x));
  check_same(x.mean({0}, true), mean(x, {0}, true));
  check_same(x.transpose(0, 1), transpose(x, 0, 1));
  check_same(x.permute({1, 0}), permute(x, {1, 0}));
  check_same(x.reshape({6}), reshape(x, {6}));
  check_same(x.view({3, 2}), reshape(x, {3, 2}));
  check_same(x.unsqueeze(1).squeeze(1), squeeze(unsqueeze(x, 1), 1));
  check_same(x.flatten(0, 1), flatten(x, 0, 1));
  check_same(x.matmul(y.t()), matmul(x, transpose(y, 0, 1)));
}

BOOST_AUTO_TEST_CASE(every_cxx_alias_is_its_function) {
  Tensor x = matrix(), y = matrix() + 10;
  check_same(concat({x, y}), cat({x, y}));
  check_same(concat({x, y}, -1), cat({x, y}, -1));
  check_same(swapdims(x, 0, 1), transpose(x, 0, 1));
  check_same(x.swapdims(1, 0), x.transpose(1, 0));
  check_same(divide(x, y), div(x, y));
  check_same(divide(x, 4), div(x, 4));
  check_same(divide(2.5, y), div(2.5, y));
  check_same(divide(x, y), x / y);
  check_same(true_divide(x, y), div(x, y));
  check_same(true_divide(x, 4), div(x, 4));
  check_same(swapaxes(x, 0, 1), transpose(x, 0, 1));
  check_same(x.swapaxes(0, 1), x.transpose(0, 1));
  check_same(clip(x, -1.0, 2), clamp(x, -1.0, 2));

  Tensor a = matrix(), b = matrix();
  a.divide_(y);
  b.div_(y);
  check_same(a, b);
  a.divide_(3);
  b.div_(3);
  check_same(a, b);
  a.true_divide_(y);
  b.div_(y);
  check_same(a, b);
  a.true_divide_(2);
  b.div_(2);
  check_same(a, b);

  Tensor c = matrix(), d = matrix();
  c.clip_(std::nullopt, 1.5);
  d.clamp_(std::nullopt, 1.5);
  check_same(c, d);
}

BOOST_AUTO_TEST_CASE(generated_inplace_methods_rebind_as_their_functions_compute) {
  Tensor x = matrix();
  Tensor want = clamp(x, -2.0, 3.0);
  x.clamp_(-2.0, 3.0);
  check_same(x, want);

  // An in-place form raises under its own name: the int64 quotient is float.
  Tensor i = Tensor::from_vector<int64_t>({1, 2, 3});
  for (const std::string op : {"div_", "divide_", "true_divide_"}) {
    try {
      if (op == "div_") i.div_(2);
      else if (op == "divide_") i.divide_(2);
      else i.true_divide_(2);
      BOOST_ERROR(op << " of an int64 tensor did not raise");
    } catch (const Error& e) {
      BOOST_TEST(std::string(e.what()).rfind(op + ": result type", 0) == 0, e.what());
    }
  }
}

BOOST_AUTO_TEST_CASE(generated_functions_raise_for_an_undefined_tensor) {
  BOOST_CHECK_THROW(sum(Tensor()), Error);
  BOOST_CHECK_THROW(concat({matrix(), Tensor()}), Error);
  BOOST_CHECK_THROW(Tensor().swapdims(0, 1), Error);
  BOOST_CHECK_THROW(gather(matrix(), 1, Tensor()), Error);
}
