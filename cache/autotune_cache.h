// The autotuning cache interface: what the autotuner knows of the cache.
//
// A key is (device, canonical fused computation, codegen version), as in
// XLA's AutotuneCacheKey (DESIGN §7.2); a value is the chosen config and its
// measured time. Stores compose (memory over a per-fusion directory over a
// remote store) behind this one interface. Implementations are thread-safe.
#ifndef XTUNE_CACHE_AUTOTUNE_CACHE_H_
#define XTUNE_CACHE_AUTOTUNE_CACHE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "codegen/kernel_config.h"

namespace xtune {

struct AutotuneKey {
  std::string device;  // Backend::DeviceDescription()
  std::string hlo;     // CanonicalText of the fused computation
  int version = 0;     // kCodegenVersion

  // XLA's text form: <key model='...', hlo='...', version=N>.
  std::string ToString() const;
  bool operator==(const AutotuneKey&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const AutotuneKey& k) {
    return H::combine(std::move(h), k.device, k.hlo, k.version);
  }
};

struct AutotuneEntry {
  KernelConfig config;
  absl::Duration run_time = absl::ZeroDuration();  // median of the winner
};

class AutotuneCache {
 public:
  virtual ~AutotuneCache() = default;
  // The stored entry; nullopt on a miss (not an error).
  virtual std::optional<AutotuneEntry> Lookup(const AutotuneKey& key) = 0;
  // Stores (or replaces) the entry of `key`.
  virtual void Insert(const AutotuneKey& key, const AutotuneEntry& entry) = 0;
};

// The in-memory tier.
class InMemoryAutotuneCache : public AutotuneCache {
 public:
  std::optional<AutotuneEntry> Lookup(const AutotuneKey& key) override;
  void Insert(const AutotuneKey& key, const AutotuneEntry& entry) override;
  // Every entry, sorted by (device, hlo, version).
  std::vector<std::pair<AutotuneKey, AutotuneEntry>> Entries() const;
  int64_t size() const;

 private:
  mutable absl::Mutex mu_;
  absl::flat_hash_map<AutotuneKey, AutotuneEntry> entries_ ABSL_GUARDED_BY(mu_);
};

}  // namespace xtune

#endif  // XTUNE_CACHE_AUTOTUNE_CACHE_H_
