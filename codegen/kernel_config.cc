#include "codegen/kernel_config.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace xtune {

int64_t KernelConfig::Get(absl::string_view name, int64_t fallback) const {
  for (const auto& [n, v] : params_) {
    if (n == name) return v;
  }
  return fallback;
}

bool KernelConfig::Has(absl::string_view name) const {
  for (const auto& p : params_) {
    if (p.first == name) return true;
  }
  return false;
}

void KernelConfig::Set(absl::string_view name, int64_t value) {
  for (auto& p : params_) {
    if (p.first == name) {
      p.second = value;
      return;
    }
  }
  params_.emplace_back(std::string(name), value);
}

std::string KernelConfig::ParamsString() const {
  return absl::StrJoin(params_, ",", [](std::string* out, const auto& p) {
    absl::StrAppend(out, p.first, "=", p.second);
  });
}

std::string KernelConfig::ToString() const {
  return absl::StrCat(kind_, ":", ParamsString());
}

bool KernelConfig::operator<(const KernelConfig& other) const {
  if (kind_ != other.kind_) return kind_ < other.kind_;
  return params_ < other.params_;
}

bool KernelConfig::operator==(const KernelConfig& other) const {
  return kind_ == other.kind_ && params_ == other.params_;
}

absl::StatusOr<KernelConfig> ParseKernelConfig(absl::string_view text) {
  const size_t colon = text.find(':');
  if (colon == absl::string_view::npos || colon == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("kernel config '", text, "' has no kind (kind:name=value,...)"));
  }
  KernelConfig config(std::string(text.substr(0, colon)), {});
  for (absl::string_view item :
       absl::StrSplit(text.substr(colon + 1), ',', absl::SkipEmpty())) {
    const size_t eq = item.find('=');
    int64_t value;
    if (eq == absl::string_view::npos || eq == 0 ||
        !absl::SimpleAtoi(item.substr(eq + 1), &value)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "kernel config '", text, "': '", item, "' is not name=integer"));
    }
    config.Set(item.substr(0, eq), value);
  }
  return config;
}

absl::StatusOr<KernelConfig> ApplyOverrides(const KernelConfig& base,
                                            absl::string_view overrides) {
  KernelConfig out = base;
  for (absl::string_view item :
       absl::StrSplit(overrides, ',', absl::SkipWhitespace())) {
    std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(item, absl::MaxSplits('=', 1));
    absl::string_view name = absl::StripAsciiWhitespace(kv.first);
    int64_t value;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(kv.second), &value)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "config value for '", name, "' must be an integer, got '",
          kv.second, "'"));
    }
    if (!base.Has(name)) {
      std::vector<std::string> names;
      for (const auto& p : base.params()) names.push_back(p.first);
      return absl::InvalidArgumentError(absl::StrCat(
          "'", name, "' is not a parameter of ", base.kind(),
          " kernels (they have: ", absl::StrJoin(names, ", "), ")"));
    }
    out.Set(name, value);
  }
  return out;
}

}  // namespace xtune
