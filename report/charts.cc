#include "report/charts.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "report/html.h"

namespace xtune::report {
namespace {

constexpr double kCharWidth = 6.7;  // 11px monospace, per character
constexpr size_t kMaxLabelChars = 100;

// A time axis from lo to hi seconds onto [x0, x1] pixels.
struct TimeAxis {
  double lo, hi, x0, x1;
  bool log;
  double X(double s) const {
    s = std::clamp(s, lo, hi);
    double f = log ? std::log(s / lo) / std::log(hi / lo) : (s - lo) / (hi - lo);
    return x0 + f * (x1 - x0);
  }
  // 1-2-5 ticks inside [lo, hi].
  std::vector<double> Ticks() const {
    std::vector<double> ticks;
    if (log) {
      for (double decade = std::pow(10, std::floor(std::log10(lo))); decade <= hi; decade *= 10) {
        for (double m : {1.0, 2.0, 5.0}) {
          if (decade * m >= lo && decade * m <= hi) ticks.push_back(decade * m);
        }
      }
      if (ticks.size() > 8) {  // many decades: the powers of ten only
        std::vector<double> tens;
        for (double t : ticks) {
          double l = std::log10(t);
          if (std::abs(l - std::round(l)) < 1e-9) tens.push_back(t);
        }
        ticks = tens;
      }
    } else {
      double raw = (hi - lo) / 5;
      double mag = std::pow(10, std::floor(std::log10(raw)));
      double step = mag;
      for (double m : {1.0, 2.0, 5.0, 10.0}) {
        if (mag * m >= raw) {
          step = mag * m;
          break;
        }
      }
      for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) {
        ticks.push_back(t);
      }
    }
    return ticks;
  }
};

double Quantile(std::vector<double> sorted, double q) {
  if (sorted.empty()) return 0;
  double pos = q * (sorted.size() - 1);
  size_t i = static_cast<size_t>(pos);
  if (i + 1 >= sorted.size()) return sorted.back();
  return sorted[i] + (pos - i) * (sorted[i + 1] - sorted[i]);
}

std::string F(double v) { return absl::StrFormat("%.1f", v); }

// Green (1x) through yellow (2x) to red (4x and beyond).
std::string RatioColour(double ratio) {
  double t = std::clamp(std::log(std::max(ratio, 1.0)) / std::log(4.0), 0.0, 1.0);
  struct Rgb {
    double r, g, b;
  };
  const Rgb green{26, 152, 80}, yellow{254, 224, 139}, red{215, 48, 39};
  Rgb a = t < 0.5 ? green : yellow, b = t < 0.5 ? yellow : red;
  double u = t < 0.5 ? t * 2 : (t - 0.5) * 2;
  return absl::StrFormat("#%02x%02x%02x", static_cast<int>(a.r + u * (b.r - a.r)),
                         static_cast<int>(a.g + u * (b.g - a.g)),
                         static_cast<int>(a.b + u * (b.b - a.b)));
}

}  // namespace

std::string DistributionSvg(const std::vector<DistributionRow>& rows) {
  if (rows.empty()) return "";
  double lo = INFINITY, hi = 0;
  size_t label_chars = 10;
  for (const DistributionRow& r : rows) {
    for (double s : r.samples) {
      if (s > 0) lo = std::min(lo, s);
      hi = std::max(hi, s);
    }
    if (r.median > 0) lo = std::min(lo, r.median);
    hi = std::max(hi, r.median);
    label_chars = std::max(label_chars, std::min(r.label.size(), kMaxLabelChars));
  }
  if (!std::isfinite(lo) || hi <= 0) return "";
  if (hi <= lo) hi = lo * 1.1;
  const bool log = hi / lo > 3;
  if (log) {
    lo /= 1.05;
    hi *= 1.05;
  } else {
    double pad = (hi - lo) * 0.05;
    lo = std::max(0.0, lo - pad);
    hi += pad;
  }
  const double label_w = label_chars * kCharWidth + 12;
  const double plot_w = 520, right_w = 190, row_h = 16, top = 30;
  TimeAxis axis{lo, hi, label_w, label_w + plot_w, log};
  const double width = label_w + plot_w + right_w;
  const double height = top + rows.size() * row_h + 8;
  std::string svg = absl::StrFormat(
      "<svg class=\"dist\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%s\" height=\"%s\" "
      "viewBox=\"0 0 %s %s\" role=\"img\">\n",
      F(width), F(height), F(width), F(height));
  // Axis: ticks and grid lines.
  for (double t : axis.Ticks()) {
    double x = axis.X(t);
    absl::StrAppend(&svg, "<line class=\"grid\" x1=\"", F(x), "\" y1=\"", F(top - 4), "\" x2=\"",
                    F(x), "\" y2=\"", F(height - 6), "\"/><text class=\"tick\" x=\"", F(x),
                    "\" y=\"", F(top - 8), "\" text-anchor=\"middle\">",
                    Escape(DurationText(t)), "</text>\n");
  }
  absl::StrAppend(&svg, "<text class=\"axis\" x=\"", F(label_w + plot_w), "\" y=\"11\" ",
                  "text-anchor=\"end\">", log ? "time (log scale)" : "time", "</text>\n");
  for (size_t i = 0; i < rows.size(); ++i) {
    const DistributionRow& r = rows[i];
    const double y = top + i * row_h + row_h / 2;
    std::string cls = "cand";
    if (r.chosen) cls += " chosen";
    if (r.is_default) cls += " default";
    if (r.best) cls += " best";
    std::vector<double> sorted = r.samples;
    std::sort(sorted.begin(), sorted.end());
    std::string tip = absl::StrCat(r.label, "\nmedian ", DurationText(r.median));
    if (!sorted.empty()) {
      absl::StrAppend(&tip, "\n", sorted.size(), " runs: min ", DurationText(sorted.front()),
                      ", quartiles ", DurationText(Quantile(sorted, 0.25)), " / ",
                      DurationText(Quantile(sorted, 0.75)), ", max ",
                      DurationText(sorted.back()));
    }
    absl::StrAppend(&svg, "<g class=\"", cls, "\"><title>", Escape(tip), "</title>");
    if (r.chosen || i % 2 == 1) {
      absl::StrAppend(&svg, "<rect class=\"", r.chosen ? "rowmark" : "stripe", "\" x=\"0\" y=\"",
                      F(y - row_h / 2), "\" width=\"", F(width), "\" height=\"", F(row_h),
                      "\"/>");
    }
    absl::StrAppend(&svg, "<text class=\"label\" x=\"", F(label_w - 8), "\" y=\"", F(y + 4),
                    "\" text-anchor=\"end\">", Escape(Truncate(r.label, kMaxLabelChars)),
                    "</text>");
    if (!sorted.empty()) {
      double q1 = axis.X(Quantile(sorted, 0.25)), q3 = axis.X(Quantile(sorted, 0.75));
      absl::StrAppend(&svg, "<line class=\"range\" x1=\"", F(axis.X(sorted.front())), "\" y1=\"",
                      F(y), "\" x2=\"", F(axis.X(sorted.back())), "\" y2=\"", F(y), "\"/>",
                      "<rect class=\"box\" x=\"", F(q1), "\" y=\"", F(y - 4), "\" width=\"",
                      F(std::max(1.0, q3 - q1)), "\" height=\"8\"/>");
      for (size_t k = 0; k < r.samples.size(); ++k) {
        // A fixed jitter spreads equal samples a little.
        double dy = static_cast<double>((k * 37) % 9) - 4;
        absl::StrAppend(&svg, "<circle class=\"sample\" cx=\"", F(axis.X(r.samples[k])),
                        "\" cy=\"", F(y + dy * 0.8), "\" r=\"1.6\"/>");
      }
    }
    double xm = axis.X(r.median);
    absl::StrAppend(&svg, "<line class=\"median\" x1=\"", F(xm), "\" y1=\"", F(y - 6), "\" x2=\"",
                    F(xm), "\" y2=\"", F(y + 6), "\"/>");
    std::string tags;
    if (r.chosen) tags += " chosen";
    if (r.is_default) tags += " default";
    if (r.best) tags += " best";
    absl::StrAppend(&svg, "<text class=\"value\" x=\"", F(label_w + plot_w + 8), "\" y=\"",
                    F(y + 4), "\">", Escape(DurationText(r.median)), "<tspan class=\"tags\">",
                    tags, "</tspan></text></g>\n");
  }
  svg += "</svg>\n";
  return svg;
}

std::string HeatmapSvg(const Heatmap& map, double best_seconds, const KernelConfig* chosen,
                       const KernelConfig* default_config) {
  const double cell_w = 58, cell_h = 30;
  size_t row_chars = map.row_param.size();
  for (int64_t v : map.row_values) row_chars = std::max(row_chars, absl::StrCat(v).size());
  const double left = row_chars * kCharWidth + 16, top = 44;
  const double width = left + map.col_values.size() * cell_w + 10;
  const double height = top + map.row_values.size() * cell_h + 10;
  std::string svg = absl::StrFormat(
      "<svg class=\"heatmap\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%s\" height=\"%s\" "
      "viewBox=\"0 0 %s %s\" role=\"img\">\n",
      F(width), F(height), F(width), F(height));
  absl::StrAppend(&svg, "<text class=\"axis\" x=\"", F(left), "\" y=\"12\">",
                  Escape(map.col_param), " &#8594;</text>");
  absl::StrAppend(&svg, "<text class=\"axis\" x=\"4\" y=\"", F(top - 8), "\">",
                  Escape(map.row_param), " &#8595;</text>\n");
  for (size_t c = 0; c < map.col_values.size(); ++c) {
    absl::StrAppend(&svg, "<text class=\"tick\" x=\"", F(left + c * cell_w + cell_w / 2),
                    "\" y=\"", F(top - 8), "\" text-anchor=\"middle\">", map.col_values[c],
                    "</text>");
  }
  auto at = [&](const KernelConfig* k, size_t r, size_t c) {
    return k != nullptr && k->kind() == map.kind && k->Has(map.row_param) &&
           k->Has(map.col_param) && k->Get(map.row_param) == map.row_values[r] &&
           k->Get(map.col_param) == map.col_values[c];
  };
  for (size_t r = 0; r < map.row_values.size(); ++r) {
    const double y = top + r * cell_h;
    absl::StrAppend(&svg, "<text class=\"tick\" x=\"", F(left - 6), "\" y=\"",
                    F(y + cell_h / 2 + 4), "\" text-anchor=\"end\">", map.row_values[r],
                    "</text>\n");
    for (size_t c = 0; c < map.col_values.size(); ++c) {
      const Heatmap::Cell& cell = map.cells[r][c];
      const double x = left + c * cell_w;
      std::string cls = "cell", fill = "#ffffff", text;
      std::string tip = absl::StrCat(map.row_param, "=", map.row_values[r], ", ", map.col_param,
                                     "=", map.col_values[c], ": ");
      if (cell.best_seconds) {
        double ratio = *cell.best_seconds / best_seconds;
        fill = RatioColour(ratio);
        text = absl::StrFormat("%.2f", ratio);
        absl::StrAppend(&tip, "best ", DurationText(*cell.best_seconds), " (",
                        RatioText(ratio), " the best), ", cell.candidates, " candidates");
        if (cell.failed > 0) absl::StrAppend(&tip, ", ", cell.failed, " failed");
      } else if (cell.candidates > 0) {
        cls += " failed";
        fill = "#d0d0d0";
        text = "&#215;";
        absl::StrAppend(&tip, "all ", cell.candidates, " candidates failed");
      } else {
        cls += " empty";
        absl::StrAppend(&tip, "not in the space");
      }
      if (at(chosen, r, c)) cls += " chosen";
      if (at(default_config, r, c)) cls += " default";
      absl::StrAppend(&svg, "<g class=\"", cls, "\"><title>", Escape(tip), "</title><rect x=\"",
                      F(x + 1), "\" y=\"", F(y + 1), "\" width=\"", F(cell_w - 2), "\" height=\"",
                      F(cell_h - 2), "\" fill=\"", fill, "\"/><text x=\"", F(x + cell_w / 2),
                      "\" y=\"", F(y + cell_h / 2 + 4), "\" text-anchor=\"middle\">", text,
                      "</text></g>\n");
    }
  }
  svg += "</svg>\n";
  return svg;
}

std::string BarsSvg(const std::vector<std::pair<std::string, int64_t>>& bars,
                    const std::vector<bool>& flagged) {
  if (bars.empty()) return "";
  int64_t max = 1;
  size_t label_chars = 4;
  for (const auto& [label, n] : bars) {
    max = std::max(max, n);
    label_chars = std::max(label_chars, std::min(label.size(), size_t{90}));
  }
  const double left = label_chars * kCharWidth + 12, bar_w = 320, row_h = 20;
  const double width = left + bar_w + 70, height = bars.size() * row_h + 4;
  std::string svg = absl::StrFormat(
      "<svg class=\"bars\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%s\" height=\"%s\" "
      "viewBox=\"0 0 %s %s\" role=\"img\">\n",
      F(width), F(height), F(width), F(height));
  for (size_t i = 0; i < bars.size(); ++i) {
    const auto& [label, n] = bars[i];
    const double y = i * row_h + 2;
    const double w = std::max(1.0, bar_w * n / max);
    const bool flag = i < flagged.size() && flagged[i];
    absl::StrAppend(&svg, "<g class=\"bar", flag ? " flagged" : "", "\"><title>",
                    Escape(absl::StrCat(label, ": ", n)), "</title><text class=\"label\" x=\"",
                    F(left - 8), "\" y=\"", F(y + 13), "\" text-anchor=\"end\">",
                    Escape(Truncate(label, 90)), "</text><rect x=\"", F(left), "\" y=\"",
                    F(y + 2), "\" width=\"", F(w), "\" height=\"", F(row_h - 6),
                    "\"/><text class=\"value\" x=\"", F(left + w + 6), "\" y=\"", F(y + 13),
                    "\">", n, "</text></g>\n");
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace xtune::report
