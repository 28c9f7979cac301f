#include "tools/cache_command.h"

#include <iostream>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "cache/config_proto.h"
#include "cache/inspect.h"
#include "cache/merge.h"
#include "cache/results_file.h"
#include "codegen/codegen_version.h"
#include "codegen/cpu/cpu_backend.h"
#include "fusion/fusion_pass.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "tools/cli_args.h"
#include "tools/exit_codes.h"
#include "util/status_macros.h"

namespace xtune {

const char kCacheHelp[] = R"(usage: xtune cache SUBCOMMAND [args] [flags]

Inspects and maintains autotuning result files (xtune's and XLA's): text
when the name ends in .txt .txtpb .textproto .prototxt .pbtxt, binary
protobuf otherwise.

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
                                read: list it as an input to keep it); a key
                                with different results is an error unless a
                                policy picks the faster or the newer one
  diff A B                      entries added, removed, with a changed
                                config, or re-timed (time delta)
  prune IN --out=OUT [--module=M.hlo ...] [--device=DEVICE]
        [--this_device] [--current_version]
                                keep only the keys the modules' fusions use
                                (any device), one device's entries, or the
                                current codegen version's
  explain MODULE.hlo --cache=FILE [--fusion=NAME] [--device=DEVICE]
                                for each fusion (or one): hit, or the nearest
                                stored key and what differs (device,
                                version, or the text, with a diff); DEVICE
                                defaults to this machine's CPU

flags:
  --help                        this text
)";

namespace {

// This machine's CPU device string, as the CPU backend puts it in keys (no
// compiler needed: these commands only read files).
std::string ThisCpuDevice() {
  return cpu::DetectCpu(cpu::CpuBackendOptions().threads).Description();
}

std::string Seconds(const xla::AutotuneResult& r) {
  std::optional<double> s = RunTimeSeconds(r);
  return s ? absl::StrFormat("%.1f us", *s * 1e6) : "-";
}

absl::Status Stats(const ParsedArgs& args) {
  if (args.positional.empty()) {
    return absl::InvalidArgumentError("cache stats takes one or more files");
  }
  for (const std::string& path : args.positional) {
    XTUNE_ASSIGN_OR_RETURN(xla::AutotuneResults r, ReadAutotuneResults(path));
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

absl::Status Show(const ParsedArgs& args) {
  if (args.positional.size() != 1) {
    return absl::InvalidArgumentError("cache show takes one file");
  }
  XTUNE_ASSIGN_OR_RETURN(xla::AutotuneResults r,
                         ReadAutotuneResults(args.positional[0]));
  int64_t limit = -1;
  if (args.Has("limit") && !absl::SimpleAtoi(args.Get("limit", ""), &limit)) {
    return absl::InvalidArgumentError("--limit must be an integer");
  }
  std::string device = args.Get("device", "");
  int64_t shown = 0, matching = 0;
  for (int i = 0; i < r.results_size(); ++i) {
    const auto& e = r.results(i);
    if (!device.empty() && !absl::StrContains(e.device(), device)) continue;
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
              << "  time:    " << Seconds(e.result()) << "\n";
    if (e.result().has_failure()) {
      std::cout << "  failure: " << e.result().failure().ShortDebugString()
                << "\n";
    }
  }
  std::cout << shown << " of " << matching << " entries shown\n";
  return absl::OkStatus();
}

absl::Status Convert(const ParsedArgs& args) {
  if (args.positional.size() != 2) {
    return absl::InvalidArgumentError("cache convert takes IN and OUT");
  }
  XTUNE_ASSIGN_OR_RETURN(xla::AutotuneResults r,
                         ReadAutotuneResults(args.positional[0]));
  SortEntries(&r);
  XTUNE_RETURN_IF_ERROR(WriteAutotuneResults(args.positional[1], r));
  std::cout << "wrote " << r.results_size() << " entries to "
            << args.positional[1]
            << (IsTextProtoPath(args.positional[1]) ? " (text)\n"
                                                    : " (binary)\n");
  return absl::OkStatus();
}

absl::Status Merge(const ParsedArgs& args) {
  if (args.positional.empty() || !args.Has("out")) {
    return absl::InvalidArgumentError("cache merge takes IN... and --out=OUT");
  }
  XTUNE_ASSIGN_OR_RETURN(ConflictPolicy policy,
                         ParseConflictPolicy(args.Get("on_conflict", "error")));
  xla::AutotuneResults merged;
  merged.set_version(3);
  MergeStats stats;
  for (const std::string& path : args.positional) {
    XTUNE_ASSIGN_OR_RETURN(xla::AutotuneResults r, ReadAutotuneResults(path));
    XTUNE_RETURN_IF_ERROR(
        MergeResults(&merged, r, path, policy, kCodegenVersion, &stats));
  }
  XTUNE_RETURN_IF_ERROR(WriteAutotuneResults(args.Get("out", ""), merged));
  std::cout << "merged " << args.positional.size() << " files into "
            << args.Get("out", "") << ": " << merged.results_size()
            << " entries (" << stats.identical << " identical duplicates, "
            << stats.replaced + stats.kept << " conflicts resolved)\n";
  return absl::OkStatus();
}

absl::Status Diff(const ParsedArgs& args) {
  if (args.positional.size() != 2) {
    return absl::InvalidArgumentError("cache diff takes two files");
  }
  XTUNE_ASSIGN_OR_RETURN(xla::AutotuneResults a,
                         ReadAutotuneResults(args.positional[0]));
  XTUNE_ASSIGN_OR_RETURN(xla::AutotuneResults b,
                         ReadAutotuneResults(args.positional[1]));
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
  return absl::OkStatus();
}

// The canonical texts of the fusions of `module_path`.
absl::Status CollectFusionTexts(const std::string& module_path,
                                std::set<std::string>* texts) {
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Module> module,
                         ParseModuleFile(module_path));
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Module> fused, FuseModule(*module));
  for (const auto& i : fused->entry()->instructions()) {
    if (i->opcode() == Opcode::kFusion) {
      texts->insert(CanonicalText(*i->called_computations()[0]));
    }
  }
  return absl::OkStatus();
}

absl::Status Prune(const ParsedArgs& args) {
  if (args.positional.size() != 1 || !args.Has("out")) {
    return absl::InvalidArgumentError("cache prune takes IN and --out=OUT");
  }
  XTUNE_ASSIGN_OR_RETURN(xla::AutotuneResults r,
                         ReadAutotuneResults(args.positional[0]));
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
  if (args.Has("this_device")) options.keep_device = ThisCpuDevice();
  if (args.Has("current_version")) options.keep_version = kCodegenVersion;
  if (!options.keep_hlo && !options.keep_device && !options.keep_version) {
    return absl::InvalidArgumentError(
        "cache prune needs --module, --device, --this_device or "
        "--current_version");
  }
  int64_t removed = 0;
  xla::AutotuneResults out = PruneCache(r, options, &removed);
  XTUNE_RETURN_IF_ERROR(WriteAutotuneResults(args.Get("out", ""), out));
  std::cout << "kept " << out.results_size() << " entries, removed " << removed
            << "; wrote " << args.Get("out", "") << "\n";
  return absl::OkStatus();
}

absl::Status Explain(const ParsedArgs& args) {
  if (args.positional.size() != 1 || !args.Has("cache")) {
    return absl::InvalidArgumentError(
        "cache explain takes MODULE.hlo and --cache=FILE");
  }
  XTUNE_ASSIGN_OR_RETURN(xla::AutotuneResults r,
                         ReadAutotuneResults(args.Get("cache", "")));
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Module> module,
                         ParseModuleFile(args.positional[0]));
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Module> fused, FuseModule(*module));
  std::string device = args.Get("device", "");
  if (device.empty()) device = ThisCpuDevice();
  std::string only = args.Get("fusion", "");
  bool found = false;
  for (const auto& i : fused->entry()->instructions()) {
    if (i->opcode() != Opcode::kFusion ||
        (!only.empty() && i->name() != only)) {
      continue;
    }
    found = true;
    AutotuneKey key{device, CanonicalText(*i->called_computations()[0]),
                    kCodegenVersion};
    MissExplanation x = ExplainMiss(r, key, kCodegenVersion);
    std::cout << i->name() << " (" << SummarizeFusionText(key.hlo) << "): ";
    if (x.hit) {
      std::cout << "hit\n";
      continue;
    }
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
  absl::Status (*fn)(const ParsedArgs&) = nullptr;
  if (sub == "stats") {
    fn = Stats;
  } else if (sub == "show") {
    fn = Show;
    specs.push_back({"device", true});
    specs.push_back({"limit", true});
  } else if (sub == "convert") {
    fn = Convert;
  } else if (sub == "merge") {
    fn = Merge;
    specs.push_back({"out", true});
    specs.push_back({"on_conflict", true});
  } else if (sub == "diff") {
    fn = Diff;
  } else if (sub == "prune") {
    fn = Prune;
    specs.push_back({"out", true});
    specs.push_back({"module", true, /*repeated=*/true});
    specs.push_back({"device", true});
    specs.push_back({"this_device", false});
    specs.push_back({"current_version", false});
  } else if (sub == "explain") {
    fn = Explain;
    specs.push_back({"cache", true});
    specs.push_back({"fusion", true});
    specs.push_back({"device", true});
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
  absl::Status status = args.ok() ? fn(*args) : args.status();
  if (!status.ok())
    std::cerr << "xtune cache " << sub << ": " << status.message() << "\n";
  return ExitCodeFor(status);
}

}  // namespace xtune
