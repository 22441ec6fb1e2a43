// scheduler/kernel_builder.cpp — hash-consing and range-based folding of kernel ops.
#include "scheduler/kernel_builder.h"

#include <algorithm>
#include <cstring>

#include "ir/error.h"

namespace lt {
namespace {
bool add_ovf(int64_t a, int64_t b, int64_t* r) { return __builtin_add_overflow(a, b, r); }
bool mul_ovf(int64_t a, int64_t b, int64_t* r) { return __builtin_mul_overflow(a, b, r); }

IndexRange range_add(IndexRange a, IndexRange b) {
  IndexRange r;
  if (!a.known() || !b.known() || add_ovf(a.lo, b.lo, &r.lo) || add_ovf(a.hi, b.hi, &r.hi)) return IndexRange{};
  return r;
}
IndexRange range_mul(IndexRange a, IndexRange b) {
  if (!a.known() || !b.known()) return IndexRange{};
  int64_t p[4];
  if (mul_ovf(a.lo, b.lo, &p[0]) || mul_ovf(a.lo, b.hi, &p[1]) || mul_ovf(a.hi, b.lo, &p[2]) ||
      mul_ovf(a.hi, b.hi, &p[3]))
    return IndexRange{};
  return {*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
}
IndexRange exact(int64_t v) { return {v, v}; }
}  // namespace

int32_t KernelBuilder::intern(const KOp& op, IndexRange range) {
  uint64_t fbits;
  std::memcpy(&fbits, &op.fimm, sizeof fbits);
  Key key{op.code, op.op, op.dtype, op.inputs[0], op.inputs[1], op.inputs[2], op.imm, op.imm2, fbits};
  auto it = interned_.find(key);
  if (it != interned_.end()) return it->second;
  int32_t id = static_cast<int32_t>(k_->ops.size());
  k_->ops.push_back(op);
  ranges_.push_back(range);
  interned_.emplace(key, id);
  return id;
}

bool KernelBuilder::is_const(int32_t id, int64_t* value) const {
  const KOp& o = k_->ops[id];
  if (o.code != KOpCode::Const || is_floating(o.dtype)) return false;
  *value = o.imm;
  return true;
}

int32_t KernelBuilder::coord(int axis) {
  KOp o;
  o.code = KOpCode::Coord;
  o.dtype = DType::Int64;
  o.imm = axis;
  int64_t n = k_->domain[axis];
  if (n == 1) return iconst(0);
  // An axis of extent 0 has no coordinate at all; the range [0, 0] would let
  // index folding turn its loads and stores into constants, which hoists them
  // out of an empty inner loop into per-row code that touches empty buffers
  // (a fuzzer find: test/data/fuzz/store_hoisted_out_of_an_empty_row).
  if (n == 0) return intern(o, IndexRange{});
  return intern(o, {0, n - 1});
}

int32_t KernelBuilder::iconst(int64_t v, DType dtype) {
  KOp o;
  o.code = KOpCode::Const;
  o.dtype = dtype;
  o.imm = dtype == DType::Bool ? (v != 0) : v;
  return intern(o, exact(o.imm));
}

int32_t KernelBuilder::fconst(double v, DType dtype) {
  KOp o;
  o.code = KOpCode::Const;
  o.dtype = dtype;
  o.fimm = dtype == DType::Float32 ? static_cast<double>(static_cast<float>(v)) : v;
  return intern(o, IndexRange{});
}

int32_t KernelBuilder::constant(double v, DType dtype) {
  return is_floating(dtype) ? fconst(v, dtype) : iconst(static_cast<int64_t>(v), dtype);
}

int32_t KernelBuilder::param(int32_t slot, DType dtype) {
  KOp o;
  o.code = KOpCode::Param;
  o.dtype = dtype;
  o.imm = slot;
  return intern(o, IndexRange{});
}

int32_t KernelBuilder::index_param(int32_t slot, IndexRange range) {
  KOp o;
  o.code = KOpCode::Param;
  o.dtype = DType::Int64;
  o.imm = slot;
  return intern(o, range);
}

int32_t KernelBuilder::load(int32_t buffer, int32_t offset, DType dtype) {
  KOp o;
  o.code = KOpCode::Load;
  o.dtype = dtype;
  o.imm = buffer;
  o.num_inputs = 1;
  o.inputs[0] = offset;
  return intern(o, dtype == DType::Bool ? IndexRange{0, 1} : IndexRange{});
}

int32_t KernelBuilder::store(int32_t buffer, int32_t offset, int32_t value, bool accumulate) {
  KOp o;
  o.code = accumulate ? KOpCode::AccumStore : KOpCode::Store;
  o.dtype = k_->ops[value].dtype;
  o.imm = buffer;
  o.num_inputs = 2;
  o.inputs[0] = offset;
  o.inputs[1] = value;
  return intern(o, IndexRange{});
}

int32_t KernelBuilder::reduce(Op op, DType dtype, int32_t input) {
  KOp o;
  o.code = KOpCode::Reduce;
  o.op = op;
  o.dtype = dtype;
  o.num_inputs = 1;
  o.inputs[0] = input;
  return intern(o, IndexRange{});
}

int32_t KernelBuilder::scan(DType dtype, int32_t input) {
  KOp o;
  o.code = KOpCode::Scan;
  o.op = Op::CumSum;
  o.dtype = dtype;
  o.num_inputs = 1;
  o.inputs[0] = input;
  return intern(o, IndexRange{});
}

int32_t KernelBuilder::random(int32_t seed, int32_t linear, int64_t stream, DType dtype) {
  KOp o;
  o.code = KOpCode::Random;
  o.op = Op::RandUniform;
  o.dtype = dtype;
  o.num_inputs = 2;
  o.inputs[0] = seed;
  o.inputs[1] = linear;
  o.imm = stream;
  return intern(o, IndexRange{});
}

int32_t KernelBuilder::check_index(int32_t index, int64_t bound, Op op, int64_t axis, int64_t flags) {
  IndexRange r = ranges_[index];
  if (r.known() && r.lo >= 0 && r.hi < bound && k_->ops[index].dtype == DType::Int64) return index;
  KOp o;
  o.code = KOpCode::CheckIndex;
  o.dtype = DType::Int64;
  o.num_inputs = 1;
  o.inputs[0] = index;
  o.imm = bound;
  o.imm2 = static_cast<int64_t>(op) | flags;
  o.fimm = static_cast<double>(axis);
  return intern(o, {0, std::max<int64_t>(bound - 1, 0)});
}

// True when `id` is provably a multiple of c: sets *quotient to id / c.
bool KernelBuilder::divisible(int32_t id, int64_t c, int32_t* quotient) {
  int64_t v;
  if (is_const(id, &v)) {
    if (v % c != 0) return false;
    *quotient = iconst(v / c);
    return true;
  }
  const KOp& o = k_->ops[id];
  if (o.code != KOpCode::Compute || o.dtype != DType::Int64) return false;
  if (o.op == Op::Mul) {
    int64_t m;
    int32_t a = o.inputs[0], b = o.inputs[1];
    if (is_const(b, &m) && m % c == 0) {
      *quotient = muli(a, m / c);
      return true;
    }
    return false;
  }
  if (o.op == Op::Add) {
    int32_t qa, qb;
    int32_t a = o.inputs[0], b = o.inputs[1];
    if (divisible(a, c, &qa) && divisible(b, c, &qb)) {
      *quotient = add(qa, qb);
      return true;
    }
  }
  return false;
}

int32_t KernelBuilder::div(int32_t a, int64_t c) {
  // c == 0 only over an empty axis: the value is never used, but it must keep
  // depending on `a`, or an element-level index in a Rows kernel with empty
  // rows becomes a constant evaluated once per row (see coord()).
  if (c <= 0) return a;
  if (c == 1) return a;
  IndexRange r = ranges_[a];
  int64_t v;
  if (is_const(a, &v) && v >= 0) return iconst(v / c);
  if (r.known() && r.lo >= 0 && r.hi < c) return iconst(0);
  int32_t q;
  if (divisible(a, c, &q)) return q;
  const KOp& o = k_->ops[a];
  if (o.code == KOpCode::Compute && o.op == Op::Add && o.dtype == DType::Int64) {
    // (p + q) / c with p a multiple of c and q in [0, c): p / c.
    int32_t x = o.inputs[0], y = o.inputs[1];
    IndexRange ry = ranges_[y], rx = ranges_[x];
    int32_t qx;
    if (ry.known() && ry.lo >= 0 && ry.hi < c && rx.known() && rx.lo >= 0 && divisible(x, c, &qx)) return qx;
    if (rx.known() && rx.lo >= 0 && rx.hi < c && ry.known() && ry.lo >= 0 && divisible(y, c, &qx)) return qx;
  }
  if (o.code == KOpCode::IndexDiv) {
    int64_t cc;
    if (!mul_ovf(o.imm, c, &cc)) return div(o.inputs[0], cc);
  }
  KOp d;
  d.code = KOpCode::IndexDiv;
  d.dtype = DType::Int64;
  d.num_inputs = 1;
  d.inputs[0] = a;
  d.imm = c;
  IndexRange out = r.known() && r.lo >= 0 ? IndexRange{r.lo / c, r.hi / c} : IndexRange{};
  if (out.known() && out.lo == out.hi) return iconst(out.lo);
  return intern(d, out);
}

int32_t KernelBuilder::mod(int32_t a, int64_t c) {
  if (c <= 0) return a;  // only over an empty axis (see div)
  if (c == 1) return iconst(0);
  IndexRange r = ranges_[a];
  int64_t v;
  if (is_const(a, &v) && v >= 0) return iconst(v % c);
  if (r.known() && r.lo >= 0 && r.hi < c) return a;
  int32_t q;
  if (divisible(a, c, &q)) return iconst(0);
  const KOp& o = k_->ops[a];
  if (o.code == KOpCode::Compute && o.op == Op::Add && o.dtype == DType::Int64) {
    int32_t x = o.inputs[0], y = o.inputs[1];
    if (ranges_[x].known() && ranges_[x].lo >= 0 && ranges_[y].known() && ranges_[y].lo >= 0) {
      if (divisible(x, c, &q)) return mod(y, c);
      if (divisible(y, c, &q)) return mod(x, c);
    }
  }
  KOp d;
  d.code = KOpCode::IndexMod;
  d.dtype = DType::Int64;
  d.num_inputs = 1;
  d.inputs[0] = a;
  d.imm = c;
  return intern(d, {0, c - 1});
}

int32_t KernelBuilder::clamp(int32_t a, int64_t lo, int64_t hi) {
  return compute(Op::Minimum, DType::Int64, {compute(Op::Maximum, DType::Int64, {a, iconst(lo)}), iconst(hi)});
}

int32_t KernelBuilder::linear(const int32_t* coords, absl::Span<const int64_t> shape) {
  int32_t acc = iconst(0);
  for (size_t i = 0; i < shape.size(); ++i) acc = add(muli(acc, shape[i]), coords[i]);
  return acc;
}

// Folds i64 index ops; returns -1 when nothing applies.
int32_t KernelBuilder::fold_index(Op op, int32_t a, int32_t b) {
  int64_t x, y;
  bool ca = is_const(a, &x), cb = is_const(b, &y);
  IndexRange ra = ranges_[a], rb = ranges_[b];
  switch (op) {
    case Op::Add: {
      if (ca && cb) return iconst(x + y);
      if (ca) return add(b, a);  // constants on the right
      if (cb && y == 0) return a;
      const KOp& oa = k_->ops[a];
      int64_t z;
      if (cb && oa.code == KOpCode::Compute && oa.op == Op::Add && is_const(oa.inputs[1], &z))
        return addi(oa.inputs[0], z + y);
      // (x / c) * c + x % c == x
      const KOp& ob = k_->ops[b];
      auto match = [&](const KOp& m, const KOp& r) -> int32_t {
        int64_t c;
        if (m.code != KOpCode::Compute || m.op != Op::Mul || !is_const(m.inputs[1], &c)) return -1;
        const KOp& d = k_->ops[m.inputs[0]];
        if (d.code == KOpCode::IndexDiv && r.code == KOpCode::IndexMod && d.imm == c && r.imm == c &&
            d.inputs[0] == r.inputs[0])
          return d.inputs[0];
        return -1;
      };
      int32_t m = match(oa, ob);
      if (m < 0) m = match(ob, oa);
      return m;
    }
    case Op::Sub:
      if (ca && cb) return iconst(x - y);
      if (cb) return addi(a, -y);
      if (a == b) return iconst(0);
      return -1;
    case Op::Mul: {
      if (ca && cb) return iconst(x * y);
      if (ca) return mul(b, a);
      if (cb && y == 0) return iconst(0);
      if (cb && y == 1) return a;
      const KOp& oa = k_->ops[a];
      int64_t z;
      if (cb && oa.code == KOpCode::Compute && oa.op == Op::Mul && is_const(oa.inputs[1], &z)) return muli(oa.inputs[0], z * y);
      return -1;
    }
    case Op::Minimum:
      if (ra.known() && rb.known() && ra.hi <= rb.lo) return a;
      if (ra.known() && rb.known() && rb.hi <= ra.lo) return b;
      return -1;
    case Op::Maximum:
      if (ra.known() && rb.known() && ra.lo >= rb.hi) return a;
      if (ra.known() && rb.known() && rb.lo >= ra.hi) return b;
      return -1;
    default: return -1;
  }
}

int32_t KernelBuilder::compute(Op op, DType dtype, std::initializer_list<int32_t> inputs) {
  const int32_t* in = inputs.begin();
  int n = static_cast<int>(inputs.size());
  if (op == Op::Detach) return in[0];
  if (op == Op::Cast && k_->ops[in[0]].dtype == dtype) return in[0];
  IndexRange r{};
  if (dtype == DType::Int64 && n == 2 && k_->ops[in[0]].dtype == DType::Int64 && k_->ops[in[1]].dtype == DType::Int64) {
    int32_t f = fold_index(op, in[0], in[1]);
    if (f >= 0) return f;
    IndexRange ra = ranges_[in[0]], rb = ranges_[in[1]];
    if (op == Op::Add) r = range_add(ra, rb);
    if (op == Op::Sub && rb.known()) r = range_add(ra, {-rb.hi, -rb.lo});
    if (op == Op::Mul) r = range_mul(ra, rb);
    if ((op == Op::Minimum || op == Op::Maximum) && ra.known() && rb.known())
      r = op == Op::Minimum ? IndexRange{std::min(ra.lo, rb.lo), std::min(ra.hi, rb.hi)}
                            : IndexRange{std::max(ra.lo, rb.lo), std::max(ra.hi, rb.hi)};
    if (r.known() && r.lo == r.hi) return iconst(r.lo);
  }
  if (dtype == DType::Bool && n == 2 && k_->ops[in[0]].dtype == DType::Int64) {
    IndexRange ra = ranges_[in[0]], rb = ranges_[in[1]];
    if (ra.known() && rb.known()) {
      if (op == Op::Lt && ra.hi < rb.lo) return iconst(1, DType::Bool);
      if (op == Op::Lt && ra.lo >= rb.hi) return iconst(0, DType::Bool);
      if (op == Op::Ge && ra.lo >= rb.hi) return iconst(1, DType::Bool);
      if (op == Op::Ge && ra.hi < rb.lo) return iconst(0, DType::Bool);
    }
  }
  int64_t c;
  if (op == Op::LogicalAnd && n == 2) {
    if (is_const(in[0], &c)) return c ? in[1] : iconst(0, DType::Bool);
    if (is_const(in[1], &c)) return c ? in[0] : iconst(0, DType::Bool);
  }
  if (op == Op::Where) {
    if (is_const(in[0], &c)) return c ? in[1] : in[2];
    if (in[1] == in[2]) return in[1];
  }
  KOp o;
  o.code = KOpCode::Compute;
  o.op = op;
  o.dtype = dtype;
  o.num_inputs = static_cast<uint8_t>(n);
  for (int i = 0; i < n; ++i) o.inputs[i] = in[i];
  if (dtype == DType::Bool) r = {0, 1};
  return intern(o, r);
}

}  // namespace lt
