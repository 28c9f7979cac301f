#include "report/report_page.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <cmath>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cache/autotune_cache.h"
#include "cache/config_proto.h"
#include "cache/inspect.h"
#include "report/charts.h"
#include "report/fusion_section.h"
#include "report/html.h"

namespace xtune::report {
namespace {

// No request of any kind: styles inline, images only as data: (the icon).
constexpr char kHead[] = R"(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>xtune autotuning report</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; color: #1d2330; margin: 24px 32px; background: #fafbfc; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 0 0 6px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
section { background: #fff; border: 1px solid #dfe3ea; border-radius: 6px; padding: 14px 18px; margin: 18px 0; }
.sub { color: #5b6475; font-size: 12px; }
.warn { color: #b3400a; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; margin: 14px 0; }
.card { background: #fff; border: 1px solid #dfe3ea; border-radius: 6px; padding: 8px 14px; min-width: 110px; }
.card b { display: block; font-size: 22px; }
table { border-collapse: collapse; margin: 6px 0; }
th, td { text-align: left; padding: 3px 10px; border-bottom: 1px solid #eceff4; vertical-align: top; }
td.num { text-align: right; white-space: nowrap; }
tr.chosen th, tr.chosen td { background: #e6eeff; }
code, pre { font: 12px ui-monospace, monospace; }
pre { margin: 0; white-space: pre-wrap; max-width: 640px; }
.chart { overflow-x: auto; }
ul.notes { margin: 6px 0; padding-left: 20px; }
svg text { font: 11px ui-monospace, monospace; fill: #1d2330; }
svg text.axis { font: 12px system-ui, sans-serif; fill: #5b6475; }
svg .grid { stroke: #e3e7ee; }
svg .stripe { fill: #f6f7f9; }
svg .rowmark { fill: #e6eeff; }
svg .range { stroke: #8c96a8; }
svg .box { fill: #c9d3e6; stroke: #6f7d99; }
svg .sample { fill: #33415c; fill-opacity: 0.35; }
svg .median { stroke: #111; stroke-width: 2; }
svg .chosen .median { stroke: #1f4fd1; stroke-width: 3; }
svg .tags { fill: #1f4fd1; font-weight: bold; }
svg .cell rect { stroke: #fff; }
svg .cell.empty rect { stroke: #e3e7ee; }
svg .cell.default rect { stroke: #111; stroke-width: 2; stroke-dasharray: 4 3; }
svg .cell.chosen rect { stroke: #1f4fd1; stroke-width: 3; }
svg .bar rect { fill: #5b7bd5; }
svg .bar.flagged rect { fill: #e07b39; }
</style>
</head>
<body>
)";

std::string Card(const std::string& value, const std::string& label) {
  return absl::StrCat("<div class=\"card\"><b>", value, "</b>", label, "</div>");
}

std::string Code(const std::string& text) {
  return text.empty() ? "-" : absl::StrCat("<code>", Escape(text), "</code>");
}

std::string CacheSection(const ReportInputs& in, const xla::AutotuneResults& stale) {
  const xla::AutotuneResults& cache = in.cache;
  CacheStats stats = ComputeStats(cache);
  std::string out = absl::StrCat(
      "<section class=\"cache\" id=\"cache\">\n<h2>The cache</h2>\n<p>", Code(in.cache_name),
      ": ", stats.entries, " entries (file version ", cache.version(), "), ",
      stats.failures, " recording a failure.</p>\n");
  if (stats.entries == 0) return out + "</section>\n";
  std::vector<std::pair<std::string, int64_t>> bars;
  std::vector<bool> flagged;
  for (const auto& [device, n] : stats.by_device) {
    bool here = !in.this_device.empty() && device == in.this_device;
    bars.push_back({here ? absl::StrCat(device, " (this machine)") : device, n});
    flagged.push_back(false);
  }
  absl::StrAppend(&out, "<h3>By device</h3>\n<div class=\"chart\">", BarsSvg(bars, flagged),
                  "</div>\n");
  std::set<int> stale_versions;
  for (const auto& e : stale.results()) stale_versions.insert(e.version());
  bars.clear();
  flagged.clear();
  for (const auto& [v, n] : stats.by_version) {
    bool is_stale = stale_versions.count(v) > 0;
    std::string label = v == 0 ? "none (read as this build's)" : absl::StrCat("version ", v);
    if (v == in.codegen_version) label += " (this build)";
    if (is_stale) label += " (stale)";
    bars.push_back({label, n});
    flagged.push_back(is_stale);
  }
  absl::StrAppend(&out, "<h3>By codegen version</h3>\n<div class=\"chart\">",
                  BarsSvg(bars, flagged), "</div>\n");
  bars.clear();
  flagged.clear();
  for (const auto& [type, n] : stats.by_key_type) bars.push_back({type, n});
  absl::StrAppend(&out, "<h3>By key type</h3>\n<div class=\"chart\">", BarsSvg(bars, {}),
                  "</div>\n");
  constexpr int kMaxStaleRows = 300;
  if (stale.results_size() == 0) {
    absl::StrAppend(&out, "<p>No entry is stale: every one is this build's codegen version (",
                    in.codegen_version, ") or XLA's own.</p>\n");
  } else {
    absl::StrAppend(
        &out, "<h3 class=\"warn\">", stale.results_size(),
        " stale entries</h3>\n<p class=\"sub\">Written by another codegen version: this "
        "build (version ", in.codegen_version,
        ") never reads them. <code>xtune cache prune IN --out=OUT --current_version</code> "
        "drops them.</p>\n<table class=\"stale\"><tr><th>device</th><th>version</th>"
        "<th>fusion</th><th>config</th></tr>\n");
    for (int i = 0; i < stale.results_size() && i < kMaxStaleRows; ++i) {
      const auto& e = stale.results(i);
      absl::StrAppend(&out, "<tr><td>", Escape(e.device()), "</td><td class=\"num\">",
                      e.version(), "</td><td>", Escape(SummarizeFusionText(e.hlo())),
                      "</td><td>", Code(ResultConfigText(e.result())), "</td></tr>\n");
    }
    out += "</table>\n";
    if (stale.results_size() > kMaxStaleRows) {
      absl::StrAppend(&out, "<p class=\"sub\">and ", stale.results_size() - kMaxStaleRows,
                      " more (<code>xtune cache prune</code> lists them all).</p>\n");
    }
  }
  return out + "</section>\n";
}

std::string IndexTable(const std::vector<FusionFacts>& facts) {
  std::string out =
      "<section class=\"index\" id=\"fusions\">\n<h2>Tuned fusions</h2>\n<table>"
      "<tr><th>fusion</th><th>fused computation</th><th>chosen</th><th>time</th>"
      "<th>default</th><th>speedup</th><th>over best</th><th>candidates</th>"
      "<th>cache</th></tr>\n";
  for (const FusionFacts& f : facts) {
    std::string speedup = "-", over_best = "-";
    if (f.chosen_seconds && f.default_seconds) {
      speedup = RatioText(*f.default_seconds / *f.chosen_seconds);
    }
    if (f.chosen_seconds && f.best_seconds) {
      over_best = RatioText(*f.chosen_seconds / *f.best_seconds);
    }
    std::string cache = f.cache_entry ? "stored" : "<span class=\"warn\">missing</span>";
    if (f.stale) cache += " <span class=\"warn\">(stale)</span>";
    absl::StrAppend(
        &out, "<tr><td><a href=\"#", Escape(f.anchor), "\">", Escape(f.fusion), "</a></td><td>",
        Escape(f.what), "</td><td>", Code(f.chosen), "</td><td class=\"num\">",
        f.chosen_seconds ? Escape(DurationText(*f.chosen_seconds)) : "-",
        "</td><td class=\"num\">",
        f.default_seconds ? Escape(DurationText(*f.default_seconds)) : "-",
        "</td><td class=\"num\">", speedup, "</td><td class=\"num\">", over_best,
        "</td><td class=\"num\">", f.timed, " timed", f.failed ? absl::StrCat(", ", f.failed, " failed") : "",
        "</td><td>", cache, "</td></tr>\n");
  }
  return out + "</table>\n</section>\n";
}

class CollectFirstError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (!error.empty()) return;
    error = absl::StrCat(line + 1, ":", column + 1, ": ", message);
  }
  std::string error;
};

}  // namespace

std::string RenderReport(const ReportInputs& in) {
  // The cache's entries by the key text the logs record.
  std::map<std::string, const xla::AutotuneResults::Entry*> by_key;
  for (const auto& e : in.cache.results()) {
    by_key.emplace(KeyOfEntry(e, in.codegen_version).ToString(), &e);
  }
  PruneOptions keep_current;
  keep_current.keep_version = in.codegen_version;
  xla::AutotuneResults stale;
  PruneCache(in.cache, keep_current, &stale);

  std::vector<FusionFacts> facts;
  std::vector<const logs::FusionLog*> logs;
  for (const LogFile& file : in.logs) {
    for (const logs::FusionLog& log : file.logs.logs()) {
      auto it = by_key.find(log.key());
      facts.push_back(FactsOf(log, file.path, absl::StrCat("fusion-", facts.size() + 1),
                              it == by_key.end() ? nullptr : it->second, in.codegen_version));
      logs.push_back(&log);
    }
  }
  int timed = 0, failed = 0, missing = 0;
  double log_speedup = 0;
  int speedups = 0;
  for (const FusionFacts& f : facts) {
    timed += f.timed;
    failed += f.failed;
    if (f.cache_entry == nullptr) ++missing;
    if (f.chosen_seconds && f.default_seconds) {
      log_speedup += std::log(*f.default_seconds / *f.chosen_seconds);
      ++speedups;
    }
  }

  std::string page = kHead;
  absl::StrAppend(&page, "<h1>xtune autotuning report</h1>\n<p class=\"sub\">cache ",
                  Code(in.cache_name));
  for (const LogFile& f : in.logs) absl::StrAppend(&page, " &middot; log ", Code(f.path));
  absl::StrAppend(&page, "<br>this build: codegen version ", in.codegen_version);
  if (!in.this_device.empty()) {
    absl::StrAppend(&page, " &middot; this machine: ", Escape(in.this_device));
  }
  page += "</p>\n<div class=\"cards\">";
  page += Card(absl::StrCat(facts.size()), "tuned fusions");
  page += Card(absl::StrCat(timed), "candidates timed");
  page += Card(absl::StrCat(failed), "candidates failed");
  page += Card(speedups ? RatioText(std::exp(log_speedup / speedups)) : "-",
               "chosen over default (geomean)");
  page += Card(absl::StrCat(in.cache.results_size()), "cache entries");
  page += Card(absl::StrCat(stale.results_size()), "stale entries");
  if (!facts.empty()) page += Card(absl::StrCat(missing), "tuned, not in the cache");
  page += "</div>\n";
  if (!facts.empty()) page += IndexTable(facts);
  page += CacheSection(in, stale);
  for (size_t i = 0; i < facts.size(); ++i) {
    page += FusionSectionHtml(*logs[i], facts[i], in.codegen_version);
  }
  page += "<p class=\"sub\">Written by <code>xtune report</code>.</p>\n</body>\n</html>\n";
  return page;
}

absl::StatusOr<logs::TuningLogs> ParseTuningLogs(absl::string_view text,
                                                 absl::string_view name) {
  logs::TuningLogs logs;
  google::protobuf::TextFormat::Parser parser;
  CollectFirstError errors;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(std::string(text), &logs)) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ":", errors.error,
        " (an autotuning log is the textproto --xla_gpu_dump_autotune_logs_to writes)"));
  }
  return logs;
}

}  // namespace xtune::report
