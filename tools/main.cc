// The xtune command-line tool. See `xtune --help`.
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "tools/cache_command.h"
#include "tools/compile_command.h"
#include "tools/devices_command.h"
#include "tools/exit_codes.h"
#include "tools/fuse_command.h"
#include "tools/report_command.h"
#include "tools/run_command.h"

namespace {

constexpr char kHelp[] =
    R"(xtune: a compiler for XLA HLO modules with persistent autotuning

usage: xtune COMMAND [args] [flags]

commands:
  run MODULE.hlo    compute a module and print (or save) its outputs
  compile MODULE.hlo  fuse and autotune a module, print the chosen configs
  fuse MODULE.hlo   print the module after the fusion pass
                    (MODULE: HLO text, or XLA's binary HloProto or
                    HloModuleProto, e.g. a *.hlo.pb dump)
  devices           the backends, whether each is available here, and the
                    device string of its cache keys
  cache SUBCOMMAND  inspect and maintain autotune cache files (stats, show,
                    convert, merge, diff, prune, explain)
  report CACHE [LOG...] --output=FILE.html
                    one self-contained HTML page: the cache's entries
                    (stale ones flagged) and every tuned fusion's candidates,
                    choice, heatmap and failures
  help [COMMAND]    show help for a command

Run `xtune COMMAND --help` for a command's flags.
exit codes: 0 ok, 1 user error, 2 internal error
)";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << kHelp;
    return xtune::kExitUserError;
  }
  std::string command = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "--help" || command == "-h") {
    std::cout << kHelp;
    return xtune::kExitOk;
  }
  if (command == "help") {
    if (rest.empty()) {
      std::cout << kHelp;
      return xtune::kExitOk;
    }
    if (rest[0] == "run") {
      std::cout << xtune::kRunHelp;
      return xtune::kExitOk;
    }
    if (rest[0] == "compile") {
      std::cout << xtune::kCompileHelp;
      return xtune::kExitOk;
    }
    if (rest[0] == "cache") {
      std::cout << xtune::kCacheHelp;
      return xtune::kExitOk;
    }
    if (rest[0] == "devices") {
      std::cout << xtune::kDevicesHelp;
      return xtune::kExitOk;
    }
    if (rest[0] == "report") {
      std::cout << xtune::kReportHelp;
      return xtune::kExitOk;
    }
    if (rest[0] == "fuse") {
      std::cout << xtune::kFuseHelp;
      return xtune::kExitOk;
    }
    std::cerr << "xtune: unknown command '" << rest[0] << "'\n";
    return xtune::kExitUserError;
  }
  int (*run)(const std::vector<std::string>&) = nullptr;
  if (command == "run") run = xtune::RunCommand;
  if (command == "fuse") run = xtune::FuseCommand;
  if (command == "compile") run = xtune::CompileCommand;
  if (command == "cache") run = xtune::CacheCommand;
  if (command == "report") run = xtune::ReportCommand;
  if (command == "devices") run = xtune::DevicesCommand;
  if (run == nullptr) {
    std::cerr << "xtune: unknown command '" << command << "' (see xtune --help)\n";
    return xtune::kExitUserError;
  }
  try {
    return run(rest);
  } catch (const std::bad_alloc&) {
    // A module too large for this machine's memory (or the address-space
    // limit it runs under): the user's input, not a crash.
    std::cerr << "xtune " << command
              << ": out of memory: the input is too large for the memory this process may use "
                 "(see ulimit -v)\n";
    return xtune::kExitUserError;
  }
}
