#include "cache/persistent.h"

#include <unistd.h>

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "cache/merge.h"
#include "cache/path_resolution.h"
#include "cache/results_file.h"
#include "util/status_macros.h"

namespace xtune {

absl::StatusOr<std::unique_ptr<AutotuneCacheSession>>
AutotuneCacheSession::Open(const PersistentCacheOptions& options,
                           int current_version) {
  std::unique_ptr<AutotuneCacheSession> s(new AutotuneCacheSession());
  s->current_version_ = current_version;
  s->dump_merge_ = options.dump_merge;
  if (!options.dump_to.empty()) {
    XTUNE_ASSIGN_OR_RETURN(s->dump_path_, ResolveAutotunePath(options.dump_to));
    // Fail before tuning, not after: the dump's folder must be a writable
    // folder, the target not a folder, and a file to merge into readable.
    std::string dir =
        std::filesystem::path(s->dump_path_).parent_path().string();
    if (dir.empty()) dir = ".";
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec) ||
        access(dir.c_str(), W_OK) != 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot dump autotune results to '", s->dump_path_,
                       "': '", dir, "' is not a writable folder"));
    }
    if (std::filesystem::is_directory(s->dump_path_, ec)) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot dump autotune results to '", s->dump_path_,
                       "': it is a folder (give a file name)"));
    }
    if (options.dump_merge) {
      XTUNE_RETURN_IF_ERROR(ReadMergeTarget(s->dump_path_).status());
    }
  }
  if (!options.load_from.empty()) {
    XTUNE_ASSIGN_OR_RETURN(s->load_path_,
                           ResolveAutotunePath(options.load_from));
    absl::StatusOr<xla::AutotuneResults> results =
        ReadAutotuneResults(s->load_path_);
    if (!results.ok()) {
      return absl::Status(
          results.status().code(),
          absl::StrCat("cannot load autotune results (--xla_gpu_load_autotune_"
                       "results_from=",
                       options.load_from, "): ", results.status().message()));
    }
    absl::StatusOr<int64_t> added =
        s->memory_.Load(*results, s->load_path_, current_version);
    if (!added.ok()) {
      return absl::Status(added.status().code(),
                          absl::StrCat("cannot load autotune results: ",
                                       added.status().message()));
    }
    s->loaded_ = *added;
  }
  if (!options.per_fusion_dir.empty()) {
    XTUNE_ASSIGN_OR_RETURN(
        s->directory_, DirectoryAutotuneCache::Open(options.per_fusion_dir,
                                                    options.per_fusion_mode));
    s->tiered_ = TieredAutotuneCache(&s->memory_, s->directory_.get());
  }
  return s;
}

absl::StatusOr<int64_t> AutotuneCacheSession::Dump() {
  if (dump_path_.empty()) return 0;
  // One dump at a time: a later snapshot must not be overwritten by an
  // earlier one (compilers on several threads share a session).
  absl::MutexLock lock(&dump_mu_);
  xla::AutotuneResults results = memory_.Dump();
  absl::Status status;
  int64_t entries = results.results_size();
  if (dump_merge_) {
    MergeStats stats;
    status = MergeIntoFile(dump_path_, results, current_version_, &stats);
    entries = stats.added + stats.identical + stats.replaced + stats.kept;
  } else {
    status = WriteAutotuneResults(dump_path_, results);
  }
  if (!status.ok()) {
    return absl::Status(status.code(),
                        absl::StrCat("cannot dump autotune results to '",
                                     dump_path_, "': ", status.message()));
  }
  return entries;
}

std::string AutotuneCacheSession::Summary(absl::string_view device,
                                          int64_t dumped) const {
  std::string out;
  if (!load_path_.empty()) {
    out = absl::StrCat("loaded ", loaded_, " entries from ", load_path_, " (",
                       memory_.LoadedForOtherDevices(device),
                       " for other devices, ", memory_.UnusedLoadedCount(),
                       " not used)");
  }
  if (!dump_path_.empty()) {
    absl::StrAppend(&out, out.empty() ? "" : "; ",
                    dump_merge_ ? "merged " : "dumped ", dumped, " entries ",
                    dump_merge_ ? "into " : "to ", dump_path_);
  }
  if (out.empty()) return out;
  return absl::StrCat("autotune cache: ", out);
}

}  // namespace xtune
