// Benchmark: xtune's generated CPU kernels against OpenBLAS and against
// memory bandwidth, measured in the same run. Prints one JSON line per case.
//
//  - gemm: f32 shapes 1024^3, 4096x1024x1024, 128x4096x4096, 2048^3, on one
//    thread and on all cores, without and with a fused bias+GELU epilogue.
//    xtune's figure is the best of its default candidate configs (timed
//    here); the baseline is cblas_sgemm (no epilogue) or cblas_sgemm plus a
//    separate vectorized epilogue pass (xtune's cpu_gemm_blas kernel).
//  - spread: best and worst of a wide set of valid configs at 1024^3 on one
//    thread (the parameters must matter).
//  - loop / softmax: achieved bandwidth of a loop fusion and of a softmax
//    fusion against a STREAM-style copy.
//
// The first line names OpenBLAS's core and threads; OPENBLAS_CORETYPE and
// OPENBLAS_L2_SIZE make it re-execute itself without them
// (bench/openblas_env.h).
//
// Usage: gemm_vs_openblas [--quick] [--only=gemm|spread|loop|softmax] [--print_core]
//   --quick: smaller shapes, for smoke runs; --only: one family of cases;
//   --print_core: print the OpenBLAS line and stop.
#include <cblas.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/bench_util.h"
#include "bench/openblas_env.h"
#include "codegen/cpu/cpu_backend.h"
#include "fusion/fusion_pass.h"
#include "ir/parser.h"
#include "runtime/random_inputs.h"
#include "util/thread_pool.h"

namespace xtune::bench {
namespace {

struct Fused {
  std::unique_ptr<Module> module;
  const Instruction* fusion = nullptr;
  std::vector<Literal> inputs;
};

Fused FuseOne(const std::string& text, const char* kind) {
  Fused f;
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text, "bench");
  if (!m.ok()) {
    std::cerr << m.status() << "\n";
    std::exit(2);
  }
  absl::StatusOr<std::unique_ptr<Module>> fused = FuseModule(**m);
  if (!fused.ok()) {
    std::cerr << fused.status() << "\n";
    std::exit(2);
  }
  f.module = std::move(*fused);
  for (const auto& i : f.module->entry()->instructions()) {
    if (i->opcode() == Opcode::kFusion &&
        i->name().rfind(kind, 0) == 0) {
      f.fusion = i.get();
    }
  }
  if (f.fusion == nullptr) {
    std::cerr << "no " << kind << " fusion\n";
    std::exit(2);
  }
  for (int64_t i = 0; i < f.fusion->operand_count(); ++i) {
    f.inputs.push_back(RandomLiteral(f.fusion->operand(i)->shape(), 7 + i));
  }
  return f;
}

std::string GemmModule(int64_t m, int64_t n, int64_t k, bool epilogue) {
  std::string s = absl::StrFormat(
      "HloModule gemm\nENTRY e {\n  a = f32[%d,%d] parameter(0)\n"
      "  b = f32[%d,%d] parameter(1)\n"
      "  d = f32[%d,%d] dot(a, b), lhs_contracting_dims={1}, "
      "rhs_contracting_dims={0}\n",
      m, k, k, n, m, n);
  if (!epilogue) return s + absl::StrFormat("  ROOT r = f32[%d,%d] copy(d)\n}\n", m, n)
                              .substr(0, 0) + "}\n";
  return s + absl::StrFormat(
                 "  bias = f32[%d] parameter(2)\n"
                 "  bb = f32[%d,%d] broadcast(bias), dimensions={1}\n"
                 "  x = f32[%d,%d] add(d, bb)\n"
                 "  x3 = f32[%d,%d] multiply(x, x)\n"
                 "  x3b = f32[%d,%d] multiply(x3, x)\n"
                 "  c0 = f32[] constant(0.044715)\n"
                 "  c0b = f32[%d,%d] broadcast(c0), dimensions={}\n"
                 "  t0 = f32[%d,%d] multiply(c0b, x3b)\n"
                 "  t1 = f32[%d,%d] add(x, t0)\n"
                 "  c1 = f32[] constant(0.797884583)\n"
                 "  c1b = f32[%d,%d] broadcast(c1), dimensions={}\n"
                 "  t2 = f32[%d,%d] multiply(c1b, t1)\n"
                 "  th = f32[%d,%d] tanh(t2)\n"
                 "  one = f32[] constant(1)\n"
                 "  oneb = f32[%d,%d] broadcast(one), dimensions={}\n"
                 "  t3 = f32[%d,%d] add(oneb, th)\n"
                 "  half = f32[] constant(0.5)\n"
                 "  halfb = f32[%d,%d] broadcast(half), dimensions={}\n"
                 "  t4 = f32[%d,%d] multiply(halfb, t3)\n"
                 "  ROOT y = f32[%d,%d] multiply(x, t4)\n}\n",
                 n, m, n, m, n, m, n, m, n, m, n, m, n, m, n, m, n, m, n, m, n,
                 m, n, m, n, m, n, m, n, m, n);
}

// Compiles and times `config`; +inf when it does not compile.
double TimeConfig(cpu::CpuBackend& backend, const Fused& f,
                  const KernelConfig& config, std::vector<uint8_t>& out) {
  absl::StatusOr<std::unique_ptr<Kernel>> k = backend.Compile(*f.fusion, config);
  if (!k.ok()) {
    std::cerr << "skip " << config.ToString() << ": " << k.status() << "\n";
    return INFINITY;
  }
  std::vector<DeviceBuffer> in = HostBuffers(f.inputs);
  Kernel* kernel = k->get();
  DeviceBuffer o = HostBuffer(out.data(), out.size());
  return MedianSeconds([&] { (void)kernel->Run(in, o); });
}

struct Best {
  double seconds = INFINITY;
  double worst = 0;
  KernelConfig config;
};

Best Tune(cpu::CpuBackend& backend, const Fused& f,
          const std::vector<KernelConfig>& configs) {
  // Compile everything first, in parallel (the kernel cache keeps them).
  ThreadPool pool(0);
  pool.ParallelFor(static_cast<int64_t>(configs.size()), 0, [&](int64_t i) {
    (void)backend.Compile(*f.fusion, configs[i]);
  });
  std::vector<uint8_t> out(f.fusion->shape().ByteSize());
  Best best;
  for (const KernelConfig& c : configs) {
    double s = TimeConfig(backend, f, c, out);
    if (s < best.seconds) {
      best.seconds = s;
      best.config = c;
    }
    if (std::isfinite(s)) best.worst = std::max(best.worst, s);
  }
  return best;
}

std::vector<KernelConfig> Filter(const std::vector<KernelConfig>& all,
                                 const std::string& kind, int64_t threads) {
  std::vector<KernelConfig> out;
  for (const KernelConfig& c : all) {
    if (c.kind() == kind && c.Get("threads") == threads) out.push_back(c);
  }
  return out;
}

void GemmCase(cpu::CpuBackend& backend, int64_t m, int64_t n, int64_t k,
              int64_t threads, bool epilogue) {
  Fused f = FuseOne(GemmModule(m, n, k, epilogue), "gemm_fusion");
  std::vector<KernelConfig> all = backend.Candidates(*f.fusion, false);
  Best best = Tune(backend, f, Filter(all, "cpu_gemm", threads));
  double baseline;
  std::vector<uint8_t> out(f.fusion->shape().ByteSize());
  if (epilogue) {
    baseline = TimeConfig(
        backend, f, KernelConfig("cpu_gemm_blas", {{"threads", threads}}), out);
  } else {
    openblas_set_num_threads(static_cast<int>(threads));
    const float* a = reinterpret_cast<const float*>(f.inputs[0].bytes().data());
    const float* b = reinterpret_cast<const float*>(f.inputs[1].bytes().data());
    float* c = reinterpret_cast<float*>(out.data());
    baseline = MedianSeconds([&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a,
                  k, b, n, 0.0f, c, n);
    });
  }
  double flop = 2.0 * m * n * k;
  double ours = flop / best.seconds / 1e9, theirs = flop / baseline / 1e9;
  std::cout << absl::StrFormat(
                   "{\"bench\":\"gemm\",\"m\":%d,\"n\":%d,\"k\":%d,\"threads\":%d,"
                   "\"epilogue\":\"%s\",\"xtune_gflops\":%.2f,"
                   "\"baseline\":\"%s\",\"baseline_gflops\":%.2f,"
                   "\"ratio\":%.3f,\"best_config\":\"%s\"}",
                   m, n, k, threads, epilogue ? "bias_gelu" : "none", ours,
                   epilogue ? "openblas+epilogue_pass" : "openblas", theirs,
                   ours / theirs, best.config.ParamsString())
            << std::endl;
}

void SpreadCase(cpu::CpuBackend& backend, int64_t size) {
  Fused f = FuseOne(GemmModule(size, size, size, false), "gemm_fusion");
  // Every tile of the exhaustive space with a few block sizes, one thread.
  std::vector<KernelConfig> configs;
  for (const KernelConfig& c : backend.Candidates(*f.fusion, true)) {
    if (c.kind() != "cpu_gemm" || c.Get("threads") != 1 || c.Get("split_k") != 1) {
      continue;
    }
    int64_t mc = c.Get("mc"), kc = c.Get("kc"), nc = c.Get("nc");
    bool blocks = (kc == 64 || kc == 512) && (mc == 24 || mc == 96) &&
                  (nc == 256 || nc >= 1024);
    if (blocks) configs.push_back(c);
  }
  Best best = Tune(backend, f, configs);
  double flop = 2.0 * size * size * size;
  std::cout << absl::StrFormat(
                   "{\"bench\":\"gemm_config_spread\",\"m\":%d,\"n\":%d,\"k\":%d,"
                   "\"threads\":1,\"configs\":%d,\"best_gflops\":%.2f,"
                   "\"worst_gflops\":%.2f,\"ratio\":%.2f,\"best_config\":\"%s\"}",
                   size, size, size, configs.size(), flop / best.seconds / 1e9,
                   flop / best.worst / 1e9, best.worst / best.seconds,
                   best.config.ParamsString())
            << std::endl;
}

// STREAM-style copy: bytes read + written per second.
double CopyBandwidth(int64_t bytes, int threads, ThreadPool& pool) {
  std::vector<char> src(bytes, 1), dst(bytes, 0);
  double s = MedianSeconds([&] {
    int64_t chunk = (bytes + threads - 1) / threads;
    pool.ParallelFor(threads, threads, [&](int64_t t) {
      int64_t b = t * chunk, e = std::min(bytes, b + chunk);
      if (b < e) std::memcpy(dst.data() + b, src.data() + b, e - b);
    });
  });
  return 2.0 * bytes / s / 1e9;
}

void BandwidthCase(cpu::CpuBackend& backend, const std::string& name,
                   const std::string& text, const char* kind, int threads,
                   double copy_gbs) {
  Fused f = FuseOne(text, kind);
  std::vector<KernelConfig> all = backend.Candidates(*f.fusion, false);
  std::vector<KernelConfig> mine;
  for (const KernelConfig& c : all) {
    if (c.Get("threads") == threads) mine.push_back(c);
  }
  Best best = Tune(backend, f, mine);
  double bytes = f.fusion->shape().ByteSize();
  for (const Literal& l : f.inputs) bytes += l.bytes().size();
  double gbs = bytes / best.seconds / 1e9;
  std::cout << absl::StrFormat(
                   "{\"bench\":\"%s\",\"shape\":\"%s\",\"threads\":%d,"
                   "\"xtune_gbs\":%.2f,\"baseline\":\"copy\",\"copy_gbs\":%.2f,"
                   "\"ratio\":%.3f,\"best_config\":\"%s\"}",
                   name, f.fusion->shape().ToString(false), threads, gbs,
                   copy_gbs, gbs / copy_gbs, best.config.ParamsString())
            << std::endl;
}

int Main(bool quick, const std::string& only) {
  std::cout << OpenblasCoreJson() << std::endl;
  auto want = [&](const char* name) { return only.empty() || only == name; };
  absl::StatusOr<std::unique_ptr<cpu::CpuBackend>> backend =
      cpu::CpuBackend::Create();
  if (!backend.ok()) {
    std::cerr << backend.status() << "\n";
    return 1;
  }
  cpu::CpuBackend& cpu = **backend;
  int all = cpu.device().threads;
  std::cerr << "device: " << cpu.DeviceDescription() << "\n";
  struct Shape3 {
    int64_t m, n, k;
  };
  std::vector<Shape3> shapes = {{1024, 1024, 1024}, {4096, 1024, 1024},
                                {128, 4096, 4096}, {2048, 2048, 2048}};
  if (quick) shapes = {{256, 256, 256}, {64, 512, 512}};
  std::vector<int> thread_modes = {1};
  if (all > 1) thread_modes.push_back(all);
  for (const Shape3& s : shapes) {
    for (int t : thread_modes) {
      for (bool epilogue : {false, true}) {
        if (want("gemm")) GemmCase(cpu, s.m, s.n, s.k, t, epilogue);
      }
    }
  }
  if (want("spread")) SpreadCase(cpu, quick ? 256 : 1024);
  ThreadPool pool(all);
  int64_t rows = quick ? 512 : 4096, cols = quick ? 512 : 4096;
  int64_t bytes = rows * cols * 4 * 2;
  std::string loop = absl::StrFormat(
      "HloModule loop\nENTRY e {\n  x = f32[%d,%d] parameter(0)\n"
      "  y = f32[%d,%d] parameter(1)\n  m = f32[%d,%d] multiply(x, y)\n"
      "  c = f32[] constant(0.5)\n  cb = f32[%d,%d] broadcast(c), dimensions={}\n"
      "  ROOT r = f32[%d,%d] add(m, cb)\n}\n",
      rows, cols, rows, cols, rows, cols, rows, cols, rows, cols);
  std::string softmax = absl::StrFormat(
      "HloModule softmax\nmax {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
      "  ROOT m = f32[] maximum(a, b)\n}\nadd {\n  a = f32[] parameter(0)\n"
      "  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\nENTRY e {\n"
      "  x = f32[%d,%d] parameter(0)\n  ninf = f32[] constant(-inf)\n"
      "  mx = f32[%d] reduce(x, ninf), dimensions={1}, to_apply=max\n"
      "  mb = f32[%d,%d] broadcast(mx), dimensions={0}\n"
      "  s = f32[%d,%d] subtract(x, mb)\n  e = f32[%d,%d] exponential(s)\n"
      "  z = f32[] constant(0)\n"
      "  sum = f32[%d] reduce(e, z), dimensions={1}, to_apply=add\n"
      "  sb = f32[%d,%d] broadcast(sum), dimensions={0}\n"
      "  ROOT out = f32[%d,%d] divide(e, sb)\n}\n",
      rows, cols, rows, rows, cols, rows, cols, rows, cols, rows, rows, cols,
      rows, cols);
  for (int t : thread_modes) {
    if (!want("loop") && !want("softmax")) continue;
    double copy = CopyBandwidth(bytes, t, pool);
    if (want("loop")) BandwidthCase(cpu, "loop_fusion", loop, "loop_fusion", t, copy);
    if (want("softmax")) {
      BandwidthCase(cpu, "softmax", softmax, "reduce_fusion", t, copy);
    }
  }
  return 0;
}

}  // namespace
}  // namespace xtune::bench

int main(int argc, char** argv) {
  xtune::bench::RunWithOpenblasOwnKernel(argv);
  bool quick = false;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--quick") {
      quick = true;
    } else if (arg == "--print_core") {
      std::cout << xtune::bench::OpenblasCoreJson() << std::endl;
      return 0;
    } else if (arg.rfind("--only=", 0) == 0) {
      only = arg.substr(7);
    } else {
      std::cerr << "usage: gemm_vs_openblas [--quick] "
                   "[--only=gemm|spread|loop|softmax] [--print_core]\n";
      return 1;
    }
  }
  return xtune::bench::Main(quick, only);
}
