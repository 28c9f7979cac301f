#include "autotune/device_match.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace xtune {

std::string DeviceArchitecture(absl::string_view device) {
  std::vector<absl::string_view> fields = absl::StrSplit(device, ", ");
  if (absl::StartsWith(device, "CPU: ")) {
    for (absl::string_view f : fields) {
      if (absl::StartsWith(f, "ISA: ")) return absl::StrCat("CPU ", f);
    }
  }
  return std::string(fields.empty() ? device : fields[0]);
}

std::vector<Seed> SeedsFor(const Backend& backend, AutotuneCache& cache,
                           AutotuneOptions::DeviceMatch match, const KeyGroup& group,
                           size_t limit) {
  std::vector<Seed> out;
  if (match == AutotuneOptions::DeviceMatch::kExact) return out;
  absl::StatusOr<AutotuneCache::Related> related = cache.OtherDevices(group.key);
  if (!related.ok()) return out;
  const std::string arch = DeviceArchitecture(group.key.device);
  std::vector<Seed> same, other;
  for (const auto& [device, result] : *related) {
    const bool same_arch = DeviceArchitecture(device) == arch;
    if (!same_arch && match == AutotuneOptions::DeviceMatch::kArch) continue;
    absl::StatusOr<KernelConfig> config = backend.ConfigFromResultFor(*group.first, *result);
    if (!config.ok() || !backend.CheckConfig(*group.first, *config).ok()) continue;
    (same_arch ? same : other).push_back(Seed{*config, device});
  }
  // Deterministic whatever order the stores listed them in.
  auto by_device = [](const Seed& a, const Seed& b) { return a.device < b.device; };
  std::sort(same.begin(), same.end(), by_device);
  std::sort(other.begin(), other.end(), by_device);
  for (std::vector<Seed>* part : {&same, &other}) {
    for (Seed& s : *part) {
      if (out.size() >= limit) break;
      bool seen = false;
      for (const Seed& o : out) seen |= o.config == s.config;
      if (!seen) out.push_back(std::move(s));
    }
  }
  return out;
}

std::vector<KernelConfig> SeededCandidates(const Backend& backend, const KeyGroup& group,
                                           const std::vector<Seed>& seeds) {
  std::vector<KernelConfig> out = {backend.DefaultConfig(*group.first)};
  for (const Seed& s : seeds) {
    if (std::find(out.begin(), out.end(), s.config) == out.end()) out.push_back(s.config);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::string> SeedAccepted(const Trial& trial, const std::vector<Seed>& seeds,
                                        double min_band) {
  const double band = std::max(min_band, trial.log.noise_band);
  double best = 0, best_seed = 0;
  std::string device;
  for (size_t c = 0; c < trial.configs.size(); ++c) {
    if (!trial.timed[c].eligible || trial.wrong[c] || trial.failed[c] || trial.medians[c] <= 0) {
      continue;
    }
    const double m = trial.medians[c];
    if (best == 0 || m < best) best = m;
    for (const Seed& s : seeds) {
      if (s.config == trial.configs[c] && (best_seed == 0 || m < best_seed)) {
        best_seed = m;
        device = s.device;
      }
    }
  }
  if (best_seed == 0 || best_seed > best * (1 + band)) return std::nullopt;
  return device;
}

}  // namespace xtune
