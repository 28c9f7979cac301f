#include "tools/fuse_command.h"

#include <iostream>

#include "fusion/fusion_pass.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "tools/cli_args.h"
#include "tools/exit_codes.h"
#include "util/file.h"
#include "util/status_macros.h"

namespace xtune {

const char kFuseHelp[] = R"(usage: xtune fuse MODULE.hlo [--output=FILE]

Runs the fusion pass and prints the fused module: an entry computation of
parameters, constants, tuples and fusion instructions (gemm_fusion: a dot
with operand producers and epilogue; reduce_fusion: reductions with their
producers and row epilogues; loop_fusion: the rest), and one fused
computation per fusion.

flags:
  --output=FILE   write the text to FILE (atomically) instead of stdout
  --help          this text
)";

namespace {

absl::Status Fuse(const ParsedArgs& args) {
  if (args.positional.size() != 1) {
    return absl::InvalidArgumentError(
        "fuse takes exactly one module file (see xtune fuse --help)");
  }
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Module> module,
                         ParseModuleFile(args.positional[0]));
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Module> fused, FuseModule(*module));
  std::string text = ToString(*fused);
  std::string output = args.Get("output", "");
  if (output.empty()) {
    std::cout << text;
    return absl::OkStatus();
  }
  return WriteFileAtomically(output, text);
}

}  // namespace

int FuseCommand(const std::vector<std::string>& argv) {
  absl::StatusOr<ParsedArgs> args =
      ParseArgs(argv, {{"output", true}, {"help", false}});
  if (args.ok() && args->Has("help")) {
    std::cout << kFuseHelp;
    return kExitOk;
  }
  absl::Status status = args.ok() ? Fuse(*args) : args.status();
  if (!status.ok()) std::cerr << "xtune fuse: " << status.message() << "\n";
  return ExitCodeFor(status);
}

}  // namespace xtune
