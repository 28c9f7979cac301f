#include "tools/devices_command.h"

#include <iostream>

#include "codegen/registry.h"
#include "tools/cli_args.h"
#include "tools/exit_codes.h"

namespace xtune {

const char kDevicesHelp[] = R"(usage: xtune devices

Lists every registered backend (the names --backend takes), whether it can
run on this machine (and the reason when it cannot), and the device string
its autotune cache keys use: an entry of a cache file applies here only when
its device is exactly this string (`xtune cache stats` counts entries by
device).

flags:
  --help   this text

exit codes: 0 when at least one backend is available, 1 otherwise
)";

int DevicesCommand(const std::vector<std::string>& argv) {
  absl::StatusOr<ParsedArgs> args = ParseArgs(argv, {{"help", false}});
  if (!args.ok()) {
    std::cerr << "xtune devices: " << args.status().message() << "\n";
    return kExitUserError;
  }
  if (args->Has("help")) {
    std::cout << kDevicesHelp;
    return kExitOk;
  }
  if (!args->positional.empty()) {
    std::cerr << "xtune devices: takes no arguments\n";
    return kExitUserError;
  }
  int available = 0;
  for (const RegisteredBackend& b : RegisteredBackends()) {
    std::cout << b.name << ": " << b.description << "\n";
    absl::StatusOr<std::unique_ptr<Backend>> backend = CreateBackend(b.name);
    if (backend.ok()) {
      ++available;
      std::cout << "  available\n  device: " << (*backend)->DeviceDescription()
                << "\n";
    } else {
      // The registry prefixes the reason with the name, printed above.
      std::string why(backend.status().message());
      if (why.rfind(b.name + ": ", 0) == 0) why = why.substr(b.name.size() + 2);
      std::cout << "  unavailable: " << why << "\n";
    }
  }
  return available > 0 ? kExitOk : kExitUserError;
}

}  // namespace xtune
