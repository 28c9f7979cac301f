// Persistent autotuning for one process: the caches behind XLA's
// --xla_gpu_load_autotune_results_from, --xla_gpu_dump_autotune_results_to
// and --xla_gpu_per_fusion_autotune_cache_dir (DESIGN §7.3), plus xtune's
// merging dump. The compiler opens one session, tunes through cache(), and
// calls Dump() after every compile.
#ifndef XTUNE_CACHE_PERSISTENT_H_
#define XTUNE_CACHE_PERSISTENT_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "util/mutex.h"
#include "cache/autotune_cache.h"
#include "cache/directory_cache.h"
#include "xtune/options.h"
#include "cache/store_chain.h"
#include "cache/tuning_shards.h"

namespace xtune {

// PersistentCacheOptions is defined in xtune/options.h.

// A text that is equal for two option sets exactly when they describe the
// same session: every field, with paths resolved (test prefixes) and made
// absolute and normal, so "a.pb", "./a.pb" and "$PWD/x/../a.pb" are one
// file. Errors: the path-resolution errors of ResolveAutotunePath.
absl::StatusOr<std::string> SessionKey(const PersistentCacheOptions& options);

class AutotuneCacheSession {
 public:
  // Resolves the paths (TEST_UNDECLARED_OUTPUTS_DIR / TEST_WORKSPACE
  // prefixes), checks that the dump's folder is writable (FailedPrecondition
  // otherwise, before anything is tuned), loads `load_from` (errors name the
  // file; nothing is loaded on error) and opens the directory tier.
  // `current_version` is the codegen version that entries without one get.
  static absl::StatusOr<std::unique_ptr<AutotuneCacheSession>> Open(
      const PersistentCacheOptions& options, int current_version);

  // The chain the autotuner uses: memory (with the loaded file; writes
  // required) over the per-fusion directory (read-only in read mode;
  // best-effort writes; hits promoted into memory), then any tier added
  // with AddTier().
  AutotuneCache* cache() { return &chain_; }
  StoreChain& chain() { return chain_; }
  const StoreChain& chain() const { return chain_; }
  InMemoryAutotuneCache& memory() { return *memory_; }
  // Sharded tuning over the remote tier (--xla_gpu_shard_autotuning);
  // null without a remote or with sharding off.
  TuningShards* shards() { return shards_.get(); }
  const InMemoryAutotuneCache& memory() const { return *memory_; }

  // Appends a tier below the others (a remote store; a scripted one in
  // tests). Not thread-safe: before any compile uses the session.
  void AddTier(std::string name, std::shared_ptr<AutotuneCache> store,
               TierPolicy policy) {
    chain_.AddTier(std::move(name), std::move(store), policy);
  }

  struct DumpReport {
    // Entries written: the whole memory tier (with dump_merge: what this
    // session merged into the file).
    int64_t written = 0;
    // Without dump_merge: entries the file held before that the dump did
    // not keep (another process's or an earlier run's results).
    int64_t dropped = 0;
  };
  // Writes the dump file, when one was asked for (atomically; merged under
  // a lock with dump_merge). Thread-safe.
  absl::StatusOr<DumpReport> Dump();

  const std::string& load_path() const { return load_path_; }  // resolved
  const std::string& dump_path() const { return dump_path_; }  // resolved
  int64_t loaded() const { return loaded_; }

  // "autotune cache: loaded 12 entries from F (2 for other devices, 3 not
  // used); dumped 14 entries to G; directory: 1 lookup error" — empty when
  // no file is involved and no tier failed.
  // The tiers' failures counted are those since `failures_since` (all
  // when null): a session outlives many compiles.
  std::string Summary(absl::string_view device, const DumpReport& dump,
                      const StoreChain::Counts* failures_since = nullptr) const;

  // Warnings for the user, one line each (empty when all is well): a dump
  // that dropped entries the file held, and a loaded file none of whose
  // entries apply to `device` at `current_version`.
  std::vector<std::string> Warnings(absl::string_view device,
                                    const DumpReport& dump) const;

 private:
  AutotuneCacheSession()
      : memory_(std::make_shared<InMemoryAutotuneCache>()) {}

  int current_version_ = 0;
  Mutex dump_mu_;
  std::shared_ptr<InMemoryAutotuneCache> memory_;
  StoreChain chain_;
  std::unique_ptr<TuningShards> shards_;
  std::string load_path_;
  std::string dump_path_;
  bool dump_merge_ = false;
  int64_t loaded_ = 0;
  // The dump file as this session last wrote it (size, mtime, inode), so a
  // later dump re-reads it only when someone else changed it.
  struct FileState {
    int64_t size = -1;
    int64_t mtime_ns = 0;
    uint64_t inode = 0;
    bool operator==(const FileState&) const = default;
  };
  FileState written_state_;
  static FileState StateOf(const std::string& path);
};

}  // namespace xtune

#endif  // XTUNE_CACHE_PERSISTENT_H_
