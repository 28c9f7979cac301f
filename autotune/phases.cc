#include "autotune/phases.h"

#include <algorithm>
#include <cmath>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "cache/config_proto.h"
#include "codegen/codegen_version.h"
#include "eval/evaluator.h"
#include "fusion/fusion_pass.h"
#include "ir/library_call.h"
#include "ir/printer.h"
#include "runtime/compare.h"
#include "runtime/random_inputs.h"
#include "util/status_macros.h"
#include "util/thread_pool.h"

namespace xtune {
namespace {

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

// The cached config of `key`; nullopt on a miss (a stored result the
// backend cannot use is a miss, with a warning).
std::optional<KernelConfig> FromCache(const Backend& backend,
                                      AutotuneCache& cache,
                                      const AutotuneKey& key,
                                      const Instruction& fusion,
                                      TuningStats* stats,
                                      std::optional<double>* seconds) {
  absl::StatusOr<std::optional<CacheHit>> looked_up = cache.Lookup(key);
  if (!looked_up.ok()) {
    // (A StoreChain never fails; a bare store may.)
    std::cerr << "xtune: warning: autotune cache lookup of fusion '"
              << fusion.name() << "' failed (" << looked_up.status().message()
              << "); tuning it\n";
    return std::nullopt;
  }
  std::optional<CacheHit>& hit = *looked_up;
  if (!hit) return std::nullopt;
  absl::StatusOr<KernelConfig> config =
      backend.ConfigFromResultFor(fusion, *hit->result);
  if (!config.ok()) {
    std::cerr << "xtune: warning: the cached result of fusion '"
              << fusion.name() << "' is not usable ("
              << config.status().message() << "); not using it\n";
    return std::nullopt;
  }
  // A stored file may hold anything (an edited or damaged XLA-format file
  // has no checksum): a config the backend would refuse is tuned instead.
  if (absl::Status s = backend.CheckConfig(fusion, *config); !s.ok()) {
    std::cerr << "xtune: warning: the cached config of fusion '"
              << fusion.name() << "' cannot be used (" << s.message()
              << "); not using it\n";
    return std::nullopt;
  }
  ++stats->cache_hits;
  ++stats->hits_by_tier[hit->tier];
  *seconds = RunTimeSeconds(*hit->result);
  return *config;
}

// FromCache with xtune's key, then with XLA's form of it (XlaFormKeyOf).
std::optional<KernelConfig> FromCacheInEitherForm(
    const Backend& backend, AutotuneCache& cache, const AutotuneKey& key,
    const Instruction& fusion, TuningStats* stats,
    std::optional<double>* seconds) {
  if (std::optional<KernelConfig> hit =
          FromCache(backend, cache, key, fusion, stats, seconds)) {
    return hit;
  }
  std::optional<AutotuneKey> xla = XlaFormKeyOf(key, fusion);
  if (!xla.has_value()) return std::nullopt;
  return FromCache(backend, cache, *xla, fusion, stats, seconds);
}

void UpdateMedians(Trial& trial, const std::vector<size_t>& which) {
  for (size_t c : which) {
    if (trial.failed[c] || trial.timed[c].seconds.empty()) continue;
    trial.medians[c] = Median(trial.timed[c].seconds);
    trial.log.candidates[c].seconds = trial.timed[c].seconds;
    trial.log.candidates[c].round_seconds = trial.timed[c].round_scores;
    trial.log.candidates[c].median_seconds = trial.medians[c];
  }
}

}  // namespace

std::string KeyTextOf(const Instruction& fusion) {
  if (std::optional<LibraryFusion> call = LibraryFusionOf(fusion)) {
    return call->key;
  }
  return CanonicalText(*fusion.called_computations()[0]);
}

AutotuneKey KeyOf(const Backend& backend, const Instruction& fusion) {
  return AutotuneKey{backend.DeviceDescription(), KeyTextOf(fusion),
                     kCodegenVersion};
}

std::optional<AutotuneKey> XlaFormKeyOf(const AutotuneKey& key,
                                        const Instruction& fusion) {
  if (std::optional<LibraryFusion> call = LibraryFusionOf(fusion)) {
    // Older XLA's key of the same call (its config unsorted).
    if (call->legacy_key.empty()) return std::nullopt;
    return AutotuneKey{key.device, call->legacy_key, key.version};
  }
  const Computation& fused = *fusion.called_computations()[0];
  bool calls = false;
  for (const auto& inst : fused.instructions()) {
    calls |= !inst->called_computations().empty();
  }
  if (!calls) return std::nullopt;
  CanonicalOptions xla_form;
  xla_form.print_called_computations = false;
  return AutotuneKey{key.device, CanonicalText(fused, xla_form), key.version};
}

std::vector<KeyGroup> GroupFusions(
    const Backend& backend, const Module& fused,
    const absl::flat_hash_map<std::string, KernelConfig>& forced,
    TuningResult* result) {
  std::vector<KeyGroup> groups;
  absl::flat_hash_map<AutotuneKey, size_t> index_of;
  for (const Instruction* inst : FusionsOf(fused)) {
    FusionTuning ft;
    ft.fusion = inst;
    auto f = forced.find(inst->name());
    if (f != forced.end()) {
      ft.source = ConfigSource::kOverride;
      ft.config = f->second;
      ++result->stats.overrides;
      result->fusions.push_back(ft);
      continue;
    }
    result->fusions.push_back(ft);
    AutotuneKey key = KeyOf(backend, *inst);
    auto [it, inserted] = index_of.emplace(key, groups.size());
    if (inserted) groups.push_back(KeyGroup{key, inst, {}});
    groups[it->second].members.push_back(result->fusions.size() - 1);
  }
  return groups;
}

absl::StatusOr<Decision> Decide(const Backend& backend, AutotuneCache& cache,
                                const AutotuneOptions& options,
                                const KeyGroup& group, TuningStats* stats) {
  const Instruction& f = *group.first;
  Decision d;
  d.kind = Decision::Kind::kDecided;
  if (!backend.Tunable()) {
    d.config = backend.DefaultConfig(f);
    d.source = ConfigSource::kDefault;
    ++stats->defaults;
  } else if (!options.override_gemm.empty() &&
             ClassifyFusion(f) == FusionKind::kGemm) {
    XTUNE_ASSIGN_OR_RETURN(d.config,
                           backend.GemmOverride(f, options.override_gemm));
    d.source = ConfigSource::kOverride;
    ++stats->overrides;
  } else if (options.level <= 0) {
    d.config = backend.DefaultConfig(f);
    d.source = ConfigSource::kDefault;
    ++stats->defaults;
  } else if (std::optional<KernelConfig> hit = FromCacheInEitherForm(
                 backend, cache, group.key, f, stats, &d.seconds)) {
    d.config = *hit;
    d.source = ConfigSource::kCache;
  } else {
    d.kind = options.require_complete ? Decision::Kind::kMissing
                                      : Decision::Kind::kTune;
  }
  return d;
}

std::vector<KernelConfig> TuningCandidates(const Backend& backend,
                                           const Instruction& fusion,
                                           const AutotuneOptions& options) {
  std::vector<KernelConfig> out = backend.Candidates(fusion, options.exhaustive);
  if (!options.library_fallback) {
    out.erase(std::remove_if(out.begin(), out.end(),
                             [&](const KernelConfig& c) {
                               return backend.IsLibraryCall(c);
                             }),
              out.end());
  }
  KernelConfig def = backend.DefaultConfig(fusion);
  if (std::find(out.begin(), out.end(), def) == out.end()) {
    out.insert(std::lower_bound(out.begin(), out.end(), def), def);
  }
  return out;
}

namespace {

// The per-candidate records of `t` for `configs`, empty; library calls are
// timed first (for gemms they are the reference).
void SetCandidates(const Backend& backend, std::vector<KernelConfig> configs,
                   Trial& t) {
  size_t n = configs.size();
  t.configs = std::move(configs);
  t.kernels.clear();
  t.kernels.resize(n);
  t.timed.assign(n, Timed{});
  t.failed.assign(n, false);
  t.stopped.assign(n, false);
  t.wrong.assign(n, false);
  t.outputs.clear();
  t.outputs.resize(n);
  t.medians.assign(n, 0);
  t.log.candidates.assign(n, CandidateLog{});
  for (size_t c = 0; c < n; ++c) {
    t.log.candidates[c].config = t.configs[c];
    t.timed[c].threads = backend.HostThreads(t.configs[c]);
  }
  t.order.clear();
  for (size_t c = 0; c < n; ++c) {
    if (backend.IsLibraryCall(t.configs[c])) t.order.push_back(c);
  }
  for (size_t c = 0; c < n; ++c) {
    if (!backend.IsLibraryCall(t.configs[c])) t.order.push_back(c);
  }
}

}  // namespace

Trial MakeTrial(const Backend& backend, const KeyGroup& group,
                std::vector<KernelConfig> configs, int level) {
  Trial t;
  t.group = &group;
  const Instruction& f = *group.first;
  for (int64_t i = 0; i < f.operand_count(); ++i) {
    const Shape& s = f.operand(i)->shape();
    // Level 1 tunes on uninitialized memory in XLA; zeros stand in for it.
    t.inputs.push_back(level >= 2 ? RandomLiteral(s, 1000 + i) : Literal(s));
  }
  t.log.fusion = f.name();
  t.log.key = group.key;
  t.generated = configs;
  SetCandidates(backend, std::move(configs), t);
  return t;
}

int PruneTrial(const Backend& backend, const CostModel& model, Trial& trial) {
  const Instruction& f = *trial.group->first;
  const std::vector<std::optional<double>> predicted =
      model.Predict(f, trial.configs);
  const KernelConfig def = backend.DefaultConfig(f);
  std::vector<bool> always(trial.configs.size());
  for (size_t c = 0; c < trial.configs.size(); ++c) {
    always[c] = backend.IsLibraryCall(trial.configs[c]) || trial.configs[c] == def;
  }
  const std::vector<bool> keep = model.Keep(predicted, always);
  std::vector<KernelConfig> kept;
  for (size_t c = 0; c < trial.configs.size(); ++c) {
    if (keep[c]) {
      kept.push_back(trial.configs[c]);
    } else {
      trial.log.pruned.push_back({trial.configs[c], *predicted[c]});
    }
  }
  const int pruned = static_cast<int>(trial.configs.size() - kept.size());
  if (pruned > 0) SetCandidates(backend, std::move(kept), trial);
  return pruned;
}

CostModel::Sample SampleOf(const Trial& trial) {
  CostModel::Sample sample;
  FusionSize(*trial.group->first, sample.size);
  sample.generated = trial.generated;
  for (size_t c = 0; c < trial.configs.size(); ++c) {
    CostModel::Measurement m{trial.configs[c], std::nullopt};
    if (!trial.failed[c] && !trial.wrong[c] && trial.medians[c] > 0) {
      m.seconds = trial.medians[c];
    }
    sample.measured.push_back(std::move(m));
  }
  return sample;
}

void ObserveTrial(const Trial& trial, CostModel& model) {
  model.Observe(SampleOf(trial));
}

int SeedModel(const Backend& backend, const AutotuneCache& cache, int version,
              CostModel& model) {
  int used = 0;
  for (const auto& [key, result] :
       cache.ListEntries(backend.DeviceDescription(), version)) {
    if (!result->xtune_provenance().has_cost_model()) continue;
    absl::StatusOr<CostModel::Sample> sample =
        CostModel::FromProto(result->xtune_provenance().cost_model());
    if (!sample.ok() || sample->measured.empty()) continue;
    model.Observe(*sample);
    ++used;
  }
  return used;
}

ProfileOptions AdaptedTo(const ProfileOptions& per_round, const Timed& timed) {
  ProfileOptions o = per_round;
  if (timed.seconds.empty()) {
    o.min_warmup_runs = std::min(o.min_warmup_runs, 1);
    return o;
  }
  const double run = Score(timed.seconds);
  if (run > 1e-3) o.min_warmup_runs = 0;
  if (run * o.min_repetitions > absl::ToDoubleSeconds(o.time_budget)) {
    o.min_repetitions = 1;
  }
  return o;
}

namespace {

// Stops timing the candidates that cannot reach the leader (the fastest
// median so far): after round 0, those whose one round took over twice
// the leader's median; later, those whose fastest round is beyond
// max(3 x band, 15%) of it.
void StopHopeless(Trial& trial, int round, double min_band, TuningStats* stats) {
  double leader = INFINITY;
  const size_t n = trial.configs.size();
  for (size_t c = 0; c < n; ++c) {
    if (!trial.failed[c] && !trial.stopped[c] && !trial.timed[c].seconds.empty()) {
      leader = std::min(leader, Score(trial.timed[c].seconds));
    }
  }
  if (!std::isfinite(leader)) return;
  double margin = 1.0;
  if (round > 0) {
    double band = 0;
    SelectWinner(trial.timed, min_band, &band);
    margin = std::max(3 * band, 0.15);
  }
  for (size_t c = 0; c < n; ++c) {
    const std::vector<double>& rounds = trial.timed[c].round_scores;
    if (trial.failed[c] || trial.stopped[c] || rounds.empty()) continue;
    double fastest = *std::min_element(rounds.begin(), rounds.end());
    if (fastest > leader * (1 + margin)) {
      trial.stopped[c] = true;
      ++stats->stopped_early;
    }
  }
}

}  // namespace

absl::Status TimeRounds(Profiler& profiler, Trial& trial,
                        const ProfileOptions& per_round, int rounds,
                        bool adaptive, double min_band, TuningStats* stats,
                        const std::function<void()>& timed_one) {
  const Instruction& f = *trial.group->first;
  for (int round = 0; round < rounds; ++round) {
    if (adaptive && round > 0) StopHopeless(trial, round - 1, min_band, stats);
    for (size_t c : trial.order) {
      if (trial.failed[c] || trial.stopped[c]) continue;
      if (timed_one) timed_one();
      CandidateLog& cl = trial.log.candidates[c];
      absl::StatusOr<std::unique_ptr<Kernel>>& kernel = trial.kernels[c];
      if (!kernel.ok()) {
        trial.failed[c] = true;
        trial.timed[c].eligible = false;
        cl.failure = FailureKind::kCompileError;
        cl.message = std::string(kernel.status().message());
        ++trial.compile_failures;
        trial.all_unimplemented &=
            kernel.status().code() == absl::StatusCode::kUnimplemented;
        continue;
      }
      trial.all_unimplemented = false;
      absl::StatusOr<ProfileResult> p = profiler.Profile(
          **kernel, trial.configs[c], trial.inputs, f.shape(),
          adaptive ? AdaptedTo(per_round, trial.timed[c]) : per_round);
      if (!p.ok()) {
        // No worker at all is not this candidate's failure.
        if (p.status().code() == absl::StatusCode::kUnavailable) {
          return absl::Status(p.status().code(),
                              absl::StrCat("cannot time candidates: ",
                                           p.status().message()));
        }
        trial.failed[c] = true;
        trial.timed[c].eligible = false;
        cl.failure = KindOf(p.status());
        cl.message = std::string(p.status().message());
        trial.outputs[c].reset();
        continue;
      }
      if (round == 0) {
        ++stats->timed;
        trial.outputs[c] = std::move(p->output);
      }
      trial.timed[c].seconds.insert(trial.timed[c].seconds.end(),
                                    p->seconds.begin(), p->seconds.end());
      trial.timed[c].round_scores.push_back(Score(p->seconds));
    }
  }
  std::vector<size_t> all(trial.configs.size());
  for (size_t c = 0; c < all.size(); ++c) all[c] = c;
  UpdateMedians(trial, all);
  return absl::OkStatus();
}

absl::Status VerifyTrial(const Backend& backend, const AutotuneOptions& options,
                         Trial& trial, TuningStats* stats) {
  const Instruction& f = *trial.group->first;
  const size_t n = trial.configs.size();
  if (options.level >= 4) {
    std::optional<Literal> reference;
    for (size_t c = 0; c < n; ++c) {
      if (backend.IsLibraryCall(trial.configs[c]) &&
          trial.outputs[c].has_value()) {
        reference = *trial.outputs[c];
        break;
      }
    }
    if (!reference.has_value()) {
      EvaluatorOptions eval_options;
      eval_options.excess_precision = options.excess_precision;
      eval_options.tf32_dots = backend.Tf32Dots();
      absl::StatusOr<Literal> eval = EvaluateComputation(
          *f.called_computations()[0], trial.inputs, eval_options);
      if (eval.ok()) reference = std::move(*eval);
    }
    if (reference.has_value()) {
      CompareOptions tolerance;
      tolerance.f32_tolerance = options.rtol;
      tolerance.f16_tolerance = options.rtol;
      for (size_t c = 0; c < n; ++c) {
        if (!trial.outputs[c].has_value()) continue;
        absl::Status match = CompareLiterals(
            *reference, *trial.outputs[c],
            absl::StrCat(f.name(), " with ", trial.configs[c].ToString()),
            tolerance);
        if (match.ok()) continue;
        if (options.crash_on_verification_failures) {
          return absl::InternalError(absl::StrCat(
              "autotuning verification failed (--xla_gpu_crash_on_"
              "verification_failures): ",
              match.message()));
        }
        trial.wrong[c] = true;
        ++stats->wrong;
        trial.log.candidates[c].failure = FailureKind::kWrongResult;
        trial.log.candidates[c].message = std::string(match.message());
      }
    }
  }
  // Wrong results are passed over while a correct candidate exists
  // (level 4), always at level 5.
  bool any_correct = false;
  for (size_t c = 0; c < n; ++c) {
    any_correct |= trial.timed[c].eligible && !trial.wrong[c];
  }
  for (size_t c = 0; c < n; ++c) {
    if (trial.wrong[c] && (any_correct || options.level >= 5)) {
      trial.timed[c].eligible = false;
    }
  }
  return absl::OkStatus();
}

void TimeFinalists(Profiler& profiler, const AutotuneOptions& options,
                   Trial& trial, const ProfileOptions& per_round) {
  if (options.final_rounds <= 0) return;
  std::vector<Timed>& timed = trial.timed;
  double band = 0;
  int leader = SelectWinner(timed, options.min_noise_band, &band);
  if (leader < 0) return;
  double best_score = Score(timed[leader].seconds);
  for (const Timed& t : timed) {
    if (t.eligible && !t.seconds.empty() && Score(t.seconds) < best_score) {
      best_score = Score(t.seconds);
    }
  }
  double limit = best_score * (1 + std::max(2 * band, 0.05));
  std::vector<size_t> finalists;
  for (size_t c : trial.order) {
    if (timed[c].eligible && !timed[c].seconds.empty() &&
        Score(timed[c].seconds) <= limit && finalists.size() < 8) {
      finalists.push_back(c);
    }
  }
  if (finalists.size() <= 1) return;
  const Instruction& f = *trial.group->first;
  for (int round = 0; round < options.final_rounds; ++round) {
    for (size_t c : finalists) {
      absl::StatusOr<ProfileResult> p = profiler.Profile(
          **trial.kernels[c], trial.configs[c], trial.inputs, f.shape(),
          options.adaptive_timing ? AdaptedTo(per_round, timed[c]) : per_round);
      if (!p.ok()) continue;
      timed[c].seconds.insert(timed[c].seconds.end(), p->seconds.begin(),
                              p->seconds.end());
      timed[c].round_scores.push_back(Score(p->seconds));
    }
  }
  UpdateMedians(trial, finalists);
}

absl::StatusOr<FusionTuning> ChooseAndRecord(
    const Backend& backend, AutotuneCache& cache,
    const AutotuneOptions& options, Trial& trial, TuningStats* stats,
    xla::AutotuneResult* stored_out, int* winner_out) {
  const Instruction& f = *trial.group->first;
  const size_t n = trial.configs.size();
  double band = 0;
  int winner = SelectWinner(trial.timed, options.min_noise_band, &band);
  trial.log.noise_band = band;
  KernelConfig def = backend.DefaultConfig(f);
  trial.log.default_config = def;
  FusionTuning decided;
  decided.fusion = &f;
  decided.candidates = static_cast<int>(n);
  bool any_correct = false, any_wrong = false;
  for (size_t c = 0; c < n; ++c) {
    decided.failed += trial.failed[c] || trial.wrong[c];
    any_correct |= !trial.failed[c] && !trial.wrong[c] &&
                   !trial.timed[c].seconds.empty();
    any_wrong |= trial.wrong[c];
    if (trial.configs[c] == def && trial.medians[c] > 0) {
      decided.default_seconds = trial.medians[c];
    }
  }
  if (winner < 0) {
    if (!trial.all_unimplemented) {
      std::string why;
      for (const CandidateLog& cl : trial.log.candidates) {
        if (cl.failure != FailureKind::kNone) {
          absl::StrAppend(&why, "\n  ", cl.config.ToString(), ": ",
                          cl.message.substr(0, 200));
        }
      }
      return absl::InternalError(absl::StrCat("autotuning fusion '", f.name(),
                                              "': all ", n,
                                              " candidates failed:", why));
    }
    // Nothing can be generated: the executable runs it on the evaluator,
    // so it was not tuned (nothing goes into the cache) and its candidates
    // were never kernels (not compiles that failed).
    decided.config = def;
    decided.source = ConfigSource::kDefault;
    ++stats->on_evaluator;
    return decided;
  }
  ++stats->tuned;
  stats->compiled += static_cast<int64_t>(n);
  stats->compile_failures += trial.compile_failures;
  if (!any_correct && any_wrong) {
    std::cerr << "xtune: warning: every candidate of fusion '" << f.name()
              << "' disagrees with the reference; choosing the fastest\n";
  }
  decided.config = trial.configs[winner];
  decided.source = ConfigSource::kTuned;
  decided.chosen_seconds = trial.medians[winner];
  trial.log.selected = trial.configs[winner];
  const CostModel::Sample sample = SampleOf(trial);
  XTUNE_ASSIGN_OR_RETURN(
      xla::AutotuneResult stored,
      ResultFor(backend, trial.configs[winner], trial.medians[winner],
                trial.log, decided.failed, options.record_candidates,
                options.exhaustive ? nullptr : &sample));
  XTUNE_RETURN_IF_ERROR(cache.Insert(trial.group->key, stored));
  if (stored_out != nullptr) *stored_out = std::move(stored);
  if (winner_out != nullptr) *winner_out = winner;
  return decided;
}

absl::StatusOr<xla::AutotuneResult> ResultFor(
    const Backend& backend, const KernelConfig& config, double seconds,
    const FusionLog& log, int failures, bool candidates,
    const CostModel::Sample* sample) {
  xla::AutotuneResult r;
  XTUNE_RETURN_IF_ERROR(backend.ConfigToResult(config, &r));
  SetDurationSeconds(seconds, r.mutable_run_time());
  if (r.key_case() < 1000 && !candidates) return r;  // an XLA key: XLA-readable
  auto* p = r.mutable_xtune_provenance();
  p->set_xtune_version(kXtuneVersionString);
  p->set_candidates(static_cast<int64_t>(log.candidates.size()));
  p->set_failed(failures);
  p->set_noise_band(log.noise_band);
  p->set_tuned_at_unix_seconds(absl::ToUnixSeconds(absl::Now()));
  if (!log.seeded_from.empty()) p->set_seeded_from_device(log.seeded_from);
  if (sample != nullptr) {
    xla::AutotuneResult::CostModelSample proto = CostModel::ToProto(*sample);
    if (proto.candidates_size() > 0) *p->mutable_cost_model() = std::move(proto);
  }
  if (candidates) {
    for (const CandidateLog& cl : log.candidates) {
      auto* c = p->add_timed();
      c->set_config(cl.config.ToString());
      if (cl.median_seconds) SetDurationSeconds(*cl.median_seconds, c->mutable_median());
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

}  // namespace xtune
