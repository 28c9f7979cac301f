// The CLI's side of compiling: XLA's flags from XLA_FLAGS and the command
// line (compiler/compile.h does the rest).
#ifndef XTUNE_TOOLS_COMPILE_PIPELINE_H_
#define XTUNE_TOOLS_COMPILE_PIPELINE_H_

#include "absl/status/statusor.h"
#include "compiler/compile.h"
#include "compiler/xla_flags.h"
#include "tools/cli_args.h"

namespace xtune {

// XLA_FLAGS (warnings printed to stderr), then the command line's --xla_*
// and --xtune_* flags, which win. Errors: InvalidArgument for bad values or
// unknown flags on the command line.
absl::StatusOr<XlaFlags> ReadXlaFlags(const ParsedArgs& args);

// The values of the repeated --config flag.
std::vector<std::string> ConfigSpecs(const ParsedArgs& args);

// The backend --backend names (default "cpu"), made through the registry
// with the options `flags` imply. Errors: unknown name (listing the
// registered ones), unavailable backend (with the reason).
absl::StatusOr<std::unique_ptr<Backend>> BackendFromArgs(
    const ParsedArgs& args, const XlaFlags& flags);

}  // namespace xtune

#endif  // XTUNE_TOOLS_COMPILE_PIPELINE_H_
