#include "cache/fake_store.h"

namespace xtune {

void FakeStore::Sleep() const {
  absl::Duration d;
  {
    MutexLock lock(&mu_);
    d = latency_;
  }
  if (d > absl::ZeroDuration()) absl::SleepFor(d);
}

absl::StatusOr<std::optional<CacheHit>> FakeStore::Lookup(
    const AutotuneKey& key) {
  Sleep();
  MutexLock lock(&mu_);
  ++lookups_;
  if (!next_lookup_errors_.empty()) {
    absl::Status e = next_lookup_errors_.front();
    next_lookup_errors_.pop_front();
    return e;
  }
  if (!lookup_error_.ok()) return lookup_error_;
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::optional<CacheHit>();
  return std::optional<CacheHit>(CacheHit{it->second, tier_});
}

absl::Status FakeStore::Insert(const AutotuneKey& key,
                               const xla::AutotuneResult& result) {
  Sleep();
  MutexLock lock(&mu_);
  if (!insert_error_.ok()) return insert_error_;
  entries_[key] = std::make_shared<const xla::AutotuneResult>(result);
  ++inserts_;
  return absl::OkStatus();
}

void FakeStore::FailNextLookups(std::deque<absl::Status> errors) {
  MutexLock lock(&mu_);
  next_lookup_errors_ = std::move(errors);
}

void FakeStore::FailAllLookups(absl::Status error) {
  MutexLock lock(&mu_);
  lookup_error_ = std::move(error);
}

void FakeStore::FailAllInserts(absl::Status error) {
  MutexLock lock(&mu_);
  insert_error_ = std::move(error);
}

void FakeStore::set_latency(absl::Duration latency) {
  MutexLock lock(&mu_);
  latency_ = latency;
}

int64_t FakeStore::lookups() const {
  MutexLock lock(&mu_);
  return lookups_;
}

int64_t FakeStore::inserts() const {
  MutexLock lock(&mu_);
  return inserts_;
}

int64_t FakeStore::size() const {
  MutexLock lock(&mu_);
  return static_cast<int64_t>(entries_.size());
}

}  // namespace xtune
