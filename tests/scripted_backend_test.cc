// A second backend plugs in from outside: this test registers a scripted
// backend of its own (its device string, its candidates, its codec, its
// profiler) and compiles, tunes, dumps and loads through the public API —
// the compile path the CLI uses — without a line of autotune/, cache/ or
// compiler/ knowing it. Also the public options, typed arrays and the
// in-memory cache API.
#include <cmath>
#include <filesystem>

#include "cache/fake_store.h"
#include "codegen/fake_backend.h"
#include "codegen/fake_profiler.h"
#include "codegen/registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/file.h"
#include "xtune/compiler.h"
#include "xtune/testing.h"

namespace xtune {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kDevice[] = "SCRIPTED: test accelerator, 7 cores";

// Two candidates per fusion; the second is scripted faster. Its own codec:
// configs stored as XLA's GemmKey{algorithm} (the way a library backend's
// would be), not the default BackendConfigKey.
class ScriptedBackend : public FakeBackend {
 public:
  ScriptedBackend()
      : FakeBackend({{KernelConfig("scripted", {{"algorithm", 1}})},
                     {KernelConfig("scripted", {{"algorithm", 2}})}},
                    0, kDevice) {}
  std::string name() const override { return "scripted"; }
  absl::Status ConfigToResult(const KernelConfig& config,
                              xla::AutotuneResult* result) const override {
    if (config.kind() != "scripted") {
      return absl::InvalidArgumentError("not a scripted config");
    }
    result->mutable_gemm()->set_algorithm(config.Get("algorithm"));
    return absl::OkStatus();
  }
  absl::StatusOr<KernelConfig> ConfigFromResult(
      const xla::AutotuneResult& result) const override {
    if (result.key_case() != xla::AutotuneResult::kGemm) {
      return absl::UnimplementedError("not a scripted key");
    }
    return KernelConfig("scripted", {{"algorithm", result.gemm().algorithm()}});
  }
  absl::StatusOr<std::unique_ptr<Profiler>> CreateProfiler() override {
    auto p = std::make_unique<FakeProfiler>(1e-3);
    p->SetSamples("scripted:algorithm=2", {1e-4, 1e-4, 1e-4, 1e-4});
    return std::unique_ptr<Profiler>(std::move(p));
  }
};

void RegisterScripted() {
  static bool once = [] {
    absl::Status s = RegisterBackend(
        {"scripted", "a backend scripted by this test",
         [](const BackendOptions&) -> absl::StatusOr<std::unique_ptr<Backend>> {
           return std::unique_ptr<Backend>(new ScriptedBackend());
         }});
    EXPECT_TRUE(s.ok()) << s;
    return true;
  }();
  (void)once;
}

constexpr char kModule[] = R"hlo(HloModule m
ENTRY e {
  a = f32[8,16] parameter(0)
  b = f32[16,4] parameter(1)
  d = f32[8,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = f32[8,4] tanh(d)
})hlo";

std::string TempDir(const std::string& name) {
  std::string dir = ::testing::TempDir() + "/scripted_backend_" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(ScriptedBackendTest, CompilesTunesDumpsAndLoadsLikeABuiltIn) {
  RegisterScripted();
  std::string dump = TempDir("dump") + "/cache.textproto";
  CompilerOptions options;
  options.backend = "scripted";
  options.autotune.print_summary = false;
  options.cache.dump_to = dump;
  ASSERT_OK_AND_ASSIGN(auto compiler, Compiler::Create(options));
  ASSERT_OK_AND_ASSIGN(auto program, compiler->CompileText(kModule));
  EXPECT_GT(program->stats().tuned, 0);
  ASSERT_OK(program->RunAndVerify());
  ASSERT_OK_AND_ASSIGN(std::string text, ReadFile(dump));
  EXPECT_THAT(text, HasSubstr(kDevice));
  EXPECT_THAT(text, HasSubstr("algorithm: 2"));  // the scripted winner

  // A later process: loads the dump and needs no tuning at all.
  CompilerOptions again = options;
  again.cache.dump_to = "";
  again.cache.load_from = dump;
  again.autotune.require_complete = true;
  ASSERT_OK_AND_ASSIGN(auto loaded, Compiler::Create(again));
  ASSERT_OK_AND_ASSIGN(auto hit, loaded->CompileText(kModule));
  EXPECT_EQ(hit->stats().tuned, 0);
  EXPECT_EQ(hit->stats().cache_hits, hit->stats().fusions);
  ASSERT_OK(hit->RunAndVerify());
}

TEST(ScriptedBackendTest, InMemorySerializeAndLoad) {
  RegisterScripted();
  CompilerOptions options;
  options.backend = "scripted";
  options.autotune.print_summary = false;
  options.cache.dump_to = TempDir("mem") + "/unused.pb";  // its own session
  ASSERT_OK_AND_ASSIGN(auto tuner, Compiler::Create(options));
  ASSERT_OK_AND_ASSIGN(auto program, tuner->CompileText(kModule));
  ASSERT_GT(program->stats().tuned, 0);
  for (bool text : {true, false}) {
    ASSERT_OK_AND_ASSIGN(std::string bytes,
                         tuner->SerializeAutotuneResults(text));
    CompilerOptions fresh = options;
    fresh.cache.dump_to = TempDir(text ? "text" : "binary") + "/other.pb";
    fresh.autotune.require_complete = true;
    ASSERT_OK_AND_ASSIGN(auto user, Compiler::Create(fresh));
    EXPECT_EQ(user->CompileText(kModule).status().code(),
              absl::StatusCode::kNotFound);
    ASSERT_OK(user->LoadAutotuneResults(bytes, text));
    ASSERT_OK_AND_ASSIGN(auto hit, user->CompileText(kModule));
    EXPECT_EQ(hit->stats().tuned, 0);
  }
  ASSERT_OK_AND_ASSIGN(auto any, Compiler::Create(options));
  EXPECT_EQ(any->LoadAutotuneResults("not a proto {", true).code(),
            absl::StatusCode::kDataLoss);
}

TEST(ScriptedBackendTest, UnknownBackendIsAnErrorWithTheRegisteredNames) {
  CompilerOptions options;
  options.backend = "tpu";
  auto compiler = Compiler::Create(options);
  EXPECT_EQ(compiler.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(compiler.status().message(), HasSubstr("interpreter"));
}

TEST(ApiTest, ArraysKeepTheirElementType) {
  CompilerOptions options;
  options.backend = "interpreter";
  options.autotune.print_summary = false;
  ASSERT_OK_AND_ASSIGN(auto compiler, Compiler::Create(options));
  ASSERT_OK_AND_ASSIGN(auto program, compiler->CompileText(R"hlo(HloModule m
ENTRY e {
  a = s64[3] parameter(0)
  one = s64[] constant(1)
  ones = s64[3] broadcast(one), dimensions={}
  ROOT s = s64[3] add(a, ones)
})hlo"));
  const int64_t big = (int64_t{1} << 60) + 1;  // not a double
  ASSERT_OK_AND_ASSIGN(
      std::vector<Array> out,
      program->Run({Array::Of<int64_t>({3}, {big, -big, 7})}));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type(), ElementType::kS64);
  ASSERT_OK_AND_ASSIGN(std::vector<int64_t> got, out[0].As<int64_t>());
  EXPECT_THAT(got, ElementsAre(big + 1, -big + 1, 8));
  // A typed argument of another type is refused.
  auto wrong = program->Run({Array::Of<float>({3}, {1, 2, 3})});
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(wrong.status().message(), HasSubstr("holds f32"));
  EXPECT_FALSE(out[0].As<double>().ok());
}

// 8-bit floats through the API: doubles in (rounded to the type), typed
// one-byte codes out, and codes in with FromBytes.
TEST(ApiTest, EightBitFloatsInAndOut) {
  CompilerOptions options;
  options.backend = "interpreter";
  options.autotune.print_summary = false;
  ASSERT_OK_AND_ASSIGN(auto compiler, Compiler::Create(options));
  ASSERT_OK_AND_ASSIGN(auto program, compiler->CompileText(R"hlo(HloModule m
ENTRY e {
  a = f8e4m3fn[4] parameter(0)
  ROOT n = f8e4m3fn[4] negate(a)
})hlo"));
  ASSERT_OK_AND_ASSIGN(std::vector<Array> out,
                       program->Run({Array({4}, {1.0, 1.0625, 448, 1000})}));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type(), ElementType::kF8E4M3FN);
  EXPECT_EQ(ElementTypeBytes(out[0].type()), 1);
  EXPECT_STREQ(ElementTypeName(out[0].type()), "f8e4m3fn");
  std::vector<double> v = out[0].values();
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0], -1.0);
  EXPECT_EQ(v[1], -1.0);  // 1.0625 is a tie: to even
  EXPECT_EQ(v[2], -448.0);
  EXPECT_TRUE(std::isnan(v[3]));  // 1000 overflows to NaN
  // negate flips a NaN's sign bit too, as XLA's.
  EXPECT_THAT(out[0].bytes(), ElementsAre(0xb8, 0xb8, 0xfe, 0xff));
  ASSERT_OK_AND_ASSIGN(
      std::vector<Array> again,
      program->Run({Array::FromBytes(ElementType::kF8E4M3FN, {4},
                                     {0x38, 0x01, 0x7e, 0x80})}));
  EXPECT_THAT(again[0].bytes(), ElementsAre(0xb8, 0x81, 0xfe, 0x00));
}

TEST(ApiTest, TheInterpreterTouchesNoCacheFile) {
  std::string dump = TempDir("interp") + "/never.textproto";
  CompilerOptions options;
  options.backend = "interpreter";
  options.autotune.print_summary = false;
  options.cache.dump_to = dump;
  options.autotune.override_gemm = "block_m: 64";  // not tuned: not read
  ASSERT_OK_AND_ASSIGN(auto compiler, Compiler::Create(options));
  ASSERT_OK_AND_ASSIGN(auto program, compiler->CompileText(kModule));
  EXPECT_EQ(program->stats().defaults, program->stats().fusions);
  ASSERT_OK(program->RunAndVerify());
  EXPECT_FALSE(std::filesystem::exists(dump));
}

TEST(ApiTest, LayoutsAreLogicalRowMajorOnBothSides) {
  CompilerOptions options;
  options.backend = "interpreter";
  options.autotune.print_summary = false;
  ASSERT_OK_AND_ASSIGN(auto compiler, Compiler::Create(options));
  ASSERT_OK_AND_ASSIGN(auto program, compiler->CompileText(R"hlo(HloModule m
ENTRY e {
  a = f32[2,3]{0,1} parameter(0)
  ROOT n = f32[2,3]{1,0} negate(a)
})hlo"));
  ASSERT_OK_AND_ASSIGN(
      std::vector<Array> out,
      program->Run({Array::Of<float>({2, 3}, {1, 2, 3, 4, 5, 6})}));
  EXPECT_THAT(out[0].values(), ElementsAre(-1, -2, -3, -4, -5, -6));
}

}  // namespace
}  // namespace xtune
