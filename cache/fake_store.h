// FakeStore: an in-memory AutotuneCache with scripted failures and latency,
// for tests of the store chain, the autotuner and the compile path (a tier
// that errors, stalls or refuses writes). Thread-safe.
#ifndef XTUNE_CACHE_FAKE_STORE_H_
#define XTUNE_CACHE_FAKE_STORE_H_

#include <cstdint>
#include <deque>

#include "absl/container/flat_hash_map.h"
#include "util/mutex.h"
#include "absl/time/time.h"
#include "cache/autotune_cache.h"

namespace xtune {

class FakeStore : public AutotuneCache {
 public:
  // `tier` names the hits it returns.
  explicit FakeStore(std::string tier = "fake") : tier_(std::move(tier)) {}

  absl::StatusOr<std::optional<CacheHit>> Lookup(
      const AutotuneKey& key) override;
  absl::Status Insert(const AutotuneKey& key,
                      const xla::AutotuneResult& result) override;

  // The next lookups return these errors, one each, in order.
  void FailNextLookups(std::deque<absl::Status> errors);
  // Every lookup (after the scripted ones) returns `error`; OkStatus to stop.
  void FailAllLookups(absl::Status error);
  // Every insert returns `error`; OkStatus to stop.
  void FailAllInserts(absl::Status error);
  // Each call sleeps this long first (a slow remote store).
  void set_latency(absl::Duration latency);

  int64_t lookups() const;
  int64_t inserts() const;  // successful ones
  int64_t size() const;

 private:
  void Sleep() const;

  const std::string tier_;
  mutable Mutex mu_;
  absl::flat_hash_map<AutotuneKey, std::shared_ptr<const xla::AutotuneResult>>
      entries_ ABSL_GUARDED_BY(mu_);
  std::deque<absl::Status> next_lookup_errors_ ABSL_GUARDED_BY(mu_);
  absl::Status lookup_error_ ABSL_GUARDED_BY(mu_);
  absl::Status insert_error_ ABSL_GUARDED_BY(mu_);
  absl::Duration latency_ ABSL_GUARDED_BY(mu_) = absl::ZeroDuration();
  int64_t lookups_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t inserts_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace xtune

#endif  // XTUNE_CACHE_FAKE_STORE_H_
