// Kernel configs as text: ParseKernelConfig (cache entries' configs, the
// tuning log) and ApplyOverrides (--xtune_config overrides) on any text. A
// config that parses prints as text that parses back to it.
#include "codegen/kernel_config.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view text = xtune::fuzz::Bytes(data, size);
  absl::StatusOr<xtune::KernelConfig> c = xtune::ParseKernelConfig(text);
  if (c.ok()) {
    absl::StatusOr<xtune::KernelConfig> again = xtune::ParseKernelConfig(c->ToString());
    xtune::fuzz::Require(again.ok() && *again == *c, "a config does not read back");
  }
  const xtune::KernelConfig base(
      "triton_gemm", {{"block_m", 64}, {"block_n", 64}, {"block_k", 32}, {"split_k", 1},
                      {"num_stages", 2}, {"num_warps", 4}, {"num_ctas", 1}});
  (void)xtune::ApplyOverrides(base, text);
  return 0;
}
