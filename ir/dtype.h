// Element types of the HLO subset xtune supports, with their HLO spellings.
#ifndef XTUNE_IR_DTYPE_H_
#define XTUNE_IR_DTYPE_H_

#include <cstdint>
#include <optional>
#include "absl/strings/string_view.h"
#include "util/float_formats.h"

namespace xtune {

enum class DType {
  kPred,
  kS8,
  kS32,
  kS64,
  kU8,
  kU32,
  kS16,
  kU16,
  kU64,  // carried as int64_t bit patterns: unsigned where it matters
  kF16,
  kBF16,
  kF32,
  kF64,
  // 8-bit floats (ml_dtypes' formats, util/float_formats.h): stored as one
  // byte, computed in f32 like f16/bf16.
  kF8E4M3FN,
  kF8E5M2,
  kF8E4M3FNUZ,
  kF8E5M2FNUZ,
  kF8E4M3B11FNUZ,
  kTuple,  // not an element type: the type of a tuple shape
};

// "f32", "bf16", ... as HLO text spells them; "tuple" for kTuple.
absl::string_view DTypeName(DType t);

// Parses an HLO element type name; nullopt when it is not one of the subset.
std::optional<DType> DTypeFromName(absl::string_view name);

// Size of one element in bytes (pred is one byte). 0 for kTuple.
int64_t DTypeByteSize(DType t);

bool IsFloat(DType t);     // f16 bf16 f32 f64 and the 8-bit floats
bool IsFp8(DType t);       // f8e4m3fn f8e5m2 f8e4m3fnuz f8e5m2fnuz f8e4m3b11fnuz
// The format of an 8-bit float type; nullopt for other types.
std::optional<Fp8Format> Fp8FormatOf(DType t);
bool IsInteger(DType t);   // s8 s16 s32 s64 u8 u16 u32 (not pred)
bool IsSigned(DType t);    // s8 s16 s32 s64 and the floats
bool IsUnsigned(DType t);  // u8 u16 u32

// Rounds `v` to the nearest value of float type `t` (round to nearest even;
// identity for f64 and non-float types).
double RoundToDType(double v, DType t);

// Wraps `v` to integer type `t` as two's complement; pred becomes 0 or 1.
// Identity for s64 and non-integer types.
int64_t WrapToDType(int64_t v, DType t);

}  // namespace xtune

#endif  // XTUNE_IR_DTYPE_H_
