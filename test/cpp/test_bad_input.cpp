// The bad-input battery (docs/reliability.md): malformed use of the C++ API,
// one test case per category. Each kind of misuse must raise an lt::Error of
// the right kind whose message names the op, the shapes and what was
// expected, or give the IEEE result PyTorch gives; and after each one the
// process lives and every other tensor (materialised or still pending) keeps
// its value. test/python/test_bad_input.py is the Python twin, which also
// compares exception types with PyTorch 1.13.
#define BOOST_TEST_MODULE bad_input
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "cache/kernel_cache.h"
#if LT_HAVE_CPU_JIT
#include "runtime/cpu_backend.h"
#endif
#include "ir/counters.h"
#include "lazy/lazytensor.h"
#include "lazy/runtime.h"

using namespace lt;

namespace {

/// While alive: no disk cache (whose kernels an earlier run may have stored)
/// and no interpreter tier, so a new kernel is compiled at its first launch.
struct CompiledOnly {
  CompiledOnly() {
    set_kernel_cache_config({"", 0});
#if LT_HAVE_CPU_JIT
    interpreter = cpu_interpreter();
    cpu_set_interpreter(false);
#endif
  }
  ~CompiledOnly() {
    set_kernel_cache_config(KernelCacheConfig::from_env());
#if LT_HAVE_CPU_JIT
    cpu_set_interpreter(interpreter);
#endif
  }
  bool interpreter = false;
};

int g_kinds = 0;  ///< kinds of misuse tried, over every test case

const char* kind_name(ErrorKind k) {
  switch (k) {
    case ErrorKind::Runtime: return "Runtime";
    case ErrorKind::Index: return "Index";
    case ErrorKind::Type: return "Type";
    case ErrorKind::Value: return "Value";
    case ErrorKind::NotImplemented: return "NotImplemented";
  }
  return "?";
}

/// Tensors that must come through every failure unchanged: one materialised,
/// one pending (recorded before the failure, computed after it).
struct Bystanders {
  Tensor materialised = Tensor::from_vector<float>({1, 2, 3, 4}, {2, 2});
  Tensor pending = materialised * 2.0 + 1.0;
  uint64_t version = materialised.version();
  void check() const {
    BOOST_CHECK(materialised.version() == version);
    BOOST_CHECK((materialised.to_vector<float>() == std::vector<float>{1, 2, 3, 4}));
    BOOST_CHECK((pending.to_vector<float>() == std::vector<float>{3, 5, 7, 9}));
  }
};

/// `f` must raise an lt::Error of `kind` whose message contains every part.
void expect_error(const std::string& what, ErrorKind kind, std::vector<std::string> parts, const std::function<void()>& f) {
  ++g_kinds;
  BOOST_TEST_CONTEXT(what) {
    Bystanders bystanders;
    try {
      f();
      BOOST_ERROR("no error raised");
    } catch (const Error& e) {
      std::string msg = e.what();
      BOOST_TEST_MESSAGE(what << ": " << msg);
      BOOST_CHECK_MESSAGE(e.kind() == kind, "kind " << kind_name(e.kind()) << ", expected " << kind_name(kind) << ": " << msg);
      for (const std::string& p : parts)
        BOOST_CHECK_MESSAGE(msg.find(p) != std::string::npos, "message lacks '" << p << "': " << msg);
    } catch (const std::exception& e) {
      BOOST_ERROR("not an lt::Error: " << e.what());
    }
    bystanders.check();
  }
}

/// `f` must not raise; `check` then judges the result (IEEE values, empty shapes).
void expect_result(const std::string& what, const std::function<void()>& f) {
  ++g_kinds;
  BOOST_TEST_CONTEXT(what) {
    Bystanders bystanders;
    try {
      f();
    } catch (const std::exception& e) {
      BOOST_ERROR("raised: " << e.what());
    }
    bystanders.check();
  }
}

Tensor t23() { return Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3}); }
Tensor i64(std::vector<int64_t> v) { return Tensor::from_vector<int64_t>(v); }
Tensor f32(std::vector<float> v) { return Tensor::from_vector<float>(v); }
bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }
constexpr float kInf = std::numeric_limits<float>::infinity();

}  // namespace

BOOST_AUTO_TEST_CASE(shape_mismatches_name_the_op_and_both_shapes) {
  using K = ErrorKind;
  expect_error("add of unbroadcastable shapes", K::Runtime, {"add", "[2, 3]", "[4]", "broadcast"}, [] { add(t23(), ones({4})); });
  expect_error("mul of unbroadcastable shapes", K::Runtime, {"mul", "[2, 3]", "[3, 2]"}, [] { mul(t23(), ones({3, 2})); });
  expect_error("where with a mismatched condition", K::Runtime, {"where", "[5]"}, [] { where(ones({5}, DType::Bool), t23(), t23()); });
  expect_error("matmul inner dims differ", K::Runtime, {"matmul", "[2, 3]", "3 != 2"}, [] { matmul(t23(), t23()); });
  expect_error("matmul of a 0-d tensor", K::Runtime, {"matmul"}, [] { matmul(scalar_tensor(2.0), t23()); });
  expect_error("cat of different sizes off the cat dim", K::Runtime, {"cat", "[2, 3]", "[2, 4]"}, [] { lt::cat({t23(), ones({2, 4})}, 0); });
  expect_error("cat of different ranks", K::Runtime, {"cat", "[2, 3]", "[3]"}, [] { lt::cat({t23(), ones({3})}, 0); });
  expect_error("cat of no tensors", K::Runtime, {"cat"}, [] { lt::cat(std::vector<Tensor>{}, 0); });
  expect_error("stack of different shapes", K::Runtime, {"stack", "[2, 3]", "[3, 2]"}, [] { stack({t23(), ones({3, 2})}, 0); });
  expect_error("linear with a mismatched weight", K::Runtime, {"[2, 3]", "[5, 4]", "3 != 5"}, [] { linear(t23(), ones({4, 5})); });
  expect_error("expand to an incompatible shape", K::Runtime, {"expand", "[2, 3]", "[2, 4]"}, [] { t23().expand({2, 4}); });
  expect_error("in-place add whose result would grow the tensor", K::Runtime, {"add_", "[3]", "[2, 3]"},
               [] { Tensor a = ones({3}); a.add_(t23()); });
  expect_error("cross_entropy target of the wrong batch size", K::Value, {"cross_entropy", "batch_size (2)", "[3]"},
               [] { cross_entropy(t23(), i64({0, 1, 2})); });
  expect_error("layer_norm over a mismatched trailing shape", K::Runtime, {"layer_norm", "[4]", "[2, 3]"},
               [] { layer_norm(t23(), {4}); });
  expect_error("masked_fill with an unbroadcastable mask", K::Runtime, {"masked_fill", "[4]"},
               [] { masked_fill(t23(), ones({4}, DType::Bool), 0.0); });
  expect_error("index_add with a source of the wrong size", K::Runtime, {"index_add"},
               [] { index_add(t23(), 0, i64({0}), ones({2, 3})); });
  expect_error("gather with an index of another rank", K::Runtime, {"gather"}, [] { gather(t23(), 1, i64({0, 1})); });
  expect_error("backward of a non-scalar without a gradient", K::Runtime, {"backward", "[2, 3]"}, [] {
    Tensor w = t23().requires_grad_();
    (w * 2.0).backward();
  });
  expect_error("backward with a gradient of the wrong shape", K::Runtime, {"backward", "[3]", "[2, 3]"}, [] {
    Tensor w = t23().requires_grad_();
    (w * 2.0).backward(ones({3}));
  });
  expect_error("copy_ from a shape that does not broadcast", K::Runtime, {"[4]", "[2, 3]"}, [] { t23().copy_(ones({4})); });
}

BOOST_AUTO_TEST_CASE(dims_out_of_range_are_index_errors_naming_the_range) {
  using K = ErrorKind;
  expect_error("sum over dim 2 of a 2-d tensor", K::Index, {"sum", "range", "2"}, [] { t23().sum({2}); });
  expect_error("softmax over dim -3", K::Index, {"softmax", "range", "-3"}, [] { softmax(t23(), -3); });
  expect_error("transpose of dim 5", K::Index, {"transpose", "range"}, [] { t23().transpose(0, 5); });
  expect_error("permute with a repeated dim", K::Runtime, {"permute", "repeated"}, [] { t23().permute({0, 0}); });
  expect_error("permute with too few dims", K::Runtime, {"permute"}, [] { t23().permute({0}); });
  expect_error("squeeze of dim 4", K::Index, {"squeeze", "range"}, [] { t23().squeeze(4); });
  expect_error("unsqueeze at dim 4 of a 2-d tensor", K::Index, {"unsqueeze", "range"}, [] { t23().unsqueeze(4); });
  expect_error("flatten with start after end", K::Runtime, {"flatten"}, [] { ones({2, 3, 4}).flatten(2, 1); });
  expect_error("select past the end", K::Index, {"select", "out of bounds", "2"}, [] { select(t23(), 0, 2); });
  expect_error("narrow past the end", K::Runtime, {"narrow"}, [] { narrow(t23(), 1, 2, 5); });
  expect_error("slice with step 0", K::Value, {"slice", "step"}, [] { t23().slice(1, 0, 3, 0); });
  expect_error("cat along dim 3", K::Index, {"cat", "range"}, [] { lt::cat({t23(), t23()}, 3); });
  expect_error("argmax over dim 2", K::Index, {"argmax", "range"}, [] { argmax(t23(), 2); });
  expect_error("split with size 0", K::Runtime, {"split"}, [] { split(t23(), int64_t{0}, 1); });
  expect_error("chunk into 0 chunks", K::Runtime, {"chunk"}, [] { chunk(t23(), 0, 1); });
  expect_error("flip of a repeated dim", K::Runtime, {"flip"}, [] { flip(t23(), {1, 1}); });
  expect_error("size of dim 2", K::Index, {"size", "range"}, [] { t23().size(2); });
  expect_error("cumsum over dim 2", K::Index, {"cumsum", "range"}, [] { cumsum(t23(), 2); });
}

BOOST_AUTO_TEST_CASE(bad_reshapes_and_bad_shapes_name_the_shapes) {
  using K = ErrorKind;
  expect_error("reshape to another element count", K::Runtime, {"reshape", "[4, 2]", "6"}, [] { t23().reshape({4, 2}); });
  expect_error("reshape with two -1", K::Runtime, {"reshape", "-1"}, [] { t23().reshape({-1, -1}); });
  expect_error("reshape with a negative size", K::Runtime, {"reshape", "-2"}, [] { t23().reshape({-2, 3}); });
  expect_error("view with an impossible -1", K::Runtime, {"reshape", "[-1, 4]"}, [] { t23().view({-1, 4}); });
  expect_error("from_vector with too few values", K::Runtime, {"from_vector", "[2, 3]"}, [] {
    Tensor::from_vector<float>({1, 2, 3}, {2, 3});
  });
  expect_error("zeros with a negative dim", K::Runtime, {"negative", "[2, -1]"}, [] { zeros({2, -1}); });
  expect_error("a shape whose element count overflows int64", K::Runtime, {"[4294967296, 4294967296]", "int64"},
               [] { zeros({int64_t{1} << 32, int64_t{1} << 32}); });
  expect_error("expand to a shape whose element count overflows", K::Runtime, {"int64"},
               [] { ones({1, 1}).expand({int64_t{1} << 40, int64_t{1} << 40}); });
}

BOOST_AUTO_TEST_CASE(wrong_dtypes_name_the_op_and_the_dtype) {
  using K = ErrorKind;
  expect_error("mean of int64", K::Runtime, {"mean", "i64"}, [] { mean(i64({1, 2})); });
  expect_error("gather with a float index", K::Runtime, {"gather", "int64"}, [] { gather(t23(), 1, ones({2, 1})); });
  expect_error("index_select with a float index", K::Runtime, {"index_select", "int64"}, [] { index_select(t23(), 0, ones({1})); });
  expect_error("embedding with a float index", K::Runtime, {"embedding"}, [] { embedding(t23(), ones({2})); });
  expect_error("requires_grad_ on int64", K::Runtime, {"requires_grad_", "floating"}, [] { i64({1}).requires_grad_(); });
  expect_error("cross_entropy with a float target of the wrong shape", K::Runtime, {"cross_entropy"},
               [] { cross_entropy(t23(), ones({5})); });
  expect_error("item of a 6-element tensor", K::Runtime, {"item", "6", "[2, 3]"}, [] { t23().item<float>(); });
  expect_error("in-place add of float into int64", K::Runtime, {"add_", "i64"}, [] {
    Tensor a = i64({1, 2});
    a.add_(f32({0.5f, 0.5f}));
  });
  expect_error("one_hot of a float tensor", K::Runtime, {"one_hot"}, [] { one_hot(f32({0, 1})); });
  expect_error("randint with low >= high", K::Runtime, {"randint"}, [] { randint(5, 5, {3}, 1); });
  expect_error("arange with step 0", K::Runtime, {"arange", "step"}, [] { arange(0, 5, 0); });
  expect_error("linspace with negative steps", K::Runtime, {"linspace"}, [] { linspace(0, 1, -1); });
  expect_error("use of an undefined tensor", K::Runtime, {"undefined"}, [] { Tensor() + 1.0; });
  expect_error("backward of a tensor that needs no grad", K::Runtime, {"backward", "does not require grad"},
               [] { t23().sum().backward(); });
}

BOOST_AUTO_TEST_CASE(an_index_out_of_range_found_inside_a_kernel_raises_at_sync_and_loses_nothing) {
  using K = ErrorKind;
  auto raises_twice = [](const std::function<Tensor()>& make) {
    Tensor bad = make();
    bool first = false;
    try {
      bad.to_vector<float>();
    } catch (const Error&) {
      first = true;
    }
    BOOST_CHECK_MESSAGE(first, "the first sync did not raise");
    bad.to_vector<float>();  // still raises: nothing was realised, never a wrong value
  };
  expect_error("index_select past the end", K::Index, {"index", "out of", "5"},
               [&] { raises_twice([] { return index_select(t23(), 0, i64({0, 5})); }); });
  expect_error("index_select below -size", K::Index, {"index", "-3"},
               [&] { raises_twice([] { return index_select(t23(), 0, i64({-3})); }); });
  // PyTorch raises RuntimeError for gather, scatter_add and one_hot, IndexError for the others.
  expect_error("gather past the end", K::Runtime, {"index", "7"},
               [&] { raises_twice([] { return gather(t23(), 1, Tensor::from_vector<int64_t>({0, 7}, {2, 1})); }); });
  expect_error("embedding of a missing row", K::Index, {"index", "9"},
               [&] { raises_twice([] { return embedding(t23(), i64({1, 9})); }); });
  expect_error("cross_entropy with a class past the last", K::Index, {"4"},
               [&] { raises_twice([] { return cross_entropy(ones({2, 4}), i64({1, 4})); }); });
  expect_error("one_hot with too few classes", K::Runtime, {"index 3", "size 2"},
               [&] { raises_twice([] { return one_hot(i64({0, 3}), 2).to(DType::Float32); }); });
  expect_error("scatter_add past the end", K::Runtime, {"index", "3"}, [&] {
    raises_twice([] { return scatter_add(zeros({3}), 0, i64({0, 3}), ones({2})); });
  });
  expect_error("index_add past the end", K::Index, {"index", "2"}, [&] {
    raises_twice([] { return index_add(t23(), 0, i64({2}), ones({1, 3})); });
  });
  // A tensor computed from the bad one is bad too; a tensor beside it in the same sync is not lost.
  expect_error("a consumer of a bad gather", K::Index, {"index"}, [&] {
    Tensor bad = index_select(t23(), 0, i64({4}));
    Tensor good = t23() * 10.0;
    Tensor consumer = bad.sum() + 1.0;
    try {
      lt::sync({good, consumer});
    } catch (const Error&) {
    }
    BOOST_CHECK(good.to_vector<float>()[5] == 60.0f);
    consumer.item<float>();
  });
}

BOOST_AUTO_TEST_CASE(nan_and_inf_inputs_give_the_ieee_results_pytorch_gives) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  expect_result("log of 0 and of -1", [] {
    std::vector<float> v = lt::log(f32({0, -1, 1})).to_vector<float>();
    BOOST_CHECK(v[0] == -kInf);
    BOOST_CHECK(std::isnan(v[1]));
    BOOST_CHECK(v[2] == 0.0f);
  });
  expect_result("division by zero", [] {
    std::vector<float> v = (f32({1, -1, 0}) / f32({0, 0, 0})).to_vector<float>();
    BOOST_CHECK(v[0] == kInf);
    BOOST_CHECK(v[1] == -kInf);
    BOOST_CHECK(std::isnan(v[2]));
  });
  expect_result("sqrt of a negative", [] { BOOST_CHECK(std::isnan(lt::sqrt(f32({-4})).item<float>())); });
  expect_result("exp overflowing float32", [] { BOOST_CHECK(lt::exp(f32({100, -200})).to_vector<float>() == std::vector<float>({kInf, 0})); });
  expect_result("NaN through sum, mean, matmul and a fused chain", [=] {
    Tensor x = f32({1, nan, 3, 4});
    BOOST_CHECK(std::isnan(x.sum().item<float>()));
    BOOST_CHECK(std::isnan(x.mean().item<float>()));
    std::vector<float> m = matmul(x.reshape({2, 2}), ones({2, 2})).to_vector<float>();
    BOOST_CHECK(std::isnan(m[0]) && std::isnan(m[1]) && !std::isnan(m[2]) && m[3] == 7.0f);
    std::vector<float> c = (lt::exp(x) * 2.0 + 1.0).to_vector<float>();
    BOOST_CHECK(std::isnan(c[1]) && !std::isnan(c[0]));
  });
  expect_result("max, min, amax and relu propagate NaN", [=] {
    Tensor x = f32({1, nan, 3});
    BOOST_CHECK(std::isnan(x.max().item<float>()));
    BOOST_CHECK(std::isnan(x.min().item<float>()));
    BOOST_CHECK(std::isnan(amax(x.reshape({1, 3}), {1}).item<float>()));
    BOOST_CHECK(std::isnan(relu(x).to_vector<float>()[1]));
    BOOST_CHECK(std::isnan(maximum(x, f32({0, 0, 0})).to_vector<float>()[1]));
  });
  expect_result("argmax points at the NaN", [=] { BOOST_CHECK_EQUAL(argmax(f32({1, nan, 3})).item<int64_t>(), 1); });
  expect_result("softmax of +inf gives NaN, of -inf a zero", [] {
    std::vector<float> v = softmax(f32({kInf, 1}), 0).to_vector<float>();
    BOOST_CHECK(std::isnan(v[0]));
    std::vector<float> w = softmax(f32({-kInf, 1}), 0).to_vector<float>();
    BOOST_CHECK(w[0] == 0.0f && w[1] == 1.0f);
  });
  expect_result("isnan and isfinite", [=] {
    BOOST_CHECK(isnan(f32({nan, kInf, 1})).to_vector<bool>() == std::vector<bool>({true, false, false}));
    BOOST_CHECK(isfinite(f32({nan, kInf, 1})).to_vector<bool>() == std::vector<bool>({false, false, true}));
  });
  expect_result("inf minus inf and inf times zero", [] {
    std::vector<float> v = (f32({kInf, kInf}) - f32({kInf, 0})).to_vector<float>();
    BOOST_CHECK(std::isnan(v[0]) && v[1] == kInf);
    BOOST_CHECK(std::isnan((f32({kInf}) * 0.0).item<float>()));
  });
  expect_result("clamp keeps NaN", [=] { BOOST_CHECK(std::isnan(clamp(f32({nan}), Scalar(0.0), Scalar(1.0)).item<float>())); });
  expect_result("NaN compares unequal to itself", [=] {
    BOOST_CHECK(eq(f32({nan}), f32({nan})).to_vector<bool>()[0] == false);
    BOOST_CHECK(ne(f32({nan}), f32({nan})).to_vector<bool>()[0] == true);
  });
  expect_result("negative zero survives", [] { BOOST_CHECK(same_bits((f32({0}) * -1.0).item<float>(), -0.0f)); });
}

BOOST_AUTO_TEST_CASE(empty_tensors_compute_what_pytorch_computes_or_raise) {
  using K = ErrorKind;
  expect_result("sum and prod of an empty tensor", [] {
    BOOST_CHECK_EQUAL(zeros({0}).sum().item<float>(), 0.0f);
    BOOST_CHECK_EQUAL(prod(zeros({0})).item<float>(), 1.0f);
    BOOST_CHECK(sum(zeros({0, 3}), {0}).to_vector<float>() == std::vector<float>({0, 0, 0}));
  });
  expect_result("mean of an empty tensor is NaN", [] { BOOST_CHECK(std::isnan(zeros({0}).mean().item<float>())); });
  expect_result("matmul with an empty dim", [] {
    BOOST_CHECK((matmul(zeros({0, 3}), ones({3, 2})).shape() == Shape{0, 2}));
    BOOST_CHECK(matmul(zeros({0, 3}), ones({3, 2})).to_vector<float>().empty());
    BOOST_CHECK(matmul(ones({2, 0}), ones({0, 3})).to_vector<float>() == std::vector<float>(6, 0.0f));
  });
  expect_result("elementwise, softmax and cat of empty tensors", [] {
    BOOST_CHECK((lt::exp(zeros({0, 4})) + 1.0).to_vector<float>().empty());
    BOOST_CHECK(softmax(zeros({0, 4}), 1).to_vector<float>().empty());
    BOOST_CHECK(lt::cat({t23(), zeros({0, 3})}, 0).to_vector<float>() == t23().to_vector<float>());
  });
  expect_result("index_select with an empty index", [] {
    BOOST_CHECK((index_select(t23(), 0, i64({})).shape() == Shape{0, 3}));
    BOOST_CHECK(index_select(t23(), 0, i64({})).to_vector<float>().empty());
  });
  expect_error("max of an empty tensor", K::Runtime, {"max", "empty"}, [] { zeros({0}).max(); });
  expect_error("amax over an empty dim", K::Index, {"amax", "dim 0", "[0, 3]"}, [] { amax(zeros({0, 3}), {0}); });
  expect_error("argmax of an empty tensor", K::Index, {"argmax", "[0]"}, [] { argmax(zeros({0})); });
  expect_error("item of an empty tensor", K::Runtime, {"item", "0"}, [] { zeros({0}).item<float>(); });
}

BOOST_AUTO_TEST_CASE(an_allocation_too_large_raises_and_the_process_goes_on) {
  // 2^44 float32 elements = 64 TiB: the shape is legal, the sync cannot allocate it.
  expect_error("a 64 TiB tensor", ErrorKind::Runtime, {"out of memory", "bytes"}, [] {
    Tensor huge = zeros({int64_t{1} << 22, int64_t{1} << 22}) + 1.0;
    huge.sum().item<float>();
  });
  expect_error("a 64 TiB intermediate beside a good tensor", ErrorKind::Runtime, {"out of memory"}, [] {
    Tensor good = t23() + 1.0;
    Tensor huge = matmul(ones({int64_t{1} << 22, 1}), ones({1, int64_t{1} << 22}));
    try {
      lt::sync({good, huge});
    } catch (const Error&) {
      BOOST_CHECK(good.to_vector<float>()[0] == 2.0f);
      throw;
    }
  });
}

BOOST_AUTO_TEST_CASE(a_tensor_is_usable_after_a_failed_op_on_it) {
  expect_result("a failed in-place op changes nothing", [] {
    Tensor a = t23();
    uint64_t v = a.version();
    BOOST_CHECK_THROW(a.add_(ones({4})), Error);
    BOOST_CHECK_THROW(a.copy_(ones({5})), Error);
    BOOST_CHECK_EQUAL(a.version(), v);
    BOOST_CHECK(a.to_vector<float>() == t23().to_vector<float>());
    a.add_(1.0);
    BOOST_CHECK_EQUAL(a.to_vector<float>()[0], 2.0f);
  });
  expect_result("a pending tensor whose sync failed is used again", [] {
    Tensor a = t23() * 3.0;  // pending
    Tensor bad = index_select(a, 0, i64({9}) + i64({0}));  // a pending index: checked at the sync
    BOOST_CHECK_THROW(bad.to_vector<float>(), Error);
    BOOST_CHECK(!a.is_materialized() || a.to_vector<float>()[5] == 18.0f);
    BOOST_CHECK_EQUAL((a + 1.0).to_vector<float>()[5], 19.0f);
    BOOST_CHECK_EQUAL(index_select(a, 0, i64({1})).to_vector<float>()[0], 12.0f);
  });
  expect_result("a tensor whose kernel failed to compile computes once the compiler works", [] {
    if (runtime::backend_name() != "cpu") return;
    // Off the disk cache, whose kernels an earlier run may have stored, and
    // the interpreter tier: this kernel must really compile.
    CompiledOnly compiled_only;
    Tensor a = lt::exp(t23()) * 0.5 - 0.25;  // a new expression: its kernels are not cached yet
    ::setenv("LT_TEST_FAIL_COMPILE", "1", 1);
    bool raised = false;
    try {
      a.to_vector<float>();
    } catch (const Error& e) {
      raised = std::string(e.what()).find("failed to compile") != std::string::npos;
    }
    ::unsetenv("LT_TEST_FAIL_COMPILE");
    BOOST_CHECK(raised);
    BOOST_CHECK_CLOSE(a.to_vector<float>()[0], std::exp(1.0f) * 0.5f - 0.25f, 1e-4);
  });
  expect_result("sync() of everything computes all it can and raises the bad tensor's error", [] {
    Tensor x = t23() * 2.0;
    Tensor bad = index_select(x, 0, i64({0, 7}) + i64({0})) + 1.0;  // pending, out of range: found inside a kernel
    Tensor good = x + 1.0, total = (x * 3.0).sum();
    int64_t failed = counter_value("failed_tensors");
    std::string msg;
    try {
      lt::sync();
    } catch (const Error& e) {
      msg = e.what();
      BOOST_CHECK(e.kind() == ErrorKind::Index);
    }
    BOOST_CHECK_MESSAGE(msg.find("index 7") != std::string::npos, msg);
    BOOST_CHECK(good.is_materialized() && total.is_materialized() && x.is_materialized());
    BOOST_CHECK_EQUAL(good.to_vector<float>()[5], 13.0f);
    BOOST_CHECK_EQUAL(total.item<float>(), 126.0f);
    BOOST_CHECK_EQUAL(counter_value("failed_tensors") - failed, 1);
    Tensor later = x * 5.0;
    BOOST_CHECK_NO_THROW(lt::sync());  // the failed tensor is left out of later syncs of everything
    BOOST_CHECK(later.is_materialized());
    BOOST_CHECK_THROW(bad.to_vector<float>(), Error);  // and raises whenever it is used
    BOOST_CHECK_THROW((bad * 2.0).to_vector<float>(), Error);
  });
  expect_result("an automatic sync never raises another tensor's error", [] {
    int64_t threshold = sync_threshold();
    struct Restore {
      int64_t t;
      ~Restore() { set_sync_threshold(t); }
    } restore{threshold};
    Tensor bad = index_select(t23() * 2.0, 0, i64({5}) + i64({0}));  // pending, bad
    set_sync_threshold(10);
    Tensor a = ones({3});
    int64_t autos = counter_value("auto_syncs");
    BOOST_CHECK_NO_THROW(for (int i = 0; i < 40; ++i) a = a * 1.5 + 1.0);
    BOOST_CHECK(counter_value("auto_syncs") > autos);
    BOOST_CHECK_GT(a.to_vector<float>()[0], 1.0f);
    BOOST_CHECK_THROW(bad.to_vector<float>(), Error);
  });
  expect_result("a failed backward leaves the graph usable", [] {
    Tensor w = t23().requires_grad_();
    Tensor y = w * 2.0;
    BOOST_CHECK_THROW(y.backward(), Error);  // non-scalar
    y.sum().backward();
    BOOST_CHECK(w.grad().to_vector<float>() == std::vector<float>(6, 2.0f));
  });
}

// PyTorch checks an index before it writes. Here a pending index is checked
// when the write is computed, so the sync that finds it bad restores what the
// target held before that write.
BOOST_AUTO_TEST_CASE(a_failed_in_place_write_leaves_its_target_as_it_was) {
  auto bad_write = [](Tensor& x) { x.copy_(index_add(x, 0, i64({1}) * 7, f32({10}))); };  // index 7, pending
  expect_result("the target reads its old value and version after the error", [&] {
    Tensor x = f32({1, 2, 3});
    uint64_t v = x.version();
    bad_write(x);
    try {
      x.to_vector<float>();
      BOOST_ERROR("no error raised");
    } catch (const Error& e) {
      BOOST_CHECK(e.kind() == ErrorKind::Index);
      BOOST_CHECK_MESSAGE(std::string(e.what()).find("index 7 is out of bounds") != std::string::npos, e.what());
    }
    BOOST_CHECK((x.to_vector<float>() == std::vector<float>{1, 2, 3}));
    BOOST_CHECK_EQUAL(x.version(), v);
    x.add_(1.0);  // later ops work
    BOOST_CHECK((x.to_vector<float>() == std::vector<float>{2, 3, 4}));
  });
  expect_result("a pending target gets back its pending value", [&] {
    Tensor x = f32({1, 2, 3}) * 2.0;
    bad_write(x);
    BOOST_CHECK_THROW(x.to_vector<float>(), Error);
    BOOST_CHECK((x.to_vector<float>() == std::vector<float>{2, 4, 6}));
  });
  expect_result("writes before the failing one are kept", [&] {
    Tensor x = f32({1, 2, 3});
    x.copy_(index_add(x, 0, i64({1}) * 2, f32({10})));  // pending and in range
    bad_write(x);
    x.mul_(2.0);  // built on the failed value: undone with it
    BOOST_CHECK_THROW(x.to_vector<float>(), Error);
    BOOST_CHECK((x.to_vector<float>() == std::vector<float>{1, 2, 13}));
  });
  expect_result("a tensor read before the write stays valid; one built on the failed value raises", [&] {
    Tensor x = f32({1, 2, 3});
    Tensor before = x + 1.0;
    bad_write(x);
    Tensor after = x * 2.0;
    BOOST_CHECK_THROW(after.to_vector<float>(), Error);
    BOOST_CHECK((x.to_vector<float>() == std::vector<float>{1, 2, 3}));
    BOOST_CHECK((before.to_vector<float>() == std::vector<float>{2, 3, 4}));
    BOOST_CHECK_THROW(after.to_vector<float>(), Error);  // the failed value stays failed
  });
  expect_result("a write that the failing sync did not fail on is kept", [&] {
    Tensor x = f32({1, 2, 3});
    x.copy_(index_add(x, 0, i64({0}) * 1, f32({10})));  // pending and in range
    Tensor bad = index_select(f32({1, 2}), 0, i64({4}) + i64({0}));
    BOOST_CHECK_THROW((x + bad.sum()).to_vector<float>(), Error);
    BOOST_CHECK((x.to_vector<float>() == std::vector<float>{11, 2, 3}));
  });
  expect_result("sync() of everything raises and restores the target", [&] {
    Tensor x = f32({1, 2, 3});
    bad_write(x);
    Tensor good = f32({4}) * 2.0;
    BOOST_CHECK_THROW(lt::sync(), Error);
    BOOST_CHECK((x.to_vector<float>() == std::vector<float>{1, 2, 3}));
    BOOST_CHECK_EQUAL(good.item<float>(), 8.0f);
  });
  expect_result("an automatic sync restores nothing: the write raises when it is read", [&] {
    struct Restore {
      int64_t t;
      ~Restore() { set_sync_threshold(t); }
    } restore{sync_threshold()};
    Tensor x = f32({1, 2, 3});
    bad_write(x);
    set_sync_threshold(10);
    Tensor a = ones({3});
    int64_t autos = counter_value("auto_syncs");
    BOOST_CHECK_NO_THROW(for (int i = 0; i < 40; ++i) a = a * 1.5 + 1.0);
    BOOST_CHECK(counter_value("auto_syncs") > autos);
    BOOST_CHECK(!x.is_materialized());
    BOOST_CHECK_THROW(x.to_vector<float>(), Error);
    BOOST_CHECK((x.to_vector<float>() == std::vector<float>{1, 2, 3}));
  });
  expect_result("a write whose kernel failed to compile is kept: it computes once the compiler works", [&] {
    if (runtime::backend_name() != "cpu") return;
    CompiledOnly compiled_only;  // this kernel must really compile
    Tensor x = f32({1, 2, 3});
    x.copy_(lt::exp(index_add(x, 0, i64({1}) * 2, f32({10}))) * 0.5 - 0.125);  // pending, in range, new code
    ::setenv("LT_TEST_FAIL_COMPILE", "1", 1);
    BOOST_CHECK_THROW(x.to_vector<float>(), Error);
    ::unsetenv("LT_TEST_FAIL_COMPILE");
    BOOST_CHECK_CLOSE(x.to_vector<float>()[2], std::exp(13.0f) * 0.5f - 0.125f, 1e-4);
  });
  expect_result("a write that computes drops what it replaced", [&] {
    Tensor x = f32({1, 2, 3});
    std::weak_ptr<Node> old = x.node();
    x.copy_(index_add(x, 0, i64({1}) * 2, f32({10})));  // pending and in range: kept for an undo until synced
    BOOST_CHECK(!old.expired());
    BOOST_CHECK((x.to_vector<float>() == std::vector<float>{1, 2, 13}));
    BOOST_CHECK(old.expired());
  });
}

BOOST_AUTO_TEST_CASE(the_battery_tries_at_least_fifty_kinds_of_misuse) {
  BOOST_TEST_MESSAGE("kinds of misuse tried: " << g_kinds);
  BOOST_CHECK_GE(g_kinds, 50);
}
