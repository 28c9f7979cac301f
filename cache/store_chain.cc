#include "cache/store_chain.h"

#include <algorithm>
#include <iostream>
#include <system_error>
#include <thread>

#include "absl/strings/match.h"
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
  try {
    std::thread([state, fn = std::move(fn)] {
      absl::StatusOr<T> r = fn();
      MutexLock lock(&state->mu);
      state->result = std::move(r);
      state->done = true;
    }).detach();
  } catch (const std::system_error& e) {
    return absl::UnavailableError(
        absl::StrCat("cannot start a thread for the call: ", e.what()));
  }
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
  MutexLock lock(&mu_);
  down_until_.push_back(absl::InfinitePast());
  writes_down_until_.push_back(absl::InfinitePast());
}

bool StoreChain::Down(size_t tier) {
  MutexLock lock(&mu_);
  return absl::Now() < down_until_[tier];
}

void StoreChain::MarkDown(size_t tier, const std::string& why) {
  {
    MutexLock lock(&mu_);
    // Calls in flight on other threads may fail too: one warning.
    if (absl::Now() < down_until_[tier]) return;
    down_until_[tier] = absl::Now() + tiers_[tier].policy.down_for;
  }
  Warn(absl::StrCat("autotune cache tier '", tiers_[tier].name, "' ",
                    why.empty() ? std::string("timed out")
                    : absl::StartsWith(why, "timed out") ? why
                                                           : absl::StrCat("failed (", why, ")"),
                    "; not using it for the next ",
                    absl::FormatDuration(tiers_[tier].policy.down_for)));
}

bool StoreChain::TakesDown(size_t tier, const absl::Status& s) {
  if (s.code() == absl::StatusCode::kDeadlineExceeded) {
    MarkDown(tier, absl::StrCat("timed out (", s.message(), ")"));
    return true;
  }
  if (!tiers_[tier].policy.down_on_failure || s.code() == absl::StatusCode::kDataLoss) {
    return false;
  }
  MarkDown(tier, std::string(s.message()));
  return true;
}

void StoreChain::set_warning_callback(
    std::function<void(const std::string&)> cb) {
  warn_ = std::move(cb);
}

void StoreChain::Warn(const std::string& message) {
  if (warn_) warn_(message);
}

absl::StatusOr<std::optional<CacheHit>> StoreChain::LookupIn(
    size_t tier, const AutotuneKey& key, bool* warned) {
  std::shared_ptr<AutotuneCache> store = tiers_[tier].store;
  absl::StatusOr<std::optional<CacheHit>> r =
      WithTimeout<std::optional<CacheHit>>(
          tiers_[tier].policy.timeout,
          [store, key] { return store->Lookup(key); });
  *warned = !r.ok() && TakesDown(tier, r.status());
  return r;
}

absl::Status StoreChain::InsertIn(size_t tier, const AutotuneKey& key,
                                  const xla::AutotuneResult& result, bool* warned) {
  *warned = false;
  if (Down(tier)) {
    *warned = tiers_[tier].policy.down_on_failure;
    return absl::UnavailableError("down after a timeout");
  }
  {
    MutexLock lock(&mu_);
    if (absl::Now() < writes_down_until_[tier]) {
      *warned = true;
      return absl::UnavailableError("its writes were refused before");
    }
  }
  std::shared_ptr<AutotuneCache> store = tiers_[tier].store;
  absl::StatusOr<bool> r = WithTimeout<bool>(
      tiers_[tier].policy.timeout,
      [store, key, result]() -> absl::StatusOr<bool> {
        absl::Status s = store->Insert(key, result);
        if (!s.ok()) return s;
        return true;
      });
  if (r.ok()) return absl::OkStatus();
  const absl::StatusCode code = r.status().code();
  // A server that refuses writes (full, read-only) still answers lookups.
  const bool refused = code == absl::StatusCode::kResourceExhausted ||
                       code == absl::StatusCode::kFailedPrecondition;
  if (tiers_[tier].policy.down_on_failure && refused) {
    {
      MutexLock lock(&mu_);
      writes_down_until_[tier] = absl::Now() + tiers_[tier].policy.down_for;
    }
    Warn(absl::StrCat("autotune cache tier '", tiers_[tier].name, "' refused a write (",
                      r.status().message(), "); not writing to it for the next ",
                      absl::FormatDuration(tiers_[tier].policy.down_for)));
    *warned = true;
  } else {
    *warned = TakesDown(tier, r.status());
  }
  return r.status();
}

std::vector<std::string> StoreChain::EraseEverywhere(const AutotuneKey& key) {
  std::vector<std::string> erased;
  for (size_t i = 0; i < tiers_.size(); ++i) {
    if (!tiers_[i].policy.writable || Down(i)) continue;
    std::shared_ptr<AutotuneCache> store = tiers_[i].store;
    absl::StatusOr<bool> r = WithTimeout<bool>(
        tiers_[i].policy.timeout, [store, key]() -> absl::StatusOr<bool> {
          absl::Status s = store->Erase(key);
          if (!s.ok()) return s;
          return true;
        });
    if (r.ok()) {
      erased.push_back(tiers_[i].name);
    } else if (!TakesDown(i, r.status())) {
      Warn(absl::StrCat("autotune cache tier '", tiers_[i].name, "' could not remove an entry (",
                        r.status().message(), ")"));
    }
  }
  return erased;
}

absl::StatusOr<AutotuneCache::Related> StoreChain::OtherDevices(const AutotuneKey& key) {
  Related out;
  for (size_t i = 0; i < tiers_.size(); ++i) {
    if (Down(i)) continue;
    std::shared_ptr<AutotuneCache> store = tiers_[i].store;
    absl::StatusOr<Related> r = WithTimeout<Related>(
        tiers_[i].policy.timeout, [store, key] { return store->OtherDevices(key); });
    if (!r.ok()) {
      if (!TakesDown(i, r.status())) {
        Warn(absl::StrCat("autotune cache tier '", tiers_[i].name,
                          "' could not list other devices' entries (", r.status().message(),
                          ")"));
      }
      continue;
    }
    for (auto& e : *r) out.push_back(std::move(e));
  }
  return out;
}

absl::Status StoreChain::Prefetch(const std::vector<AutotuneKey>& keys) {
  for (size_t i = 0; i < tiers_.size(); ++i) {
    if (Down(i)) continue;
    std::shared_ptr<AutotuneCache> store = tiers_[i].store;
    absl::StatusOr<bool> r = WithTimeout<bool>(
        tiers_[i].policy.timeout, [store, keys]() -> absl::StatusOr<bool> {
          absl::Status s = store->Prefetch(keys);
          if (!s.ok()) return s;
          return true;
        });
    if (r.ok() || TakesDown(i, r.status())) continue;
    {
      MutexLock lock(&mu_);
      ++lookup_errors_[tiers_[i].name];
    }
    Warn(absl::StrCat("autotune cache tier '", tiers_[i].name, "' failed a prefetch (",
                      r.status().message(), "); its lookups go one by one"));
  }
  return absl::OkStatus();
}

AutotuneCache::Entries StoreChain::ListEntries(absl::string_view device,
                                                   int version) const {
  Entries out;
  absl::flat_hash_set<AutotuneKey> seen;
  for (const Tier& tier : tiers_) {
    for (auto& entry : tier.store->ListEntries(device, version)) {
      if (seen.insert(entry.first).second) out.push_back(std::move(entry));
    }
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

absl::StatusOr<std::optional<CacheHit>> StoreChain::Lookup(
    const AutotuneKey& key) {
  for (size_t i = 0; i < tiers_.size(); ++i) {
    const Tier& tier = tiers_[i];
    if (Down(i)) continue;  // warned when it went down
    bool warned = false;
    absl::StatusOr<std::optional<CacheHit>> hit = LookupIn(i, key, &warned);
    if (!hit.ok()) {
      {
        MutexLock lock(&mu_);
        ++lookup_errors_[tier.name];
      }
      if (!warned) Warn(absl::StrCat("autotune cache tier '", tier.name,
                        "' failed a lookup (", hit.status().message(),
                        "); treated as a miss"));
      continue;
    }
    if (!hit->has_value()) continue;
    if (tier.policy.promote) {
      for (size_t j = 0; j < i; ++j) {
        if (!tiers_[j].policy.writable) continue;
        bool insert_warned = false;
        absl::Status s = InsertIn(j, key, *(*hit)->result, &insert_warned);
        if (!s.ok()) {
          {
            MutexLock lock(&mu_);
            ++write_failures_[tiers_[j].name];
          }
          if (!insert_warned) Warn(absl::StrCat("autotune cache tier '", tiers_[j].name,
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
  for (size_t i = 0; i < tiers_.size(); ++i) {
    const Tier& tier = tiers_[i];
    if (!tier.policy.writable) continue;
    bool warned = false;
    absl::Status s = InsertIn(i, key, result, &warned);
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
    if (!warned) Warn(absl::StrCat("autotune cache tier '", tier.name,
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

StoreChain::Counts StoreChain::counts() const {
  MutexLock lock(&mu_);
  return Counts{lookup_errors_, write_failures_};
}

std::string StoreChain::FailureSummary(const Counts* since) const {
  MutexLock lock(&mu_);
  auto count = [](const std::map<std::string, int64_t>& m,
                  const std::string& name) -> int64_t {
    auto it = m.find(name);
    return it == m.end() ? 0 : it->second;
  };
  std::string out;
  for (const Tier& t : tiers_) {
    int64_t lookups = count(lookup_errors_, t.name);
    int64_t writes = count(write_failures_, t.name);
    if (since != nullptr) {
      lookups -= count(since->lookup_errors, t.name);
      writes -= count(since->write_failures, t.name);
    }
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
