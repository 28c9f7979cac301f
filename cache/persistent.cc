#include "cache/persistent.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "cache/merge.h"
#include "cache/path_resolution.h"
#include "cache/redis_shards.h"
#include "cache/redis_store.h"
#include "cache/results_file.h"
#include "util/file.h"
#include "util/status_macros.h"

namespace xtune {

namespace {

// `path` resolved, absolute and normal (symlinks of existing parts followed).
absl::StatusOr<std::string> CanonicalPath(const std::string& path,
                                          bool resolve_prefixes) {
  if (path.empty()) return std::string();
  std::string resolved = path;
  if (resolve_prefixes) {
    XTUNE_ASSIGN_OR_RETURN(resolved, ResolveAutotunePath(path));
  }
  std::error_code ec;
  std::filesystem::path p = std::filesystem::weakly_canonical(
      std::filesystem::absolute(resolved, ec), ec);
  if (ec) p = std::filesystem::absolute(resolved).lexically_normal();
  return p.string();
}

}  // namespace

absl::StatusOr<std::string> SessionKey(const PersistentCacheOptions& o) {
  XTUNE_ASSIGN_OR_RETURN(std::string load, CanonicalPath(o.load_from, true));
  XTUNE_ASSIGN_OR_RETURN(std::string dump, CanonicalPath(o.dump_to, true));
  XTUNE_ASSIGN_OR_RETURN(std::string dir, CanonicalPath(o.per_fusion_dir, false));
  // Every field of PersistentCacheOptions (persistent.h asks a new field's
  // author to add it here).
  return absl::StrCat("load=", load, "\ndump=", dump,
                      "\nmerge=", o.dump_merge, "\ndir=", dir,
                      "\nmode=", static_cast<int>(o.per_fusion_mode), "\nremote=", o.remote,
                      "\nremote_timeout_ms=", o.remote_timeout_ms,
                      "\nremote_ttl=", o.remote_ttl_seconds, "\nshard=", o.shard,
                      "\nshard_wait_ms=", o.shard_wait_ms, "\nshard_lease_ms=", o.shard_lease_ms);
}

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
    // (Built in one expression: assigning "." afterwards trips GCC 12's
    // false -Wrestrict warning on std::string.)
    std::filesystem::path parent =
        std::filesystem::path(s->dump_path_).parent_path();
    const std::string dir = parent.empty() ? std::string(".") : parent.string();
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
        s->memory_->Load(*results, s->load_path_, current_version);
    if (!added.ok()) {
      return absl::Status(added.status().code(),
                          absl::StrCat("cannot load autotune results: ",
                                       added.status().message()));
    }
    s->loaded_ = *added;
  }
  TierPolicy memory;  // read-write, writes required
  s->chain_.AddTier("memory", s->memory_, memory);
  if (!options.per_fusion_dir.empty()) {
    XTUNE_ASSIGN_OR_RETURN(
        std::unique_ptr<DirectoryAutotuneCache> directory,
        DirectoryAutotuneCache::Open(options.per_fusion_dir,
                                     options.per_fusion_mode));
    TierPolicy policy;
    policy.writable = options.per_fusion_mode == DirectoryCacheMode::kUpdate;
    policy.writes_required = false;  // a shared folder may be full or gone
    policy.promote = true;           // so that a dump holds its hits
    s->chain_.AddTier("directory", std::move(directory), policy);
  }
  if (!options.remote.empty()) {
    RedisStoreOptions redis;
    XTUNE_ASSIGN_OR_RETURN(redis.address, ParseRedisUrl(options.remote));
    redis.timeout = absl::Milliseconds(std::max(1, options.remote_timeout_ms));
    redis.ttl_seconds = options.remote_ttl_seconds;
    redis.first_writer_wins = options.shard;
    TierPolicy policy;
    policy.writes_required = false;  // a fault costs a warning, not the compile
    policy.promote = true;           // read-through: a remote hit lands above
    policy.down_on_failure = true;   // one warning, then left alone
    // hiredis times out each call itself; this bounds a hung connect or
    // a slow pipeline.
    policy.timeout = 3 * redis.timeout + absl::Milliseconds(500);
    auto store = std::make_shared<RedisAutotuneCache>(std::move(redis));
    s->chain_.AddTier("redis", store, policy);
    if (options.shard) {
      RedisShardsOptions shards;
      shards.lease = absl::Milliseconds(std::max(30, options.shard_lease_ms));
      shards.wait = absl::Milliseconds(std::max(0, options.shard_wait_ms));
      s->shards_ = std::make_unique<RedisTuningShards>(store, shards);
    }
  }
  return s;
}

// The state of `path` now (size -1 when it does not exist).
AutotuneCacheSession::FileState AutotuneCacheSession::StateOf(
    const std::string& path) {
  FileState st;
  struct stat sb;
  if (stat(path.c_str(), &sb) != 0) return st;
  st.size = sb.st_size;
  st.mtime_ns = int64_t{sb.st_mtim.tv_sec} * 1000000000 + sb.st_mtim.tv_nsec;
  st.inode = sb.st_ino;
  return st;
}

absl::StatusOr<AutotuneCacheSession::DumpReport> AutotuneCacheSession::Dump() {
  DumpReport report;
  if (dump_path_.empty()) return report;
  // One dump at a time: a later snapshot must not be overwritten by an
  // earlier one (compilers on several threads share a session).
  MutexLock lock(&dump_mu_);
  xla::AutotuneResults results = memory_->Dump();
  absl::Status status;
  report.written = results.results_size();
  if (dump_merge_) {
    MergeStats stats;
    status = MergeIntoFile(dump_path_, results, current_version_, &stats);
    report.written = stats.added + stats.identical + stats.same_config +
                     stats.replaced + stats.kept;
  } else {
    // XLA overwrites the file; xtune does too, but says what is lost. The
    // file is read only when it changed since this session wrote it, and
    // under the merge lock, so that of two compiles dumping at once the
    // second sees (and reports) what the first wrote.
    absl::StatusOr<FileLock> file_lock = FileLock::Acquire(dump_path_ + ".lock");
    if (!file_lock.ok()) {
      return absl::Status(file_lock.status().code(),
                          absl::StrCat("cannot dump autotune results to '",
                                       dump_path_, "': ",
                                       file_lock.status().message()));
    }
    FileState now = StateOf(dump_path_);
    if (now.size >= 0 && !(now == written_state_)) {
      absl::StatusOr<xla::AutotuneResults> old =
          ReadAutotuneResults(dump_path_);
      if (old.ok()) {
        absl::flat_hash_set<AutotuneKey> keep;
        for (const auto& e : results.results()) {
          keep.insert(FileKeyOfEntry(e, current_version_));
        }
        for (const auto& e : old->results()) {
          report.dropped += !keep.contains(FileKeyOfEntry(e, current_version_));
        }
      }
    }
    status = WriteAutotuneResults(dump_path_, results);
    if (status.ok()) written_state_ = StateOf(dump_path_);
  }
  if (!status.ok()) {
    return absl::Status(status.code(),
                        absl::StrCat("cannot dump autotune results to '",
                                     dump_path_, "': ", status.message()));
  }
  return report;
}

std::vector<std::string> AutotuneCacheSession::Warnings(
    absl::string_view device, const DumpReport& dump) const {
  std::vector<std::string> out;
  if (dump.dropped > 0) {
    out.push_back(absl::StrCat(
        "the dump replaced '", dump_path_, "', dropping ", dump.dropped,
        " entries it held that this process did not have (another "
        "compile's or an earlier run's); pass "
        "--xtune_dump_autotune_results_merge to keep them"));
  }
  if (loaded_ > 0) {
    std::map<std::pair<std::string, int>, int64_t> by =
        memory_->LoadedByDeviceAndVersion();
    if (!by.contains({std::string(device), current_version_})) {
      std::string held;
      for (const auto& [dv, n] : by) {
        absl::StrAppend(&held, held.empty() ? "" : "; ", n, " for '", dv.first,
                        "' version ", dv.second);
      }
      out.push_back(absl::StrCat(
          "none of the ", loaded_, " entries loaded from '", load_path_,
          "' apply here: it holds ", held, "; this is '", device,
          "' version ", current_version_,
          " (tune on this device or load its cache)"));
    }
  }
  return out;
}

std::string AutotuneCacheSession::Summary(
    absl::string_view device, const DumpReport& dump,
    const StoreChain::Counts* failures_since) const {
  int64_t dumped = dump.written;
  std::string out;
  if (!load_path_.empty()) {
    out = absl::StrCat("loaded ", loaded_, " entries from ", load_path_, " (",
                       memory_->LoadedForOtherDevices(device),
                       " for other devices, ", memory_->UnusedLoadedCount(),
                       " not used)");
  }
  if (!dump_path_.empty()) {
    absl::StrAppend(&out, out.empty() ? "" : "; ",
                    dump_merge_ ? "merged " : "dumped ", dumped, " entries ",
                    dump_merge_ ? "into " : "to ", dump_path_);
  }
  std::string failures = chain_.FailureSummary(failures_since);
  if (!failures.empty()) {
    absl::StrAppend(&out, out.empty() ? "" : "; ", failures);
  }
  if (out.empty()) return out;
  return absl::StrCat("autotune cache: ", out);
}

}  // namespace xtune
