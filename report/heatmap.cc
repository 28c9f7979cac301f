#include "report/heatmap.h"

#include <algorithm>
#include <map>
#include <set>

namespace xtune::report {

std::optional<Heatmap> BuildHeatmap(const std::vector<SpacePoint>& points,
                                    absl::string_view kind) {
  // Distinct values per parameter, and each parameter's first position in
  // a config (the kind's canonical order).
  std::map<std::string, std::set<int64_t>> values;
  std::map<std::string, size_t> order;
  int n = 0;
  for (const SpacePoint& p : points) {
    if (p.config.kind() != kind) continue;
    ++n;
    const auto& params = p.config.params();
    for (size_t i = 0; i < params.size(); ++i) {
      values[params[i].first].insert(params[i].second);
      order.emplace(params[i].first, i);
    }
  }
  std::vector<std::string> varying;
  for (const auto& [name, vals] : values) {
    if (vals.size() >= 2) varying.push_back(name);
  }
  if (varying.size() < 2) return std::nullopt;
  std::sort(varying.begin(), varying.end(),
            [&](const std::string& a, const std::string& b) { return order[a] < order[b]; });
  // The pair whose value pairs the candidates cover most.
  size_t best_a = 0, best_b = 1, best_cover = 0;
  for (size_t a = 0; a < varying.size(); ++a) {
    for (size_t b = a + 1; b < varying.size(); ++b) {
      std::set<std::pair<int64_t, int64_t>> cover;
      for (const SpacePoint& p : points) {
        if (p.config.kind() != kind || !p.config.Has(varying[a]) || !p.config.Has(varying[b])) {
          continue;
        }
        cover.insert({p.config.Get(varying[a]), p.config.Get(varying[b])});
      }
      if (cover.size() > best_cover) {
        best_cover = cover.size();
        best_a = a;
        best_b = b;
      }
    }
  }
  Heatmap h;
  h.kind = std::string(kind);
  h.points = n;
  h.row_param = varying[best_a];
  h.col_param = varying[best_b];
  h.row_values.assign(values[h.row_param].begin(), values[h.row_param].end());
  h.col_values.assign(values[h.col_param].begin(), values[h.col_param].end());
  h.cells.assign(h.row_values.size(), std::vector<Heatmap::Cell>(h.col_values.size()));
  for (const SpacePoint& p : points) {
    if (p.config.kind() != kind) continue;
    // A config without one of the axes (another variant of the kind) has
    // no cell.
    if (!p.config.Has(h.row_param) || !p.config.Has(h.col_param)) continue;
    size_t r = std::lower_bound(h.row_values.begin(), h.row_values.end(),
                                p.config.Get(h.row_param)) - h.row_values.begin();
    size_t c = std::lower_bound(h.col_values.begin(), h.col_values.end(),
                                p.config.Get(h.col_param)) - h.col_values.begin();
    Heatmap::Cell& cell = h.cells[r][c];
    ++cell.candidates;
    if (!p.seconds) {
      ++cell.failed;
    } else if (!cell.best_seconds || *p.seconds < *cell.best_seconds) {
      cell.best_seconds = p.seconds;
    }
  }
  return h;
}

}  // namespace xtune::report
