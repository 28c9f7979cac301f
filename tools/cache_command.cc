#include "tools/cache_command.h"

#include <filesystem>
#include <iostream>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "autotune/phases.h"
#include "cache/config_proto.h"
#include "cache/directory_cache.h"
#include "cache/inspect.h"
#include "cache/merge.h"
#include "cache/redis_store.h"
#include "cache/results_file.h"
#include "codegen/codegen_version.h"
#include "codegen/registry.h"
#include "fusion/fusion_pass.h"
#include "ir/library_call.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "tools/cli_args.h"
#include "tools/exit_codes.h"
#include "util/status_macros.h"

namespace xtune {

const char kCacheHelp[] = R"(usage: xtune cache SUBCOMMAND [args] [flags]

Inspects and maintains autotuning result files (xtune's and XLA's): text
when the name ends in .txt .txtpb .textproto .prototxt .pbtxt, binary
protobuf otherwise. Every FILE argument may also be a per-fusion cache
directory (--xla_gpu_per_fusion_autotune_cache_dir) written by xtune, or
a remote cache (redis://HOST:PORT[/DB] or unix:///PATH, as
--xtune_autotune_cache_remote; password from $XTUNE_REDIS_PASSWORD):
read, it is every entry the server holds; as OUT of convert or merge, the
entries are added to it and nothing else is removed; prune with IN and
OUT the same remote deletes the removed entries (and says which).

subcommands:
  stats FILE...                 entries per device, version and key type
  show FILE [--device=TEXT] [--limit=N]
                                one block per entry: device, version, the
                                fused computation summarised (root op and
                                shape <- parameter shapes), config, time
  convert IN OUT                rewrite IN as OUT (text <-> binary by OUT's
                                name), entries sorted
  merge IN... --out=OUT [--on_conflict=error|faster|newer]
                                union of the inputs (OUT is replaced, not
                                read: list it as an input to keep it); one
                                key with the same config and different times
                                keeps the faster; different configs are an
                                error unless a policy picks the faster or the
                                newer one
  diff A B                      entries added, removed, with a changed
                                config, or re-timed (time delta); exit 1
                                when the caches differ, as diff(1)
  prune IN --out=OUT [--module=M.hlo ...] [--device=TEXT]
        [--this_device [--backend=NAME]] [--current_version]
                                keep only the keys the modules' fusions use
                                (any device), the entries of matching
                                devices, or the current codegen version's;
                                prints what it removed by device and version
  explain MODULE.hlo --cache=FILE [--fusion=NAME] [--device=DEVICE]
          [--backend=NAME]      for each fusion (or one): hit, or the nearest
                                stored key and what differs (device,
                                version, or the text, with a diff); DEVICE
                                (the exact device string of the key)
                                defaults to this machine's device for the
                                backend (default cpu; see `xtune devices`);
                                exit 1 when any fusion misses

--device=TEXT (show, prune) matches every device string that contains TEXT.
--backend=cuda with --xtune_gpu_target=NAME or
--xla_gpu_target_config_filename=FILE (prune --this_device, explain) takes
that GPU's device string, as a deviceless `xtune compile` does.
convert, merge and prune refuse to write a file with no entries (exit 1,
saying what would be removed) unless given --allow_empty.

flags:
  --allow_empty                 write OUT even when it has no entries
  --help                        this text
)";

namespace {

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

std::string Seconds(const xla::AutotuneResult& r) {
  std::optional<double> s = RunTimeSeconds(r);
  return s ? absl::StrFormat("%.1f us", *s * 1e6) : "-";
}

absl::Status Stats(const ParsedArgs& args, int*) {
  if (args.positional.empty()) {
    return absl::InvalidArgumentError("cache stats takes one or more files");
  }
  for (const std::string& path : args.positional) {
    XTUNE_ASSIGN_OR_RETURN(xla::AutotuneResults r, ReadCache(path));
    CacheStats s = ComputeStats(r);
    std::cout << path << ": " << s.entries << " entries (file version "
              << r.version() << "), " << s.failures << " with a failure\n";
    std::cout << "  by device:\n";
    for (const auto& [d, n] : s.by_device) {
      std::cout << absl::StrFormat("    %8d  %s\n", n, d);
    }
    std::cout << "  by codegen version:\n";
    for (const auto& [v, n] : s.by_version) {
      std::cout << absl::StrFormat(
          "    %8d  %s\n", n,
          v == 0 ? std::string("none (current)") : absl::StrCat(v));
    }
    std::cout << "  by key type:\n";
    for (const auto& [t, n] : s.by_key_type) {
      std::cout << absl::StrFormat("    %8d  %s\n", n, t);
    }
  }
  return absl::OkStatus();
}

absl::Status Show(const ParsedArgs& args, int*) {
  if (args.positional.size() != 1) {
    return absl::InvalidArgumentError("cache show takes one file");
  }
  XTUNE_ASSIGN_OR_RETURN(xla::AutotuneResults r,
                         ReadCache(args.positional[0]));
  int64_t limit = -1;
  if (args.Has("limit") && !absl::SimpleAtoi(args.Get("limit", ""), &limit)) {
    return absl::InvalidArgumentError("--limit must be an integer");
  }
  std::string device = args.Get("device", "");
  int64_t shown = 0, matching = 0;
  for (int i = 0; i < r.results_size(); ++i) {
    const auto& e = r.results(i);
    if (!DeviceMatches(e.device(), device)) continue;
    ++matching;
    if (limit >= 0 && shown >= limit) continue;
    ++shown;
    std::cout << "entry " << i + 1 << "\n"
              << "  device:  " << e.device() << "\n"
              << "  version: "
              << (e.version() == 0 ? std::string("none (current)")
                                   : absl::StrCat(e.version()))
              << "\n"
              << "  fusion:  " << SummarizeFusionText(e.hlo()) << "\n"
              << "  config:  " << ResultConfigText(e.result()) << "\n"
              << "  means:   " << ResultMeaning(e.result()) << "\n"
              << "  time:    " << Seconds(e.result()) << "\n";
    if (e.result().has_failure()) {
      std::cout << "  failure: " << e.result().failure().ShortDebugString()
                << "\n";
    }
  }
  std::cout << shown << " of " << matching << " entries shown\n";
  return absl::OkStatus();
}

absl::Status Convert(const ParsedArgs& args, int*) {
  if (args.positional.size() != 2) {
    return absl::InvalidArgumentError("cache convert takes IN and OUT");
  }
  XTUNE_ASSIGN_OR_RETURN(xla::AutotuneResults r,
                         ReadCache(args.positional[0]));
  SortEntries(&r);
  XTUNE_RETURN_IF_ERROR(
      CheckNotEmpty(args, r, args.positional[1], xla::AutotuneResults()));
  XTUNE_ASSIGN_OR_RETURN(std::string how, WriteCache(args.positional[1], r));
  std::cout << "wrote " << r.results_size() << " entries to " << args.positional[1] << how
            << "\n";
  return absl::OkStatus();
}

absl::Status Merge(const ParsedArgs& args, int*) {
  if (args.positional.empty() || !args.Has("out")) {
    return absl::InvalidArgumentError("cache merge takes IN... and --out=OUT");
  }
  XTUNE_ASSIGN_OR_RETURN(ConflictPolicy policy,
                         ParseConflictPolicy(args.Get("on_conflict", "error")));
  xla::AutotuneResults merged;
  merged.set_version(3);
  MergeStats stats;
  for (const std::string& path : args.positional) {
    XTUNE_ASSIGN_OR_RETURN(xla::AutotuneResults r, ReadCache(path));
    XTUNE_RETURN_IF_ERROR(
        MergeResults(&merged, r, path, policy, kCodegenVersion, &stats));
  }
  XTUNE_RETURN_IF_ERROR(
      CheckNotEmpty(args, merged, args.Get("out", ""), xla::AutotuneResults()));
  XTUNE_ASSIGN_OR_RETURN(std::string how, WriteCache(args.Get("out", ""), merged));
  if (IsRemoteCacheUrl(args.Get("out", ""))) std::cout << "merge:" << how << "\n";
  std::cout << "merged " << args.positional.size() << " files into "
            << args.Get("out", "") << ": " << merged.results_size()
            << " entries (" << stats.identical << " identical duplicates, "
            << stats.same_config << " with the same config re-timed (kept the "
            << "faster), " << stats.replaced + stats.kept
            << " conflicts resolved)\n";
  return absl::OkStatus();
}

absl::Status Diff(const ParsedArgs& args, int* exit_code) {
  if (args.positional.size() != 2) {
    return absl::InvalidArgumentError("cache diff takes two files");
  }
  XTUNE_ASSIGN_OR_RETURN(xla::AutotuneResults a,
                         ReadCache(args.positional[0]));
  XTUNE_ASSIGN_OR_RETURN(xla::AutotuneResults b,
                         ReadCache(args.positional[1]));
  CacheDiff d = DiffCaches(a, b, kCodegenVersion);
  auto line = [](const AutotuneKey& k) {
    return absl::StrCat(SummarizeFusionText(k.hlo), " | ", k.device,
                        " | version ", k.version);
  };
  std::cout << absl::StrFormat(
      "%d added, %d removed, %d changed config, %d re-timed, %d same\n",
      d.added.size(), d.removed.size(), d.changed.size(), d.retimed.size(),
      d.same);
  for (const AutotuneKey& k : d.added) std::cout << "+ " << line(k) << "\n";
  for (const AutotuneKey& k : d.removed) std::cout << "- " << line(k) << "\n";
  for (const auto& c : d.changed) {
    std::cout << "~ " << line(c.key)
              << "\n    config: " << ResultConfigText(c.before) << " -> "
              << ResultConfigText(c.after)
              << "\n    time:   " << Seconds(c.before) << " -> "
              << Seconds(c.after);
    std::optional<double> t0 = RunTimeSeconds(c.before),
                          t1 = RunTimeSeconds(c.after);
    if (t0 && t1 && *t0 > 0) {
      std::cout << absl::StrFormat(" (%+.1f%%)", (*t1 / *t0 - 1) * 100);
    }
    std::cout << "\n";
  }
  for (const auto& c : d.retimed) {
    std::cout << "t " << line(c.key) << "\n    time:   " << Seconds(c.before)
              << " -> " << Seconds(c.after) << "\n";
  }
  // As diff(1): 1 when the caches differ.
  if (!d.added.empty() || !d.removed.empty() || !d.changed.empty() ||
      !d.retimed.empty()) {
    *exit_code = kExitUserError;
  }
  return absl::OkStatus();
}

// The canonical texts of the fusions of `module_path`.
absl::Status CollectFusionTexts(const std::string& module_path,
                                std::set<std::string>* texts) {
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Module> module,
                         ParseModuleFile(module_path));
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Module> fused, FuseModule(*module));
  for (const Instruction* i : FusionsOf(*fused)) {
    texts->insert(KeyTextOf(*i));
  }
  return absl::OkStatus();
}

absl::Status Prune(const ParsedArgs& args, int*) {
  if (args.positional.size() != 1 || !args.Has("out")) {
    return absl::InvalidArgumentError("cache prune takes IN and --out=OUT");
  }
  XTUNE_ASSIGN_OR_RETURN(xla::AutotuneResults r,
                         ReadCache(args.positional[0]));
  PruneOptions options;
  if (args.Has("module")) {
    options.keep_hlo.emplace();
    for (const std::string& m : args.flags.at("module")) {
      XTUNE_RETURN_IF_ERROR(CollectFusionTexts(m, &*options.keep_hlo));
    }
  }
  if (args.Has("device") && args.Has("this_device")) {
    return absl::InvalidArgumentError(
        "give --device or --this_device, not both");
  }
  if (args.Has("device")) options.keep_device = args.Get("device", "");
  if (args.Has("this_device")) {
    XTUNE_ASSIGN_OR_RETURN(options.keep_device, ThisDevice(args));
  } else if (HasTargetFlag(args)) {
    return absl::InvalidArgumentError(
        "a GPU target names this device only with --this_device");
  }
  if (args.Has("current_version")) options.keep_version = kCodegenVersion;
  if (!options.keep_hlo && !options.keep_device && !options.keep_version) {
    return absl::InvalidArgumentError(
        "cache prune needs --module, --device, --this_device or "
        "--current_version");
  }
  xla::AutotuneResults removed;
  xla::AutotuneResults out = PruneCache(r, options, &removed);
  const std::string out_path = args.Get("out", "");
  XTUNE_RETURN_IF_ERROR(CheckNotEmpty(args, out, out_path, removed));
  const bool remote_in_place = IsRemoteCacheUrl(out_path) && out_path == args.positional[0];
  bool in_place = remote_in_place || SameFile(args.positional[0], out_path);
  if (remote_in_place) {
    // The server keeps what is kept: only the removed entries go.
    XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<RedisAutotuneCache> remote, OpenRemote(out_path));
    absl::Status s = remote->DeleteAll(removed, kCodegenVersion);
    if (!s.ok()) {
      return absl::Status(s.code(),
                          absl::StrCat("cannot prune the remote cache: ", s.message()));
    }
  } else {
    XTUNE_RETURN_IF_ERROR(WriteCache(out_path, out).status());
  }
  std::cout << "kept " << out.results_size() << " entries, removed "
            << removed.results_size() << "; "
            << (in_place ? "rewrote " : "wrote ") << out_path
            << (in_place ? " in place" : "") << "\n";
  if (removed.results_size() > 0) {
    std::cout << "removed (by device and version):\n"
              << CountByDeviceAndVersion(removed);
  }
  return absl::OkStatus();
}

absl::Status Explain(const ParsedArgs& args, int* exit_code) {
  if (args.positional.size() != 1 || !args.Has("cache")) {
    return absl::InvalidArgumentError(
        "cache explain takes MODULE.hlo and --cache=FILE");
  }
  XTUNE_ASSIGN_OR_RETURN(xla::AutotuneResults r,
                         ReadCache(args.Get("cache", "")));
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Module> module,
                         ParseModuleFile(args.positional[0]));
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Module> fused, FuseModule(*module));
  std::string device = args.Get("device", "");
  if (!device.empty() && HasTargetFlag(args)) {
    return absl::InvalidArgumentError(
        "give --device or a GPU target (--xtune_gpu_target, "
        "--xla_gpu_target_config_filename), not both");
  }
  if (device.empty()) {
    XTUNE_ASSIGN_OR_RETURN(device, ThisDevice(args));
  }
  std::string only = args.Get("fusion", "");
  bool found = false;
  for (const Instruction* i : FusionsOf(*fused)) {
    if (!only.empty() && i->name() != only) continue;
    found = true;
    AutotuneKey key{device, KeyTextOf(*i), kCodegenVersion};
    MissExplanation x = ExplainMiss(r, key, kCodegenVersion);
    std::string form;
    if (!x.hit) {
      // XLA's form of the key leaves called computations out (a reducer);
      // a library call's is older XLA's, its config unsorted.
      if (std::optional<AutotuneKey> xla = XlaFormKeyOf(key, *i)) {
        MissExplanation y = ExplainMiss(r, *xla, kCodegenVersion);
        if (y.hit) {
          x = y;
          form = LibraryFusionOf(*i).has_value()
                     ? " in older XLA's key form (the config unsorted)"
                     : " in XLA's key form (without the called computations)";
        }
      }
    }
    std::cout << i->name() << " (" << SummarizeFusionText(key.hlo) << "): ";
    if (x.hit) {
      std::cout << "hit" << form << ": " << ResultConfigText(x.result)
                << "\n  means: " << ResultMeaning(x.result) << "\n";
      continue;
    }
    *exit_code = kExitUserError;  // a miss, as CI wants to know
    if (x.cache_empty) {
      std::cout << "miss (the cache is empty)\n";
      continue;
    }
    std::vector<std::string> parts;
    if (x.device_differs) parts.push_back("device");
    if (x.version_differs) parts.push_back("version");
    if (x.text_differs) parts.push_back("text");
    std::cout << "miss; the nearest stored key differs in "
              << absl::StrJoin(parts, ", ") << "\n";
    if (x.device_differs) {
      std::cout << "  device: stored '" << x.nearest.device << "'\n"
                << "          wanted '" << device << "'\n";
    }
    if (x.version_differs) {
      std::cout << "  version: stored " << x.nearest.version << ", wanted "
                << kCodegenVersion << " (codegen changed since it was tuned)\n";
    }
    if (x.text_differs) {
      std::cout << "  text (- stored, + this fusion):\n";
      for (absl::string_view l :
           absl::StrSplit(x.text_diff, '\n', absl::SkipEmpty())) {
        std::cout << "    " << l << "\n";
      }
    }
  }
  if (!found) {
    return absl::InvalidArgumentError(
        only.empty() ? "the module has no fusions"
                     : absl::StrCat("the module has no fusion '", only, "'"));
  }
  return absl::OkStatus();
}

}  // namespace

int CacheCommand(const std::vector<std::string>& argv) {
  if (argv.empty() || argv[0] == "--help" || argv[0] == "-h" ||
      argv[0] == "help") {
    std::cout << kCacheHelp;
    return argv.empty() ? kExitUserError : kExitOk;
  }
  const std::string sub = argv[0];
  std::vector<std::string> rest(argv.begin() + 1, argv.end());
  std::vector<FlagSpec> specs = {{"help", false}};
  absl::Status (*fn)(const ParsedArgs&, int*) = nullptr;
  if (sub == "stats") {
    fn = Stats;
  } else if (sub == "show") {
    fn = Show;
    specs.push_back({"device", true});
    specs.push_back({"limit", true});
  } else if (sub == "convert") {
    fn = Convert;
    specs.push_back({"allow_empty", false});
  } else if (sub == "merge") {
    fn = Merge;
    specs.push_back({"out", true});
    specs.push_back({"on_conflict", true});
    specs.push_back({"allow_empty", false});
  } else if (sub == "diff") {
    fn = Diff;
  } else if (sub == "prune") {
    fn = Prune;
    specs.push_back({"out", true});
    specs.push_back({"module", true, /*repeated=*/true});
    specs.push_back({"device", true});
    specs.push_back({"this_device", false});
    specs.push_back({"backend", true});
    specs.push_back({"current_version", false});
    specs.push_back({"allow_empty", false});
  } else if (sub == "explain") {
    fn = Explain;
    specs.push_back({"cache", true});
    specs.push_back({"fusion", true});
    specs.push_back({"device", true});
    specs.push_back({"backend", true});
  } else {
    std::cerr << "xtune cache: unknown subcommand '" << sub
              << "' (see xtune cache --help)\n";
    return kExitUserError;
  }
  absl::StatusOr<ParsedArgs> args = ParseArgs(rest, specs);
  if (args.ok() && args->Has("help")) {
    std::cout << kCacheHelp;
    return kExitOk;
  }
  // The GPU target flags name the device of prune --this_device and
  // explain; no subcommand takes another XLA or xtune flag.
  if (args.ok()) {
    for (const ParsedArgs::XlaFlag& f : args->xla) {
      const bool target = f.name == "xtune_gpu_target" ||
                          f.name == "xla_gpu_target_config_filename";
      if (!target || (sub != "prune" && sub != "explain")) {
        args = absl::InvalidArgumentError(absl::StrCat(
            "unknown flag '--", f.name, "' (see xtune cache --help)"));
        break;
      }
      if (!f.has_value || f.value.empty()) {
        args = absl::InvalidArgumentError(
            absl::StrCat("flag '--", f.name, "' needs a value"));
        break;
      }
    }
  }
  int exit_code = kExitOk;
  absl::Status status = args.ok() ? fn(*args, &exit_code) : args.status();
  if (!status.ok()) {
    std::cerr << "xtune cache " << sub << ": " << status.message() << "\n";
    return ExitCodeFor(status);
  }
  return exit_code;
}

}  // namespace xtune
