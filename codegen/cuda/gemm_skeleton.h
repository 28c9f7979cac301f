// The frame both paths of the generated gemm (triton_gemm.cc on CUDA cores,
// triton_gemm_mma.cc on tensor cores) share: which block computes which
// tile of which batch and K split, the accumulators, the loop over K steps
// and the results (the epilogue and the store, or split-k partials). Each
// operand's tile reaches shared memory one of two ways:
//   - through registers: the path's xt_load_a / xt_load_b compute a
//     thread's words of the next step's tile (through the operand's
//     producers), which are then stored to one shared buffer; num_stages
//     >= 2 loads them before the current step's compute (a register
//     prefetch), 1 after;
//   - asynchronously (async[operand]): `issue` copies it with cp.async into
//     `buffers` shared buffers, a pipeline of that depth (buffers - 1 steps
//     in flight while one is computed, cp.async.wait_group buffers - 2
//     before each step).
// A path supplies its shared tiles, its thread coordinates, one K step's
// compute (reading buffer xt_buf) and where each accumulator belongs.
#ifndef XTUNE_CODEGEN_CUDA_GEMM_SKELETON_H_
#define XTUNE_CODEGEN_CUDA_GEMM_SKELETON_H_

#include <algorithm>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "codegen/cpu/code_buffer.h"
#include "codegen/cpu/gemm_analysis.h"
#include "codegen/cuda/cuda_kernels.h"
#include "codegen/kernel_config.h"
#include "ir/computation.h"

namespace xtune::cuda {

struct GemmSkeleton {
  int64_t bm = 0, bn = 0, bk = 0, splits = 1, stages = 1, threads = 0;
  int64_t kc = 0;    // K per split, a multiple of bk
  int64_t accs = 0;  // accumulators a thread (float xt_acc[accs])
  // The shared tiles xt_as, xt_bs: element type ("float", "uint16_t"),
  // elements a buffer, and the buffers of the asynchronous ones.
  std::string tile_type;
  int64_t tile_a = 0, tile_b = 0, buffers = 1;
  bool async[2] = {false, false};
  // Register loading: the type of a register word ("float", "uint32_t"),
  // and the words of each tile, which the threads share out.
  std::string word;
  int64_t words_a = 0, words_b = 0;
  // Emits the store of register word xt_ra[xt_i] (operand 0) or
  // xt_rb[xt_i] (1), word xt_w of its tile. Unset: XT_S(xt_as)[xt_w] = ...
  std::function<void(cpu::CodeBuffer*, int operand)> store_word;
  // With an async operand: emits the copies of the async tiles of the K
  // step at `k0` into buffer `buf` (expressions).
  std::function<void(cpu::CodeBuffer*, const std::string& k0,
                     const std::string& buf)>
      issue;
  // Optional, with `issue`: emitted once buffer `buf`'s copies have landed
  // (after the wait, before the barrier), on this thread's own chunks.
  std::function<void(cpu::CodeBuffer*, const std::string& buf)> landed;
  // Declares the thread's coordinates (after xt_m0, xt_n0, the tiles ...).
  std::function<void(cpu::CodeBuffer*)> thread_setup;
  // xt_load_b's two coordinates for a K step at `k0` (the path's order).
  std::function<std::string(const std::string& k0)> b_coordinates;
  // One K step of the block: xt_acc += the tiles (async ones: in buffer
  // xt_buf).
  std::function<void(cpu::CodeBuffer*)> compute;
  // Declares xt_mi and xt_ni, the output element of accumulator xt_x.
  std::function<void(cpu::CodeBuffer*)> element;
  // Optional: emits (after the K loop) what every accumulator is multiplied
  // by before the epilogue or the split-k partials, and returns that
  // expression; device helpers it needs go to `globals`.
  std::function<absl::StatusOr<std::string>(cpu::CodeBuffer*, std::string* globals)>
      acc_scale;
};

// The fields every path takes from its config (TritonGemmKey): tiles,
// splits, stages, threads (num_warps x 32) and K per split of `k`.
GemmSkeleton SkeletonOf(const KernelConfig& config, int64_t k);

// The K range of one split: ceil(K / splits), rounded up to whole bk steps.
inline int64_t KPerSplit(int64_t k, int64_t splits, int64_t bk) {
  int64_t per_split = (k + splits - 1) / splits;
  return std::max<int64_t>(bk, (per_split + bk - 1) / bk * bk);
}

// The kernel (`xt_load_a` and `xt_load_b` already in `loaders`), storing
// `out_type` (f32 partials with splits > 1).
absl::StatusOr<CudaKernelSource> EmitGemmKernel(
    const Computation& fused, const cpu::GemmFusion& g, const GemmSkeleton& s,
    DType out_type, const CudaKernelOptions& options, std::string globals,
    const cpu::CodeBuffer& loaders);

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_GEMM_SKELETON_H_
