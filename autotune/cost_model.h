// A cost model of a backend's candidates, fit on the candidates measured so
// far, that orders and prunes the candidates of the next fusion before they
// are compiled (AutotuneOptions::cost_model).
//
// What it predicts is how far a candidate will be from its fusion's best,
// not its run time: the ratio median / best median. Fusions of one backend
// built by one candidate generator repeat the same pattern across shapes (a
// vector width of 1 is ten times slower on every row reduction; two threads
// lose on every small gemm), and a ratio carries that pattern from one
// shape to the next where a time would not.
//
// The model is nearest-neighbour: a candidate of a new fusion is matched,
// in each measured fusion of the same config kind and a similar size
// (output elements and operand bytes, log2, within a Gaussian weight of
// min_weight), to the candidate at the same place in each parameter's list
// of values among that fusion's candidates (which lines up shape-dependent
// lists such as cols_per_task in {12, 96} with {32, 256}), the nearest in
// log2 values where several are. The prediction is the smallest ratio of
// those matches: how close the candidate came to the best on the fusions
// most like this one. It is conservative on purpose: a candidate is pruned
// only when it was far behind on every similar fusion measured, because
// timings of near-equal candidates are noisy and a candidate that won once
// may win again. A candidate without a match in at least `min_support`
// fusions has no prediction and is always kept. What it learns from a
// fusion is kept in that fusion's cache entry (Sample, ToProto), so a
// model is fit from a loaded cache before the first fusion is tuned. Not
// thread-safe; one per Tune().
#ifndef XTUNE_AUTOTUNE_COST_MODEL_H_
#define XTUNE_AUTOTUNE_COST_MODEL_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cache/autotune_results.pb.h"
#include "codegen/kernel_config.h"
#include "ir/instruction.h"

namespace xtune {

struct CostModelOptions {
  // A candidate predicted to take more than this times its fusion's best is
  // not compiled. Default 1.2: beyond what the adaptive timing stops after
  // later rounds (15%), so a candidate pruned would have been given up on
  // anyway had its fusion been like the measured ones.
  double prune_above = 1.2;
  // Predictions need matches in this many measured fusions of weight at
  // least `min_weight`. Defaults 2 and 0.1.
  int min_support = 2;
  double min_weight = 0.1;
  // Width of the fusion-size weight, in log2 units (a fusion 2^sigma times
  // larger weighs exp(-1/2); with min_weight 0.1, fusions up to 2^3.2
  // times larger or smaller count). Default 1.5.
  double sigma = 1.5;
  // At least this many predicted candidates (the best predicted) are kept
  // besides the always-kept ones. Default 3.
  int min_kept = 3;
};

class CostModel {
 public:
  explicit CostModel(CostModelOptions options = {}) : options_(options) {}

  // Records a tuned fusion: its `candidates` as generated (before pruning:
  // they place each parameter value in its list) and the medians of those
  // that were compiled (seconds; nullopt for one that failed, was wrong or
  // was not timed, which counts as 100x the best). Fusions with no timed
  // candidate are ignored.
  struct Measurement {
    KernelConfig config;
    std::optional<double> seconds;
  };
  void Observe(const Instruction& fusion, const std::vector<KernelConfig>& candidates,
               const std::vector<Measurement>& measured);

  // What the model keeps of one tuned fusion: its size (FusionSize), its
  // candidates as generated and the measurements of the compiled ones, as
  // Observe() takes them. A cache entry carries one (ToProto) so that a
  // compile that loads the cache learns from it before its first fusion.
  struct Sample {
    double size[2] = {0, 0};
    std::vector<KernelConfig> generated;
    std::vector<Measurement> measured;
  };
  void Observe(const Sample& sample);
  // The sample as stored in a cache entry (AutotuneResult's
  // xtune_provenance.cost_model): medians become ratios to the best.
  static xla::AutotuneResult::CostModelSample ToProto(const Sample& sample);
  // Reads a stored sample back. InvalidArgument for a config that does not
  // parse or a ratio that is negative or not finite (the caller skips
  // that entry).
  static absl::StatusOr<Sample> FromProto(
      const xla::AutotuneResult::CostModelSample& proto);

  // The predicted ratio to the best for each of `configs` (the candidates
  // of `fusion`: the smallest ratio of its matches), nullopt where the
  // model has too little support.
  std::vector<std::optional<double>> Predict(
      const Instruction& fusion, const std::vector<KernelConfig>& configs) const;

  // Which of `configs` to compile given `predicted` (Predict's): every
  // candidate without a prediction and every one in `always` (library
  // calls, the default config); of the rest, those predicted within
  // prune_above and at least min_kept of the best predicted.
  std::vector<bool> Keep(const std::vector<std::optional<double>>& predicted,
                         const std::vector<bool>& always) const;

  // Measured fusions so far.
  int fusions() const { return static_cast<int>(fusions_.size()); }

 private:
  struct Candidate {
    KernelConfig config;
    std::vector<double> position;  // per parameter, in [0, 1]
    std::vector<double> log2;      // per parameter
    double log_ratio = 0;          // log(median / best)
  };
  struct Measured {
    std::string kind;  // the configs' kind (one fusion may have several)
    std::vector<std::string> names;  // parameter names
    std::vector<int> values;         // per parameter, distinct values
    double size[2];                  // log2 output elements / operand bytes
    std::vector<Candidate> candidates;  // the measured ones
  };

  // The features of `configs`' candidates of kind `kind` (with the
  // parameters `names`), and per parameter its number of distinct values.
  static std::vector<Candidate> Features(const std::vector<KernelConfig>& configs,
                                         const std::string& kind,
                                         const std::vector<std::string>& names,
                                         std::vector<int>* values);

  CostModelOptions options_;
  std::vector<Measured> fusions_;  // one per (fusion, config kind)
};

// log2 of the fusion's output elements and operand bytes (the model's
// fusion features).
void FusionSize(const Instruction& fusion, double size[2]);

}  // namespace xtune

#endif  // XTUNE_AUTOTUNE_COST_MODEL_H_
