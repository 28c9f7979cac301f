#include "tools/cache_io.h"

#include <filesystem>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cache/config_proto.h"
#include "cache/directory_cache.h"
#include "cache/inspect.h"
#include "cache/results_file.h"
#include "codegen/codegen_version.h"
#include "codegen/registry.h"
#include "util/status_macros.h"

namespace xtune {

// This machine's device string for --backend (default cpu), exactly as the
// backend puts it in cache keys (for the CPU without a compiler: these
// commands only read files).
bool HasTargetFlag(const ParsedArgs& args) {
  for (const ParsedArgs::XlaFlag& f : args.xla) {
    if (f.name == "xtune_gpu_target" ||
        f.name == "xla_gpu_target_config_filename") {
      return true;
    }
  }
  return false;
}

absl::StatusOr<std::string> ThisDevice(const ParsedArgs& args) {
  const std::string backend = args.Get("backend", "cpu");
  if (HasTargetFlag(args) && backend != "cuda" && backend != "cuda_emulator") {
    return absl::InvalidArgumentError(absl::StrCat(
        "--xtune_gpu_target and --xla_gpu_target_config_filename name the GPU "
        "of --backend=cuda or cuda_emulator, not of --backend=", backend));
  }
  BackendOptions options;
  for (const ParsedArgs::XlaFlag& f : args.xla) {
    if (f.name == "xtune_gpu_target") options.gpu_target = f.value;
    if (f.name == "xla_gpu_target_config_filename") {
      options.gpu_target_config_file = f.value;
    }
  }
  if (!options.gpu_target.empty() && !options.gpu_target_config_file.empty()) {
    return absl::InvalidArgumentError(
        "give --xtune_gpu_target or --xla_gpu_target_config_filename, not "
        "both");
  }
  return BackendDevice(backend, options);
}

// The remote cache at `url`, for the tools (a longer timeout than a
// compile's: a tool waits for the answer).
absl::StatusOr<std::unique_ptr<RedisAutotuneCache>> OpenRemote(const std::string& url) {
  RedisStoreOptions o;
  XTUNE_ASSIGN_OR_RETURN(o.address, ParseRedisUrl(url));
  o.timeout = absl::Seconds(10);
  return std::make_unique<RedisAutotuneCache>(std::move(o));
}

// A results file, a per-fusion directory (its keyed files), or a remote
// cache (redis://, unix://: every entry it holds).
absl::StatusOr<xla::AutotuneResults> ReadCache(const std::string& path) {
  if (IsRemoteCacheUrl(path)) {
    XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<RedisAutotuneCache> remote, OpenRemote(path));
    int64_t damaged = 0;
    absl::StatusOr<xla::AutotuneResults> r = remote->ReadAll(&damaged);
    if (!r.ok()) {
      return absl::Status(r.status().code(),
                          absl::StrCat("cannot read the remote cache: ", r.status().message()));
    }
    if (damaged > 0) {
      std::cerr << "xtune cache: " << path << ": skipped " << damaged
                << " values that are not autotune results entries\n";
    }
    return r;
  }
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) return ReadAutotuneResults(path);
  int64_t without_key = 0;
  XTUNE_ASSIGN_OR_RETURN(xla::AutotuneResults r,
                         ReadDirectoryCache(path, &without_key));
  if (without_key > 0) {
    std::cerr << "xtune cache: " << path << ": skipped " << without_key
              << " files without a key (written by XLA, which stores only "
                 "the key's hash in the file name)\n";
  }
  return r;
}

// Writes `results` to OUT: a file (replaced), or a remote cache, where the
// entries are added (replacing those of the same keys) and nothing else
// is removed. Returns how the result was written, for the report.
absl::StatusOr<std::string> WriteCache(const std::string& out,
                                       const xla::AutotuneResults& results) {
  if (!IsRemoteCacheUrl(out)) {
    XTUNE_RETURN_IF_ERROR(WriteAutotuneResults(out, results));
    return std::string(IsTextProtoPath(out) ? " (text)" : " (binary)");
  }
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<RedisAutotuneCache> remote, OpenRemote(out));
  absl::Status s = remote->WriteAll(results, kCodegenVersion);
  if (!s.ok()) {
    return absl::Status(s.code(),
                        absl::StrCat("cannot write the remote cache: ", s.message()));
  }
  return std::string(" (added to the remote cache; its other entries are kept)");
}

// Refuses to write a file with no entries unless --allow_empty: an empty
// result is almost always a filter that matched nothing.
absl::Status CheckNotEmpty(const ParsedArgs& args,
                           const xla::AutotuneResults& out,
                           const std::string& out_path,
                           const xla::AutotuneResults& removed) {
  if (out.results_size() > 0 || args.Has("allow_empty")) return absl::OkStatus();
  std::string message =
      absl::StrCat("refusing to write '", out_path, "' with no entries");
  if (removed.results_size() > 0) {
    absl::StrAppend(&message, "; it would remove all ", removed.results_size(),
                    " (by device and version):\n",
                    CountByDeviceAndVersion(removed),
                    "(--device matches any part of the device string, as in "
                    "`xtune cache show --device`; ");
  } else {
    absl::StrAppend(&message, " (");
  }
  absl::StrAppend(&message, "pass --allow_empty to write it anyway)");
  return absl::FailedPreconditionError(message);
}

// Whether `out` names the same file as `in` (an in-place rewrite).
bool SameFile(const std::string& in, const std::string& out) {
  std::error_code ec;
  return std::filesystem::exists(out, ec) &&
         std::filesystem::equivalent(in, out, ec);
}

std::string SecondsText(const xla::AutotuneResult& r) {
  std::optional<double> s = RunTimeSeconds(r);
  return s ? absl::StrFormat("%.1f us", *s * 1e6) : "-";
}

}  // namespace xtune
