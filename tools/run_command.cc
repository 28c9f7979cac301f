#include "tools/run_command.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "eval/evaluator.h"
#include "ir/parser.h"
#include "ir/dot_precision.h"
#include "runtime/compare.h"
#include "runtime/npy.h"
#include "runtime/random_inputs.h"
#include "tools/cli_args.h"
#include "tools/compile_pipeline.h"
#include "tools/exit_codes.h"
#include "tools/json_writer.h"
#include "tools/tuning_json.h"
#include "util/file.h"
#include "util/status_macros.h"

namespace xtune {

const char kRunHelp[] = R"(usage: xtune run MODULE.hlo [flags]

Parses an HLO module (text, or XLA's binary HloProto/HloModuleProto as
--xla_dump_hlo_as_proto writes it: *.hlo.pb), computes its entry
computation and prints, for each output, its shape, element type and
min/max/mean.

flags:
  --backend=NAME      where to compute: cpu (default: fused kernels generated
                      as C++, autotuned, compiled by the host compiler, run
                      on all cores), interpreter (the reference evaluator,
                      not tuned), cuda_emulator (the CUDA kernels on the CPU
                      under strict checks) or cuda; `xtune devices` lists
                      every backend and whether it is available here
  --xtune_gpu_target=NAME, --xla_gpu_target_config_filename=FILE
                      the GPU the CUDA backends compile for (a100, h100,
                      h100_pcie, h200, b200; default: the machine's GPU for
                      cuda, h200 for cuda_emulator)
  --verify            also compute the module with the reference evaluator
                      and compare every output (|a-b|/(max(|a|,|b|)+1) <= 1e-3
                      for f32/f64, 2e-2 for f16/bf16, exact otherwise); exit
                      3 on a mismatch. The reference keeps the excess
                      precision --xla_allow_excess_precision (default true)
                      allows the kernels: f16/bf16 intermediates and
                      accumulators in f32, rounded at converts and stores
                      (it evaluates the fused module, whose fusion outputs
                      are stores). On GPU backends (sm_80 on) f32 dots at
                      default precision are TF32 in kernels and reference,
                      and f32 outputs of such modules match within 1e-2
  --verify_exact      the same against HLO semantics (every f16/bf16 result
                      rounded, reductions in their element type in order),
                      to see what excess precision changes
  --format=text|json  print as text (default) or one JSON object with the
                      tuning, outputs, benchmark and verify results
                      (docs/json_output.md); a mismatch still exits 3
  --benchmark=N       after compiling, time N executions (after one warm-up)
                      and print the median, min and max
  --config=FUSION:K=V,...
                      force parameters of one fusion's kernel config, e.g.
                      gemm_fusion:mc=64,threads=1; or switch its kind:
                      gemm_fusion:cpu_gemm_blas:threads=1 (repeat the flag
                      for several fusions; `xtune fuse` shows fusion names)
  --input=FILE.npy    one .npy file per entry parameter, in order (repeat
                      the flag); without it, inputs are deterministic
                      pseudo-random data: floats uniform in [-1, 1], signed
                      integers in [-4, 4], unsigned in [0, 8], pred 0/1
  --seed=N            seed for the random inputs (default 42; parameter i
                      uses N + i)
  --output_dir=DIR    write the outputs there as out_0.npy, out_1.npy, ...
                      (one per element of a tuple result, flattened in
                      order; out_0.npy for a single array); bf16 outputs
                      are written as float32
  --fill_elided_constants
                      fill constants a dump elided as {...} with
                      deterministic values (FillElidedConstant in
                      ir/parser.h) instead of refusing the module
  --help              this text

XLA flags (also read from the XLA_FLAGS environment variable; the command
line wins; see `xtune compile --help`): --xla_gpu_autotune_level,
--xla_gpu_exhaustive_tiling_search, --xla_gpu_autotune_gemm_rtol,
--xla_gpu_crash_on_verification_failures, --xla_gpu_override_gemm_autotuner,
--xla_gpu_dump_autotune_logs_to, --xla_gpu_force_compilation_parallelism,
--xla_gpu_cublas_fallback, --xla_gpu_load_autotune_results_from,
--xla_gpu_dump_autotune_results_to, --xtune_dump_autotune_results_merge,
--xla_gpu_require_complete_aot_autotune_results,
--xla_gpu_per_fusion_autotune_cache_dir,
--xla_gpu_experimental_autotune_cache_mode, --xtune_autotune_cache_remote,
--xtune_autotune_cache_remote_timeout_ms, --xtune_autotune_cache_remote_ttl,
--xla_gpu_shard_autotuning, --xtune_shard_autotuning_wait_ms,
--xtune_verify_cached_results,
--xtune_shard_autotuning_lease_ms,
--xtune_autotune_details,
--xtune_adaptive_timing, --xtune_cost_model, --xtune_in_module_timing,
--xla_allow_excess_precision

exit codes: 0 ok, 1 user error (bad module, input or flag; no compiler
for --backend=cpu), 2 internal error, 3 a --verify mismatch
)";

namespace {

// Largest total size of generated or loaded inputs.
constexpr int64_t kMaxInputBytes = int64_t{4} << 30;

void Flatten(const Literal& lit, std::vector<const Literal*>* out) {
  if (lit.IsTuple()) {
    for (const Literal& e : lit.elements()) Flatten(e, out);
  } else {
    out->push_back(&lit);
  }
}

struct OutputStats {
  int64_t elements = 0, nans = 0;
  double min = INFINITY, max = -INFINITY, sum = 0;
  int64_t counted() const { return elements - nans; }
};

OutputStats StatsOf(const Literal& lit) {
  OutputStats s;
  s.elements = lit.element_count();
  for (int64_t i = 0; i < s.elements; ++i) {
    double v = lit.GetDouble(i);
    if (std::isnan(v)) {
      ++s.nans;
      continue;
    }
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
    s.sum += v;
  }
  return s;
}

std::string Summary(const Literal& lit) {
  const OutputStats s = StatsOf(lit);
  std::string out = lit.shape().ToString(/*print_layout=*/false);
  if (s.elements == 0) return out + " (empty)";
  if (s.counted() > 0) {
    absl::StrAppend(&out, absl::StrFormat(" min=%.6g max=%.6g mean=%.6g", s.min, s.max,
                                          s.sum / s.counted()));
  }
  if (s.nans > 0) absl::StrAppend(&out, " nan=", s.nans);
  return out;
}

void WriteOutputJson(const Literal& lit, int64_t index, const std::string& npy,
                     JsonWriter& out) {
  const OutputStats s = StatsOf(lit);
  out.BeginObject();
  out.Key("index").Int(index);
  out.Key("shape").String(lit.shape().ToString(/*print_layout=*/false));
  out.Key("elements").Int(s.elements);
  out.Key("nan").Int(s.nans);
  const bool any = s.counted() > 0;
  out.Key("min").Double(any ? std::optional<double>(s.min) : std::nullopt);
  out.Key("max").Double(any ? std::optional<double>(s.max) : std::nullopt);
  out.Key("mean").Double(any ? std::optional<double>(s.sum / s.counted()) : std::nullopt);
  if (npy.empty()) {
    out.Key("npy").Null();
  } else {
    out.Key("npy").String(npy);
  }
  out.EndObject();
}

// Sets *verify_failed when --verify finds a mismatch.
absl::Status Run(const ParsedArgs& args, bool* verify_failed) {
  if (args.positional.size() != 1) {
    return absl::InvalidArgumentError(
        "run takes exactly one module file (see xtune run --help)");
  }
  uint64_t seed = kDefaultInputSeed;
  if (args.Has("seed") && !absl::SimpleAtoi(args.Get("seed", ""), &seed)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--seed must be a non-negative integer, got '",
                     args.Get("seed", ""), "'"));
  }
  XTUNE_RETURN_IF_ERROR(CheckFormat(args));
  const bool json = WantsJson(args);
  XTUNE_ASSIGN_OR_RETURN(XlaFlags xla_flags, ReadXlaFlags(args));
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Backend> backend_impl,
                         BackendFromArgs(args, xla_flags));
  const std::string backend = backend_impl->name();
  ParseOptions parse_options;
  parse_options.fill_elided_constants =
      args.Has("fill_elided_constants");
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Module> module,
                         ParseModuleFile(args.positional[0], parse_options));
  const Computation& entry = *module->entry();
  int64_t input_bytes = 0;
  for (const Instruction* p : entry.parameters()) {
    input_bytes += p->shape().IsTuple() ? 0 : p->shape().ByteSize();
  }
  if (input_bytes > kMaxInputBytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("the module's parameters need ", input_bytes,
                     " bytes of input, over the limit of ", kMaxInputBytes));
  }
  std::vector<Literal> inputs;
  auto input_files = args.flags.find("input");
  if (input_files != args.flags.end()) {
    const std::vector<std::string>& files = input_files->second;
    if (static_cast<int64_t>(files.size()) != entry.parameter_count()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "got ", files.size(), " --input files but the entry computation '",
          entry.name(), "' has ", entry.parameter_count(), " parameters"));
    }
    for (size_t i = 0; i < files.size(); ++i) {
      XTUNE_ASSIGN_OR_RETURN(Literal npy, ReadNpy(files[i]));
      XTUNE_ASSIGN_OR_RETURN(
          Literal arg,
          NpyToParameter(npy, entry.parameter(i)->shape(),
                         absl::StrCat("input ", i, " (", files[i], ")")));
      inputs.push_back(std::move(arg));
    }
  } else {
    inputs = RandomArguments(*module, seed);
  }
  int64_t benchmark_runs = 0;
  if (args.Has("benchmark") &&
      (!absl::SimpleAtoi(args.Get("benchmark", ""), &benchmark_runs) ||
       benchmark_runs < 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--benchmark must be a positive integer, got '",
                     args.Get("benchmark", ""), "'"));
  }
  // Runs the module once on `inputs`, after compiling it for the backend
  // (an emulator checks candidates in `xtune compile`, not here).
  xla_flags.autotune.check_candidates = false;
  XTUNE_ASSIGN_OR_RETURN(CompiledModule compiled,
                         CompileModule(*module, backend_impl.get(), xla_flags,
                                       ConfigSpecs(args)));
  std::function<absl::StatusOr<Literal>()> run_once = [&]() {
    return compiled.executable->Run(inputs);
  };
  XTUNE_ASSIGN_OR_RETURN(Literal result, run_once());
  JsonWriter out;
  out.BeginObject();
  out.Key("module").String(args.positional[0]);
  out.Key("backend").String(backend);
  out.Key("device").String(backend_impl->DeviceDescription());
  if (json) WriteTuningJson(compiled, out);  // text: no table, as before
  out.Key("benchmark");
  if (benchmark_runs == 0) out.Null();
  if (benchmark_runs > 0) {
    std::vector<double> ms;
    for (int64_t i = 0; i < benchmark_runs; ++i) {
      auto start = std::chrono::steady_clock::now();
      XTUNE_ASSIGN_OR_RETURN(Literal again, run_once());
      ms.push_back(std::chrono::duration<double, std::milli>(
                       std::chrono::steady_clock::now() - start)
                       .count());
    }
    std::sort(ms.begin(), ms.end());
    out.BeginObject().Key("runs").Int(benchmark_runs);
    out.Key("median_ms").Double(ms[ms.size() / 2]).Key("min_ms").Double(ms.front());
    out.Key("max_ms").Double(ms.back()).EndObject();
    if (!json) {
      std::cout << absl::StrFormat(
          "benchmark: %d runs on %s, median %.3f ms (min %.3f, max %.3f)\n",
          benchmark_runs, backend, ms[ms.size() / 2], ms.front(), ms.back());
    }
  }
  std::vector<const Literal*> outputs;
  Flatten(result, &outputs);
  std::string dir = args.Get("output_dir", "");
  if (!dir.empty()) XTUNE_RETURN_IF_ERROR(CreateDirectories(dir));
  out.Key("outputs").BeginArray();
  for (size_t k = 0; k < outputs.size(); ++k) {
    const std::string npy = dir.empty() ? "" : absl::StrCat(dir, "/out_", k, ".npy");
    if (!npy.empty()) XTUNE_RETURN_IF_ERROR(WriteNpy(npy, *outputs[k]));
    // One pass over each output: its summary line or its JSON.
    if (json) {
      WriteOutputJson(*outputs[k], static_cast<int64_t>(k), npy, out);
    } else {
      std::cout << "out_" << k << ": " << Summary(*outputs[k]) << "\n";
    }
  }
  out.EndArray();
  out.Key("verify");
  // The JSON ends with the verify result, printed whatever it is.
  auto finish = [&](absl::Status status) {
    if (json) std::cout << out.text() << "\n";
    return status;
  };
  if (!args.Has("verify") && !args.Has("verify_exact")) {
    out.Null().EndObject();
    return finish(absl::OkStatus());
  }
  {
    // Like with like: the reference allows the excess precision the
    // kernels were allowed (--xla_allow_excess_precision), on the fused
    // module, whose fusion outputs are stored and so rounded to their type
    // as the kernels store them (an f16 value two fusions share is rounded
    // between them, not kept in f32).
    EvaluatorOptions eval_options;
    eval_options.excess_precision =
        backend_impl->ExcessPrecision() && !args.Has("verify_exact");
    // TF32 for default-precision f32 dots is HLO semantics on GPUs.
    eval_options.tf32_dots = backend_impl->Tf32Dots();
    XTUNE_ASSIGN_OR_RETURN(
        Literal expected,
        Evaluate(eval_options.excess_precision ? compiled.executable->module()
                                               : *module,
                 inputs, eval_options));
    const CompareOptions tolerance = VerifyTolerance(*module, eval_options.tf32_dots);
    const bool tf32 = tolerance.f32_tolerance == kTf32Tolerance;
    absl::Status match = CompareLiterals(expected, result, "output", tolerance);
    out.BeginObject().Key("matches").Bool(match.ok());
    out.Key("excess_precision").Bool(eval_options.excess_precision);
    out.Key("tf32").Bool(tf32);
    out.Key("message").String(match.message()).EndObject().EndObject();
    if (!match.ok()) {
      *verify_failed = true;
      return finish(absl::Status(
          match.code(), absl::StrCat("verification failed: ", match.message())));
    }
    if (!json) {
      std::cout << "verify: every output matches the evaluator"
                << (eval_options.excess_precision
                        ? " (with excess precision, as the kernels)"
                        : "")
                << (tf32 ? " (TF32 dots: f32 within 1e-2)" : "") << "\n";
    }
  }
  return finish(absl::OkStatus());
}

}  // namespace

int RunCommand(const std::vector<std::string>& argv) {
  absl::StatusOr<ParsedArgs> args =
      ParseArgs(argv, {{"backend", true},
                       {"verify", false},
                       {"verify_exact", false},
                       {"benchmark", true},
                       {"config", true, /*repeated=*/true},
                       {"input", true, /*repeated=*/true},
                       {"seed", true},
                       {"output_dir", true},
                       {"format", true},
                       {"fill_elided_constants", false},
                       {"help", false}});
  if (args.ok() && args->Has("help")) {
    std::cout << kRunHelp;
    return kExitOk;
  }
  bool verify_failed = false;
  absl::Status status = args.ok() ? Run(*args, &verify_failed) : args.status();
  if (!status.ok()) {
    // Errors that carry a "file:line:col:" location print as compilers do;
    // the rest say which command failed.
    std::string message(status.message());
    bool located = args.ok() && !args->positional.empty() &&
                   message.rfind(args->positional[0] + ":", 0) == 0;
    std::cerr << (located ? "" : "xtune run: ") << message << "\n";
  }
  if (verify_failed) return kExitVerificationFailed;
  return ExitCodeFor(status);
}

}  // namespace xtune
