// The heatmap of one fusion's search space over two config parameters: for
// each pair of values, the best time of the candidates that have them (the
// other parameters free), and how many there failed. The two axes are the
// pair of the kind's parameters whose value pairs the candidates cover most
// (two parameters that move together, such as a tile and its micro-tile,
// cover a diagonal only); ties go to the pair earlier in the kind's
// parameter order. Rows are the earlier of the two (block_m before block_n,
// mc before nc).
#ifndef XTUNE_REPORT_HEATMAP_H_
#define XTUNE_REPORT_HEATMAP_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "codegen/kernel_config.h"

namespace xtune::report {

// One candidate: its config and its median time (nullopt when it failed).
struct SpacePoint {
  KernelConfig config;
  std::optional<double> seconds;
};

struct Heatmap {
  struct Cell {
    std::optional<double> best_seconds;  // the fastest timed candidate here
    int candidates = 0;                  // every candidate here
    int failed = 0;                      // of which failed
  };
  std::string kind;                  // the configs' kind
  std::string row_param, col_param;  // the axes
  std::vector<int64_t> row_values, col_values;  // ascending
  std::vector<std::vector<Cell>> cells;         // [row][col]
  int points = 0;                               // candidates of `kind`
};

// The heatmap over the points of `kind`; nullopt when fewer than two of
// its parameters take two or more values.
std::optional<Heatmap> BuildHeatmap(const std::vector<SpacePoint>& points,
                                    absl::string_view kind);

}  // namespace xtune::report

#endif  // XTUNE_REPORT_HEATMAP_H_
