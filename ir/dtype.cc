#include "ir/dtype.h"

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
    {DType::kF16, "f16", 2},   {DType::kBF16, "bf16", 2},
    {DType::kF32, "f32", 4},   {DType::kF64, "f64", 8},
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
         t == DType::kF64;
}

bool IsInteger(DType t) {
  return t == DType::kS8 || t == DType::kS32 || t == DType::kS64 ||
         t == DType::kU8 || t == DType::kU32;
}

bool IsSigned(DType t) {
  return t == DType::kS8 || t == DType::kS32 || t == DType::kS64 || IsFloat(t);
}

bool IsUnsigned(DType t) { return t == DType::kU8 || t == DType::kU32; }

}  // namespace xtune
