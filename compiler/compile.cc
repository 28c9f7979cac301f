#include "compiler/compile.h"

#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "autotune/executable_timer.h"
#include "codegen/profiler.h"
#include "codegen/registry.h"
#include "codegen/codegen_version.h"
#include "fusion/fusion_pass.h"
#include "ir/collectives.h"
#include "util/file.h"
#include "util/status_macros.h"

namespace xtune {

absl::StatusOr<std::map<std::string, std::string>> ConfigOverrides(
    const std::vector<std::string>& specs, const Module& fused) {
  std::map<std::string, std::string> overrides;
  for (const std::string& spec : specs) {
    size_t colon = spec.find(':');
    if (colon == std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--config must be FUSION:KEY=VALUE,..., got '", spec, "'"));
    }
    std::string name = spec.substr(0, colon);
    const Instruction* f = FindFusion(fused, name);
    if (f == nullptr) {
      std::vector<std::string> names;
      for (const Instruction* i : FusionsOf(fused)) names.push_back(i->name());
      return absl::InvalidArgumentError(
          absl::StrCat("--config names '", name,
                       "', which is not a fusion of this module "
                       "(fusions: ",
                       absl::StrJoin(names, ", "), ")"));
    }
    overrides[name] = spec.substr(colon + 1);
  }
  return overrides;
}

namespace {

// The default config of `f` (or the first candidate of an explicitly named
// kind) with the overrides of a --config spec applied.
absl::StatusOr<KernelConfig> Override(const Backend& backend,
                                      const Instruction& f, std::string spec) {
  KernelConfig base = backend.DefaultConfig(f);
  size_t colon = spec.find(':');
  if (colon != std::string::npos) {
    std::string kind = spec.substr(0, colon);
    spec = spec.substr(colon + 1);
    bool found = false;
    for (const KernelConfig& c : backend.Candidates(f, false)) {
      if (c.kind() == kind) {
        base = c;
        found = true;
        break;
      }
    }
    if (!found) {
      return absl::InvalidArgumentError(
          absl::StrCat("no '", kind, "' kernels for fusion '", f.name(), "'"));
    }
  }
  return ApplyOverrides(base, spec);
}

}  // namespace

absl::StatusOr<std::unique_ptr<Backend>> CreateBackendFor(
    const std::string& name, const XlaFlags& flags) {
  BackendOptions options;
  options.excess_precision = flags.autotune.excess_precision;
  options.gpu_target_config_file = flags.gpu.target_config_file;
  options.gpu_target = flags.gpu.target;
  options.dump_kernels_to = flags.gpu.dump_kernels_to;
  return CreateBackend(name, options);
}

absl::StatusOr<CompiledModule> CompileModule(
    const Module& module, Backend* backend, const XlaFlags& flags,
    const std::vector<std::string>& config_specs,
    AutotuneCacheSession* session) {
  CompiledModule out;
  out.backend = backend;
  // A backend that is not tuned (the interpreter) touches no cache file:
  // nothing is loaded, looked up or dumped.
  InMemoryAutotuneCache untuned;
  if (!backend->Tunable()) {
    session = nullptr;
  } else if (session == nullptr) {
    XTUNE_ASSIGN_OR_RETURN(out.own_session, AutotuneCacheSession::Open(
                                                flags.cache, kCodegenVersion));
    session = out.own_session.get();
  }
  out.session = session;
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Module> fused, FuseModule(module));
  if (std::string w = ReplicaWarning(module); !w.empty()) {
    std::cerr << "xtune: warning: " << w << "\n";
  }
  XTUNE_ASSIGN_OR_RETURN(auto overrides, ConfigOverrides(config_specs, *fused));
  AutotuneOptions options = flags.autotune;
  options.print_summary = false;  // one line below, with the cache's figures
  // The backend knows its last-level cache; 0 still means no flush.
  if (options.flush_bytes > 0) options.flush_bytes = backend->FlushBytes();
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Profiler> profiler,
                         backend->CreateProfiler());
  Autotuner tuner(backend, session != nullptr ? session->cache() : &untuned,
                  profiler.get(), options);
  // A --config fusion is not tuned: its config is the default one with the
  // given parameters (or the first of the given kind).
  for (const auto& [name, spec] : overrides) {
    const Instruction& f = *FindFusion(*fused, name);
    XTUNE_ASSIGN_OR_RETURN(KernelConfig config,
                           Override(*backend, f, spec));
    XTUNE_RETURN_IF_ERROR(backend->CheckConfig(f, config));
    tuner.ForceConfig(name, std::move(config));
  }
  ExecutableOptions exe_options;
  exe_options.compile_parallelism = flags.autotune.compilation_parallelism;
  // Fallbacks compute as the backend's kernels do.
  exe_options.excess_precision = backend->ExcessPrecision();
  exe_options.tf32_dots = backend->Tf32Dots();
  // In-module timing runs a copy of the fused module (the fusion pass is
  // deterministic: the same names), which this executable owns.
  ExecutableModuleTimer module_timer(
      backend, [&module] { return FuseModule(module); }, exe_options);
  if (backend->TimesInModule()) tuner.SetModuleTimer(&module_timer);
  if (session != nullptr && session->shards() != nullptr) tuner.SetShards(session->shards());
  // The tiers' failures of this compile only (a session outlives many).
  StoreChain::Counts failures_before;
  if (session != nullptr) failures_before = session->chain().counts();
  XTUNE_ASSIGN_OR_RETURN(out.tuning, tuner.Tune(*fused));
  for (const FusionTuning& ft : out.tuning.fusions) {
    if (ft.missed) {
      out.misses.push_back(
          {ft.fusion->name(), KeyOf(*backend, *ft.fusion)});
    }
  }
  AutotuneCacheSession::DumpReport dumped;
  if (session != nullptr) {
    XTUNE_ASSIGN_OR_RETURN(dumped, session->Dump());
    out.cache_summary = session->Summary(backend->DeviceDescription(), dumped,
                                         &failures_before);
  }
  if (flags.autotune.print_summary) {
    std::cerr << "xtune: autotuning: " << out.tuning.stats.ToString()
              << (out.cache_summary.empty() ? "" : "; ") << out.cache_summary
              << "\n";
    if (session != nullptr) {
      for (const std::string& w :
           session->Warnings(backend->DeviceDescription(), dumped)) {
        std::cerr << "xtune: warning: autotune cache: " << w << "\n";
      }
    }
  }
  const TuningResult& tuning = out.tuning;
  ConfigChooser choose =
      [&tuning](const Instruction& f) -> absl::StatusOr<KernelConfig> {
    return tuning.configs.at(&f);
  };
  XTUNE_ASSIGN_OR_RETURN(out.executable,
                         Executable::Create(std::move(fused), backend, choose,
                                            exe_options));
  for (const CompiledFusion& f : out.executable->fusions()) {
    // (A backend that is not tuned, the interpreter, evaluates everything.)
    if (!f.fallback_reason.empty() && backend->Tunable()) {
      std::cerr << "xtune: warning: fusion '" << f.fusion->name()
                << "' runs on the evaluator: " << f.fallback_reason << "\n";
    }
  }
  return out;
}

namespace {

// A key over several lines (the text of a fusion has newlines), indented.
std::string IndentedKey(const AutotuneKey& k, absl::string_view indent) {
  std::string hlo =
      absl::StrReplaceAll(k.hlo, {{"\n", absl::StrCat("\n", indent)}});
  return absl::StrCat(indent, "device: ", k.device, "\n", indent,
                      "version: ", k.version, "\n", indent, "hlo: ", hlo, "\n");
}

}  // namespace

absl::Status WriteCacheReport(const std::string& path,
                              const CompiledModule& compiled) {
  std::string text = absl::StrCat(
      "# xtune cache report: the fusions the autotune cache missed (tuned\n"
      "# here) and the loaded entries no fusion used.\n",
      "device: ", compiled.backend->DeviceDescription(), "\n",
      "missed: ", compiled.misses.size(), "\n");
  for (const CacheMiss& m : compiled.misses) {
    absl::StrAppend(&text, "- fusion: ", m.fusion, "\n",
                    IndentedKey(m.key, "  "));
  }
  std::vector<AutotuneKey> unused;
  if (compiled.session != nullptr) {
    unused = compiled.session->memory().UnusedLoaded();
  }
  absl::StrAppend(&text, "unused: ", unused.size(), "\n");
  for (const AutotuneKey& k : unused) {
    absl::StrAppend(&text, "- entry\n", IndentedKey(k, "  "));
  }
  return WriteFileAtomically(path, text);
}

}  // namespace xtune
