// `xtune cache prune` and `xtune cache explain` (tools/cache_command.cc
// dispatches; see its help text).
#include <iostream>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "autotune/phases.h"
#include "cache/inspect.h"
#include "codegen/codegen_version.h"
#include "fusion/fusion_pass.h"
#include "ir/library_call.h"
#include "ir/parser.h"
#include "tools/cache_io.h"
#include "tools/exit_codes.h"
#include "util/status_macros.h"

namespace xtune {
namespace {

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

}  // namespace

absl::Status CachePrune(const ParsedArgs& args, int*, CacheOutput& report) {
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
  if (report.json) {
    JsonWriter& w = report.w;
    w.BeginObject().Key("out").String(out_path).Key("in_place").Bool(in_place);
    w.Key("kept").Int(out.results_size()).Key("removed").Int(removed.results_size());
    w.Key("removed_entries").BeginArray();
    for (const auto& e : removed.results()) {
      w.BeginObject().Key("device").String(e.device()).Key("version").Int(e.version());
      w.Key("fusion").String(SummarizeFusionText(e.hlo())).EndObject();
    }
    w.EndArray().EndObject();
    return absl::OkStatus();
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

absl::Status CacheExplain(const ParsedArgs& args, int* exit_code, CacheOutput& report) {
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
  JsonWriter& w = report.w;
  if (report.json) {
    w.BeginObject().Key("module").String(args.positional[0]).Key("device").String(device);
    w.Key("fusions").BeginArray();
  }
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
    if (report.json) {
      w.BeginObject().Key("name").String(i->name());
      w.Key("fusion").String(SummarizeFusionText(key.hlo)).Key("hit").Bool(x.hit);
      if (x.hit) {
        w.Key("key_form").String(form.empty() ? "xtune" : LibraryFusionOf(*i) ? "older_xla" : "xla");
        w.Key("config").String(ResultConfigText(x.result));
        w.Key("means").String(ResultMeaning(x.result));
      } else {
        *exit_code = kExitUserError;
        w.Key("cache_empty").Bool(x.cache_empty);
        w.Key("differs").BeginArray();
        if (x.device_differs) w.String("device");
        if (x.version_differs) w.String("version");
        if (x.text_differs) w.String("text");
        w.EndArray();
        if (!x.cache_empty) {
          w.Key("stored_device").String(x.nearest.device);
          w.Key("stored_version").Int(x.nearest.version);
          w.Key("text_diff").String(x.text_differs ? x.text_diff : "");
        }
      }
      w.EndObject();
      continue;
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
  if (report.json) w.EndArray().Key("wanted_version").Int(kCodegenVersion).EndObject();
  if (!found) {
    return absl::InvalidArgumentError(
        only.empty() ? "the module has no fusions"
                     : absl::StrCat("the module has no fusion '", only, "'"));
  }
  return absl::OkStatus();
}

}  // namespace xtune
