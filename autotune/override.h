// --xla_gpu_override_gemm_autotuner: a config given as a textproto, forced
// on every gemm fusion instead of tuning.
//
// The value holds `name: value` pairs. On the CPU backend the names are
// cpu_gemm parameters (mc nc kc mr nr split_k threads); XLA's TritonGemmKey
// fields are accepted too and mapped: block_m -> mc, block_n -> nc, block_k
// -> kc, split_k -> split_k; num_stages, num_warps, num_ctas,
// is_tma_allowed and is_warp_specialization_allowed have no CPU meaning and
// are ignored. Unnamed parameters keep their default values.
#ifndef XTUNE_AUTOTUNE_OVERRIDE_H_
#define XTUNE_AUTOTUNE_OVERRIDE_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "codegen/kernel_config.h"

namespace xtune {

// `base` with the textproto's values applied. InvalidArgument on malformed
// text or a name that is neither a parameter of `base` nor a known
// TritonGemmKey field.
absl::StatusOr<KernelConfig> ApplyGemmOverride(const KernelConfig& base,
                                               absl::string_view textproto);

}  // namespace xtune

#endif  // XTUNE_AUTOTUNE_OVERRIDE_H_
