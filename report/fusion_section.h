// One fusion's part of the report: what the log says of its tuning (every
// candidate's times, the chosen config against the default and the best,
// the heatmap, failures, pruned and in-module timings) and where its
// result stands in the cache.
#ifndef XTUNE_REPORT_FUSION_SECTION_H_
#define XTUNE_REPORT_FUSION_SECTION_H_

#include <optional>
#include <string>

#include "cache/autotune_results.pb.h"
#include "cache/tuning_log.pb.h"

namespace xtune::report {

// The facts of one logged fusion that the page's index shows.
struct FusionFacts {
  std::string fusion;
  std::string anchor;  // the section's id
  std::string log_path;
  std::string what;    // the fused computation in one line
  int candidates = 0, timed = 0, failed = 0, pruned = 0;
  std::string chosen, default_config, best;  // configs ("" when none)
  std::optional<double> chosen_seconds, default_seconds, best_seconds;
  int key_version = 0;  // the codegen version the fusion was tuned with
  bool stale = false;   // key_version is not this build's
  // The cache's entry for the fusion's key, when it holds one.
  const xla::AutotuneResults::Entry* cache_entry = nullptr;
};

// The facts of `log`. `cache_entry` is the cache's entry for its key
// (null when none); `codegen_version` is this build's.
FusionFacts FactsOf(const logs::FusionLog& log, const std::string& log_path,
                    const std::string& anchor, const xla::AutotuneResults::Entry* cache_entry,
                    int codegen_version);

// The fusion's <section>: id `facts.anchor`, data-fusion the fusion's name.
std::string FusionSectionHtml(const logs::FusionLog& log, const FusionFacts& facts,
                              int codegen_version);

}  // namespace xtune::report

#endif  // XTUNE_REPORT_FUSION_SECTION_H_
