// The cost model on its own (predictions and what it keeps), and the
// autotuner pruning with it (fake backend and profiler).
#include "autotune/cost_model.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "autotune/autotune_test_util.h"
#include "autotune/autotuner.h"
#include "codegen/fake_backend.h"
#include "codegen/fake_profiler.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/parser.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::xtune::testing::IsOk;

// A module whose root is `f32[rows,cols] tanh(p)`: the root stands for a
// fusion of that size.
struct Sized {
  std::unique_ptr<Module> module;
  const Instruction& fusion() const { return *module->entry()->root(); }
};
Sized Of(int rows, int cols) {
  const std::string s = absl::StrCat("f32[", rows, ",", cols, "]");
  auto m = ParseModule(absl::StrCat("HloModule m\nENTRY e {\n  p = ", s,
                                    " parameter(0)\n  ROOT t = ", s,
                                    " tanh(p)\n}\n"));
  EXPECT_THAT(m, IsOk());
  return {std::move(*m)};
}

// Row-reduction-like configs whose rows_per_task list depends on the shape
// (rows / 8 and rows) while vector_width does not.
std::vector<KernelConfig> Configs(int rows) {
  std::vector<KernelConfig> out;
  for (int vw : {1, 16}) {
    for (int rpt : {rows / 8, rows}) {
      out.push_back(KernelConfig("row", {{"vector_width", vw}, {"rows_per_task", rpt}}));
    }
  }
  return out;
}

// Measured: vector width 1 is 10x, few rows a task 3x (on top).
std::vector<std::optional<double>> Times(double best) {
  return {30 * best, 10 * best, 3 * best, best};
}

std::vector<CostModel::Measurement> Measured(
    const std::vector<KernelConfig>& configs,
    const std::vector<std::optional<double>>& seconds) {
  std::vector<CostModel::Measurement> out;
  for (size_t i = 0; i < configs.size(); ++i) out.push_back({configs[i], seconds[i]});
  return out;
}

TEST(CostModelTest, NoPredictionWithoutSupport) {
  CostModel model;
  Sized a = Of(48, 64);
  EXPECT_THAT(model.Predict(a.fusion(), Configs(48)),
              ElementsAre(std::nullopt, std::nullopt, std::nullopt, std::nullopt));
  model.Observe(a.fusion(), Configs(48), Measured(Configs(48), Times(1e-5)));
  // One measured fusion is not enough (min_support 2).
  Sized b = Of(56, 64);
  for (const auto& p : model.Predict(b.fusion(), Configs(56))) EXPECT_FALSE(p);
}

TEST(CostModelTest, RatiosCarryOverToShapeDependentParameters) {
  CostModel model;
  Sized a = Of(48, 64), b = Of(64, 64), c = Of(56, 80);
  model.Observe(a.fusion(), Configs(48), Measured(Configs(48), Times(1e-5)));
  model.Observe(b.fusion(), Configs(64), Measured(Configs(64), Times(3e-5)));  // other times, same ratios
  EXPECT_EQ(model.fusions(), 2);
  // rows_per_task of c are {7, 56}: matched by position to {6, 48} and {8, 64}.
  std::vector<std::optional<double>> p = model.Predict(c.fusion(), Configs(56));
  ASSERT_EQ(p.size(), 4u);
  for (const auto& x : p) ASSERT_TRUE(x.has_value());
  EXPECT_NEAR(*p[0], 30, 0.5);
  EXPECT_NEAR(*p[1], 10, 0.2);
  EXPECT_NEAR(*p[2], 3, 0.1);
  EXPECT_NEAR(*p[3], 1, 0.02);
  // A failed candidate counts as 100x.
  CostModel failing;
  std::vector<std::optional<double>> t = Times(1e-5);
  t[2] = std::nullopt;
  failing.Observe(a.fusion(), Configs(48), Measured(Configs(48), t));
  failing.Observe(b.fusion(), Configs(64), Measured(Configs(64), t));
  EXPECT_NEAR(*failing.Predict(c.fusion(), Configs(56))[2], 100, 1);
  // A candidate that came close once is predicted by that (the smallest
  // ratio), however slow elsewhere.
  CostModel once;
  std::vector<std::optional<double>> near = Times(1e-5);
  near[2] = 1.1e-5;
  once.Observe(a.fusion(), Configs(48), Measured(Configs(48), near));
  once.Observe(b.fusion(), Configs(64), Measured(Configs(64), Times(1e-5)));
  EXPECT_NEAR(*once.Predict(c.fusion(), Configs(56))[2], 1.1, 0.01);
  // A candidate pruned from a measured fusion still places the others (its
  // neighbour is not taken for it), and predicts nothing itself.
  CostModel pruned;
  for (int rows : {48, 64}) {
    std::vector<CostModel::Measurement> some = Measured(Configs(rows), Times(1e-5));
    some.erase(some.begin() + 1);
    pruned.Observe(rows == 48 ? a.fusion() : b.fusion(), Configs(rows), some);
  }
  std::vector<std::optional<double>> q = pruned.Predict(c.fusion(), Configs(56));
  EXPECT_FALSE(q[1].has_value());
  ASSERT_TRUE(q[2].has_value());
  EXPECT_NEAR(*q[2], 3, 0.1);
}

TEST(CostModelTest, FusionsOfAnotherSizeOrKindDoNotPredict) {
  CostModel model;
  Sized a = Of(48, 64), b = Of(64, 64);
  model.Observe(a.fusion(), Configs(48), Measured(Configs(48), Times(1e-5)));
  model.Observe(b.fusion(), Configs(64), Measured(Configs(64), Times(1e-5)));
  // 4096x as large: weight exp(-(12^2+12^2)/4.5), below min_weight.
  Sized huge = Of(48 * 64, 64 * 64);
  for (const auto& p : model.Predict(huge.fusion(), Configs(48 * 64))) {
    EXPECT_FALSE(p);
  }
  // Another config kind has no measurements.
  std::vector<KernelConfig> other = {KernelConfig("col", {{"vector_width", 1}})};
  EXPECT_FALSE(model.Predict(a.fusion(), other)[0]);
  // Configs with other parameters (another generator) have none either.
  std::vector<KernelConfig> extra = {
      KernelConfig("row", {{"vector_width", 1}, {"rows_per_task", 6}, {"unroll", 2}})};
  EXPECT_FALSE(model.Predict(a.fusion(), extra)[0]);
}

TEST(CostModelTest, KeepsTheBestPredictedAndTheAlwaysKept) {
  CostModel model;
  // Predicted 1.0, 1.2, 2, 10, 20, none; index 4 always kept.
  std::vector<std::optional<double>> p = {1.0, 1.2, 2.0, 10.0, 20.0, std::nullopt};
  std::vector<bool> always = {false, false, false, false, true, false};
  // Within 1.5: 0 and 1; min_kept (3) adds 2; 4 always; 5 unknown.
  EXPECT_THAT(model.Keep(p, always),
              ElementsAre(true, true, true, false, true, true));
  CostModelOptions strict;
  strict.min_kept = 1;
  EXPECT_THAT(CostModel(strict).Keep(p, always),
              ElementsAre(true, true, false, false, true, true));
}

// Six loop fusions of different sizes (so six keys); the fake backend
// offers six candidates to each. Two are ten and twenty times the best:
// the first window of four fusions is compiled in full, the last two
// without them.
std::unique_ptr<Module> SixLoops(int first_cols = 16) {
  std::string text = "HloModule m\nENTRY e {\n";
  std::string outs, shapes;
  for (int i = 0; i < 6; ++i) {
    const std::string s = absl::StrCat("f32[8,", first_cols + 4 * i, "]");
    absl::StrAppend(&text, "  p", i, " = ", s, " parameter(", i, ")\n  t", i, " = ", s,
                    " tanh(p", i, ")\n");
    absl::StrAppend(&outs, i ? ", " : "", "t", i);
    absl::StrAppend(&shapes, i ? ", " : "", s);
  }
  absl::StrAppend(&text, "  ROOT r = (", shapes, ") tuple(", outs, ")\n}\n");
  auto m = ParseModule(text);
  EXPECT_THAT(m, IsOk());
  auto fused = FuseModule(**m);
  EXPECT_THAT(fused, IsOk());
  return std::move(*fused);
}

TEST(CostModelTest, AutotunerPrunesWhatMeasuredFusionsPredictHopeless) {
  auto run = [](AutotuneOptions o, FakeBackend& backend) {
    std::unique_ptr<Module> m = SixLoops();
    InMemoryAutotuneCache cache;
    FakeProfiler profiler;
    profiler.SetSamples(C(2).ToString(), {0.5e-3, 0.5e-3, 0.5e-3});
    profiler.SetSamples(C(3).ToString(), {0.55e-3, 0.55e-3, 0.55e-3});
    profiler.SetSamples(C(4).ToString(), {0.6e-3, 0.6e-3, 0.6e-3});
    profiler.SetSamples(C(5).ToString(), {5e-3, 5e-3, 5e-3});
    profiler.SetSamples(C(6).ToString(), {10e-3, 10e-3, 10e-3});
    o.dump_logs_to = "";
    Autotuner tuner(&backend, &cache, &profiler, o);
    absl::StatusOr<TuningResult> r = tuner.Tune(*m);
    EXPECT_THAT(r, IsOk());
    for (const FusionTuning& ft : r->fusions) EXPECT_EQ(ft.config, C(2));
    return std::move(*r);
  };
  std::vector<FakeCandidate> six = {{C(1)}, {C(2)}, {C(3)}, {C(4)}, {C(5)}, {C(6)}};
  FakeBackend pruning(six);
  TuningResult r = run(Options(), pruning);
  EXPECT_EQ(r.stats.unique, 6);
  EXPECT_EQ(r.stats.pruned, 4);  // C(5) and C(6) of the last two fusions
  EXPECT_EQ(pruning.compilations(), 4 * 6 + 2 * 4);
  EXPECT_EQ(r.stats.compiled, 32);
  EXPECT_THAT(r.stats.ToString(), HasSubstr("4 pruned by the cost model"));
  ASSERT_EQ(r.logs.size(), 6u);
  EXPECT_TRUE(r.logs[3].pruned.empty());
  ASSERT_EQ(r.logs[5].pruned.size(), 2u);
  EXPECT_EQ(r.logs[5].pruned[0].config, C(5));
  EXPECT_NEAR(r.logs[5].pruned[0].predicted_ratio, 10, 0.5);
  EXPECT_THAT(TuningLogsToText(r.logs),
              HasSubstr("pruned { config: \"fake:x=6\" predicted_ratio: 20 }"));

  // Off, and under the exhaustive search, every candidate is compiled.
  AutotuneOptions off = Options();
  off.cost_model = false;
  FakeBackend all(six);
  EXPECT_EQ(run(off, all).stats.pruned, 0);
  EXPECT_EQ(all.compilations(), 36);
  AutotuneOptions exhaustive = Options();
  exhaustive.exhaustive = true;
  FakeBackend every(six);
  EXPECT_EQ(run(exhaustive, every).stats.pruned, 0);
  EXPECT_EQ(every.compilations(), 36);
}

TEST(CostModelTest, SampleSurvivesTheCacheEntry) {
  Sized a = Of(64, 128);
  CostModel::Sample sample;
  FusionSize(a.fusion(), sample.size);
  sample.generated = Configs(64);
  // The first failed, the last was pruned (not compiled).
  sample.measured = Measured({sample.generated.begin(), sample.generated.end() - 1},
                             {std::nullopt, 4e-3, 2e-3});
  xla::AutotuneResult::CostModelSample proto = CostModel::ToProto(sample);
  ASSERT_EQ(proto.candidates_size(), 4);
  EXPECT_EQ(proto.candidates(0).config(), "row:vector_width=1,rows_per_task=8");
  EXPECT_EQ(proto.candidates(0).ratio(), 0);
  EXPECT_FALSE(proto.candidates(0).pruned());
  EXPECT_DOUBLE_EQ(proto.candidates(1).ratio(), 2);
  EXPECT_DOUBLE_EQ(proto.candidates(2).ratio(), 1);
  EXPECT_TRUE(proto.candidates(3).pruned());
  EXPECT_NEAR(proto.log2_output_elements(), 13, 1e-3);

  absl::StatusOr<CostModel::Sample> back = CostModel::FromProto(proto);
  ASSERT_THAT(back, IsOk());
  EXPECT_EQ(back->generated, sample.generated);
  ASSERT_EQ(back->measured.size(), 3u);
  EXPECT_FALSE(back->measured[0].seconds.has_value());
  EXPECT_EQ(back->measured[1].seconds, 2.0);
  EXPECT_EQ(back->measured[2].config, sample.generated[2]);

  // Two fusions learnt from stored samples predict like measured ones.
  CostModel model;
  for (int rows : {64, 128}) {
    Sized f = Of(rows, 128);
    CostModel::Sample s;
    FusionSize(f.fusion(), s.size);
    s.generated = Configs(rows);
    s.measured = Measured(s.generated, Times(1e-3));
    absl::StatusOr<CostModel::Sample> stored = CostModel::FromProto(CostModel::ToProto(s));
    ASSERT_THAT(stored, IsOk());
    model.Observe(*stored);
  }
  Sized b = Of(96, 128);
  std::vector<std::optional<double>> p = model.Predict(b.fusion(), Configs(96));
  ASSERT_TRUE(p[0].has_value());
  EXPECT_NEAR(*p[0], 30, 1e-6);
  EXPECT_NEAR(*p[3], 1, 1e-6);

  // A damaged sample is an error, not a crash or a wrong model.
  proto.mutable_candidates(1)->set_config("row:vector_width");
  EXPECT_THAT(CostModel::FromProto(proto).status(),
              ::xtune::testing::StatusIs(absl::StatusCode::kInvalidArgument));
  proto.mutable_candidates(1)->set_config("row:vector_width=16,rows_per_task=8");
  proto.mutable_candidates(1)->set_ratio(-1);
  EXPECT_THAT(CostModel::FromProto(proto).status(),
              ::xtune::testing::StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(CostModelTest, LoadedCacheSeedsTheModelBeforeTheFirstFusion) {
  std::vector<FakeCandidate> six = {{C(1)}, {C(2)}, {C(3)}, {C(4)}, {C(5)}, {C(6)}};
  auto profiler = [] {
    auto p = std::make_unique<FakeProfiler>();
    p->SetSamples(C(2).ToString(), {0.5e-3, 0.5e-3, 0.5e-3});
    p->SetSamples(C(5).ToString(), {5e-3, 5e-3, 5e-3});
    p->SetSamples(C(6).ToString(), {10e-3, 10e-3, 10e-3});
    return p;
  };
  AutotuneOptions o = Options();
  o.dump_logs_to = "";
  o.record_candidates = true;  // the fake's key is XLA's: provenance on ask
  InMemoryAutotuneCache cache;
  {
    FakeBackend backend(six);
    auto p = profiler();
    Autotuner tuner(&backend, &cache, p.get(), o);
    ASSERT_THAT(tuner.Tune(*SixLoops()), IsOk());
  }
  xla::AutotuneResults dumped = cache.Dump();
  ASSERT_EQ(dumped.results_size(), 6);
  const auto& stored = dumped.results(0).result().xtune_provenance().cost_model();
  ASSERT_EQ(stored.candidates_size(), 6);
  EXPECT_EQ(stored.candidates(1).ratio(), 1);

  // A cache file with those entries, loaded for another module's fusions
  // (other sizes, so other keys): pruned from its first fusion.
  InMemoryAutotuneCache loaded;
  ASSERT_THAT(loaded.Load(dumped, "test.textproto", 0), IsOk());
  FakeBackend backend(six);
  auto p = profiler();
  Autotuner tuner(&backend, &loaded, p.get(), o);
  absl::StatusOr<TuningResult> r = tuner.Tune(*SixLoops(18));
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->stats.tuned, 6);
  EXPECT_EQ(r->stats.model_seeded, 6);
  EXPECT_EQ(r->stats.pruned, 12);
  EXPECT_EQ(backend.compilations(), 6 * 4);
  EXPECT_THAT(r->stats.ToString(),
              HasSubstr("12 pruned by the cost model (fit on 6 cached fusions too)"));
  for (const FusionTuning& ft : r->fusions) EXPECT_EQ(ft.config, C(2));

  // Entries of another device teach nothing.
  InMemoryAutotuneCache other;
  ASSERT_THAT(other.Load(dumped, "test.textproto", 0), IsOk());
  FakeBackend elsewhere(six, 0, "FAKE: another device");
  auto q = profiler();
  Autotuner fresh(&elsewhere, &other, q.get(), o);
  absl::StatusOr<TuningResult> r2 = fresh.Tune(*SixLoops(18));
  ASSERT_THAT(r2, IsOk());
  EXPECT_EQ(r2->stats.model_seeded, 0);
  EXPECT_EQ(r2->stats.pruned, 4);
}

}  // namespace
}  // namespace xtune
