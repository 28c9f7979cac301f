// The CPU backend's config vocabulary: its kernel kinds as keys of XLA's
// AutotuneResult (xtune's fields, 1000 and above), and its reading of
// --xla_gpu_override_gemm_autotuner.
//
//   cpu_gemm        <-> AutotuneResult.cpu_gemm          (field 1000)
//   cpu_gemm_blas   <-> AutotuneResult.cpu_library_gemm  (field 1001)
//   cpu_loop, cpu_row_reduce, cpu_col_reduce, cpu_scatter, cpu_sort
//                   <-> AutotuneResult.cpu_streaming     (field 1002)
#ifndef XTUNE_CODEGEN_CPU_CPU_CONFIG_CODEC_H_
#define XTUNE_CODEGEN_CPU_CPU_CONFIG_CODEC_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cache/autotune_results.pb.h"
#include "codegen/kernel_config.h"

namespace xtune::cpu {

// Sets the key of `result` from `config`. InvalidArgument for a kind the
// CPU backend does not have, or a config missing one of its parameters.
absl::Status CpuConfigToResult(const KernelConfig& config,
                               xla::AutotuneResult* result);

// The config of a cpu_gemm, cpu_library_gemm or cpu_streaming key;
// Unimplemented for every other key (another backend's).
absl::StatusOr<KernelConfig> CpuConfigFromResult(
    const xla::AutotuneResult& result);

// The name of a streaming kind's third parameter: rows_per_task (cpu_loop,
// cpu_row_reduce), cols_per_task (cpu_col_reduce), window_per_task
// (cpu_scatter), slices_per_task (cpu_sort).
const char* PerTaskName(absl::string_view kind);

// Whether `config` is the library gemm (OpenBLAS sgemm + epilogue).
bool IsCpuLibraryCall(const KernelConfig& config);

// --xla_gpu_override_gemm_autotuner on a cpu_gemm `base` (the fusion's
// default). The text is read with protobuf's TextFormat, as XLA reads it,
// as a TritonGemmKey or else as xtune's CpuGemmKey:
// - TritonGemmKey: block_m -> mc, block_n -> nc, block_k -> kc,
//   split_k -> split_k; num_ctas must be 1 (one block at a time is what
//   the CPU does); num_stages, num_warps, is_tma_allowed,
//   is_warp_specialization_allowed and waves_per_eu have no CPU meaning and
//   are rejected when set.
// - CpuGemmKey: mc nc kc mr nr split_k threads, taken as given.
// Fields left out keep `base`'s values. InvalidArgument naming the field
// (or the parser's line:column) otherwise.
absl::StatusOr<KernelConfig> CpuGemmOverride(const KernelConfig& base,
                                             absl::string_view textproto);

}  // namespace xtune::cpu

#endif  // XTUNE_CODEGEN_CPU_CPU_CONFIG_CODEC_H_
