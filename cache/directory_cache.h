// The per-fusion directory tier (--xla_gpu_per_fusion_autotune_cache_dir).
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
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "cache/autotune_cache.h"
#include "xtune/options.h"

namespace xtune {

// DirectoryCacheMode (--xla_gpu_experimental_autotune_cache_mode) is
// defined in xtune/options.h.

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

  // A missing file is a miss. Errors: Unavailable when the file exists but
  // cannot be read, DataLoss when it does not parse or holds an invalid
  // config (naming the file); in update mode such a file is rewritten once
  // the fusion is tuned.
  absl::StatusOr<std::optional<CacheHit>> Lookup(
      const AutotuneKey& key) override;
  // Writes the key's file (update mode); a no-op in read mode.
  absl::Status Insert(const AutotuneKey& key,
                      const xla::AutotuneResult& result) override;
  // Deletes the key's file (update mode); a no-op in read mode.
  absl::Status Erase(const AutotuneKey& key) override;
  // The files xtune wrote (their key is in their first lines) of `device`
  // and `version`; XLA's files (only the key's hash is known) and damaged
  // ones are left out.
  Entries ListEntries(absl::string_view device, int version) const override;

  const std::string& dir() const { return dir_; }
  DirectoryCacheMode mode() const { return mode_; }

 private:
  DirectoryAutotuneCache(std::string dir, DirectoryCacheMode mode)
      : dir_(std::move(dir)), mode_(mode) {}
  std::string dir_;
  DirectoryCacheMode mode_;
};

// One per-fusion file's text: its key, from the leading comment lines xtune
// writes (nullopt in `key` for a file without them, as XLA writes), and its
// result. DataLoss naming `path` for text that is not an AutotuneResult.
// (The reader also checks that the file's name is its key's hash.)
struct DirectoryEntry {
  std::optional<AutotuneKey> key;
  xla::AutotuneResult result;
};
absl::StatusOr<DirectoryEntry> ParseDirectoryEntry(absl::string_view text,
                                                   absl::string_view path);
// Its key alone (nullopt without the key lines), without parsing the rest.
std::optional<AutotuneKey> DirectoryEntryKey(absl::string_view text);

// The entries of a per-fusion directory as one AutotuneResults, for `xtune
// cache`: xtune writes each file's key as leading comments; files without
// them (written by XLA, whose files hold only the result) are skipped and
// counted in `without_key`. NotFound for a missing folder, DataLoss for a
// file that is not an AutotuneResult or whose key does not hash to its name.
absl::StatusOr<xla::AutotuneResults> ReadDirectoryCache(const std::string& dir,
                                                        int64_t* without_key);

}  // namespace xtune

#endif  // XTUNE_CACHE_DIRECTORY_CACHE_H_
