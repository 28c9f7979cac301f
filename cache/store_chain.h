// StoreChain: autotune cache tiers composed into one AutotuneCache, as
// TVM's databases compose: memory over a per-fusion directory over a remote
// store (later), each knowing nothing of the others. Each tier has a
// policy:
//   - read-only or read-write;
//   - writes required (a failed write fails the compile) or best-effort (a
//     warning, counted in write_failures());
//   - promote: a hit in this tier is copied into the writable tiers above
//     it (so a dump of the memory tier holds it);
//   - a lookup and write timeout: a tier slower than that is a warning and
//     a miss (or a failed write), never a stalled compile; after a timeout
//     the tier is left alone for `down_for` (one warning), so a hung store
//     costs one timeout, not one per fusion.
// A tier whose lookup fails (Unavailable, DataLoss, ...) is one warning and
// a miss in that tier; the chain goes on to the next. Lookup() of the chain
// itself never fails.
//
// Thread-safe when its tiers are.
#ifndef XTUNE_CACHE_STORE_CHAIN_H_
#define XTUNE_CACHE_STORE_CHAIN_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "util/mutex.h"
#include "absl/time/time.h"
#include "cache/autotune_cache.h"

namespace xtune {

struct TierPolicy {
  // Inserts reach this tier. Default true.
  bool writable = true;
  // A failed write fails Insert() (true) or is a warning counted in
  // write_failures() (false, best-effort). Default true.
  bool writes_required = true;
  // A hit here is inserted into the writable tiers above. Default false.
  bool promote = false;
  // Longest wait for one lookup or write of this tier; longer is a warning
  // and a miss (or a failed write). The call itself goes on in the
  // background and its result is dropped. Default: no limit (the call runs
  // on the caller's thread).
  absl::Duration timeout = absl::InfiniteDuration();
  // After a timeout the tier is skipped (lookups miss, writes are
  // dropped and counted) for this long. Default 60 s.
  absl::Duration down_for = absl::Seconds(60);
  // A remote's policy: any failure but a damaged entry (DataLoss) takes
  // the tier down as a timeout does (one warning, then skipped for
  // down_for); a refused write (a full or read-only server) stops its
  // writes, not its lookups, for down_for, with one warning. Default
  // false: every failure is its own warning.
  bool down_on_failure = false;
};

class StoreChain : public AutotuneCache {
 public:
  StoreChain();
  ~StoreChain() override;

  // Appends a tier below the existing ones. `name` appears in hits
  // ("memory", "directory") and in warnings.
  void AddTier(std::string name, std::shared_ptr<AutotuneCache> store,
               TierPolicy policy);

  // The first tier's hit, promoted as the policies say. Never an error.
  absl::StatusOr<std::optional<CacheHit>> Lookup(const AutotuneKey& key) override;
  // Removes `key` from every writable tier that is up. Returns the names
  // of the tiers it was removed from; a tier that fails is a warning.
  std::vector<std::string> EraseEverywhere(const AutotuneKey& key);
  absl::Status Erase(const AutotuneKey& key) override {
    EraseEverywhere(key);
    return absl::OkStatus();
  }
  // Every tier's entries of other devices (a tier that fails is skipped,
  // as a lookup's failure), the upper tiers' first. Never an error.
  absl::StatusOr<Related> OtherDevices(const AutotuneKey& key) override;
  // Prefetches in every tier that is up (failures as a lookup's). Never an
  // error.
  absl::Status Prefetch(const std::vector<AutotuneKey>& keys) override;
  bool Prefetches() const override {
    for (const Tier& t : tiers_) {
      if (t.store->Prefetches()) return true;
    }
    return false;
  }
  // Writes every writable tier. Errors: the first failure of a tier whose
  // writes are required (naming it); best-effort failures are warnings.
  absl::Status Insert(const AutotuneKey& key,
                      const xla::AutotuneResult& result) override;
  // The tiers' in-memory entries; where two tiers hold a key, the upper
  // tier's (as Lookup would find it).
  Entries ListEntries(absl::string_view device, int version) const override;

  // Where warnings go (one line each, without "xtune: warning: "); stderr
  // by default.
  void set_warning_callback(std::function<void(const std::string&)> cb);

  // Failures so far, by tier name.
  std::map<std::string, int64_t> lookup_errors() const;
  std::map<std::string, int64_t> write_failures() const;
  struct Counts {
    std::map<std::string, int64_t> lookup_errors;
    std::map<std::string, int64_t> write_failures;
  };
  Counts counts() const;
  // "directory: 1 lookup error, 2 writes failed" — the failures since
  // `since` (all of them when null); empty when none.
  std::string FailureSummary(const Counts* since = nullptr) const;

  size_t size() const { return tiers_.size(); }

 private:
  struct Tier {
    std::string name;
    std::shared_ptr<AutotuneCache> store;
    TierPolicy policy;
  };
  // Whether `tier` is skipped now (after a timeout).
  bool Down(size_t tier);
  // Records a timeout of `tier`: down for its policy's down_for. `why`
  // names the failure (a timeout when empty).
  void MarkDown(size_t tier, const std::string& why = "");
  // Whether a failure of `tier` takes it down (and did so).
  bool TakesDown(size_t tier, const absl::Status& s);
  // `warned`: the failure was warned of already (the tier went down).
  absl::StatusOr<std::optional<CacheHit>> LookupIn(size_t tier,
                                                   const AutotuneKey& key, bool* warned);
  absl::Status InsertIn(size_t tier, const AutotuneKey& key,
                        const xla::AutotuneResult& result, bool* warned);
  void Warn(const std::string& message);

  std::vector<Tier> tiers_;
  std::function<void(const std::string&)> warn_;
  mutable Mutex mu_;
  std::map<std::string, int64_t> lookup_errors_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int64_t> write_failures_ ABSL_GUARDED_BY(mu_);
  std::vector<absl::Time> down_until_ ABSL_GUARDED_BY(mu_);
  // Writes of a down_on_failure tier are skipped until then.
  std::vector<absl::Time> writes_down_until_ ABSL_GUARDED_BY(mu_);
};

}  // namespace xtune

#endif  // XTUNE_CACHE_STORE_CHAIN_H_
