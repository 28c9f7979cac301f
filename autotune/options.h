// Options of the autotuner. Plain data: the CLI fills them from XLA's flags
// (compiler/xla_flags.h); library users set them directly. Every field says
// its default and the XLA flag it mirrors.
#ifndef XTUNE_AUTOTUNE_OPTIONS_H_
#define XTUNE_AUTOTUNE_OPTIONS_H_

#include "xtune/options.h"

namespace xtune {

// AutotuneOptions is defined in the public header xtune/options.h, so that
// programs set it directly.

}  // namespace xtune

#endif  // XTUNE_AUTOTUNE_OPTIONS_H_
