// Status propagation macros. Debian's abseil (20220623) ships no status
// macros, so xtune keeps its own, spelled with the XTUNE_ prefix.
//
//   XTUNE_RETURN_IF_ERROR(DoThing());
//   XTUNE_ASSIGN_OR_RETURN(Module m, Parse(text));
//   XTUNE_ASSIGN_OR_RETURN(auto [a, b], Pair());   // not supported: use a
//                                                  // named temporary.
#ifndef XTUNE_UTIL_STATUS_MACROS_H_
#define XTUNE_UTIL_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define XTUNE_STATUS_CONCAT_INNER_(a, b) a##b
#define XTUNE_STATUS_CONCAT_(a, b) XTUNE_STATUS_CONCAT_INNER_(a, b)

// Evaluates `expr` (an absl::Status) and returns it from the enclosing
// function when it is not OK.
#define XTUNE_RETURN_IF_ERROR(expr)                 \
  do {                                              \
    ::absl::Status xtune_status_ = (expr);          \
    if (!xtune_status_.ok()) return xtune_status_;  \
  } while (false)

// Evaluates `rexpr` (an absl::StatusOr<T>); returns its status when not OK,
// otherwise moves the value into `lhs`, which may be a declaration.
#define XTUNE_ASSIGN_OR_RETURN(lhs, rexpr) \
  XTUNE_ASSIGN_OR_RETURN_IMPL_(            \
      XTUNE_STATUS_CONCAT_(xtune_statusor_, __LINE__), lhs, rexpr)

#define XTUNE_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                                 \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = std::move(statusor).value()

#endif  // XTUNE_UTIL_STATUS_MACROS_H_
