// `xtune report`'s page: one self-contained HTML file (inline CSS and SVG,
// no script, nothing fetched: its Content-Security-Policy forbids every
// request) about a cache and the autotuning logs that filled it.
//
// For the cache: entries by device, codegen version and key type, and
// which are stale for this build. For each fusion of the logs: every
// candidate's times as a distribution, the chosen config against the
// default and the best, a heatmap over two config parameters, failures and
// why, and whether the cache holds its result.
#ifndef XTUNE_REPORT_REPORT_PAGE_H_
#define XTUNE_REPORT_REPORT_PAGE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cache/autotune_results.pb.h"
#include "cache/tuning_log.pb.h"

namespace xtune::report {

struct LogFile {
  std::string path;  // as shown on the page
  logs::TuningLogs logs;
};

struct ReportInputs {
  std::string cache_name;  // as shown on the page
  xla::AutotuneResults cache;
  std::vector<LogFile> logs;
  int codegen_version = 0;  // this build's (kCodegenVersion)
  std::string this_device;  // this machine's device string; "" when unknown
};

// The page. Deterministic: the same inputs give the same bytes.
std::string RenderReport(const ReportInputs& inputs);

// An autotuning log (--xla_gpu_dump_autotune_logs_to's textproto, schema
// cache/tuning_log.proto). InvalidArgument naming `name`, the line and the
// column when the text does not parse.
absl::StatusOr<logs::TuningLogs> ParseTuningLogs(absl::string_view text,
                                                 absl::string_view name);

}  // namespace xtune::report

#endif  // XTUNE_REPORT_REPORT_PAGE_H_
