// Bundles: several sources as one translation unit (kernel_bundle.h) and
// HostCompiler::LoadKernel(s).
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "codegen/cpu/host_compiler.h"
#include "codegen/cpu/kernel_bundle.h"
#include "util/file.h"
#include "util/status_matchers.h"

namespace xtune::cpu {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

// A source in the shape the CPU backend generates: a macro, a static helper
// and a struct whose names every source repeats, and the entry point.
std::string ValueSource(int value) {
  return absl::StrCat(
      "#include <math.h>\n"
      "#define XT_VALUE ", value, "\n"
      "#define XT_TWICE(x) \\\n  ((x) * 2)\n"
      "struct XtBox { int v; };\n"
      "static int xt_helper() { XtBox b = {XT_VALUE}; return b.v; }\n"
      "extern \"C\" int xtune_value() {\n"
      "  return xt_helper() + (int)sqrtf((float)XT_TWICE(0));\n}\n");
}

const std::vector<std::string> kSymbols = {"xtune_value"};

int CallKernel(const absl::StatusOr<LoadedKernel>& k) {
  if (!k.ok()) return -1;
  auto fn = reinterpret_cast<int (*)()>(k->Symbol("xtune_value"));
  return fn == nullptr ? -2 : fn();
}

TEST(KernelBundleTest, DefinedMacrosSkipsMacroBodies) {
  EXPECT_THAT(DefinedMacros("#define A 1\n  #  define B(x) \\\n#define NOT_ME\n"
                            "#define A 2\n#undef C\n#defineD\nint x;\n"),
              ElementsAre("A", "B"));
}

TEST(KernelBundleTest, EachSourceGetsANamespaceItsSymbolsAndItsUndefs) {
  const std::vector<std::string> symbols = {"xtune_value", "xtune_other"};
  std::string text = BundleText("#include <math.h>\n",
                                {ValueSource(1), ValueSource(2)}, symbols);
  EXPECT_THAT(text, ::testing::StartsWith(
                        "// xtune bundle of 2 kernel sources\n#include <math.h>\n"
                        "namespace xt_bundle_0 {\n"
                        "#define xtune_value xtune_value_b0\n"
                        "#define xtune_other xtune_other_b0\n#line 1\n"
                        "#include <math.h>\n#define XT_VALUE 1\n"));
  EXPECT_THAT(text, HasSubstr("#undef xtune_value\n#undef xtune_other\n"
                              "#undef XT_VALUE\n#undef XT_TWICE\n"
                              "}  // namespace xt_bundle_0\n"
                              "namespace xt_bundle_1 {\n"
                              "#define xtune_value xtune_value_b1\n"));
  EXPECT_EQ(BundleSuffix(1), "_b1");
  EXPECT_EQ(text, BundleText("#include <math.h>\n",
                             {ValueSource(1), ValueSource(2)}, symbols));
}

class HostCompilerBundlesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "xtune_bundles_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  std::unique_ptr<HostCompiler> MakeCompiler() {
    HostCompilerOptions options;
    options.cache_dir = dir_ + "/cache";
    // What the sources include, as the CPU backend's prelude is.
    options.precompiled_header = "#include <math.h>\n";
    absl::StatusOr<std::unique_ptr<HostCompiler>> compiler =
        HostCompiler::Create(options);
    EXPECT_THAT(compiler, IsOk());
    return compiler.ok() ? std::move(*compiler) : nullptr;
  }
  std::vector<std::string> EntryFiles(const HostCompiler& compiler) const {
    std::vector<std::string> entries;
    for (const auto& e : std::filesystem::directory_iterator(compiler.kernel_dir())) {
      if (e.path().extension() == ".entry") entries.push_back(e.path().string());
    }
    return entries;
  }
  std::string dir_;
};

TEST_F(HostCompilerBundlesTest, SourcesCompileOnceAsOneObjectAndKeepTheirCode) {
  std::unique_ptr<HostCompiler> compiler = MakeCompiler();
  ASSERT_NE(compiler, nullptr);
  std::vector<std::string> sources = {ValueSource(1), ValueSource(2), ValueSource(3)};
  std::vector<absl::StatusOr<LoadedKernel>> kernels =
      compiler->LoadKernels(sources, kSymbols);
  ASSERT_EQ(kernels.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    ASSERT_THAT(kernels[i], IsOk());
    EXPECT_EQ(CallKernel(kernels[i]), i + 1);
    EXPECT_EQ(kernels[i]->suffix, BundleSuffix(i));
    EXPECT_EQ(kernels[i]->object, kernels[0]->object);
  }
  EXPECT_EQ(compiler->compilations(), 1);
  EXPECT_EQ(compiler->bundles(), 1);
  EXPECT_EQ(compiler->bundled_sources(), 3);
  EXPECT_EQ(EntryFiles(*compiler).size(), 3u);

  // One of them alone, in this process: the bundle already loaded.
  absl::StatusOr<LoadedKernel> again = compiler->LoadKernel(sources[1], kSymbols);
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(again->object, kernels[0]->object);
  EXPECT_EQ(CallKernel(again), 2);

  // And in a later process: the entry names the bundle, nothing compiles.
  kernels.clear();
  again = absl::UnknownError("released");
  std::unique_ptr<HostCompiler> later = MakeCompiler();
  ASSERT_NE(later, nullptr);
  absl::StatusOr<LoadedKernel> third = later->LoadKernel(sources[2], kSymbols);
  EXPECT_EQ(CallKernel(third), 3);
  std::vector<absl::StatusOr<LoadedKernel>> all = later->LoadKernels(sources, kSymbols);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(CallKernel(all[i]), i + 1);
  EXPECT_EQ(later->compilations(), 0);
}

// __LINE__ in a bundled source is its line in the source: the emulator's
// error messages name kernel lines.
TEST_F(HostCompilerBundlesTest, LinesAreTheSourcesOwn) {
  std::unique_ptr<HostCompiler> compiler = MakeCompiler();
  ASSERT_NE(compiler, nullptr);
  std::vector<std::string> sources = {
      "// one\n// two\nextern \"C\" int xtune_value() { return __LINE__; }\n",
      "// one\n\n\n\nextern \"C\" int xtune_value() { return __LINE__; }\n"};
  std::vector<absl::StatusOr<LoadedKernel>> kernels =
      compiler->LoadKernels(sources, kSymbols);
  EXPECT_EQ(compiler->bundles(), 1);
  EXPECT_EQ(CallKernel(kernels[0]), 3);
  EXPECT_EQ(CallKernel(kernels[1]), 5);
}

TEST_F(HostCompilerBundlesTest, OnlyTheMissingSourcesAreBundledAndRepeatsShare) {
  std::unique_ptr<HostCompiler> compiler = MakeCompiler();
  ASSERT_NE(compiler, nullptr);
  ASSERT_THAT(compiler->CompileAndLoad(ValueSource(1)), IsOk());
  ASSERT_EQ(compiler->compilations(), 1);
  // 1 is cached on its own, 2 repeats: only 2 is missing, and one missing
  // source compiles alone (no bundle).
  std::vector<absl::StatusOr<LoadedKernel>> kernels = compiler->LoadKernels(
      {ValueSource(1), ValueSource(2), ValueSource(2)}, kSymbols);
  EXPECT_EQ(CallKernel(kernels[0]), 1);
  EXPECT_EQ(kernels[0]->suffix, "");
  EXPECT_EQ(CallKernel(kernels[1]), 2);
  EXPECT_EQ(CallKernel(kernels[2]), 2);
  EXPECT_EQ(kernels[1]->suffix, "");
  EXPECT_EQ(compiler->compilations(), 2);
  EXPECT_EQ(compiler->bundles(), 0);
  EXPECT_TRUE(EntryFiles(*compiler).empty());
}

TEST_F(HostCompilerBundlesTest, ASourceThatFailsGetsItsOwnErrorAndTheOthersRun) {
  std::unique_ptr<HostCompiler> compiler = MakeCompiler();
  ASSERT_NE(compiler, nullptr);
  std::vector<absl::StatusOr<LoadedKernel>> kernels = compiler->LoadKernels(
      {ValueSource(4), "extern \"C\" int xtune_value() { return oops; }\n",
       ValueSource(5)},
      kSymbols);
  EXPECT_EQ(CallKernel(kernels[0]), 4);
  EXPECT_THAT(kernels[1].status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("oops")));
  // The error names the source's own file, not the bundle's.
  EXPECT_THAT(std::string(kernels[1].status().message()),
              Not(HasSubstr("xt_bundle")));
  EXPECT_EQ(CallKernel(kernels[2]), 5);
  // The bundle, then each alone.
  EXPECT_EQ(compiler->compilations(), 4);
  EXPECT_EQ(compiler->bundles(), 0);
}

TEST_F(HostCompilerBundlesTest, DamagedEntriesAndMissingBundlesCompileAgain) {
  std::vector<std::string> sources = {ValueSource(6), ValueSource(7)};
  {
    std::unique_ptr<HostCompiler> compiler = MakeCompiler();
    ASSERT_NE(compiler, nullptr);
    for (const auto& k : compiler->LoadKernels(sources, kSymbols)) {
      ASSERT_THAT(k, IsOk());
    }
  }
  std::unique_ptr<HostCompiler> later = MakeCompiler();
  ASSERT_NE(later, nullptr);
  std::vector<std::string> entries = EntryFiles(*later);
  ASSERT_EQ(entries.size(), 2u);
  std::sort(entries.begin(), entries.end());
  absl::StatusOr<std::string> first_entry = ReadFile(entries[0]);
  ASSERT_THAT(first_entry, IsOk());
  // One entry garbage, the other naming a bundle that is gone.
  ASSERT_THAT(WriteFileAtomically(entries[0], "not an entry\n"), IsOk());
  std::string bundle_key = std::vector<std::string>(
      absl::StrSplit(*first_entry, ' '))[0];
  std::filesystem::remove(later->kernel_dir() + "/" + bundle_key + ".so");
  std::vector<absl::StatusOr<LoadedKernel>> kernels =
      later->LoadKernels(sources, kSymbols);
  EXPECT_EQ(CallKernel(kernels[0]), 6);
  EXPECT_EQ(CallKernel(kernels[1]), 7);
  EXPECT_EQ(later->compilations(), 1);  // a new bundle of both
  EXPECT_EQ(later->bundles(), 1);
}

TEST_F(HostCompilerBundlesTest, ThreadsLoadingOneBundleAllGetTheirKernels) {
  std::unique_ptr<HostCompiler> compiler = MakeCompiler();
  ASSERT_NE(compiler, nullptr);
  std::vector<std::string> sources = {ValueSource(8), ValueSource(9)};
  std::vector<int> got(8, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      if (t % 2 == 0) {
        std::vector<absl::StatusOr<LoadedKernel>> k =
            compiler->LoadKernels(sources, kSymbols);
        got[t] = CallKernel(k[0]) * 10 + CallKernel(k[1]);
      } else {
        got[t] = CallKernel(compiler->LoadKernel(sources[1], kSymbols));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < 8; ++t) EXPECT_EQ(got[t], t % 2 == 0 ? 89 : 9) << t;
}

}  // namespace
}  // namespace xtune::cpu
