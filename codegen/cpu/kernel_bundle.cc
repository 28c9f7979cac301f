#include "codegen/cpu/kernel_bundle.h"

#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace xtune::cpu {
namespace {

bool IsIdentifierChar(char c) { return absl::ascii_isalnum(c) || c == '_'; }

}  // namespace

std::string BundleSuffix(size_t index) { return absl::StrCat("_b", index); }

std::vector<std::string> DefinedMacros(absl::string_view source) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  bool continued = false;  // the previous line ended in a backslash
  for (absl::string_view line : absl::StrSplit(source, '\n')) {
    const bool this_continued = continued;
    continued = !line.empty() && line.back() == '\\';
    if (this_continued) continue;  // the body of a multi-line macro
    absl::string_view rest = absl::StripLeadingAsciiWhitespace(line);
    if (!absl::ConsumePrefix(&rest, "#")) continue;
    rest = absl::StripLeadingAsciiWhitespace(rest);
    if (!absl::ConsumePrefix(&rest, "define")) continue;
    if (rest.empty() || !absl::ascii_isspace(rest.front())) continue;
    rest = absl::StripLeadingAsciiWhitespace(rest);
    size_t n = 0;
    while (n < rest.size() && IsIdentifierChar(rest[n])) ++n;
    if (n == 0) continue;
    std::string name(rest.substr(0, n));
    if (seen.insert(name).second) names.push_back(std::move(name));
  }
  return names;
}

std::string BundleText(absl::string_view prologue,
                       absl::Span<const std::string> sources,
                       absl::Span<const std::string> symbols) {
  std::string text =
      absl::StrCat("// xtune bundle of ", sources.size(), " kernel sources\n");
  if (!prologue.empty()) {
    absl::StrAppend(&text, prologue, prologue.back() == '\n' ? "" : "\n");
  }
  for (size_t i = 0; i < sources.size(); ++i) {
    const std::string& source = sources[i];
    absl::StrAppend(&text, "namespace xt_bundle_", i, " {\n");
    for (const std::string& symbol : symbols) {
      absl::StrAppend(&text, "#define ", symbol, " ", symbol, BundleSuffix(i), "\n");
    }
    absl::StrAppend(&text, "#line 1\n", source,
                    source.empty() || source.back() == '\n' ? "" : "\n");
    for (const std::string& symbol : symbols) {
      absl::StrAppend(&text, "#undef ", symbol, "\n");
    }
    for (const std::string& macro : DefinedMacros(source)) {
      absl::StrAppend(&text, "#undef ", macro, "\n");
    }
    absl::StrAppend(&text, "}  // namespace xt_bundle_", i, "\n");
  }
  return text;
}

}  // namespace xtune::cpu
