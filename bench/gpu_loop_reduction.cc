// GPU loop and reduction kernels against the device's own copy bandwidth,
// one JSON line per fusion: every candidate of the fusion is timed by the
// GPU profiler (xtune_gpu_worker: CUDA events, an L2 flush between runs,
// the median), and the best one's bandwidth (bytes of the inputs and the
// output over its median time) is divided by the bandwidth of a
// device-to-device copy moving the same bytes, timed in the same run.
// Targets (issue 11): >= 0.8 for loop fusions, >= 0.7 for row reductions.
// bench/gpu_loop_reduction_jax.py times the same computations with JAX, so
// scripts/gpu_check.sh prints XLA's figures beside these.
//
// usage: gpu_loop_reduction [--only=NAME]   (needs a GPU; exit 1 without)
//        gpu_loop_reduction --dry_run=TARGET   (no GPU: fuses each case and
//        compiles every candidate for a shipped target, e.g. h200; times
//        nothing)
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/gpu_bench_util.h"
#include "codegen/cuda/cuda_backend.h"
#include "codegen/cuda/gpu_profiler.h"
#include "fusion/fusion_pass.h"
#include "ir/parser.h"
#include "runtime/random_inputs.h"

namespace xtune::bench {
namespace {

struct Case {
  const char* name;
  const char* kind;  // loop | row_reduction | column_reduction
  const char* hlo;
};

// The same computations as gpu_loop_reduction_jax.py.
const Case kCases[] = {
    {"add_mul_f32_16M", "loop", R"hlo(
HloModule add_mul
ENTRY e {
  a = f32[16777216] parameter(0)
  b = f32[16777216] parameter(1)
  s = f32[16777216] add(a, b)
  ROOT m = f32[16777216] multiply(s, a)
})hlo"},
    {"scale_bias_relu_bf16_32M", "loop", R"hlo(
HloModule scale_bias_relu
ENTRY e {
  x = bf16[8192,4096] parameter(0)
  b = bf16[4096] parameter(1)
  bb = bf16[8192,4096] broadcast(b), dimensions={1}
  c = bf16[] constant(1.5)
  cb = bf16[8192,4096] broadcast(c), dimensions={}
  y = bf16[8192,4096] multiply(x, cb)
  z = bf16[8192,4096] add(y, bb)
  zero = bf16[] constant(0)
  zb = bf16[8192,4096] broadcast(zero), dimensions={}
  ROOT r = bf16[8192,4096] maximum(z, zb)
})hlo"},
    {"row_sum_f32_32768x4096", "row_reduction", R"hlo(
HloModule row_sum
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[32768,4096] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[32768] reduce(a, z), dimensions={1}, to_apply=add
})hlo"},
    {"softmax_f32_16384x4096", "row_reduction", R"hlo(
HloModule softmax
max {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT m = f32[] maximum(x, y)
}
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[16384,4096] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[16384] reduce(a, ninf), dimensions={1}, to_apply=max
  mb = f32[16384,4096] broadcast(m), dimensions={0}
  d = f32[16384,4096] subtract(a, mb)
  x = f32[16384,4096] exponential(d)
  z = f32[] constant(0)
  s = f32[16384] reduce(x, z), dimensions={1}, to_apply=add
  sb = f32[16384,4096] broadcast(s), dimensions={0}
  ROOT r = f32[16384,4096] divide(x, sb)
})hlo"},
    {"column_sum_f32_4096x32768", "column_reduction", R"hlo(
HloModule column_sum
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[4096,32768] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[32768] reduce(a, z), dimensions={0}, to_apply=add
})hlo"},
};

// Median seconds of a device-to-device copy of `bytes` (events around each
// copy, 5 warm-up copies, 30 timed).
absl::StatusOr<double> CopySeconds(cuda::Driver& d, int64_t bytes) {
  absl::StatusOr<uint64_t> src = d.Allocate(bytes);
  if (!src.ok()) return src.status();
  absl::StatusOr<uint64_t> dst = d.Allocate(bytes);
  if (!dst.ok()) return dst.status();
  absl::StatusOr<void*> start = d.CreateEvent();
  absl::StatusOr<void*> end = d.CreateEvent();
  if (!start.ok() || !end.ok()) return start.ok() ? end.status() : start.status();
  absl::Status s = d.Memset(*src, 1, bytes);
  for (int i = 0; s.ok() && i < 5; ++i) s = d.CopyOnDevice(*dst, *src, bytes);
  std::vector<double> seconds;
  for (int i = 0; s.ok() && i < 30; ++i) {
    s = d.Record(*start);
    if (s.ok()) s = d.CopyOnDevice(*dst, *src, bytes);
    if (s.ok()) s = d.Record(*end);
    absl::StatusOr<float> ms =
        s.ok() ? d.ElapsedMilliseconds(*start, *end) : absl::StatusOr<float>(s);
    if (!ms.ok()) s = ms.status();
    if (s.ok()) seconds.push_back(*ms * 1e-3);
  }
  d.DestroyEvent(*start);
  d.DestroyEvent(*end);
  d.Free(*src).IgnoreError();
  d.Free(*dst).IgnoreError();
  if (!s.ok()) return s;
  return Median(seconds);
}

int Main(int argc, char** argv) {
  std::optional<GpuBench> bench = StartGpuBench(argc, argv, "gpu_loop_reduction");
  if (!bench.has_value()) return 1;
  const std::string& only = bench->only;
  const bool dry_run = bench->dry_run;
  cuda::CudaBackend& backend = *bench->backend;
  int failures = 0;
  for (const Case& c : kCases) {
    if (!only.empty() && only != c.name) continue;
    absl::StatusOr<OneFusion> one = FuseOne(c.hlo);
    if (!one.ok()) {
      std::cerr << c.name << ": " << one.status() << "\n";
      return 2;
    }
    const Instruction* fusion = one->fusion;
    std::vector<Literal> args;
    int64_t bytes = fusion->shape().ByteSize();
    for (int64_t i = 0; i < fusion->operand_count(); ++i) {
      args.push_back(RandomLiteral(fusion->operand(i)->shape(), 1 + i));
      bytes += fusion->operand(i)->shape().ByteSize();
    }
    TimedCandidates timed = TimeCandidates(backend, *fusion, args, dry_run,
                                           absl::Milliseconds(50));
    if (dry_run) {
      std::cout << c.name << ": " << timed.compiled << " of " << timed.candidates
                << " candidates compiled for " << backend.device().Arch()
                << " (default " << backend.DefaultConfig(*fusion).ToString()
                << ")\n";
      if (timed.failed > 0) ++failures;
      continue;
    }
    failures += timed.failed;
    double best = 0;
    std::string best_config;
    double default_seconds = 0;
    KernelConfig def = backend.DefaultConfig(*fusion);
    for (const CandidateTime& t : timed.times) {
      if (t.median == 0) continue;
      if (t.config == def) default_seconds = t.median;
      if (best == 0 || t.median < best) {
        best = t.median;
        best_config = t.config.ToString();
      }
    }
    absl::StatusOr<double> copy = CopySeconds(*backend.driver(), bytes / 2);
    if (best == 0 || !copy.ok()) {
      std::cerr << c.name << ": nothing timed"
                << (copy.ok() ? "" : ": " + copy.status().ToString()) << "\n";
      ++failures;
      continue;
    }
    double ours = bytes / best / 1e9;
    double base = bytes / *copy / 1e9;
    double target = absl::StrContains(c.kind, "row") ? 0.7
                    : absl::StrContains(c.kind, "loop") ? 0.8 : 0;
    std::cout << absl::StrFormat(
        "{\"bench\":\"gpu_loop_reduction\",\"fusion\":\"%s\",\"kind\":\"%s\","
        "\"bytes\":%d,\"candidates\":%d,\"best_config\":\"%s\","
        "\"xtune_seconds\":%.4g,\"xtune_gbps\":%.1f,\"default_seconds\":%.4g,"
        "\"copy_seconds\":%.4g,\"copy_gbps\":%.1f,\"ratio\":%.3f,"
        "\"target\":%.1f}\n",
        c.name, c.kind, bytes, timed.compiled, best_config, best,
        ours, default_seconds, *copy, base, ours / base, target);
  }
  return failures == 0 ? 0 : 2;
}

}  // namespace
}  // namespace xtune::bench

int main(int argc, char** argv) { return xtune::bench::Main(argc, argv); }
