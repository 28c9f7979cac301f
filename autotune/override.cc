#include "autotune/override.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace xtune {

absl::StatusOr<KernelConfig> ApplyGemmOverride(const KernelConfig& base,
                                               absl::string_view text) {
  KernelConfig out = base;
  size_t i = 0;
  auto skip = [&] {
    while (i < text.size() &&
           (absl::ascii_isspace(static_cast<unsigned char>(text[i])) ||
            text[i] == ',' || text[i] == ';' || text[i] == '{' || text[i] == '}')) {
      ++i;
    }
  };
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--xla_gpu_override_gemm_autotuner: ", why, " in '", text, "'"));
  };
  int fields = 0;
  while (true) {
    skip();
    if (i >= text.size()) break;
    size_t start = i;
    while (i < text.size() &&
           (absl::ascii_isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) {
      ++i;
    }
    std::string name(text.substr(start, i - start));
    if (name.empty()) return bad(absl::StrCat("unexpected '", text.substr(i, 1), "'"));
    while (i < text.size() && absl::ascii_isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i >= text.size() || text[i] != ':') {
      return bad(absl::StrCat("expected ':' after '", name, "'"));
    }
    ++i;
    while (i < text.size() && absl::ascii_isspace(static_cast<unsigned char>(text[i]))) ++i;
    start = i;
    while (i < text.size() && (absl::ascii_isalnum(static_cast<unsigned char>(text[i])) ||
                               text[i] == '-')) {
      ++i;
    }
    std::string value(text.substr(start, i - start));
    ++fields;
    if (name == "num_stages" || name == "num_warps" || name == "num_ctas" ||
        name == "is_tma_allowed" || name == "is_warp_specialization_allowed") {
      continue;  // GPU-only fields
    }
    std::string param = name == "block_m"   ? "mc"
                        : name == "block_n" ? "nc"
                        : name == "block_k" ? "kc"
                                            : name;
    int64_t v;
    if (!absl::SimpleAtoi(value, &v)) {
      return bad(absl::StrCat("'", name, "' needs an integer, got '", value, "'"));
    }
    if (!out.Has(param)) {
      return bad(absl::StrCat("'", name, "' is not a field of ", base.kind(),
                              " configs"));
    }
    if (v <= 0 && param != "split_k") {
      return bad(absl::StrCat("'", name, "' must be positive"));
    }
    out.Set(param, v);
  }
  if (fields == 0) return bad("no fields");
  return out;
}

}  // namespace xtune
