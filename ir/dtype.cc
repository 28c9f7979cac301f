#include "ir/dtype.h"

#include "util/float_formats.h"

namespace xtune {
namespace {

struct DTypeInfo {
  DType type;
  absl::string_view name;
  int64_t bytes;
};

constexpr DTypeInfo kDTypes[] = {
    {DType::kPred, "pred", 1}, {DType::kS8, "s8", 1},
    {DType::kS32, "s32", 4},   {DType::kS64, "s64", 8},
    {DType::kU8, "u8", 1},     {DType::kU32, "u32", 4},
    {DType::kS16, "s16", 2},   {DType::kU16, "u16", 2}, {DType::kU64, "u64", 8},
    {DType::kF16, "f16", 2},   {DType::kBF16, "bf16", 2},
    {DType::kF32, "f32", 4},   {DType::kF64, "f64", 8},
    {DType::kF8E4M3FN, "f8e4m3fn", 1}, {DType::kF8E5M2, "f8e5m2", 1},
    {DType::kF8E4M3FNUZ, "f8e4m3fnuz", 1},
    {DType::kF8E5M2FNUZ, "f8e5m2fnuz", 1},
    {DType::kF8E4M3B11FNUZ, "f8e4m3b11fnuz", 1},
};

}  // namespace

absl::string_view DTypeName(DType t) {
  for (const DTypeInfo& info : kDTypes) {
    if (info.type == t) return info.name;
  }
  return "tuple";
}

std::optional<DType> DTypeFromName(absl::string_view name) {
  for (const DTypeInfo& info : kDTypes) {
    if (info.name == name) return info.type;
  }
  return std::nullopt;
}

int64_t DTypeByteSize(DType t) {
  for (const DTypeInfo& info : kDTypes) {
    if (info.type == t) return info.bytes;
  }
  return 0;
}

bool IsFloat(DType t) {
  return t == DType::kF16 || t == DType::kBF16 || t == DType::kF32 ||
         t == DType::kF64 || IsFp8(t);
}

bool IsFp8(DType t) { return Fp8FormatOf(t).has_value(); }

std::optional<Fp8Format> Fp8FormatOf(DType t) {
  switch (t) {
    case DType::kF8E4M3FN: return kF8E4M3FN;
    case DType::kF8E5M2: return kF8E5M2;
    case DType::kF8E4M3FNUZ: return kF8E4M3FNUZ;
    case DType::kF8E5M2FNUZ: return kF8E5M2FNUZ;
    case DType::kF8E4M3B11FNUZ: return kF8E4M3B11FNUZ;
    default: return std::nullopt;
  }
}

bool IsInteger(DType t) {
  return t == DType::kS8 || t == DType::kS32 || t == DType::kS64 ||
         t == DType::kU8 || t == DType::kU32 || t == DType::kS16 ||
         t == DType::kU16 || t == DType::kU64;
}

bool IsSigned(DType t) {
  return t == DType::kS8 || t == DType::kS16 || t == DType::kS32 ||
         t == DType::kS64 || IsFloat(t);
}

bool IsUnsigned(DType t) {
  return t == DType::kU8 || t == DType::kU16 || t == DType::kU32 ||
         t == DType::kU64;
}

double RoundToDType(double v, DType t) {
  switch (t) {
    case DType::kF16:
      return RoundToF16(v);
    case DType::kBF16:
      return RoundToBF16(v);
    case DType::kF32:
      return RoundToF32(v);
    default:
      if (std::optional<Fp8Format> f = Fp8FormatOf(t)) return RoundToFp8(v, *f);
      return v;
  }
}

int64_t WrapToDType(int64_t v, DType t) {
  switch (t) {
    case DType::kPred:
      return v != 0 ? 1 : 0;
    case DType::kS8:
      return static_cast<int8_t>(v);
    case DType::kS32:
      return static_cast<int32_t>(v);
    case DType::kU8:
      return static_cast<uint8_t>(v);
    case DType::kS16:
      return static_cast<int16_t>(v);
    case DType::kU16:
      return static_cast<uint16_t>(v);
    case DType::kU32:
      return static_cast<uint32_t>(v);
    default:
      return v;
  }
}

}  // namespace xtune
