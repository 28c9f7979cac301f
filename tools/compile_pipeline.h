// The compile pipeline shared by `xtune run` and `xtune compile`: read XLA's
// flags, fuse, autotune on the CPU backend, and build the executable.
#ifndef XTUNE_TOOLS_COMPILE_PIPELINE_H_
#define XTUNE_TOOLS_COMPILE_PIPELINE_H_

#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "autotune/autotuner.h"
#include "cache/autotune_cache.h"
#include "codegen/cpu/cpu_backend.h"
#include "ir/module.h"
#include "runtime/executable.h"
#include "tools/cli_args.h"
#include "tools/xla_flags.h"

namespace xtune {

// XLA_FLAGS (warnings printed to stderr), then the command line's --xla_*
// flags, which win. Errors: InvalidArgument for bad values or unknown
// --xla_* flags on the command line.
absl::StatusOr<XlaFlags> ReadXlaFlags(const ParsedArgs& args);

// Per-fusion "--config=FUSION:..." overrides, checked against the module.
absl::StatusOr<std::map<std::string, std::string>> ConfigOverrides(
    const ParsedArgs& args, const Module& fused);

struct CompiledModule {
  std::unique_ptr<cpu::CpuBackend> backend;
  std::unique_ptr<InMemoryAutotuneCache> cache;
  TuningResult tuning;
  std::unique_ptr<Executable> executable;  // owns the fused module
};

// Fuses `module`, tunes every fusion (flags.autotune), applies `overrides`
// on top, and compiles the executable.
absl::StatusOr<CompiledModule> CompileForCpu(
    const Module& module, const XlaFlags& flags, const ParsedArgs& args);

}  // namespace xtune

#endif  // XTUNE_TOOLS_COMPILE_PIPELINE_H_
