#include "tools/compile_pipeline.h"

#include <unistd.h>

#include "util/status_macros.h"

namespace xtune {

absl::StatusOr<XlaFlags> ReadXlaFlags(const ParsedArgs& args) {
  XlaFlags flags;
  XTUNE_RETURN_IF_ERROR(ApplyXlaFlagsFromEnvironment(&flags));
  for (const ParsedArgs::XlaFlag& f : args.xla) {
    XTUNE_RETURN_IF_ERROR(
        ApplyKnownXlaFlag(f.name, f.value, f.has_value, &flags));
  }
  flags.autotune.progress = isatty(STDERR_FILENO) != 0
                                ? AutotuneOptions::ProgressMode::kTerminal
                                : AutotuneOptions::ProgressMode::kLines;
  return flags;
}

std::vector<std::string> ConfigSpecs(const ParsedArgs& args) {
  auto it = args.flags.find("config");
  if (it == args.flags.end()) return {};
  return it->second;
}

absl::StatusOr<std::unique_ptr<Backend>> BackendFromArgs(
    const ParsedArgs& args, const XlaFlags& flags) {
  return CreateBackendFor(args.Get("backend", "cpu"), flags);
}

}  // namespace xtune
