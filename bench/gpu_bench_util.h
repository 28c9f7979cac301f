// Shared by the GPU benchmarks (gpu_loop_reduction, gpu_gemm): one fusion
// from a module's text, and every candidate of it compiled and timed by the
// cuda backend's profiler (as the autotuner would: CompileCandidate, the GPU
// profiler with its L2 flush, medians).
#ifndef XTUNE_BENCH_GPU_BENCH_UTIL_H_
#define XTUNE_BENCH_GPU_BENCH_UTIL_H_

#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "codegen/cuda/cuda_backend.h"
#include "codegen/profiler.h"
#include "fusion/fusion_pass.h"
#include "ir/parser.h"
#include "util/thread_pool.h"

namespace xtune::bench {

inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// A module fused into exactly one fusion.
struct OneFusion {
  std::unique_ptr<Module> module;
  const Instruction* fusion = nullptr;
};

inline absl::StatusOr<OneFusion> FuseOne(const std::string& hlo) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(hlo);
  if (!m.ok()) return m.status();
  absl::StatusOr<std::unique_ptr<Module>> fused = FuseModule(**m);
  if (!fused.ok()) return fused.status();
  OneFusion out;
  int fusions = 0;
  for (const auto& inst : (*fused)->entry()->instructions()) {
    if (inst->opcode() == Opcode::kFusion) {
      out.fusion = inst.get();
      ++fusions;
    }
  }
  if (fusions != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("fused into ", fusions, " fusions, not 1"));
  }
  out.module = std::move(*fused);
  return out;
}

// A GPU benchmark's command line: [--only=NAME] [--dry_run=TARGET].
struct GpuBench {
  std::string only;
  bool dry_run = false;  // compile for TARGET, time nothing
  std::unique_ptr<cuda::CudaBackend> backend;
};

// The options and the backend (the machine's GPU, or the dry run's
// target). Usage errors and a missing GPU are printed; nullopt then
// (exit 1).
inline std::optional<GpuBench> StartGpuBench(int argc, char** argv,
                                             const char* program) {
  GpuBench bench;
  BackendOptions options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--only=", 0) == 0) {
      bench.only = arg.substr(7);
    } else if (arg.rfind("--dry_run=", 0) == 0) {
      options.gpu_target = arg.substr(10);
    } else {
      std::cerr << "usage: " << program << " [--only=NAME] [--dry_run=TARGET]\n";
      return std::nullopt;
    }
  }
  bench.dry_run = !options.gpu_target.empty();
  absl::StatusOr<std::unique_ptr<cuda::CudaBackend>> gpu =
      cuda::CudaBackend::Create(options);
  if (!gpu.ok()) {
    std::cerr << program << ": " << gpu.status() << "\n";
    return std::nullopt;
  }
  if (!bench.dry_run && (*gpu)->driver() == nullptr) {
    std::cerr << program << " needs a GPU\n";
    return std::nullopt;
  }
  bench.backend = std::move(*gpu);
  std::cerr << "device: " << bench.backend->DeviceDescription() << "\n";
  return bench;
}

struct CandidateTime {
  KernelConfig config;
  double median = 0;  // seconds; 0 when it failed
};

struct TimedCandidates {
  std::vector<CandidateTime> times;  // in candidate order
  int compiled = 0, failed = 0, candidates = 0;
  double seconds = 0;  // compiling and timing, wall
};

// Compiles every candidate of `fusion` (the autotuner's way, in parallel)
// and, unless
// `dry_run`, times each with the backend's profiler. Failures are logged to
// stderr and counted.
inline TimedCandidates TimeCandidates(cuda::CudaBackend& backend,
                                      const Instruction& fusion,
                                      const std::vector<Literal>& args,
                                      bool dry_run, absl::Duration budget) {
  auto start = std::chrono::steady_clock::now();
  TimedCandidates out;
  std::vector<KernelConfig> configs = backend.Candidates(fusion, false);
  out.candidates = static_cast<int>(configs.size());
  // Compiled on every core, as the autotuner does.
  std::vector<absl::StatusOr<std::unique_ptr<Kernel>>> made(configs.size());
  {
    ThreadPool pool(0);
    pool.ParallelFor(static_cast<int64_t>(configs.size()), 0, [&](int64_t i) {
      made[i] = backend.CompileCandidate(fusion, configs[i],
                                         static_cast<int64_t>(configs.size()));
    });
  }
  std::vector<std::unique_ptr<Kernel>> kernels;
  std::vector<Kernel*> raw;
  std::vector<KernelConfig> compiled;
  for (size_t c = 0; c < configs.size(); ++c) {
    const KernelConfig& k = configs[c];
    absl::StatusOr<std::unique_ptr<Kernel>>& kernel = made[c];
    if (!kernel.ok()) {
      std::cerr << fusion.name() << " " << k.ToString() << ": " << kernel.status() << "\n";
      ++out.failed;
      continue;
    }
    raw.push_back(kernel->get());
    kernels.push_back(std::move(*kernel));
    compiled.push_back(k);
  }
  out.compiled = static_cast<int>(raw.size());
  if (!dry_run) {
    absl::StatusOr<std::unique_ptr<Profiler>> profiler = backend.CreateProfiler();
    ProfileOptions options;
    options.flush_bytes = backend.FlushBytes();
    options.time_budget = budget;
    absl::Status begun = profiler.ok()
        ? (*profiler)->BeginFusion(raw, args, fusion.shape())
        : profiler.status();
    for (size_t i = 0; begun.ok() && i < raw.size(); ++i) {
      absl::StatusOr<ProfileResult> r =
          (*profiler)->Profile(*raw[i], compiled[i], args, fusion.shape(), options);
      CandidateTime t{compiled[i], 0};
      if (r.ok() && !r->seconds.empty()) {
        t.median = Median(r->seconds);
      } else {
        std::cerr << fusion.name() << " " << compiled[i].ToString() << ": "
                  << (r.ok() ? "no timings" : r.status().ToString()) << "\n";
        ++out.failed;
      }
      out.times.push_back(t);
    }
    if (!begun.ok()) {
      std::cerr << fusion.name() << ": " << begun << "\n";
      out.failed += static_cast<int>(raw.size());
    }
    if (profiler.ok()) (*profiler)->EndFusion();
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                    .count();
  return out;
}

}  // namespace xtune::bench

#endif  // XTUNE_BENCH_GPU_BENCH_UTIL_H_
