// Codecs between KernelConfigs and the keys of XLA's AutotuneResult that
// more than one backend uses:
//   BackendConfigKey  "kind:name=value,..." in `other.name` (the default
//                     codec of Backend, used by test backends)
//   TritonGemmKey     kind "triton_gemm" (block_m block_n block_k split_k
//                     num_stages num_warps num_ctas), XLA's Triton configs
// and the reading of --xla_gpu_override_gemm_autotuner's textproto.
// Backend-specific keys live with their backend (codegen/cpu/cpu_config_codec.h).
#ifndef XTUNE_CODEGEN_CONFIG_CODEC_H_
#define XTUNE_CODEGEN_CONFIG_CODEC_H_

#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cache/autotune_results.pb.h"
#include "codegen/kernel_config.h"

namespace xtune {

// other.name = config.ToString().
void ConfigToOtherKey(const KernelConfig& config, xla::AutotuneResult* result);
// Unimplemented unless `result` holds an `other` key of that form.
absl::StatusOr<KernelConfig> ConfigFromOtherKey(
    const xla::AutotuneResult& result);

// The seven TritonGemmKey fields, in their proto order.
inline constexpr const char* kTritonGemmParams[] = {
    "block_m", "block_n", "block_k", "split_k",
    "num_stages", "num_warps", "num_ctas"};
// InvalidArgument when `config` is not a "triton_gemm" config with all
// seven parameters.
absl::Status ConfigToTritonKey(const KernelConfig& config,
                               xla::AutotuneResult* result);
// Unimplemented unless `result` holds a `triton` key.
absl::StatusOr<KernelConfig> ConfigFromTritonKey(
    const xla::AutotuneResult& result);

// Parses `textproto` into `message` with protobuf's TextFormat (fields may
// be separated by spaces, commas or semicolons). `present` (optional)
// receives the names of the top-level fields the text sets, even to 0
// (proto3 cannot tell those from absent ones). With `allow_unknown_fields`
// fields the message does not declare are skipped (files written for a
// larger schema). InvalidArgument naming `what`, the line:column and the
// parser's message (and the text itself when it is short: a flag's value).
absl::Status ParseTextProto(absl::string_view textproto,
                            absl::string_view what,
                            google::protobuf::Message* message,
                            std::set<std::string>* present = nullptr,
                            bool allow_unknown_fields = false);

}  // namespace xtune

#endif  // XTUNE_CODEGEN_CONFIG_CODEC_H_
