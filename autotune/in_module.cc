#include "autotune/in_module.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>

#include "cache/config_proto.h"
#include "util/status_macros.h"

namespace xtune {

std::optional<InModuleContest> ContestOf(const Backend& backend,
                                         const Trial& trial, int winner,
                                         const InModuleOptions& options) {
  if (winner < 0 || trial.medians[winner] <= 0 || options.max_finalists < 2) {
    return std::nullopt;
  }
  const double best = trial.medians[winner];
  // Never more threads than the winner: InModuleWinner would not take
  // them.
  auto threads_of = [&](size_t c) { return backend.HostThreads(trial.configs[c]); };
  const int64_t threads = threads_of(winner);
  auto usable = [&](size_t c, double ratio) {
    return !trial.failed[c] && !trial.wrong[c] && trial.timed[c].eligible &&
           trial.medians[c] > 0 && trial.medians[c] <= best * ratio &&
           threads_of(c) <= threads;
  };
  // First the fastest of each (kind, thread count) other than the
  // winner's, within representative_ratio: how many threads pay off is
  // what the module's setting changes most. Then the fastest others within
  // finalist_ratio, up to max_finalists.
  std::vector<size_t> by_speed;
  for (size_t c = 0; c < trial.configs.size(); ++c) {
    if (static_cast<int>(c) != winner) by_speed.push_back(c);
  }
  std::stable_sort(by_speed.begin(), by_speed.end(), [&](size_t a, size_t b) {
    return trial.medians[a] < trial.medians[b];
  });
  auto family = [&](size_t c) {
    return std::make_pair(trial.configs[c].kind(),
                          threads_of(c));
  };
  std::vector<size_t> chosen = {static_cast<size_t>(winner)};
  std::vector<std::pair<std::string, int64_t>> families = {family(winner)};
  for (size_t c : by_speed) {
    if (chosen.size() >= static_cast<size_t>(options.max_finalists)) break;
    // The best with fewer threads than a multi-threaded winner at any
    // distance: the module is where its second thread is checked.
    const bool fewer = threads_of(c) < threads;
    if (!usable(c, fewer ? INFINITY : options.representative_ratio)) continue;
    if (std::find(families.begin(), families.end(), family(c)) != families.end()) {
      continue;
    }
    families.push_back(family(c));
    chosen.push_back(c);
  }
  for (size_t c : by_speed) {
    if (chosen.size() >= static_cast<size_t>(options.max_finalists)) break;
    if (!usable(c, options.finalist_ratio)) continue;
    if (std::find(chosen.begin(), chosen.end(), c) != chosen.end()) continue;
    chosen.push_back(c);
  }
  if (chosen.size() < 2) return std::nullopt;
  std::sort(chosen.begin(), chosen.end());
  InModuleContest contest;
  for (size_t c : chosen) {
    if (static_cast<int>(c) == winner) {
      contest.isolated_winner = static_cast<int>(contest.finalists.size());
    }
    contest.finalists.push_back(trial.configs[c]);
    contest.threads.push_back(threads_of(c));
    contest.isolated_medians.push_back(trial.medians[c]);
    contest.isolated_seconds.push_back(trial.timed[c].seconds);
  }
  return contest;
}

namespace {

// SettleInModule's loop over the contests, once the timer has started.
absl::Status SettleContests(const Backend& backend, AutotuneCache& cache,
                            ModuleTimer& timer,
                            std::vector<InModuleContest>& contests,
                            const InModuleOptions& in_module_options,
                            TuningResult* result,
                            const std::function<void(const absl::Status&)>& warn) {
  TuningStats& stats = result->stats;
  // The budget goes first where the isolated timings are least to be
  // trusted and the module has most at stake: winners with more threads,
  // then the slower fusions (InModuleOrder).
  const std::vector<size_t> order = InModuleOrder(contests);
  for (size_t n = 0; n < order.size(); ++n) {
    const size_t i = order[n];
    InModuleContest& c = contests[i];
    absl::StatusOr<InModuleTiming> timing = timer.Time(
        c, static_cast<int>(order.size() - n));
    if (!timing.ok()) {
      // This fusion keeps its isolated choice; the others are still timed.
      std::cerr << "xtune: warning: in-module timing of fusion '"
                << c.fusions.front()->name() << "': " << timing.status().message()
                << "; it keeps its isolated choice\n";
      continue;
    }
    if (timing->module.empty()) {  // the budget is spent
      stats.in_module_untimed = static_cast<int>(order.size() - n);
      break;
    }
    const std::vector<Timed>* t = &timing->module;
    double band = 0;
    const int w = InModuleWinner(c, *timing, in_module_options, &band);
    ++stats.in_module;
    FusionLog& log = result->logs[c.log];
    log.in_module_band = band;
    for (size_t j = 0; j < c.finalists.size(); ++j) {
      log.in_module.push_back({c.finalists[j], Score((*t)[j].seconds)});
    }
    log.isolated_selected = c.finalists[c.isolated_winner];
    if (w == c.isolated_winner) continue;
    if (absl::Status kept = timer.Keep(c, w); !kept.ok()) {
      warn(kept);
      break;
    }
    ++stats.in_module_changed;
    const KernelConfig& config = c.finalists[w];
    log.selected = config;
    for (size_t m : c.group->members) {
      FusionTuning& ft = result->fusions[m];
      ft.config = config;
      ft.chosen_seconds = c.isolated_medians[w];
      result->configs[ft.fusion] = config;
    }
    // The cache keeps the in-module winner, with its isolated median (what
    // a run time means everywhere else) and, in the provenance, the
    // module's run time with each finalist.
    XTUNE_RETURN_IF_ERROR(backend.ConfigToResult(config, &c.stored));
    SetDurationSeconds(c.isolated_medians[w], c.stored.mutable_run_time());
    if (c.stored.has_xtune_provenance()) {
      auto* p = c.stored.mutable_xtune_provenance();
      // `samples` are the chosen config's runs (--xtune_autotune_details).
      if (p->samples_size() > 0) {
        p->clear_samples();
        for (double s : c.isolated_seconds[w]) {
          SetDurationSeconds(s, p->add_samples());
        }
      }
      for (size_t j = 0; j < c.finalists.size(); ++j) {
        auto* m = p->add_in_module();
        m->set_config(c.finalists[j].ToString());
        SetDurationSeconds(Score((*t)[j].seconds), m->mutable_median());
      }
    }
    XTUNE_RETURN_IF_ERROR(cache.Insert(c.group->key, c.stored));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status SettleInModule(const Backend& backend, AutotuneCache& cache,
                            ModuleTimer& timer,
                            std::vector<InModuleContest>& contests,
                            const InModuleOptions& in_module_options,
                            TuningResult* result) {
  // A timer that fails leaves the isolated choices, which are in the cache
  // already: a warning, not an error.
  auto warn = [](const absl::Status& s) {
    std::cerr << "xtune: warning: in-module timing: " << s.message()
              << "; the fusions left keep their isolated choices\n";
  };
  // The module's run time estimated from the isolated medians (cold
  // caches: an overestimate): a module too slow to time two finalists
  // within the budget is not even built.
  double estimate = 0;
  for (const FusionTuning& ft : result->fusions) {
    estimate += ft.chosen_seconds.value_or(0);
  }
  if (MinimumInModuleSeconds(estimate, in_module_options) >
      absl::ToDoubleSeconds(in_module_options.budget)) {
    return absl::OkStatus();
  }
  absl::Status started = timer.Start(result->configs, in_module_options);
  if (!started.ok()) {
    timer.Finish();
    warn(started);
    return absl::OkStatus();
  }
  absl::Status settled =
      SettleContests(backend, cache, timer, contests, in_module_options, result, warn);
  timer.Finish();  // the module's copies are not needed any more
  return settled;
}

double MinimumInModuleSeconds(double run_seconds, const InModuleOptions& options) {
  return run_seconds * 2 * std::max(1, options.min_runs) * std::max(1, options.rounds);
}

std::vector<size_t> InModuleOrder(const std::vector<InModuleContest>& contests) {
  std::vector<size_t> order(contests.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto threads = [&](size_t i) {
    const InModuleContest& c = contests[i];
    return c.threads[c.isolated_winner];
  };
  auto median = [&](size_t i) {
    const InModuleContest& c = contests[i];
    return c.isolated_medians[c.isolated_winner];
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const bool ta = threads(a) > 1, tb = threads(b) > 1;
    if (ta != tb) return ta;
    return median(a) > median(b);
  });
  return order;
}

int InModuleWinner(const InModuleContest& contest, const InModuleTiming& timing,
                   const InModuleOptions& options, double* band_out) {
  if (band_out != nullptr) *band_out = 0;
  const int w = contest.isolated_winner;
  const std::vector<Timed>& timed = timing.module;
  if (timed.size() != contest.finalists.size() || timed[w].seconds.empty()) {
    return w;
  }
  // The band over all finalists; then only those that beat the isolated
  // winner by more than the margins compete, as isolated candidates do.
  double band = 0;
  SelectWinner(timed, options.min_band, &band);
  if (band_out != nullptr) *band_out = band;
  const double incumbent = Score(timed[w].seconds);
  const double own = timing.own.size() == timed.size() ? timing.own[w] : 0;
  const double needed = std::max(std::max(2 * band, options.min_margin) * incumbent,
                                 options.min_own_margin * own);
  const int64_t threads = contest.threads[w];
  std::vector<Timed> better = timed;
  bool any = false;
  for (size_t j = 0; j < better.size(); ++j) {
    Timed& t = better[j];
    const int64_t th = contest.threads[j];
    t.threads = th;
    // Faster beyond the margins, with no more threads; or, with fewer
    // threads, no slower than the noise band: a module that cannot tell a
    // second thread's worth does not need it.
    t.eligible = !t.seconds.empty() &&
                 ((th <= threads && incumbent - Score(t.seconds) > needed) ||
                  (th < threads && Score(t.seconds) <= incumbent * (1 + band)));
    any |= t.eligible;
  }
  if (!any) return w;
  const int winner = SelectWinner(better, options.min_band);
  return winner >= 0 ? winner : w;
}

}  // namespace xtune
