// The CPU backend end to end: every candidate config of every fusion of the
// example and test modules compiles and computes what the reference
// evaluator computes.
#include "codegen/cpu/cpu_backend.h"

#include <cstring>
#include <filesystem>
#include <functional>

#include "codegen/cpu/kernel_abi.h"
#include "codegen/cpu/prelude.h"
#include "eval/evaluator.h"
#include "fusion/fusion_pass.h"
#include "fusion/in_place.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "runtime/compare.h"
#include "runtime/random_inputs.h"
#include "util/file.h"
#include "util/status_matchers.h"
#include "util/thread_pool.h"

namespace xtune::cpu {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

CpuBackend& Backend() {
  static CpuBackend* backend = [] {
    absl::StatusOr<std::unique_ptr<CpuBackend>> b = CpuBackend::Create();
    EXPECT_THAT(b, IsOk());
    return b.ok() ? b->release() : nullptr;
  }();
  return *backend;
}

// Runs `kernel` on `args` and compares with the evaluator.
void CheckKernel(const Instruction& fusion, const KernelConfig& config,
                 absl::StatusOr<std::unique_ptr<Kernel>>& kernel,
                 const std::vector<Literal>& args, const Literal& expected) {
  ASSERT_THAT(kernel, IsOk()) << fusion.name() << " " << config.ToString();
  Literal out(fusion.shape());
  ASSERT_THAT((*kernel)->Run(HostBuffers(args), HostBuffer(out)), IsOk());
  EXPECT_THAT(CompareLiterals(expected, out,
                              fusion.name() + " with " + config.ToString()),
              IsOk());
}

std::string Root() { return XTUNE_SOURCE_DIR; }

class EveryCandidateTest : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryCandidateTest, MatchesTheEvaluator) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModuleFile(GetParam());
  ASSERT_THAT(m, IsOk());
  absl::StatusOr<std::unique_ptr<Module>> fused = FuseModule(**m);
  ASSERT_THAT(fused, IsOk());
  int fusions = 0;
  for (const auto& inst : (*fused)->entry()->instructions()) {
    if (inst->opcode() != Opcode::kFusion || inst->shape().IsTuple()) continue;
    ++fusions;
    std::vector<Literal> args;
    for (int64_t i = 0; i < inst->operand_count(); ++i) {
      args.push_back(RandomLiteral(inst->operand(i)->shape(), 100 + i));
    }
    absl::StatusOr<Literal> expected =
        EvaluateComputation(*inst->called_computations()[0], args);
    ASSERT_THAT(expected, IsOk());
    std::vector<KernelConfig> candidates = Backend().Candidates(*inst, false);
    ASSERT_FALSE(candidates.empty());
    KernelConfig def = Backend().DefaultConfig(*inst);
    EXPECT_NE(std::find(candidates.begin(), candidates.end(), def),
              candidates.end())
        << "default " << def.ToString() << " not among the candidates";
    // Compile every candidate at once, as the autotuner does: the
    // distinct sources as one bundle.
    std::vector<Backend::KernelRequest> requests;
    for (const KernelConfig& c : candidates) requests.push_back({inst.get(), c});
    std::vector<absl::StatusOr<std::unique_ptr<Kernel>>> kernels =
        Backend().CompileKernels(requests);
    ASSERT_EQ(kernels.size(), candidates.size());
    for (size_t i = 0; i < candidates.size(); ++i) {
      const KernelConfig& c = candidates[i];
      SCOPED_TRACE(c.ToString());
      CheckKernel(*inst, c, kernels[i], args, *expected);
      if (::testing::Test::HasFailure()) {
        absl::StatusOr<std::string> src = Backend().Source(*inst, c);
        ADD_FAILURE() << "fused computation:\n"
                      << ToString(*inst->called_computations()[0]);
        return;
      }
    }
  }
  EXPECT_GT(fusions, 0);
}

std::vector<std::string> Modules() {
  std::vector<std::string> files;
  for (const char* dir : {"/examples", "/tests/data", "/tests/golden"}) {
    for (const auto& e : std::filesystem::directory_iterator(Root() + dir)) {
      std::string p = e.path().string();
      if (e.path().extension() == ".hlo" &&
          p.find(".fused.") == std::string::npos) {
        files.push_back(p);
      }
    }
  }
  // The NumPy-checked cases of the newest types and operations too: the
  // 8-bit floats and XLA's cuBLAS library calls.
  for (const char* rel : {"/tests/numpy/cases/fp8.hlo",
                          "/tests/numpy/cases/cublas_calls.hlo"}) {
    files.push_back(Root() + rel);
  }
  std::sort(files.begin(), files.end());
  return files;
}

INSTANTIATE_TEST_SUITE_P(
    Modules, EveryCandidateTest, ::testing::ValuesIn(Modules()),
    [](const ::testing::TestParamInfo<std::string>& info) {
      std::string name = std::filesystem::path(info.param).stem().string();
      for (char& c : name) {
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name;
    });

// --xla_allow_excess_precision=false: every candidate of an f16 row sum, a
// bf16 column sum and a bf16 elementwise chain computes exactly what the
// evaluator computes with HLO semantics (bit for bit: each f16/bf16 result
// rounded, reductions in element order). With excess precision (default)
// the f16 sum accumulates in f32 and differs from that, as it should.
TEST(CpuBackendTest, WithoutExcessPrecisionKernelsAreBitExact) {
  CpuBackendOptions options;
  options.excess_precision = false;
  absl::StatusOr<std::unique_ptr<CpuBackend>> exact = CpuBackend::Create(options);
  ASSERT_THAT(exact, IsOk());
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(R"hlo(HloModule m
add {
  x = f16[] parameter(0)
  y = f16[] parameter(1)
  ROOT s = f16[] add(x, y)
}
addb {
  x = bf16[] parameter(0)
  y = bf16[] parameter(1)
  ROOT s = bf16[] add(x, y)
}
ENTRY e {
  a = f16[4,16384] parameter(0)
  z = f16[] constant(0)
  rows = f16[4] reduce(a, z), dimensions={1}, to_apply=add
  b = bf16[512,24] parameter(1)
  c = bf16[] constant(0.001)
  cb = bf16[512,24] broadcast(c), dimensions={}
  t = bf16[512,24] add(b, cb)
  u = bf16[512,24] subtract(t, b)
  m = bf16[512,24] multiply(u, t)
  zb = bf16[] constant(0)
  cols = bf16[24] reduce(b, zb), dimensions={0}, to_apply=addb
  ROOT out = (f16[4], bf16[512,24], bf16[24]) tuple(rows, m, cols)
})hlo",
                                                          "t.hlo");
  ASSERT_THAT(m, IsOk());
  absl::StatusOr<std::unique_ptr<Module>> fused = FuseModule(**m);
  ASSERT_THAT(fused, IsOk());
  int checked = 0;
  for (const auto& inst : (*fused)->entry()->instructions()) {
    if (inst->opcode() != Opcode::kFusion) continue;
    std::vector<Literal> args;
    for (int64_t i = 0; i < inst->operand_count(); ++i) {
      args.push_back(RandomLiteral(inst->operand(i)->shape(), 7 + i));
    }
    const Computation& comp = *inst->called_computations()[0];
    absl::StatusOr<Literal> want = EvaluateComputation(comp, args);
    ASSERT_THAT(want, IsOk());
    for (const KernelConfig& c : (*exact)->Candidates(*inst, false)) {
      SCOPED_TRACE(inst->name() + " " + c.ToString());
      absl::StatusOr<std::unique_ptr<Kernel>> k = (*exact)->Compile(*inst, c);
      ASSERT_THAT(k, IsOk());
      Literal out(inst->shape());
      ASSERT_THAT((*k)->Run(HostBuffers(args), HostBuffer(out)), IsOk());
      EXPECT_EQ(out.bytes(), want->bytes());  // bit for bit
      ++checked;
    }
    if (comp.root()->opcode() == Opcode::kReduce &&
        comp.root()->shape().dtype() == DType::kF16) {
      // The default backend keeps the accumulator in f32: closer to the
      // f32 reference than to the f16 sum, and not equal to the latter.
      EvaluatorOptions excess;
      excess.excess_precision = true;
      absl::StatusOr<Literal> wide = EvaluateComputation(comp, args, excess);
      ASSERT_THAT(wide, IsOk());
      absl::StatusOr<std::unique_ptr<Kernel>> k =
          Backend().Compile(*inst, Backend().DefaultConfig(*inst));
      ASSERT_THAT(k, IsOk());
      Literal out(inst->shape());
      ASSERT_THAT((*k)->Run(HostBuffers(args), HostBuffer(out)), IsOk());
      EXPECT_THAT(CompareLiterals(*wide, out, "excess"), IsOk());
      EXPECT_NE(out.bytes(), want->bytes());
    }
  }
  EXPECT_GT(checked, 10);
}

// An in-place dynamic-update-slice fusion (fusion/in_place.h), every
// exhaustive candidate: into a fresh output (the kernel copies the operand
// first) and into the operand's own buffer, with clamped starts.
TEST(CpuBackendTest, InPlaceDynamicUpdateSliceBothWays) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(R"hlo(HloModule m
ENTRY e {
  x = f32[5,7,33]{1,2,0} parameter(0)
  u = bf16[2,7,9] parameter(1)
  i = s32[] parameter(2)
  j = s32[] constant(-3)
  k = s32[] constant(30)
  ue = bf16[2,7,9] exponential(u)
  uf = f32[2,7,9] convert(ue)
  ROOT d = f32[5,7,33]{1,2,0} dynamic-update-slice(x, uf, i, j, k)
})hlo");
  ASSERT_THAT(m, IsOk());
  absl::StatusOr<std::unique_ptr<Module>> fused = FuseModule(**m);
  ASSERT_THAT(fused, IsOk());
  const Instruction* inst = (*fused)->entry()->root();
  const std::optional<int64_t> x = InPlaceOperand(*inst);
  ASSERT_TRUE(x.has_value());
  for (int32_t start : {-4, 1, 100}) {
    std::vector<Literal> args;
    for (int64_t i = 0; i < inst->operand_count(); ++i) {
      args.push_back(RandomLiteral(inst->operand(i)->shape(), 100 + i));
      if (inst->operand(i)->shape().dtype() == DType::kS32) {
        std::memcpy(args.back().bytes().data(), &start, 4);
      }
    }
    absl::StatusOr<Literal> expected =
        EvaluateComputation(*inst->called_computations()[0], args,
                            EvaluatorOptions{.max_value_bytes = int64_t{8} << 30, .excess_precision = true});
    ASSERT_THAT(expected, IsOk());
    for (const KernelConfig& c : Backend().Candidates(*inst, true)) {
      absl::StatusOr<std::unique_ptr<Kernel>> kernel = Backend().Compile(*inst, c);
      CheckKernel(*inst, c, kernel, args, *expected);
      if (!kernel.ok()) continue;
      std::vector<Literal> in_place = args;
      ASSERT_THAT((*kernel)->Run(HostBuffers(in_place), HostBuffer(in_place[*x])),
                  IsOk());
      EXPECT_THAT(CompareLiterals(*expected, in_place[*x],
                                  c.ToString() + " in place"),
                  IsOk());
    }
  }
}

// A NaN constant keeps its sign in the generated code: TOTALORDER puts
// -nan below nan (the elemental emitter once printed both as nan).
TEST(CpuBackendTest, NanConstantsKeepTheirSign) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(R"hlo(HloModule m
ENTRY e {
  p = f32[3] parameter(0)
  a = f32[3] constant({-nan, nan, -nan})
  b = f32[3] constant({nan, nan, -nan})
  s = f32[3] add(a, p)
  ROOT eq = pred[3] compare(a, b), direction=EQ, type=TOTALORDER
})hlo",
                                                          "t.hlo");
  ASSERT_THAT(m, IsOk());
  absl::StatusOr<std::unique_ptr<Module>> fused = FuseModule(**m);
  ASSERT_THAT(fused, IsOk());
  int checked = 0;
  for (const auto& inst : (*fused)->entry()->instructions()) {
    if (inst->opcode() != Opcode::kFusion) continue;
    std::vector<Literal> args;
    for (int64_t i = 0; i < inst->operand_count(); ++i) {
      args.push_back(RandomLiteral(inst->operand(i)->shape(), 3 + i));
    }
    absl::StatusOr<Literal> want =
        EvaluateComputation(*inst->called_computations()[0], args);
    ASSERT_THAT(want, IsOk());
    absl::StatusOr<std::unique_ptr<Kernel>> k =
        Backend().Compile(*inst, Backend().DefaultConfig(*inst));
    ASSERT_THAT(k, IsOk());
    Literal out(inst->shape());
    ASSERT_THAT((*k)->Run(HostBuffers(args), HostBuffer(out)), IsOk());
    EXPECT_EQ(out.bytes(), want->bytes());
    EXPECT_EQ(want->bytes(), (std::vector<uint8_t>{0, 1, 1}));
    ++checked;
  }
  EXPECT_EQ(checked, 1);
}

// Configs that differ only in run-time parameters (cache blocks, threads)
// share one compile; a different register tile is different code.
TEST(CpuBackendTest, CodeKeyGroupsConfigsThatShareCode) {
  absl::StatusOr<std::string> text = ReadFile(Root() + "/examples/mlp.hlo");
  ASSERT_THAT(text, IsOk());
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(*text);
  ASSERT_THAT(m, IsOk());
  absl::StatusOr<std::unique_ptr<Module>> fused = FuseModule(**m);
  ASSERT_THAT(fused, IsOk());
  const Instruction* gemm = nullptr;
  for (const auto& inst : (*fused)->entry()->instructions()) {
    if (inst->opcode() == Opcode::kFusion &&
        Backend().DefaultConfig(*inst).kind() == "cpu_gemm") {
      gemm = inst.get();
      break;
    }
  }
  ASSERT_NE(gemm, nullptr);
  KernelConfig a = Backend().DefaultConfig(*gemm);
  KernelConfig b = a;
  b.Set("threads", a.Get("threads") == 1 ? 2 : 1);
  b.Set("kc", a.Get("kc") / 2);
  KernelConfig c = a;
  c.Set("mr", a.Get("mr") == 4 ? 8 : 4);
  EXPECT_EQ(Backend().CodeKey(*gemm, a), Backend().CodeKey(*gemm, b));
  EXPECT_NE(Backend().CodeKey(*gemm, a), Backend().CodeKey(*gemm, c));
  EXPECT_EQ(Backend().CodeKey(*gemm, a).size(), 64u);  // SHA-256, hex
}

// A module's kernels (Executable::Create's CompileKernels) compile as one
// bundle when none is cached, each computing its own fusion; a later
// backend on the same cache loads each alone without compiling.
TEST(CpuBackendTest, ModuleKernelsCompileAsOneBundleAndLoadAlone) {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "xtune_cpu_bundle_XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  CpuBackendOptions options;
  options.compiler.cache_dir = pattern;
  absl::StatusOr<std::unique_ptr<CpuBackend>> first = CpuBackend::Create(options);
  ASSERT_THAT(first, IsOk());
  absl::StatusOr<std::unique_ptr<Module>> m =
      ParseModuleFile(Root() + "/examples/attention.hlo");
  ASSERT_THAT(m, IsOk());
  absl::StatusOr<std::unique_ptr<Module>> fused = FuseModule(**m);
  ASSERT_THAT(fused, IsOk());
  std::vector<Backend::KernelRequest> requests;
  for (const auto& inst : (*fused)->entry()->instructions()) {
    if (inst->opcode() != Opcode::kFusion || inst->shape().IsTuple()) continue;
    requests.push_back({inst.get(), (*first)->DefaultConfig(*inst)});
  }
  ASSERT_GE(requests.size(), 3u);
  std::vector<absl::StatusOr<std::unique_ptr<Kernel>>> kernels =
      (*first)->CompileKernels(requests);
  ASSERT_EQ(kernels.size(), requests.size());
  EXPECT_EQ((*first)->compiler()->compilations(), 1);
  EXPECT_EQ((*first)->compiler()->bundles(), 1);
  absl::StatusOr<std::unique_ptr<CpuBackend>> later = CpuBackend::Create(options);
  ASSERT_THAT(later, IsOk());
  for (size_t r = 0; r < requests.size(); ++r) {
    const Instruction& f = *requests[r].fusion;
    std::vector<Literal> args;
    for (int64_t i = 0; i < f.operand_count(); ++i) {
      args.push_back(RandomLiteral(f.operand(i)->shape(), 7 + i));
    }
    absl::StatusOr<Literal> expected =
        EvaluateComputation(*f.called_computations()[0], args);
    ASSERT_THAT(expected, IsOk());
    CheckKernel(f, requests[r].config, kernels[r], args, *expected);
    absl::StatusOr<std::unique_ptr<Kernel>> alone =
        (*later)->Compile(f, requests[r].config);
    CheckKernel(f, requests[r].config, alone, args, *expected);
  }
  EXPECT_EQ((*later)->compiler()->compilations(), 0);
  std::error_code ignored;
  std::filesystem::remove_all(pattern, ignored);
}

// Every candidate of every `kind` fusion of `example` computes the same
// bytes with Backend() and with `other` (each set compiled as one bundle);
// `sources` sees each candidate's two sources first. Returns how many
// candidates were compared.
int CompareWithBackend(CpuBackend& other, const std::string& example,
                       const std::string& kind,
                       const std::function<void(const std::string& ours,
                                                const std::string& theirs)>& sources) {
  absl::StatusOr<std::unique_ptr<Module>> m =
      ParseModuleFile(Root() + "/examples/" + example);
  EXPECT_THAT(m, IsOk());
  if (!m.ok()) return 0;
  absl::StatusOr<std::unique_ptr<Module>> fused = FuseModule(**m);
  EXPECT_THAT(fused, IsOk());
  if (!fused.ok()) return 0;
  int compared = 0;
  for (const auto& inst : (*fused)->entry()->instructions()) {
    if (inst->opcode() != Opcode::kFusion ||
        Backend().DefaultConfig(*inst).kind() != kind) {
      continue;
    }
    std::vector<Literal> args;
    for (int64_t i = 0; i < inst->operand_count(); ++i) {
      args.push_back(RandomLiteral(inst->operand(i)->shape(), 11 + i));
    }
    std::vector<Backend::KernelRequest> requests;
    for (const KernelConfig& c : Backend().Candidates(*inst, false)) {
      absl::StatusOr<std::string> ours = Backend().Source(*inst, c);
      absl::StatusOr<std::string> theirs = other.Source(*inst, c);
      EXPECT_THAT(ours, IsOk());
      EXPECT_THAT(theirs, IsOk());
      if (ours.ok() && theirs.ok()) sources(*ours, *theirs);
      requests.push_back({inst.get(), c});
    }
    auto a = Backend().CompileKernels(requests);
    auto b = other.CompileKernels(requests);
    EXPECT_EQ(a.size(), requests.size());
    EXPECT_EQ(b.size(), requests.size());
    for (size_t r = 0; r < requests.size() && r < a.size() && r < b.size(); ++r) {
      EXPECT_THAT(a[r], IsOk());
      EXPECT_THAT(b[r], IsOk());
      if (!a[r].ok() || !b[r].ok()) continue;
      Literal out_a(inst->shape()), out_b(inst->shape());
      EXPECT_THAT((*a[r])->Run(HostBuffers(args), HostBuffer(out_a)), IsOk());
      EXPECT_THAT((*b[r])->Run(HostBuffers(args), HostBuffer(out_b)), IsOk());
      EXPECT_EQ(out_a.bytes(), out_b.bytes()) << requests[r].config.ToString();
      ++compared;
    }
  }
  return compared;
}

// builtin_min_max = false (immintrin.h, as earlier versions) builds other
// source for the same results: the softmax's max reductions agree bit for
// bit in every candidate.
TEST(CpuBackendTest, MinMaxFromTheHeaderOrTheBuiltinsAgree) {
  CpuBackendOptions options;
  options.builtin_min_max = false;
  absl::StatusOr<std::unique_ptr<CpuBackend>> header = CpuBackend::Create(options);
  ASSERT_THAT(header, IsOk());
  EXPECT_GT(CompareWithBackend(**header, "attention.hlo", "cpu_row_reduce",
                               [](const std::string&, const std::string& with) {
                                 EXPECT_THAT(with, HasSubstr("#define XT_INTRINSICS_HEADER 1"));
                               }),
            0);
}

// align_functions: every entry point of a bundle of a fusion's candidate
// sources starts on a 64-byte boundary (so each source's code has the same
// layout there as alone), and an alignment that is not a power of two is
// an error.
TEST(CpuBackendTest, BundledKernelsStartOnCacheLines) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModuleFile(Root() + "/examples/mlp.hlo");
  ASSERT_THAT(m, IsOk());
  absl::StatusOr<std::unique_ptr<Module>> fused = FuseModule(**m);
  ASSERT_THAT(fused, IsOk());
  std::vector<std::string> sources;
  for (const auto& inst : (*fused)->entry()->instructions()) {
    if (inst->opcode() != Opcode::kFusion) continue;
    for (const KernelConfig& c : Backend().Candidates(*inst, false)) {
      absl::StatusOr<std::string> source = Backend().Source(*inst, c);
      ASSERT_THAT(source, IsOk());
      if (std::find(sources.begin(), sources.end(), *source) == sources.end()) {
        sources.push_back(*source);
      }
    }
  }
  ASSERT_GE(sources.size(), 4u);
  const std::vector<std::string> symbols = {kKernelSymbol};
  std::vector<absl::StatusOr<LoadedKernel>> loaded =
      Backend().compiler()->LoadKernels(sources, symbols);
  ASSERT_EQ(loaded.size(), sources.size());
  int bundled = 0;
  for (const absl::StatusOr<LoadedKernel>& k : loaded) {
    ASSERT_THAT(k, IsOk());
    bundled += !k->suffix.empty();
    void* entry = k->Symbol(kKernelSymbol);
    ASSERT_NE(entry, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(entry) % 64, 0u) << k->Name(kKernelSymbol);
  }
  EXPECT_GE(bundled, 2);

  CpuBackendOptions odd;
  odd.align_functions = 48;
  EXPECT_THAT(CpuBackend::Create(odd), StatusIs(absl::StatusCode::kInvalidArgument,
                                                HasSubstr("align_functions")));
}

// no_constant_clones: the default source carries the pragma, the option
// off does not, and every gemm candidate of mlp_bf16 computes the same bits
// either way.
TEST(CpuBackendTest, KernelsWithAndWithoutConstantClonesAgree) {
  CpuBackendOptions options;
  options.no_constant_clones = false;
  absl::StatusOr<std::unique_ptr<CpuBackend>> cloning = CpuBackend::Create(options);
  ASSERT_THAT(cloning, IsOk());
  EXPECT_GT(CompareWithBackend(**cloning, "mlp_bf16.hlo", "cpu_gemm",
                               [](const std::string& plain, const std::string& with_clones) {
                                 EXPECT_THAT(plain, HasSubstr(kNoConstantClones));
                                 EXPECT_THAT(with_clones, Not(HasSubstr("no-ipa-cp-clone")));
                               }),
            0);
}

TEST(CpuBackendTest, DeviceDescriptionNamesWhatMatters) {
  std::string d = Backend().DeviceDescription();
  EXPECT_THAT(d, HasSubstr("CPU: "));
  EXPECT_THAT(d, HasSubstr("ISA: "));
  EXPECT_THAT(d, HasSubstr("Threads: "));
  EXPECT_THAT(d, HasSubstr("L2: "));
}

TEST(CpuBackendTest, BadConfigsAreRejectedNotCrashed) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(R"hlo(HloModule m
ENTRY e {
  a = f32[16,16] parameter(0)
  b = f32[16,16] parameter(1)
  ROOT d = f32[16,16] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})hlo");
  ASSERT_THAT(m, IsOk());
  absl::StatusOr<std::unique_ptr<Module>> fused = FuseModule(**m);
  ASSERT_THAT(fused, IsOk());
  const Instruction& f = *(*fused)->entry()->root();
  KernelConfig bad("cpu_gemm", {{"mc", 16},
                                {"nc", 16},
                                {"kc", 16},
                                {"mr", 4},
                                {"nr", 3},
                                {"split_k", 1},
                                {"threads", 1}});
  EXPECT_THAT(Backend().Compile(f, bad),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("register tile 4x3")));
  EXPECT_THAT(Backend().Compile(f, KernelConfig("cuda_gemm", {})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("no kernels of kind 'cuda_gemm'")));
  // Out of bounds (used to ask for gigabytes of partial sums and crash),
  // missing or reordered parameters (kernels read them by position).
  KernelConfig huge_split = Backend().DefaultConfig(f);
  huge_split.Set("split_k", 1000000);
  EXPECT_THAT(Backend().Compile(f, huge_split),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("split_k must be <= 16")));
  EXPECT_THAT(Backend().CheckConfig(f, KernelConfig("cpu_gemm", {{"mc", 16}})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("expected the parameters of")));
  KernelConfig zero = Backend().DefaultConfig(f);
  zero.Set("kc", 0);
  EXPECT_THAT(Backend().CheckConfig(f, zero),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("kc must be >= 1")));
  // Blocks larger than the problem are fine (e.g. --config mc=64 on M=16).
  KernelConfig big_block = Backend().DefaultConfig(f);
  big_block.Set("mc", 64);
  EXPECT_THAT(Backend().CheckConfig(f, big_block), IsOk());
}

// Everything the search spaces offer passes the backend's own check.
TEST(CpuBackendTest, EveryExhaustiveCandidatePassesCheckConfig) {
  for (const std::string& path :
       {Root() + "/examples/mlp.hlo", Root() + "/examples/attention.hlo",
        Root() + "/examples/layer_norm.hlo"}) {
    absl::StatusOr<std::unique_ptr<Module>> m = ParseModuleFile(path);
    ASSERT_THAT(m, IsOk());
    absl::StatusOr<std::unique_ptr<Module>> fused = FuseModule(**m);
    ASSERT_THAT(fused, IsOk());
    for (const auto& inst : (*fused)->entry()->instructions()) {
      if (inst->opcode() != Opcode::kFusion) continue;
      for (const KernelConfig& c : Backend().Candidates(*inst, true)) {
        EXPECT_THAT(Backend().CheckConfig(*inst, c), IsOk())
            << path << " " << inst->name();
      }
    }
  }
}

}  // namespace
}  // namespace xtune::cpu
