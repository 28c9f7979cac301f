// Element types of the HLO subset xtune supports, with their HLO spellings.
#ifndef XTUNE_IR_DTYPE_H_
#define XTUNE_IR_DTYPE_H_

#include <cstdint>
#include <optional>
#include "absl/strings/string_view.h"

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
  kTuple,  // not an element type: the type of a tuple shape
};

// "f32", "bf16", ... as HLO text spells them; "tuple" for kTuple.
absl::string_view DTypeName(DType t);

// Parses an HLO element type name; nullopt when it is not one of the subset.
std::optional<DType> DTypeFromName(absl::string_view name);

// Size of one element in bytes (pred is one byte). 0 for kTuple.
int64_t DTypeByteSize(DType t);

bool IsFloat(DType t);     // f16 bf16 f32 f64
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
