// Phase 4 of the autotuner (autotune/phases.h): compiling every candidate
// of the trials on a thread pool, one candidate per code key first.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "autotune/phases.h"
#include "util/mutex.h"
#include "util/thread_pool.h"

namespace xtune {

void CompileTrials(Backend& backend, absl::Span<Trial> trials,
                   int parallelism,
                   const std::function<void(int64_t, int64_t)>& compiled) {
  std::vector<std::pair<size_t, size_t>> jobs;
  for (size_t t = 0; t < trials.size(); ++t) {
    for (size_t c = 0; c < trials[t].configs.size(); ++c) jobs.push_back({t, c});
  }
  if (jobs.empty()) return;
  ThreadPool pool(parallelism);
  // One candidate of each code key first, then the rest, which find their
  // code compiled: candidates sharing code sit side by side in canonical
  // order, and compiled in that order a second thread would only wait for
  // the first one's compile.
  std::vector<std::string> keys(jobs.size());
  pool.ParallelFor(static_cast<int64_t>(jobs.size()), 0, [&](int64_t j) {
    auto [t, c] = jobs[j];
    keys[j] = backend.CodeKey(*trials[t].group->first, trials[t].configs[c]);
  });
  std::vector<std::pair<size_t, size_t>> first, rest;
  absl::flat_hash_set<std::pair<size_t, std::string>> seen;
  for (size_t j = 0; j < jobs.size(); ++j) {
    (seen.insert({jobs[j].first, keys[j]}).second ? first : rest).push_back(jobs[j]);
  }
  // `compiled` runs one call at a time (the callers' progress is not
  // thread-safe), from whichever compile thread finished.
  Mutex report_mu;
  int64_t done = 0;
  const int64_t total = static_cast<int64_t>(jobs.size());
  auto report = [&] { if (compiled) { MutexLock lock(&report_mu); compiled(++done, total); } };
  // The first of each key compile a trial's at a time when the backend
  // builds them together (CompileKernels; the CPU backend: as one
  // translation unit), split in halves while there are fewer units than
  // threads, so that no thread idles; otherwise one at a time
  // (CompileCandidate).
  const bool together = backend.CompilesTogether();
  std::vector<std::pair<size_t, std::vector<size_t>>> units;  // trial, configs
  for (auto [t, c] : first) {
    if (!together || units.empty() || units.back().first != t) {
      units.push_back({t, {}});
    }
    units.back().second.push_back(c);
  }
  const size_t threads = static_cast<size_t>(pool.size()) + 1;
  while (units.size() < threads) {
    auto largest = std::max_element(
        units.begin(), units.end(), [](const auto& a, const auto& b) {
          return a.second.size() < b.second.size();
        });
    if (largest->second.size() < 2) break;
    std::vector<size_t>& all = largest->second;
    std::vector<size_t> back(all.begin() + all.size() / 2, all.end());
    all.resize(all.size() / 2);
    const size_t t = largest->first;
    units.insert(largest + 1, {t, std::move(back)});
  }
  // Largest first: the last to start is then a short one.
  std::stable_sort(units.begin(), units.end(), [](const auto& a, const auto& b) {
    return a.second.size() > b.second.size();
  });
  pool.ParallelFor(static_cast<int64_t>(units.size()), 0, [&](int64_t u) {
    Trial& trial = trials[units[u].first];
    const std::vector<size_t>& members = units[u].second;
    std::vector<absl::StatusOr<std::unique_ptr<Kernel>>> kernels;
    if (together) {
      std::vector<Backend::KernelRequest> requests;
      for (size_t c : members) requests.push_back({trial.group->first, trial.configs[c]});
      kernels = backend.CompileKernels(requests);
    } else {
      kernels.push_back(backend.CompileCandidate(
          *trial.group->first, trial.configs[members[0]],
          static_cast<int64_t>(trial.configs.size())));
    }
    for (size_t i = 0; i < members.size(); ++i) {
      trial.kernels[members[i]] =
          i < kernels.size() ? std::move(kernels[i])
                             : absl::InternalError("the backend compiled fewer "
                                                   "candidates than asked");
      report();
    }
  });
  pool.ParallelFor(static_cast<int64_t>(rest.size()), 0, [&](int64_t j) {
    auto [t, c] = rest[j];
    trials[t].kernels[c] = backend.CompileCandidate(
        *trials[t].group->first, trials[t].configs[c],
        static_cast<int64_t>(trials[t].configs.size()));
    report();
  });
}

}  // namespace xtune
