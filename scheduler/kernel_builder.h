// scheduler/kernel_builder.h — builds a Kernel's op DAG with CSE and index simplification.
//
// Every op goes through `intern`, which hash-conses identical ops (so a value
// used by several consumers, or a coordinate expression built twice, is one op)
// and folds integer index arithmetic using value ranges. The range rules are
// what make view collapsing free: a reshape that unravels a linear index with
// div/mod and a contiguous load that re-linearises it Horner-style,
// ((q / C) * C + q % C), fold back to q, so a contiguous view costs no
// arithmetic at all, and only genuinely strided views keep their div/mod.
#pragma once

#include <cstdint>
#include <limits>

#include "absl/container/flat_hash_map.h"
#include "scheduler/kernel.h"

namespace lt {

struct IndexRange {
  int64_t lo = std::numeric_limits<int64_t>::min();
  int64_t hi = std::numeric_limits<int64_t>::max();
  bool known() const { return lo != std::numeric_limits<int64_t>::min() && hi != std::numeric_limits<int64_t>::max(); }
};

class KernelBuilder {
 public:
  explicit KernelBuilder(Kernel* kernel) : k_(kernel) {}

  int32_t coord(int axis);
  int32_t iconst(int64_t v, DType dtype = DType::Int64);
  int32_t fconst(double v, DType dtype);
  int32_t constant(double v, DType dtype);  ///< any dtype
  int32_t param(int32_t slot, DType dtype);
  /// An i64 runtime argument in slot `slot` whose value lies in `range`.
  int32_t index_param(int32_t slot, IndexRange range);
  int32_t load(int32_t buffer, int32_t offset, DType dtype);
  int32_t store(int32_t buffer, int32_t offset, int32_t value, bool accumulate = false);
  int32_t compute(Op op, DType dtype, std::initializer_list<int32_t> inputs);
  int32_t reduce(Op op, DType dtype, int32_t input);
  int32_t scan(DType dtype, int32_t input);
  int32_t random(int32_t seed, int32_t linear, int64_t stream, DType dtype);
  /// `flags`: kCheckIndexRuntime (an index out of range raises ErrorKind::Runtime, else Index) or
  /// kCheckIndexTarget (a class target: PyTorch's "Target N is out of bounds."); see check_index_flags().
  int32_t check_index(int32_t index, int64_t bound, Op op, int64_t axis, int64_t flags = 0);

  // i64 index arithmetic (folded).
  int32_t add(int32_t a, int32_t b) { return compute(Op::Add, DType::Int64, {a, b}); }
  int32_t sub(int32_t a, int32_t b) { return compute(Op::Sub, DType::Int64, {a, b}); }
  int32_t mul(int32_t a, int32_t b) { return compute(Op::Mul, DType::Int64, {a, b}); }
  int32_t muli(int32_t a, int64_t c) { return mul(a, iconst(c)); }
  int32_t addi(int32_t a, int64_t c) { return add(a, iconst(c)); }
  int32_t div(int32_t a, int64_t c);
  int32_t mod(int32_t a, int64_t c);
  int32_t clamp(int32_t a, int64_t lo, int64_t hi);
  /// Row-major offset of `coords` in a contiguous tensor of `shape`, Horner form.
  int32_t linear(const int32_t* coords, absl::Span<const int64_t> shape);

  bool is_const(int32_t id, int64_t* value) const;
  IndexRange range(int32_t id) const { return ranges_[id]; }
  const KOp& op(int32_t id) const { return k_->ops[id]; }
  Kernel& kernel() { return *k_; }

 private:
  int32_t intern(const KOp& op, IndexRange range);
  int32_t fold_index(Op op, int32_t a, int32_t b);
  bool divisible(int32_t id, int64_t c, int32_t* quotient);

  struct Key {
    KOpCode code;
    Op op;
    DType dtype;
    int32_t in0, in1, in2;
    int64_t imm, imm2;
    uint64_t fbits;
    bool operator==(const Key&) const = default;
    template <typename H>
    friend H AbslHashValue(H h, const Key& k) {
      return H::combine(std::move(h), k.code, k.op, k.dtype, k.in0, k.in1, k.in2, k.imm, k.imm2, k.fbits);
    }
  };
  Kernel* k_;
  absl::flat_hash_map<Key, int32_t> interned_;
  std::vector<IndexRange> ranges_;
};

}  // namespace lt
