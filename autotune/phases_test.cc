// Each phase of the autotuner on its own, with the fake backend, profiler
// and store.
#include "autotune/phases.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "autotune/autotune_test_util.h"
#include "codegen/fake_backend.h"
#include "codegen/fake_profiler.h"
#include "fusion/fusion_pass.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/parser.h"
#include "util/mutex.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

KernelConfig Lib() { return KernelConfig("fake_blas", {{"threads", 1}}); }

ProfileOptions Quick() {
  ProfileOptions p;
  p.min_repetitions = 2;
  return p;
}

struct Fixture {
  std::unique_ptr<Module> module = Fused();
  TuningResult result;
  std::vector<KeyGroup> groups;
  InMemoryAutotuneCache cache;
  FakeProfiler profiler;
  explicit Fixture(const Backend& backend) {
    groups = GroupFusions(backend, *module, {}, &result);
  }
  const KeyGroup& gemm() const { return groups[0]; }
};

TEST(PhasesTest, GroupFusionsByKeyInEntryOrder) {
  FakeBackend backend({{C(1)}});
  std::unique_ptr<Module> m = Fused();
  TuningResult result;
  absl::flat_hash_map<std::string, KernelConfig> forced;
  std::vector<KeyGroup> all = GroupFusions(backend, *m, forced, &result);
  ASSERT_EQ(all.size(), 2u);  // the two gemms are one group
  EXPECT_THAT(all[0].members, ElementsAre(0, 1));
  EXPECT_THAT(all[1].members, ElementsAre(2));
  EXPECT_EQ(all[0].key.device, "FAKE: test device");
  // A forced fusion is not grouped, and counts as overridden.
  TuningResult forced_result;
  forced[result.fusions[2].fusion->name()] = C(9);
  std::vector<KeyGroup> rest =
      GroupFusions(backend, *m, forced, &forced_result);
  EXPECT_EQ(rest.size(), 1u);
  EXPECT_EQ(forced_result.fusions[2].config, C(9));
  EXPECT_EQ(forced_result.stats.overrides, 1);
}

TEST(PhasesTest, DecideTakesOverridesDefaultsCacheAndMisses) {
  FakeBackend backend({{KernelConfig("fake", {{"block_m", 1}})}});
  Fixture fx(backend);
  AutotuneOptions o = Options();
  TuningStats stats;
  // Nothing cached: tune.
  ASSERT_OK_AND_ASSIGN(Decision d,
                       Decide(backend, fx.cache, o, fx.gemm(), &stats));
  EXPECT_EQ(d.kind, Decision::Kind::kTune);
  // Required but missing.
  o.require_complete = true;
  ASSERT_OK_AND_ASSIGN(d, Decide(backend, fx.cache, o, fx.gemm(), &stats));
  EXPECT_EQ(d.kind, Decision::Kind::kMissing);
  // Cached: a hit counted by tier.
  xla::AutotuneResult stored;
  ASSERT_THAT(backend.ConfigToResult(KernelConfig("fake", {{"block_m", 1}}),
                                     &stored),
              IsOk());
  ASSERT_THAT(fx.cache.Insert(fx.gemm().key, stored), IsOk());
  ASSERT_OK_AND_ASSIGN(d, Decide(backend, fx.cache, o, fx.gemm(), &stats));
  EXPECT_EQ(d.kind, Decision::Kind::kDecided);
  EXPECT_EQ(d.source, ConfigSource::kCache);
  EXPECT_EQ(stats.hits_by_tier["memory"], 1);
  // Level 0: the default, whatever the cache holds.
  o.level = 0;
  ASSERT_OK_AND_ASSIGN(d, Decide(backend, fx.cache, o, fx.gemm(), &stats));
  EXPECT_EQ(d.source, ConfigSource::kDefault);
  // The gemm override, read by the backend.
  o.override_gemm = "block_m: 64";
  ASSERT_OK_AND_ASSIGN(d, Decide(backend, fx.cache, o, fx.gemm(), &stats));
  EXPECT_EQ(d.source, ConfigSource::kOverride);
  EXPECT_EQ(d.config.Get("block_m"), 64);
  EXPECT_EQ(stats.overrides, 1);
  EXPECT_EQ(stats.defaults, 1);
}

TEST(PhasesTest, TuningCandidatesFollowTheLibraryFlagAndKeepTheDefault) {
  FakeBackend backend({{C(1)}, {Lib()}}, /*default_index=*/0);
  Fixture fx(backend);
  AutotuneOptions o = Options();
  EXPECT_THAT(TuningCandidates(backend, *fx.gemm().first, o),
              ElementsAre(C(1), Lib()));
  o.library_fallback = false;
  EXPECT_THAT(TuningCandidates(backend, *fx.gemm().first, o),
              ElementsAre(C(1)));
  // The exhaustive space when asked.
  backend.SetExhaustiveExtras({{C(0)}});
  o.exhaustive = true;
  EXPECT_THAT(TuningCandidates(backend, *fx.gemm().first, o),
              ElementsAre(C(0), C(1)));
}

TEST(PhasesTest, MakeTrialTimesLibraryCallsFirst) {
  FakeBackend backend({{C(1)}, {Lib()}});
  Fixture fx(backend);
  Trial t = MakeTrial(backend, fx.gemm(), {C(1), Lib()}, 4);
  EXPECT_THAT(t.order, ElementsAre(1, 0));
  EXPECT_EQ(t.inputs.size(), 2u);
  EXPECT_NE(t.inputs[0].GetDouble(0), 0.0);  // pseudo-random at level >= 2
  Trial zeros = MakeTrial(backend, fx.gemm(), {C(1)}, 1);
  EXPECT_EQ(zeros.inputs[0].GetDouble(0), 0.0);
}

TEST(PhasesTest, CompileTrialsCompilesEveryCandidate) {
  FakeBackend backend({{C(1)}, {C(2), FakeBehavior::kCompileError}});
  Fixture fx(backend);
  std::vector<Trial> trials;
  trials.push_back(MakeTrial(backend, fx.groups[0], {C(1), C(2)}, 4));
  trials.push_back(MakeTrial(backend, fx.groups[1], {C(1)}, 4));
  int64_t last = 0;
  CompileTrials(backend, absl::MakeSpan(trials), 2, [&](int64_t done, int64_t total) {
    EXPECT_EQ(total, 3);
    last = std::max(last, done);
  });
  EXPECT_EQ(last, 3);
  EXPECT_THAT(trials[0].kernels[0], IsOk());
  EXPECT_FALSE(trials[0].kernels[1].ok());
  EXPECT_EQ(backend.compilations(), 3);
}

// A fake whose configs with the same x / 10 share code, recording each
// CompileKernels call (calls()) and each CompileCandidate (singles()).
class BatchingBackend : public FakeBackend {
 public:
  using FakeBackend::FakeBackend;
  bool CompilesTogether() const override { return together; }
  bool together = true;
  std::string CodeKey(const Instruction&, const KernelConfig& config) const override {
    return absl::StrCat(config.Get("x", 0) / 10);
  }
  std::vector<absl::StatusOr<std::unique_ptr<Kernel>>> CompileKernels(
      absl::Span<const KernelRequest> requests) override {
    std::vector<int64_t> xs;
    for (const KernelRequest& r : requests) xs.push_back(r.config.Get("x", 0));
    Record(&calls_, requests.front().fusion->name(), xs);
    return FakeBackend::CompileKernels(requests);
  }
  absl::StatusOr<std::unique_ptr<Kernel>> CompileCandidate(
      const Instruction& fusion, const KernelConfig& config,
      int64_t candidates) override {
    Record(&singles_, fusion.name(), {config.Get("x", 0)});
    return FakeBackend::CompileCandidate(fusion, config, candidates);
  }
  using Calls = std::vector<std::pair<std::string, std::vector<int64_t>>>;
  Calls calls() { return Sorted(&calls_); }
  Calls singles() { return Sorted(&singles_); }

 private:
  void Record(Calls* to, const std::string& fusion, std::vector<int64_t> xs) {
    MutexLock lock(&mu_);
    to->push_back({fusion, std::move(xs)});
  }
  Calls Sorted(Calls* calls) {
    MutexLock lock(&mu_);
    std::sort(calls->begin(), calls->end());
    return *calls;
  }
  Mutex mu_;
  Calls calls_;
  Calls singles_;
};

// The first config of each code key compile a trial's at a time, the
// others after them (one by one); with fewer trials than threads a
// trial's configs are split in halves.
TEST(PhasesTest, CompileTrialsCompilesEachTrialsCodeTogether) {
  BatchingBackend backend({{C(10)}, {C(11)}, {C(20)}, {C(30)}, {C(40)}});
  Fixture fx(backend);
  std::vector<Trial> trials;
  trials.push_back(MakeTrial(backend, fx.groups[0], {C(10), C(11), C(20), C(30)}, 4));
  trials.push_back(MakeTrial(backend, fx.groups[1], {C(10), C(40)}, 4));
  CompileTrials(backend, absl::MakeSpan(trials), 1, nullptr);  // 2 threads
  const std::string gemm = fx.groups[0].first->name();
  const std::string loop = fx.groups[1].first->name();
  auto calls = backend.calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].first == gemm ? calls[0].second : calls[1].second,
            (std::vector<int64_t>{10, 20, 30}));
  EXPECT_EQ(calls[0].first == loop ? calls[0].second : calls[1].second,
            (std::vector<int64_t>{10, 40}));
  EXPECT_EQ(backend.compilations(), 6);  // C(11) alone, after its key's
  for (const Trial& t : trials) {
    for (const auto& k : t.kernels) EXPECT_THAT(k, IsOk());
  }

  // One trial on two threads: two halves.
  BatchingBackend alone({{C(10)}, {C(20)}, {C(30)}});
  Fixture fx2(alone);
  std::vector<Trial> one;
  one.push_back(MakeTrial(alone, fx2.groups[0], {C(10), C(20), C(30)}, 4));
  CompileTrials(alone, absl::MakeSpan(one), 1, nullptr);
  calls = alone.calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].second, (std::vector<int64_t>{10}));
  EXPECT_EQ(calls[1].second, (std::vector<int64_t>{20, 30}));

  // A backend that does not compile them together gets one at a time.
  BatchingBackend apart({{C(10)}, {C(20)}, {C(30)}});
  apart.together = false;
  Fixture fx3(apart);
  std::vector<Trial> three;
  three.push_back(MakeTrial(apart, fx3.groups[0], {C(10), C(20), C(30)}, 4));
  CompileTrials(apart, absl::MakeSpan(three), 1, nullptr);
  EXPECT_TRUE(apart.calls().empty());
  calls = apart.singles();
  ASSERT_EQ(calls.size(), 3u);
  for (const auto& call : calls) EXPECT_EQ(call.second.size(), 1u);
}

TEST(PhasesTest, TimeRoundsRecordsFailuresOnceAndCountsFirstRounds) {
  FakeBackend backend({{C(1)}, {C(2), FakeBehavior::kCompileError}, {C(3)}});
  Fixture fx(backend);
  std::vector<Trial> trials;
  trials.push_back(MakeTrial(backend, fx.gemm(), {C(1), C(2), C(3)}, 4));
  CompileTrials(backend, absl::MakeSpan(trials), 1, nullptr);
  fx.profiler.SetError(C(3).ToString(), absl::AbortedError("crashed"));
  TuningStats stats;
  int ticks = 0;
  ASSERT_THAT(TimeRounds(fx.profiler, trials[0], Quick(), 3, false, 0.03, &stats,
                         [&] { ++ticks; }),
              IsOk());
  Trial& t = trials[0];
  EXPECT_EQ(ticks, 3 + 2);  // C(1) three rounds; C(2), C(3) fail once
  EXPECT_EQ(stats.timed, 1);
  EXPECT_EQ(t.compile_failures, 1);
  EXPECT_FALSE(t.all_unimplemented);
  EXPECT_EQ(t.log.candidates[1].failure, FailureKind::kCompileError);
  EXPECT_EQ(t.log.candidates[2].failure, FailureKind::kCrash);
  EXPECT_EQ(t.timed[0].round_scores.size(), 3u);
  EXPECT_GT(t.medians[0], 0);
  EXPECT_TRUE(t.outputs[0].has_value());
}

// Adaptive timing: a candidate over twice the leader's median after the
// first round is not timed again, one within the band runs every round;
// with the fixed schedule all run every round.
TEST(PhasesTest, AdaptiveTimingStopsCandidatesThatCannotWin) {
  FakeBackend backend({{C(1)}, {C(2)}, {C(3)}});
  for (bool adaptive : {true, false}) {
    Fixture fx(backend);
    fx.profiler.SetSamples(C(1).ToString(), {1.0e-3, 1.0e-3});
    fx.profiler.SetSamples(C(2).ToString(), {1.05e-3, 1.05e-3});
    fx.profiler.SetSamples(C(3).ToString(), {5e-3, 5e-3});
    std::vector<Trial> trials;
    trials.push_back(MakeTrial(backend, fx.gemm(), {C(1), C(2), C(3)}, 4));
    CompileTrials(backend, absl::MakeSpan(trials), 1, nullptr);
    TuningStats stats;
    ASSERT_THAT(TimeRounds(fx.profiler, trials[0], Quick(), 3, adaptive, 0.03, &stats,
                           nullptr),
                IsOk());
    const Trial& t = trials[0];
    EXPECT_EQ(t.timed[0].round_scores.size(), 3u);
    EXPECT_EQ(t.timed[1].round_scores.size(), 3u);
    EXPECT_EQ(t.timed[2].round_scores.size(), adaptive ? 1u : 3u);
    EXPECT_EQ(t.stopped[2], adaptive);
    EXPECT_EQ(stats.stopped_early, adaptive ? 1 : 0);
    EXPECT_EQ(stats.timed, 3);  // every candidate's first round
    EXPECT_TRUE(t.outputs[2].has_value());  // still checked
  }
}

// The schedule a candidate gets: one warm-up run at first; then none for
// kernels over 1 ms, and one repetition once a run outlasts the budget.
TEST(PhasesTest, AdaptedProfileOptionsFollowTheKernelsRunTime) {
  ProfileOptions per_round;
  per_round.min_warmup_runs = 3;
  per_round.min_repetitions = 2;
  per_round.time_budget = absl::Milliseconds(10);
  Timed fresh;
  EXPECT_EQ(AdaptedTo(per_round, fresh).min_warmup_runs, 1);
  EXPECT_EQ(AdaptedTo(per_round, fresh).min_repetitions, 2);
  Timed fast;
  fast.seconds = {20e-6, 21e-6};
  EXPECT_EQ(AdaptedTo(per_round, fast).min_warmup_runs, 3);
  EXPECT_EQ(AdaptedTo(per_round, fast).min_repetitions, 2);
  Timed medium;
  medium.seconds = {2e-3, 2e-3};
  EXPECT_EQ(AdaptedTo(per_round, medium).min_warmup_runs, 0);
  EXPECT_EQ(AdaptedTo(per_round, medium).min_repetitions, 2);
  Timed slow;
  slow.seconds = {1.2, 1.3};
  EXPECT_EQ(AdaptedTo(per_round, slow).min_warmup_runs, 0);
  EXPECT_EQ(AdaptedTo(per_round, slow).min_repetitions, 1);
}

TEST(PhasesTest, TimeRoundsStopsWhenNoWorkerCanRun) {
  FakeBackend backend({{C(1)}});
  Fixture fx(backend);
  std::vector<Trial> trials;
  trials.push_back(MakeTrial(backend, fx.gemm(), {C(1)}, 4));
  CompileTrials(backend, absl::MakeSpan(trials), 1, nullptr);
  fx.profiler.SetError(C(1).ToString(),
                       absl::UnavailableError("no worker program"));
  TuningStats stats;
  EXPECT_THAT(TimeRounds(fx.profiler, trials[0], Quick(), 1, false, 0.03, &stats, nullptr),
              StatusIs(absl::StatusCode::kUnavailable,
                       HasSubstr("cannot time candidates: no worker")));
}

TEST(PhasesTest, VerifyTrialUsesTheLibraryAsReferenceAndPassesOverWrong) {
  FakeBackend backend(
      {{C(1), FakeBehavior::kWrong}, {C(2)}, {Lib(), FakeBehavior::kCorrect}});
  Fixture fx(backend);
  std::vector<Trial> trials;
  trials.push_back(MakeTrial(backend, fx.gemm(), {C(1), C(2), Lib()}, 4));
  CompileTrials(backend, absl::MakeSpan(trials), 1, nullptr);
  TuningStats stats;
  ASSERT_THAT(TimeRounds(fx.profiler, trials[0], Quick(), 1, false, 0.03, &stats, nullptr),
              IsOk());
  AutotuneOptions o = Options();
  ASSERT_THAT(VerifyTrial(backend, o, trials[0], &stats), IsOk());
  EXPECT_TRUE(trials[0].wrong[0]);
  EXPECT_FALSE(trials[0].wrong[1]);
  EXPECT_FALSE(trials[0].timed[0].eligible);
  EXPECT_EQ(stats.wrong, 1);
  o.crash_on_verification_failures = true;
  EXPECT_THAT(VerifyTrial(backend, o, trials[0], &stats),
              StatusIs(absl::StatusCode::kInternal,
                       HasSubstr("verification failed")));
}

TEST(PhasesTest, TimeFinalistsGivesNearEqualsMoreRounds) {
  FakeBackend backend({{C(1)}, {C(2)}, {C(3)}});
  Fixture fx(backend);
  std::vector<Trial> trials;
  trials.push_back(MakeTrial(backend, fx.gemm(), {C(1), C(2), C(3)}, 4));
  CompileTrials(backend, absl::MakeSpan(trials), 1, nullptr);
  fx.profiler.SetSamples(C(1).ToString(), {1.00e-3, 1.00e-3});
  fx.profiler.SetSamples(C(2).ToString(), {1.01e-3, 1.01e-3});
  fx.profiler.SetSamples(C(3).ToString(), {5e-3, 5e-3});  // far behind
  TuningStats stats;
  ASSERT_THAT(TimeRounds(fx.profiler, trials[0], Quick(), 1, false, 0.03, &stats, nullptr),
              IsOk());
  AutotuneOptions o = Options();
  o.final_rounds = 2;
  TimeFinalists(fx.profiler, o, trials[0], Quick());
  EXPECT_EQ(trials[0].timed[0].round_scores.size(), 3u);
  EXPECT_EQ(trials[0].timed[1].round_scores.size(), 3u);
  EXPECT_EQ(trials[0].timed[2].round_scores.size(), 1u);
}

TEST(PhasesTest, ChooseAndRecordStoresTheWinnerWithTheBackendsCodec) {
  FakeBackend backend({{C(1)}, {C(2)}});
  Fixture fx(backend);
  std::vector<Trial> trials;
  trials.push_back(MakeTrial(backend, fx.gemm(), {C(1), C(2)}, 4));
  CompileTrials(backend, absl::MakeSpan(trials), 1, nullptr);
  fx.profiler.SetSamples(C(2).ToString(), {1e-4, 1e-4});
  TuningStats stats;
  ASSERT_THAT(TimeRounds(fx.profiler, trials[0], Quick(), 1, false, 0.03, &stats, nullptr),
              IsOk());
  ASSERT_OK_AND_ASSIGN(
      FusionTuning ft,
      ChooseAndRecord(backend, fx.cache, Options(), trials[0], &stats));
  EXPECT_EQ(ft.config, C(2));
  EXPECT_EQ(ft.source, ConfigSource::kTuned);
  EXPECT_EQ(ft.default_seconds, 1e-3);
  EXPECT_EQ(stats.tuned, 1);
  EXPECT_EQ(stats.compiled, 2);
  auto hit = fx.cache.Lookup(fx.gemm().key);
  ASSERT_THAT(hit, IsOk());
  ASSERT_TRUE(hit->has_value());
  EXPECT_EQ((*hit)->result->other().name(), "fake:x=2");
}

TEST(PhasesTest, ChooseAndRecordWhenEveryCandidateFailed) {
  FakeBackend backend({{C(1), FakeBehavior::kCompileError}});
  Fixture fx(backend);
  std::vector<Trial> trials;
  trials.push_back(MakeTrial(backend, fx.gemm(), {C(1)}, 4));
  CompileTrials(backend, absl::MakeSpan(trials), 1, nullptr);
  TuningStats stats;
  ASSERT_THAT(TimeRounds(fx.profiler, trials[0], Quick(), 1, false, 0.03, &stats, nullptr),
              IsOk());
  EXPECT_THAT(ChooseAndRecord(backend, fx.cache, Options(), trials[0], &stats),
              StatusIs(absl::StatusCode::kInternal,
                       HasSubstr("all 1 candidates failed")));
  EXPECT_EQ(fx.cache.size(), 0);
}

}  // namespace
}  // namespace xtune
