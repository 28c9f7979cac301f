// Convolutions as gemms: the flatten pass rewrites a convolution with
// feature groups whose contraction is deep enough (kernel positions x input
// features per group >= kConvAsDotMinDepth) into im2col + a dot batched
// over the groups, so the tuned gemm kernels of every backend compute it
// (the CPU's packed micro-kernels, the CUDA Triton-style gemm on tensor
// cores, cuBLASLt):
//   1. the input, transposed to [batch, spatial..., features], padded (and
//      dilated by lhs_dilate) with zeros;
//   2. one strided slice of it per kernel position (rhs_dilate apart),
//      concatenated: [batch, out spatial..., K x C];
//   3. the kernel (reversed where rhs_reversal) as [G, K x C/G, O/G];
//   4. a dot batched over the groups, then the output's layout.
// Only grouped ones take this route: an ungrouped one stays one convolution
// instruction, the core of a conv fusion (FusionKind::kConv), which every
// backend computes as an implicit gemm (codegen/cpu/gemm_analysis.h: the
// patches are read where the gemm's loader needs them, never written).
// Shallow ones (depthwise, a 1x1 kernel over few features), batch groups,
// negative padding and integer types stay one convolution instruction,
// which the loop kernels compute directly (codegen/cpu/elemental_window.cc).
// An f32 convolution without an operand_precision becomes a dot at
// HIGHEST precision: the convolution's exact f32 products, not TF32.
#ifndef XTUNE_FUSION_CONV_AS_DOT_H_
#define XTUNE_FUSION_CONV_AS_DOT_H_

#include <string>

#include "fusion/hlo_builder.h"
#include "ir/instruction.h"

namespace xtune {

inline constexpr int64_t kConvAsDotMinDepth = 16;

// Whether a gemm pays for this convolution: its contraction is deep enough,
// float, without batch groups or negative padding.
bool ConvolutionAsGemmPays(const Shape& lhs, const Shape& rhs, const InstructionAttrs& attrs,
                           const Shape& out);

// Whether the fusion planner makes this convolution the core of a conv
// fusion, computed as an implicit gemm: a gemm pays and it has one feature
// group.
bool ConvolutionIsImplicitGemm(const Instruction& conv);

// Whether BuildConvolution makes a dot of this convolution: a gemm pays and
// it has feature groups (a batched dot over the groups).
bool ConvolutionAsDotPays(const Shape& lhs, const Shape& rhs, const InstructionAttrs& attrs,
                          const Shape& out);

// The convolution of `lhs` and `rhs` with `attrs`' window, dimension labels
// and groups (and its raw operand_precision), returning `out`: im2col +
// dot when that pays, else a convolution instruction.
Instruction* BuildConvolution(HloBuilder& b, Instruction* lhs, Instruction* rhs,
                              const InstructionAttrs& attrs, const Shape& out);

}  // namespace xtune

#endif  // XTUNE_FUSION_CONV_AS_DOT_H_
