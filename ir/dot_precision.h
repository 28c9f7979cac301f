// What precision a dot asks for, as XLA reads its attributes on GPUs from
// Ampere on: an f32 x f32 dot whose operand_precision is DEFAULT for both
// operands (or absent) and which names no `algorithm` may run on tensor
// cores in TF32 (XLA's Triton emitter and cuBLAS both do, unless told
// otherwise); HIGH, HIGHEST or any algorithm (dot_f32_f32_f32, the bf16
// multi-pass ones) keeps f32 products.
#ifndef XTUNE_IR_DOT_PRECISION_H_
#define XTUNE_IR_DOT_PRECISION_H_

#include <cstdint>

#include "ir/instruction.h"
#include "ir/module.h"

namespace xtune {

// True for a dot (opcode kDot) that allows TF32 products as above.
bool DotAllowsTf32(const Instruction& dot);

// The same for a library gemm custom-call (ir/library_call.h) on f32
// operands whose config asks for DEFAULT precision (cuBLAS runs it in TF32
// when XLA allows it).
bool LibraryCallAllowsTf32(const Instruction& call);

// Whether any computation of `module` has such a dot or library call.
bool AnyDotAllowsTf32(const Module& module);

// The f32 tolerance of a comparison whose computation ran TF32 dots: ten
// TF32 ulps (2^-10 each), since one ulp of an operand that rounds the
// other way grows through the layers after it (a layer norm divides by a
// small spread). XLA's GPU tests loosen their error specs likewise.
inline constexpr double kTf32Tolerance = 1e-2;

// An f32 value rounded to TF32 (10 explicit mantissa bits), to nearest with
// ties away from zero as cvt.rna.tf32.f32 does; infinities and NaN kept.
float RoundToTf32(float v);

}  // namespace xtune

#endif  // XTUNE_IR_DOT_PRECISION_H_
