// The warp collectives of the CUDA emulator, computed once every lane of a
// warp has arrived: shuffles and votes, ldmatrix and mma.sync. Fragment
// layouts follow the PTX ISA's tables ("Matrix fragments for mma.m16n8k16
// with floating point type", "... mma.m16n8k8 with .tf32", "ldmatrix"):
//   groupID = lane >> 2, threadID_in_group = lane % 4
//   m16n8k16 A (4 regs of 2 x b16, elements a0..a7):
//     row = groupID (+8 for a2,a3,a6,a7), col = 2*tig + (i&1) (+8 for i>=4)
//   m16n8k16 B (2 regs, b0..b3): row = 2*tig + (i&1) (+8 for i>=2),
//     col = groupID
//   m16n8k8 tf32 A (a0..a3): row = groupID (+8 for a1,a3), col = tig (+4
//     for a2,a3); B (b0,b1): row = tig (+4 for b1), col = groupID
//   m16n8k32 e4m3/e5m2 A (4 regs of 4 x 8 bits, a0..a15): row = groupID
//     (+8 for a4..a7, a12..a15), col = 4*tig + (i&3) (+16 for i>=8);
//     B (2 regs, b0..b7): row = 4*tig + (i&3) (+16 for i>=4), col = groupID
//   C, D (4 f32, c0..c3): row = groupID (+8 for c2,c3), col = 2*tig + (i&1)
//   ldmatrix m8n8 b16: lane l receives row l/4, columns 2*(l%4) and +1 of
//     each matrix (with .trans: row and column exchanged); lanes 8i..8i+7
//     give the row addresses of matrix i.
#ifndef XTUNE_CODEGEN_CUDA_EMULATOR_WARP_OPS_H_
#define XTUNE_CODEGEN_CUDA_EMULATOR_WARP_OPS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace xtune::cuda {

// kinds: XtEmuWarpKind (xt_emu.h) for shuffles and votes; kMmaBase +
// XtEmuMmaKind; kLdmatrixBase + 2 * count + trans.
constexpr int kMmaBase = 100;
constexpr int kLdmatrixBase = 200;

// What one lane brought to a collective.
struct WarpRequest {
  int kind = 0;
  uint64_t value = 0;  // shuffles and votes
  int arg = 0;
  uint64_t result = 0;
  // mma
  float* d = nullptr;
  const uint32_t* a = nullptr;
  const uint32_t* b = nullptr;
  const float* c = nullptr;
  // ldmatrix: this lane's row address (shared byte offset) and its results
  int64_t off = 0;
  uint32_t* r = nullptr;
};

// Checks a shared read of `bytes` at `off` by `lane`; returns an error
// message or "".
using SharedReadCheck =
    std::function<std::string(int lane, int64_t off, int bytes)>;

// Completes the collective all 32 `lanes` (same kind) are waiting at:
// writes each lane's result. Returns an error message or "".
std::string CompleteWarpOp(const std::vector<WarpRequest*>& lanes,
                           const uint8_t* shared, const SharedReadCheck& check);

// An f32 as tf32: the low 13 mantissa bits dropped, as the tensor cores
// read .tf32 operands; a NaN stays a NaN with its payload, as on the
// hardware (dropping the bits would turn a NaN whose payload sits in them
// into an infinity).
float AsTf32(uint32_t bits);

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_EMULATOR_WARP_OPS_H_
