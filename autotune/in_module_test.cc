#include "autotune/in_module.h"

#include "autotune/autotune_test_util.h"
#include "autotune/autotuner.h"
#include "autotune/executable_timer.h"
#include "codegen/cpu/cpu_backend.h"
#include "codegen/fake_backend.h"
#include "codegen/fake_profiler.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/parser.h"
#include "util/file.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

KernelConfig T(int x, int threads) {
  return KernelConfig("fake", {{"x", x}, {"threads", threads}});
}

// The fake backend: HostThreads reads a config's `threads`.
const FakeBackend& Fake() {
  static const FakeBackend* b = new FakeBackend({{C(1)}});
  return *b;
}

// `c` with the fake backend's thread count of each finalist.
InModuleContest WithThreads(InModuleContest c) {
  c.threads.clear();
  for (const KernelConfig& f : c.finalists) c.threads.push_back(Fake().HostThreads(f));
  return c;
}

// A tuned trial over `configs` with these medians (0: failed).
Trial TrialWith(std::vector<KernelConfig> configs, std::vector<double> medians) {
  Trial t;
  t.configs = std::move(configs);
  t.medians = std::move(medians);
  const size_t n = t.configs.size();
  t.failed.assign(n, false);
  t.wrong.assign(n, false);
  t.timed.resize(n);
  for (size_t c = 0; c < n; ++c) {
    t.failed[c] = t.medians[c] == 0;
    if (!t.failed[c]) t.timed[c].seconds = {t.medians[c]};
  }
  return t;
}

TEST(InModuleTest, FinalistsAreTheWinnerTheBestOfOtherThreadCountsAndNearOnes) {
  // Winner x=3 (two threads, 1.0); x=1 and x=2 one thread (1.6, 1.9);
  // x=4 another two-thread one (1.4); x=5 failed; x=6 near but wrong.
  Trial t = TrialWith({T(1, 1), T(2, 1), T(3, 2), T(4, 2), T(5, 1), T(6, 2)},
                      {1.6e-6, 1.9e-6, 1.0e-6, 1.4e-6, 0, 1.1e-6});
  t.wrong[5] = true;
  InModuleOptions o;
  std::optional<InModuleContest> c = ContestOf(Fake(), t, 2, o);
  ASSERT_TRUE(c.has_value());
  // x=1: the best one-thread candidate (within 2x, beyond 1.5x); x=4:
  // within 1.5x; x=2: a second one-thread one, beyond 1.5x.
  EXPECT_THAT(c->finalists, ElementsAre(T(1, 1), T(3, 2), T(4, 2)));
  EXPECT_EQ(c->isolated_winner, 1);
  EXPECT_THAT(c->isolated_medians, ElementsAre(1.6e-6, 1.0e-6, 1.4e-6));
  ASSERT_EQ(c->isolated_seconds.size(), 3u);
  EXPECT_THAT(c->isolated_seconds[0], ElementsAre(1.6e-6));
  // At most max_finalists, the other thread count first.
  o.max_finalists = 2;
  c = ContestOf(Fake(), t, 2, o);
  ASSERT_TRUE(c.has_value());
  EXPECT_THAT(c->finalists, ElementsAre(T(1, 1), T(3, 2)));
  EXPECT_EQ(c->isolated_winner, 1);
  // A one-thread winner gets no two-thread finalists: they could not win.
  Trial one = TrialWith({T(1, 1), T(2, 1), T(3, 2)}, {1.0e-6, 1.2e-6, 1.05e-6});
  c = ContestOf(Fake(), one, 0, InModuleOptions());
  ASSERT_TRUE(c.has_value());
  EXPECT_THAT(c->finalists, ElementsAre(T(1, 1), T(2, 1)));
  Trial only_more = TrialWith({T(1, 1), T(3, 2)}, {1.0e-6, 1.05e-6});
  EXPECT_FALSE(ContestOf(Fake(), only_more, 0, InModuleOptions()).has_value());
  // A two-thread winner always meets the best one-thread candidate, even
  // 3x slower.
  Trial far = TrialWith({T(1, 1), T(2, 1), T(3, 2)}, {3.0e-6, 3.5e-6, 1.0e-6});
  c = ContestOf(Fake(), far, 2, InModuleOptions());
  ASSERT_TRUE(c.has_value());
  EXPECT_THAT(c->finalists, ElementsAre(T(1, 1), T(3, 2)));
  // Nothing close: no contest.
  Trial alone = TrialWith({T(1, 1), T(2, 1)}, {1.0e-6, 1.6e-6});
  EXPECT_FALSE(ContestOf(Fake(), alone, 0, InModuleOptions()).has_value());
}

Timed Runs(std::vector<double> seconds, std::vector<double> rounds) {
  Timed t;
  t.seconds = std::move(seconds);
  t.round_scores = std::move(rounds);
  return t;
}

// InModuleWinner with these module timings, bands and no own times.
int Winner(const InModuleContest& c, std::vector<Timed> module, double min_band,
           double* band = nullptr) {
  InModuleOptions o;
  o.min_band = min_band;
  o.min_margin = 0.02;
  InModuleTiming t;
  t.module = std::move(module);
  return InModuleWinner(c, t, o, band);
}

TEST(InModuleTest, TheIsolatedWinnerStaysUnlessBeatenBeyondTheMargin) {
  InModuleContest c;
  c.finalists = {T(1, 1), T(2, 1), T(3, 2)};
  c.isolated_medians = {1.1e-6, 1e-6, 1.2e-6};
  c.isolated_winner = 1;
  c = WithThreads(c);
  double band = -1;
  // 1.5% faster in the module: within the 2% margin, the winner stays.
  std::vector<Timed> close = {Runs({98.5e-6}, {98.5e-6}), Runs({100e-6}, {100e-6}),
                              Runs({105e-6}, {105e-6})};
  EXPECT_EQ(Winner(c, close, 0.003, &band), 1);
  EXPECT_GE(band, 0);
  // 20% faster: it wins.
  std::vector<Timed> faster = {Runs({80e-6}, {80e-6}), Runs({100e-6}, {100e-6}),
                               Runs({100e-6}, {100e-6})};
  EXPECT_EQ(Winner(c, faster, 0.003), 0);
  // Two beat it clearly and tie with each other: the first in canonical
  // order.
  InModuleContest three = c;
  three.finalists[2] = T(3, 1);
  three = WithThreads(three);
  std::vector<Timed> two = {Runs({80.5e-6}, {80.5e-6}), Runs({100e-6}, {100e-6}),
                            Runs({80e-6}, {80e-6})};
  EXPECT_EQ(Winner(three, two, 0.02), 0);
  // A noisy module (each finalist's rounds 35-40% apart, at different
  // times) needs more than that.
  std::vector<Timed> noisy = {Runs({85e-6}, {70e-6, 100e-6, 85e-6}),
                              Runs({100e-6}, {100e-6, 80e-6, 120e-6}),
                              Runs({100e-6}, {120e-6, 100e-6, 80e-6})};
  EXPECT_EQ(Winner(c, noisy, 0.02), 1);
  // But when a whole pass ran slow for every finalist, that was the
  // machine (LevelRounds): 12-17% faster in each pass wins.
  std::vector<Timed> slow_pass = {Runs({85e-6}, {70e-6, 100e-6}),
                                  Runs({100e-6}, {80e-6, 120e-6}),
                                  Runs({100e-6}, {80e-6, 120e-6})};
  EXPECT_EQ(Winner(c, slow_pass, 0.02), 0);
  // Not to more threads than the isolated winner's: x=3 runs two.
  std::vector<Timed> threads = {Runs({100e-6}, {100e-6}), Runs({100e-6}, {100e-6}),
                                Runs({60e-6}, {60e-6})};
  EXPECT_EQ(Winner(c, threads, 0.003), 1);
  // But from two threads to one, when it is faster...
  InModuleContest two_threads = c;
  two_threads.isolated_winner = 2;
  threads = {Runs({60e-6}, {60e-6}), Runs({120e-6}, {120e-6}),
             Runs({100e-6}, {100e-6})};
  EXPECT_EQ(Winner(two_threads, threads, 0.003), 0);
  // ...or no slower than the band (3%, the floor, here)...
  threads[0] = Runs({101e-6}, {101e-6});
  EXPECT_EQ(Winner(two_threads, threads, 0.03), 0);
  // ...but not when measurably slower.
  threads[0] = Runs({104e-6}, {104e-6});
  EXPECT_EQ(Winner(two_threads, threads, 0.03), 2);
  // The gain must also be over 15% of the winner's own time in the module
  // (40 us here: 5 us is not enough, 8 us is).
  InModuleTiming own;
  own.module = {Runs({95e-6}, {95e-6}), Runs({100e-6}, {100e-6}),
                Runs({100e-6}, {100e-6})};
  own.own = {35e-6, 40e-6, 45e-6};
  InModuleOptions o;
  o.min_band = 0.003;
  EXPECT_EQ(InModuleWinner(c, own, o, nullptr), 1);
  own.module[0] = Runs({92e-6}, {92e-6});
  EXPECT_EQ(InModuleWinner(c, own, o, nullptr), 0);
  // No timing: the isolated winner.
  EXPECT_EQ(Winner(c, {}, 0.02, &band), 1);
  EXPECT_EQ(band, 0);
}

TEST(InModuleTest, MultiThreadedWinnersAndSlowFusionsAreTimedFirst) {
  auto contest = [](KernelConfig winner, double median) {
    InModuleContest c;
    c.finalists = {winner, T(9, 1)};
    c.isolated_medians = {median, median * 1.1};
    c.isolated_winner = 0;
    return WithThreads(c);
  };
  std::vector<InModuleContest> contests = {
      contest(T(1, 1), 5e-6), contest(T(2, 2), 1e-6), contest(T(3, 1), 50e-6),
      contest(T(4, 1), 5e-6), contest(T(5, 2), 9e-6)};
  EXPECT_THAT(InModuleOrder(contests), ElementsAre(4, 1, 2, 0, 3));
}

// The fake backend, timed in the module by a scripted timer.
class InModuleFakeBackend : public FakeBackend {
 public:
  using FakeBackend::FakeBackend;
  bool TimesInModule() const override { return true; }
};

class ScriptedTimer : public ModuleTimer {
 public:
  // The module's run time with each config (others: 100 us).
  std::map<std::string, double> seconds;
  absl::Status start_error;
  int budget_contests = 100;  // contests timed before the budget is spent
  std::vector<std::string> kept;
  std::vector<std::string> started_with;

  absl::Status Start(
      const absl::flat_hash_map<const Instruction*, KernelConfig>& configs,
      const InModuleOptions&) override {
    for (const auto& [f, c] : configs) started_with.push_back(c.ToString());
    return start_error;
  }
  absl::StatusOr<InModuleTiming> Time(const InModuleContest& contest,
                                      int) override {
    InModuleTiming out;
    if (budget_contests-- <= 0) return out;
    for (const KernelConfig& c : contest.finalists) {
      auto it = seconds.find(c.ToString());
      double s = it != seconds.end() ? it->second : 100e-6;
      out.module.push_back(Runs({s, s, s}, {s, s, s}));
      out.own.push_back(s / 10);
    }
    return out;
  }
  absl::Status Keep(const InModuleContest& contest, int index) override {
    if (!keep_error.ok()) return keep_error;
    kept.push_back(contest.finalists[index].ToString());
    return absl::OkStatus();
  }
  void Finish() override { ++finished; }
  absl::Status keep_error;
  int finished = 0;
};

struct Fixture {
  std::unique_ptr<Module> module = Fused();
  InMemoryAutotuneCache cache;
  FakeProfiler profiler;
  // C(1) default 1 ms; C(2) wins alone (0.5 ms); C(3) is close (0.6 ms).
  InModuleFakeBackend backend{{{C(1)}, {C(2)}, {C(3)}}};
  Fixture() {
    profiler.SetSamples(C(2).ToString(), {0.5e-3, 0.5e-3, 0.5e-3});
    profiler.SetSamples(C(3).ToString(), {0.6e-3, 0.6e-3, 0.6e-3});
  }
};

TEST(InModuleTest, TheModulesWinnerGoesIntoTheResultAndTheCache) {
  Fixture fx;
  ScriptedTimer timer;
  timer.seconds[C(3).ToString()] = 70e-6;  // the module runs 30% faster
  AutotuneOptions o = Options();
  o.dump_logs_to = ::testing::TempDir() + "/in_module_logs.textproto";
  Autotuner tuner(&fx.backend, &fx.cache, &fx.profiler, o);
  tuner.SetModuleTimer(&timer);
  absl::StatusOr<TuningResult> r = tuner.Tune(*fx.module);
  ASSERT_THAT(r, IsOk());
  // Both groups (the two gemms, the loop) were contests; both changed.
  EXPECT_EQ(r->stats.in_module, 2);
  EXPECT_EQ(r->stats.in_module_changed, 2);
  EXPECT_THAT(r->stats.ToString(), HasSubstr("2 re-timed in the module (2 changed"));
  EXPECT_THAT(timer.started_with, ::testing::Each(C(2).ToString()));
  EXPECT_THAT(timer.kept, ElementsAre(C(3).ToString(), C(3).ToString()));
  for (const FusionTuning& ft : r->fusions) {
    EXPECT_EQ(ft.config, C(3));
    EXPECT_EQ(r->configs.at(ft.fusion), C(3));
    EXPECT_EQ(ft.chosen_seconds, 0.6e-3);  // its isolated median
  }
  // The cache holds the module's winner, with its isolated run time.
  xla::AutotuneResults dumped = fx.cache.Dump();
  ASSERT_EQ(dumped.results_size(), 2);
  for (const auto& e : dumped.results()) {
    absl::StatusOr<KernelConfig> config = fx.backend.ConfigFromResult(e.result());
    ASSERT_THAT(config, IsOk());
    EXPECT_EQ(*config, C(3));
    EXPECT_NEAR(e.result().run_time().nanos(), 600000, 1);
  }
  // The log says what the isolated timings chose and what the module ran.
  ASSERT_EQ(r->logs.size(), 2u);
  EXPECT_EQ(r->logs[0].selected, C(3));
  EXPECT_EQ(r->logs[0].isolated_selected, C(2));
  ASSERT_EQ(r->logs[0].in_module.size(), 2u);
  EXPECT_EQ(r->logs[0].in_module[1].config, C(3));
  EXPECT_DOUBLE_EQ(r->logs[0].in_module[1].median_seconds, 70e-6);
  absl::StatusOr<std::string> text = ReadFile(o.dump_logs_to);
  ASSERT_THAT(text, IsOk());
  EXPECT_THAT(*text, HasSubstr("isolated_selected: \"fake:x=2\""));
  EXPECT_THAT(*text, HasSubstr("in_module { config: \"fake:x=3\""));
}

// With --xtune_autotune_details the entry keeps xtune's provenance: the
// module's run time with each finalist, and the new winner's samples.
TEST(InModuleTest, TheReplacedEntryKeepsTheModulesTimesInItsProvenance) {
  Fixture fx;
  ScriptedTimer timer;
  timer.seconds[C(3).ToString()] = 70e-6;
  AutotuneOptions o = Options();
  o.record_candidates = true;
  Autotuner tuner(&fx.backend, &fx.cache, &fx.profiler, o);
  tuner.SetModuleTimer(&timer);
  ASSERT_THAT(tuner.Tune(*fx.module), IsOk());
  EXPECT_EQ(timer.finished, 1);
  xla::AutotuneResults dumped = fx.cache.Dump();
  ASSERT_EQ(dumped.results_size(), 2);
  for (const auto& e : dumped.results()) {
    ASSERT_TRUE(e.result().has_xtune_provenance());
    const auto& p = e.result().xtune_provenance();
    ASSERT_EQ(p.in_module_size(), 2);
    EXPECT_EQ(p.in_module(0).config(), C(2).ToString());
    EXPECT_EQ(p.in_module(0).median().nanos(), 100000);
    EXPECT_EQ(p.in_module(1).config(), C(3).ToString());
    EXPECT_EQ(p.in_module(1).median().nanos(), 70000);
    ASSERT_GT(p.samples_size(), 0);
    for (const auto& d : p.samples()) EXPECT_EQ(d.nanos(), 600000);  // C(3)'s
  }
}

TEST(InModuleTest, TiesBudgetAndFailuresKeepTheIsolatedChoice) {
  // Within the margin: nothing changes, nothing is stored again.
  {
    Fixture fx;
    ScriptedTimer timer;
    timer.seconds[C(3).ToString()] = 99e-6;
    Autotuner tuner(&fx.backend, &fx.cache, &fx.profiler, Options());
    tuner.SetModuleTimer(&timer);
    absl::StatusOr<TuningResult> r = tuner.Tune(*fx.module);
    ASSERT_THAT(r, IsOk());
    EXPECT_EQ(r->stats.in_module, 2);
    EXPECT_EQ(r->stats.in_module_changed, 0);
    for (const FusionTuning& ft : r->fusions) EXPECT_EQ(ft.config, C(2));
    EXPECT_TRUE(timer.kept.empty());
  }
  // The budget is spent after the first contest.
  {
    Fixture fx;
    ScriptedTimer timer;
    timer.seconds[C(3).ToString()] = 70e-6;
    timer.budget_contests = 1;
    Autotuner tuner(&fx.backend, &fx.cache, &fx.profiler, Options());
    tuner.SetModuleTimer(&timer);
    absl::StatusOr<TuningResult> r = tuner.Tune(*fx.module);
    ASSERT_THAT(r, IsOk());
    EXPECT_EQ(r->stats.in_module, 1);
    EXPECT_EQ(r->stats.in_module_changed, 1);
    EXPECT_EQ(r->stats.in_module_untimed, 1);
    EXPECT_THAT(r->stats.ToString(), HasSubstr("1 more left to the budget"));
  }
  // A module whose isolated medians add up to more than the budget allows
  // is not even started.
  {
    Fixture fx;
    fx.profiler.SetSamples(C(2).ToString(), {0.2, 0.2, 0.2});
    fx.profiler.SetSamples(C(3).ToString(), {0.25, 0.25, 0.25});
    ScriptedTimer timer;
    timer.seconds[C(3).ToString()] = 70e-6;
    Autotuner tuner(&fx.backend, &fx.cache, &fx.profiler, Options());
    tuner.SetModuleTimer(&timer);
    absl::StatusOr<TuningResult> r = tuner.Tune(*fx.module);
    ASSERT_THAT(r, IsOk());
    EXPECT_TRUE(timer.started_with.empty());
    EXPECT_EQ(r->stats.in_module, 0);
  }
  // A timer that cannot start is a warning; the isolated choices stand.
  {
    Fixture fx;
    ScriptedTimer timer;
    timer.seconds[C(3).ToString()] = 70e-6;
    timer.start_error = absl::InternalError("module would not run");
    Autotuner tuner(&fx.backend, &fx.cache, &fx.profiler, Options());
    tuner.SetModuleTimer(&timer);
    ::testing::internal::CaptureStderr();
    absl::StatusOr<TuningResult> r = tuner.Tune(*fx.module);
    EXPECT_THAT(::testing::internal::GetCapturedStderr(),
                HasSubstr("in-module timing: module would not run"));
    ASSERT_THAT(r, IsOk());
    EXPECT_EQ(r->stats.in_module, 0);
    for (const FusionTuning& ft : r->fusions) EXPECT_EQ(ft.config, C(2));
  }
  // A finalist that cannot be kept: a warning, the isolated choice, the
  // phase ends.
  {
    Fixture fx;
    ScriptedTimer timer;
    timer.seconds[C(3).ToString()] = 70e-6;
    timer.keep_error = absl::InternalError("kernel gone");
    Autotuner tuner(&fx.backend, &fx.cache, &fx.profiler, Options());
    tuner.SetModuleTimer(&timer);
    ::testing::internal::CaptureStderr();
    absl::StatusOr<TuningResult> r = tuner.Tune(*fx.module);
    EXPECT_THAT(::testing::internal::GetCapturedStderr(), HasSubstr("kernel gone"));
    ASSERT_THAT(r, IsOk());
    EXPECT_EQ(r->stats.in_module_changed, 0);
    for (const FusionTuning& ft : r->fusions) EXPECT_EQ(ft.config, C(2));
    EXPECT_EQ(timer.finished, 1);
  }
  // Off by option, and on a backend that cannot time in the module.
  {
    Fixture fx;
    ScriptedTimer timer;
    timer.seconds[C(3).ToString()] = 70e-6;
    AutotuneOptions o = Options();
    o.in_module_timing = false;
    Autotuner tuner(&fx.backend, &fx.cache, &fx.profiler, o);
    tuner.SetModuleTimer(&timer);
    ASSERT_THAT(tuner.Tune(*fx.module), IsOk());
    EXPECT_TRUE(timer.started_with.empty());
    FakeBackend plain({{C(1)}, {C(2)}, {C(3)}});
    InMemoryAutotuneCache cache;
    Autotuner on_plain(&plain, &cache, &fx.profiler, Options());
    on_plain.SetModuleTimer(&timer);
    ASSERT_THAT(on_plain.Tune(*fx.module), IsOk());
    EXPECT_TRUE(timer.started_with.empty());
  }
}

// The CPU backend's timer: the module's run time with each finalist, the
// kept one swapped in for later contests, errors for fusions it lacks.
TEST(InModuleTest, ExecutableTimerTimesTheCpuModuleWithEachFinalist) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(R"hlo(HloModule m
ENTRY e {
  a = f32[64,32] parameter(0)
  b = f32[32,48] parameter(1)
  d = f32[64,48] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = f32[64,48] tanh(d)
})hlo");
  ASSERT_THAT(m, IsOk());
  absl::StatusOr<std::unique_ptr<Module>> fused = FuseModule(**m);
  ASSERT_THAT(fused, IsOk());
  absl::StatusOr<std::unique_ptr<cpu::CpuBackend>> cpu = cpu::CpuBackend::Create();
  ASSERT_THAT(cpu, IsOk());
  absl::flat_hash_map<const Instruction*, KernelConfig> configs;
  const Instruction* first = nullptr;
  for (const auto& i : (*fused)->entry()->instructions()) {
    if (i->opcode() != Opcode::kFusion) continue;
    configs[i.get()] = (*cpu)->DefaultConfig(*i);
    if (first == nullptr) first = i.get();
  }
  ASSERT_NE(first, nullptr);
  std::vector<KernelConfig> candidates = (*cpu)->Candidates(*first, false);
  ASSERT_GE(candidates.size(), 2u);
  InModuleContest contest;
  contest.fusions = {first};
  contest.finalists = {candidates[0], candidates[1]};
  contest.isolated_winner = 0;
  configs[first] = candidates[0];

  ExecutableModuleTimer timer(cpu->get(), [&] { return FuseModule(**m); });
  InModuleOptions o;
  o.budget = absl::Milliseconds(300);  // ample for a module of microseconds
  EXPECT_THAT(timer.Time(contest, 1), StatusIs(absl::StatusCode::kFailedPrecondition));
  ASSERT_THAT(timer.Start(configs, o), IsOk());
  absl::StatusOr<InModuleTiming> t = timer.Time(contest, 1);
  ASSERT_THAT(t, IsOk());
  ASSERT_EQ(t->module.size(), 2u);
  ASSERT_EQ(t->own.size(), 2u);
  for (size_t j = 0; j < 2; ++j) {
    const Timed& f = t->module[j];
    EXPECT_GE(f.seconds.size(), static_cast<size_t>(o.rounds * o.min_runs));
    // The budget would allow far more: at most max_runs a round.
    EXPECT_LE(f.seconds.size(), static_cast<size_t>(o.rounds * o.max_runs));
    EXPECT_EQ(f.round_scores.size(), static_cast<size_t>(o.rounds));
    // The module's run includes the fusion's own time.
    EXPECT_GT(t->own[j], 0);
    EXPECT_GT(Score(f.seconds), t->own[j]);
  }
  EXPECT_THAT(timer.Keep(contest, 1), IsOk());
  EXPECT_THAT(timer.Keep(contest, 5), StatusIs(absl::StatusCode::kInvalidArgument));
  ASSERT_THAT(timer.Time(contest, 1), IsOk());
  // A contest over a fusion the module does not have.
  auto other = ParseModule(
      "HloModule o\nENTRY e {\n a = f32[4] parameter(0)\n ROOT n = f32[4] "
      "negate(a)\n}");
  ASSERT_THAT(other, IsOk());
  auto other_fused = FuseModule(**other);
  ASSERT_THAT(other_fused, IsOk());
  InModuleContest stray = contest;
  for (const auto& i : (*other_fused)->entry()->instructions()) {
    if (i->opcode() == Opcode::kFusion) stray.fusions = {i.get()};
  }
  EXPECT_THAT(timer.Time(stray, 1), StatusIs(absl::StatusCode::kInvalidArgument,
                                             HasSubstr("not in the module's copy")));
  // A budget already spent: no timing.
  o.budget = absl::ZeroDuration();
  ASSERT_THAT(timer.Start(configs, o), IsOk());
  t = timer.Time(contest, 1);
  ASSERT_THAT(t, IsOk());
  EXPECT_TRUE(t->module.empty());
  // After Finish, Start again first.
  timer.Finish();
  EXPECT_THAT(timer.Time(contest, 1), StatusIs(absl::StatusCode::kFailedPrecondition));
}

}  // namespace
}  // namespace xtune
