#include "tools/compile_pipeline.h"

#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "util/status_macros.h"

namespace xtune {

absl::StatusOr<XlaFlags> ReadXlaFlags(const ParsedArgs& args) {
  XlaFlags flags;
  XTUNE_RETURN_IF_ERROR(ApplyXlaFlagsFromEnvironment(&flags));
  for (const ParsedArgs::XlaFlag& f : args.xla) {
    absl::Status s = ApplyXlaFlag(f.name, f.value, f.has_value, &flags);
    if (s.code() == absl::StatusCode::kNotFound) {
      return absl::InvalidArgumentError(
          absl::StrCat(s.message(), " (known: --",
                       absl::StrJoin(KnownXlaFlags(), ", --"), ")"));
    }
    XTUNE_RETURN_IF_ERROR(s);
  }
  flags.autotune.progress = isatty(STDERR_FILENO) != 0;
  return flags;
}

std::vector<std::string> ConfigSpecs(const ParsedArgs& args) {
  auto it = args.flags.find("config");
  if (it == args.flags.end()) return {};
  return it->second;
}

}  // namespace xtune
