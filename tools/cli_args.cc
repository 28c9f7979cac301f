#include "tools/cli_args.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace xtune {

std::string ParsedArgs::Get(const std::string& name,
                            const std::string& fallback) const {
  auto it = flags.find(name);
  return it == flags.end() || it->second.empty() ? fallback : it->second.back();
}

absl::StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>& args,
                                     const std::vector<FlagSpec>& specs) {
  ParsedArgs parsed;
  bool flags_done = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (flags_done || !absl::StartsWith(arg, "-") || arg == "-") {
      parsed.positional.push_back(arg);
      continue;
    }
    if (arg == "--") {
      flags_done = true;
      continue;
    }
    std::string body = arg.substr(absl::StartsWith(arg, "--") ? 2 : 1);
    std::string name = body, value;
    bool has_value = false;
    if (size_t eq = body.find('='); eq != std::string::npos) {
      name = body.substr(0, eq);
      value = body.substr(eq + 1);
      has_value = true;
    }
    if (absl::StartsWith(name, "xla_") || absl::StartsWith(name, "xtune_")) {
      parsed.xla.push_back({name, value, has_value});
      continue;
    }
    const FlagSpec* spec = nullptr;
    for (const FlagSpec& s : specs) {
      if (s.name == name) spec = &s;
    }
    if (spec == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown flag '--", name, "' (see --help)"));
    }
    if (spec->takes_value && !has_value) {
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("flag '--", name, "' needs a value"));
      }
      value = args[++i];
    }
    if (!spec->takes_value) {
      if (has_value && value != "true" && value != "false") {
        return absl::InvalidArgumentError(
            absl::StrCat("flag '--", name, "' is a switch: use --", name,
                         " or --", name, "=true|false"));
      }
      if (!has_value) value = "true";
    }
    std::vector<std::string>& values = parsed.flags[name];
    if (!values.empty() && !spec->repeated) {
      return absl::InvalidArgumentError(
          absl::StrCat("flag '--", name, "' is given more than once"));
    }
    values.push_back(value);
  }
  return parsed;
}

}  // namespace xtune
