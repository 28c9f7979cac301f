#include "autotune/cost_model.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "util/status_macros.h"

namespace xtune {
namespace {

// A failed, wrong or untimed candidate counts as this many times the best.
constexpr double kFailedRatio = 100;

// The smallest positive median; infinity when none.
double BestOf(const std::vector<CostModel::Measurement>& measured) {
  double best = INFINITY;
  for (const CostModel::Measurement& m : measured) {
    if (m.seconds && *m.seconds > 0) best = std::min(best, *m.seconds);
  }
  return best;
}

std::vector<std::string> NamesOf(const std::vector<KernelConfig>& configs,
                                 const std::string& kind) {
  std::vector<std::string> names;
  for (const KernelConfig& c : configs) {
    if (c.kind() != kind) continue;
    for (const auto& [name, value] : c.params()) {
      if (std::find(names.begin(), names.end(), name) == names.end()) {
        names.push_back(name);
      }
    }
  }
  return names;
}

std::vector<std::string> KindsOf(const std::vector<KernelConfig>& configs) {
  std::vector<std::string> kinds;
  for (const KernelConfig& c : configs) {
    if (std::find(kinds.begin(), kinds.end(), c.kind()) == kinds.end()) {
      kinds.push_back(c.kind());
    }
  }
  return kinds;
}

}  // namespace

void FusionSize(const Instruction& fusion, double size[2]) {
  double operand_bytes = 0;
  for (const Instruction* op : fusion.operands()) {
    operand_bytes += static_cast<double>(op->shape().ByteSize());
  }
  size[0] = std::log2(1.0 + static_cast<double>(fusion.shape().ElementCount()));
  size[1] = std::log2(1.0 + operand_bytes);
}

std::vector<CostModel::Candidate> CostModel::Features(
    const std::vector<KernelConfig>& configs, const std::string& kind,
    const std::vector<std::string>& names, std::vector<int>* counts) {
  // Each parameter's distinct values among this fusion's candidates.
  std::vector<std::vector<int64_t>> values(names.size());
  for (const KernelConfig& c : configs) {
    if (c.kind() != kind) continue;
    for (size_t p = 0; p < names.size(); ++p) values[p].push_back(c.Get(names[p], 1));
  }
  counts->clear();
  for (auto& v : values) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    counts->push_back(static_cast<int>(v.size()));
  }
  std::vector<Candidate> out;
  for (const KernelConfig& c : configs) {
    if (c.kind() != kind) continue;
    Candidate f;
    f.config = c;
    for (size_t p = 0; p < names.size(); ++p) {
      const int64_t v = c.Get(names[p], 1);
      const auto& vs = values[p];
      const size_t at = std::lower_bound(vs.begin(), vs.end(), v) - vs.begin();
      f.position.push_back(vs.size() > 1 ? static_cast<double>(at) / (vs.size() - 1) : 0);
      f.log2.push_back(std::log2(static_cast<double>(std::max<int64_t>(v, 1))));
    }
    out.push_back(std::move(f));
  }
  return out;
}

void CostModel::Observe(const Instruction& fusion,
                        const std::vector<KernelConfig>& candidates,
                        const std::vector<Measurement>& measured) {
  Sample sample;
  FusionSize(fusion, sample.size);
  sample.generated = candidates;
  sample.measured = measured;
  Observe(sample);
}

void CostModel::Observe(const Sample& sample) {
  const std::vector<KernelConfig>& candidates = sample.generated;
  const std::vector<Measurement>& measured = sample.measured;
  const double best = BestOf(measured);
  if (!std::isfinite(best)) return;
  for (const std::string& kind : KindsOf(candidates)) {
    Measured m;
    m.kind = kind;
    m.names = NamesOf(candidates, kind);
    m.size[0] = sample.size[0];
    m.size[1] = sample.size[1];
    for (Candidate& c : Features(candidates, kind, m.names, &m.values)) {
      auto it = std::find_if(measured.begin(), measured.end(),
                             [&](const Measurement& x) { return x.config == c.config; });
      if (it == measured.end()) continue;  // pruned: places values only
      const double ratio =
          it->seconds && *it->seconds > 0 ? *it->seconds / best : kFailedRatio;
      c.log_ratio = std::log(std::min(ratio, kFailedRatio));
      m.candidates.push_back(std::move(c));
    }
    fusions_.push_back(std::move(m));
  }
}

xla::AutotuneResult::CostModelSample CostModel::ToProto(const Sample& sample) {
  xla::AutotuneResult::CostModelSample proto;
  const double best = BestOf(sample.measured);
  if (!std::isfinite(best)) return proto;  // nothing timed: nothing learnt
  proto.set_log2_output_elements(sample.size[0]);
  proto.set_log2_operand_bytes(sample.size[1]);
  for (const KernelConfig& c : sample.generated) {
    auto* point = proto.add_candidates();
    point->set_config(c.ToString());
    auto it = std::find_if(sample.measured.begin(), sample.measured.end(),
                           [&](const Measurement& x) { return x.config == c; });
    if (it == sample.measured.end()) {
      point->set_pruned(true);
    } else if (it->seconds && *it->seconds > 0) {
      point->set_ratio(*it->seconds / best);
    }
  }
  return proto;
}

absl::StatusOr<CostModel::Sample> CostModel::FromProto(
    const xla::AutotuneResult::CostModelSample& proto) {
  Sample sample;
  sample.size[0] = proto.log2_output_elements();
  sample.size[1] = proto.log2_operand_bytes();
  if (!std::isfinite(sample.size[0]) || !std::isfinite(sample.size[1])) {
    return absl::InvalidArgumentError("cost model sample: fusion size is not finite");
  }
  for (const auto& point : proto.candidates()) {
    XTUNE_ASSIGN_OR_RETURN(KernelConfig config, ParseKernelConfig(point.config()));
    if (!std::isfinite(point.ratio()) || point.ratio() < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cost model sample: ratio ", point.ratio(), " of ", point.config(),
          " is not a non-negative number"));
    }
    sample.generated.push_back(config);
    if (point.pruned()) continue;
    sample.measured.push_back(
        {std::move(config),
         point.ratio() > 0 ? std::optional<double>(point.ratio()) : std::nullopt});
  }
  return sample;
}

std::vector<std::optional<double>> CostModel::Predict(
    const Instruction& fusion, const std::vector<KernelConfig>& configs) const {
  std::vector<std::optional<double>> out(configs.size());
  double size[2];
  FusionSize(fusion, size);
  for (const std::string& kind : KindsOf(configs)) {
    const std::vector<std::string> names = NamesOf(configs, kind);
    std::vector<int> counts;
    const std::vector<Candidate> features = Features(configs, kind, names, &counts);
    // Per candidate: the smallest log ratio of its matches.
    std::vector<double> best_case(features.size(), INFINITY);
    std::vector<int> support(features.size(), 0);
    for (const Measured& m : fusions_) {
      if (m.kind != kind || m.names != names) continue;
      const double d0 = m.size[0] - size[0], d1 = m.size[1] - size[1];
      const double w =
          std::exp(-(d0 * d0 + d1 * d1) / (2 * options_.sigma * options_.sigma));
      if (w < options_.min_weight) continue;
      // Positions match within half a step of the finer of the two lists.
      std::vector<double> tolerance(names.size());
      for (size_t p = 0; p < names.size(); ++p) {
        const int n = std::max(counts[p], m.values[p]);
        tolerance[p] = n > 1 ? 0.5 / (n - 1) : INFINITY;
      }
      for (size_t j = 0; j < features.size(); ++j) {
        const Candidate* match = nullptr;
        double nearest = INFINITY;
        for (const Candidate& c : m.candidates) {
          double d = 0;
          bool same_place = true;
          for (size_t p = 0; p < names.size() && same_place; ++p) {
            same_place = std::abs(c.position[p] - features[j].position[p]) < tolerance[p];
            d += std::abs(c.log2[p] - features[j].log2[p]);
          }
          if (same_place && d < nearest) {  // the earliest on a tie
            nearest = d;
            match = &c;
          }
        }
        if (match == nullptr) continue;
        best_case[j] = std::min(best_case[j], match->log_ratio);
        ++support[j];
      }
    }
    size_t j = 0;
    for (size_t i = 0; i < configs.size(); ++i) {
      if (configs[i].kind() != kind) continue;
      if (support[j] >= options_.min_support) {
        out[i] = std::exp(best_case[j]);
      }
      ++j;
    }
  }
  return out;
}

std::vector<bool> CostModel::Keep(const std::vector<std::optional<double>>& predicted,
                                  const std::vector<bool>& always) const {
  const size_t n = predicted.size();
  std::vector<bool> keep(n, false);
  std::vector<size_t> ranked;
  for (size_t c = 0; c < n; ++c) {
    if (!predicted[c] || (c < always.size() && always[c])) {
      keep[c] = true;
    } else {
      ranked.push_back(c);
    }
  }
  std::stable_sort(ranked.begin(), ranked.end(), [&](size_t a, size_t b) {
    return *predicted[a] < *predicted[b];
  });
  for (size_t r = 0; r < ranked.size(); ++r) {
    const size_t c = ranked[r];
    if (*predicted[c] <= options_.prune_above ||
        static_cast<int>(r) < options_.min_kept) {
      keep[c] = true;
    }
  }
  return keep;
}

}  // namespace xtune
