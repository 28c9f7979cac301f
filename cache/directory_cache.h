// The per-fusion directory tier (--xla_gpu_per_fusion_autotune_cache_dir)
// and the tiered cache the compiler uses (memory over the directory).
//
// The directory holds one text AutotuneResult per key in `DIR/<H>.textproto`,
// `H` = unpadded URL-safe base64 of the SHA-256 of the key's text form, as
// XLA names them; each file is written to `DIR/tmp/` and renamed into
// place, so any number of processes can share one directory: a reader sees
// a whole file or none, and concurrent writers of one key leave one whole
// file. Thread-safe.
#ifndef XTUNE_CACHE_DIRECTORY_CACHE_H_
#define XTUNE_CACHE_DIRECTORY_CACHE_H_

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "cache/autotune_cache.h"

namespace xtune {

// --xla_gpu_experimental_autotune_cache_mode.
enum class DirectoryCacheMode {
  kUpdate,  // read on a miss of the memory tier, write what is tuned
  kRead,    // read only
};

// Parses "update" / "read" and XLA's enum names AUTOTUNE_CACHE_MODE_UPDATE /
// AUTOTUNE_CACHE_MODE_READ (any case). InvalidArgument otherwise.
absl::StatusOr<DirectoryCacheMode> ParseDirectoryCacheMode(absl::string_view s);

// The file name (without folder) of `key`: "<H>.textproto".
std::string DirectoryCacheFileName(const AutotuneKey& key);

class DirectoryAutotuneCache : public AutotuneCache {
 public:
  // Creates DIR and DIR/tmp when writing (kUpdate). Errors name the folder.
  static absl::StatusOr<std::unique_ptr<DirectoryAutotuneCache>> Open(
      const std::string& dir, DirectoryCacheMode mode);

  // A file that cannot be read or parsed is a miss, reported through the
  // warning callback (stderr by default); in update mode it is rewritten
  // once the fusion is tuned.
  std::optional<CacheHit> Lookup(const AutotuneKey& key) override;
  // Writes the key's file (update mode); a no-op in read mode.
  absl::Status Insert(const AutotuneKey& key,
                      const xla::AutotuneResult& result) override;

  void set_warning_callback(std::function<void(const std::string&)> cb) {
    warn_ = std::move(cb);
  }
  const std::string& dir() const { return dir_; }

 private:
  DirectoryAutotuneCache(std::string dir, DirectoryCacheMode mode)
      : dir_(std::move(dir)), mode_(mode) {}
  std::string dir_;
  DirectoryCacheMode mode_;
  std::function<void(const std::string&)> warn_;
};

// The entries of a per-fusion directory as one AutotuneResults, for `xtune
// cache`: xtune writes each file's key as leading comments; files without
// them (written by XLA, whose files hold only the result) are skipped and
// counted in `without_key`. NotFound for a missing folder, DataLoss for a
// file that is not an AutotuneResult or whose key does not hash to its name.
absl::StatusOr<xla::AutotuneResults> ReadDirectoryCache(const std::string& dir,
                                                        int64_t* without_key);

// Memory first, then the directory (when there is one); a directory hit is
// copied into memory so a dump holds it. Inserts go to both.
class TieredAutotuneCache : public AutotuneCache {
 public:
  // Borrows both; `directory` may be null.
  TieredAutotuneCache(InMemoryAutotuneCache* memory, AutotuneCache* directory)
      : memory_(memory), directory_(directory) {}
  std::optional<CacheHit> Lookup(const AutotuneKey& key) override;
  absl::Status Insert(const AutotuneKey& key,
                      const xla::AutotuneResult& result) override;

 private:
  InMemoryAutotuneCache* memory_;
  AutotuneCache* directory_;
};

}  // namespace xtune

#endif  // XTUNE_CACHE_DIRECTORY_CACHE_H_
