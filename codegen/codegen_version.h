// The codegen version: part of every autotuning cache key (DESIGN §7.2).
// Bump it, with a one-line reason below, whenever generated code or timing
// changes could change which config wins; older cache entries then stop
// matching instead of silently steering new code.
#ifndef XTUNE_CODEGEN_CODEGEN_VERSION_H_
#define XTUNE_CODEGEN_CODEGEN_VERSION_H_

namespace xtune {

// 1: first CPU backend (loop, row/column reduction, BLIS-style gemm kernels).
// 2: in-place dynamic-update-slice kernels: a loop fusion rooted at one walks
//    the update (rows_per_task counts its rows) instead of the output.
// 3: gemm loaders round an f16/bf16 operand computed by arithmetic (XLA's
//    scaled-FP8 operands) to its type; a type-changing bitcast reinterprets
//    bits; NaN/inf constant arrays are bit arrays.
// 4: FP8 gemms (e4m3/e5m2 operands, f32 scales) multiply on FP8 tensor
//    cores (mma m16n8k32) on sm_89 and later: new timings for those configs.
inline constexpr int kCodegenVersion = 4;

// xtune's release, recorded in the provenance of tuned cache entries.
inline constexpr char kXtuneVersionString[] = "0.1.0";

}  // namespace xtune

#endif  // XTUNE_CODEGEN_CODEGEN_VERSION_H_
