#include "autotune/autotuner.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "autotune/selection.h"
#include "cache/config_proto.h"
#include "codegen/codegen_version.h"
#include "eval/evaluator.h"
#include "fusion/fusion_pass.h"
#include "ir/printer.h"
#include "runtime/compare.h"
#include "runtime/random_inputs.h"
#include "util/file.h"
#include "util/status_macros.h"
#include "util/thread_pool.h"

namespace xtune {
namespace {

// Progress: on a terminal one line rewritten in place; otherwise (CI
// logs) a plain line at most every interval. Thread-safe: candidate
// compiles report from the pool's threads.
class Progress {
 public:
  using Mode = AutotuneOptions::ProgressMode;
  Progress(Mode mode, absl::Duration interval)
      : mode_(mode), interval_(absl::ToDoubleSeconds(interval)) {
    start_ = std::chrono::steady_clock::now();
  }
  // `done` of `total` candidates compiled.
  void Compiled(int64_t done, int64_t total) {
    Show(absl::StrFormat("compiling candidates: %d/%d", done, total), 0, 0);
  }
  // `done` timing runs of fusion `fusion`, whose `candidates` are each
  // timed once per round.
  void Update(int fusion, int fusions, const std::string& name, int done,
              int candidates, int rounds, int64_t all_done,
              int64_t all_total) {
    Show(absl::StrFormat("tuning fusion %d/%d %s: %d/%d timing runs (%d "
                         "candidates x %d rounds)",
                         fusion, fusions, name, done, candidates * rounds,
                         candidates, rounds),
         all_done, all_total);
  }
  void Clear() {
    absl::MutexLock lock(&mu_);
    if (mode_ == Mode::kTerminal && dirty_) std::fprintf(stderr, "\r\033[K");
    dirty_ = false;
  }
  double Elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start_)
        .count();
  }

 private:
  void Show(const std::string& what, int64_t all_done, int64_t all_total) {
    if (mode_ == Mode::kOff) return;
    absl::MutexLock lock(&mu_);
    double elapsed = Elapsed();
    if (mode_ == Mode::kLines && elapsed - last_line_ < interval_) return;
    std::string eta;
    if (all_done > 0 && all_total > all_done) {
      eta = absl::StrFormat(", ~%.0f s left",
                            elapsed / all_done * (all_total - all_done));
    }
    if (mode_ == Mode::kTerminal) {
      std::fprintf(stderr, "\r\033[K[xtune] %s, %.1f s elapsed%s",
                   what.c_str(), elapsed, eta.c_str());
      dirty_ = true;
    } else {
      std::fprintf(stderr, "xtune: %s, %.0f s elapsed%s\n", what.c_str(),
                   elapsed, eta.c_str());
      last_line_ = elapsed;
    }
    std::fflush(stderr);
  }

  const Mode mode_;
  const double interval_;
  absl::Mutex mu_;
  bool dirty_ = false;
  double last_line_ = 0;
  std::chrono::steady_clock::time_point start_;
};

std::vector<Literal> MakeInputs(const Instruction& fusion, int level) {
  std::vector<Literal> inputs;
  for (int64_t i = 0; i < fusion.operand_count(); ++i) {
    const Shape& s = fusion.operand(i)->shape();
    // Level 1 tunes on uninitialized memory in XLA; zeros stand in for it.
    inputs.push_back(level >= 2 ? RandomLiteral(s, 1000 + i) : Literal(s));
  }
  return inputs;
}

FailureKind KindOf(const absl::Status& s) {
  switch (s.code()) {
    case absl::StatusCode::kDeadlineExceeded:
      return FailureKind::kTimeout;
    case absl::StatusCode::kAborted:
      return FailureKind::kCrash;
    default:
      return FailureKind::kRunError;
  }
}

// The cache entry of a tuned fusion: the config, its median, and xtune's
// provenance (every candidate's median too with `candidates`). Provenance
// (field 1010) is left out of entries with XLA's key types unless asked
// for, so such files stay readable by XLA's text parser.
absl::StatusOr<xla::AutotuneResult> ResultFor(const Backend& backend,
                                              const KernelConfig& config,
                                              double seconds,
                                              const FusionLog& log,
                                              int failures, bool candidates) {
  xla::AutotuneResult r;
  XTUNE_RETURN_IF_ERROR(backend.ConfigToResult(config, &r));
  SetDurationSeconds(seconds, r.mutable_run_time());
  bool xla_key = r.key_case() < 1000;
  if (xla_key && !candidates) return r;
  auto* p = r.mutable_xtune_provenance();
  p->set_xtune_version(kXtuneVersionString);
  p->set_candidates(static_cast<int64_t>(log.candidates.size()));
  p->set_failed(failures);
  p->set_noise_band(log.noise_band);
  p->set_tuned_at_unix_seconds(absl::ToUnixSeconds(absl::Now()));
  if (candidates) {
    for (const CandidateLog& cl : log.candidates) {
      auto* c = p->add_timed();
      c->set_config(cl.config.ToString());
      if (cl.median_seconds)
        SetDurationSeconds(*cl.median_seconds, c->mutable_median());
      if (cl.failure != FailureKind::kNone) {
        c->set_failure(XlaFailureKindName(cl.failure));
        c->set_message(cl.message.substr(0, 300));
      }
      if (cl.config == config) {
        for (double t : cl.seconds) SetDurationSeconds(t, p->add_samples());
      }
    }
  }
  return r;
}

}  // namespace

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
      "overridden%s; %d candidates compiled (%d failed), %d timed, %d wrong; "
      "%.2f s",
      fusions, unique, cache_hits, tiers, tuned, defaults, overrides,
      on_evaluator > 0
          ? absl::StrCat(", ", on_evaluator,
                         " on the evaluator (no kernel can be generated)")
          : "",
      compiled, compile_failures, timed, wrong, seconds);
}

std::optional<KernelConfig> Autotuner::FromCache(
    const AutotuneKey& key, const Instruction& fusion, TuningStats* stats,
    std::optional<double>* seconds) {
  absl::StatusOr<std::optional<CacheHit>> looked_up = cache_->Lookup(key);
  if (!looked_up.ok()) {
    // (A StoreChain never fails; a bare store may.)
    std::cerr << "xtune: warning: autotune cache lookup of fusion '"
              << fusion.name() << "' failed (" << looked_up.status().message()
              << "); tuning it\n";
    return std::nullopt;
  }
  std::optional<CacheHit>& hit = *looked_up;
  if (!hit) return std::nullopt;
  absl::StatusOr<KernelConfig> config = backend_->ConfigFromResult(*hit->result);
  if (!config.ok()) {
    std::cerr << "xtune: warning: the cached result of fusion '"
              << fusion.name() << "' is not usable ("
              << config.status().message() << "); tuning it\n";
    return std::nullopt;
  }
  // A stored file may hold anything (an edited or damaged XLA-format file
  // has no checksum): a config the backend would refuse is tuned instead.
  if (absl::Status s = backend_->CheckConfig(fusion, *config); !s.ok()) {
    std::cerr << "xtune: warning: the cached config of fusion '"
              << fusion.name() << "' cannot be used (" << s.message()
              << "); tuning it\n";
    return std::nullopt;
  }
  ++stats->cache_hits;
  ++stats->hits_by_tier[hit->tier];
  *seconds = RunTimeSeconds(*hit->result);
  return *config;
}

AutotuneKey KeyOf(const Backend& backend, const Instruction& fusion) {
  return AutotuneKey{backend.DeviceDescription(),
                     CanonicalText(*fusion.called_computations()[0]),
                     kCodegenVersion};
}

Autotuner::Autotuner(Backend* backend, AutotuneCache* cache, Profiler* profiler,
                     AutotuneOptions options)
    : backend_(backend),
      cache_(cache),
      profiler_(profiler),
      options_(std::move(options)) {}

absl::StatusOr<TuningResult> Autotuner::Tune(const Module& fused) {
  Progress progress(options_.progress, options_.progress_interval);
  TuningResult result;
  TuningStats& stats = result.stats;

  // Group fusions by key: identical fusions are tuned once.
  struct Unique {
    AutotuneKey key;
    const Instruction* first;
    std::vector<size_t> members;  // indices into result.fusions
    std::vector<KernelConfig> candidates;
    std::vector<absl::StatusOr<std::unique_ptr<Kernel>>> kernels;
    bool tune = false;
  };
  std::vector<Unique> uniques;
  absl::flat_hash_map<AutotuneKey, size_t> index_of;
  for (const auto& inst : fused.entry()->instructions()) {
    if (inst->opcode() != Opcode::kFusion) continue;
    FusionTuning ft;
    ft.fusion = inst.get();
    auto forced = forced_.find(inst->name());
    if (forced != forced_.end()) {
      ft.source = ConfigSource::kOverride;
      ft.config = forced->second;
      ++stats.overrides;
      result.fusions.push_back(ft);
      continue;
    }
    result.fusions.push_back(ft);
    AutotuneKey key = KeyOf(*backend_, *inst);
    auto [it, inserted] = index_of.emplace(key, uniques.size());
    if (inserted) uniques.push_back(Unique{key, inst.get(), {}, {}, {}, false});
    uniques[it->second].members.push_back(result.fusions.size() - 1);
  }
  stats.fusions = static_cast<int>(result.fusions.size());
  stats.unique = static_cast<int>(uniques.size());

  // Decide what each unique fusion needs. The stats count a tuned fusion
  // (and its compiles) once its outcome is known, below.
  int to_tune = 0;
  std::vector<const Unique*> misses;  // with require_complete
  for (Unique& u : uniques) {
    const Instruction& f = *u.first;
    FusionTuning decided;
    bool is_gemm = ClassifyFusion(f) == FusionKind::kGemm;
    if (!options_.override_gemm.empty() && is_gemm) {
      XTUNE_ASSIGN_OR_RETURN(decided.config,
                             backend_->GemmOverride(f, options_.override_gemm));
      decided.source = ConfigSource::kOverride;
      ++stats.overrides;
    } else if (options_.level <= 0 || !backend_->Tunable()) {
      decided.config = backend_->DefaultConfig(f);
      decided.source = ConfigSource::kDefault;
      ++stats.defaults;
    } else if (std::optional<KernelConfig> hit =
                   FromCache(u.key, f, &stats, &decided.chosen_seconds)) {
      decided.config = *hit;
      decided.source = ConfigSource::kCache;
    } else if (options_.require_complete) {
      misses.push_back(&u);
      continue;
    } else {
      u.tune = true;
      ++to_tune;
      u.candidates = backend_->Candidates(f, options_.exhaustive);
      if (!options_.library_fallback) {
        u.candidates.erase(
            std::remove_if(u.candidates.begin(), u.candidates.end(),
                           [&](const KernelConfig& c) {
                             return backend_->IsLibraryCall(c);
                           }),
            u.candidates.end());
      }
      KernelConfig def = backend_->DefaultConfig(f);
      if (std::find(u.candidates.begin(), u.candidates.end(), def) ==
          u.candidates.end()) {
        u.candidates.insert(
            std::lower_bound(u.candidates.begin(), u.candidates.end(), def),
            def);
      }
      continue;
    }
    for (size_t m : u.members) {
      FusionTuning& ft = result.fusions[m];
      ft.source = decided.source;
      ft.config = decided.config;
      ft.chosen_seconds = decided.chosen_seconds;
    }
  }

  if (!misses.empty()) {
    const Unique& u = *misses.front();
    return absl::NotFoundError(absl::StrCat(
        "complete AOT autotuning results are required "
        "(--xla_gpu_require_complete_aot_autotune_results), but ",
        misses.size(), " of ", uniques.size(),
        " unique fusions are not in the cache; the first is fusion '",
        u.first->name(), "' with key ", u.key.ToString()));
  }

  // Compile every candidate of every fusion to tune, in parallel.
  std::vector<std::pair<size_t, size_t>> jobs;
  for (size_t u = 0; u < uniques.size(); ++u) {
    if (!uniques[u].tune) continue;
    uniques[u].kernels.resize(uniques[u].candidates.size());
    for (size_t c = 0; c < uniques[u].candidates.size(); ++c)
      jobs.push_back({u, c});
  }
  if (!jobs.empty()) {
    ThreadPool pool(options_.compilation_parallelism);
    std::atomic<int64_t> compiled{0};
    const int64_t total = static_cast<int64_t>(jobs.size());
    pool.ParallelFor(total, 0, [&](int64_t j) {
      auto [u, c] = jobs[j];
      uniques[u].kernels[c] =
          backend_->Compile(*uniques[u].first, uniques[u].candidates[c]);
      progress.Compiled(++compiled, total);
    });
  }

  ProfileOptions profile;
  profile.min_repetitions = options_.min_repetitions;
  profile.max_repetitions = options_.max_repetitions;
  profile.time_budget = options_.time_budget;
  profile.timeout = options_.candidate_timeout;
  profile.flush_bytes = options_.flush_bytes;
  CompareOptions tolerance;
  tolerance.f32_tolerance = options_.rtol;
  tolerance.f16_tolerance = options_.rtol;

  int64_t all_total = 0, all_done = 0;
  for (const Unique& u : uniques) all_total += u.tune ? u.candidates.size() : 0;
  int tuned_index = 0;
  for (Unique& u : uniques) {
    if (!u.tune) continue;
    ++tuned_index;
    const Instruction& f = *u.first;
    const Computation& fused_comp = *f.called_computations()[0];
    std::vector<Literal> inputs = MakeInputs(f, options_.level);
    FusionLog log;
    log.fusion = f.name();
    log.key = u.key;
    log.candidates.resize(u.candidates.size());
    std::vector<Timed> timed(u.candidates.size());
    std::vector<bool> wrong(u.candidates.size(), false);
    std::vector<bool> failed(u.candidates.size(), false);
    std::vector<std::optional<Literal>> outputs(u.candidates.size());
    bool all_unimplemented = true;
    int64_t compile_failures = 0;  // into the stats once the outcome is known
    // Profile the library candidate first: for gemms it is the reference.
    std::vector<size_t> order;
    for (size_t c = 0; c < u.candidates.size(); ++c) {
      if (backend_->IsLibraryCall(u.candidates[c])) order.push_back(c);
    }
    for (size_t c = 0; c < u.candidates.size(); ++c) {
      if (!backend_->IsLibraryCall(u.candidates[c])) order.push_back(c);
    }
    // Candidates are timed in interleaved rounds so that slow drifts of
    // the machine (frequency, neighbours) hit them all alike; each round is
    // a fresh worker with a share of the budget.
    int rounds = std::max(1, options_.rounds);
    ProfileOptions per_round = profile;
    per_round.time_budget = profile.time_budget / rounds;
    per_round.min_repetitions = std::max(1, profile.min_repetitions / rounds);
    std::vector<Kernel*> session;
    for (auto& k : u.kernels) session.push_back(k.ok() ? k->get() : nullptr);
    XTUNE_RETURN_IF_ERROR(profiler_->BeginFusion(session, inputs, f.shape()));
    int done = 0;
    for (int round = 0; round < rounds; ++round) {
      for (size_t c : order) {
        CandidateLog& cl = log.candidates[c];
        cl.config = u.candidates[c];
        if (failed[c]) continue;
        progress.Update(tuned_index, to_tune, f.name(), done++,
                        static_cast<int>(u.candidates.size()), rounds,
                        all_done++, all_total * rounds);
        absl::StatusOr<std::unique_ptr<Kernel>>& kernel = u.kernels[c];
        if (!kernel.ok()) {
          failed[c] = true;
          timed[c].eligible = false;
          cl.failure = FailureKind::kCompileError;
          cl.message = std::string(kernel.status().message());
          ++compile_failures;
          all_unimplemented &=
              kernel.status().code() == absl::StatusCode::kUnimplemented;
          continue;
        }
        all_unimplemented = false;
        absl::StatusOr<ProfileResult> p = profiler_->Profile(
            **kernel, u.candidates[c], inputs, f.shape(), per_round);
        if (!p.ok()) {
          failed[c] = true;
          timed[c].eligible = false;
          cl.failure = KindOf(p.status());
          cl.message = std::string(p.status().message());
          outputs[c].reset();
          continue;
        }
        if (round == 0) {
          ++stats.timed;
          outputs[c] = std::move(p->output);
        }
        timed[c].seconds.insert(timed[c].seconds.end(), p->seconds.begin(),
                                p->seconds.end());
        timed[c].round_scores.push_back(Score(p->seconds));
      }
    }
    std::vector<double> medians(u.candidates.size(), 0);
    for (size_t c = 0; c < u.candidates.size(); ++c) {
      if (failed[c] || timed[c].seconds.empty()) continue;
      medians[c] = Median(timed[c].seconds);
      log.candidates[c].seconds = timed[c].seconds;
      log.candidates[c].median_seconds = medians[c];
    }
    // (The session stays open for the finalists below.)
    // The reference: the library candidate's output for gemms, else the
    // evaluator's.
    if (options_.level >= 4) {
      std::optional<Literal> reference;
      for (size_t c = 0; c < u.candidates.size(); ++c) {
        if (backend_->IsLibraryCall(u.candidates[c]) && outputs[c].has_value()) {
          reference = *outputs[c];
          break;
        }
      }
      if (!reference.has_value()) {
        EvaluatorOptions eval_options;
        eval_options.excess_precision = options_.excess_precision;
        absl::StatusOr<Literal> eval =
            EvaluateComputation(fused_comp, inputs, eval_options);
        if (eval.ok()) reference = std::move(*eval);
      }
      if (reference.has_value()) {
        for (size_t c = 0; c < u.candidates.size(); ++c) {
          if (!outputs[c].has_value()) continue;
          absl::Status match = CompareLiterals(
              *reference, *outputs[c],
              absl::StrCat(f.name(), " with ", u.candidates[c].ToString()),
              tolerance);
          if (match.ok()) continue;
          if (options_.crash_on_verification_failures) {
            progress.Clear();
            profiler_->EndFusion();
            return absl::InternalError(absl::StrCat(
                "autotuning verification failed (--xla_gpu_crash_on_"
                "verification_failures): ",
                match.message()));
          }
          wrong[c] = true;
          ++stats.wrong;
          log.candidates[c].failure = FailureKind::kWrongResult;
          log.candidates[c].message = std::string(match.message());
        }
      }
    }
    // Wrong results are passed over while a correct candidate exists
    // (level 4), always at level 5.
    bool any_correct = false;
    for (size_t c = 0; c < u.candidates.size(); ++c) {
      any_correct |= timed[c].eligible && !wrong[c];
    }
    for (size_t c = 0; c < u.candidates.size(); ++c) {
      if (wrong[c] && (any_correct || options_.level >= 5)) {
        timed[c].eligible = false;
      }
    }
    // Finalists: the candidates close to the best get more rounds, so the
    // choice among near-equals rests on more evidence (this curbs the
    // "winner's curse" of picking whichever got lucky once).
    if (options_.final_rounds > 0) {
      double band0 = 0;
      int leader = SelectWinner(timed, options_.min_noise_band, &band0);
      if (leader >= 0) {
        double best_score = Score(timed[leader].seconds);
        for (size_t c = 0; c < timed.size(); ++c) {
          if (timed[c].eligible && !timed[c].seconds.empty() &&
              Score(timed[c].seconds) < best_score) {
            best_score = Score(timed[c].seconds);
          }
        }
        double limit = best_score * (1 + std::max(2 * band0, 0.05));
        std::vector<size_t> finalists;
        for (size_t c : order) {
          if (timed[c].eligible && !timed[c].seconds.empty() &&
              Score(timed[c].seconds) <= limit && finalists.size() < 8) {
            finalists.push_back(c);
          }
        }
        if (finalists.size() > 1) {
          for (int round = 0; round < options_.final_rounds; ++round) {
            for (size_t c : finalists) {
              absl::StatusOr<ProfileResult> p =
                  profiler_->Profile(**u.kernels[c], u.candidates[c], inputs,
                                     f.shape(), per_round);
              if (!p.ok()) continue;
              timed[c].seconds.insert(timed[c].seconds.end(),
                                      p->seconds.begin(), p->seconds.end());
              timed[c].round_scores.push_back(Score(p->seconds));
            }
          }
          for (size_t c : finalists) {
            medians[c] = Median(timed[c].seconds);
            log.candidates[c].seconds = timed[c].seconds;
            log.candidates[c].median_seconds = medians[c];
          }
        }
      }
    }
    profiler_->EndFusion();
    double band = 0;
    int winner = SelectWinner(timed, options_.min_noise_band, &band);
    log.noise_band = band;
    FusionTuning decided;
    KernelConfig def = backend_->DefaultConfig(f);
    int failures = 0;
    std::optional<double> default_seconds;
    for (size_t c = 0; c < u.candidates.size(); ++c) {
      failures += failed[c] || wrong[c];
      if (u.candidates[c] == def && medians[c] > 0) {
        default_seconds = medians[c];
      }
    }
    if (winner < 0) {
      if (!all_unimplemented) {
        progress.Clear();
        std::string why;
        for (const CandidateLog& cl : log.candidates) {
          if (cl.failure != FailureKind::kNone) {
            absl::StrAppend(&why, "\n  ", cl.config.ToString(), ": ",
                            cl.message.substr(0, 200));
          }
        }
        return absl::InternalError(absl::StrCat("autotuning fusion '", f.name(),
                                                "': all ", u.candidates.size(),
                                                " candidates failed:", why));
      }
      // Nothing can be generated: the executable runs it on the evaluator,
      // so it was not tuned (nothing goes into the cache) and its candidates
      // were never kernels (not compiles that failed).
      decided.config = def;
      decided.source = ConfigSource::kDefault;
      ++stats.on_evaluator;
    } else {
      ++stats.tuned;
      stats.compiled += static_cast<int64_t>(u.candidates.size());
      stats.compile_failures += compile_failures;
      bool any_wrong =
          std::find(wrong.begin(), wrong.end(), true) != wrong.end();
      if (!any_correct && any_wrong) {
        progress.Clear();
        std::cerr << "xtune: warning: every candidate of fusion '" << f.name()
                  << "' disagrees with the reference; choosing the fastest\n";
      }
      decided.config = u.candidates[winner];
      decided.source = ConfigSource::kTuned;
      decided.chosen_seconds = medians[winner];
      log.selected = u.candidates[winner];
      XTUNE_ASSIGN_OR_RETURN(
          xla::AutotuneResult stored,
          ResultFor(*backend_, u.candidates[winner], medians[winner], log,
                    failures, options_.record_candidates));
      XTUNE_RETURN_IF_ERROR(cache_->Insert(u.key, stored));
    }
    for (size_t m : u.members) {
      FusionTuning& ft = result.fusions[m];
      ft.source = decided.source;
      ft.config = decided.config;
      ft.chosen_seconds = decided.chosen_seconds;
      ft.default_seconds = default_seconds;
      ft.candidates = static_cast<int>(u.candidates.size());
      ft.failed = failures;
    }
    result.logs.push_back(std::move(log));
    u.kernels.clear();  // unload the candidates
  }
  progress.Clear();
  for (const FusionTuning& ft : result.fusions)
    result.configs[ft.fusion] = ft.config;
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
