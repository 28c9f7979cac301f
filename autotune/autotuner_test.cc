#include "autotune/autotuner.h"

#include <filesystem>

#include "codegen/fake_profiler.h"
#include "cache/config_proto.h"
#include "codegen/cpu/cpu_backend.h"
#include "autotune/autotune_test_util.h"
#include "autotune/phases.h"
#include "codegen/fake_backend.h"
#include "fusion/fusion_pass.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/parser.h"
#include "util/file.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

struct Fixture {
  std::unique_ptr<Module> module = Fused();
  InMemoryAutotuneCache cache;
  FakeProfiler profiler;
};

TEST(AutotunerTest, PicksTheFastestAndTunesIdenticalFusionsOnce) {
  Fixture fx;
  FakeBackend backend({{C(1)}, {C(2)}, {C(3)}});
  fx.profiler.SetSamples(C(2).ToString(), {0.5e-3, 0.5e-3, 0.5e-3});
  Autotuner tuner(&backend, &fx.cache, &fx.profiler, Options());
  absl::StatusOr<TuningResult> r = tuner.Tune(*fx.module);
  ASSERT_THAT(r, IsOk());
  // The gemm fusions are identical (same canonical text): 2 unique of 3.
  EXPECT_EQ(r->stats.fusions, 3);
  EXPECT_EQ(r->stats.unique, 2);
  EXPECT_EQ(r->stats.tuned, 2);
  EXPECT_EQ(backend.compilations(), 6);
  for (const FusionTuning& ft : r->fusions) {
    EXPECT_EQ(ft.config, C(2));
    EXPECT_EQ(ft.source, ConfigSource::kTuned);
    EXPECT_EQ(ft.chosen_seconds, 0.5e-3);
    EXPECT_EQ(ft.default_seconds, 1e-3);
  }
  EXPECT_EQ(fx.cache.size(), 2);
}

// Adaptive timing caps each round at round_repetitions runs (never below
// the round's minimum); the fixed schedule of before keeps max_repetitions.
TEST(AutotunerTest, AdaptiveRoundsStopAfterRoundRepetitions) {
  for (bool adaptive : {true, false}) {
    SCOPED_TRACE(adaptive);
    Fixture fx;
    FakeBackend backend({{C(1)}, {C(2)}});
    AutotuneOptions o = Options();
    o.adaptive_timing = adaptive;
    o.round_repetitions = 7;
    o.max_repetitions = 300;
    Autotuner tuner(&backend, &fx.cache, &fx.profiler, o);
    ASSERT_THAT(tuner.Tune(*fx.module), IsOk());
    ASSERT_FALSE(fx.profiler.options().empty());
    for (const ProfileOptions& p : fx.profiler.options()) {
      EXPECT_EQ(p.max_repetitions, adaptive ? 7 : 300);
    }
  }
  Fixture fx;
  FakeBackend backend({{C(1)}, {C(2)}});
  AutotuneOptions o = Options();
  o.round_repetitions = 1;
  o.min_repetitions = 6;  // 2 a round
  Autotuner tuner(&backend, &fx.cache, &fx.profiler, o);
  ASSERT_THAT(tuner.Tune(*fx.module), IsOk());
  for (const ProfileOptions& p : fx.profiler.options()) {
    EXPECT_EQ(p.max_repetitions, 2);
  }
}

// Not on a terminal (CI logs), progress is plain lines, compiles included,
// at most one per interval (here: every event).
TEST(AutotunerTest, ProgressLinesWhenNotOnATerminal) {
  Fixture fx;
  FakeBackend backend({{C(1)}, {C(2)}});
  AutotuneOptions o = Options();
  o.progress = AutotuneOptions::ProgressMode::kLines;
  o.progress_interval = absl::ZeroDuration();
  Autotuner tuner(&backend, &fx.cache, &fx.profiler, o);
  ::testing::internal::CaptureStderr();
  ASSERT_THAT(tuner.Tune(*fx.module), IsOk());
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(err, HasSubstr("xtune: compiling candidates: 4/4"));
  EXPECT_THAT(err, HasSubstr("xtune: tuning fusion 2/2"));
  EXPECT_THAT(err, ::testing::Not(HasSubstr("\033[K")));
  // A long interval: nothing in a short tune.
  o.progress_interval = absl::Hours(1);
  InMemoryAutotuneCache cache;
  Autotuner quiet(&backend, &cache, &fx.profiler, o);
  ::testing::internal::CaptureStderr();
  ASSERT_THAT(quiet.Tune(*fx.module), IsOk());
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

// --config=FUSION:... fixes a fusion's config: it is not tuned.
TEST(AutotunerTest, ForcedConfigsAreNotTuned) {
  Fixture fx;
  FakeBackend backend({{C(1)}, {C(2)}});
  Autotuner tuner(&backend, &fx.cache, &fx.profiler, Options());
  std::string loop;
  for (const auto& i : fx.module->entry()->instructions()) {
    if (i->opcode() == Opcode::kFusion &&
        ClassifyFusion(*i) != FusionKind::kGemm) {
      loop = i->name();
    }
  }
  ASSERT_FALSE(loop.empty());
  tuner.ForceConfig(loop, C(7));
  absl::StatusOr<TuningResult> r = tuner.Tune(*fx.module);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->stats.overrides, 1);
  EXPECT_EQ(r->stats.tuned, 1);  // the (identical) gemm fusions only
  EXPECT_EQ(backend.compilations(), 2);
  for (const FusionTuning& ft : r->fusions) {
    if (ft.fusion->name() == loop) {
      EXPECT_EQ(ft.source, ConfigSource::kOverride);
      EXPECT_EQ(ft.config, C(7));
    }
  }
}

TEST(AutotunerTest, TiesGoToTheEarliestConfig) {
  Fixture fx;
  FakeBackend backend({{C(1)}, {C(2)}, {C(3)}});
  fx.profiler.SetSamples(C(1).ToString(), {1.01e-3, 1.01e-3, 1.01e-3});
  fx.profiler.SetSamples(C(2).ToString(), {2e-3, 2e-3, 2e-3});
  fx.profiler.SetSamples(C(3).ToString(), {1.0e-3, 1.0e-3, 1.0e-3});
  Autotuner tuner(&backend, &fx.cache, &fx.profiler, Options());
  absl::StatusOr<TuningResult> r = tuner.Tune(*fx.module);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->fusions[0].config, C(1));  // within 2% of C(3), and earlier
}

TEST(AutotunerTest, FailuresAreRecordedAndNeverChosen) {
  Fixture fx;
  FakeBackend backend({{C(1)},
                       {C(2), FakeBehavior::kCompileError},
                       {C(3)},
                       {C(4)},
                       {C(5), FakeBehavior::kWrong}});
  fx.profiler.SetSamples(C(1).ToString(), {9e-3, 9e-3, 9e-3});
  fx.profiler.SetError(C(3).ToString(),
                       absl::AbortedError("crashed with signal 11"));
  fx.profiler.SetError(C(4).ToString(), absl::DeadlineExceededError("killed"));
  fx.profiler.SetSamples(C(5).ToString(), {1e-6, 1e-6, 1e-6});  // fast, wrong
  std::string log_path = ::testing::TempDir() + "tuning_log_" +
                         std::to_string(getpid()) + ".textproto";
  AutotuneOptions o = Options();
  o.dump_logs_to = log_path;
  Autotuner tuner(&backend, &fx.cache, &fx.profiler, o);
  absl::StatusOr<TuningResult> r = tuner.Tune(*fx.module);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->fusions[0].config, C(1));
  EXPECT_EQ(r->fusions[0].failed, 4);
  ASSERT_EQ(r->logs.size(), 2u);
  const std::vector<CandidateLog>& c = r->logs[0].candidates;
  EXPECT_EQ(c[1].failure, FailureKind::kCompileError);
  EXPECT_EQ(c[2].failure, FailureKind::kCrash);
  EXPECT_EQ(c[3].failure, FailureKind::kTimeout);
  EXPECT_EQ(c[4].failure, FailureKind::kWrongResult);
  absl::StatusOr<std::string> text = ReadFile(log_path);
  ASSERT_THAT(text, IsOk());
  EXPECT_THAT(*text, HasSubstr("failure { kind: WRONG_RESULT"));
  EXPECT_THAT(*text, HasSubstr("failure { kind: DISQUALIFIED"));
  EXPECT_THAT(*text, HasSubstr("xtune_reason: TIMEOUT"));
  EXPECT_THAT(*text, HasSubstr("selected: \"fake:x=1\""));
  EXPECT_THAT(*text, HasSubstr("run_time { nanos: 9000000 }"));
}

TEST(AutotunerTest, LevelsFollowXla) {
  // Level 0: no tuning, nothing compiled here.
  {
    Fixture fx;
    FakeBackend backend({{C(1)}, {C(2)}}, /*default_index=*/1);
    AutotuneOptions o = Options();
    o.level = 0;
    Autotuner tuner(&backend, &fx.cache, &fx.profiler, o);
    absl::StatusOr<TuningResult> r = tuner.Tune(*fx.module);
    ASSERT_THAT(r, IsOk());
    EXPECT_EQ(backend.compilations(), 0);
    EXPECT_EQ(r->fusions[0].config, C(2));
    EXPECT_EQ(r->fusions[0].source, ConfigSource::kDefault);
  }
  // Level 3: no correctness check, so the fast wrong candidate wins.
  {
    Fixture fx;
    FakeBackend backend({{C(1)}, {C(2), FakeBehavior::kWrong}});
    fx.profiler.SetSamples(C(2).ToString(), {1e-6, 1e-6, 1e-6});
    AutotuneOptions o = Options();
    o.level = 3;
    Autotuner tuner(&backend, &fx.cache, &fx.profiler, o);
    absl::StatusOr<TuningResult> r = tuner.Tune(*fx.module);
    ASSERT_THAT(r, IsOk());
    EXPECT_EQ(r->fusions[0].config, C(2));
  }
  // Level 4 with every candidate wrong: the fastest, with a warning.
  {
    Fixture fx;
    FakeBackend backend(
        {{C(1), FakeBehavior::kWrong}, {C(2), FakeBehavior::kWrong}});
    fx.profiler.SetSamples(C(2).ToString(), {1e-6, 1e-6, 1e-6});
    Autotuner tuner(&backend, &fx.cache, &fx.profiler, Options());
    absl::StatusOr<TuningResult> r = tuner.Tune(*fx.module);
    ASSERT_THAT(r, IsOk());
    EXPECT_EQ(r->fusions[0].config, C(2));
  }
  // Level 5 with every candidate wrong: an error naming the fusion.
  {
    Fixture fx;
    FakeBackend backend(
        {{C(1), FakeBehavior::kWrong}, {C(2), FakeBehavior::kWrong}});
    AutotuneOptions o = Options();
    o.level = 5;
    Autotuner tuner(&backend, &fx.cache, &fx.profiler, o);
    EXPECT_THAT(tuner.Tune(*fx.module),
                StatusIs(absl::StatusCode::kInternal,
                         HasSubstr("all 2 candidates failed")));
  }
  // crash_on_verification_failures makes a mismatch fatal.
  {
    Fixture fx;
    FakeBackend backend({{C(1)}, {C(2), FakeBehavior::kWrong}});
    AutotuneOptions o = Options();
    o.crash_on_verification_failures = true;
    Autotuner tuner(&backend, &fx.cache, &fx.profiler, o);
    EXPECT_THAT(tuner.Tune(*fx.module),
                StatusIs(absl::StatusCode::kInternal,
                         HasSubstr("verification failed")));
  }
}

TEST(AutotunerTest, CacheHitsSkipTuning) {
  Fixture fx;
  FakeBackend backend({{C(1)}, {C(2)}});
  Autotuner tuner(&backend, &fx.cache, &fx.profiler, Options());
  ASSERT_THAT(tuner.Tune(*fx.module), IsOk());
  int64_t compiled = backend.compilations();
  absl::StatusOr<TuningResult> again = tuner.Tune(*fx.module);
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(backend.compilations(), compiled);
  EXPECT_EQ(again->stats.cache_hits, 2);
  EXPECT_EQ(again->fusions[0].source, ConfigSource::kCache);
}

// A stored config outside the backend's search space (an edited or damaged
// file) is never handed to the code generator: the fusion is tuned instead.
TEST(AutotunerTest, CachedConfigOutsideTheSearchSpaceIsTunedInstead) {
  Fixture fx;
  FakeBackend backend({{C(1)}, {C(2)}});
  xla::AutotuneResult stray;
  ASSERT_THAT(backend.ConfigToResult(C(999), &stray), IsOk());
  for (const auto& i : fx.module->entry()->instructions()) {
    if (i->opcode() == Opcode::kFusion) {
      ASSERT_THAT(fx.cache.Insert(KeyOf(backend, *i), stray), IsOk());
    }
  }
  Autotuner tuner(&backend, &fx.cache, &fx.profiler, Options());
  absl::StatusOr<TuningResult> r = tuner.Tune(*fx.module);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->stats.cache_hits, 0);
  EXPECT_EQ(r->stats.tuned, 2);
  for (const FusionTuning& ft : r->fusions) EXPECT_NE(ft.config, C(999));
  // A config of the space is used as stored.
  xla::AutotuneResult good;
  ASSERT_THAT(backend.ConfigToResult(C(2), &good), IsOk());
  for (const auto& i : fx.module->entry()->instructions()) {
    if (i->opcode() == Opcode::kFusion) {
      ASSERT_THAT(fx.cache.Insert(KeyOf(backend, *i), good), IsOk());
    }
  }
  r = tuner.Tune(*fx.module);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->stats.cache_hits, 2);
  EXPECT_EQ(r->fusions[0].config, C(2));
}

// XLA leaves a fusion's called computations (the reducer) out of its key:
// an entry under that form is used when xtune's own key misses.
TEST(AutotunerTest, EntriesUnderXlasKeyFormAreUsed) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(R"hlo(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[8,16] parameter(0)
  e = f32[8,16] exponential(x)
  zero = f32[] constant(0)
  ROOT r = f32[8] reduce(e, zero), dimensions={1}, to_apply=add
})hlo");
  ASSERT_THAT(m, IsOk());
  absl::StatusOr<std::unique_ptr<Module>> fused = FuseModule(**m);
  ASSERT_THAT(fused, IsOk());
  const Instruction* fusion = FusionsOf(**fused).at(0);
  FakeBackend backend({{C(1)}, {C(2)}});
  const AutotuneKey xtune_key = KeyOf(backend, *fusion);
  std::optional<AutotuneKey> xla_key = XlaFormKeyOf(xtune_key, *fusion);
  ASSERT_TRUE(xla_key.has_value());
  EXPECT_THAT(xtune_key.hlo, HasSubstr("to_apply="));
  EXPECT_THAT(xla_key->hlo, ::testing::Not(HasSubstr("to_apply")));
  EXPECT_THAT(xla_key->hlo, HasSubstr("dimensions={1}\n}"));
  xla::AutotuneResult stored;
  ASSERT_THAT(backend.ConfigToResult(C(2), &stored), IsOk());
  InMemoryAutotuneCache cache;
  ASSERT_THAT(cache.Insert(*xla_key, stored), IsOk());
  FakeProfiler profiler;
  Autotuner tuner(&backend, &cache, &profiler, Options());
  absl::StatusOr<TuningResult> r = tuner.Tune(**fused);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->stats.cache_hits, 1);
  EXPECT_EQ(r->fusions[0].source, ConfigSource::kCache);
  EXPECT_EQ(r->fusions[0].config, C(2));
  // A fusion that calls nothing has one form.
  absl::StatusOr<std::unique_ptr<Module>> plain = ParseModule(
      "HloModule p\nENTRY e {\n  x = f32[4] parameter(0)\n"
      "  ROOT n = f32[4] negate(x)\n}");
  ASSERT_THAT(plain, IsOk());
  absl::StatusOr<std::unique_ptr<Module>> plain_fused = FuseModule(**plain);
  ASSERT_THAT(plain_fused, IsOk());
  const Instruction* negate = FusionsOf(**plain_fused).at(0);
  EXPECT_FALSE(XlaFormKeyOf(KeyOf(backend, *negate), *negate).has_value());
}

TEST(AutotunerTest, OverrideForcesGemmConfigs) {
  Fixture fx;
  FakeBackend backend({{KernelConfig(
      "fake", {{"block_m", 1}, {"block_k", 1}, {"num_warps", 1}})}});
  AutotuneOptions o = Options();
  o.override_gemm = "block_m:32 block_k:64 num_warps:4";
  Autotuner tuner(&backend, &fx.cache, &fx.profiler, o);
  absl::StatusOr<TuningResult> r = tuner.Tune(*fx.module);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->fusions[0].source, ConfigSource::kOverride);
  EXPECT_EQ(r->fusions[0].config.ParamsString(),
            "block_m=32,block_k=64,num_warps=4");
  EXPECT_EQ(r->stats.overrides, 1);  // one unique gemm fusion
  // The backend reads the text: a field it has no use for is an error.
  o.override_gemm = "block_m:32 split_k:2";
  Autotuner strict(&backend, &fx.cache, &fx.profiler, o);
  EXPECT_THAT(strict.Tune(*fx.module),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("'split_k' is not a parameter")));
}

TEST(AutotunerTest, LibraryCandidateFollowsTheFallbackFlag) {
  Fixture fx;
  FakeBackend backend({{C(1)}, {KernelConfig("fake_blas", {{"threads", 1}})}});
  fx.profiler.SetSamples("fake_blas:threads=1", {1e-6, 1e-6, 1e-6});
  AutotuneOptions o = Options();
  o.library_fallback = false;
  Autotuner tuner(&backend, &fx.cache, &fx.profiler, o);
  absl::StatusOr<TuningResult> r = tuner.Tune(*fx.module);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->fusions[0].config, C(1));
  for (const std::string& p : fx.profiler.profiled()) {
    EXPECT_EQ(p.find("blas"), std::string::npos);
  }
}

TEST(AutotunerTest, CpuExhaustiveSpaceContainsTheDefaultSpace) {
  absl::StatusOr<std::unique_ptr<cpu::CpuBackend>> cpu =
      cpu::CpuBackend::Create();
  ASSERT_THAT(cpu, IsOk());
  for (const char* name : {"mlp.hlo", "attention.hlo", "layer_norm.hlo"}) {
    auto m =
        ParseModuleFile(std::string(XTUNE_SOURCE_DIR) + "/examples/" + name);
    ASSERT_THAT(m, IsOk());
    auto fused = FuseModule(**m);
    ASSERT_THAT(fused, IsOk());
    for (const auto& i : (*fused)->entry()->instructions()) {
      if (i->opcode() != Opcode::kFusion) continue;
      std::vector<KernelConfig> all = (*cpu)->Candidates(*i, true);
      std::vector<KernelConfig> def = (*cpu)->Candidates(*i, false);
      EXPECT_GT(all.size(), def.size()) << i->name();
      EXPECT_TRUE(std::is_sorted(all.begin(), all.end()));
      EXPECT_TRUE(std::is_sorted(def.begin(), def.end()));
      for (const KernelConfig& c : def) {
        EXPECT_TRUE(std::binary_search(all.begin(), all.end(), c))
            << name << " " << i->name() << ": " << c.ToString();
      }
    }
  }
}

}  // namespace
}  // namespace xtune

namespace xtune {
namespace {

// Verify-on-restore: a cached config that a changed compiler now gets
// wrong is reported, evicted and tuned again; without the flag it is used.
TEST(AutotunerTest, VerifiedRestoreEvictsAWrongCachedConfigAndTunesAgain) {
  Fixture fx;
  {
    FakeBackend before({{C(1)}, {C(2)}});
    fx.profiler.SetSamples(C(2).ToString(), {0.5e-3, 0.5e-3, 0.5e-3});
    Autotuner tuner(&before, &fx.cache, &fx.profiler, Options());
    ASSERT_THAT(tuner.Tune(*fx.module), IsOk());
  }
  // The same configs, but C(2) now computes a wrong result.
  FakeBackend after({{C(1)}, {C(2), FakeBehavior::kWrong}});
  {
    Autotuner trusting(&after, &fx.cache, &fx.profiler, Options());
    absl::StatusOr<TuningResult> r = trusting.Tune(*fx.module);
    ASSERT_THAT(r, IsOk());
    EXPECT_EQ(r->stats.cache_hits, 2);
    EXPECT_EQ(r->fusions[0].config, C(2));
  }
  AutotuneOptions verify = Options();
  verify.verify_cached = true;
  Autotuner tuner(&after, &fx.cache, &fx.profiler, verify);
  absl::StatusOr<TuningResult> r = tuner.Tune(*fx.module);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->stats.cached_verified, 2);
  EXPECT_EQ(r->stats.cached_wrong, 2);
  EXPECT_EQ(r->stats.cache_hits, 0);
  EXPECT_EQ(r->stats.tuned, 2);
  EXPECT_THAT(r->stats.ToString(),
              HasSubstr("verified 2 cached configs (2 wrong: evicted, tuned again)"));
  for (const FusionTuning& ft : r->fusions) EXPECT_EQ(ft.config, C(1));
  // The cache now holds the right config; verified once per process.
  absl::StatusOr<TuningResult> again = tuner.Tune(*fx.module);
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(again->stats.cache_hits, 2);
  EXPECT_EQ(again->stats.cached_wrong, 0);
  EXPECT_EQ(again->fusions[0].config, C(1));
}

}  // namespace
}  // namespace xtune

#include "autotune/device_match.h"

namespace xtune {
namespace {

// Device-match seeding: a miss whose fusion another device of the same
// architecture tuned times that device's config with the default first
// and stops there when it is within the band; a seed that is not is
// followed by the full search; exact matching never seeds.
TEST(AutotunerTest, DeviceMatchSeedsFromRelatedDevices) {
  EXPECT_EQ(DeviceArchitecture("CUDA: 9.0, Cores: 132, GPU clock: 1.98 GHz"), "CUDA: 9.0");
  EXPECT_EQ(DeviceArchitecture("CPU: AMD EPYC, ISA: avx512, Threads: 2"), "CPU ISA: avx512");
  EXPECT_EQ(DeviceArchitecture("FAKE: a, x: 1"), "FAKE: a");
  for (double seed_seconds : {0.5e-3, 2e-3}) {
    for (auto match : {AutotuneOptions::DeviceMatch::kExact, AutotuneOptions::DeviceMatch::kArch,
                       AutotuneOptions::DeviceMatch::kAny}) {
      SCOPED_TRACE(absl::StrCat(seed_seconds, " ", static_cast<int>(match)));
      Fixture fx;
      FakeBackend backend({{C(1)}, {C(2)}, {C(3)}}, 0, "FAKE: a, x: 1");
      // Another device of the same architecture tuned both fusions: C(2).
      xla::AutotuneResult seed;
      ASSERT_THAT(backend.ConfigToResult(C(2), &seed), IsOk());
      for (const auto& inst : fx.module->entry()->instructions()) {
        if (inst->opcode() != Opcode::kFusion) continue;
        AutotuneKey other = KeyOf(backend, *inst);
        other.device = "FAKE: a, x: 2";
        ASSERT_THAT(fx.cache.Insert(other, seed), IsOk());
      }
      fx.profiler.SetSamples(C(2).ToString(), {seed_seconds, seed_seconds, seed_seconds});
      AutotuneOptions o = Options();
      o.device_match = match;
      o.record_candidates = true;  // the fake's key is XLA's: provenance on ask
      Autotuner tuner(&backend, &fx.cache, &fx.profiler, o);
      absl::StatusOr<TuningResult> r = tuner.Tune(*fx.module);
      ASSERT_THAT(r, IsOk());
      EXPECT_EQ(r->stats.tuned, 2);
      const bool seeds = match != AutotuneOptions::DeviceMatch::kExact;
      const bool settled = seeds && seed_seconds < 1e-3;
      EXPECT_EQ(r->stats.seeded, settled ? 2 : 0);
      EXPECT_EQ(r->stats.seeds_not_enough, seeds && !settled ? 2 : 0);
      // Settled: the default and the seed only, 2 configs per fusion.
      EXPECT_EQ(backend.compilations(), settled ? 4 : seeds ? 4 + 6 : 6);
      EXPECT_EQ(r->fusions[0].config, seed_seconds < 1e-3 ? C(2) : C(1));
      absl::StatusOr<std::optional<CacheHit>> stored = fx.cache.Lookup(KeyOf(backend, *r->fusions[0].fusion));
      ASSERT_TRUE(stored.ok() && stored->has_value());
      EXPECT_EQ((*stored)->result->xtune_provenance().seeded_from_device(),
                settled ? "FAKE: a, x: 2" : "");
    }
  }
}

}  // namespace
}  // namespace xtune
