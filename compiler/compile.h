// Compiling a module on any backend: fuse, autotune every fusion through
// the persistent cache (cache/persistent.h) with the backend's own
// profiler, and build the executable. Shared by the CLI (tools/) and the
// public API (include/xtune); backends come from the registry
// (codegen/registry.h) and nothing here names one.
#ifndef XTUNE_COMPILER_COMPILE_H_
#define XTUNE_COMPILER_COMPILE_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "autotune/autotuner.h"
#include "cache/persistent.h"
#include "codegen/backend.h"
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

// The backend `name` with the options XLA's flags imply
// (--xla_allow_excess_precision). Errors: those of CreateBackend (unknown
// name, unavailable backend: the reason).
absl::StatusOr<std::unique_ptr<Backend>> CreateBackendFor(
    const std::string& name, const XlaFlags& flags);

struct CompiledModule {
  Backend* backend = nullptr;  // borrowed from the caller
  // The session this compile used when it opened its own (else null).
  std::unique_ptr<AutotuneCacheSession> own_session;
  // The session it used (own or given); null for a backend that is not
  // tuned (no cache is involved).
  AutotuneCacheSession* session = nullptr;
  TuningResult tuning;
  std::vector<CacheMiss> misses;
  std::string cache_summary;  // AutotuneCacheSession::Summary, or empty
  std::unique_ptr<Executable> executable;  // owns the fused module
};

// Fuses `module`, tunes every fusion (flags.autotune) on `backend`
// (borrowed; it must outlive the result, whose executable runs on it)
// through `session`'s caches — or a session opened from flags.cache when
// null; none for a backend that is not tuned) — applies the
// `config_specs` overrides, dumps the cache when asked,
// and compiles the executable. The summary lines go to stderr unless
// flags.autotune.print_summary is false. Not thread-safe on one backend.
absl::StatusOr<CompiledModule> CompileModule(
    const Module& module, Backend* backend, const XlaFlags& flags,
    const std::vector<std::string>& config_specs,
    AutotuneCacheSession* session = nullptr);

// Writes the cache report of `compiled` (--cache_report): the fusions the
// cache missed (name and key) and the loaded entries no fusion used.
absl::Status WriteCacheReport(const std::string& path,
                              const CompiledModule& compiled);

}  // namespace xtune

#endif  // XTUNE_COMPILER_COMPILE_H_
