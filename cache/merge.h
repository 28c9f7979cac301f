// Merging autotuning result files: `xtune cache merge`, and dumps that merge
// into an existing file (--xtune_dump_autotune_results_merge) so sharded or
// parallel test runs can all dump into one cache without losing entries.
#ifndef XTUNE_CACHE_MERGE_H_
#define XTUNE_CACHE_MERGE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cache/autotune_results.pb.h"

namespace xtune {

// What to do when both sides hold one key with different configs. (The same
// config with different measured times is not a conflict: the faster result
// is kept, whatever the policy.)
enum class ConflictPolicy {
  kError,   // an error naming the key
  kFaster,  // keep the smaller run_time (ties keep the existing one)
  kNewer,   // keep the later xtune_provenance.tuned_at_unix_seconds; when
            // either lacks it, the incoming result
};

// "error", "faster", "newer". InvalidArgument otherwise.
absl::StatusOr<ConflictPolicy> ParseConflictPolicy(absl::string_view s);

struct MergeStats {
  int64_t added = 0;      // keys only the incoming side had
  int64_t identical = 0;  // keys both had with the same result
  int64_t same_config = 0;  // the same config with another time: the faster
                            // is kept (never a conflict)
  int64_t replaced = 0;   // conflicts resolved in favour of the incoming side
  int64_t kept = 0;       // conflicts resolved in favour of the existing side
};

// Adds `incoming` (named `source` in errors) into `base`; the result is
// sorted by (device, hlo, version). Version 0 and `current_version` are one
// key. On error `base` is unchanged.
absl::Status MergeResults(xla::AutotuneResults* base,
                          const xla::AutotuneResults& incoming,
                          absl::string_view source, ConflictPolicy policy,
                          int current_version, MergeStats* stats);

// What a merging dump into `path` starts from: its entries, or none when
// the file does not exist. An unreadable or corrupt file is an error saying
// it is left as it is.
absl::StatusOr<xla::AutotuneResults> ReadMergeTarget(const std::string& path);

// Writes `results` into `path` merged with what `path` already holds, under
// an exclusive lock on `path + ".lock"`: concurrent writers all end up in
// the file. A missing file is created; an unreadable or corrupt one is an
// error (and is left as it is). Conflicts: kNewer.
absl::Status MergeIntoFile(const std::string& path,
                           const xla::AutotuneResults& results,
                           int current_version, MergeStats* stats);

}  // namespace xtune

#endif  // XTUNE_CACHE_MERGE_H_
