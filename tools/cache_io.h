// What the `xtune cache` subcommands share (tools/cache_command.cc,
// tools/cache_prune_explain.cc): reading and writing caches (files,
// per-fusion directories, redis:// URLs), this machine's device string,
// and the output of --format=json.
#ifndef XTUNE_TOOLS_CACHE_IO_H_
#define XTUNE_TOOLS_CACHE_IO_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "cache/redis_store.h"
#include "cache/autotune_results.pb.h"
#include "tools/cli_args.h"
#include "tools/json_writer.h"

namespace xtune {

// Where a subcommand's report goes: text on stdout, or (--format=json) one
// JSON object the command writes into `json` and CacheCommand prints.
struct CacheOutput {
  bool json = false;
  JsonWriter w;
};

// Whether a GPU target flag (--xtune_gpu_target,
// --xla_gpu_target_config_filename) was given.
bool HasTargetFlag(const ParsedArgs& args);
// This machine's device string for --backend (default cpu) and the target
// flags, exactly as the backend puts it in cache keys.
absl::StatusOr<std::string> ThisDevice(const ParsedArgs& args);
// The remote cache at `url`, with a tool's timeout (10 s).
absl::StatusOr<std::unique_ptr<RedisAutotuneCache>> OpenRemote(const std::string& url);
// A results file, a per-fusion directory (its keyed files), or a remote
// cache (every entry it holds). Skipped items are reported on stderr.
absl::StatusOr<xla::AutotuneResults> ReadCache(const std::string& path);
// Writes `results` to a file (replaced) or a remote cache (entries added,
// others kept); returns how, for the report.
absl::StatusOr<std::string> WriteCache(const std::string& out,
                                       const xla::AutotuneResults& results);
// FailedPrecondition for an empty OUT without --allow_empty, saying what
// `removed` would have removed.
absl::Status CheckNotEmpty(const ParsedArgs& args, const xla::AutotuneResults& out,
                           const std::string& out_path, const xla::AutotuneResults& removed);
// Whether `out` names the same file as `in` (an in-place rewrite).
bool SameFile(const std::string& in, const std::string& out);
// A result's run time as "12.3 us", or "-".
std::string SecondsText(const xla::AutotuneResult& r);

// The subcommands of tools/cache_prune_explain.cc.
absl::Status CachePrune(const ParsedArgs& args, int* exit_code, CacheOutput& out);
absl::Status CacheExplain(const ParsedArgs& args, int* exit_code, CacheOutput& out);

}  // namespace xtune

#endif  // XTUNE_TOOLS_CACHE_IO_H_
