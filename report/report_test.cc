#include <google/protobuf/text_format.h>

#include <regex>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "cache/autotune_cache.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "report/charts.h"
#include "report/heatmap.h"
#include "report/html.h"
#include "report/report_page.h"
#include "util/status_matchers.h"

namespace xtune::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::xtune::testing::StatusIs;

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

KernelConfig Gemm(int64_t mc, int64_t nc, int64_t kc) {
  return KernelConfig("cpu_gemm", {{"mc", mc}, {"nc", nc}, {"kc", kc}, {"threads", 1}});
}

TEST(ReportHtmlTest, EscapesAndFormats) {
  EXPECT_EQ(Escape("<a href=\"x\">&'</a>"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(DurationText(850e-9), "850 ns");
  EXPECT_EQ(DurationText(12.34e-6), "12.3 us");
  EXPECT_EQ(DurationText(4.561e-3), "4.56 ms");
  EXPECT_EQ(DurationText(999.9e-6), "1.00 ms");
  EXPECT_EQ(DurationText(-1), "-");
  EXPECT_EQ(RatioText(1.5), "1.50x");
  EXPECT_EQ(Truncate("abcdefgh", 6), "abc...");
  EXPECT_EQ(Truncate("abc", 6), "abc");
}

KernelConfig Tiled(int64_t mc, int64_t mr, int64_t nc) {
  return KernelConfig("cpu_gemm", {{"mc", mc}, {"mr", mr}, {"nc", nc}, {"threads", 1}});
}

TEST(HeatmapTest, AxesAreThePairTheCandidatesCoverMost) {
  // mr moves with mc (3 value pairs); nc is free of both (mc x nc: 6).
  std::vector<SpacePoint> points = {
      {Tiled(32, 4, 256), 4e-6},  {Tiled(32, 4, 512), 3e-6},
      {Tiled(64, 8, 256), 2e-6},  {Tiled(64, 8, 512), std::nullopt},
      {Tiled(96, 12, 256), 5e-6}, {Tiled(96, 12, 512), std::nullopt},
      {Tiled(96, 12, 512), 7e-6},
      // Another kind is not part of this map.
      {KernelConfig("cpu_loop", {{"vector_width", 8}, {"unroll", 2}}), 1e-6},
  };
  std::optional<Heatmap> h = BuildHeatmap(points, "cpu_gemm");
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->row_param, "mc");
  EXPECT_EQ(h->col_param, "nc");
  EXPECT_EQ(h->row_values, (std::vector<int64_t>{32, 64, 96}));
  EXPECT_EQ(h->col_values, (std::vector<int64_t>{256, 512}));
  EXPECT_EQ(h->points, 7);
  EXPECT_EQ(h->cells[0][1].best_seconds, 3e-6);
  EXPECT_EQ(h->cells[0][1].candidates, 1);
  EXPECT_EQ(h->cells[1][1].failed, 1);
  EXPECT_FALSE(h->cells[1][1].best_seconds.has_value());
  EXPECT_EQ(h->cells[2][1].best_seconds, 7e-6);  // one of two failed
  EXPECT_EQ(h->cells[2][1].candidates, 2);
  EXPECT_EQ(h->cells[2][1].failed, 1);
  // Equal cover: the pair earlier in the kind's order (mc x mr before nc).
  std::optional<Heatmap> tie = BuildHeatmap(
      {{Tiled(32, 4, 256), 1e-6}, {Tiled(64, 8, 512), 1e-6}}, "cpu_gemm");
  ASSERT_TRUE(tie.has_value());
  EXPECT_EQ(tie->row_param, "mc");
  EXPECT_EQ(tie->col_param, "mr");
  EXPECT_EQ(tie->cells[0][1].candidates, 0);  // not in the space
  // One varying parameter: no map.
  EXPECT_FALSE(BuildHeatmap({{Gemm(32, 256, 128), 1e-6}, {Gemm(64, 256, 128), 2e-6}},
                            "cpu_gemm").has_value());
  EXPECT_FALSE(BuildHeatmap(points, "cpu_loop").has_value());
}

TEST(ChartsTest, HeatmapCellsAreColouredByRatioAndMarked) {
  std::vector<SpacePoint> points = {{Gemm(32, 256, 128), 2e-6}, {Gemm(32, 512, 128), 8e-6},
                                    {Gemm(64, 256, 128), std::nullopt}};
  std::optional<Heatmap> h = BuildHeatmap(points, "cpu_gemm");
  ASSERT_TRUE(h.has_value());
  KernelConfig chosen = Gemm(32, 256, 128), def = Gemm(32, 512, 128);
  std::string svg = HeatmapSvg(*h, 2e-6, &chosen, &def);
  EXPECT_EQ(Count(svg, "<g class=\"cell"), 4);
  EXPECT_EQ(Count(svg, "<g class=\"cell chosen\">"), 1);
  EXPECT_EQ(Count(svg, "<g class=\"cell default\">"), 1);
  EXPECT_EQ(Count(svg, "<g class=\"cell failed\">"), 1);
  EXPECT_EQ(Count(svg, "<g class=\"cell empty\">"), 1);
  EXPECT_THAT(svg, HasSubstr("fill=\"#1a9850\""));  // 1x: green
  EXPECT_THAT(svg, HasSubstr("fill=\"#d73027\""));  // 4x: red
  EXPECT_THAT(svg, HasSubstr(">4.00</text>"));
}

TEST(ChartsTest, DistributionDrawsEverySampleAndMarksRoles) {
  std::vector<DistributionRow> rows(2);
  rows[0] = {"cpu_gemm:mc=32", {1e-6, 1.1e-6, 1.2e-6}, 1.1e-6, true, false, true};
  rows[1] = {"cpu_gemm:mc=64", {2e-6, 9e-6}, 2e-6, false, true, false};
  std::string svg = DistributionSvg(rows);
  EXPECT_EQ(Count(svg, "<circle class=\"sample\""), 5);
  EXPECT_THAT(svg, HasSubstr("<g class=\"cand chosen best\">"));
  EXPECT_THAT(svg, HasSubstr("<g class=\"cand default\">"));
  EXPECT_THAT(svg, HasSubstr("time (log scale)"));  // 1 us .. 9 us
  EXPECT_THAT(svg, HasSubstr(">1.10 us<tspan class=\"tags\"> chosen best</tspan>"));
}

constexpr char kDevice[] = "CPU: test";
constexpr char kHloA[] = "{\n  tmp_0 = f32[8,8]{1,0} parameter(0)\n  ROOT tmp_1 = f32[8,8]{1,0} negate(f32[8,8]{1,0} tmp_0)\n}";
constexpr char kHloB[] = "{\n  tmp_0 = f32[4]{0} parameter(0)\n  ROOT tmp_1 = f32[4]{0} exponential(f32[4]{0} tmp_0)\n}";

std::string Candidate(const std::string& config, int64_t nanos, const std::string& failure = "") {
  std::string c = absl::StrCat("candidates { config: \"", config, "\"");
  if (failure.empty()) {
    absl::StrAppend(&c, " run_time { nanos: ", nanos, " } samples { nanos: ", nanos,
                    " } samples { nanos: ", nanos + 100, " }");
  } else {
    absl::StrAppend(&c, " failure { kind: WRONG_RESULT msg: \"", failure,
                    "\" xtune_reason: WRONG_RESULT }");
  }
  return c + " }\n";
}

ReportInputs Inputs() {
  ReportInputs in;
  in.cache_name = "cache.textproto";
  in.codegen_version = 4;
  in.this_device = kDevice;
  std::string text = absl::StrCat(
      "logs { fusion: \"gemm_fusion\" key: ",
      "\"", absl::CEscape(AutotuneKey{kDevice, kHloA, 4}.ToString()), "\"\n",
      Candidate("cpu_gemm:mc=32,nc=256,kc=128", 2000),
      Candidate("cpu_gemm:mc=32,nc=512,kc=128", 3000),
      Candidate("cpu_gemm:mc=64,nc=256,kc=128", 4000),
      Candidate("cpu_gemm:mc=64,nc=512,kc=128", 0, "<script>alert(1)</script> differs"),
      "selected: \"cpu_gemm:mc=32,nc=256,kc=128\" default_config: \"cpu_gemm:mc=32,nc=512,kc=128\" "
      "noise_band: 0.02 }\n",
      "logs { fusion: \"loop_fusion.7\" key: \"",
      absl::CEscape(AutotuneKey{kDevice, kHloB, 4}.ToString()), "\"\n",
      Candidate("cpu_loop:vector_width=8,unroll=1", 500),
      Candidate("cpu_loop:vector_width=8,unroll=2", 400),
      "selected: \"cpu_loop:vector_width=8,unroll=2\" default_config: "
      "\"cpu_loop:vector_width=8,unroll=1\" }\n");
  absl::StatusOr<logs::TuningLogs> logs = ParseTuningLogs(text, "log.textproto");
  EXPECT_TRUE(logs.ok()) << logs.status();
  in.logs.push_back({"log.textproto", *logs});
  // The cache holds the first fusion's result and a stale entry.
  auto* e = in.cache.add_results();
  e->set_device(kDevice);
  e->set_hlo(kHloA);
  e->set_version(4);
  e->mutable_result()->mutable_run_time()->set_nanos(2000);
  e->mutable_result()->mutable_cpu_gemm()->set_mc(32);
  e->mutable_result()->mutable_cpu_gemm()->set_nc(256);
  e->mutable_result()->mutable_cpu_gemm()->set_kc(128);
  auto* old = in.cache.add_results();
  *old = *e;
  old->set_version(2);
  old->set_hlo(kHloB);
  return in;
}

TEST(ReportPageTest, ShowsEveryFusionTheChoiceAndTheCache) {
  std::string page = RenderReport(Inputs());
  // Self-contained: the policy forbids every request, and nothing names one.
  EXPECT_THAT(page, HasSubstr("content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\""));
  std::string no_xmlns = std::regex_replace(page, std::regex("xmlns=\"http://www.w3.org/2000/svg\"|http-equiv="), "");
  EXPECT_THAT(no_xmlns, Not(HasSubstr("http")));
  EXPECT_THAT(no_xmlns, Not(HasSubstr("src=")));
  EXPECT_THAT(page, Not(HasSubstr("<script")));
  EXPECT_THAT(page, HasSubstr("&lt;script&gt;alert(1)&lt;/script&gt; differs"));
  // Both fusions, each with its section and distribution rows.
  EXPECT_THAT(page, HasSubstr("data-fusion=\"gemm_fusion\""));
  EXPECT_THAT(page, HasSubstr("data-fusion=\"loop_fusion.7\""));
  EXPECT_EQ(Count(page, "<g class=\"cand"), 5);
  EXPECT_EQ(Count(page, "<circle class=\"sample\""), 10);
  // Chosen 2 us against the default's 3 us; the loop fusion's 500 -> 400 ns.
  EXPECT_THAT(page, HasSubstr("<td class=\"num\">1.50x</td>"));
  EXPECT_THAT(page, HasSubstr("<td class=\"num\">1.25x</td>"));
  EXPECT_THAT(page, HasSubstr("<b>1.37x</b>chosen over default (geomean)"));
  // The gemm's heatmap: mc x nc, the failed cell grey; the loop varies
  // along one parameter only.
  EXPECT_THAT(page, HasSubstr("Search space: mc &#215; nc"));
  EXPECT_EQ(Count(page, "<g class=\"cell"), 4);
  EXPECT_EQ(Count(page, "<g class=\"cell failed\">"), 1);
  EXPECT_THAT(page, HasSubstr("no kind of candidate varies along two parameters"));
  EXPECT_THAT(page, HasSubstr("<td>WRONG_RESULT</td>"));
  // The cache: the gemm stored, the loop fusion missing, one stale entry.
  EXPECT_THAT(page, HasSubstr("In the cache: <code>cpu_gemm"));
  EXPECT_EQ(Count(page, "Not in the cache."), 1);
  EXPECT_THAT(page, HasSubstr("<b>1</b>stale entries"));
  EXPECT_THAT(page, HasSubstr("version 2 (stale)"));
  EXPECT_THAT(page, HasSubstr("version 4 (this build)"));
  EXPECT_THAT(page, HasSubstr("CPU: test (this machine)"));
  // Deterministic.
  EXPECT_EQ(page, RenderReport(Inputs()));
}

TEST(ReportPageTest, ACacheAloneAndAStaleLog) {
  ReportInputs in = Inputs();
  in.logs.clear();
  std::string page = RenderReport(in);
  EXPECT_THAT(page, Not(HasSubstr("data-fusion=")));
  EXPECT_THAT(page, HasSubstr("<b>2</b>cache entries"));
  EXPECT_THAT(page, HasSubstr("1 stale entries"));
  // A log from another codegen version is stale.
  in = Inputs();
  in.codegen_version = 5;
  page = RenderReport(in);
  EXPECT_EQ(Count(page, "Stale: tuned with codegen version 4; this build is version 5"), 2);
}

TEST(ReportPageTest, CheckedOnlyLogsSayTheirTimesAreTheEmulators) {
  ReportInputs in = Inputs();
  logs::FusionLog* log = in.logs[0].logs.mutable_logs(0);
  log->set_checked_only(true);
  log->clear_selected();
  std::string page = RenderReport(in);
  EXPECT_EQ(Count(page, "Checked, not timed"), 1);
  // Nothing chosen: no row or cell is marked chosen, the default is.
  EXPECT_EQ(Count(page, "<g class=\"cell chosen"), 0);
  EXPECT_EQ(Count(page, "<g class=\"cell default\">"), 1);
  EXPECT_EQ(Count(page, "<g class=\"cand chosen"), 1);  // the loop fusion's
}

TEST(ReportPageTest, ABadLogNamesTheFileAndLine) {
  EXPECT_THAT(ParseTuningLogs("logs {\n  fusion: \"a\"\n  bogus: 1\n}\n", "run.log"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("run.log:3:")));
  EXPECT_THAT(ParseTuningLogs("logs { fusion: ", "x"),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace xtune::report
