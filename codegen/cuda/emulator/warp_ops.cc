#include "codegen/cuda/emulator/warp_ops.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "util/float_formats.h"

#define XT_EMU_ABI_ONLY
#include "codegen/cuda/prelude/xt_emu.h"

namespace xtune::cuda {

float AsTf32(uint32_t bits) {
  const bool nan = (bits & 0x7F800000u) == 0x7F800000u && (bits & 0x007FFFFFu) != 0;
  if (!nan) bits &= ~0x1FFFu;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

namespace {

uint16_t Half(uint32_t reg, int i) {
  return static_cast<uint16_t>(i == 0 ? reg & 0xFFFFu : reg >> 16);
}

// The 16 x K A and K x 8 B matrices of one mma, gathered from the lanes.
std::string Mma(const std::vector<WarpRequest*>& lanes, int kind) {
  const bool tf32 = kind == XT_EMU_MMA_M16N8K8_TF32;
  const bool fp8 = kind >= XT_EMU_MMA_M16N8K32_E4M3_E4M3 &&
                   kind <= XT_EMU_MMA_M16N8K32_E5M2_E5M2;
  if (!tf32 && !fp8 && kind != XT_EMU_MMA_M16N8K16_F16 &&
      kind != XT_EMU_MMA_M16N8K16_BF16) {
    return absl::StrCat("unknown mma kind ", kind);
  }
  const int k = tf32 ? 8 : fp8 ? 32 : 16;
  float a[16][32] = {}, b[32][8] = {}, c[16][8] = {};
  // FP8: byte i of a register; e4m3 is OCP E4M3 (f8e4m3fn), NaN 0x7F/0xFF.
  const int f8 = kind - XT_EMU_MMA_M16N8K32_E4M3_E4M3;
  auto byte = [](uint32_t reg, int i, bool e5m2) {
    uint8_t bits = static_cast<uint8_t>(reg >> (8 * i));
    return static_cast<float>(Fp8FromBits(bits, e5m2 ? kF8E5M2 : kF8E4M3FN));
  };
  auto value = [&](uint32_t reg, int half) {
    uint16_t bits = Half(reg, half);
    return static_cast<float>(kind == XT_EMU_MMA_M16N8K16_F16 ? F16FromBits(bits)
                                                               : BF16FromBits(bits));
  };
  for (int lane = 0; lane < 32; ++lane) {
    const WarpRequest& q = *lanes[lane];
    int g = lane >> 2, t = lane % 4;
    if (fp8) {
      // m16n8k32 A (a0..a15, 4 a register): row = groupID (+8 for a4..a7,
      // a12..a15), col = 4*tig + (i&3) (+16 for i>=8); B (b0..b7): row =
      // 4*tig + (i&3) (+16 for i>=4), col = groupID.
      for (int i = 0; i < 16; ++i) {
        a[g + 8 * ((i / 4) % 2)][4 * t + (i & 3) + 16 * (i / 8)] =
            byte(q.a[i / 4], i % 4, f8 / 2 == 1);
      }
      for (int i = 0; i < 8; ++i) {
        b[4 * t + (i & 3) + 16 * (i / 4)][g] = byte(q.b[i / 4], i % 4, f8 % 2 == 1);
      }
    } else if (tf32) {
      for (int i = 0; i < 4; ++i) {
        a[g + 8 * (i % 2)][t + 4 * (i / 2)] = AsTf32(q.a[i]);
      }
      for (int i = 0; i < 2; ++i) b[t + 4 * i][g] = AsTf32(q.b[i]);
    } else {
      for (int i = 0; i < 8; ++i) {
        int row = g + 8 * ((i / 2) % 2);
        int col = 2 * t + (i & 1) + 8 * (i / 4);
        a[row][col] = value(q.a[i / 2], i % 2);
      }
      for (int i = 0; i < 4; ++i) {
        b[2 * t + (i & 1) + 8 * (i / 2)][g] = value(q.b[i / 2], i % 2);
      }
    }
    for (int i = 0; i < 4; ++i) c[g + 8 * (i / 2)][2 * t + (i & 1)] = q.c[i];
  }
  for (int lane = 0; lane < 32; ++lane) {
    const WarpRequest& q = *lanes[lane];
    int g = lane >> 2, t = lane % 4;
    for (int i = 0; i < 4; ++i) {
      int row = g + 8 * (i / 2), col = 2 * t + (i & 1);
      float acc = c[row][col];
      for (int kk = 0; kk < k; ++kk) acc += a[row][kk] * b[kk][col];
      q.d[i] = acc;
    }
  }
  return "";
}

std::string Ldmatrix(const std::vector<WarpRequest*>& lanes, int count,
                     bool trans, const uint8_t* shared,
                     const SharedReadCheck& check) {
  // m[i][row][col], 8 x 8 b16 each.
  uint16_t m[4][8][8];
  for (int i = 0; i < count; ++i) {
    for (int row = 0; row < 8; ++row) {
      int lane = 8 * i + row;
      int64_t off = lanes[lane]->off;
      std::string error = check(lane, off, 16);
      if (!error.empty()) return error;
      std::memcpy(m[i][row], shared + off, 16);
    }
  }
  for (int lane = 0; lane < 32; ++lane) {
    int row = lane / 4, col = 2 * (lane % 4);
    for (int i = 0; i < count; ++i) {
      uint16_t lo = trans ? m[i][col][row] : m[i][row][col];
      uint16_t hi = trans ? m[i][col + 1][row] : m[i][row][col + 1];
      lanes[lane]->r[i] = static_cast<uint32_t>(lo) | (static_cast<uint32_t>(hi) << 16);
    }
  }
  return "";
}

}  // namespace

std::string CompleteWarpOp(const std::vector<WarpRequest*>& lanes,
                           const uint8_t* shared, const SharedReadCheck& check) {
  const int kind = lanes[0]->kind;
  if (kind >= kLdmatrixBase) {
    int code = kind - kLdmatrixBase;
    return Ldmatrix(lanes, code / 2, code % 2 == 1, shared, check);
  }
  if (kind >= kMmaBase) return Mma(lanes, kind - kMmaBase);
  uint32_t ballot = 0;
  for (int l = 0; l < 32; ++l) {
    if (lanes[l]->value != 0) ballot |= 1u << l;
  }
  for (int l = 0; l < 32; ++l) {
    WarpRequest& q = *lanes[l];
    int src = l;
    switch (kind) {
      case XT_EMU_SHFL_XOR: src = l ^ (q.arg & 31); break;
      case XT_EMU_SHFL_DOWN: src = l + q.arg < 32 ? l + q.arg : l; break;
      case XT_EMU_SHFL_IDX: src = q.arg & 31; break;
      case XT_EMU_BALLOT: q.result = ballot; continue;
      case XT_EMU_ANY: q.result = ballot != 0; continue;
      case XT_EMU_ALL: q.result = ballot == 0xFFFFFFFFu; continue;
      default: return absl::StrCat("unknown warp collective ", kind);
    }
    q.result = lanes[src]->value;
  }
  return "";
}

}  // namespace xtune::cuda
