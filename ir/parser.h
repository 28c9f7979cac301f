// The HLO text parser: reads modules as JAX and XLA print them
// (`HloModule` header, named computations, one ENTRY, instructions with or
// without operand shapes, layouts, metadata, backend configs, comments) and
// the canonical fused-computation text stored in autotuning cache keys.
//
// Errors are InvalidArgument "file:line:col: message" followed by the
// offending line and a caret. The parser never crashes or throws on any
// input. Thread-safe (no shared state).
#ifndef XTUNE_IR_PARSER_H_
#define XTUNE_IR_PARSER_H_

#include <memory>
#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"
#include "ir/module.h"

namespace xtune {

struct ParseOptions {
  // Run the verifier (shape inference for every instruction) after parsing.
  // Default: true.
  bool verify = true;
  // Accept constants whose value is elided as "{...}" (as in the canonical
  // text of cache keys); such a constant has an unknown value and cannot be
  // evaluated. Default: false (ParseCanonicalComputation always allows it).
  bool allow_elided_constants = false;
  // Fill array constants elided as "{...}" (XLA's dumps without
  // print_large_constants) with deterministic values
  // (FillElidedConstant), so the module runs, as XLA's runners can.
  // Default: false (such a constant is an error naming the option).
  bool fill_elided_constants = false;
};

// The values an elided constant of `shape` named `name` gets with
// fill_elided_constants: a pattern fixed by the name (the same on every
// run and machine): floats in [-1, 1), integers in [0, 8), alternating
// preds.
Literal FillElidedConstant(const Shape& shape, absl::string_view name);

// Parses a whole module. `source_name` names the text in error messages
// (usually the file path).
absl::StatusOr<std::unique_ptr<Module>> ParseModule(
    absl::string_view text, absl::string_view source_name = "<text>",
    const ParseOptions& options = {});

// Reads and parses the module in the file at `path`.
absl::StatusOr<std::unique_ptr<Module>> ParseModuleFile(
    const std::string& path, const ParseOptions& options = {});

// Parses a fused computation in canonical form — "{\n  tmp_0 = ...\n}", the
// `hlo` of an autotuning cache key — into a module whose entry computation
// is that computation (named "fused_computation"). Elided constants
// ("{...}") are accepted.
absl::StatusOr<std::unique_ptr<Module>> ParseCanonicalComputation(
    absl::string_view text, absl::string_view source_name = "<key>",
    const ParseOptions& options = {});

}  // namespace xtune

#endif  // XTUNE_IR_PARSER_H_
