// A compile's tuning as `xtune compile` prints it: the table's rows, and
// the JSON form (`xtune compile` and `xtune run` with --format=json) of
// the rows and the summary line's counts (fields in docs/json_output.md).
#ifndef XTUNE_TOOLS_TUNING_JSON_H_
#define XTUNE_TOOLS_TUNING_JSON_H_

#include <optional>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "tools/json_writer.h"

namespace xtune {

// One fusion of the table.
struct FusionRow {
  std::string name, kind, shape;
  std::string config;  // what it runs (a --config override included)
  std::string source;  // tuned, cache, default, override or --config
  bool on_evaluator = false;
  std::optional<double> seconds, default_seconds;
  int candidates = 0, failed = 0;
};
std::vector<FusionRow> FusionRows(const CompiledModule& compiled);

// Writes the members "autotuning" (an object of the counts) and "fusions"
// (an array of rows) into the object `out` has open.
void WriteTuningJson(const CompiledModule& compiled, JsonWriter& out);

}  // namespace xtune

#endif  // XTUNE_TOOLS_TUNING_JSON_H_
