// tools/fuzz/generate.cpp — seeded random programs for the differential fuzzer.
//
// Programs are built with the same ir/builder.h ops users call, so what is
// fuzzed is what users record. A value is "exact" when it is an input or was
// computed from exact values by integer/bool ops only: comparisons, casts to
// integers and arg-reductions are applied to exact values only, because on a
// computed float a one-ulp difference between two correct backends may flip
// them, which is noise, not a bug.
//
// Gradient programs: a second random stream (so the forward program of a seed
// is the same with or without them) marks about a third of the programs as
// differentiable. Their floating inputs require grad; at the end a scalar loss
// sum(root * w) with random weights w is differentiated with autograd with
// respect to a random subset of those inputs, and the gradient nodes become
// extra roots, so forward and backward are one trace compared like any other.
#include <random>

#include "autograd/autograd.h"
#include "ir/builder.h"
#include "ir/conv.h"
#include "ir/error.h"
#include "ir/evaluator.h"
#include "tools/fuzz/fuzz.h"

namespace lt::fuzz {
namespace {

struct Value {
  NodePtr node;
  bool exact;
};

class Generator {
 public:
  explicit Generator(uint64_t seed)
      : rng_(seed),
        grad_rng_(seed * 0x9E3779B97F4A7C15ull + 0x5851F42D4C957F2Dull),
        conv_rng_(seed * 0xD1B54A32D192ED03ull + 0x8CB92BA72F3D8DD7ull) {
    grads_ = std::bernoulli_distribution(0.35)(grad_rng_);
  }

  Program run(uint64_t seed, int max_ops) {
    int inputs = pick(1, 3);
    for (int i = 0; i < inputs; ++i) values_.push_back({make_input(random_shape(), random_dtype()), true});
    int ops = pick(1, max_ops);
    for (int i = 0; i < ops; ++i) {
      try {
        step();
      } catch (const Error&) {
        // A rejected combination (the builder's checks are tested elsewhere).
      }
    }
    Program p;
    p.seed = seed;
    size_t n = values_.size();
    p.roots.push_back(values_.back().node);
    int extra = pick(0, 2);
    for (int i = 0; i < extra && n > 1; ++i) p.roots.push_back(values_[n - 2 - pick(0, std::min<int>(n - 2, 4))].node);
    if (grads_) add_gradients(p);
    return p;
  }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  template <typename T>
  const T& choose(const std::vector<T>& v) { return v[pick(0, static_cast<int>(v.size()) - 1)]; }

  Shape random_shape() {
    static const std::vector<int64_t> sizes = {1, 1, 2, 3, 4, 5, 7, 8, 13, 16, 33};
    int rank = pick(0, 3);
    Shape s;
    for (int i = 0; i < rank; ++i) s.push_back(chance(0.03) ? 0 : choose(sizes));
    return s;
  }

  DType random_dtype() {
    static const std::vector<DType> d = {DType::Float32, DType::Float32, DType::Float32, DType::Float64,
                                         DType::Int32,   DType::Int64,   DType::Bool,    DType::Float16,
                                         DType::BFloat16, DType::Int8,   DType::UInt8,   DType::Int16};
    return choose(d);
  }

  NodePtr make_input(const Shape& shape, DType dtype) {
    NodePtr in = ops::from_buffer(random_buffer(shape, dtype, rng_), shape);
    if (grads_ && is_floating(dtype)) {
      in->requires_grad = true;  // a fresh leaf, as Tensor::requires_grad_ makes one
      grad_inputs_.push_back(in);
    }
    return in;
  }

  BufferPtr random_buffer(const Shape& shape, DType dtype, std::mt19937_64& rng) {
    int64_t n = shape_numel(shape);
    BufferPtr b = make_buffer(dtype, n);
    std::uniform_real_distribution<double> real(-3.0, 3.0);
    std::uniform_int_distribution<int64_t> integer(-6, 6);
    std::vector<double> values(n);
    for (int64_t i = 0; i < n; ++i) {
      if (dtype == DType::Bool) values[i] = std::bernoulli_distribution(0.5)(rng);
      else if (is_integral(dtype)) values[i] = static_cast<double>(integer(rng));
      else values[i] = real(rng);
    }
    // Rounded (floats) or wrapped (u8: -6..-1 become 250..255) as a cast would.
    convert_elements_reference(values.data(), DType::Float64, n, b->data(), dtype);
    return b;
  }

  // loss = sum(root * w) for a random differentiable value `root` (biased to
  // the last) and random weights w; its gradients w.r.t. a random non-empty
  // subset of the inputs that require grad become extra roots.
  void add_gradients(Program& p) {
    std::vector<NodePtr> roots;
    for (const Value& v : values_)
      if (v.node->requires_grad) roots.push_back(v.node);
    if (roots.empty() || grad_inputs_.empty()) return;
    auto pick2 = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(grad_rng_); };
    const NodePtr& root = std::bernoulli_distribution(0.5)(grad_rng_)
                              ? roots.back()
                              : roots[pick2(0, static_cast<int>(roots.size()) - 1)];
    std::vector<NodePtr> wrt;
    for (const NodePtr& in : grad_inputs_)
      if (std::bernoulli_distribution(0.7)(grad_rng_)) wrt.push_back(in);
    if (wrt.empty()) wrt.push_back(grad_inputs_[pick2(0, static_cast<int>(grad_inputs_.size()) - 1)]);
    NodePtr w = ops::from_buffer(random_buffer(root->shape, root->dtype, grad_rng_), root->shape);
    NodePtr loss = ops::sum(ops::mul(root, w));
    GradModeGuard no_grad(false);
    std::vector<NodePtr> g = autograd::gradients({loss}, {ops::ones(loss->shape, loss->dtype)}, wrt, /*retain_graph=*/true);
    p.roots.push_back(loss);
    for (NodePtr& n : g)
      if (n) p.roots.push_back(std::move(n));
    p.gradients = true;
  }

  // Biased to recent values, so programs grow deep chains, not only wide fans.
  Value& any_value() {
    int n = static_cast<int>(values_.size());
    if (chance(0.6)) return values_[n - 1];
    if (chance(0.5)) return values_[std::max(0, n - 1 - pick(1, 3))];
    return values_[pick(0, n - 1)];
  }
  Value* value_where(const std::function<bool(const Value&)>& ok) {
    std::vector<Value*> c;
    for (Value& v : values_)
      if (ok(v)) c.push_back(&v);
    return c.empty() ? nullptr : c[pick(0, static_cast<int>(c.size()) - 1)];
  }

  // A shape that broadcasts with `s`: some dims set to 1, maybe fewer leading dims.
  Shape broadcastable(const Shape& s) {
    Shape out;
    int drop = s.empty() ? 0 : pick(0, static_cast<int>(s.size()));
    for (size_t i = drop; i < s.size(); ++i) out.push_back(chance(0.3) ? 1 : s[i]);
    return out;
  }

  NodePtr partner(const Value& a) {
    if (chance(0.25)) return ops::scalar(std::uniform_real_distribution<double>(-2, 2)(rng_), DType::Float64, true);
    if (chance(0.15)) return ops::scalar_int(pick(-3, 3), DType::Int64, true);
    if (Value* b = value_where([&](const Value& v) { return v.node->shape == a.node->shape && v.node != a.node; })) {
      return b->node;
    }
    return make_input(broadcastable(a.node->shape), chance(0.7) ? a.node->dtype : random_dtype());
  }

  static bool approximated_near_minus_one(const NodePtr& n) {
    switch (n->op) {
      case Op::Erf:
      case Op::Tanh:
      case Op::Expm1:
      case Op::Sin:
      case Op::Cos:
        return true;
      default:
        return false;
    }
  }

  void push(NodePtr n, bool exact) { values_.push_back({std::move(n), exact}); }

  void step() {
    // About one step in 21 is a convolution, drawn from a stream of its own
    // (conv_rng_ stands in for rng_ meanwhile): the other steps' draws are
    // the ones they were before convolutions were generated, so a program
    // without one is the program its seed always gave.
    if (std::bernoulli_distribution(1.0 / 21)(conv_rng_)) {
      std::swap(rng_, conv_rng_);
      Value c = any_value();
      if (c.node->dtype != DType::Bool) {
        try {
          conv_step(c);
        } catch (const Error&) {
          std::swap(rng_, conv_rng_);
          throw;
        }
      }
      std::swap(rng_, conv_rng_);
      return;
    }
    Value a = any_value();
    const NodePtr& x = a.node;
    bool fl = is_floating(x->dtype);
    int64_t nd = x->ndim();
    switch (pick(0, 19)) {
      case 0: {  // float unary
        static const std::vector<NodePtr (*)(const NodePtr&)> f = {
            ops::exp, ops::log, ops::log1p, ops::expm1, ops::sqrt, ops::sin, ops::cos, ops::tanh, ops::erf,
            ops::sigmoid, ops::relu, ops::silu, ops::abs, ops::neg, ops::floor, ops::ceil, ops::round, ops::rsqrt};
        if (x->dtype == DType::Bool) return;
        // floor/ceil/round of computed floats would be flaky; keep them on exact values.
        // So are sin/cos: their condition number |x cot x| grows with |x|, so
        // one ulp of a computed argument near 2e4 (expm1(10)) moves the result
        // by 2e-3, past any relative tolerance (docs/reliability.md).
        NodePtr (*fn)(const NodePtr&) = choose(f);
        if (!a.exact && (fn == ops::floor || fn == ops::ceil || fn == ops::round || fn == ops::sin || fn == ops::cos))
          return;
        // log1p/log amplify an absolute error near their singularity into a
        // relative error of order 1. erf, tanh, expm1, sin and cos are
        // approximated with a documented absolute error and reach -1 (and
        // their sums 0), so log1p(erf(x)) with erf(x) a few ulp above -1 is
        // ill-conditioned, not a bug (seed 1038318, docs/reliability.md).
        if (!a.exact && (fn == ops::log1p || fn == ops::log) && approximated_near_minus_one(x)) return;
        push(fn(x), a.exact && !fl && (fn == ops::abs || fn == ops::neg));
        return;
      }
      case 1:
      case 2: {  // arithmetic binary
        NodePtr b = partner(a);
        static const std::vector<NodePtr (*)(const NodePtr&, const NodePtr&)> f = {
            ops::add, ops::sub, ops::mul, ops::maximum, ops::minimum, ops::div};
        auto fn = choose(f);
        NodePtr r = fn(x, b);
        push(r, a.exact && !is_floating(r->dtype));
        return;
      }
      case 3: {  // comparison / logical on exact values
        if (!a.exact) return;
        NodePtr b = partner(a);
        static const std::vector<NodePtr (*)(const NodePtr&, const NodePtr&)> f = {
            ops::eq, ops::ne, ops::lt, ops::le, ops::gt, ops::ge, ops::logical_and, ops::logical_or};
        if (!(b->op == Op::Input || b->op == Op::Scalar)) return;
        push(choose(f)(x, b), true);
        return;
      }
      case 4: {  // where with an exact condition
        Value* c = value_where([](const Value& v) { return v.exact; });
        if (!c) return;
        NodePtr cond = c->node->dtype == DType::Bool ? c->node : ops::gt(c->node, ops::scalar(0.0, DType::Float64));
        push(ops::where(cond, x, partner(a)), false);
        return;
      }
      case 5: {  // cast
        DType d = random_dtype();
        if (!is_floating(d) && !a.exact) return;
        push(ops::cast(x, d), a.exact && !is_floating(d));
        return;
      }
      case 6: {  // reductions
        if (nd == 0) return;
        Dims dims;
        for (int64_t i = 0; i < nd; ++i)
          if (chance(0.5)) dims.push_back(chance(0.5) ? i : i - nd);
        bool keep = chance(0.5);
        switch (pick(0, 5)) {
          case 0: push(ops::sum(x, dims, keep), a.exact && !fl); return;
          case 1: push(ops::amax(x, dims, keep), a.exact); return;
          case 2: push(ops::amin(x, dims, keep), a.exact); return;
          case 3: if (fl) push(ops::mean(x, dims, keep), false); return;
          case 4: if (a.exact) push(ops::argmax(x, pick(0, static_cast<int>(nd) - 1), keep), true); return;
          case 5: if (fl) push(ops::var(x, dims, pick(0, 1), keep), false); return;
        }
        return;
      }
      case 7: {  // permute / transpose
        if (nd < 2) return;
        push(ops::transpose(x, pick(0, static_cast<int>(nd) - 1), pick(0, static_cast<int>(nd) - 1)), a.exact);
        return;
      }
      case 8: {  // slice with steps
        if (nd == 0) return;
        int64_t d = pick(0, static_cast<int>(nd) - 1);
        int64_t n = x->shape[d];
        push(ops::slice(x, d, pick(-static_cast<int>(n) - 1, static_cast<int>(n)), pick(0, static_cast<int>(n) + 1),
                        pick(1, 3)),
             a.exact);
        return;
      }
      case 9: {  // flip / pad
        if (nd == 0) return;
        if (chance(0.5)) {
          push(ops::flip(x, {pick(0, static_cast<int>(nd) - 1)}), a.exact);
        } else {
          std::vector<int64_t> pads = {pick(-1, 2), pick(0, 2)};
          push(ops::pad(x, pads, pick(-2, 2)), a.exact);
        }
        return;
      }
      case 10: {  // expand through a new or size-1 dim, reshape
        if (chance(0.5)) {
          Shape s = x->shape;
          s.insert(s.begin(), pick(1, 3));
          push(ops::expand(ops::unsqueeze(x, 0), s), a.exact);
        } else {
          push(ops::reshape(x, {-1}), a.exact);
        }
        return;
      }
      case 11: {  // cat with a slice of itself
        if (nd == 0) return;
        int64_t d = pick(0, static_cast<int>(nd) - 1);
        push(ops::cat({x, ops::slice(x, d, 0, pick(0, 3))}, d), a.exact);
        return;
      }
      case 12: {  // gather / index_select with in-range indices
        if (nd == 0 || x->numel() == 0) return;
        int64_t d = pick(0, static_cast<int>(nd) - 1);
        int64_t len = pick(0, 6);
        BufferPtr b = make_buffer(DType::Int64, len);
        for (int64_t i = 0; i < len; ++i) b->as<int64_t>()[i] = pick(0, static_cast<int>(x->shape[d]) - 1);
        push(ops::index_select(x, d, ops::from_buffer(b, Shape{len})), a.exact);
        return;
      }
      case 13: {  // cumsum
        if (nd == 0) return;
        push(ops::cumsum(x, pick(0, static_cast<int>(nd) - 1)), a.exact && !fl);
        return;
      }
      case 14: {  // softmax / log_softmax / layer_norm
        if (!fl || nd == 0) return;
        int64_t d = pick(0, static_cast<int>(nd) - 1);
        switch (pick(0, 2)) {
          case 0: push(ops::softmax(x, d), false); return;
          case 1: push(ops::log_softmax(x, d), false); return;
          case 2: push(ops::layer_norm(x, {x->shape[nd - 1]}, nullptr, nullptr), false); return;
        }
        return;
      }
      case 15: {  // matmul with a fresh right operand
        if (nd == 0 || x->dtype == DType::Bool) return;
        int64_t k = x->shape[nd - 1];
        NodePtr b = make_input(nd == 1 ? Shape{k} : Shape{k, pick(1, 9)}, x->dtype);
        push(ops::matmul(x, b), a.exact && !fl);
        return;
      }
      case 16: {  // scatter_add of in-range indices
        if (nd == 0 || x->numel() == 0 || x->dtype == DType::Bool) return;
        int64_t d = pick(0, static_cast<int>(nd) - 1);
        Shape is = x->shape;
        is[d] = pick(1, 4);
        BufferPtr b = make_buffer(DType::Int64, shape_numel(is));
        for (int64_t i = 0; i < b->numel(); ++i) b->as<int64_t>()[i] = pick(0, static_cast<int>(x->shape[d]) - 1);
        NodePtr src = make_input(is, x->dtype);
        push(ops::scatter_add(x, d, ops::from_buffer(b, is), src), a.exact && !fl);
        return;
      }
      case 18: {  // a loop over slices, h = f(h, x[t]): one kernel structure per step, the start an index argument
        if (nd == 0 || x->dtype == DType::Bool) return;
        int64_t d = pick(0, static_cast<int>(nd) - 1), n = x->shape[d];
        if (n < 2) return;
        bool add = chance(0.5);
        if (chance(0.5)) {
          // Growing prefixes x[:L], each reduced over d: one kernel structure at
          // every length past the first, so shape-generic kernels run in-trace.
          NodePtr h;
          for (int64_t len = 1; len <= std::min<int64_t>(n, 8); ++len) {
            NodePtr s = ops::slice(x, d, 0, len);
            NodePtr r = add ? ops::sum(s, {d}, true) : ops::amax(s, {d}, true);
            if (fl) r = ops::add(r, ops::mean(ops::tanh(s), {d}, true));  // a mean's 1/L
            h = h ? ops::add(h, r) : r;
          }
          push(h, a.exact && !fl);
          return;
        }
        NodePtr h = ops::slice(x, d, 0, 1);
        for (int64_t t = 1; t < std::min<int64_t>(n, 9); ++t) {
          NodePtr s = ops::slice(x, d, t, t + 1);
          h = add ? ops::add(h, s) : ops::maximum(h, s);
        }
        push(h, a.exact && !(add && fl));
        return;
      }
      case 19: {  // a cat of many slices, of one size or growing (stored piece by piece past 32 pieces)
        if (nd == 0 || x->shape[0] == 0) return;
        int64_t n = x->shape[0];
        bool growing = chance(0.5);
        std::vector<NodePtr> pieces;
        for (int j = 0, k = pick(30, 40); j < k; ++j)
          pieces.push_back(growing ? ops::slice(x, 0, 0, 1 + j % n) : ops::slice(x, 0, j % n, j % n + 1));
        push(ops::cat(pieces, 0), a.exact);
        return;
      }
      case 17: {  // an integer op of the registry (ir/ops.def) on exact integer or bool values
        static const std::vector<Op> integer_ops = registry_ops([](const OpInfo& i) {
          return i.dtype_rule == DTypeRule::Integer || i.dtype_rule == DTypeRule::IntegerOrBool;
        });
        if (integer_ops.empty() || !a.exact || fl) return;
        Op op = choose(integer_ops);
        if (x->dtype == DType::Bool && op_info(op).dtype_rule == DTypeRule::Integer) return;
        if (op_info(op).arity == 1) return push(ops::apply_elementwise(op, x), true);
        NodePtr b = partner(a);
        if (is_floating(b->dtype) || !(b->op == Op::Input || b->op == Op::Scalar)) return;
        push(ops::apply_elementwise(op, x, b), true);
        return;
      }
    }
  }

  // conv1d/2d (sometimes 3d) with random stride, padding (sometimes
  // asymmetric), dilation and groups. The input is `a` itself where it is an
  // exact floating [N, C, L] value (an input: finite), else a fresh input
  // (sometimes channels-last, a permuted view); the weight is fresh. Computed
  // operands are left out: the JIT's implicit GEMM multiplies the zeros of
  // padding (and of a transposed convolution's stride gaps) by the other
  // operand, so a NaN or inf there gives NaN where the reference, which skips
  // those taps, gives 0. Sometimes a per-channel bias and a
  // relu follow (the fused epilogue), and sometimes the transposed
  // convolution (ConvInputGrad) or the weight gradient primitive is taken
  // instead. Gradient programs differentiate through all three.
  void conv_step(const Value& a) {
    const NodePtr& x0 = a.node;
    static const std::vector<DType> dts = {DType::Float32, DType::Float32, DType::Float32, DType::Float64,
                                           DType::Float16, DType::BFloat16};
    const bool reuse = a.exact && is_floating(x0->dtype) && x0->ndim() == 3 && x0->numel() > 0 && chance(0.5);
    const DType dt = reuse ? x0->dtype : is_floating(x0->dtype) && chance(0.5) ? x0->dtype : choose(dts);
    const int nd = reuse ? 1 : chance(0.1) ? 3 : pick(1, 2);
    const int64_t groups = chance(0.6) ? 1 : pick(2, 3);
    int64_t N = pick(1, 3), C = groups * pick(1, 3);
    if (reuse) {
      N = x0->shape[0];
      C = x0->shape[1];
    }
    const int64_t g = reuse && C % groups != 0 ? 1 : groups;
    const int64_t O = g * pick(1, 4);
    std::vector<int64_t> in, kernel, stride, lo, hi, dil;
    for (int j = 0; j < nd; ++j) {
      in.push_back(reuse ? x0->shape[2] : pick(1, nd == 3 ? 5 : 11));
      kernel.push_back(pick(1, 3));
      stride.push_back(chance(0.5) ? 1 : pick(2, 3));
      lo.push_back(pick(0, 2));
      hi.push_back(chance(0.8) ? lo.back() : pick(0, 2));
      dil.push_back(chance(0.75) ? 1 : 2);
      if (in[j] + lo[j] + hi[j] < dil[j] * (kernel[j] - 1) + 1) kernel[j] = 1;  // fits the padded input
    }
    Shape xs{N, C};
    xs.insert(xs.end(), in.begin(), in.end());
    NodePtr x;
    if (reuse) {
      x = x0;
    } else if (chance(0.25)) {  // channels-last storage read through a permuted view
      Shape cl{N};
      cl.insert(cl.end(), in.begin(), in.end());
      cl.push_back(C);
      std::vector<int64_t> perm{0, nd + 1};
      for (int j = 1; j <= nd; ++j) perm.push_back(j);
      x = ops::permute(make_input(cl, dt), perm);
    } else {
      x = make_input(xs, dt);
    }
    Shape ws{O, C / g};
    ws.insert(ws.end(), kernel.begin(), kernel.end());
    NodePtr w = make_input(ws, dt);
    NodePtr y;
    bool forward = false;
    switch (pick(0, 5)) {
      case 0: {  // the transposed convolution of a fresh dy: x's shape again
        NodePtr y0 = ops::conv(x, w, stride, lo, hi, dil, g);
        y = ops::conv_input_grad(make_input(y0->shape, dt), w, conv_attrs(g, stride, lo, dil), in);
        break;
      }
      case 1: {  // the weight gradient for a fresh dy: w's shape
        NodePtr y0 = ops::conv(x, w, stride, lo, hi, dil, g);
        y = ops::conv_weight_grad(x, make_input(y0->shape, dt), conv_attrs(g, stride, lo, dil), kernel);
        break;
      }
      default:
        y = ops::conv(x, w, stride, lo, hi, dil, g);
        forward = true;
    }
    if (forward && chance(0.5)) {
      Shape bs(y->ndim(), 1);
      bs[1] = O;
      y = ops::add(y, ops::reshape(make_input({O}, dt), bs));
      if (chance(0.6)) y = ops::relu(y);
    }
    push(y, false);
  }

  static std::vector<Op> registry_ops(bool (*keep)(const OpInfo&)) {
    std::vector<Op> out;
    for (size_t i = 0; i < kNumOps; ++i)
      if (keep(op_info(static_cast<Op>(i)))) out.push_back(static_cast<Op>(i));
    return out;
  }

  std::mt19937_64 rng_;
  std::mt19937_64 grad_rng_;      ///< gradient choices only: the forward program does not depend on them
  std::mt19937_64 conv_rng_;      ///< whether a step is a convolution, and its choices (step)
  bool grads_ = false;            ///< this program's floating inputs require grad
  std::vector<NodePtr> grad_inputs_;
  std::vector<Value> values_;
};

}  // namespace

Program generate(uint64_t seed, int max_ops) { return Generator(seed).run(seed, max_ops); }

}  // namespace lt::fuzz
