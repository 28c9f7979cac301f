#include "fusion/rng_expander.h"

#include <array>
#include <vector>

#include "ir/rng.h"
#include "util/status_macros.h"

namespace xtune {
namespace {

using Pair = std::array<Instruction*, 2>;

DType UnsignedOfWidth(int64_t bytes) {
  switch (bytes) {
    case 1: return DType::kU8;
    case 2: return DType::kU16;
    case 4: return DType::kU32;
    default: return DType::kU64;
  }
}

// (low, high) 32-bit halves of a u64 array.
Pair Halves(HloBuilder& b, Instruction* u64) {
  return {b.Convert(u64, DType::kU32),
          b.Convert(b.Binary(Opcode::kShiftRightLogical, u64,
                             b.Constant(DType::kU64, 32)),
                    DType::kU32)};
}

Instruction* Join(HloBuilder& b, Instruction* lo, Instruction* hi) {
  return b.Binary(Opcode::kOr, b.Convert(lo, DType::kU64),
                  b.Binary(Opcode::kShiftLeft, b.Convert(hi, DType::kU64),
                           b.Constant(DType::kU64, 32)));
}

Instruction* RotateLeft(HloBuilder& b, Instruction* v, int d) {
  return b.Binary(Opcode::kOr,
                  b.Binary(Opcode::kShiftLeft, v, b.Constant(DType::kU32, d)),
                  b.Binary(Opcode::kShiftRightLogical, v,
                           b.Constant(DType::kU32, 32 - d)));
}

Pair ThreeFry(HloBuilder& b, Pair x, Pair key) {
  static constexpr int kRotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  Instruction* ks[3] = {
      key[0], key[1],
      b.Xor(b.Xor(b.Constant(DType::kU32, 0x1BD11BDA), key[0]), key[1])};
  x[0] = b.Add(x[0], ks[0]);
  x[1] = b.Add(x[1], ks[1]);
  for (int g = 0; g < 5; ++g) {
    for (int r = 0; r < 4; ++r) {
      x[0] = b.Add(x[0], x[1]);
      x[1] = b.Xor(RotateLeft(b, x[1], kRotations[(g % 2) * 4 + r]), x[0]);
    }
    x[0] = b.Add(x[0], ks[(g + 1) % 3]);
    x[1] = b.Add(b.Add(x[1], ks[(g + 2) % 3]), b.Constant(DType::kU32, g + 1));
  }
  return x;
}

std::array<Instruction*, 4> Philox(HloBuilder& b,
                                   std::array<Instruction*, 4> x, Pair key) {
  auto mul = [&](Instruction* v, uint32_t k) {
    return Halves(b, b.Binary(Opcode::kMultiply, b.Convert(v, DType::kU64),
                              b.Constant(DType::kU64, k)));
  };
  for (int round = 0; round < 10; ++round) {
    Pair p0 = mul(x[0], 0xD2511F53u), p1 = mul(x[2], 0xCD9E8D57u);
    x = {b.Xor(b.Xor(p1[1], x[1]), key[0]), p1[0],
         b.Xor(b.Xor(p0[1], x[3]), key[1]), p0[0]};
    key = {b.Add(key[0], b.Constant(DType::kU32, 0x9E3779B9u)),
           b.Add(key[1], b.Constant(DType::kU32, 0xBB67AE85u))};
  }
  return x;
}

// counter + the row-major index of each element of `dims` (u64).
Instruction* Counters(HloBuilder& b, Instruction* counter,
                      const std::vector<int64_t>& dims) {
  Instruction* c = b.Splat(counter, dims);
  int64_t stride = 1;
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    if (dims[d] >= 2) {
      c = b.Add(c, b.Binary(Opcode::kMultiply, b.Iota(DType::kU64, dims, d),
                            b.Constant(DType::kU64, stride)));
    }
    stride *= dims[d];
  }
  return c;
}

// Elements `order` (4 or 2 arrays of `blocks` words) interleaved: word i
// of the result is order[i % k][i / k]; then the first n, shaped `dims`.
Instruction* Interleave(HloBuilder& b, const std::vector<Instruction*>& words,
                        int64_t blocks, int64_t n,
                        const std::vector<int64_t>& dims) {
  std::vector<Instruction*> columns;
  for (Instruction* w : words) columns.push_back(b.Reshape(w, {blocks, 1}));
  Instruction* all = b.Reshape(b.Concatenate(columns, 1),
                               {blocks * static_cast<int64_t>(words.size())});
  return b.Reshape(b.Slice(all, 0, 0, n), dims);
}

}  // namespace

absl::StatusOr<Instruction*> ExpandRngBitGenerator(const Instruction& inst,
                                                   Instruction* state,
                                                   HloBuilder& b) {
  XTUNE_ASSIGN_OR_RETURN(RngAlgorithm algorithm, RngAlgorithmOf(inst));
  const Shape& out = inst.shape().tuple_shapes()[1];
  const std::vector<int64_t>& dims = out.dims();
  const int64_t n = out.ElementCount();
  const bool wide = DTypeByteSize(out.dtype()) == 8;
  const int64_t words = state->shape().dim(0);
  auto word = [&](int64_t i) {
    return b.Reshape(b.Slice(state, 0, i, i + 1), {});
  };
  Instruction* key = word(0);
  Pair key32 = Halves(b, key);
  Instruction* bits = nullptr;
  std::vector<Instruction*> new_state = {b.Reshape(key, {1})};
  if (algorithm == RngAlgorithm::kThreeFry) {
    Instruction* counter = word(1);
    if (wide) {
      Pair r = ThreeFry(b, Halves(b, Counters(b, counter, dims)), key32);
      bits = Join(b, r[0], r[1]);
      counter = b.Add(counter, b.Constant(DType::kU64, n));
    } else if (dims.empty()) {
      Pair r = ThreeFry(b, Halves(b, counter), key32);
      bits = r[0];
      counter = b.Add(counter, b.Constant(DType::kU64, 1));
    } else {
      // XLA halves the shape along its first even dimension (else the first
      // largest); the two outputs fill positions 2h and 2h + 1 there.
      int64_t split = -1;
      for (size_t d = 0; d < dims.size() && split < 0; ++d) {
        if (dims[d] % 2 == 0) split = static_cast<int64_t>(d);
      }
      if (split < 0) {
        split = 0;
        for (size_t d = 1; d < dims.size(); ++d) {
          if (dims[d] > dims[split]) split = static_cast<int64_t>(d);
        }
      }
      std::vector<int64_t> half = dims;
      half[split] = (dims[split] + 1) / 2;
      int64_t half_n = 1;
      for (int64_t d : half) half_n *= d;
      Pair r = ThreeFry(b, Halves(b, Counters(b, counter, half)), key32);
      std::vector<int64_t> column = half;
      column.insert(column.begin() + split + 1, 1);
      Instruction* both = b.Concatenate(
          {b.Reshape(r[0], column), b.Reshape(r[1], column)}, split + 1);
      std::vector<int64_t> even = dims;
      even[split] = 2 * half[split];
      bits = b.Slice(b.Reshape(both, even), split, 0, dims[split]);
      counter = b.Add(counter, b.Constant(DType::kU64, half_n));
    }
    new_state.push_back(b.Reshape(counter, {1}));
  } else {
    // The 128-bit counter (low, high): words 1 and 2 of a u64[3] state;
    // words 1 and 0 of a u64[2] one, which gets back only the low word.
    Instruction* low = word(1);
    Instruction* high = words >= 3 ? word(2) : word(0);
    const int64_t blocks = ((wide ? 2 * n : n) + 3) / 4;
    auto plus = [&](Instruction* l, Instruction* h, Instruction* v) {
      Instruction* sum = b.Add(b.Splat(l, v->shape().dims()), v);
      Instruction* carry = b.Compare(sum, l, ComparisonDirection::kLt);
      Instruction* h1 = b.Add(h, b.Constant(DType::kU64, 1));
      return Pair{sum, b.Select(carry, b.Splat(h1, v->shape().dims()),
                                b.Splat(h, v->shape().dims()))};
    };
    Pair c = plus(low, high, b.Iota(DType::kU64, {blocks}, 0));
    Pair lo = Halves(b, c[0]), hi = Halves(b, c[1]);
    std::array<Instruction*, 4> r =
        Philox(b, {lo[0], lo[1], hi[0], hi[1]}, key32);
    if (wide) {
      bits = Interleave(b, {Join(b, r[0], r[1]), Join(b, r[2], r[3])},
                        blocks, n, dims);
    } else {
      bits = Interleave(b, {r[0], r[1], r[2], r[3]}, blocks, n, dims);
    }
    Pair next = plus(low, high, b.Constant(DType::kU64, blocks));
    new_state.push_back(b.Reshape(next[0], {1}));
    if (words >= 3) new_state.push_back(b.Reshape(next[1], {1}));
  }
  // Narrow types keep the low bits; signed ones the same bits.
  DType t = out.dtype();
  bits = b.Bitcast(b.Convert(bits, UnsignedOfWidth(DTypeByteSize(t))), t);
  return b.Tuple({b.Concatenate(new_state, 0), bits});
}

bool IsWideningOrNarrowingBitcast(const Instruction& inst) {
  return inst.opcode() == Opcode::kBitcastConvert &&
         DTypeByteSize(inst.shape().dtype()) !=
             DTypeByteSize(inst.operand(0)->shape().dtype());
}

Instruction* ExpandWidthBitcast(const Instruction& inst, Instruction* x,
                                HloBuilder& b) {
  const DType from = x->shape().dtype(), to = inst.shape().dtype();
  const int64_t from_bytes = DTypeByteSize(from), to_bytes = DTypeByteSize(to);
  const DType from_u = UnsignedOfWidth(from_bytes);
  const DType to_u = UnsignedOfWidth(to_bytes);
  Instruction* u = b.Bitcast(x, from_u);
  Instruction* result = nullptr;
  if (to_bytes > from_bytes) {
    // The last dimension (k = to/from words) becomes one element, word j
    // shifted left by j * width: little-endian.
    const int64_t k = to_bytes / from_bytes;
    const int64_t last = x->shape().rank() - 1;
    for (int64_t j = 0; j < k; ++j) {
      Instruction* w = b.Convert(
          b.Reshape(b.Slice(u, last, j, j + 1), inst.shape().dims()), to_u);
      if (j > 0) {
        w = b.Binary(Opcode::kShiftLeft, w,
                     b.Constant(to_u, j * from_bytes * 8));
      }
      result = result == nullptr ? w : b.Binary(Opcode::kOr, result, w);
    }
  } else {
    const int64_t k = from_bytes / to_bytes;
    std::vector<int64_t> column = x->shape().dims();
    column.push_back(1);
    std::vector<Instruction*> parts;
    for (int64_t j = 0; j < k; ++j) {
      Instruction* w = u;
      if (j > 0) {
        w = b.Binary(Opcode::kShiftRightLogical, w,
                     b.Constant(from_u, j * to_bytes * 8));
      }
      parts.push_back(b.Reshape(b.Convert(w, to_u), column));
    }
    result = b.Concatenate(parts, static_cast<int64_t>(column.size()) - 1);
  }
  return b.Bitcast(result, to);
}

}  // namespace xtune
