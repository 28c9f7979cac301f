#include "autotune/autotuner.h"

#include <algorithm>
#include <iostream>
#include <random>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "autotune/device_match.h"
#include "autotune/in_module.h"
#include "autotune/phases.h"
#include "autotune/progress.h"
#include "autotune/verify_cached.h"
#include "cache/config_proto.h"
#include "cache/store_chain.h"
#include "util/file.h"
#include "util/status_macros.h"

namespace xtune {

const char* ConfigSourceName(ConfigSource s) {
  switch (s) {
    case ConfigSource::kTuned:
      return "tuned";
    case ConfigSource::kCache:
      return "cache";
    case ConfigSource::kDefault:
      return "default";
    case ConfigSource::kOverride:
      return "override";
  }
  return "?";
}

std::string TuningStats::ToString() const {
  std::string tiers;
  for (const auto& [tier, n] : hits_by_tier) {
    absl::StrAppend(&tiers, tiers.empty() ? " (" : ", ", tier, " ", n);
  }
  if (!tiers.empty()) tiers += ")";
  return absl::StrFormat(
      "%d fusions (%d unique): %d from the cache%s, %d tuned, %d default, %d "
      "overridden%s; %d candidates compiled (%d failed)%s, %s, %d wrong%s; "
      "%.2f s",
      fusions, unique, cache_hits, tiers, tuned, defaults, overrides,
      on_evaluator > 0
          ? absl::StrCat(", ", on_evaluator,
                         " on the evaluator (no kernel can be generated)")
          : "",
      compiled, compile_failures,
      pruned > 0 ? absl::StrCat(", ", pruned, " pruned by the cost model",
                                model_seeded > 0
                                    ? absl::StrCat(" (fit on ", model_seeded,
                                                   " cached fusions too)")
                                    : "")
                 : "",
      stopped_early > 0 ? absl::StrCat(timed, " timed (", stopped_early, " stopped early)")
                        : absl::StrCat(timed, " timed"),
      wrong,
      in_module > 0
          ? absl::StrFormat(", %d re-timed in the module (%d changed%s, %.2f s)",
                            in_module, in_module_changed,
                            in_module_untimed > 0
                                ? absl::StrCat(", ", in_module_untimed,
                                               " more left to the budget")
                                : "",
                            in_module_seconds)
          : "",
      seconds) +
         (seeded + seeds_not_enough > 0
              ? absl::StrFormat("; seeded from other devices: %d settled, %d tuned in full",
                                seeded, seeds_not_enough)
              : "") +
         (cached_verified > 0
              ? absl::StrFormat("; verified %d cached configs (%d wrong: evicted, tuned again)",
                                cached_verified, cached_wrong)
              : "") +
         (sharded ? absl::StrFormat("; sharded: %d from other processes, %d taken over, %d "
                                    "tuned after the wait, %d published first elsewhere",
                                    shard_received, shard_taken_over, shard_past_wait,
                                    shard_adopted)
                  : "") +
         (checked_only
              ? absl::StrCat("; candidates run once and checked, not timed: ",
                             compiled, " candidates compiled, ", wrong,
                             " wrong, ", run_failures, " failed to run",
                             first_failure.empty()
                                 ? ""
                                 : absl::StrCat(" (first: ", first_failure, ")"))
              : "");
}

Autotuner::Autotuner(Backend* backend, AutotuneCache* cache, Profiler* profiler,
                     AutotuneOptions options)
    : backend_(backend),
      cache_(cache),
      profiler_(profiler),
      options_(std::move(options)) {}

void Autotuner::Adopt(const KeyGroup& g, const xla::AutotuneResult& stored,
                      FusionTuning* decided, TuningStats* stats) {
  std::optional<xla::AutotuneResult> published = shards_->Published(g.key);
  if (!published.has_value() || SameResult(*published, stored)) return;
  absl::StatusOr<KernelConfig> config = backend_->ConfigFromResultFor(*g.first, *published);
  if (!config.ok() || !backend_->CheckConfig(*g.first, *config).ok()) return;
  decided->config = *config;
  decided->chosen_seconds = RunTimeSeconds(*published);
  (void)cache_->Insert(g.key, *published);  // this process's tiers keep it too
  ++stats->shard_adopted;
}

absl::Status Autotuner::VerifyRestored(const KeyGroup& g,
                                       const std::map<std::string, int>& hits_before,
                                       Decision* d, TuningStats* stats) {
  absl::Status v = VerifyCachedConfig(*backend_, *profiler_, options_, g, d->config);
  if (absl::IsUnimplemented(v)) return absl::OkStatus();  // cannot run kernels here
  ++stats->cached_verified;
  if (v.ok()) return absl::OkStatus();
  if (!absl::IsFailedPrecondition(v)) return v;
  // Evicted from every writable tier, in both key forms; then tuned.
  std::vector<std::string> tiers;
  std::vector<AutotuneKey> keys = {g.key};
  if (std::optional<AutotuneKey> xla = XlaFormKeyOf(g.key, *g.first)) keys.push_back(*xla);
  for (const AutotuneKey& k : keys) {
    if (auto* chain = dynamic_cast<StoreChain*>(cache_)) {
      for (std::string& t : chain->EraseEverywhere(k)) {
        if (std::find(tiers.begin(), tiers.end(), t) == tiers.end()) tiers.push_back(t);
      }
    } else if (cache_->Erase(k).ok() && tiers.empty()) {
      tiers.push_back("the cache");
    }
  }
  std::cerr << "xtune: warning: the cached config " << d->config.ToString() << " of fusion '"
            << g.first->name() << "' is wrong (" << v.message() << "); evicted from "
            << (tiers.empty() ? std::string("no tier (none writable)") : absl::StrJoin(tiers, ", "))
            << " and tuned again\n";
  ++stats->cached_wrong;
  // It counts as a miss, not a hit.
  --stats->cache_hits;
  for (const auto& [tier, n] : stats->hits_by_tier) {
    auto before = hits_before.find(tier);
    if (n > (before == hits_before.end() ? 0 : before->second)) {
      const std::string name = tier;
      if (--stats->hits_by_tier[name] == 0) stats->hits_by_tier.erase(name);
      break;
    }
  }
  d->kind = Decision::Kind::kTune;
  return absl::OkStatus();
}

absl::Status Autotuner::ShardedTune(std::vector<Trial> waiting,
                                    const std::function<absl::Status(std::vector<Trial>&)>& run,
                                    TuningStats* stats, const Assign& assign) {
  // Keys taken per step: few, so that processes starting together share
  // the work, enough to keep the compile pool busy.
  constexpr size_t kTakePerStep = 4;
  const absl::Time deadline = absl::Now() + shards_->wait();
  absl::flat_hash_set<AutotuneKey> seen_held;
  // Processes starting together begin at different keys.
  std::rotate(waiting.begin(),
              waiting.begin() + std::random_device()() % waiting.size(), waiting.end());
  while (!waiting.empty()) {
    std::vector<AutotuneKey> keys;
    for (const Trial& t : waiting) keys.push_back(t.group->key);
    std::vector<TuningShards::State> states = shards_->Poll(keys);
    const bool late = absl::Now() >= deadline;
    std::vector<Trial> now, still, free;
    for (size_t i = 0; i < waiting.size(); ++i) {
      Trial& t = waiting[i];
      if (states[i] == TuningShards::State::kPublished) {
        XTUNE_ASSIGN_OR_RETURN(Decision d, Decide(*backend_, *cache_, options_, *t.group, stats));
        if (d.kind == Decision::Kind::kDecided) {
          FusionTuning ft;
          ft.source = d.source;
          ft.config = d.config;
          ft.chosen_seconds = d.seconds;
          assign(*t.group, ft);
          ++stats->shard_received;
          continue;
        }
        now.push_back(std::move(t));  // published, but of no use here
      } else if (late && states[i] == TuningShards::State::kHeld) {
        // Held by another process past the wait: tuned here too. A free
        // key is still taken through its lease below (a slow process's
        // own keys are not "after the wait").
        ++stats->shard_past_wait;
        now.push_back(std::move(t));
      } else if (states[i] == TuningShards::State::kFree && free.size() < kTakePerStep) {
        free.push_back(std::move(t));
      } else {
        if (states[i] == TuningShards::State::kHeld) seen_held.insert(t.group->key);
        still.push_back(std::move(t));
      }
    }
    std::vector<AutotuneKey> held;
    if (!free.empty()) {
      std::vector<AutotuneKey> free_keys;
      for (const Trial& t : free) free_keys.push_back(t.group->key);
      std::vector<bool> taken = shards_->Acquire(free_keys);
      for (size_t i = 0; i < free.size(); ++i) {
        if (taken[i]) {
          held.push_back(free_keys[i]);
          // Its holder died or gave up without a result.
          if (seen_held.contains(free_keys[i])) ++stats->shard_taken_over;
        }
        (taken[i] ? now : still).push_back(std::move(free[i]));
      }
    }
    if (!now.empty()) {
      absl::Status tuned = run(now);
      shards_->Release(held);
      XTUNE_RETURN_IF_ERROR(tuned);
    }
    waiting = std::move(still);
    // Another process took the keys this one tried: try the next at once.
    if (!waiting.empty() && now.empty() && free.empty()) {
      absl::SleepFor(shards_->poll_interval());
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<TuningResult> Autotuner::Tune(const Module& fused) {
  Progress progress(options_.progress, options_.progress_interval);
  TuningResult result;
  TuningStats& stats = result.stats;
  std::vector<KeyGroup> groups =
      GroupFusions(*backend_, fused, forced_, &result);
  stats.fusions = static_cast<int>(result.fusions.size());
  stats.unique = static_cast<int>(groups.size());
  // Every key's lookup in one round trip of a remote tier (only with one:
  // XLA's key forms cost a second canonical print).
  if (cache_->Prefetches()) {
    std::vector<AutotuneKey> keys;
    for (const KeyGroup& g : groups) {
      keys.push_back(g.key);
      if (std::optional<AutotuneKey> xla = XlaFormKeyOf(g.key, *g.first)) keys.push_back(*xla);
    }
    (void)cache_->Prefetch(keys);  // a failure is a warning; lookups go one by one
  }

  // Decide each group; the stats count a tuned fusion (and its compiles)
  // once its outcome is known.
  auto assign = [&](const KeyGroup& g, const FusionTuning& decided) {
    for (size_t m : g.members) {
      FusionTuning& ft = result.fusions[m];
      const Instruction* fusion = ft.fusion;
      ft = decided;
      ft.fusion = fusion;
    }
  };
  std::vector<Trial> trials;
  std::vector<const KeyGroup*> missing;
  absl::flat_hash_map<const KeyGroup*, std::vector<Seed>> seeds;
  // In-module timing: the tuned fusions with close finalists.
  // (Not with sharded tuning: every process keeps the published config.)
  const bool in_module = shards_ == nullptr && module_timer_ != nullptr &&
                         options_.in_module_timing &&
                         backend_->TimesInModule() && !backend_->ChecksOnly() &&
                         backend_->CanRunKernels();
  InModuleOptions in_module_options;
  in_module_options.budget = options_.in_module_budget;
  in_module_options.min_band = options_.min_noise_band;
  std::vector<InModuleContest> contests;
  // A backend that only checks (ChecksOnly) keeps the cached or default
  // config of every group and compiles and checks all its candidates.
  const bool checks_only = backend_->ChecksOnly();
  const bool check = checks_only && options_.check_candidates &&
                     options_.level > 0 && backend_->CanRunKernels();
  // Neither kind of backend tunes: misses take the default config.
  const bool no_tuning = checks_only || !backend_->CanRunKernels();
  for (const KeyGroup& g : groups) {
    const std::map<std::string, int> hits_before = stats.hits_by_tier;
    XTUNE_ASSIGN_OR_RETURN(Decision d,
                           Decide(*backend_, *cache_, options_, g, &stats));
    if (options_.verify_cached && !no_tuning && d.kind == Decision::Kind::kDecided &&
        d.source == ConfigSource::kCache) {
      XTUNE_RETURN_IF_ERROR(VerifyRestored(g, hits_before, &d, &stats));
    }
    bool missed = false;
    if (no_tuning && d.kind == Decision::Kind::kTune) {
      missed = true;
      d.kind = Decision::Kind::kDecided;
      d.source = ConfigSource::kDefault;
      d.config = backend_->DefaultConfig(*g.first);
      ++stats.defaults;
 {
        std::cerr << "xtune: warning: fusion '" << g.first->name()
                  << "' is not in the cache for '"
                  << backend_->DeviceDescription() << "'; " << backend_->name()
                  << (checks_only ? " does not tune"
                                  : " cannot run kernels here")
                  << ", so it uses the default config "
                  << d.config.ToString() << "\n";
      }
    }
    if (check && d.kind == Decision::Kind::kDecided) {
      trials.push_back(MakeTrial(*backend_, g,
                                 TuningCandidates(*backend_, *g.first, options_),
                                 options_.level));
    }
    if (d.kind == Decision::Kind::kMissing) {
      missing.push_back(&g);
    } else if (d.kind == Decision::Kind::kTune) {
      std::vector<Seed> seeded =
          checks_only ? std::vector<Seed>()
                      : SeedsFor(*backend_, *cache_, options_.device_match, g);
      std::vector<KernelConfig> configs =
          seeded.empty() ? TuningCandidates(*backend_, *g.first, options_)
                         : SeededCandidates(*backend_, g, seeded);
      if (!seeded.empty()) seeds[&g] = std::move(seeded);
      trials.push_back(MakeTrial(*backend_, g, std::move(configs), options_.level));
    } else {
      FusionTuning decided;
      decided.source = d.source;
      decided.config = d.config;
      decided.chosen_seconds = d.seconds;
      decided.missed = missed;
      assign(g, decided);
    }
  }
  if (!missing.empty()) {
    const KeyGroup& g = *missing.front();
    return absl::NotFoundError(absl::StrCat(
        "complete AOT autotuning results are required "
        "(--xla_gpu_require_complete_aot_autotune_results), but ",
        missing.size(), " of ", groups.size(),
        " unique fusions are not in the cache; the first is fusion '",
        g.first->name(), "' with key ", g.key.ToString()));
  }

  // With the cost model, fusions are pruned and compiled a few at a time
  // (kCompileWindow, so the pool stays busy) just before they are timed,
  // each pruned by what the fusions before the window measured; without it
  // every candidate of every fusion is compiled first.
  const bool prune = options_.cost_model && !options_.exhaustive && !checks_only;
  constexpr size_t kCompileWindow = 4;
  // The model starts from what the cache lists for this device (a loaded
  // file, earlier compiles of this process, a per-fusion directory), so a
  // compile with a cache prunes from its first fusion.
  CostModel model;
  if (prune && !trials.empty()) {
    stats.model_seeded =
        SeedModel(*backend_, *cache_, trials.front().group->key.version, model);
  }
  // Tunes `trials` (compiles, times, checks, chooses, records); a batch
  // at a time with sharded tuning.
  // Device-match seeded groups (SeedsFor): their seeds, until decided.
  std::vector<Trial> retry;
  auto run_trials = [&](std::vector<Trial>& first) -> absl::Status {
    std::vector<Trial> trials = std::move(first);
    while (!trials.empty()) {
      int64_t compile_total = 0, compile_done = 0;
      for (const Trial& t : trials) compile_total += t.configs.size();
      size_t compiled_up_to = prune ? 0 : trials.size();
      if (!prune) {
        CompileTrials(*backend_, absl::MakeSpan(trials), options_.compilation_parallelism,
                      [&](int64_t done, int64_t total) { progress.Compiled(done, total); });
      }

      // Candidates are timed in interleaved rounds so that slow drifts of the
      // machine (frequency, neighbours) hit them all alike; each round has a
      // share of the budget (one profiler session, so one worker, per fusion).
      const int rounds = checks_only ? 1 : std::max(1, options_.rounds);
      ProfileOptions per_round;
      per_round.min_repetitions = std::max(1, options_.min_repetitions / rounds);
      per_round.max_repetitions = options_.max_repetitions;
      if (options_.adaptive_timing && options_.round_repetitions > 0) {
        per_round.max_repetitions =
            std::max(per_round.min_repetitions,
                     std::min(per_round.max_repetitions, options_.round_repetitions));
      }
      per_round.time_budget = options_.time_budget / rounds;
      if (checks_only) {  // one run each: its output is what is checked
        per_round.min_repetitions = per_round.max_repetitions = 1;
        per_round.time_budget = absl::ZeroDuration();
      }
      per_round.timeout = options_.candidate_timeout;
      per_round.flush_bytes = options_.flush_bytes;
      int64_t all_total = 0, all_done = 0;
      stats.checked_only = check;
      for (const Trial& t : trials) all_total += t.configs.size() * rounds;
      for (size_t i = 0; i < trials.size(); ++i) {
        Trial& trial = trials[i];
        const Instruction& f = *trial.group->first;
        if (i == compiled_up_to) {
          const size_t end = std::min(trials.size(), i + kCompileWindow);
          for (size_t w = i; w < end; ++w) {
            if (seeds.contains(trials[w].group)) continue;  // the seeds are the point
            const int pruned = PruneTrial(*backend_, model, trials[w]);
            stats.pruned += pruned;
            compile_total -= pruned;
            all_total -= static_cast<int64_t>(pruned) * rounds;
          }
          const int64_t before = compile_done;
          CompileTrials(*backend_, absl::MakeSpan(&trials[i], end - i),
                        options_.compilation_parallelism, [&](int64_t done, int64_t) {
                          compile_done = before + done;
                          progress.Compiled(compile_done, compile_total);
                        });
          compiled_up_to = end;
        }
        std::vector<Kernel*> session;
        for (auto& k : trial.kernels) session.push_back(k.ok() ? k->get() : nullptr);
        XTUNE_RETURN_IF_ERROR(profiler_->BeginFusion(session, trial.inputs, f.shape()));
        int done = 0;
        absl::Status tuned = TimeRounds(
            *profiler_, trial, per_round, rounds,
            options_.adaptive_timing && !checks_only, options_.min_noise_band, &stats, [&] {
              progress.Update(static_cast<int>(i) + 1,
                              static_cast<int>(trials.size()), f.name(), done++,
                              static_cast<int>(trial.configs.size()), rounds,
                              all_done++, all_total);
            });
        if (tuned.ok()) tuned = VerifyTrial(*backend_, options_, trial, &stats);
        if (tuned.ok() && !checks_only) {
          TimeFinalists(*profiler_, options_, trial, per_round);
        }
        profiler_->EndFusion();
        progress.Clear();
        XTUNE_RETURN_IF_ERROR(tuned);
        if (checks_only) {
          if (trial.all_unimplemented) {
            ++stats.on_evaluator;
          } else {
            stats.compiled += static_cast<int64_t>(trial.configs.size());
            stats.compile_failures += trial.compile_failures;
            for (size_t c = 0; c < trial.configs.size(); ++c) {
              if (!trial.failed[c]) continue;
              if (trial.kernels[c].ok()) ++stats.run_failures;
              if (stats.first_failure.empty()) {
                stats.first_failure = absl::StrCat("fusion '", f.name(), "' with ",
                                             trial.configs[c].ToString(), ": ",
                                             trial.log.candidates[c].message);
              }
            }
          }
          trial.log.checked_only = true;
          trial.log.default_config = backend_->DefaultConfig(f);
          result.logs.push_back(std::move(trial.log));
          trial.kernels.clear();
          continue;
        }
        if (auto seeded = seeds.find(trial.group); seeded != seeds.end()) {
          std::optional<std::string> from =
              SeedAccepted(trial, seeded->second, options_.min_noise_band);
          seeds.erase(seeded);
          if (!from.has_value()) {
            ++stats.seeds_not_enough;
            retry.push_back(MakeTrial(*backend_, *trial.group,
                                      TuningCandidates(*backend_, *trial.group->first, options_),
                                      options_.level));
            trial.kernels.clear();
            continue;
          }
          ++stats.seeded;
          trial.log.seeded_from = *from;
        }
        xla::AutotuneResult stored;
        int winner = -1;
        XTUNE_ASSIGN_OR_RETURN(
            FusionTuning decided,
            ChooseAndRecord(*backend_, *cache_, options_, trial, &stats, &stored,
                            &winner));
        decided.missed = decided.source == ConfigSource::kTuned;
        if (shards_ != nullptr && decided.source == ConfigSource::kTuned) {
          Adopt(*trial.group, stored, &decided, &stats);
        }
        assign(*trial.group, decided);
        if (in_module && decided.source == ConfigSource::kTuned) {
          std::optional<InModuleContest> contest =
              ContestOf(*backend_, trial, winner, in_module_options);
          if (contest.has_value()) {
            for (size_t m : trial.group->members) {
              contest->fusions.push_back(result.fusions[m].fusion);
            }
            contest->group = trial.group;
            contest->stored = std::move(stored);
            contest->log = result.logs.size();
            contests.push_back(std::move(*contest));
          }
        }
        if (prune) ObserveTrial(trial, model);
        result.logs.push_back(std::move(trial.log));
        trial.kernels.clear();  // unload the candidates
      }
      // Seeded searches that did not settle it: the full search.
      trials = std::move(retry);
      retry.clear();
    }
    return absl::OkStatus();
  };
  // Sharded tuning: the misses are taken a few at a time, as other
  // processes take theirs (ShardedTune).
  if (shards_ != nullptr && !checks_only && !trials.empty()) {
    stats.sharded = true;
    XTUNE_RETURN_IF_ERROR(ShardedTune(std::move(trials), run_trials, &stats,
                                      [&](const KeyGroup& g, const FusionTuning& d) {
                                        assign(g, d);
                                      }));
  } else {
    XTUNE_RETURN_IF_ERROR(run_trials(trials));
  }
  progress.Clear();
  if (checks_only) stats.timed = 0;  // run once to check, never timed
  for (const FusionTuning& ft : result.fusions)
    result.configs[ft.fusion] = ft.config;
  if (!contests.empty()) {
    const double before = progress.Elapsed();
    XTUNE_RETURN_IF_ERROR(
        SettleInModule(*backend_, *cache_, *module_timer_, contests,
                       in_module_options, &result));
    stats.in_module_seconds = progress.Elapsed() - before;
  }
  stats.seconds = progress.Elapsed();
  if (!options_.dump_logs_to.empty()) {
    XTUNE_RETURN_IF_ERROR(WriteFileAtomically(options_.dump_logs_to,
                                              TuningLogsToText(result.logs)));
  }
  if (options_.print_summary) {
    std::cerr << "xtune: autotuning: " << stats.ToString() << "\n";
  }
  return result;
}

}  // namespace xtune
