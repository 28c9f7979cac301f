// Reading and writing autotuning result files: XLA's AutotuneResults, as
// textproto when the path ends in .txt .txtpb .textproto .prototxt .pbtxt,
// binary otherwise. Writes are atomic (a temporary file beside the target,
// then rename): a reader, or a process killed mid-write, sees the old file
// or the new one, never a mix.
//
// Files xtune writes carry a header and an integrity check (binary: fields
// 1000 and 1001, which XLA ignores; text: "# xtune-file" and
// "# xtune-check: entries=N sha256=H" comment lines), so a truncated or
// altered file is detected; XLA's files, which have neither, load as they
// are. Thread-safe.
#ifndef XTUNE_CACHE_RESULTS_FILE_H_
#define XTUNE_CACHE_RESULTS_FILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cache/autotune_results.pb.h"

namespace xtune {

// Whether `path` names a textproto file (by extension).
bool IsTextProtoPath(absl::string_view path);

// Parses file contents. Errors name `source`: DataLoss for a malformed,
// truncated or altered file (text errors give line:column),
// FailedPrecondition when version != 3.
absl::StatusOr<xla::AutotuneResults> ParseAutotuneResults(
    absl::string_view data, bool text, absl::string_view source);

// Parses one text AutotuneResult (a per-fusion cache file). DataLoss naming
// `source` and the line:column of the first error; nothing on stderr.
absl::StatusOr<xla::AutotuneResult> ParseAutotuneResultText(
    absl::string_view text, absl::string_view source);

// Deterministic bytes of `results` (entries in the given order) with
// xtune's header and check.
std::string SerializeAutotuneResults(const xla::AutotuneResults& results,
                                     bool text);

// Reads `path`. NotFound when missing, plus ParseAutotuneResults' errors.
absl::StatusOr<xla::AutotuneResults> ReadAutotuneResults(
    const std::string& path);

// Writes `path` atomically (format by extension).
absl::Status WriteAutotuneResults(const std::string& path,
                                  const xla::AutotuneResults& results);

}  // namespace xtune

#endif  // XTUNE_CACHE_RESULTS_FILE_H_
