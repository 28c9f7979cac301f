#include "cache/autotune_cache.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace xtune {

std::string AutotuneKey::ToString() const {
  return absl::StrCat("<key model='", device, "', hlo='", hlo,
                      "', version=", version, ">");
}

std::optional<AutotuneEntry> InMemoryAutotuneCache::Lookup(
    const AutotuneKey& key) {
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

void InMemoryAutotuneCache::Insert(const AutotuneKey& key,
                                   const AutotuneEntry& entry) {
  absl::MutexLock lock(&mu_);
  entries_[key] = entry;
}

std::vector<std::pair<AutotuneKey, AutotuneEntry>>
InMemoryAutotuneCache::Entries() const {
  std::vector<std::pair<AutotuneKey, AutotuneEntry>> out;
  {
    absl::MutexLock lock(&mu_);
    out.assign(entries_.begin(), entries_.end());
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    if (a.first.device != b.first.device) return a.first.device < b.first.device;
    if (a.first.hlo != b.first.hlo) return a.first.hlo < b.first.hlo;
    return a.first.version < b.first.version;
  });
  return out;
}

int64_t InMemoryAutotuneCache::size() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int64_t>(entries_.size());
}

}  // namespace xtune
