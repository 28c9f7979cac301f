// The flatten pass's library calls (ir/library_call.h): a cuBLAS gemm
// custom-call becomes a gemm fusion computing D (the dot, alpha, beta * C,
// the bias and the activation in f32 — f64 for f64 — then D's type), kept
// whole by the fusion pass and keyed by the custom-call's text in XLA's form
// (LibraryFusionOf), so its autotuning results are XLA's gemm algorithm
// picker's. An *_AUX epilogue's aux output is a second, ordinary gemm
// fusion (the same product before the activation). The workspace is a
// broadcast zero, computed only where something reads it.
#ifndef XTUNE_FUSION_LIBRARY_CALL_EXPANDER_H_
#define XTUNE_FUSION_LIBRARY_CALL_EXPANDER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/module.h"

namespace xtune {

// Expands custom-call `inst` whose operands are `operands` (already in
// `out`): appends the fusions to `out`, their computations to `module`,
// and returns the value standing for the custom-call (D, or the tuple of
// its results). Errors as ReadGemmCall. A cuDNN convolution call
// (ir/conv_call.h) becomes plain instructions in `out` (its convolution and
// epilogue, which the fusion pass fuses like any), and zeros for its
// scratch; errors as ReadConvCall.
absl::StatusOr<Instruction*> ExpandLibraryCall(
    const Instruction& inst, const std::vector<Instruction*>& operands,
    const std::string& prefix, Computation* out, Module* module);

}  // namespace xtune

#endif  // XTUNE_FUSION_LIBRARY_CALL_EXPANDER_H_
