// The fusion pass: turns a module into one whose entry computation holds
// only parameters, constants, tuples, get-tuple-elements and `fusion`
// instructions, each calling a fused computation that one kernel computes
// (DESIGN §5):
//
//  - gemm fusion (kind=kCustom, backend kind __triton_gemm): one dot, the
//    cheap producers of each operand (convert, bitcast, reshape, transpose,
//    broadcast, copy) and the elementwise epilogue consuming its result
//    (bias add, scale, activation, convert), with broadcasts of parameters
//    and constants pulled in.
//  - conv fusion (kind=kOutput, XLA's kind for an op's output fusion): one
//    ungrouped convolution deep enough to be a gemm
//    (fusion/conv_as_dot.h's ConvolutionIsImplicitGemm), with the same
//    producers and epilogue as a gemm fusion; the backends compute it as an
//    implicit gemm. Grouped deep ones become im2col + a batched dot first.
//  - reduction fusion (kind=kInput): a reduce with its elementwise
//    producers. A reduce over the minor (row) dimensions also takes its
//    epilogue: elementwise ops on the rows, broadcasts of the row results
//    back over the rows, and further reductions of the same rows — so
//    softmax and layer norm become one fusion each.
//  - scatter fusion (kind=kInput, as XLA's): one scatter, the elementwise
//    producers of its updates and the cheap producers (broadcasts,
//    constants, iotas) of its operand, which the kernel copies into the
//    output before applying the updates.
//  - sort fusion (kind=kInput): one sort or topk with the cheap producers
//    of its operands (argsort's iota). A sort of several operands (or a
//    topk) is used through get-tuple-elements: each one used gets a fusion
//    of its own, `get-tuple-element(sort(...))`, whose kernel sorts and
//    writes that output (the sort is repeated per output used).
//  - loop fusion (kind=kLoop): everything else — elementwise ops, broadcasts,
//    reshapes, transposes, slices, pads, concatenations, dynamic-slice,
//    dynamic-update-slice, gather...
//
// `call`s are inlined first and single-replica all-reduces and opt-barriers
// dropped. The conditions and bodies of `while`s and the branches of
// `conditional`s are fused the same way (their fusions are tuned and cached
// like the entry's: a layer loop's body is one set of keys); the control
// flow itself stays in the computations, around the fusions. Fusion
// instructions already present (XLA's optimized dumps) are kept as they are.
// Every fusion has exactly one output. Thread-safe (no shared state).
#ifndef XTUNE_FUSION_FUSION_PASS_H_
#define XTUNE_FUSION_FUSION_PASS_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/module.h"

namespace xtune {

enum class FusionKind {
  kGemm,       // kCustom, "__triton_gemm": a dot with producers and epilogue
  kReduction,  // kInput: reductions with producers (and row epilogues)
  kLoop,       // kLoop: elementwise and data movement
  kScatter,    // kInput: a scatter with its updates' producers
  kSort,       // kInput: a sort or topk (one of its outputs)
  kConv,       // kOutput: a convolution that is one gemm, with producers and epilogue
};

absl::string_view FusionKindName(FusionKind kind);  // "gemm", ...

// What kind of kernel a fusion instruction needs, from its fused computation
// (a dot makes it gemm, else a convolution that is one gemm makes it conv,
// else a scatter makes it scatter, else a sort or topk makes it sort, else
// a reduce makes it a reduction, else loop), so
// fusions from XLA's dumps classify the same way as xtune's own.
FusionKind ClassifyFusion(const Instruction& fusion);

// Whether the backends compute `fusion` as a convolution, the implicit gemm
// among its kernels: a conv fusion, or XLA's cuDNN convolution call kept
// whole as a library fusion (fusion/library_call_expander.h), whatever its
// depth or groups.
bool IsConvolutionFusion(const Instruction& fusion);

// The fusion instructions of a fused module: the entry's and, recursively,
// those of its whiles' conditions and bodies and its conditionals'
// branches (fused like the entry, once each), in a fixed order. Fusion
// names are unique across the module.
std::vector<const Instruction*> FusionsOf(const Module& fused);
// The fusion named `name` among FusionsOf(fused), or null.
const Instruction* FindFusion(const Module& fused, absl::string_view name);

// Returns the fused module. The input must be verified; the output verifies.
// Errors: InvalidArgument when the module has no entry.
absl::StatusOr<std::unique_ptr<Module>> FuseModule(const Module& module);

}  // namespace xtune

#endif  // XTUNE_FUSION_FUSION_PASS_H_
