// Exit codes of the xtune CLI: 0 ok, 1 user error (bad input, bad flag,
// missing file or cache entry, unavailable backend), 2 internal error,
// 3 verification mismatch (`xtune run --verify`).
#ifndef XTUNE_TOOLS_EXIT_CODES_H_
#define XTUNE_TOOLS_EXIT_CODES_H_

#include "absl/status/status.h"

namespace xtune {

inline constexpr int kExitOk = 0;
inline constexpr int kExitUserError = 1;
inline constexpr int kExitInternalError = 2;
// xtune run --verify: the outputs differ from the evaluator's.
inline constexpr int kExitVerificationFailed = 3;

inline int ExitCodeFor(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return kExitOk;
    case absl::StatusCode::kInternal:
    case absl::StatusCode::kUnknown:
    case absl::StatusCode::kAborted:
    case absl::StatusCode::kCancelled:
    case absl::StatusCode::kDeadlineExceeded:
      return kExitInternalError;
    default:
      return kExitUserError;
  }
}

}  // namespace xtune

#endif  // XTUNE_TOOLS_EXIT_CODES_H_
