// `xtune compile`: fuse and autotune a module, print what was chosen.
#ifndef XTUNE_TOOLS_COMPILE_COMMAND_H_
#define XTUNE_TOOLS_COMPILE_COMMAND_H_

#include <string>
#include <vector>

namespace xtune {

extern const char kCompileHelp[];

// Runs the command with its arguments (after "compile"); returns the exit
// code.
int CompileCommand(const std::vector<std::string>& args);

}  // namespace xtune

#endif  // XTUNE_TOOLS_COMPILE_COMMAND_H_
