#include "cache/merge.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "cache/autotune_cache.h"
#include "cache/config_proto.h"
#include "cache/inspect.h"
#include "cache/results_file.h"
#include "util/file.h"
#include "util/status_macros.h"

namespace xtune {
namespace {

// Whether `incoming` should replace `existing` under `policy`.
bool Prefer(const xla::AutotuneResult& existing,
            const xla::AutotuneResult& incoming, ConflictPolicy policy) {
  if (policy == ConflictPolicy::kFaster) {
    std::optional<double> in = RunTimeSeconds(incoming);
    std::optional<double> ex = RunTimeSeconds(existing);
    if (!in) return false;
    return !ex || *in < *ex;
  }
  int64_t a = existing.xtune_provenance().tuned_at_unix_seconds();
  int64_t b = incoming.xtune_provenance().tuned_at_unix_seconds();
  if (a == 0 || b == 0) return true;
  return b >= a;
}

// The same chosen config (the key oneof) and the same failure state.
bool SameConfig(const xla::AutotuneResult& a, const xla::AutotuneResult& b) {
  return a.has_failure() == b.has_failure() &&
         ResultConfigText(a) == ResultConfigText(b);
}

}  // namespace

absl::StatusOr<ConflictPolicy> ParseConflictPolicy(absl::string_view s) {
  if (s == "error") return ConflictPolicy::kError;
  if (s == "faster") return ConflictPolicy::kFaster;
  if (s == "newer") return ConflictPolicy::kNewer;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown conflict policy '", s, "' (expected error, faster or newer)"));
}

absl::Status MergeResults(xla::AutotuneResults* base,
                          const xla::AutotuneResults& incoming,
                          absl::string_view source, ConflictPolicy policy,
                          int current_version, MergeStats* stats) {
  xla::AutotuneResults out = *base;
  out.set_version(3);
  MergeStats local;
  absl::flat_hash_map<AutotuneKey, int> index;
  for (int i = 0; i < out.results_size(); ++i) {
    index.emplace(FileKeyOfEntry(out.results(i), current_version), i);
  }
  for (const auto& e : incoming.results()) {
    AutotuneKey key = FileKeyOfEntry(e, current_version);
    auto it = index.find(key);
    if (it == index.end()) {
      index.emplace(key, out.results_size());
      *out.add_results() = e;
      ++local.added;
      continue;
    }
    auto* existing = out.mutable_results(it->second);
    if (SameResult(existing->result(), e.result())) {
      ++local.identical;
      continue;
    }
    // Two tunings that chose the same config (two test shards, a re-run)
    // differ only in their measured times: keep the faster.
    if (SameConfig(existing->result(), e.result())) {
      if (Prefer(existing->result(), e.result(), ConflictPolicy::kFaster)) {
        *existing = e;
      }
      ++local.same_config;
      continue;
    }
    if (policy == ConflictPolicy::kError) {
      return absl::InvalidArgumentError(absl::StrCat(
          source, ": a different config for fusion ",
          SummarizeFusionText(key.hlo), " on '", key.device, "' (version ",
          key.version, "): existing ", ResultConfigText(existing->result()),
          ", incoming ", ResultConfigText(e.result()),
          "; choose --on_conflict=faster or --on_conflict=newer"));
    }
    if (Prefer(existing->result(), e.result(), policy)) {
      *existing = e;
      ++local.replaced;
    } else {
      ++local.kept;
    }
  }
  SortEntries(&out);
  *base = std::move(out);
  if (stats != nullptr) {
    stats->added += local.added;
    stats->identical += local.identical;
    stats->same_config += local.same_config;
    stats->replaced += local.replaced;
    stats->kept += local.kept;
  }
  return absl::OkStatus();
}

absl::StatusOr<xla::AutotuneResults> ReadMergeTarget(const std::string& path) {
  absl::StatusOr<xla::AutotuneResults> existing = ReadAutotuneResults(path);
  if (existing.ok()) return existing;
  if (existing.status().code() == absl::StatusCode::kNotFound) {
    xla::AutotuneResults empty;
    empty.set_version(3);
    return empty;
  }
  return absl::Status(
      existing.status().code(),
      absl::StrCat("cannot merge the dump into '", path,
                   "', which is not a readable autotune cache: ",
                   existing.status().message(),
                   " (the file was left as it is; remove it to start afresh)"));
}

absl::Status MergeIntoFile(const std::string& path,
                           const xla::AutotuneResults& results,
                           int current_version, MergeStats* stats) {
  XTUNE_ASSIGN_OR_RETURN(FileLock lock, FileLock::Acquire(path + ".lock"));
  XTUNE_ASSIGN_OR_RETURN(xla::AutotuneResults merged, ReadMergeTarget(path));
  XTUNE_RETURN_IF_ERROR(MergeResults(&merged, results, "this compile",
                                     ConflictPolicy::kNewer, current_version,
                                     stats));
  return WriteAutotuneResults(path, merged);
}

}  // namespace xtune
