// The parser's file entry point (text or XLA's binary module, see
// ir/hlo_proto_text.h) and the values it fills elided constants with.
#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "ir/hlo_proto_text.h"
#include "ir/parser.h"
#include "util/file.h"
#include "util/status_macros.h"

namespace xtune {

absl::StatusOr<std::unique_ptr<Module>> ParseModuleFile(
    const std::string& path, const ParseOptions& options) {
  XTUNE_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  if (LooksLikeHloProto(text, path)) {
    // XLA's binary module: read through its HLO text (error positions are
    // in that text, which `xtune fuse` prints).
    XTUNE_ASSIGN_OR_RETURN(std::string converted, HloProtoToText(text, path));
    return ParseModule(converted, absl::StrCat(path, " (as HLO text)"), options);
  }
  return ParseModule(text, path, options);
}

Literal FillElidedConstant(const Shape& shape, absl::string_view name) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a of the name
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  Literal lit(shape);
  for (int64_t i = 0; i < lit.element_count(); ++i) {
    uint64_t x = h + static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 31)) * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    if (IsFloat(shape.dtype())) {
      lit.SetDouble(i, static_cast<double>(x % 2048) / 1024.0 - 1.0);
    } else if (shape.dtype() == DType::kPred) {
      lit.SetInt(i, i % 2);
    } else {
      lit.SetInt(i, static_cast<int64_t>(x % 8));
    }
  }
  return lit;
}

}  // namespace xtune
