// `xtune devices`: every registered backend, whether it is available here
// (and why not), and the exact device string its cache keys use.
#ifndef XTUNE_TOOLS_DEVICES_COMMAND_H_
#define XTUNE_TOOLS_DEVICES_COMMAND_H_

#include <string>
#include <vector>

namespace xtune {

extern const char kDevicesHelp[];

// Exit 0 when at least one backend is available, 1 otherwise.
int DevicesCommand(const std::vector<std::string>& argv);

}  // namespace xtune

#endif  // XTUNE_TOOLS_DEVICES_COMMAND_H_
