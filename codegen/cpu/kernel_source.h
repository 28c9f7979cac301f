// Generators of C++ kernel sources for the fusion kinds. Each returns a
// complete translation unit defining
//
//   extern "C" void xtune_kernel(const void* const* inputs, void* output,
//                                const int64_t* config, const XtContext* ctx);
//
// `config` holds the KernelConfig's values in parameter order. Parameters
// that shape the code (vector width, unroll, register tile) are baked into
// the source; the others (block sizes, rows per task, threads) are read from
// `config` at run time, so configs differing only in those share one
// compiled object.
#ifndef XTUNE_CODEGEN_CPU_KERNEL_SOURCE_H_
#define XTUNE_CODEGEN_CPU_KERNEL_SOURCE_H_

#include <string>

#include "absl/status/statusor.h"
#include "codegen/kernel_config.h"
#include "ir/computation.h"

namespace xtune::cpu {

// Loop fusions (and reductions the row/column kernels do not handle):
// config "cpu_loop" {vector_width, unroll, rows_per_task, threads}.
absl::StatusOr<std::string> LoopKernelSource(const Computation& fused,
                                             const KernelConfig& config);
// Its form for in-place dynamic-update-slice fusions (fusion/in_place.h),
// which LoopKernelSource returns for them: the update's elements only, after
// copying the operand into the output when the two buffers differ.
absl::StatusOr<std::string> InPlaceDusKernelSource(const Computation& fused,
                                                   const KernelConfig& config);
// The exported entry of both: `prologue` (C++ statements), then `rows` rows
// split into tasks of config[2] rows on config[3] threads, each running
// `xt_task` on an `XtArgs {in, out, rows_per_task}`.
std::string RowTasksEntry(int64_t rows, const std::string& prologue);

// Row reductions with their epilogues (softmax, layer norm):
// config "cpu_row_reduce" {vector_width, unroll, rows_per_task, threads}.
// Column reductions: config "cpu_col_reduce" {vector_width, unroll,
// cols_per_task, threads}.
absl::StatusOr<std::string> RowReductionKernelSource(const Computation& fused,
                                                     const KernelConfig& config);
absl::StatusOr<std::string> ColumnReductionKernelSource(
    const Computation& fused, const KernelConfig& config);

// Gemm fusions: config "cpu_gemm" {mc, nc, kc, mr, nr, split_k, threads}
// (generated micro-kernel) or "cpu_gemm_blas" {threads} (OpenBLAS sgemm
// plus a generated epilogue).
// `simd_width` is the float lanes of the machine's vectors (8 for AVX2, 16
// for AVX-512); nr must be a multiple of it.
absl::StatusOr<std::string> GemmKernelSource(const Computation& fused,
                                             const KernelConfig& config,
                                             int simd_width);

// Scatter fusions (one operand): config "cpu_scatter" {vector_width (1),
// unroll, window_per_task, threads}; see scatter_kernel.cc.
absl::StatusOr<std::string> ScatterKernelSource(const Computation& fused,
                                                const KernelConfig& config);
// Whether no two window elements of different positions in the window can
// reach the same operand element (every scattered dimension has a window of
// one), so the window splits into independent tasks.
bool ScatterWindowsAreDisjoint(const Instruction& scatter);

// Sort fusions: config "cpu_sort" {vector_width (1), unroll (insertion
// runs of 8 * unroll), slices_per_task, threads}; see sort_kernel.cc.
absl::StatusOr<std::string> SortKernelSource(const Computation& fused,
                                             const KernelConfig& config);

// The start of every kernel: #define XT_W, prelude, vector helpers, math.
std::string KernelHeader(int vector_width);

// The C++ expression for parameter `i` of `fused` as a typed pointer read
// from the `inputs` array.
std::string InputPointer(const Computation& fused, int64_t i);

}  // namespace xtune::cpu

#endif  // XTUNE_CODEGEN_CPU_KERNEL_SOURCE_H_
