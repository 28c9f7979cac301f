#include "tools/compile_pipeline.h"

#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "autotune/isolated_profiler.h"
#include "fusion/fusion_pass.h"
#include "util/status_macros.h"

namespace xtune {

absl::StatusOr<XlaFlags> ReadXlaFlags(const ParsedArgs& args) {
  XlaFlags flags;
  if (const char* env = std::getenv("XLA_FLAGS")) {
    std::vector<std::string> warnings;
    XTUNE_RETURN_IF_ERROR(ApplyXlaFlagsEnv(env, &flags, &warnings));
    for (const std::string& w : warnings) std::cerr << "xtune: warning: " << w << "\n";
  }
  for (const ParsedArgs::XlaFlag& f : args.xla) {
    absl::Status s = ApplyXlaFlag(f.name, f.value, f.has_value, &flags);
    if (s.code() == absl::StatusCode::kNotFound) {
      return absl::InvalidArgumentError(absl::StrCat(
          s.message(), " (known: --", absl::StrJoin(KnownXlaFlags(), ", --"), ")"));
    }
    XTUNE_RETURN_IF_ERROR(s);
  }
  flags.autotune.progress = isatty(STDERR_FILENO) != 0;
  return flags;
}

absl::StatusOr<std::map<std::string, std::string>> ConfigOverrides(
    const ParsedArgs& args, const Module& fused) {
  std::map<std::string, std::string> overrides;
  auto it = args.flags.find("config");
  if (it == args.flags.end()) return overrides;
  for (const std::string& spec : it->second) {
    size_t colon = spec.find(':');
    if (colon == std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--config must be FUSION:KEY=VALUE,..., got '", spec, "'"));
    }
    std::string name = spec.substr(0, colon);
    const Instruction* f = fused.entry()->FindInstruction(name);
    if (f == nullptr || f->opcode() != Opcode::kFusion) {
      std::vector<std::string> names;
      for (const auto& i : fused.entry()->instructions()) {
        if (i->opcode() == Opcode::kFusion) names.push_back(i->name());
      }
      return absl::InvalidArgumentError(absl::StrCat(
          "--config names '", name, "', which is not a fusion of this module "
          "(fusions: ", absl::StrJoin(names, ", "), ")"));
    }
    overrides[name] = spec.substr(colon + 1);
  }
  return overrides;
}

namespace {

// `base` (or the first candidate of an explicitly named kind) with the
// overrides of a --config spec applied.
absl::StatusOr<KernelConfig> Override(const Backend& backend,
                                      const Instruction& f, KernelConfig base,
                                      std::string spec) {
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
  } else if (base.kind() != backend.DefaultConfig(f).kind()) {
    base = backend.DefaultConfig(f);
  }
  return ApplyOverrides(base, spec);
}

}  // namespace

absl::StatusOr<CompiledModule> CompileForCpu(const Module& module,
                                             const XlaFlags& flags,
                                             const ParsedArgs& args) {
  CompiledModule out;
  XTUNE_ASSIGN_OR_RETURN(out.backend, cpu::CpuBackend::Create());
  out.cache = std::make_unique<InMemoryAutotuneCache>();
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Module> fused, FuseModule(module));
  XTUNE_ASSIGN_OR_RETURN(auto overrides, ConfigOverrides(args, *fused));
  AutotuneOptions options = flags.autotune;
  // Flush about 1.5x the last-level cache between timed runs.
  options.flush_bytes =
      std::min<int64_t>(out.backend->device().l3_bytes * 3 / 2, int64_t{256} << 20);
  IsolatedProfiler profiler(out.backend.get());
  Autotuner tuner(out.backend.get(), out.cache.get(), &profiler, options);
  XTUNE_ASSIGN_OR_RETURN(out.tuning, tuner.Tune(*fused));
  const Backend& backend = *out.backend;
  const TuningResult& tuning = out.tuning;
  ConfigChooser choose =
      [&backend, &tuning, overrides](const Instruction& f) -> absl::StatusOr<KernelConfig> {
    KernelConfig config = tuning.configs.at(&f);
    auto o = overrides.find(f.name());
    if (o == overrides.end()) return config;
    return Override(backend, f, config, o->second);
  };
  ExecutableOptions exe_options;
  exe_options.compile_parallelism = flags.autotune.compilation_parallelism;
  XTUNE_ASSIGN_OR_RETURN(
      out.executable,
      Executable::Create(std::move(fused), out.backend.get(), choose, exe_options));
  for (const CompiledFusion& f : out.executable->fusions()) {
    if (!f.fallback_reason.empty()) {
      std::cerr << "xtune: warning: fusion '" << f.fusion->name()
                << "' runs on the evaluator: " << f.fallback_reason << "\n";
    }
  }
  return out;
}

}  // namespace xtune
