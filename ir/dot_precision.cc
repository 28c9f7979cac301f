#include "ir/dot_precision.h"

#include <cstring>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace xtune {

bool DotAllowsTf32(const Instruction& dot) {
  if (dot.opcode() != Opcode::kDot || dot.operand_count() != 2) return false;
  if (dot.operand(0)->shape().dtype() != DType::kF32 ||
      dot.operand(1)->shape().dtype() != DType::kF32) {
    return false;
  }
  for (const RawAttribute& a : dot.attrs().other) {
    if (a.name == "algorithm") return false;
    if (a.name != "operand_precision") continue;
    absl::string_view v = absl::StripAsciiWhitespace(a.value);
    absl::ConsumePrefix(&v, "{");
    absl::ConsumeSuffix(&v, "}");
    for (absl::string_view p : absl::StrSplit(v, ',')) {
      std::string level = absl::AsciiStrToLower(absl::StripAsciiWhitespace(p));
      if (level != "default" && !level.empty()) return false;
    }
  }
  return true;
}

bool AnyDotAllowsTf32(const Module& module) {
  for (const auto& c : module.computations()) {
    for (const auto& inst : c->instructions()) {
      if (DotAllowsTf32(*inst)) return true;
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
