// The JSON form of a compile's tuning (`xtune compile` and `xtune run` with
// --format=json): the summary line's counts and the table's rows. The
// fields are documented in docs/json_output.md.
#ifndef XTUNE_TOOLS_TUNING_JSON_H_
#define XTUNE_TOOLS_TUNING_JSON_H_

#include "compiler/compile.h"
#include "tools/json_writer.h"

namespace xtune {

// Writes the members "autotuning" (an object of the counts) and "fusions"
// (an array of rows) into the object `out` has open.
void WriteTuningJson(const CompiledModule& compiled, JsonWriter& out);

}  // namespace xtune

#endif  // XTUNE_TOOLS_TUNING_JSON_H_
