// File helpers: whole-file reads and atomic writes.
//
// Thread-safe: every function only touches the paths it is given.
#ifndef XTUNE_UTIL_FILE_H_
#define XTUNE_UTIL_FILE_H_

#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace xtune {

// Reads the whole file at `path`. Errors: NotFound when it does not exist,
// PermissionDenied / Unavailable (other I/O errors) naming the path.
absl::StatusOr<std::string> ReadFile(const std::string& path);

// Writes `contents` to `path` atomically: the data goes to a temporary file
// in the same folder, is flushed to disk, then renamed over `path`. A reader
// sees either the old file or the new one, never a partial file; on any error
// the old file is untouched and the temporary file is removed.
absl::Status WriteFileAtomically(const std::string& path,
                                 absl::string_view contents);

// Creates `path` and its missing parents (like `mkdir -p`).
absl::Status CreateDirectories(const std::string& path);

}  // namespace xtune

#endif  // XTUNE_UTIL_FILE_H_
