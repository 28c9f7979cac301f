#include "ir/dot_precision.h"

#include <cstring>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "ir/library_call.h"

namespace xtune {

namespace {

// Whether an operand_precision value ("{default,highest}") is all DEFAULT.
bool AllDefault(absl::string_view precision) {
  absl::string_view v = absl::StripAsciiWhitespace(precision);
  absl::ConsumePrefix(&v, "{");
  absl::ConsumeSuffix(&v, "}");
  for (absl::string_view p : absl::StrSplit(v, ',')) {
    std::string level = absl::AsciiStrToLower(absl::StripAsciiWhitespace(p));
    if (level != "default" && !level.empty()) return false;
  }
  return true;
}

bool F32Operands(const Instruction& inst) {
  return inst.operand_count() >= 2 &&
         inst.operand(0)->shape().dtype() == DType::kF32 &&
         inst.operand(1)->shape().dtype() == DType::kF32;
}

}  // namespace

bool DotAllowsTf32(const Instruction& dot) {
  if (dot.opcode() != Opcode::kDot || dot.operand_count() != 2) return false;
  if (!F32Operands(dot)) return false;
  for (const RawAttribute& a : dot.attrs().other) {
    if (a.name == "algorithm") return false;
    if (a.name == "operand_precision" && !AllDefault(a.value)) return false;
  }
  return true;
}

bool LibraryCallAllowsTf32(const Instruction& call) {
  if (call.opcode() != Opcode::kCustomCall || !F32Operands(call)) return false;
  absl::StatusOr<GemmCall> gemm = ReadGemmCall(call);
  return gemm.ok() && gemm->algorithm.empty() &&
         AllDefault(gemm->operand_precision);
}

bool AnyDotAllowsTf32(const Module& module) {
  for (const auto& c : module.computations()) {
    for (const auto& inst : c->instructions()) {
      if (DotAllowsTf32(*inst) || LibraryCallAllowsTf32(*inst)) return true;
    }
  }
  return false;
}

float RoundToTf32(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  if ((bits & 0x7f800000u) != 0x7f800000u) {  // finite: round the magnitude
    bits = (bits + 0x1000u) & 0xffffe000u;
  }
  float out;
  std::memcpy(&out, &bits, 4);
  return out;
}

}  // namespace xtune
