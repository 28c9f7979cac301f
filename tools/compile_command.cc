#include "tools/compile_command.h"

#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ir/parser.h"
#include "tools/cli_args.h"
#include "tools/compile_pipeline.h"
#include "tools/exit_codes.h"
#include "tools/json_writer.h"
#include "tools/tuning_json.h"
#include "util/status_macros.h"

namespace xtune {

const char kCompileHelp[] = R"(usage: xtune compile MODULE.hlo [flags]

Fuses the module, autotunes every fusion on the backend (compiling each
candidate config in parallel, timing it in an isolated worker process and
checking its output), compiles the chosen kernels, and prints a table:
fusion, kind, shape, chosen config, its time, the default config's time,
the speedup, candidates tried/failed, and where the config came from.

flags:
  --backend=NAME            the backend to compile for: cpu (default),
                            interpreter (not tuned), cuda (NVRTC; without a
                            GPU give a target) or cuda_emulator (checks
                            every candidate in the emulator, never tunes);
                            `xtune devices` lists every backend and whether
                            it is available
  --xtune_gpu_target=NAME   compile for a shipped GPU target: a100, h100,
                            h100_pcie, h200, b200 (no GPU needed)
  --xla_gpu_target_config_filename=FILE
                            compile for the GPU of an XLA
                            GpuTargetConfigProto text file
  --xtune_dump_kernels_to=DIR
                            CUDA: write each fusion's .cu, .ptx, .cubin and
                            a line of DIR/manifest.txt
  --config=FUSION:K=V,...   force parameters of one fusion (as xtune run)
  --format=text|json        the table as text (default) or one JSON object
                            (docs/json_output.md); the summary line stays on
                            stderr
  --cache_report=FILE       write the fusions the autotune cache missed (name
                            and key) and the loaded entries no fusion used
  --fill_elided_constants
                            fill constants elided as {...} with
                            deterministic values (as xtune run)
  --help                    this text

XLA flags (also read from the XLA_FLAGS environment variable; the command
line wins; unknown flags in XLA_FLAGS are ignored with a warning):
  --xla_gpu_autotune_level=N             0 no tuning (default configs), 1 tune
                                         on zero inputs, >=2 on random inputs,
                                         >=4 check outputs (wrong candidates
                                         passed over), 5 never choose a wrong
                                         one (default 4)
  --xla_gpu_exhaustive_tiling_search     the full search space
  --xla_gpu_autotune_gemm_rtol=F         output check tolerance (default 0.1)
  --xla_gpu_crash_on_verification_failures
                                         a wrong candidate is a fatal error
  --xla_gpu_override_gemm_autotuner=TEXT force one gemm config, e.g.
                                         'block_m:64 block_k:32' or 'mr:4 nr:24'
  --xla_gpu_dump_autotune_logs_to=FILE   write every candidate's result
  --xla_gpu_force_compilation_parallelism=N
                                         compile threads (default 0: all cores)
  --xla_gpu_cublas_fallback=BOOL         include the OpenBLAS candidate for
                                         gemms (default true)
  --xla_allow_excess_precision=BOOL      kernels may keep f16/bf16 values and
                                         accumulators in f32 until converts
                                         and stores (default true, as XLA);
                                         false rounds every f16/bf16 result
                                         and the reference does the same
  --xla_gpu_load_autotune_results_from=FILE
                                         load tuning results before compiling
                                         (text if FILE ends in .txt .txtpb
                                         .textproto .prototxt .pbtxt, else
                                         binary protobuf); fusions found are
                                         not tuned
  --xla_gpu_dump_autotune_results_to=FILE
                                         write every result (loaded + tuned)
                                         after compiling, atomically
  --xtune_dump_autotune_results_merge    the dump merges into FILE under a
                                         lock instead of replacing it
                                         (parallel or sharded test runs)
  --xla_gpu_require_complete_aot_autotune_results
                                         a fusion missing from the loaded
                                         results is an error; nothing is tuned
  --xla_gpu_per_fusion_autotune_cache_dir=DIR
                                         one file per fusion in DIR, shared by
                                         any number of processes
  --xla_gpu_experimental_autotune_cache_mode=update|read
                                         write tuned results to DIR, or only
                                         read it (default update)
  --xtune_autotune_cache_remote=URL      a Redis server shared by every
                                         process (redis://HOST:PORT[/DB] or
                                         unix:///PATH); password from
                                         $XTUNE_REDIS_PASSWORD (docs/fleet.md)
  --xtune_autotune_cache_remote_timeout_ms=N
                                         longest wait for the remote's
                                         connect and each answer (default
                                         1000); a fault costs one warning
  --xtune_autotune_cache_remote_ttl=S    remote entries expire after S
                                         seconds (default 0: never)
  --xtune_verify_cached_results          run each cached config once against
                                         the reference before its first use;
                                         a wrong one is evicted from every
                                         writable tier and tuned again
  --xla_gpu_shard_autotuning=BOOL        with a remote: processes split the
                                         misses, a lease per key (default
                                         true)
  --xtune_shard_autotuning_wait_ms=N     longest wait for keys another
                                         process tunes (default 600000)
  --xtune_shard_autotuning_lease_ms=N    lease expiry, renewed while tuning
                                         (default 10000)
  --xtune_autotune_details               cache entries also keep every
                                         candidate's time and failure
  --xtune_adaptive_timing=BOOL           timing adapts to each kernel's run
                                         time and stops candidates that
                                         cannot win (default true; false:
                                         the fixed schedule of before)
  --xtune_cost_model=BOOL                skip compiling candidates that
                                         fusions measured earlier in the
                                         compile, or in the loaded cache,
                                         predict over 1.2x the best
                                         (default true; false: compile all;
                                         exhaustive search never prunes)
  --xtune_in_module_timing=BOOL          re-time close finalists of tuned
                                         fusions inside the running module
                                         and keep the fastest there (never
                                         one with more threads; fewer
                                         threads unless measurably slower;
                                         default true; CPU backend)
Paths starting with TEST_UNDECLARED_OUTPUTS_DIR/ or TEST_WORKSPACE/ are
resolved from those environment variables, as in XLA's tests.
)";

namespace {

std::string Micros(std::optional<double> s) {
  return s.has_value() ? absl::StrFormat("%.1f us", *s * 1e6) : "-";
}

absl::Status Compile(const ParsedArgs& args) {
  if (args.positional.size() != 1) {
    return absl::InvalidArgumentError(
        "compile takes exactly one module file (see xtune compile --help)");
  }
  XTUNE_RETURN_IF_ERROR(CheckFormat(args));
  XTUNE_ASSIGN_OR_RETURN(XlaFlags flags, ReadXlaFlags(args));
  ParseOptions parse_options;
  parse_options.fill_elided_constants =
      args.Has("fill_elided_constants");
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Module> module,
                         ParseModuleFile(args.positional[0], parse_options));
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Backend> backend,
                         BackendFromArgs(args, flags));
  XTUNE_ASSIGN_OR_RETURN(
      CompiledModule compiled,
      CompileModule(*module, backend.get(), flags, ConfigSpecs(args)));
  if (args.Has("cache_report")) {
    XTUNE_RETURN_IF_ERROR(
        WriteCacheReport(args.Get("cache_report", ""), compiled));
  }
  if (WantsJson(args)) {
    JsonWriter out;
    out.BeginObject();
    out.Key("module").String(args.positional[0]);
    out.Key("backend").String(backend->name());
    out.Key("device").String(backend->DeviceDescription());
    WriteTuningJson(compiled, out);
    out.EndObject();
    std::cout << out.text() << "\n";
    return absl::OkStatus();
  }
  std::cout << absl::StrFormat("%-16s %-9s %-18s %-62s %10s %10s %8s %8s %s\n",
                               "fusion", "kind", "shape", "config", "time",
                               "default", "speedup", "tried", "source");
  for (const FusionRow& r : FusionRows(compiled)) {
    std::string speedup = "-";
    if (r.seconds && r.default_seconds && *r.seconds > 0) {
      speedup = absl::StrFormat("%.2fx", *r.default_seconds / *r.seconds);
    }
    std::cout << absl::StrFormat(
        "%-16s %-9s %-18s %-62s %10s %10s %8s %8s %s\n", r.name, r.kind, r.shape, r.config,
        Micros(r.seconds), Micros(r.default_seconds), speedup,
        r.candidates ? absl::StrCat(r.candidates, "/", r.failed) : "-",
        r.source + (r.on_evaluator ? " (evaluator)" : ""));
  }
  return absl::OkStatus();
}

}  // namespace

int CompileCommand(const std::vector<std::string>& argv) {
  absl::StatusOr<ParsedArgs> args =
      ParseArgs(argv, {{"backend", true},
                       {"config", true, /*repeated=*/true},
                       {"cache_report", true},
                       {"format", true},
                       {"fill_elided_constants", false},
                       {"help", false}});
  if (args.ok() && args->Has("help")) {
    std::cout << kCompileHelp;
    return kExitOk;
  }
  absl::Status status = args.ok() ? Compile(*args) : args.status();
  if (!status.ok()) {
    std::string message(status.message());
    bool located = args.ok() && !args->positional.empty() &&
                   message.rfind(args->positional[0] + ":", 0) == 0;
    std::cerr << (located ? "" : "xtune compile: ") << message << "\n";
  }
  return ExitCodeFor(status);
}

}  // namespace xtune
