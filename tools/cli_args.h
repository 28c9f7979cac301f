// Command-line parsing for the xtune CLI (the only place that parses command
// lines). Flags are `--name=value`, `--name value`, or `--name` for
// booleans; `--` ends flags. Unknown flags are errors.
#ifndef XTUNE_TOOLS_CLI_ARGS_H_
#define XTUNE_TOOLS_CLI_ARGS_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace xtune {

struct FlagSpec {
  std::string name;       // without dashes
  bool takes_value;       // false: boolean switch
  bool repeated = false;  // may appear several times (e.g. --input)
};

struct ParsedArgs {
  std::vector<std::string> positional;
  std::map<std::string, std::vector<std::string>> flags;
  // --xla_* flags, in order: (name, value, whether a value was given).
  struct XlaFlag {
    std::string name;
    std::string value;
    bool has_value;
  };
  std::vector<XlaFlag> xla;

  bool Has(const std::string& name) const { return flags.count(name) > 0; }
  // The last value of `name`, or `fallback`.
  std::string Get(const std::string& name, const std::string& fallback) const;
};

// Parses args (without the program and command names). Flags starting with
// --xla_ are collected in ParsedArgs::xla for compiler/xla_flags.h to check.
// InvalidArgument on an unknown flag, a missing value, a repeated
// single-valued flag, or a value given to a boolean.
absl::StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>& args,
                                     const std::vector<FlagSpec>& specs);

}  // namespace xtune

#endif  // XTUNE_TOOLS_CLI_ARGS_H_
