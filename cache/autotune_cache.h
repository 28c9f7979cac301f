// The autotuning cache: what the autotuner knows of stored results.
//
// A key is (device, canonical fused computation, codegen version), as in
// XLA's AutotuneCacheKey (DESIGN §7.2); a value is XLA's AutotuneResult (the
// chosen config as one of its keys, and its run time). Stores implement one
// interface and compose (cache/store_chain.h: memory over a per-fusion
// directory, cache/directory_cache.h, over a Redis server, cache/redis_store.h); a
// scripted store for tests is cache/fake_store.h. Implementations are
// thread-safe.
#ifndef XTUNE_CACHE_AUTOTUNE_CACHE_H_
#define XTUNE_CACHE_AUTOTUNE_CACHE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "util/mutex.h"
#include "cache/autotune_results.pb.h"

namespace xtune {

struct AutotuneKey {
  std::string device;  // Backend::DeviceDescription()
  std::string hlo;     // CanonicalText of the fused computation
  int version = 0;     // kCodegenVersion

  // XLA's text form: <key model='...', hlo='...', version=N>.
  std::string ToString() const;
  // Reads ToString()'s form back; nullopt when `text` is not in it.
  static std::optional<AutotuneKey> FromString(absl::string_view text);
  bool operator==(const AutotuneKey&) const = default;
  // Ordered by (device, hlo, version): the order of dumped files.
  bool operator<(const AutotuneKey& o) const;
  template <typename H>
  friend H AbslHashValue(H h, const AutotuneKey& k) {
    return H::combine(std::move(h), k.device, k.hlo, k.version);
  }
};

// Whether two results are the same (field by field, unknown fields too).
bool SameResult(const xla::AutotuneResult& a, const xla::AutotuneResult& b);

struct CacheHit {
  // Shared with the tier that holds it (no copy per lookup); never null.
  std::shared_ptr<const xla::AutotuneResult> result;
  std::string tier;  // the tier that had it: "memory", "directory", ...
};

class AutotuneCache {
 public:
  virtual ~AutotuneCache() = default;
  // The stored result; nullopt on a miss (not an error). Errors: the store
  // could not answer (Unavailable: a remote store is down, a file cannot be
  // read; DataLoss: the stored entry is damaged; DeadlineExceeded). A
  // StoreChain turns them into one warning and a miss.
  virtual absl::StatusOr<std::optional<CacheHit>> Lookup(
      const AutotuneKey& key) = 0;
  // Stores (or replaces) the result of `key`. Errors come from storage
  // (a file tier that cannot write).
  virtual absl::Status Insert(const AutotuneKey& key,
                              const xla::AutotuneResult& result) = 0;

  // Removes the entry of `key` (verify-on-restore evicts a wrong one);
  // removing what is not there is fine. The default: Unimplemented (a
  // store that cannot remove).
  virtual absl::Status Erase(const AutotuneKey& key) {
    return absl::UnimplementedError("this store cannot remove entries");
  }

  // Entries of the same fused computation and version on other devices
  // (device-match seeding): (device, result) pairs, in no set order.
  // Errors as Lookup's. The default: none.
  using Related = std::vector<std::pair<std::string, std::shared_ptr<const xla::AutotuneResult>>>;
  virtual absl::StatusOr<Related> OtherDevices(const AutotuneKey& key) { return Related(); }

  // Fetches the entries of `keys` at once (one round trip of a remote
  // store), so that their lookups do not each ask it. Errors as Lookup's.
  // The default does nothing.
  virtual absl::Status Prefetch(const std::vector<AutotuneKey>& keys) {
    return absl::OkStatus();
  }
  // Whether Prefetch does anything (so callers build its keys only then).
  virtual bool Prefetches() const { return false; }

  // Every entry of `device` and `version` this store can list, sorted by
  // key: what the autotuner's cost model learns from before it tunes (a
  // loaded file, fusions tuned earlier in this process, a per-fusion
  // directory's files). Entries that cannot be read are left out; a store
  // that would have to ask a remote lists none (the default). Never an
  // error.
  using Entries =
      std::vector<std::pair<AutotuneKey, std::shared_ptr<const xla::AutotuneResult>>>;
  virtual Entries ListEntries(absl::string_view device, int version) const {
    return {};
  }
};

// The in-memory tier: what --xla_gpu_load_autotune_results_from fills and
// --xla_gpu_dump_autotune_results_to writes. Remembers which loaded entries
// were looked up, to report the unused ones.
class InMemoryAutotuneCache : public AutotuneCache {
 public:
  // Never an error.
  absl::StatusOr<std::optional<CacheHit>> Lookup(
      const AutotuneKey& key) override;
  absl::Status Insert(const AutotuneKey& key,
                      const xla::AutotuneResult& result) override;
  absl::Status Erase(const AutotuneKey& key) override;
  absl::StatusOr<Related> OtherDevices(const AutotuneKey& key) override;
  Entries ListEntries(absl::string_view device, int version) const override;

  // Adds every entry of a results file (`source` names it in errors); entry
  // version 0 means `current_version`. All or nothing: InvalidArgument
  // naming the source and key for an invalid config (XLA's rule) or a key,
  // as the file writes it, present twice with different results (in the
  // file, or loaded before); the same result twice is accepted. Entries
  // are looked up by KeyOfEntry; when several share one, an entry inserted
  // here (tuned) keeps it, else the one of the newest version; the others
  // are only dumped. Returns the number of entries that took a lookup key.
  absl::StatusOr<int64_t> Load(const xla::AutotuneResults& results,
                               absl::string_view source, int current_version);

  // Every entry, sorted by key, as an AutotuneResults (version 3).
  xla::AutotuneResults Dump() const;

  int64_t size() const;
  // Entries that came from Load() and were never looked up, sorted.
  std::vector<AutotuneKey> UnusedLoaded() const;
  // Their number (no copies: for the summary line of every compile).
  int64_t UnusedLoadedCount() const;
  // Loaded entries whose device differs from `device`.
  int64_t LoadedForOtherDevices(absl::string_view device) const;
  // Loaded entries by (device, version).
  std::map<std::pair<std::string, int>, int64_t> LoadedByDeviceAndVersion()
      const;

 private:
  struct Stored {
    std::shared_ptr<const xla::AutotuneResult> result;
    int file_version = 0;  // written by Dump(): as loaded (0 = none), else
                           // the key's
    std::string file_device;  // written by Dump() when not the key's (an
                              // XLA entry's device with its DNN version)
    bool loaded = false;   // came from Load()
    bool used = false;     // looked up
  };
  mutable Mutex mu_;
  absl::flat_hash_map<AutotuneKey, Stored> entries_ ABSL_GUARDED_BY(mu_);
  // Loaded entries whose lookup key another entry holds (XLA's entries of
  // one fusion under several XLA or cuDNN versions): written by Dump() as
  // they were loaded, never looked up.
  std::vector<xla::AutotuneResults::Entry> shadows_ ABSL_GUARDED_BY(mu_);
};

// Whether a result is one of XLA's kinds (triton, gemm, conv, cuDNN plans
// and algorithms, custom kernels, `other` keys of XLA's backends) rather
// than xtune's own (the CPU keys, `other` keys named "kind:params").
bool IsXlaResultKind(const xla::AutotuneResult& result);

// The key of a file entry. Version 0, and any version of XLA's result kinds
// (XLA's entries carry XLA's cache-key version, not xtune's codegen
// version; the config means the same to xtune whatever XLA's version), read
// as `current_version`. The device drops XLA's ", DNN version: X" suffix
// except for cuDNN engines and plans (an AlgorithmProto, a conv plan),
// which are the cuDNN version's own (its legacy algorithms, a ConvKey, are
// the same in every version; gemms do not use cuDNN). Dump()
// writes entries back with the device and version they were loaded with.
AutotuneKey KeyOfEntry(const xla::AutotuneResults::Entry& e,
                       int current_version);

// The key as the file writes it (version 0 read as `current_version`):
// what merge, diff and a dump's bookkeeping compare, so that XLA's entries
// of one fusion under two XLA or cuDNN versions stay two entries.
AutotuneKey FileKeyOfEntry(const xla::AutotuneResults::Entry& e,
                           int current_version);

// Sorts entries by key: (device, hlo, version).
void SortEntries(xla::AutotuneResults* results);

}  // namespace xtune

#endif  // XTUNE_CACHE_AUTOTUNE_CACHE_H_
