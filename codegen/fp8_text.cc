#include "codegen/kernel_text.h"

#include "absl/strings/str_cat.h"

namespace xtune {

std::string Fp8Call(const char* helper, const std::string& value, DType t) {
  const Fp8Format f = Fp8FormatOf(t).value_or(kF8E4M3FN);
  const int kind = f.kind == Fp8Format::Kind::kIeee  ? 0
                   : f.kind == Fp8Format::Kind::kFn ? 1
                                                     : 2;
  return absl::StrCat(helper, "(", value, ", ", f.exponent_bits, ", ",
                      f.mantissa_bits, ", ", f.bias, ", ", kind, ")");
}

}  // namespace xtune
