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
#include "absl/synchronization/mutex.h"
#include "cache/autotune_cache.h"
#include "cache/directory_cache.h"

namespace xtune {

struct PersistentCacheOptions {
  // --xla_gpu_load_autotune_results_from: loaded when the session opens.
  // Default "" (nothing).
  std::string load_from;
  // --xla_gpu_dump_autotune_results_to: the whole memory tier is written
  // after every compile. Default "" (no dump).
  std::string dump_to;
  // --xtune_dump_autotune_results_merge: the dump merges into what the file
  // already holds, under a lock, instead of replacing it (for ctest -j and
  // sharded runs dumping into one file). Default false.
  bool dump_merge = false;
  // --xla_gpu_per_fusion_autotune_cache_dir. Default "" (no directory tier).
  std::string per_fusion_dir;
  // --xla_gpu_experimental_autotune_cache_mode. Default update.
  DirectoryCacheMode per_fusion_mode = DirectoryCacheMode::kUpdate;
};

class AutotuneCacheSession {
 public:
  // Resolves the paths (TEST_UNDECLARED_OUTPUTS_DIR / TEST_WORKSPACE
  // prefixes), checks that the dump's folder is writable (FailedPrecondition
  // otherwise, before anything is tuned), loads `load_from` (errors name the
  // file; nothing is loaded on error) and opens the directory tier.
  // `current_version` is the codegen version that entries without one get.
  static absl::StatusOr<std::unique_ptr<AutotuneCacheSession>> Open(
      const PersistentCacheOptions& options, int current_version);

  // Memory over the directory tier: what the autotuner uses.
  AutotuneCache* cache() { return &tiered_; }
  InMemoryAutotuneCache& memory() { return memory_; }
  const InMemoryAutotuneCache& memory() const { return memory_; }

  // Writes the dump file, when one was asked for (atomically; merged under
  // a lock with dump_merge). Returns the number of entries written: the
  // whole memory tier (with dump_merge: merged into what the file holds).
  // Thread-safe.
  absl::StatusOr<int64_t> Dump();

  const std::string& load_path() const { return load_path_; }  // resolved
  const std::string& dump_path() const { return dump_path_; }  // resolved
  int64_t loaded() const { return loaded_; }

  // "autotune cache: loaded 12 entries from F (2 for other devices, 3 not
  // used); dumped 14 entries to G" — empty when no file is involved.
  std::string Summary(absl::string_view device, int64_t dumped) const;

 private:
  AutotuneCacheSession() : tiered_(&memory_, nullptr) {}

  int current_version_ = 0;
  absl::Mutex dump_mu_;
  InMemoryAutotuneCache memory_;
  std::unique_ptr<DirectoryAutotuneCache> directory_;
  TieredAutotuneCache tiered_;
  std::string load_path_;
  std::string dump_path_;
  bool dump_merge_ = false;
  int64_t loaded_ = 0;
};

}  // namespace xtune

#endif  // XTUNE_CACHE_PERSISTENT_H_
