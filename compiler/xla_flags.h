// XLA's flags, in XLA's spelling, read from the XLA_FLAGS environment
// variable and from the command line (the command line wins). The only
// place that turns flag text into options.
//
// XLA_FLAGS is shared with other XLA programs: unknown flags there are
// warned about and ignored. Unknown --xla_* flags on the command line are
// errors. Values: --flag=value; booleans also --flag (true), =true/false/1/0.
// In XLA_FLAGS a token may be quoted ("..." or '...') to hold spaces.
#ifndef XTUNE_COMPILER_XLA_FLAGS_H_
#define XTUNE_COMPILER_XLA_FLAGS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "autotune/options.h"
#include "cache/persistent.h"

namespace xtune {

// The GPU flags that pick the device to compile for and where kernels go.
struct GpuFlags {
  // --xla_gpu_target_config_filename: an XLA GpuTargetConfigProto text
  // file; compile for that GPU without one. Default "".
  std::string target_config_file;
  // --xtune_gpu_target: a target shipped with xtune (a100, h100, h200,
  // b200, ...). Default "".
  std::string target;
  // --xtune_dump_kernels_to: per fusion .cu, .ptx, .cubin and a manifest
  // line. Default "".
  std::string dump_kernels_to;
};

struct XlaFlags {
  AutotuneOptions autotune;
  PersistentCacheOptions cache;
  GpuFlags gpu;
};

// Applies one flag (name without dashes). NotFound for an unknown name,
// InvalidArgument for a bad value.
absl::Status ApplyXlaFlag(absl::string_view name, absl::string_view value,
                          bool has_value, XlaFlags* flags);

// ApplyXlaFlag for flags a program was given explicitly: an unknown name
// is InvalidArgument listing the known flags.
absl::Status ApplyKnownXlaFlag(absl::string_view name, absl::string_view value,
                               bool has_value, XlaFlags* flags);

// ApplyKnownXlaFlag for each "--name=value" / "--name" in `args` (the C++
// API's flags); anything else is InvalidArgument.
absl::Status ApplyXlaFlagArgs(const std::vector<std::string>& args,
                              XlaFlags* flags);

// Applies every flag in the text of XLA_FLAGS. Unknown flags and stray
// tokens become warnings; bad values of known flags are errors naming the
// variable.
absl::Status ApplyXlaFlagsEnv(absl::string_view env, XlaFlags* flags,
                              std::vector<std::string>* warnings);

// ApplyXlaFlagsEnv on the XLA_FLAGS environment variable, if set; the
// warnings go to stderr.
absl::Status ApplyXlaFlagsFromEnvironment(XlaFlags* flags);

// The names xtune understands (for --help).
std::vector<std::string> KnownXlaFlags();

}  // namespace xtune

#endif  // XTUNE_COMPILER_XLA_FLAGS_H_
