// scheduler/kernel.cpp — printing, hashing and sizes of kernel IR.
#include "scheduler/kernel.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/error.h"

namespace lt {

const char* kop_name(KOpCode code) {
  switch (code) {
    case KOpCode::Coord: return "coord";
    case KOpCode::Const: return "const";
    case KOpCode::Param: return "param";
    case KOpCode::Load: return "load";
    case KOpCode::Store: return "store";
    case KOpCode::AccumStore: return "accum_store";
    case KOpCode::Compute: return "compute";
    case KOpCode::IndexDiv: return "idiv";
    case KOpCode::IndexMod: return "imod";
    case KOpCode::Reduce: return "reduce";
    case KOpCode::Scan: return "scan";
    case KOpCode::Random: return "random";
    case KOpCode::CheckIndex: return "check_index";
  }
  return "?";
}

MatMulChecks matmul_unread_checks(const Kernel& k) {
  MatMulChecks out;
  size_t n = k.ops.size();
  // Ops are topologically ordered: one backward sweep marks what values read.
  std::vector<char> read(n, 0);
  auto mark = [&](int32_t id) {
    if (id >= 0) read[id] = 1;
  };
  mark(k.mm_lhs), mark(k.mm_rhs);
  for (size_t id = 0; id < n; ++id)
    if (k.ops[id].code == KOpCode::Store || k.ops[id].code == KOpCode::AccumStore) read[id] = 1;
  // coords[id]: bit a set when op id reads Coord(a).
  std::vector<uint8_t> coords(n, 0);
  for (size_t id = 0; id < n; ++id) {
    const KOp& o = k.ops[id];
    if (o.code == KOpCode::Coord) coords[id] = static_cast<uint8_t>(1u << o.imm);
    for (int i = 0; i < o.num_inputs; ++i) coords[id] |= coords[o.inputs[i]];
  }
  for (size_t id = n; id-- > 0;)
    if (read[id])
      for (int i = 0; i < k.ops[id].num_inputs; ++i) read[k.ops[id].inputs[i]] = 1;
  for (size_t id = 0; id < n; ++id) {
    if (k.ops[id].code != KOpCode::CheckIndex || read[id]) continue;
    auto i = static_cast<int32_t>(id);
    if (!(coords[id] & 8u)) out.epilogue.push_back(i);
    else if (coords[id] & 4u) out.rhs.push_back(i);
    else out.lhs.push_back(i);
  }
  return out;
}

std::string hash_hex(const Hash128& h) {
  static const char* digits = "0123456789abcdef";
  std::string s(32, '0');
  for (int i = 0; i < 16; ++i) {
    s[15 - i] = digits[(h.hi >> (4 * i)) & 15];
    s[31 - i] = digits[(h.lo >> (4 * i)) & 15];
  }
  return s;
}

int64_t Kernel::outer_size() const {
  if (kind == KernelKind::Elementwise) return shape_numel(domain);
  int64_t n = 1;
  for (int32_t i = 0; i < outer_rank; ++i) n *= domain[i];
  return n;
}

bool Kernel::symbolic_domain() const {
  for (int32_t s : domain_slots)
    if (s >= 0) return true;
  return false;
}

int64_t Kernel::inner_size() const {
  if (kind == KernelKind::Elementwise) return domain.empty() ? 1 : domain.back();
  int64_t n = 1;
  for (size_t i = outer_rank; i < domain.size(); ++i) n *= domain[i];
  return n;
}

Hash128 Kernel::hash() const {
  StableHasher h;
  h.add_string("lt-kernel-v1");
  h.add(static_cast<uint64_t>(kind)).add(domain.size());
  for (size_t a = 0; a < domain.size(); ++a)
    if (symbolic_axis(a)) h.add(~uint64_t{0}).add(static_cast<uint64_t>(domain_slots[a]));
    else h.add(static_cast<uint64_t>(domain[a]));
  h.add(static_cast<uint64_t>(outer_rank)).add(static_cast<uint64_t>(num_phases)).add(serial ? 1 : 0);
  h.add(buffers.size());
  for (const KernelBuffer& b : buffers)
    h.add(static_cast<uint64_t>(b.dtype)).add(b.generic_numel ? ~uint64_t{0} : static_cast<uint64_t>(b.numel)).add(b.written);
  h.add(scalar_types.size());
  for (DType d : scalar_types) h.add(static_cast<uint64_t>(d));
  h.add(ops.size());
  for (const KOp& o : ops) {
    h.add(static_cast<uint64_t>(o.code)).add(static_cast<uint64_t>(o.op)).add(static_cast<uint64_t>(o.dtype));
    h.add(o.elem).add(static_cast<uint64_t>(o.phase)).add(o.num_inputs);
    for (int i = 0; i < o.num_inputs; ++i) h.add(static_cast<uint64_t>(o.inputs[i]));
    h.add(static_cast<uint64_t>(o.imm)).add(static_cast<uint64_t>(o.imm2)).add_double(o.fimm);
  }
  h.add(static_cast<uint64_t>(static_cast<int64_t>(mm_lhs))).add(static_cast<uint64_t>(static_cast<int64_t>(mm_rhs)));
  h.add(static_cast<uint64_t>(static_cast<int64_t>(mm_acc)));
  for (const MatMulView* v : {&mm_lhs_view, &mm_rhs_view})
    h.add(static_cast<uint64_t>(static_cast<int64_t>(v->buffer))).add(static_cast<uint64_t>(static_cast<int64_t>(v->base)))
        .add(static_cast<uint64_t>(v->generic ? ~int64_t{0} : v->row_stride))
        .add(static_cast<uint64_t>(v->generic ? ~int64_t{0} : v->col_stride));
  if (const MatMulConv& c = mm_conv; c.valid()) {
    auto add = [&](int64_t v) { h.add(static_cast<uint64_t>(v)); };
    add(static_cast<int64_t>(c.op)), add(c.nd), add(c.groups), add(c.N), add(c.C), add(c.O);
    for (int j = 0; j < 3; ++j)
      add(c.in[j]), add(c.out[j]), add(c.kernel[j]), add(c.stride[j]), add(c.pad[j]), add(c.dilation[j]);
    for (const StridedSource* src : {&c.rhs, &c.lhs}) {
      add(src->buffer), add(src->base);
      for (int64_t st : src->strides) add(st);
    }
  }
  if (pinned_lanes != 0 || pinned_nest >= 0)  // unset: the hash of every kernel before pins existed
    h.add_string("pinned").add(static_cast<uint64_t>(pinned_lanes)).add(static_cast<uint64_t>(pinned_nest + 1));
  return h.finish();
}

int64_t Kernel::bytes_moved() const {
  int64_t n = 0;
  for (const KernelBuffer& b : buffers)
    if (b.plan_buffer >= 0) n += b.numel * static_cast<int64_t>(dtype_size(b.dtype));
  return n;
}

bool affine_offset(const Kernel& k, int32_t id, std::vector<int64_t>* coeffs, bool* constant_known) {
  size_t r = k.domain.size();
  std::vector<int64_t>& f = *coeffs;
  const KOp& o = k.ops[id];
  f.assign(r + 1, 0);
  if (o.dtype != DType::Int64) return false;
  if (o.code == KOpCode::Coord) return f[o.imm] = 1, true;
  if (o.code == KOpCode::Const) return f[r] = o.imm, true;
  if (o.code == KOpCode::Param) {
    if (!constant_known) return false;
    *constant_known = false;
    return true;
  }
  if (o.code != KOpCode::Compute || o.num_inputs != 2) return false;
  std::vector<int64_t> a, c;
  bool a_known = true, c_known = true;
  bool* ak = constant_known ? &a_known : nullptr;
  bool* ck = constant_known ? &c_known : nullptr;
  if (!affine_offset(k, o.inputs[0], &a, ak) || !affine_offset(k, o.inputs[1], &c, ck)) return false;
  auto is_const = [&](const std::vector<int64_t>& g, bool known) {
    return known && std::all_of(g.begin(), g.end() - 1, [](int64_t x) { return x == 0; });
  };
  // A constant that is a runtime value: all coordinate coefficients zero, the constant unknown.
  auto is_runtime = [&](const std::vector<int64_t>& g, bool known) {
    return !known && std::all_of(g.begin(), g.end() - 1, [](int64_t x) { return x == 0; });
  };
  auto runtime = [](int64_t x) { return x == kRuntimeStride; };
  if (o.op == Op::Mul && !is_const(a, a_known) && !is_const(c, c_known)) {
    if (!is_runtime(a, a_known) && !is_runtime(c, c_known)) return false;
    // coordinates times a runtime value: their coefficients are runtime strides
    const std::vector<int64_t>& g = is_runtime(c, c_known) ? a : c;
    for (size_t i = 0; i < r; ++i) f[i] = g[i] != 0 ? kRuntimeStride : 0;
    f[r] = 0;
    *constant_known = false;
    return true;
  }
  if (o.op != Op::Add && o.op != Op::Sub && o.op != Op::Mul) return false;
  const bool c_const = o.op == Op::Mul && is_const(c, c_known);
  for (size_t i = 0; i <= r; ++i) {
    if (o.op == Op::Mul) {
      const std::vector<int64_t>& g = c_const ? a : c;
      const int64_t factor = c_const ? c[r] : a[r];
      f[i] = factor == 0 ? 0 : runtime(g[i]) ? kRuntimeStride : g[i] * factor;
    } else if (runtime(a[i]) || runtime(c[i])) {
      f[i] = kRuntimeStride;
    } else {
      f[i] = o.op == Op::Add ? a[i] + c[i] : a[i] - c[i];
    }
  }
  if (constant_known && (!a_known || !c_known)) *constant_known = false;
  return true;
}

int64_t kernel_scalar_bits(const Kernel& k, size_t slot, absl::Span<const ScalarValue> scalars) {
  if (k.scalar_slots[slot] == kIndexArgSlot) return k.index_args[slot];
  const ScalarValue& v = scalars.at(k.scalar_slots[slot]);
  if (!is_floating(k.scalar_types[slot])) return v.i;
  int64_t bits;
  std::memcpy(&bits, &v.f, sizeof bits);
  return bits;
}

std::string print_kernel(const Kernel& k) {
  static const char* kinds[] = {"elementwise", "rows", "matmul"};
  std::string domain = shape_str(k.domain);
  if (k.symbolic_domain()) {  // "[4, 17@s2]": axis 1 is 17 in this launch, scalar slot 2 in the code
    domain = "[";
    for (size_t a = 0; a < k.domain.size(); ++a)
      absl::StrAppend(&domain, a ? ", " : "", k.domain[a], k.symbolic_axis(a) ? cat("@s", k.domain_slots[a]) : "");
    domain += "]";
  }
  std::string s = cat("kernel ", k.name, " ", kinds[static_cast<int>(k.kind)], " domain=", domain,
                      " outer_rank=", k.outer_rank, " phases=", k.num_phases, k.serial ? " serial" : "",
                      k.pinned_lanes ? cat(" lanes=", k.pinned_lanes) : "", k.pinned_nest >= 0 ? cat(" nested=", int{k.pinned_nest}) : "",
                      "\n");
  for (size_t i = 0; i < k.buffers.size(); ++i) {
    const KernelBuffer& b = k.buffers[i];
    absl::StrAppend(&s, "  buf", i, " ", detail::to_alpha(dtype_name(b.dtype)), "[", b.numel, b.generic_numel ? "@" : "", "]",
                    b.written ? " out" : " in", " -> b", b.plan_buffer, "\n");
  }
  for (size_t i = 0; i < k.scalar_types.size(); ++i)
    absl::StrAppend(&s, "  scalar", i, " ", detail::to_alpha(dtype_name(k.scalar_types[i])),
                    k.scalar_slots[i] == kIndexArgSlot ? cat(" = index ", k.index_args[i]) : cat(" -> s", k.scalar_slots[i]),
                    "\n");
  for (size_t i = 0; i < k.ops.size(); ++i) {
    const KOp& o = k.ops[i];
    absl::StrAppend(&s, "  %", i, " = ", kop_name(o.code));
    if (o.code == KOpCode::Compute || o.code == KOpCode::Reduce) absl::StrAppend(&s, " ", detail::to_alpha(op_name(o.op)));
    absl::StrAppend(&s, " ", detail::to_alpha(dtype_name(o.dtype)));
    if (o.num_inputs) {
      absl::StrAppend(&s, " (");
      for (int j = 0; j < o.num_inputs; ++j) absl::StrAppend(&s, j ? ", %" : "%", o.inputs[j]);
      absl::StrAppend(&s, ")");
    }
    if (o.code == KOpCode::Const)
      absl::StrAppend(&s, " ", is_floating(o.dtype) ? absl::StrCat(o.fimm) : absl::StrCat(o.imm));
    else if (o.code != KOpCode::Compute && o.code != KOpCode::Reduce)
      absl::StrAppend(&s, " imm=", o.imm);
    if (k.kind == KernelKind::Rows) absl::StrAppend(&s, o.elem ? " elem p" : " row after ", o.phase);
    absl::StrAppend(&s, "\n");
  }
  if (k.kind == KernelKind::MatMul) {
    absl::StrAppend(&s, "  matmul lhs=%", k.mm_lhs, " rhs=%", k.mm_rhs, " acc=buf", k.mm_acc, "\n");
    for (const MatMulView* v : {&k.mm_lhs_view, &k.mm_rhs_view})
      if (v->valid())
        absl::StrAppend(&s, "  ", v == &k.mm_lhs_view ? "lhs" : "rhs", " view buf", v->buffer, " base=%", v->base,
                        " strides=(", v->row_stride, ", ", v->col_stride, ")\n");
    if (const MatMulConv& c = k.mm_conv; c.valid()) {
      absl::StrAppend(&s, "  ", std::string(op_name(c.op)), " nd=", c.nd, " groups=", c.groups);
      absl::StrAppend(&s, " N=", c.N, " C=", c.C, " O=", c.O);
      for (const StridedSource* src : {&c.rhs, &c.lhs})
        if (src->valid())
          absl::StrAppend(&s, src == &c.rhs ? " rhs" : " lhs", "=buf", src->buffer, "+", src->base, " strides=(",
                          absl::StrJoin(absl::MakeConstSpan(src->strides, c.nd + 2), ", "), ")");
      absl::StrAppend(&s, "\n");
    }
  }
  return s;
}

}  // namespace lt
