// `xtune cache`: inspect and maintain autotuning result files.
#ifndef XTUNE_TOOLS_CACHE_COMMAND_H_
#define XTUNE_TOOLS_CACHE_COMMAND_H_

#include <string>
#include <vector>

namespace xtune {

extern const char kCacheHelp[];

// argv: the arguments after "cache". Returns the exit code.
int CacheCommand(const std::vector<std::string>& argv);

}  // namespace xtune

#endif  // XTUNE_TOOLS_CACHE_COMMAND_H_
