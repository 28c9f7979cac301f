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
#include "tools/cache_io.h"
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
  --format=text|json            the report as text (default) or one JSON
                                object (docs/json_output.md)
  --help                        this text
)";

namespace {

absl::Status Stats(const ParsedArgs& args, int*, CacheOutput& out) {
  if (args.positional.empty()) {
    return absl::InvalidArgumentError("cache stats takes one or more files");
  }
  if (out.json) out.w.BeginObject().Key("files").BeginArray();
  for (const std::string& path : args.positional) {
    XTUNE_ASSIGN_OR_RETURN(xla::AutotuneResults r, ReadCache(path));
    CacheStats s = ComputeStats(r);
    if (out.json) {
      JsonWriter& w = out.w;
      w.BeginObject().Key("path").String(path).Key("entries").Int(s.entries);
      w.Key("file_version").Int(r.version()).Key("failures").Int(s.failures);
      w.Key("by_device").BeginObject();
      for (const auto& [d, n] : s.by_device) w.Key(d).Int(n);
      w.EndObject().Key("by_version").BeginObject();
      for (const auto& [v, n] : s.by_version) w.Key(absl::StrCat(v)).Int(n);
      w.EndObject().Key("by_key_type").BeginObject();
      for (const auto& [t, n] : s.by_key_type) w.Key(t).Int(n);
      w.EndObject().EndObject();
      continue;
    }
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
  if (out.json) out.w.EndArray().EndObject();
  return absl::OkStatus();
}

absl::Status Show(const ParsedArgs& args, int*, CacheOutput& out) {
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
  if (out.json) out.w.BeginObject().Key("path").String(args.positional[0]).Key("entries").BeginArray();
  for (int i = 0; i < r.results_size(); ++i) {
    const auto& e = r.results(i);
    if (!DeviceMatches(e.device(), device)) continue;
    ++matching;
    if (limit >= 0 && shown >= limit) continue;
    ++shown;
    if (out.json) {
      JsonWriter& w = out.w;
      std::optional<double> t = RunTimeSeconds(e.result());
      w.BeginObject().Key("index").Int(i + 1).Key("device").String(e.device());
      w.Key("version").Int(e.version()).Key("fusion").String(SummarizeFusionText(e.hlo()));
      w.Key("config").String(ResultConfigText(e.result()));
      w.Key("means").String(ResultMeaning(e.result()));
      w.Key("time_us").Double(t ? std::optional<double>(*t * 1e6) : std::nullopt);
      w.Key("failure");
      if (e.result().has_failure()) {
        w.String(e.result().failure().ShortDebugString());
      } else {
        w.Null();
      }
      w.EndObject();
      continue;
    }
    std::cout << "entry " << i + 1 << "\n"
              << "  device:  " << e.device() << "\n"
              << "  version: "
              << (e.version() == 0 ? std::string("none (current)")
                                   : absl::StrCat(e.version()))
              << "\n"
              << "  fusion:  " << SummarizeFusionText(e.hlo()) << "\n"
              << "  config:  " << ResultConfigText(e.result()) << "\n"
              << "  means:   " << ResultMeaning(e.result()) << "\n"
              << "  time:    " << SecondsText(e.result()) << "\n";
    if (e.result().has_failure()) {
      std::cout << "  failure: " << e.result().failure().ShortDebugString()
                << "\n";
    }
  }
  if (out.json) {
    out.w.EndArray().Key("shown").Int(shown).Key("matching").Int(matching).EndObject();
    return absl::OkStatus();
  }
  std::cout << shown << " of " << matching << " entries shown\n";
  return absl::OkStatus();
}

absl::Status Convert(const ParsedArgs& args, int*, CacheOutput& out) {
  if (args.positional.size() != 2) {
    return absl::InvalidArgumentError("cache convert takes IN and OUT");
  }
  XTUNE_ASSIGN_OR_RETURN(xla::AutotuneResults r,
                         ReadCache(args.positional[0]));
  SortEntries(&r);
  XTUNE_RETURN_IF_ERROR(
      CheckNotEmpty(args, r, args.positional[1], xla::AutotuneResults()));
  XTUNE_ASSIGN_OR_RETURN(std::string how, WriteCache(args.positional[1], r));
  if (out.json) {
    out.w.BeginObject().Key("out").String(args.positional[1]).Key("entries").Int(r.results_size());
    out.w.Key("how").String(how).EndObject();
    return absl::OkStatus();
  }
  std::cout << "wrote " << r.results_size() << " entries to " << args.positional[1] << how
            << "\n";
  return absl::OkStatus();
}

absl::Status Merge(const ParsedArgs& args, int*, CacheOutput& out) {
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
  if (out.json) {
    JsonWriter& w = out.w;
    w.BeginObject().Key("out").String(args.Get("out", "")).Key("how").String(how);
    w.Key("inputs").Int(static_cast<int64_t>(args.positional.size()));
    w.Key("entries").Int(merged.results_size()).Key("identical").Int(stats.identical);
    w.Key("same_config_retimed").Int(stats.same_config);
    w.Key("conflicts_resolved").Int(stats.replaced + stats.kept).EndObject();
    return absl::OkStatus();
  }
  if (IsRemoteCacheUrl(args.Get("out", ""))) std::cout << "merge:" << how << "\n";
  std::cout << "merged " << args.positional.size() << " files into "
            << args.Get("out", "") << ": " << merged.results_size()
            << " entries (" << stats.identical << " identical duplicates, "
            << stats.same_config << " with the same config re-timed (kept the "
            << "faster), " << stats.replaced + stats.kept
            << " conflicts resolved)\n";
  return absl::OkStatus();
}

absl::Status Diff(const ParsedArgs& args, int* exit_code, CacheOutput& out) {
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
  // As diff(1): 1 when the caches differ.
  if (!d.added.empty() || !d.removed.empty() || !d.changed.empty() ||
      !d.retimed.empty()) {
    *exit_code = kExitUserError;
  }
  if (out.json) {
    JsonWriter& w = out.w;
    auto key = [&](const AutotuneKey& k) {
      w.Key("fusion").String(SummarizeFusionText(k.hlo)).Key("device").String(k.device);
      w.Key("version").Int(k.version);
    };
    auto micros = [](const xla::AutotuneResult& r) {
      std::optional<double> t = RunTimeSeconds(r);
      return t ? std::optional<double>(*t * 1e6) : std::nullopt;
    };
    w.BeginObject().Key("differ").Bool(*exit_code != kExitOk).Key("same").Int(d.same);
    for (const auto* list : {&d.added, &d.removed}) {
      w.Key(list == &d.added ? "added" : "removed").BeginArray();
      for (const AutotuneKey& k : *list) {
        w.BeginObject();
        key(k);
        w.EndObject();
      }
      w.EndArray();
    }
    for (const auto* list : {&d.changed, &d.retimed}) {
      w.Key(list == &d.changed ? "changed" : "retimed").BeginArray();
      for (const auto& c : *list) {
        w.BeginObject();
        key(c.key);
        w.Key("config_before").String(ResultConfigText(c.before));
        w.Key("config_after").String(ResultConfigText(c.after));
        w.Key("time_before_us").Double(micros(c.before));
        w.Key("time_after_us").Double(micros(c.after)).EndObject();
      }
      w.EndArray();
    }
    w.EndObject();
    return absl::OkStatus();
  }
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
              << "\n    time:   " << SecondsText(c.before) << " -> "
              << SecondsText(c.after);
    std::optional<double> t0 = RunTimeSeconds(c.before),
                          t1 = RunTimeSeconds(c.after);
    if (t0 && t1 && *t0 > 0) {
      std::cout << absl::StrFormat(" (%+.1f%%)", (*t1 / *t0 - 1) * 100);
    }
    std::cout << "\n";
  }
  for (const auto& c : d.retimed) {
    std::cout << "t " << line(c.key) << "\n    time:   " << SecondsText(c.before)
              << " -> " << SecondsText(c.after) << "\n";
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
  std::vector<FlagSpec> specs = {{"help", false}, {"format", true}};
  absl::Status (*fn)(const ParsedArgs&, int*, CacheOutput&) = nullptr;
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
    fn = CachePrune;
    specs.push_back({"out", true});
    specs.push_back({"module", true, /*repeated=*/true});
    specs.push_back({"device", true});
    specs.push_back({"this_device", false});
    specs.push_back({"backend", true});
    specs.push_back({"current_version", false});
    specs.push_back({"allow_empty", false});
  } else if (sub == "explain") {
    fn = CacheExplain;
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
  if (args.ok()) {
    if (absl::Status f = CheckFormat(*args); !f.ok()) args = f;
  }
  int exit_code = kExitOk;
  CacheOutput out;
  out.json = args.ok() && WantsJson(*args);
  absl::Status status = args.ok() ? fn(*args, &exit_code, out) : args.status();
  if (status.ok() && out.json) std::cout << out.w.text() << "\n";
  if (!status.ok()) {
    std::cerr << "xtune cache " << sub << ": " << status.message() << "\n";
    return ExitCodeFor(status);
  }
  return exit_code;
}

}  // namespace xtune
