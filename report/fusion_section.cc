#include "report/fusion_section.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cache/autotune_cache.h"
#include "cache/config_proto.h"
#include "cache/inspect.h"
#include "report/charts.h"
#include "report/heatmap.h"
#include "report/html.h"

namespace xtune::report {
namespace {

bool Failed(const logs::FusionLog::Candidate& c) { return c.has_failure(); }
bool Timed(const logs::FusionLog::Candidate& c) { return c.has_run_time() && !Failed(c); }

std::optional<double> TimeOf(const logs::FusionLog& log, const std::string& config) {
  if (config.empty()) return std::nullopt;
  for (const auto& c : log.candidates()) {
    if (c.config() == config && Timed(c)) return DurationSeconds(c.run_time());
  }
  return std::nullopt;
}

std::string Cell(const std::string& text, const char* cls = nullptr) {
  return cls ? absl::StrCat("<td class=\"", cls, "\">", text, "</td>")
             : absl::StrCat("<td>", text, "</td>");
}

std::string Code(const std::string& text) {
  return text.empty() ? "-" : absl::StrCat("<code>", Escape(text), "</code>");
}

std::string OptTime(const std::optional<double>& s) {
  return s ? Escape(DurationText(*s)) : "not timed";
}

std::string FailureReason(const logs::FusionLog::Candidate::Failure& f) {
  if (f.xtune_reason() != logs::NONE) return logs::XtuneFailureReason_Name(f.xtune_reason());
  return logs::FusionLog::Candidate::Failure::Kind_Name(f.kind());
}

// The chosen, default and best configs with their times and ratios.
std::string ChoiceTable(const FusionFacts& f) {
  std::string out = "<table class=\"choice\"><tr><th></th><th>config</th><th>time</th>"
                    "<th>vs default</th><th>vs best</th></tr>\n";
  auto row = [&](const char* name, const char* cls, const std::string& config,
                 const std::optional<double>& s) {
    std::string vs_default = "-", vs_best = "-";
    if (s && f.default_seconds && config != f.default_config) vs_default = RatioText(*f.default_seconds / *s) + " faster";
    if (s && f.best_seconds) vs_best = RatioText(*s / *f.best_seconds) + " the best";
    absl::StrAppend(&out, "<tr class=\"", cls, "\"><th>", name, "</th>", Cell(Code(config)),
                    Cell(config.empty() ? "-" : OptTime(s), "num"), Cell(vs_default, "num"),
                    Cell(vs_best, "num"), "</tr>\n");
  };
  row("chosen", "chosen", f.chosen, f.chosen_seconds);
  row("default", "default", f.default_config, f.default_seconds);
  row("best", "best", f.best, f.best_seconds);
  out += "</table>\n";
  return out;
}

}  // namespace

FusionFacts FactsOf(const logs::FusionLog& log, const std::string& log_path,
                    const std::string& anchor, const xla::AutotuneResults::Entry* cache_entry,
                    int codegen_version) {
  FusionFacts f;
  f.fusion = log.fusion();
  f.anchor = anchor;
  f.log_path = log_path;
  std::optional<AutotuneKey> key = AutotuneKey::FromString(log.key());
  f.what = key ? SummarizeFusionText(key->hlo) : "(the log's key is not readable)";
  f.key_version = key ? key->version : 0;
  f.stale = key && key->version != codegen_version;
  f.cache_entry = cache_entry;
  f.candidates = log.candidates_size();
  f.pruned = log.pruned_size();
  for (const auto& c : log.candidates()) {
    if (Failed(c)) ++f.failed;
    if (!Timed(c)) continue;
    ++f.timed;
    double s = DurationSeconds(c.run_time());
    if (!f.best_seconds || s < *f.best_seconds) {
      f.best_seconds = s;
      f.best = c.config();
    }
  }
  f.chosen = log.selected();
  f.chosen_seconds = TimeOf(log, f.chosen);
  f.default_config = log.default_config();
  f.default_seconds = TimeOf(log, f.default_config);
  return f;
}

std::string FusionSectionHtml(const logs::FusionLog& log, const FusionFacts& f,
                              int codegen_version) {
  std::string out = absl::StrCat("<section class=\"fusion\" id=\"", Escape(f.anchor),
                                 "\" data-fusion=\"", Escape(f.fusion), "\">\n<h2>",
                                 Escape(f.fusion), "</h2>\n<p class=\"what\">",
                                 Escape(f.what), "<br><span class=\"sub\">log ",
                                 Escape(f.log_path), "</span></p>\n");
  out += ChoiceTable(f);
  // Notes: how the choice was made and where it is stored.
  std::vector<std::string> notes;
  if (log.checked_only()) {
    notes.push_back(
        "<span class=\"warn\">Checked, not timed: the backend (cuda_emulator) ran each "
        "candidate once against the reference and kept the default; the times are the "
        "emulator's, not a GPU's.</span>");
  } else if (log.selected().empty()) {
    notes.push_back("<span class=\"warn\">No config was selected.</span>");
  }
  if (log.noise_band() > 0) {
    notes.push_back(absl::StrFormat(
        "Candidates within %.1f%% of the fastest count as ties (the noise band); the "
        "default wins a tie.", log.noise_band() * 100));
  }
  if (!log.seeded_from().empty()) {
    notes.push_back(absl::StrCat("Seeded from the entry of ", Code(log.seeded_from()),
                                 ": its config was re-timed here and kept."));
  }
  if (!log.isolated_selected().empty() && log.isolated_selected() != log.selected()) {
    notes.push_back(absl::StrCat("Timed alone, ", Code(log.isolated_selected()),
                                 " was fastest; inside the module, ", Code(log.selected()),
                                 " won."));
  }
  if (f.stale) {
    notes.push_back(absl::StrCat("<span class=\"warn\">Stale: tuned with codegen version ",
                                 f.key_version, "; this build is version ", codegen_version,
                                 " and will tune it again.</span>"));
  }
  if (f.cache_entry != nullptr) {
    const xla::AutotuneResult& r = f.cache_entry->result();
    std::optional<double> t = RunTimeSeconds(r);
    notes.push_back(absl::StrCat("In the cache: ", Code(ResultConfigText(r)),
                                 t ? absl::StrCat(", ", Escape(DurationText(*t))) : "", "."));
  } else {
    notes.push_back("<span class=\"warn\">Not in the cache.</span>");
  }
  out += "<ul class=\"notes\">";
  for (const std::string& n : notes) absl::StrAppend(&out, "<li>", n, "</li>");
  out += "</ul>\n";

  // Every timed candidate, fastest first.
  std::vector<DistributionRow> rows;
  for (const auto& c : log.candidates()) {
    if (!Timed(c)) continue;
    DistributionRow r;
    r.label = c.config();
    r.median = DurationSeconds(c.run_time());
    for (const auto& s : c.samples()) r.samples.push_back(DurationSeconds(s));
    r.chosen = c.config() == f.chosen;
    r.is_default = c.config() == f.default_config;
    r.best = c.config() == f.best;
    rows.push_back(std::move(r));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const DistributionRow& a,
                                                const DistributionRow& b) {
    return a.median < b.median;
  });
  absl::StrAppend(&out, "<h3>Candidates: ", f.timed,
                  log.checked_only() ? " run once and checked" : " timed", ", ", f.failed,
                  " failed, ", f.pruned, " pruned</h3>\n");
  if (rows.empty()) {
    out += "<p class=\"warn\">No candidate was timed.</p>\n";
  } else {
    out += "<p class=\"sub\">Each dot is one timed run; the box spans the middle half of "
           "the runs, the tick is the median the selection compared.</p>\n<div class=\"chart\">";
    out += DistributionSvg(rows);
    out += "</div>\n";
  }

  // The space over two parameters of the chosen (else the best) kind.
  std::vector<SpacePoint> points;
  for (const auto& c : log.candidates()) {
    absl::StatusOr<KernelConfig> k = ParseKernelConfig(c.config());
    if (!k.ok()) continue;
    points.push_back({*k, Timed(c) ? std::optional<double>(DurationSeconds(c.run_time()))
                                   : std::nullopt});
  }
  // The chosen config's kind first, else the kind with the most candidates
  // that has a map (a CPU gemm chosen from a library call's one knob still
  // shows the generated kernels' tiles).
  absl::StatusOr<KernelConfig> chosen = ParseKernelConfig(f.chosen.empty() ? f.best : f.chosen);
  absl::StatusOr<KernelConfig> def = ParseKernelConfig(f.default_config);
  std::map<std::string, int> kinds;
  for (const SpacePoint& p : points) ++kinds[p.config.kind()];
  std::vector<std::string> order;
  if (chosen.ok()) order.push_back(chosen->kind());
  std::vector<std::pair<int, std::string>> by_count;
  for (const auto& [kind, n] : kinds) by_count.push_back({-n, kind});
  std::sort(by_count.begin(), by_count.end());
  for (const auto& [n, kind] : by_count) order.push_back(kind);
  std::optional<Heatmap> map;
  for (const std::string& kind : order) {
    if ((map = BuildHeatmap(points, kind))) break;
  }
  if (map && f.best_seconds) {
    absl::StrAppend(&out, "<h3>Search space: ", Escape(map->row_param), " &#215; ",
                    Escape(map->col_param), "</h3>\n<p class=\"sub\">The ", map->points,
                    " candidates of kind <code>", Escape(map->kind),
                    "</code>: each cell is the fastest with those two values (the other "
                    "parameters free), over the fastest of all; blue outline: chosen, "
                    "dashed: default, grey: all failed.</p>\n<div class=\"chart\">",
                    HeatmapSvg(*map, *f.best_seconds,
                               chosen.ok() && !f.chosen.empty() ? &*chosen : nullptr,
                               def.ok() ? &*def : nullptr),
                    "</div>\n");
  } else if (!points.empty()) {
    out += "<p class=\"sub\">No heatmap: no kind of candidate varies along two parameters.</p>\n";
  }

  if (f.failed > 0) {
    out += "<h3>Failures</h3>\n<table class=\"failures\"><tr><th>config</th><th>why</th>"
           "<th>XLA kind</th><th>message</th></tr>\n";
    for (const auto& c : log.candidates()) {
      if (!Failed(c)) continue;
      absl::StrAppend(&out, "<tr>", Cell(Code(c.config())), Cell(FailureReason(c.failure())),
                      Cell(logs::FusionLog::Candidate::Failure::Kind_Name(c.failure().kind())),
                      Cell(absl::StrCat("<pre>", Escape(c.failure().msg()), "</pre>")),
                      "</tr>\n");
    }
    out += "</table>\n";
  }
  if (log.pruned_size() > 0) {
    absl::StrAppend(&out, "<details><summary>", log.pruned_size(),
                    " candidates the cost model dropped before compiling</summary>\n"
                    "<table><tr><th>config</th><th>predicted time over the best</th></tr>\n");
    for (const auto& p : log.pruned()) {
      absl::StrAppend(&out, "<tr>", Cell(Code(p.config())),
                      Cell(RatioText(p.predicted_ratio()), "num"), "</tr>\n");
    }
    out += "</table></details>\n";
  }
  if (log.in_module_size() > 0) {
    absl::StrAppend(&out, "<h3>Re-timed inside the module</h3>\n<table><tr><th>config</th>"
                    "<th>time in the module</th></tr>\n");
    for (const auto& m : log.in_module()) {
      absl::StrAppend(&out, "<tr", m.config() == log.selected() ? " class=\"chosen\"" : "",
                      ">", Cell(Code(m.config())),
                      Cell(Escape(DurationText(DurationSeconds(m.run_time()))), "num"), "</tr>\n");
    }
    out += "</table>\n";
  }
  out += "</section>\n";
  return out;
}

}  // namespace xtune::report
