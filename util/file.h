// File helpers: whole-file reads and atomic writes.
//
// Thread-safe: every function only touches the paths it is given.
#ifndef XTUNE_UTIL_FILE_H_
#define XTUNE_UTIL_FILE_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xtune {

// Reads the whole file at `path`. Errors: NotFound when it does not exist,
// PermissionDenied / Unavailable (other I/O errors) naming the path.
absl::StatusOr<std::string> ReadFile(const std::string& path);

// Writes `contents` to `path` atomically: the data goes to a temporary file
// in the same folder, is flushed to disk, then renamed over `path`. A reader
// sees either the old file or the new one, never a partial file; on any error
// the old file is untouched and the temporary file is removed.
// `tmp_dir`, when given, holds the temporary file instead (it must be on
// the same file system as `path`).
// The temporary file is named ".NAME.tmp.HOST.PID.N": a writer killed
// before its rename leaves it behind, and RemoveStaleTemporaries removes it.
absl::Status WriteFileAtomically(const std::string& path,
                                 absl::string_view contents,
                                 const std::string& tmp_dir = "");

// Removes from folder `dir` the temporary files of WriteFileAtomically
// whose writer is gone: written on this host by a process that no longer
// exists (killed, crashed); only those of the file named `only_for` when it
// is not empty. Temporary files of other hosts (a shared folder) are left
// alone: their writers may be alive. Returns how many it removed; a missing
// folder removes none. Cheap enough for every write of a single file;
// callers with folders of many files (the per-fusion cache, kernel caches)
// call it once when they open the folder.
int RemoveStaleTemporaries(const std::string& dir, absl::string_view only_for = "");

// This host's name up to its first dot: what temporary names carry so that
// a folder shared between hosts is cleaned only of this host's leftovers.
std::string ThisHostLabel();
// Whether process `pid` of this host no longer exists.
bool ProcessIsGone(int64_t pid);

// An exclusive advisory lock (flock) on a lock file, held until destroyed.
// Processes that all take the lock before a read-modify-write of a file do
// not lose each other's updates. The lock file is created if missing and
// left in place (removing it would race with a waiting process).
class FileLock {
 public:
  // Blocks until the lock on `lock_path` is held.
  static absl::StatusOr<FileLock> Acquire(const std::string& lock_path);
  FileLock(FileLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  FileLock& operator=(FileLock&& o) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// Creates `path` and its missing parents (like `mkdir -p`).
absl::Status CreateDirectories(const std::string& path);

// The root of xtune's kernel caches (compiled CPU objects, cubins):
// `configured` when not empty, else $XTUNE_CACHE_DIR, else
// $XDG_CACHE_HOME/xtune, else $HOME/.cache/xtune; "" when none is set.
std::string KernelCacheRoot(const std::string& configured = "");

}  // namespace xtune

#endif  // XTUNE_UTIL_FILE_H_
