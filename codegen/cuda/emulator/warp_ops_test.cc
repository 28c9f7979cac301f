// Each tensor-core primitive against a scalar model: fragments are filled
// from whole matrices with the PTX ISA's layout tables (written out again
// here, independently of warp_ops.cc's loops), the collective runs, and the
// result must be the plain matrix product / the plain matrix rows.
#include "codegen/cuda/emulator/warp_ops.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "util/float_formats.h"

#define XT_EMU_ABI_ONLY
#include "codegen/cuda/prelude/xt_emu.h"

namespace xtune::cuda {
namespace {

uint16_t F16(float f) { return F16ToBits(f); }
uint16_t Bf16(float f) { return BF16ToBits(f); }
uint32_t Pack(uint16_t lo, uint16_t hi) { return lo | (static_cast<uint32_t>(hi) << 16); }
uint32_t Bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  return x;
}

struct Lane {
  uint32_t a[4] = {}, b[2] = {};
  float c[4] = {}, d[4] = {};
};

std::vector<WarpRequest*> Requests(std::vector<Lane>& lanes,
                                   std::vector<WarpRequest>& req, int kind) {
  std::vector<WarpRequest*> out;
  for (int l = 0; l < 32; ++l) {
    req[l].kind = kind;
    req[l].a = lanes[l].a;
    req[l].b = lanes[l].b;
    req[l].c = lanes[l].c;
    req[l].d = lanes[l].d;
    out.push_back(&req[l]);
  }
  return out;
}

void CheckD(const std::vector<Lane>& lanes, const float* a, const float* b,
            const float* c, int k) {
  for (int l = 0; l < 32; ++l) {
    int g = l / 4, t = l % 4;
    // C/D table: c0 (g, 2t), c1 (g, 2t+1), c2 (g+8, 2t), c3 (g+8, 2t+1).
    const int rows[4] = {g, g, g + 8, g + 8};
    const int cols[4] = {2 * t, 2 * t + 1, 2 * t, 2 * t + 1};
    for (int i = 0; i < 4; ++i) {
      float want = c[rows[i] * 8 + cols[i]];
      for (int kk = 0; kk < k; ++kk) want += a[rows[i] * k + kk] * b[kk * 8 + cols[i]];
      EXPECT_EQ(lanes[l].d[i], want) << "lane " << l << " d" << i;
    }
  }
}

TEST(WarpOpsTest, MmaM16N8K16F16AndBf16MatchTheScalarModel) {
  for (int kind : {XT_EMU_MMA_M16N8K16_F16, XT_EMU_MMA_M16N8K16_BF16}) {
    float a[16 * 16], b[16 * 8], c[16 * 8];
    for (int i = 0; i < 256; ++i) a[i] = static_cast<float>((i * 7) % 11 - 5);
    for (int i = 0; i < 128; ++i) b[i] = static_cast<float>((i * 5) % 9 - 4);
    for (int i = 0; i < 128; ++i) c[i] = static_cast<float>(i % 13);
    auto h = [&](float f) { return kind == XT_EMU_MMA_M16N8K16_F16 ? F16(f) : Bf16(f); };
    std::vector<Lane> lanes(32);
    for (int l = 0; l < 32; ++l) {
      int g = l / 4, t = l % 4;
      // A table: a0,a1 (g, 2t..2t+1), a2,a3 (g+8, 2t..), a4,a5 (g, 2t+8..),
      // a6,a7 (g+8, 2t+8..).
      lanes[l].a[0] = Pack(h(a[g * 16 + 2 * t]), h(a[g * 16 + 2 * t + 1]));
      lanes[l].a[1] = Pack(h(a[(g + 8) * 16 + 2 * t]), h(a[(g + 8) * 16 + 2 * t + 1]));
      lanes[l].a[2] = Pack(h(a[g * 16 + 2 * t + 8]), h(a[g * 16 + 2 * t + 9]));
      lanes[l].a[3] = Pack(h(a[(g + 8) * 16 + 2 * t + 8]), h(a[(g + 8) * 16 + 2 * t + 9]));
      // B table: b0,b1 (2t..2t+1, g), b2,b3 (2t+8.., g).
      lanes[l].b[0] = Pack(h(b[(2 * t) * 8 + g]), h(b[(2 * t + 1) * 8 + g]));
      lanes[l].b[1] = Pack(h(b[(2 * t + 8) * 8 + g]), h(b[(2 * t + 9) * 8 + g]));
      lanes[l].c[0] = c[g * 8 + 2 * t];
      lanes[l].c[1] = c[g * 8 + 2 * t + 1];
      lanes[l].c[2] = c[(g + 8) * 8 + 2 * t];
      lanes[l].c[3] = c[(g + 8) * 8 + 2 * t + 1];
    }
    std::vector<WarpRequest> req(32);
    EXPECT_EQ(CompleteWarpOp(Requests(lanes, req, kMmaBase + kind), nullptr, {}), "");
    CheckD(lanes, a, b, c, 16);
  }
}

TEST(WarpOpsTest, MmaM16N8K32Fp8MatchesTheScalarModelForEachTypePair) {
  for (int kind = XT_EMU_MMA_M16N8K32_E4M3_E4M3; kind <= XT_EMU_MMA_M16N8K32_E5M2_E5M2;
       ++kind) {
    const Fp8Format fa = (kind - XT_EMU_MMA_M16N8K32_E4M3_E4M3) / 2 ? kF8E5M2 : kF8E4M3FN;
    const Fp8Format fb = (kind - XT_EMU_MMA_M16N8K32_E4M3_E4M3) % 2 ? kF8E5M2 : kF8E4M3FN;
    // Values each format holds exactly: halves, subnormal-free, signed.
    float a[16 * 32], b[32 * 8], c[16 * 8];
    for (int i = 0; i < 512; ++i) a[i] = static_cast<float>((i * 7) % 13 - 6) * 0.5f;
    for (int i = 0; i < 256; ++i) b[i] = static_cast<float>((i * 5) % 9 - 4) * 0.25f;
    for (int i = 0; i < 128; ++i) c[i] = static_cast<float>(i % 13);
    auto q = [](float f, const Fp8Format& fmt) -> uint32_t { return Fp8ToBits(f, fmt); };
    std::vector<Lane> lanes(32);
    for (int l = 0; l < 32; ++l) {
      int g = l / 4, t = l % 4;
      // A table: register r holds 4 consecutive K at row g (+8 for r odd),
      // columns 4t.. (+16 for r >= 2), the lowest K in the low byte.
      for (int r = 0; r < 4; ++r) {
        for (int e = 0; e < 4; ++e) {
          int row = g + 8 * (r % 2), col = 4 * t + e + 16 * (r / 2);
          lanes[l].a[r] |= q(a[row * 32 + col], fa) << (8 * e);
        }
      }
      // B table: register r holds K 4t.. (+16 for r = 1) of column g.
      for (int r = 0; r < 2; ++r) {
        for (int e = 0; e < 4; ++e) {
          lanes[l].b[r] |= q(b[(4 * t + e + 16 * r) * 8 + g], fb) << (8 * e);
        }
      }
      lanes[l].c[0] = c[g * 8 + 2 * t];
      lanes[l].c[1] = c[g * 8 + 2 * t + 1];
      lanes[l].c[2] = c[(g + 8) * 8 + 2 * t];
      lanes[l].c[3] = c[(g + 8) * 8 + 2 * t + 1];
    }
    std::vector<WarpRequest> req(32);
    EXPECT_EQ(CompleteWarpOp(Requests(lanes, req, kMmaBase + kind), nullptr, {}), "");
    CheckD(lanes, a, b, c, 32);
  }
}

TEST(WarpOpsTest, MmaFp8ReadsE4m3NanAndE5m2Infinity) {
  std::vector<Lane> lanes(32);
  // Lane 0's a0 is A(0, 0), b0 is B(0, 0): D(0, 0) (lane 0's d0) sees them.
  lanes[0].a[0] = 0x7Fu;  // e4m3fn NaN
  lanes[0].b[0] = 0x38u;  // e4m3fn 1.0
  std::vector<WarpRequest> req(32);
  EXPECT_EQ(CompleteWarpOp(Requests(lanes, req, kMmaBase + XT_EMU_MMA_M16N8K32_E4M3_E4M3),
                           nullptr, {}),
            "");
  EXPECT_TRUE(std::isnan(lanes[0].d[0]));
  EXPECT_EQ(lanes[4].d[0], 0.0f);  // D(1, 0): row 1 of A is zero
  lanes[0].a[0] = 0x7Cu;  // e5m2 +inf
  lanes[0].b[0] = 0x3Cu;  // e5m2 1.0
  EXPECT_EQ(CompleteWarpOp(Requests(lanes, req, kMmaBase + XT_EMU_MMA_M16N8K32_E5M2_E5M2),
                           nullptr, {}),
            "");
  EXPECT_TRUE(std::isinf(lanes[0].d[0]));
  EXPECT_NE(CompleteWarpOp(Requests(lanes, req, kMmaBase + 9), nullptr, {}), "");
}

TEST(WarpOpsTest, MmaM16N8K8Tf32MatchesTheScalarModelAndTruncates) {
  float a[16 * 8], b[8 * 8], c[16 * 8] = {};
  for (int i = 0; i < 128; ++i) a[i] = static_cast<float>(i % 7 - 3);
  for (int i = 0; i < 64; ++i) b[i] = static_cast<float>(i % 5 - 2);
  std::vector<Lane> lanes(32);
  for (int l = 0; l < 32; ++l) {
    int g = l / 4, t = l % 4;
    // A table: a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4).
    lanes[l].a[0] = Bits(a[g * 8 + t]);
    lanes[l].a[1] = Bits(a[(g + 8) * 8 + t]);
    lanes[l].a[2] = Bits(a[g * 8 + t + 4]);
    lanes[l].a[3] = Bits(a[(g + 8) * 8 + t + 4]);
    // B table: b0 (t, g), b1 (t+4, g).
    lanes[l].b[0] = Bits(b[t * 8 + g]);
    lanes[l].b[1] = Bits(b[(t + 4) * 8 + g]);
  }
  std::vector<WarpRequest> req(32);
  EXPECT_EQ(CompleteWarpOp(Requests(lanes, req, kMmaBase + XT_EMU_MMA_M16N8K8_TF32),
                           nullptr, {}),
            "");
  CheckD(lanes, a, b, c, 8);
  // tf32 keeps 10 mantissa bits: 1 + 2^-11 reads as 1.
  EXPECT_EQ(AsTf32(Bits(1.0f + 1.0f / 2048)), 1.0f);
  EXPECT_EQ(AsTf32(Bits(1.0f + 1.0f / 1024)), 1.0f + 1.0f / 1024);
  // NaN payloads survive, in the dropped bits too; infinities stay.
  for (uint32_t nan : {0x7F800001u, 0xFF801000u, 0x7FC00000u, 0x7F800FFFu}) {
    float f = AsTf32(nan);
    uint32_t back;
    std::memcpy(&back, &f, 4);
    EXPECT_EQ(back, nan) << std::hex << nan;
  }
  EXPECT_EQ(AsTf32(0x7F800000u), std::numeric_limits<float>::infinity());
  EXPECT_EQ(AsTf32(0xFF800000u), -std::numeric_limits<float>::infinity());
}

TEST(WarpOpsTest, LdmatrixX4PlainAndTransposed) {
  // Four 8x8 b16 matrices, element (m, r, c) = m * 64 + r * 8 + c, rows 16
  // bytes apart.
  std::vector<uint16_t> shared(4 * 64);
  for (int i = 0; i < 256; ++i) shared[i] = static_cast<uint16_t>(i);
  for (int trans : {0, 1}) {
    std::vector<WarpRequest> req(32);
    std::vector<uint32_t> regs(32 * 4);
    std::vector<WarpRequest*> lanes;
    for (int l = 0; l < 32; ++l) {
      req[l].kind = kLdmatrixBase + 4 * 2 + trans;
      req[l].off = l * 16;  // lane 8m + r gives row r of matrix m
      req[l].r = &regs[l * 4];
      lanes.push_back(&req[l]);
    }
    std::vector<int64_t> checked;
    EXPECT_EQ(CompleteWarpOp(lanes, reinterpret_cast<const uint8_t*>(shared.data()),
                             [&](int lane, int64_t off, int bytes) {
                               checked.push_back(off);
                               return std::string();
                             }),
              "");
    EXPECT_EQ(checked.size(), 32u);
    for (int l = 0; l < 32; ++l) {
      int row = l / 4, col = 2 * (l % 4);
      for (int m = 0; m < 4; ++m) {
        uint32_t want = trans ? Pack(m * 64 + col * 8 + row, m * 64 + (col + 1) * 8 + row)
                              : Pack(m * 64 + row * 8 + col, m * 64 + row * 8 + col + 1);
        EXPECT_EQ(regs[l * 4 + m], want) << "lane " << l << " matrix " << m
                                         << " trans " << trans;
      }
    }
  }
}

TEST(WarpOpsTest, ShuffleSemantics) {
  std::vector<WarpRequest> req(32);
  std::vector<WarpRequest*> lanes;
  for (int l = 0; l < 32; ++l) {
    req[l].kind = XT_EMU_SHFL_IDX;
    req[l].value = 100 + l;
    req[l].arg = 37;  // source lane 37 % 32 = 5
    lanes.push_back(&req[l]);
  }
  EXPECT_EQ(CompleteWarpOp(lanes, nullptr, {}), "");
  for (int l = 0; l < 32; ++l) EXPECT_EQ(req[l].result, 105u);
}

}  // namespace
}  // namespace xtune::cuda
