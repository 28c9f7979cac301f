// `xtune run`: parse a module, feed it inputs, compute it on a backend,
// print a summary of each output and optionally write them as .npy files.
#ifndef XTUNE_TOOLS_RUN_COMMAND_H_
#define XTUNE_TOOLS_RUN_COMMAND_H_

#include <string>
#include <vector>

namespace xtune {

extern const char kRunHelp[];

// Runs the command with its arguments (after "run"); returns the exit code.
// Output goes to stdout, errors to stderr.
int RunCommand(const std::vector<std::string>& args);

}  // namespace xtune

#endif  // XTUNE_TOOLS_RUN_COMMAND_H_
