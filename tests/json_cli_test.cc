// `xtune compile` and `xtune run` with --format=json (docs/json_output.md):
// stdout is one JSON object whose fields match the run.
#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli_util.h"
#include "util/json.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::HasSubstr;
using ::xtune::testing::IsOk;

// stdout alone (stderr dropped): what a CI script reads.
Result Stdout(const std::string& args) {
  return RunShell("{ " + std::string(XTUNE_BINARY) + " " + args + " 2>/dev/null; }");
}

std::string Example(const std::string& name) {
  return std::string(XTUNE_SOURCE_DIR) + "/examples/" + name;
}

TEST_F(CliTest, CompileJsonHasTheTableAndTheCounts) {
  Result r = Stdout("compile " + Example("mlp.hlo") + " --format=json --xla_gpu_autotune_level=0");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  absl::StatusOr<JsonValue> json = ParseJson(r.output);
  ASSERT_THAT(json, IsOk()) << r.output;
  EXPECT_EQ(json->Find("backend")->text, "cpu");
  EXPECT_THAT(json->Find("device")->text, HasSubstr("CPU: "));
  const JsonValue* counts = json->Find("autotuning");
  ASSERT_NE(counts, nullptr);
  EXPECT_EQ(counts->Find("fusions")->text, "2");
  EXPECT_EQ(counts->Find("default")->text, "2");
  EXPECT_EQ(counts->Find("tuned")->text, "0");
  const JsonValue* fusions = json->Find("fusions");
  ASSERT_NE(fusions, nullptr);
  ASSERT_EQ(fusions->items.size(), 2u);
  for (const JsonValue& f : fusions->items) {
    EXPECT_EQ(f.Find("source")->text, "default");
    EXPECT_EQ(f.Find("time_us")->kind, JsonValue::Kind::kNull);
    EXPECT_THAT(f.Find("config")->text, HasSubstr("cpu_"));
  }
  EXPECT_EQ(fusions->items[0].Find("kind")->text, "gemm");
  // The text table says the same.
  Result text = RunXtune("compile " + Example("mlp.hlo") + " --xla_gpu_autotune_level=0");
  EXPECT_THAT(text.output, HasSubstr(fusions->items[0].Find("config")->text));
}

TEST_F(CliTest, RunJsonHasOutputsBenchmarkAndVerify) {
  const std::string out = dir_ + "/out";
  Result r = Stdout("run " + Example("mlp.hlo") +
                    " --format=json --verify --benchmark=2 --xla_gpu_autotune_level=0 "
                    "--output_dir=" + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  absl::StatusOr<JsonValue> json = ParseJson(r.output);
  ASSERT_THAT(json, IsOk()) << r.output;
  const JsonValue* outputs = json->Find("outputs");
  ASSERT_NE(outputs, nullptr);
  ASSERT_EQ(outputs->items.size(), 1u);
  const JsonValue& o = outputs->items[0];
  EXPECT_EQ(o.Find("shape")->text, "f32[32,128]");
  EXPECT_EQ(o.Find("elements")->text, "4096");
  EXPECT_TRUE(std::filesystem::exists(o.Find("npy")->text));
  EXPECT_LE(std::stod(o.Find("min")->text), std::stod(o.Find("mean")->text));
  EXPECT_EQ(json->Find("benchmark")->Find("runs")->text, "2");
  EXPECT_EQ(json->Find("verify")->Find("matches")->text, "true");
  // Without --verify or --benchmark, both are null.
  Result plain = Stdout("run " + Example("mlp.hlo") + " --format=json --xla_gpu_autotune_level=0");
  absl::StatusOr<JsonValue> pj = ParseJson(plain.output);
  ASSERT_THAT(pj, IsOk()) << plain.output;
  EXPECT_EQ(pj->Find("verify")->kind, JsonValue::Kind::kNull);
  EXPECT_EQ(pj->Find("benchmark")->kind, JsonValue::Kind::kNull);
}

TEST_F(CliTest, JsonErrorsStayOnStderr) {
  Result bad = RunXtune("run " + Example("mlp.hlo") + " --format=yaml");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.output, HasSubstr("--format must be text or json, got 'yaml'"));
  Result missing = Stdout("compile " + dir_ + "/none.hlo --format=json");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.output, "");
}

TEST_F(CliTest, EveryCacheCommandWritesJson) {
  const std::string cache = dir_ + "/c.textproto";
  ASSERT_EQ(RunXtune("compile " + Example("mlp.hlo") + " --xla_gpu_autotune_level=2"
                     " --xla_gpu_dump_autotune_results_to=" + cache).exit_code, 0);
  const std::string xla = std::string(XTUNE_SOURCE_DIR) + "/tests/data/test_autotune_cache.textproto";
  struct Case {
    std::string args;
    int exit_code;
    std::string field, value;  // a top-level field and its text
  } cases[] = {
      {"stats " + cache, 0, "", ""},
      {"show " + cache + " --limit=1", 0, "shown", "1"},
      {"diff " + cache + " " + cache, 0, "differ", "false"},
      {"diff " + cache + " " + xla, 1, "differ", "true"},
      {"explain " + Example("mlp.hlo") + " --cache=" + cache, 0, "module", Example("mlp.hlo")},
      {"convert " + cache + " " + dir_ + "/c.pb", 0, "entries", "2"},
      {"merge " + cache + " " + xla + " --out=" + dir_ + "/m.textproto", 0, "entries", "3"},
      {"prune " + dir_ + "/m.textproto --out=" + dir_ + "/p.textproto --module=" +
           Example("mlp.hlo"), 0, "kept", "2"},
  };
  for (const Case& c : cases) {
    Result r = Stdout("cache " + c.args + " --format=json");
    EXPECT_EQ(r.exit_code, c.exit_code) << c.args << "\n" << r.output;
    absl::StatusOr<JsonValue> json = ParseJson(r.output);
    ASSERT_THAT(json, IsOk()) << c.args << "\n" << r.output;
    if (c.field.empty()) {
      const JsonValue* files = json->Find("files");
      ASSERT_NE(files, nullptr);
      ASSERT_EQ(files->items.size(), 1u);
      EXPECT_EQ(files->items[0].Find("entries")->text, "2");
      continue;
    }
    const JsonValue* v = json->Find(c.field);
    ASSERT_NE(v, nullptr) << c.args << ": no " << c.field << " in " << r.output;
    EXPECT_EQ(v->text, c.value) << c.args;
  }
  Result explain = Stdout("cache explain " + Example("mlp.hlo") + " --cache=" + cache +
                          " --format=json");
  absl::StatusOr<JsonValue> json = ParseJson(explain.output);
  ASSERT_THAT(json, IsOk());
  for (const JsonValue& f : json->Find("fusions")->items) {
    EXPECT_EQ(f.Find("hit")->text, "true") << explain.output;
  }
}

}  // namespace
}  // namespace xtune
