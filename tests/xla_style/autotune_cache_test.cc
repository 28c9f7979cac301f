// Mirrors XLA's own persistent-autotuning tests, through the public API and
// XLA_FLAGS set by CTest (tests/xla_style/CMakeLists.txt, via the
// xtune_add_test helper): dump into TEST_UNDECLARED_OUTPUTS_DIR, then load
// that file by absolute path, by a path relative to the working directory,
// and through the TEST_WORKSPACE prefix — and tune nothing.
#include <cstdlib>
#include <iostream>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xtune/compiler.h"
#include "xtune/testing.h"

namespace {

std::string ModelPath() {
  const char* dir = std::getenv("XTUNE_XLA_STYLE_DIR");
  return std::string(dir == nullptr ? "." : dir) + "/model.hlo";
}

// What XLA_FLAGS asks for (the test cannot see a different way).
std::string XlaFlags() {
  const char* flags = std::getenv("XLA_FLAGS");
  return flags == nullptr ? "" : flags;
}

TEST(XlaStyleAutotuneCacheTest, DumpsToUndeclaredOutputsDir) {
  ASSERT_THAT(XlaFlags(),
              ::testing::HasSubstr(
                  "--xla_gpu_dump_autotune_results_to="
                  "TEST_UNDECLARED_OUTPUTS_DIR/autotune_cache.textproto"));
  const char* outputs = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  ASSERT_NE(outputs, nullptr);
  std::string dumped = std::string(outputs) + "/autotune_cache.textproto";
  std::filesystem::remove(dumped);

  auto compiler = xtune::Compiler::Create();
  ASSERT_TRUE(compiler.ok()) << compiler.status();
  auto program = (*compiler)->CompileFile(ModelPath());
  ASSERT_TRUE(program.ok()) << program.status();
  EXPECT_GT((*program)->stats().tuned, 0) << (*program)->stats().summary;
  EXPECT_EQ((*program)->stats().cache_hits, 0);
  EXPECT_TRUE(std::filesystem::exists(dumped)) << dumped;
  absl::Status run = (*program)->RunAndVerify();
  EXPECT_TRUE(run.ok()) << run;
}

// Run three times by CTest with three ways of naming the dumped file.
TEST(XlaStyleAutotuneCacheTest, LoadsAndTunesNothing) {
  ASSERT_THAT(XlaFlags(),
              ::testing::HasSubstr("--xla_gpu_load_autotune_results_from="));
  std::vector<std::string> flags;
  if (!xtune::testing::UpdatingAutotuneCaches()) {
    flags.push_back("--xla_gpu_require_complete_aot_autotune_results");
  }
  ASSERT_OK_AND_ASSIGN(auto compiler, xtune::Compiler::Create(flags));
  ASSERT_OK_AND_ASSIGN(auto program, compiler->CompileFile(ModelPath()));
  const xtune::CompileStats& stats = program->stats();
  if (!xtune::testing::UpdatingAutotuneCaches()) {
    EXPECT_EQ(stats.tuned, 0) << stats.summary;
    EXPECT_EQ(stats.cache_hits, stats.fusions) << stats.summary;
  }
  EXPECT_GT(stats.fusions, 0);
  ASSERT_OK(program->RunAndVerify());
}

// Registered with AUTOTUNE_CACHE = XLA's GPU test cache (nothing in it for
// this module). Run as is, it tunes. Run by xtune_add_test_keeps_xla_flags
// with XLA_FLAGS=--xla_gpu_require_complete_aot_autotune_results exported,
// the helper's flags are appended to the caller's, so the compile must
// fail naming the missing fusion.
TEST(XlaStyleAutotuneCacheTest, KeepsTheCallersXlaFlags) {
  ASSERT_THAT(XlaFlags(),
              ::testing::HasSubstr("--xla_gpu_load_autotune_results_from="));
  bool caller_requires =
      absl::StrContains(XlaFlags(),
                        "--xla_gpu_require_complete_aot_autotune_results");
  ASSERT_OK_AND_ASSIGN(auto compiler, xtune::Compiler::Create());
  absl::StatusOr<std::unique_ptr<xtune::Program>> program =
      compiler->CompileFile(ModelPath());
  if (caller_requires) {
    EXPECT_EQ(program.status().code(), absl::StatusCode::kNotFound)
        << program.status();
    std::cout << "caller's XLA_FLAGS kept: " << XlaFlags() << "\n";
  } else {
    ASSERT_OK(program);
    EXPECT_GT((*program)->stats().tuned, 0);
  }
}

TEST(XlaStyleAutotuneCacheTest, RunTakesAndReturnsArrays) {
  auto compiler = xtune::Compiler::Create();
  ASSERT_TRUE(compiler.ok()) << compiler.status();
  auto program = (*compiler)->CompileText(R"(HloModule m
ENTRY e {
  a = f32[2,2] parameter(0)
  ROOT n = f32[2,2] negate(a)
})");
  ASSERT_TRUE(program.ok()) << program.status();
  auto out = (*program)->Run({xtune::Array{{2, 2}, {1, -2, 3, 4}}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_THAT((*out)[0].values(), ::testing::ElementsAre(-1, 2, -3, -4));
  EXPECT_EQ((*out)[0].type(), xtune::ElementType::kF32);
  EXPECT_FALSE((*program)->Run({}).ok());
}

}  // namespace
