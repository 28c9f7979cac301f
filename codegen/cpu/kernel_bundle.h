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
//   #define xtune_kernel xtune_kernel_b0   (each exported symbol)
//   #line 1                               (__LINE__ as in the source)
//   <source 0>
//   #undef xtune_kernel
//   #undef <each macro source 0 defines>
//   }  // namespace xt_bundle_0
//   ...
//
// A source fit for a bundle (what the CPU backend and the CUDA emulator
// generate) exports its entry points as extern "C" `symbols`, defines its
// macros with `#define`
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

// What the symbols of entry `index` have appended in a bundle: "_b<index>".
std::string BundleSuffix(size_t index);

// The names the `#define` lines of `source` define, in order, each once.
std::vector<std::string> DefinedMacros(absl::string_view source);

// The bundle of `sources` (at least one) as above, each exporting each of
// `symbols` (C identifiers) as symbol + BundleSuffix(i). `prologue` (may
// be empty) goes first, outside every namespace. Deterministic: the same
// arguments give the same text, so bundles are cached by content like any
// source.
std::string BundleText(absl::string_view prologue,
                       absl::Span<const std::string> sources,
                       absl::Span<const std::string> symbols);

}  // namespace xtune::cpu

#endif  // XTUNE_CODEGEN_CPU_KERNEL_BUNDLE_H_
