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
  --fill_elided_constants
                  fill constants elided as {...} with deterministic values
                  (as xtune run)
  --help          this text
)";

namespace {

absl::Status Fuse(const ParsedArgs& args) {
  if (args.positional.size() != 1) {
    return absl::InvalidArgumentError(
        "fuse takes exactly one module file (see xtune fuse --help)");
  }
  ParseOptions parse_options;
  parse_options.fill_elided_constants =
      args.Has("fill_elided_constants");
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Module> module,
                         ParseModuleFile(args.positional[0], parse_options));
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
      ParseArgs(argv, {{"output", true},
                       {"fill_elided_constants", false},
                       {"help", false}});
  if (args.ok() && args->Has("help")) {
    std::cout << kFuseHelp;
    return kExitOk;
  }
  absl::Status status = args.ok() ? Fuse(*args) : args.status();
  if (!status.ok()) std::cerr << "xtune fuse: " << status.message() << "\n";
  return ExitCodeFor(status);
}

}  // namespace xtune
