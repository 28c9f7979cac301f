#include "cache/autotune_cache.h"

#include <google/protobuf/util/message_differencer.h>

#include <algorithm>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "cache/config_proto.h"

namespace xtune {

std::string AutotuneKey::ToString() const {
  return absl::StrCat("<key model='", device, "', hlo='", hlo,
                      "', version=", version, ">");
}

bool AutotuneKey::operator<(const AutotuneKey& o) const {
  return std::tie(device, hlo, version) < std::tie(o.device, o.hlo, o.version);
}

bool SameResult(const xla::AutotuneResult& a, const xla::AutotuneResult& b) {
  return google::protobuf::util::MessageDifferencer::Equals(a, b);
}

AutotuneKey KeyOfEntry(const xla::AutotuneResults::Entry& e, int current_version) {
  return AutotuneKey{e.device(), e.hlo(),
                     e.version() == 0 ? current_version : e.version()};
}

void SortEntries(xla::AutotuneResults* results) {
  auto* entries = results->mutable_results();
  std::stable_sort(entries->begin(), entries->end(),
                   [](const auto& a, const auto& b) {
                     return std::make_tuple(absl::string_view(a.device()),
                                            absl::string_view(a.hlo()),
                                            a.version()) <
                            std::make_tuple(absl::string_view(b.device()),
                                            absl::string_view(b.hlo()),
                                            b.version());
                   });
}

std::optional<CacheHit> InMemoryAutotuneCache::Lookup(const AutotuneKey& key) {
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  used_.insert(key);
  return CacheHit{it->second, "memory"};
}

absl::Status InMemoryAutotuneCache::Insert(const AutotuneKey& key,
                                           const xla::AutotuneResult& result) {
  absl::MutexLock lock(&mu_);
  entries_[key] = result;
  return absl::OkStatus();
}

absl::StatusOr<int64_t> InMemoryAutotuneCache::Load(
    const xla::AutotuneResults& results, absl::string_view source,
    int current_version) {
  // Check everything before changing anything.
  absl::flat_hash_map<AutotuneKey, const xla::AutotuneResult*> incoming;
  absl::MutexLock lock(&mu_);
  for (int i = 0; i < results.results_size(); ++i) {
    const auto& e = results.results(i);
    AutotuneKey key = KeyOfEntry(e, current_version);
    if (absl::Status s = ValidateResult(e.result()); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          source, ": entry ", i + 1, ": ", s.message(), " for ", key.ToString()));
    }
    auto [it, inserted] = incoming.emplace(key, &e.result());
    const xla::AutotuneResult* before = inserted ? nullptr : it->second;
    if (before == nullptr) {
      auto old = entries_.find(key);
      if (old != entries_.end()) before = &old->second;
    }
    if (before != nullptr && !SameResult(*before, e.result())) {
      return absl::InvalidArgumentError(absl::StrCat(
          source, ": entry ", i + 1, ": duplicate autotuning result with a "
          "different value for ", key.ToString(), " (first: {",
          before->ShortDebugString(), "}, now: {", e.result().ShortDebugString(),
          "})"));
    }
  }
  int64_t added = 0;
  for (const auto& [key, result] : incoming) {
    added += entries_.emplace(key, *result).second;
    loaded_.insert(key);
  }
  return added;
}

xla::AutotuneResults InMemoryAutotuneCache::Dump() const {
  std::vector<std::pair<AutotuneKey, const xla::AutotuneResult*>> sorted;
  xla::AutotuneResults out;
  out.set_version(3);
  absl::MutexLock lock(&mu_);
  sorted.reserve(entries_.size());
  for (const auto& [key, result] : entries_) sorted.emplace_back(key, &result);
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  out.mutable_results()->Reserve(static_cast<int>(sorted.size()));
  for (const auto& [key, result] : sorted) {
    auto* e = out.add_results();
    e->set_device(key.device);
    e->set_hlo(key.hlo);
    e->set_version(key.version);
    *e->mutable_result() = *result;
  }
  return out;
}

int64_t InMemoryAutotuneCache::size() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int64_t>(entries_.size());
}

std::vector<AutotuneKey> InMemoryAutotuneCache::UnusedLoaded() const {
  std::vector<AutotuneKey> out;
  {
    absl::MutexLock lock(&mu_);
    for (const AutotuneKey& k : loaded_) {
      if (!used_.contains(k)) out.push_back(k);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

int64_t InMemoryAutotuneCache::LoadedForOtherDevices(absl::string_view device) const {
  absl::MutexLock lock(&mu_);
  int64_t n = 0;
  for (const AutotuneKey& k : loaded_) n += k.device != device;
  return n;
}

}  // namespace xtune
