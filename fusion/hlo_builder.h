// Appends new instructions to a computation, each with its shape worked out:
// what the expanders (fusion/rng_expander.h) write their HLO with. Binary
// operations broadcast a scalar operand to the other's shape. Names are
// `prefix` plus a counter, made unique in the computation; every new
// instruction carries `location` (the expanded instruction's line).
#ifndef XTUNE_FUSION_HLO_BUILDER_H_
#define XTUNE_FUSION_HLO_BUILDER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ir/computation.h"
#include "ir/instruction.h"

namespace xtune {

class HloBuilder {
 public:
  HloBuilder(Computation* computation, std::string prefix,
             SourceLocation location);

  // A scalar constant of type `t` holding `v` (integers: its low bits).
  Instruction* Constant(DType t, int64_t v);
  // A scalar constant of float type `t` holding `v` (rounded to `t`).
  Instruction* FloatConstant(DType t, double v);
  Instruction* Iota(DType t, const std::vector<int64_t>& dims,
                    int64_t dimension);
  // `x` (a scalar) broadcast to `dims`; `x` itself when `dims` is empty.
  Instruction* Splat(Instruction* x, const std::vector<int64_t>& dims);
  // `x` broadcast to `dims`, its dimensions landing on `dimensions`.
  Instruction* Broadcast(Instruction* x, const std::vector<int64_t>& dims,
                         const std::vector<int64_t>& dimensions);
  Instruction* Unary(Opcode op, Instruction* x);
  Instruction* Binary(Opcode op, Instruction* a, Instruction* b);
  Instruction* Multiply(Instruction* a, Instruction* b) {
    return Binary(Opcode::kMultiply, a, b);
  }
  // dot(a, b) with dimension numbers `d`, producing `out`.
  Instruction* Dot(Instruction* a, Instruction* b, const DotDimensions& d,
                   const Shape& out);
  Instruction* Add(Instruction* a, Instruction* b) {
    return Binary(Opcode::kAdd, a, b);
  }
  Instruction* Xor(Instruction* a, Instruction* b) {
    return Binary(Opcode::kXor, a, b);
  }
  Instruction* Compare(Instruction* a, Instruction* b,
                       ComparisonDirection direction);
  Instruction* Select(Instruction* p, Instruction* a, Instruction* b);
  Instruction* Convert(Instruction* x, DType t);
  // Same-width bitcast-convert.
  Instruction* Bitcast(Instruction* x, DType t);
  Instruction* Reshape(Instruction* x, const std::vector<int64_t>& dims);
  // Dimension `dim` of `x` from `start` to `limit`, the others whole.
  Instruction* Slice(Instruction* x, int64_t dim, int64_t start,
                     int64_t limit);
  Instruction* Concatenate(const std::vector<Instruction*>& xs, int64_t dim);
  Instruction* Tuple(const std::vector<Instruction*>& xs);
  // slice(x) with a start, limit and stride for every dimension.
  Instruction* StridedSlice(Instruction* x, const std::vector<SliceDimension>& slice);
  // pad(x, value) with `padding` for every dimension.
  Instruction* Pad(Instruction* x, Instruction* value,
                   const std::vector<PaddingDimension>& padding);
  Instruction* Reverse(Instruction* x, const std::vector<int64_t>& dims);
  // transpose(x), output dimension i = x's dimension perm[i].
  Instruction* Transpose(Instruction* x, const std::vector<int64_t>& perm);
  // convolution(lhs, rhs) with `attrs`' window, conv dims and groups.
  Instruction* Convolution(Instruction* lhs, Instruction* rhs, const InstructionAttrs& attrs,
                           const Shape& out);
  // reduce(x, init) over `dims` with `reducer` (its result: x's other
  // dimensions in x's element type).
  Instruction* Reduce(Instruction* x, Instruction* init, const std::vector<int64_t>& dims,
                      Computation* reducer);

 private:
  Instruction* Append(Opcode op, const Shape& shape,
                      const std::vector<Instruction*>& operands);

  Computation* computation_;
  std::string prefix_;
  SourceLocation location_;
  int64_t count_ = 0;
};

}  // namespace xtune

#endif  // XTUNE_FUSION_HLO_BUILDER_H_
