// The report's charts as inline SVG (no script, no external resource):
// candidate time distributions, the search-space heatmap and count bars.
// Every mark carries a <title> (the browser's tooltip) with its numbers.
#ifndef XTUNE_REPORT_CHARTS_H_
#define XTUNE_REPORT_CHARTS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "codegen/kernel_config.h"
#include "report/heatmap.h"

namespace xtune::report {

// One timed candidate: a row of the distribution chart.
struct DistributionRow {
  std::string label;             // the config
  std::vector<double> samples;   // every timed run, seconds
  double median = 0;             // what the selection compared, seconds
  bool chosen = false;
  bool is_default = false;
  bool best = false;             // the fastest median
};

// A strip of every sample per row, with the interquartile box, the median
// and the range, on one time axis (logarithmic when the times span more
// than 3x); the chosen, default and best rows are marked.
std::string DistributionSvg(const std::vector<DistributionRow>& rows);

// The heatmap's cells coloured by their best time over `best_seconds`
// (green 1x to red 4x and beyond), labelled with the ratio; cells where
// every candidate failed are grey with a cross. `chosen` and
// `default_config` (may be null) outline their cells.
std::string HeatmapSvg(const Heatmap& map, double best_seconds, const KernelConfig* chosen,
                       const KernelConfig* default_config);

// Horizontal bars, one per (label, count); `flagged` bars (same index) are
// drawn in the warning colour.
std::string BarsSvg(const std::vector<std::pair<std::string, int64_t>>& bars,
                    const std::vector<bool>& flagged);

}  // namespace xtune::report

#endif  // XTUNE_REPORT_CHARTS_H_
