// Several generated kernel sources as one translation unit.
//
// Most of a small kernel's compile is the compiler's start: loading the
// precompiled headers, setting up the passes, linking the shared object
// (measured on the model of bench/tuning_cost: 4 gemm candidates 0.84 s one
// by one, 0.62 s as one unit; 8 loop and reduction candidates 1.00 s
// against 0.60 s). So the candidates of one fusion compile as one unit, a
// *bundle*, where each source keeps its own names:
//
//   // xtune bundle of N kernel sources
//   <prologue>                        the sources' system headers, first
//   namespace xt_bundle_0 {
//   #define xtune_kernel xtune_kernel_b0
//   <source 0>
//   #undef xtune_kernel
//   #undef <each macro source 0 defines>
//   }  // namespace xt_bundle_0
//   ...
//
// A source fit for a bundle (what the CPU backend generates) exports its
// entry point as extern "C" `symbol`, defines its macros with `#define`
// lines, and includes only headers that the prologue includes first (they
// are then no-ops inside the namespace, by their include guards). A bundle
// of sources that are not fit fails to compile; HostCompiler::LoadKernels
// then compiles them one by one, so unfit sources cost time, never results.
#ifndef XTUNE_CODEGEN_CPU_KERNEL_BUNDLE_H_
#define XTUNE_CODEGEN_CPU_KERNEL_BUNDLE_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace xtune::cpu {

// The name entry `index`'s `symbol` has in a bundle: "<symbol>_b<index>".
std::string BundledSymbol(absl::string_view symbol, size_t index);

// The names the `#define` lines of `source` define, in order, each once.
std::vector<std::string> DefinedMacros(absl::string_view source);

// The bundle of `sources` (at least one) as above, each exporting `symbol`
// (a C identifier) as BundledSymbol(symbol, i). `prologue` (may be empty)
// goes first, outside every namespace. Deterministic: the same arguments
// give the same text, so bundles are cached by content like any source.
std::string BundleText(absl::string_view prologue,
                       absl::Span<const std::string> sources,
                       absl::string_view symbol);

}  // namespace xtune::cpu

#endif  // XTUNE_CODEGEN_CPU_KERNEL_BUNDLE_H_
