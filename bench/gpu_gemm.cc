// Gemm fusions on the GPU, one JSON line per case: every candidate of the
// fusion (XLA's Triton configs for the shape as the generated gemm, and
// cuBLASLt's heuristic algorithms) compiled and timed by the cuda backend's
// profiler in one run; the best generated config against cuBLASLt's best
// algorithm (ratio = cuBLASLt's time / ours, > 1 is faster than cuBLASLt),
// TFLOP/s of both, and the tuning time of the fusion (compiling and timing
// every candidate). For the fused case (gemm + bias + GELU) cuBLASLt's
// candidate is the unfused pair: cuBLASLt, then the epilogue as a separate
// kernel (with the operand packing a library call needs). Targets (issue
// 12), when the tensor-core path exists: >= 0.65 on bf16 4096^3, the fused
// epilogue >= 1.1x the unfused pair. bench/gpu_gemm_jax.py times the same
// dots with JAX (XLA's own choice) for scripts/gpu_check.sh.
//
// usage: gpu_gemm [--only=NAME] [--dry_run=TARGET]   (needs a GPU unless
//        --dry_run, which compiles every candidate for a shipped target)
#include <iostream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/gpu_bench_util.h"
#include "codegen/cuda/cuda_backend.h"
#include "runtime/random_inputs.h"

namespace xtune::bench {
namespace {

struct Case {
  const char* name;
  int64_t m, n, k;
  const char* hlo;
};

// The same computations as gpu_gemm_jax.py.
const Case kCases[] = {
    {"bf16_4096", 4096, 4096, 4096, R"hlo(
HloModule bf16_4096
ENTRY e {
  a = bf16[4096,4096] parameter(0)
  b = bf16[4096,4096] parameter(1)
  ROOT d = bf16[4096,4096] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})hlo"},
    {"bf16_8192", 8192, 8192, 8192, R"hlo(
HloModule bf16_8192
ENTRY e {
  a = bf16[8192,8192] parameter(0)
  b = bf16[8192,8192] parameter(1)
  ROOT d = bf16[8192,8192] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})hlo"},
    {"bf16_128x4096x4096", 128, 4096, 4096, R"hlo(
HloModule bf16_skinny
ENTRY e {
  a = bf16[128,4096] parameter(0)
  b = bf16[4096,4096] parameter(1)
  ROOT d = bf16[128,4096] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})hlo"},
    {"f16_x_s8_4096", 4096, 4096, 4096, R"hlo(
HloModule f16_s8
ENTRY e {
  a = f16[4096,4096] parameter(0)
  q = s8[4096,4096] parameter(1)
  b = f16[4096,4096] convert(q)
  ROOT d = f16[4096,4096] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})hlo"},
    {"bf16_4096_bias_gelu", 4096, 4096, 4096, R"hlo(
HloModule bias_gelu
ENTRY e {
  a = bf16[4096,4096] parameter(0)
  b = bf16[4096,4096] parameter(1)
  d = bf16[4096,4096] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bias = bf16[4096] parameter(2)
  bb = bf16[4096,4096] broadcast(bias), dimensions={1}
  x = bf16[4096,4096] add(d, bb)
  c = bf16[] constant(0.7978846)
  cb = bf16[4096,4096] broadcast(c), dimensions={}
  k = bf16[] constant(0.044715)
  kb = bf16[4096,4096] broadcast(k), dimensions={}
  x2 = bf16[4096,4096] multiply(x, x)
  x3 = bf16[4096,4096] multiply(x2, x)
  t0 = bf16[4096,4096] multiply(x3, kb)
  t1 = bf16[4096,4096] add(x, t0)
  t2 = bf16[4096,4096] multiply(t1, cb)
  t3 = bf16[4096,4096] tanh(t2)
  one = bf16[] constant(1)
  ob = bf16[4096,4096] broadcast(one), dimensions={}
  t4 = bf16[4096,4096] add(t3, ob)
  half = bf16[] constant(0.5)
  hb = bf16[4096,4096] broadcast(half), dimensions={}
  t5 = bf16[4096,4096] multiply(x, hb)
  ROOT g = bf16[4096,4096] multiply(t5, t4)
})hlo"},
    // XLA's scaled-FP8 pattern (converts and scales around the dot; B is
    // [N,K] as cuBLASLt's FP8 gemm wants it). Our side: FP8 operands
    // converted in the loaders; cuBLASLt's candidate: the operands packed to
    // bf16 first. The JAX twin gives XLA's own time (its FP8 cuBLASLt call).
    {"f8e4m3_scaled_4096", 4096, 4096, 4096, R"hlo(
HloModule f8_scaled
ENTRY e {
  a = f8e4m3fn[4096,4096] parameter(0)
  b = f8e4m3fn[4096,4096] parameter(1)
  sa = bf16[] parameter(2)
  sb = bf16[] parameter(3)
  ac = bf16[4096,4096] convert(a)
  bc = bf16[4096,4096] convert(b)
  sab = bf16[4096,4096] broadcast(sa), dimensions={}
  sbb = bf16[4096,4096] broadcast(sb), dimensions={}
  x = bf16[4096,4096] multiply(ac, sab)
  y = bf16[4096,4096] multiply(bc, sbb)
  ROOT d = bf16[4096,4096] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={1}
})hlo"},
    // The same with f32 scales (XLA's fp8_scaled_f32 / delayed-scaling
    // pattern): on sm_89 and later our side multiplies the 8-bit values on
    // FP8 tensor cores (mma m16n8k32) and scales the accumulators.
    {"f8e4m3_scaled_f32_4096", 4096, 4096, 4096, R"hlo(
HloModule f8_scaled_f32
ENTRY e {
  a = f8e4m3fn[4096,4096] parameter(0)
  b = f8e4m3fn[4096,4096] parameter(1)
  sa = f32[] parameter(2)
  sb = f32[] parameter(3)
  ac = f32[4096,4096] convert(a)
  bc = f32[4096,4096] convert(b)
  sab = f32[4096,4096] broadcast(sa), dimensions={}
  sbb = f32[4096,4096] broadcast(sb), dimensions={}
  x = f32[4096,4096] multiply(ac, sab)
  y = f32[4096,4096] multiply(bc, sbb)
  ROOT d = f32[4096,4096] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={1}
})hlo"},
};

int Main(int argc, char** argv) {
  std::optional<GpuBench> bench = StartGpuBench(argc, argv, "gpu_gemm");
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
    for (int64_t i = 0; i < fusion->operand_count(); ++i) {
      args.push_back(RandomLiteral(fusion->operand(i)->shape(), 11 + i));
    }
    TimedCandidates timed =
        TimeCandidates(backend, *fusion, args, dry_run, absl::Milliseconds(100));
    if (dry_run) {
      std::cout << c.name << ": " << timed.compiled << " of " << timed.candidates
                << " candidates compiled for " << backend.device().Arch() << " in "
                << absl::StrFormat("%.1f", timed.seconds) << " s ("
                << timed.candidates - timed.compiled << " dropped)\n";
      continue;
    }
    double ours = 0, lib = 0;
    std::string ours_config, lib_config;
    for (const CandidateTime& t : timed.times) {
      if (t.median == 0) continue;
      bool library = backend.IsLibraryCall(t.config);
      double& best = library ? lib : ours;
      if (best == 0 || t.median < best) {
        best = t.median;
        (library ? lib_config : ours_config) = t.config.ToString();
      }
    }
    if (ours == 0 || lib == 0) {
      std::cerr << c.name << ": nothing timed on one side\n";
      ++failures;
      continue;
    }
    double flops = 2.0 * c.m * c.n * c.k;
    std::cout << absl::StrFormat(
        "{\"bench\":\"gpu_gemm\",\"fusion\":\"%s\",\"xtune_seconds\":%.4g,"
        "\"xtune_tflops\":%.1f,\"xtune_config\":\"%s\",\"cublaslt_seconds\":%.4g,"
        "\"cublaslt_tflops\":%.1f,\"cublaslt_config\":\"%s\",\"ratio\":%.3f,"
        "\"candidates\":%d,\"failed\":%d,\"tuning_seconds\":%.1f}\n",
        c.name, ours, flops / ours / 1e12, ours_config, lib, flops / lib / 1e12,
        lib_config, lib / ours, timed.candidates, timed.failed, timed.seconds);
  }
  return failures == 0 ? 0 : 2;
}

}  // namespace
}  // namespace xtune::bench

int main(int argc, char** argv) { return xtune::bench::Main(argc, argv); }
