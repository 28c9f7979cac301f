// Helpers on the cache file's AutotuneResult that need no backend: XLA's
// validity rule for stored configs, run times, key type names. The codec
// between a backend's KernelConfigs and these keys belongs to the backend
// (Backend::ConfigToResult / ConfigFromResult, codegen/backend.h).
#ifndef XTUNE_CACHE_CONFIG_PROTO_H_
#define XTUNE_CACHE_CONFIG_PROTO_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "cache/autotune_results.pb.h"

namespace xtune {

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
