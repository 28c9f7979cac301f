// Tests that need a GPU (CTest label `cuda`; each skips cleanly, saying
// why, where the driver finds none): every generated kernel of examples/,
// tests/data/ and tests/golden/ runs on device 0 and matches the evaluator
// and the emulator; the GPU profiler times kernels in its worker, and a
// kernel that faults the device fails alone.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>

#include "absl/strings/match.h"
#include "codegen/cuda/cuda_backend.h"
#include "codegen/cuda/cuda_candidates.h"
#include "codegen/cuda/emulator/emulator_backend.h"
#include "codegen/cuda/gpu_kernel.h"
#include "codegen/cuda/gpu_profiler.h"
#include "codegen/cuda/nvrtc.h"
#include "codegen/cuda/test_source_dir.h"
#include "eval/evaluator.h"
#include "fusion/fusion_pass.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/parser.h"
#include "runtime/compare.h"
#include "runtime/random_inputs.h"
#include "util/status_matchers.h"

namespace xtune::cuda {
namespace {

using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

// The machine's GPU as the cuda backend, or null (the test then skips).
CudaBackend* Gpu() {
  static CudaBackend* backend = [] {
    absl::StatusOr<std::unique_ptr<CudaBackend>> b =
        CudaBackend::Create(BackendOptions());
    if (!b.ok()) {
      std::cerr << "no GPU: " << b.status() << "\n";
      return static_cast<CudaBackend*>(nullptr);
    }
    std::cerr << "GPU: " << (*b)->DeviceDescription() << "\n";
    return b->release();
  }();
  return backend;
}

// The reference the backend's kernels are compared with (as --verify).
EvaluatorOptions Reference(const Backend& b) {
  EvaluatorOptions o;
  o.excess_precision = b.ExcessPrecision();
  o.tf32_dots = b.Tf32Dots();
  return o;
}

#define XTUNE_SKIP_WITHOUT_GPU() \
  if (Gpu() == nullptr) GTEST_SKIP() << "no GPU (see the log)"

EmulatorBackend& Emulator() {
  static EmulatorBackend* e = [] {
    auto made = EmulatorBackend::Create(BackendOptions());
    EXPECT_THAT(made, IsOk());
    return made->release();
  }();
  return *e;
}

// Runs `kernel` on the GPU: inputs copied in, output copied back.
absl::StatusOr<Literal> RunOnGpu(CudaBackend& gpu, Kernel& kernel,
                                 const std::vector<Literal>& args,
                                 const Shape& shape) {
  std::vector<DeviceBuffer> in;
  absl::Status s;
  for (const Literal& a : args) {
    absl::StatusOr<DeviceBuffer> b = gpu.Allocate(a.bytes().size());
    if (!b.ok()) {
      s = b.status();
      break;
    }
    in.push_back(*b);
    s = gpu.CopyToDevice(a.bytes().data(), *b);
    if (!s.ok()) break;
  }
  Literal out(shape);
  absl::StatusOr<DeviceBuffer> o = gpu.Allocate(out.bytes().size());
  if (s.ok() && !o.ok()) s = o.status();
  if (s.ok()) s = kernel.Run(in, *o);
  if (s.ok()) s = gpu.CopyFromDevice(*o, out.bytes().data());
  for (DeviceBuffer b : in) gpu.Free(b);
  if (o.ok()) gpu.Free(*o);
  if (!s.ok()) return s;
  return out;
}

// The largest difference between two f32-convertible results, in units of
// the expected magnitude (for the log: the GPU contracts a*b+c into FMAs
// and has its own expf, so bit equality with the emulator is not expected).
double MaxRelativeDifference(const Literal& a, const Literal& b) {
  if (a.shape().dtype() != DType::kF32) return 0;
  const float* x = reinterpret_cast<const float*>(a.bytes().data());
  const float* y = reinterpret_cast<const float*>(b.bytes().data());
  double worst = 0;
  for (size_t i = 0; i < a.bytes().size() / 4; ++i) {
    if (std::isnan(x[i]) && std::isnan(y[i])) continue;
    double d = std::fabs(double{x[i]} - y[i]) /
               std::max(1e-6, std::fabs(double{x[i]}));
    worst = std::max(worst, d);
  }
  return worst;
}

class GpuModuleTest : public ::testing::TestWithParam<std::string> {};

// Every default candidate (and, for the layer norm and the column sums,
// every candidate) of every loop and reduction fusion runs on the GPU and
// matches the evaluator; the emulator runs the same configs on the same
// inputs, and the two are compared.
TEST_P(GpuModuleTest, MatchesTheEvaluatorAndTheEmulator) {
  XTUNE_SKIP_WITHOUT_GPU();
  CudaBackend& gpu = *Gpu();
  const std::string& path = GetParam();
  bool every = absl::StrContains(path, "layer_norm.hlo") ||
               absl::StrContains(path, "column_reduce.hlo");
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModuleFile(path);
  ASSERT_THAT(m, IsOk());
  absl::StatusOr<std::unique_ptr<Module>> fused = FuseModule(**m);
  ASSERT_THAT(fused, IsOk());
  for (const auto& inst : (*fused)->entry()->instructions()) {
    if (inst->opcode() != Opcode::kFusion) continue;
    const Computation& comp = *inst->called_computations()[0];
    std::vector<Literal> args;
    for (int64_t i = 0; i < inst->operand_count(); ++i) {
      args.push_back(RandomLiteral(inst->operand(i)->shape(), 100 + i));
    }
    absl::StatusOr<Literal> expected = EvaluateComputation(comp, args, Reference(gpu));
    ASSERT_THAT(expected, IsOk());
    std::vector<KernelConfig> configs =
        every ? gpu.Candidates(*inst, false)
              : std::vector<KernelConfig>{gpu.DefaultConfig(*inst)};
    for (const KernelConfig& c : configs) {
      std::string what = inst->name() + " " + c.ToString();
      absl::StatusOr<std::unique_ptr<Kernel>> k = gpu.Compile(*inst, c);
      if (!k.ok() && k.status().code() == absl::StatusCode::kUnimplemented) {
        continue;  // gemms and the like: the evaluator computes them
      }
      ASSERT_THAT(k, IsOk()) << what;
      absl::StatusOr<Literal> out = RunOnGpu(gpu, **k, args, inst->shape());
      ASSERT_THAT(out, IsOk()) << what;
      // As --verify: f32 within kTf32Tolerance where dots may run in TF32
      // (an FP8 dot on FP8 tensor cores multiplies exactly; the reference
      // rounds its scaled operands to TF32).
      EXPECT_THAT(CompareLiterals(*expected, *out, what,
                                  VerifyTolerance(**fused, gpu.Tf32Dots())),
                  IsOk());
      absl::StatusOr<std::unique_ptr<Kernel>> e = Emulator().Compile(*inst, c);
      ASSERT_THAT(e, IsOk()) << what;
      Literal emulated(inst->shape());
      ASSERT_THAT((*e)->Run(HostBuffers(args), HostBuffer(emulated)), IsOk())
          << what;
      double diff = MaxRelativeDifference(emulated, *out);
      std::cout << "gpu-vs-emulator " << what << " max_rel_diff=" << diff
                << (emulated.bytes() == out->bytes() ? " bitwise_equal" : "")
                << "\n";
      // The same kernel source: sums in another order only
      // (EmulatorMatchTolerance grows with their length).
      EXPECT_THAT(CompareLiterals(emulated, *out, what + " (emulator vs GPU)",
                                  EmulatorMatchTolerance(comp)),
                  IsOk());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Modules, GpuModuleTest,
                         ::testing::ValuesIn(TestModuleFiles()),
                         [](const auto& info) {
                           std::string name =
                               std::filesystem::path(info.param).stem().string();
                           for (char& c : name) {
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// A handwritten kernel over one f32 input of 1M elements.
std::unique_ptr<GpuKernel> Handwritten(const std::string& body,
                                       const std::string& name) {
  absl::StatusOr<std::unique_ptr<Nvrtc>> nvrtc = Nvrtc::Load();
  EXPECT_THAT(nvrtc, IsOk());
  std::string source = absl::StrCat(
      "extern \"C\" __global__ void xt_kernel(const float* in, float* out) {\n",
      body, "\n}\n");
  absl::StatusOr<NvrtcOutput> out =
      (*nvrtc)->Compile(source, name, Gpu()->device().Arch());
  EXPECT_THAT(out, IsOk());
  return std::make_unique<GpuKernel>(Gpu()->driver(), name, out->cubin,
                                     (1 << 20) / 256, 256, 1);
}

TEST(GpuProfilerTest, TimesInTheWorkerAndReturnsTheOutput) {
  XTUNE_SKIP_WITHOUT_GPU();
  std::unique_ptr<GpuKernel> k = Handwritten(
      "int i = blockIdx.x * 256 + threadIdx.x; out[i] = in[i] * 2.0f;", "twice");
  Shape shape = Shape(DType::kF32, {1 << 20});
  std::vector<Literal> args = {RandomLiteral(shape, 7)};
  GpuProfiler profiler("", Gpu()->FlushBytes());
  Kernel* kernels[] = {k.get()};
  ASSERT_THAT(profiler.BeginFusion(kernels, args, shape), IsOk());
  ProfileOptions options;
  options.flush_bytes = Gpu()->FlushBytes();
  absl::StatusOr<ProfileResult> r =
      profiler.Profile(*k, KernelConfig(), args, shape, options);
  ASSERT_THAT(r, IsOk());
  ASSERT_GE(r->seconds.size(), 3u);
  std::vector<double> s = r->seconds;
  std::sort(s.begin(), s.end());
  // 8 MiB moved: between 0.1 us and 10 ms on any GPU this code targets.
  EXPECT_GT(s[s.size() / 2], 1e-7);
  EXPECT_LT(s[s.size() / 2], 1e-2);
  std::cout << "twice 1M f32: median " << s[s.size() / 2] * 1e6 << " us over "
            << s.size() << " runs\n";
  const float* in = reinterpret_cast<const float*>(args[0].bytes().data());
  const float* out = reinterpret_cast<const float*>(r->output.bytes().data());
  for (int i = 0; i < (1 << 20); i += 4097) ASSERT_EQ(out[i], in[i] * 2.0f) << i;
}

TEST(GpuProfilerTest, AFaultingKernelFailsAloneAndTheNextGetsAFreshWorker) {
  XTUNE_SKIP_WITHOUT_GPU();
  std::unique_ptr<GpuKernel> bad = Handwritten(
      "int i = blockIdx.x * 256 + threadIdx.x;\n"
      "  ((float*)(out + (1ll << 40)))[i] = in[i];", "wild_store");
  std::unique_ptr<GpuKernel> good = Handwritten(
      "int i = blockIdx.x * 256 + threadIdx.x; out[i] = in[i] + 1.0f;", "plus_one");
  Shape shape = Shape(DType::kF32, {1 << 20});
  std::vector<Literal> args = {RandomLiteral(shape, 8)};
  GpuProfiler profiler("", 0);
  Kernel* kernels[] = {bad.get(), good.get()};
  ASSERT_THAT(profiler.BeginFusion(kernels, args, shape), IsOk());
  absl::StatusOr<ProfileResult> r =
      profiler.Profile(*bad, KernelConfig(), args, shape, ProfileOptions());
  EXPECT_THAT(r, StatusIs(absl::StatusCode::kInternal,
                          HasSubstr("wild_store")));
  std::cout << "faulting kernel: " << r.status() << "\n";
  int64_t started = profiler.workers_started();
  r = profiler.Profile(*good, KernelConfig(), args, shape, ProfileOptions());
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(profiler.workers_started(), started + 1);
  const float* in = reinterpret_cast<const float*>(args[0].bytes().data());
  const float* out = reinterpret_cast<const float*>(r->output.bytes().data());
  EXPECT_EQ(out[12345], in[12345] + 1.0f);
}

// Every algorithm cuBLASLt's heuristic proposes for the gemm fusions of the
// examples (f32, bf16, batched) and for XLA's cuBLAS custom-calls (epilogues,
// alpha and beta) gives the evaluator's result, and the GPU profiler times
// each (in this process).
TEST(GpuLibraryGemmTest, EveryCublasLtCandidateMatchesAndIsTimed) {
  XTUNE_SKIP_WITHOUT_GPU();
  CudaBackend& gpu = *Gpu();
  int timed = 0;
  for (const char* rel : {"/examples/mlp.hlo", "/examples/mlp_bf16.hlo",
                          "/examples/attention.hlo", "/tests/golden/gemm_patterns.hlo",
                          "/tests/numpy/cases/cublas_calls.hlo"}) {
    absl::StatusOr<std::unique_ptr<Module>> m = ParseModuleFile(TestSourceDir() + rel);
    ASSERT_THAT(m, IsOk());
    absl::StatusOr<std::unique_ptr<Module>> fused = FuseModule(**m);
    ASSERT_THAT(fused, IsOk());
    for (const auto& inst : (*fused)->entry()->instructions()) {
      if (inst->opcode() != Opcode::kFusion) continue;
      std::vector<KernelConfig> configs;
      for (const KernelConfig& c : gpu.Candidates(*inst, false)) {
        if (gpu.IsLibraryCall(c)) configs.push_back(c);
      }
      if (configs.empty()) continue;
      std::vector<Literal> args;
      for (int64_t i = 0; i < inst->operand_count(); ++i) {
        args.push_back(RandomLiteral(inst->operand(i)->shape(), 100 + i));
      }
      absl::StatusOr<Literal> expected = EvaluateComputation(
          *inst->called_computations()[0], args, Reference(gpu));
      ASSERT_THAT(expected, IsOk());
      std::cout << rel << " " << inst->name() << ": " << configs.size()
                << " cuBLASLt algorithms\n";
      std::unique_ptr<Profiler> profiler = *gpu.CreateProfiler();
      for (const KernelConfig& c : configs) {
        std::string what = inst->name() + " " + c.ToString();
        absl::StatusOr<std::unique_ptr<Kernel>> k = gpu.Compile(*inst, c);
        ASSERT_THAT(k, IsOk()) << what;
        absl::StatusOr<Literal> out = RunOnGpu(gpu, **k, args, inst->shape());
        ASSERT_THAT(out, IsOk()) << what;
        EXPECT_THAT(CompareLiterals(*expected, *out, what), IsOk());
        ProfileOptions options;
        options.flush_bytes = gpu.FlushBytes();
        absl::StatusOr<ProfileResult> r =
            profiler->Profile(**k, c, args, inst->shape(), options);
        ASSERT_THAT(r, IsOk()) << what;
        EXPECT_THAT(CompareLiterals(*expected, r->output, what + " (profiled)"),
                    IsOk());
        std::vector<double> s = r->seconds;
        std::sort(s.begin(), s.end());
        std::cout << "  " << what << ": median " << s[s.size() / 2] * 1e6 << " us\n";
        ++timed;
      }
    }
  }
  EXPECT_GT(timed, 0);
}

TEST(GpuKernelTest, AnImageForAnotherArchitectureIsRefused) {
  XTUNE_SKIP_WITHOUT_GPU();
  absl::StatusOr<std::unique_ptr<Nvrtc>> nvrtc = Nvrtc::Load();
  ASSERT_THAT(nvrtc, IsOk());
  // A cubin runs only on its major architecture (sm_80 code on sm_86, not
  // on sm_90), so pick one whose major differs from the device's.
  std::string arch = Gpu()->device().cc_major == 8 ? "sm_90a" : "sm_80";
  absl::StatusOr<NvrtcOutput> out = (*nvrtc)->Compile(
      "extern \"C\" __global__ void xt_kernel(float* o) { o[0] = 1; }", "other",
      arch);
  ASSERT_THAT(out, IsOk());
  GpuKernel k(Gpu()->driver(), "other", out->cubin, 1, 32, 0);
  absl::StatusOr<DeviceBuffer> o = Gpu()->Allocate(4);
  ASSERT_THAT(o, IsOk());
  EXPECT_THAT(k.Run({}, *o), StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("other")));
  Gpu()->Free(*o);
}

}  // namespace
}  // namespace xtune::cuda
