#include "eval/rng.h"

#include <vector>

#include "ir/dtype.h"
#include "ir/rng.h"
#include "util/status_macros.h"

namespace xtune {
namespace {

uint32_t Rotl(uint32_t v, int d) { return (v << d) | (v >> (32 - d)); }
uint32_t Lo(uint64_t v) { return static_cast<uint32_t>(v); }
uint32_t Hi(uint64_t v) { return static_cast<uint32_t>(v >> 32); }

// XLA's SplitShapeIntoHalves: the dimension ThreeFry's 32-bit generator
// halves (its two outputs fill even and odd positions along it): the first
// even one, else the first of the largest.
int64_t SplitDim(const std::vector<int64_t>& dims) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] % 2 == 0) return static_cast<int64_t>(i);
  }
  int64_t best = 0;
  for (size_t i = 1; i < dims.size(); ++i) {
    if (dims[i] > dims[best]) best = static_cast<int64_t>(i);
  }
  return best;
}

// 32 random bits for each element of `dims` (row-major), ThreeFry: the
// counter of an element is the state plus its row-major index in the
// halved shape; its two outputs go to positions 2h and 2h + 1 along the
// split dimension. Returns how far the counter moved.
uint64_t ThreeFryBits32(uint64_t key, uint64_t counter,
                        const std::vector<int64_t>& dims,
                        std::vector<uint64_t>* out) {
  std::array<uint32_t, 2> k = {Lo(key), Hi(key)};
  if (dims.empty()) {
    out->push_back(ThreeFry2x32({Lo(counter), Hi(counter)}, k)[0]);
    return 1;
  }
  const int64_t split = SplitDim(dims);
  std::vector<int64_t> half = dims;
  half[split] = (dims[split] + 1) / 2;
  int64_t half_elements = 1;
  for (int64_t d : half) half_elements *= d;
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<int64_t> idx(dims.size(), 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t lin = 0;
    for (size_t d = 0; d < dims.size(); ++d) {
      int64_t c = static_cast<int64_t>(d) == split ? idx[d] / 2 : idx[d];
      lin = lin * half[d] + c;
    }
    uint64_t c = counter + static_cast<uint64_t>(lin);
    out->push_back(ThreeFry2x32({Lo(c), Hi(c)}, k)[idx[split] % 2]);
    for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
      if (++idx[d] < dims[d]) break;
      idx[d] = 0;
    }
  }
  return static_cast<uint64_t>(half_elements);
}

}  // namespace

std::array<uint32_t, 2> ThreeFry2x32(std::array<uint32_t, 2> x,
                                     std::array<uint32_t, 2> key) {
  static constexpr int kRotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  const uint32_t ks[3] = {key[0], key[1], 0x1BD11BDAu ^ key[0] ^ key[1]};
  x[0] += ks[0];
  x[1] += ks[1];
  // Five groups of four rounds, each followed by a key injection.
  for (uint32_t g = 0; g < 5; ++g) {
    for (int r = 0; r < 4; ++r) {
      x[0] += x[1];
      x[1] = Rotl(x[1], kRotations[(g % 2) * 4 + r]) ^ x[0];
    }
    x[0] += ks[(g + 1) % 3];
    x[1] += ks[(g + 2) % 3] + g + 1;
  }
  return x;
}

std::array<uint32_t, 4> Philox4x32(std::array<uint32_t, 4> x,
                                   std::array<uint32_t, 2> key) {
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t{x[0]} * 0xD2511F53u;
    const uint64_t p1 = uint64_t{x[2]} * 0xCD9E8D57u;
    x = {Hi(p1) ^ x[1] ^ key[0], Lo(p1), Hi(p0) ^ x[3] ^ key[1], Lo(p0)};
    key[0] += 0x9E3779B9u;
    key[1] += 0xBB67AE85u;
  }
  return x;
}

absl::StatusOr<Tensor> EvalRngBitGenerator(const Instruction& inst,
                                           const Tensor& state) {
  XTUNE_ASSIGN_OR_RETURN(RngAlgorithm algorithm, RngAlgorithmOf(inst));
  const Shape& bits_shape = inst.shape().tuple_shapes()[1];
  const DType t = bits_shape.dtype();
  const bool wide = DTypeByteSize(t) == 8;
  const int64_t n = bits_shape.ElementCount();
  std::vector<uint64_t> s(state.i.begin(), state.i.end());
  const uint64_t key = s[0];
  std::vector<uint64_t> bits;
  bits.reserve(n);
  Tensor new_state(state.shape);
  new_state.i = state.i;
  if (algorithm == RngAlgorithm::kThreeFry) {
    if (wide) {
      for (int64_t e = 0; e < n; ++e) {
        uint64_t c = s[1] + static_cast<uint64_t>(e);
        std::array<uint32_t, 2> r =
            ThreeFry2x32({Lo(c), Hi(c)}, {Lo(key), Hi(key)});
        bits.push_back(uint64_t{r[0]} | uint64_t{r[1]} << 32);
      }
      new_state.i[1] = static_cast<int64_t>(s[1] + static_cast<uint64_t>(n));
    } else {
      uint64_t moved = ThreeFryBits32(key, s[1], bits_shape.dims(), &bits);
      new_state.i[1] = static_cast<int64_t>(s[1] + moved);
    }
  } else {
    // The 128-bit counter: (s[1], s[2]) from a u64[3] state; (s[1], s[0])
    // from a u64[2] one, of which only the low word is written back.
    const uint64_t low = s[1], high = s.size() >= 3 ? s[2] : s[0];
    const int64_t words = wide ? 2 * n : n;
    const uint64_t blocks = static_cast<uint64_t>((words + 3) / 4);
    auto block = [&](uint64_t v) {
      uint64_t l = low + v, h = high + (l < low ? 1 : 0);
      return Philox4x32({Lo(l), Hi(l), Lo(h), Hi(h)}, {Lo(key), Hi(key)});
    };
    for (int64_t e = 0; e < n; ++e) {
      if (wide) {
        std::array<uint32_t, 4> b = block(static_cast<uint64_t>(e / 2));
        int w = static_cast<int>(e % 2) * 2;
        bits.push_back(uint64_t{b[w]} | uint64_t{b[w + 1]} << 32);
      } else {
        bits.push_back(block(static_cast<uint64_t>(e / 4))[e % 4]);
      }
    }
    uint64_t l = low + blocks, h = high + (l < low ? 1 : 0);
    new_state.i[1] = static_cast<int64_t>(l);
    if (s.size() >= 3) new_state.i[2] = static_cast<int64_t>(h);
  }
  Tensor out(bits_shape);
  for (int64_t e = 0; e < n; ++e) {
    // Narrow types keep the low bits of 32, as XLA's convert does.
    out.i[e] = WrapToDType(static_cast<int64_t>(bits[e]), t);
  }
  Tensor result;
  result.shape = inst.shape();
  result.tuple = {std::move(new_state), std::move(out)};
  return result;
}

}  // namespace xtune
