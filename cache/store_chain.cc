#include "cache/store_chain.h"

#include <iostream>
#include <thread>

#include "absl/strings/str_cat.h"

namespace xtune {
namespace {

// Runs `fn` on its own thread and waits at most `timeout` for its result;
// DeadlineExceeded after that (the call finishes in the background, holding
// what it captured: the store is shared).
template <typename T>
absl::StatusOr<T> WithTimeout(absl::Duration timeout,
                              std::function<absl::StatusOr<T>()> fn) {
  if (timeout == absl::InfiniteDuration()) return fn();
  struct State {
    Mutex mu;
    bool done = false;
    absl::StatusOr<T> result = absl::UnknownError("not run");
  };
  auto state = std::make_shared<State>();
  std::thread([state, fn = std::move(fn)] {
    absl::StatusOr<T> r = fn();
    MutexLock lock(&state->mu);
    state->result = std::move(r);
    state->done = true;
  }).detach();
  MutexLock lock(&state->mu);
  if (!state->mu.AwaitWithTimeout(absl::Condition(&state->done), timeout)) {
    return absl::DeadlineExceededError(
        absl::StrCat("no answer within ", absl::FormatDuration(timeout)));
  }
  return std::move(state->result);
}

}  // namespace

StoreChain::StoreChain() {
  warn_ = [](const std::string& w) {
    std::cerr << "xtune: warning: " << w << "\n";
  };
}

StoreChain::~StoreChain() = default;

void StoreChain::AddTier(std::string name, std::shared_ptr<AutotuneCache> store,
                         TierPolicy policy) {
  tiers_.push_back(Tier{std::move(name), std::move(store), policy});
}

void StoreChain::set_warning_callback(
    std::function<void(const std::string&)> cb) {
  warn_ = std::move(cb);
}

void StoreChain::Warn(const std::string& message) {
  if (warn_) warn_(message);
}

absl::StatusOr<std::optional<CacheHit>> StoreChain::LookupIn(
    const Tier& tier, const AutotuneKey& key) {
  std::shared_ptr<AutotuneCache> store = tier.store;
  return WithTimeout<std::optional<CacheHit>>(
      tier.policy.timeout, [store, key] { return store->Lookup(key); });
}

absl::Status StoreChain::InsertIn(const Tier& tier, const AutotuneKey& key,
                                  const xla::AutotuneResult& result) {
  std::shared_ptr<AutotuneCache> store = tier.store;
  absl::StatusOr<bool> r = WithTimeout<bool>(
      tier.policy.timeout, [store, key, result]() -> absl::StatusOr<bool> {
        absl::Status s = store->Insert(key, result);
        if (!s.ok()) return s;
        return true;
      });
  return r.status();
}

absl::StatusOr<std::optional<CacheHit>> StoreChain::Lookup(
    const AutotuneKey& key) {
  for (size_t i = 0; i < tiers_.size(); ++i) {
    const Tier& tier = tiers_[i];
    absl::StatusOr<std::optional<CacheHit>> hit = LookupIn(tier, key);
    if (!hit.ok()) {
      {
        MutexLock lock(&mu_);
        ++lookup_errors_[tier.name];
      }
      Warn(absl::StrCat("autotune cache tier '", tier.name,
                        "' failed a lookup (", hit.status().message(),
                        "); treated as a miss"));
      continue;
    }
    if (!hit->has_value()) continue;
    if (tier.policy.promote) {
      for (size_t j = 0; j < i; ++j) {
        if (!tiers_[j].policy.writable) continue;
        absl::Status s = InsertIn(tiers_[j], key, *(*hit)->result);
        if (!s.ok()) {
          {
            MutexLock lock(&mu_);
            ++write_failures_[tiers_[j].name];
          }
          Warn(absl::StrCat("autotune cache tier '", tiers_[j].name,
                            "' could not keep a hit of '", tier.name,
                            "': ", s.message()));
        }
      }
    }
    return hit;
  }
  return std::optional<CacheHit>();
}

absl::Status StoreChain::Insert(const AutotuneKey& key,
                                const xla::AutotuneResult& result) {
  absl::Status first_required;
  for (const Tier& tier : tiers_) {
    if (!tier.policy.writable) continue;
    absl::Status s = InsertIn(tier, key, result);
    if (s.ok()) continue;
    if (tier.policy.writes_required) {
      if (first_required.ok()) {
        first_required = absl::Status(
            s.code(), absl::StrCat("autotune cache tier '", tier.name,
                                   "': ", s.message()));
      }
      continue;
    }
    {
      MutexLock lock(&mu_);
      ++write_failures_[tier.name];
    }
    Warn(absl::StrCat("autotune cache tier '", tier.name,
                      "' could not store a result (", s.message(),
                      "); continuing without it"));
  }
  return first_required;
}

std::map<std::string, int64_t> StoreChain::lookup_errors() const {
  MutexLock lock(&mu_);
  return lookup_errors_;
}

std::map<std::string, int64_t> StoreChain::write_failures() const {
  MutexLock lock(&mu_);
  return write_failures_;
}

std::string StoreChain::FailureSummary() const {
  MutexLock lock(&mu_);
  std::string out;
  for (const Tier& t : tiers_) {
    auto l = lookup_errors_.find(t.name);
    auto w = write_failures_.find(t.name);
    int64_t lookups = l == lookup_errors_.end() ? 0 : l->second;
    int64_t writes = w == write_failures_.end() ? 0 : w->second;
    if (lookups == 0 && writes == 0) continue;
    absl::StrAppend(&out, out.empty() ? "" : ", ", t.name, ":");
    if (lookups > 0) {
      absl::StrAppend(&out, " ", lookups, " lookup",
                      lookups == 1 ? " error" : " errors");
    }
    if (writes > 0) {
      absl::StrAppend(&out, lookups > 0 ? "," : "", " ", writes,
                      writes == 1 ? " write failed" : " writes failed");
    }
  }
  return out;
}

}  // namespace xtune
