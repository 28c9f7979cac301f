// `xtune fuse`: print a module after the fusion pass (what each kernel will
// compute). Used to regenerate the fusion golden files.
#ifndef XTUNE_TOOLS_FUSE_COMMAND_H_
#define XTUNE_TOOLS_FUSE_COMMAND_H_

#include <string>
#include <vector>

namespace xtune {

extern const char kFuseHelp[];

// Runs the command with its arguments (after "fuse"); returns the exit code.
int FuseCommand(const std::vector<std::string>& args);

}  // namespace xtune

#endif  // XTUNE_TOOLS_FUSE_COMMAND_H_
