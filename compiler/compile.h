// Compiling a module for the CPU backend: fuse, autotune every fusion
// through the persistent cache (cache/persistent.h), and build the
// executable. Shared by the CLI (tools/) and the public API (include/xtune).
#ifndef XTUNE_COMPILER_COMPILE_H_
#define XTUNE_COMPILER_COMPILE_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "autotune/autotuner.h"
#include "cache/persistent.h"
#include "codegen/cpu/cpu_backend.h"
#include "compiler/xla_flags.h"
#include "ir/module.h"
#include "runtime/executable.h"

namespace xtune {

// Per-fusion "FUSION:K=V,..." or "FUSION:KIND:K=V,..." overrides (the CLI's
// --config), checked against the fused module.
absl::StatusOr<std::map<std::string, std::string>> ConfigOverrides(
    const std::vector<std::string>& specs, const Module& fused);

// A fusion tuned because the cache did not have it.
struct CacheMiss {
  std::string fusion;
  AutotuneKey key;
};

struct CompiledModule {
  std::unique_ptr<cpu::CpuBackend> backend;
  // The session this compile used when it opened its own (else null).
  std::unique_ptr<AutotuneCacheSession> own_session;
  TuningResult tuning;
  std::vector<CacheMiss> misses;
  std::string cache_summary;  // AutotuneCacheSession::Summary, or empty
  std::unique_ptr<Executable> executable;  // owns the fused module
};

// Fuses `module`, tunes every fusion (flags.autotune) through `session`'s
// caches — or a session opened from flags.cache when null — applies the
// `config_specs` overrides, dumps the cache when asked, and compiles the
// executable. The summary lines go to stderr unless
// flags.autotune.print_summary is false.
absl::StatusOr<CompiledModule> CompileForCpu(
    const Module& module, const XlaFlags& flags,
    const std::vector<std::string>& config_specs,
    AutotuneCacheSession* session = nullptr);

// Writes the cache report of `compiled` (--cache_report): the fusions the
// cache missed (name and key) and the loaded entries no fusion used.
absl::Status WriteCacheReport(const std::string& path,
                              const CompiledModule& compiled,
                              const AutotuneCacheSession& session);

}  // namespace xtune

#endif  // XTUNE_COMPILER_COMPILE_H_
