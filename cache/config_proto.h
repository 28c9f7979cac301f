// Converting kernel configs to and from the cache file's AutotuneResult
// keys, and XLA's validity rule for stored configs.
//
//   cpu_gemm        <-> AutotuneResult.cpu_gemm          (field 1000)
//   cpu_gemm_blas   <-> AutotuneResult.cpu_library_gemm  (field 1001)
//   cpu_loop, cpu_row_reduce, cpu_col_reduce
//                   <-> AutotuneResult.cpu_streaming     (field 1002)
//   triton_gemm     <-> AutotuneResult.triton            (XLA's TritonGemmKey)
//   any other kind  <-> AutotuneResult.other.name = "kind:p=v,..." (XLA's
//                       BackendConfigKey; e.g. test backends)
#ifndef XTUNE_CACHE_CONFIG_PROTO_H_
#define XTUNE_CACHE_CONFIG_PROTO_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "cache/autotune_results.pb.h"
#include "codegen/kernel_config.h"

namespace xtune {

// Sets the key of `result` (clearing any other key) from `config`.
// InvalidArgument when a typed key is missing one of its parameters.
absl::Status ConfigToResult(const KernelConfig& config,
                            xla::AutotuneResult* result);

// The config a result's key stands for. Unimplemented for keys xtune's
// backends do not run (cuBLAS algorithms, convolutions, ...).
absl::StatusOr<KernelConfig> ConfigFromResult(
    const xla::AutotuneResult& result);

// XLA's rule for a stored config: for Triton keys every block size, split_k,
// num_stages, num_warps and num_ctas is > 0; for xtune's CPU keys every
// parameter is > 0. InvalidArgument naming the bad field.
absl::Status ValidateResult(const xla::AutotuneResult& result);

// Seconds in a protobuf Duration (run times, samples), and back
// (nanosecond resolution).
double DurationSeconds(const google::protobuf::Duration& d);
void SetDurationSeconds(double seconds, google::protobuf::Duration* d);

// run_time in seconds, when the result has one.
std::optional<double> RunTimeSeconds(const xla::AutotuneResult& result);

// A short name of the key type: "triton", "gemm", "cpu_gemm", "other", ...
std::string KeyTypeName(const xla::AutotuneResult& result);

}  // namespace xtune

#endif  // XTUNE_CACHE_CONFIG_PROTO_H_
