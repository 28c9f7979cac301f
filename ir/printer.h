// HLO text printers.
//
// ToString(Module) prints a module the parser reads back into an equivalent
// module (names, shapes with layouts, attributes, metadata and backend
// configs kept). CanonicalText(Computation) prints a fused computation the
// way XLA writes the `hlo` of an autotuning cache key: "{", one instruction
// per line indented by two spaces, instructions in post order, names renamed
// tmp_0, tmp_1, ..., operand shapes with layouts, no metadata or backend
// config, "ROOT" marked, "}". Thread-safe.
#ifndef XTUNE_IR_PRINTER_H_
#define XTUNE_IR_PRINTER_H_

#include <string>

#include "ir/module.h"

namespace xtune {

std::string ToString(const Module& module);
std::string ToString(const Computation& computation);
// One instruction without indentation or ROOT: "name = shape op(...), ...".
std::string ToString(const Instruction& instruction);

struct CanonicalOptions {
  // Print the bodies of called computations (reduce's to_apply, a nested
  // fusion's calls) inline, each renamed from tmp_0 again. XLA omits them
  // from cache keys (it prints no to_apply at all, so a max-reduce and a
  // sum-reduce share a key); xtune prints them so keys tell them apart.
  // Default: true.
  bool print_called_computations = true;
  // Constants as in XLA's keys ("print only essential constants"): all-zero
  // arrays print 0, all-one print 1, integer arrays in full, other float
  // arrays as {...}. When false, every value prints in full. Default: true.
  bool essential_constants_only = true;
};

// The canonical text of `computation` (see the file comment). Two
// computations that differ only in instruction names have the same text.
std::string CanonicalText(const Computation& computation,
                          const CanonicalOptions& options = {});

}  // namespace xtune

#endif  // XTUNE_IR_PRINTER_H_
