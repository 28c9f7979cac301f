#include "tools/report_command.h"

#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cache/inspect.h"
#include "codegen/codegen_version.h"
#include "report/report_page.h"
#include "tools/cache_io.h"
#include "tools/cli_args.h"
#include "tools/exit_codes.h"
#include "util/file.h"
#include "util/status_macros.h"

namespace xtune {

const char kReportHelp[] = R"(usage: xtune report CACHE [LOG...] --output=FILE.html [flags]

Writes one self-contained HTML page (inline SVG and CSS; no script, and
nothing fetched: open it anywhere, attach it to a CI run) about an
autotuning cache and the tuning logs that filled it.

CACHE is any cache `xtune cache` reads: a results file (text or binary), a
per-fusion directory or a redis:// URL. Each LOG is an autotuning log, the
textproto --xla_gpu_dump_autotune_logs_to writes.

The page shows:
  for the cache   entries by device, codegen version and key type, and the
                  stale ones (another codegen version: this build never
                  reads them)
  for each fusion of the logs
                  every candidate's timed runs as a distribution; the
                  chosen config against the default and the best; a heatmap
                  over the two config parameters with the most values;
                  failures and why; candidates the cost model pruned; the
                  in-module re-timing; whether the cache holds the result

flags:
  --output=FILE        the page to write (replaced atomically)
  --backend=NAME       whose device string is "this machine" on the page
                       (default cpu; see `xtune devices`)
  --xtune_gpu_target=NAME, --xla_gpu_target_config_filename=FILE
                       with --backend=cuda: that GPU's device string
  --help               this text

Example:
  xtune compile model.hlo --xla_gpu_dump_autotune_results_to=cache.textproto \
      --xla_gpu_dump_autotune_logs_to=tuning.log
  xtune report cache.textproto tuning.log --output=report.html
)";

namespace {

absl::Status Report(const ParsedArgs& args) {
  if (args.positional.empty()) {
    return absl::InvalidArgumentError("report takes a CACHE and any LOG files");
  }
  if (!args.Has("output") || args.Get("output", "").empty()) {
    return absl::InvalidArgumentError("report needs --output=FILE.html");
  }
  report::ReportInputs in;
  in.codegen_version = kCodegenVersion;
  in.cache_name = args.positional[0];
  XTUNE_ASSIGN_OR_RETURN(in.cache, ReadCache(args.positional[0]));
  for (size_t i = 1; i < args.positional.size(); ++i) {
    const std::string& path = args.positional[i];
    absl::StatusOr<std::string> text = ReadFile(path);
    if (!text.ok()) {
      return absl::Status(text.status().code(),
                          absl::StrCat("cannot read the log ", path, ": ", text.status().message()));
    }
    XTUNE_ASSIGN_OR_RETURN(logs::TuningLogs logs, report::ParseTuningLogs(*text, path));
    in.logs.push_back({path, std::move(logs)});
  }
  XTUNE_ASSIGN_OR_RETURN(in.this_device, ThisDevice(args));
  const std::string output = args.Get("output", "");
  XTUNE_RETURN_IF_ERROR(WriteFileAtomically(output, report::RenderReport(in)));
  int fusions = 0;
  for (const report::LogFile& f : in.logs) fusions += f.logs.logs_size();
  PruneOptions current;
  current.keep_version = kCodegenVersion;
  xla::AutotuneResults stale;
  PruneCache(in.cache, current, &stale);
  std::cout << absl::StrFormat("wrote %s: %d tuned fusions from %d logs; %d cache entries, %d stale\n",
                               output, fusions, in.logs.size(), in.cache.results_size(),
                               stale.results_size());
  return absl::OkStatus();
}

}  // namespace

int ReportCommand(const std::vector<std::string>& argv) {
  absl::StatusOr<ParsedArgs> args =
      ParseArgs(argv, {{"help", false}, {"output", true}, {"backend", true}});
  if (args.ok() && args->Has("help")) {
    std::cout << kReportHelp;
    return kExitOk;
  }
  if (args.ok()) {
    for (const ParsedArgs::XlaFlag& f : args->xla) {
      if (f.name != "xtune_gpu_target" && f.name != "xla_gpu_target_config_filename") {
        args = absl::InvalidArgumentError(
            absl::StrCat("unknown flag '--", f.name, "' (see xtune report --help)"));
        break;
      }
      if (!f.has_value || f.value.empty()) {
        args = absl::InvalidArgumentError(absl::StrCat("flag '--", f.name, "' needs a value"));
        break;
      }
    }
  }
  absl::Status status = args.ok() ? Report(*args) : args.status();
  if (!status.ok()) {
    std::cerr << "xtune report: " << status.message() << "\n";
    return ExitCodeFor(status);
  }
  return kExitOk;
}

}  // namespace xtune
