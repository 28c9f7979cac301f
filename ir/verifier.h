// The verifier: checks a parsed module is well formed — every instruction's
// declared shape agrees with shape inference, called computations have the
// right signatures, and no computation calls itself (directly or not).
#ifndef XTUNE_IR_VERIFIER_H_
#define XTUNE_IR_VERIFIER_H_

#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "ir/module.h"

namespace xtune {

// Returns OK or InvalidArgument "source:line:col: instruction 'name': ..."
// (Unimplemented, with the same form, for what xtune does not run).
// `source_text`, when given, is the text the module was parsed from; the
// error then also shows the offending line.
absl::Status VerifyModule(const Module& module,
                          absl::string_view source_text = {});

}  // namespace xtune

#endif  // XTUNE_IR_VERIFIER_H_
