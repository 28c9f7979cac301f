// GoogleTest matchers for absl::Status and absl::StatusOr<T>:
//
//   EXPECT_THAT(DoThing(), IsOk());
//   EXPECT_THAT(Parse(""), StatusIs(absl::StatusCode::kInvalidArgument,
//                                   HasSubstr("line 1")));
//   EXPECT_THAT(Compute(), IsOkAndHolds(42));
//
// Test-only: linked through the xtune_testing target.
#ifndef XTUNE_UTIL_STATUS_MATCHERS_H_
#define XTUNE_UTIL_STATUS_MATCHERS_H_

#include <ostream>
#include <type_traits>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"

namespace xtune::testing {
namespace internal {

inline const absl::Status& GetStatus(const absl::Status& status) {
  return status;
}
template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}

}  // namespace internal

MATCHER(IsOk, "is OK") {
  const absl::Status& status = internal::GetStatus(arg);
  if (!status.ok()) *result_listener << "status is " << status;
  return status.ok();
}

MATCHER_P(StatusIs, code, "has code " + ::testing::PrintToString(code)) {
  const absl::Status& status = internal::GetStatus(arg);
  *result_listener << "status is " << status;
  return status.code() == code;
}

MATCHER_P2(StatusIs, code, message_matcher,
           "has code " + ::testing::PrintToString(code)) {
  const absl::Status& status = internal::GetStatus(arg);
  *result_listener << "status is " << status;
  if (status.code() != code) return false;
  return ::testing::ExplainMatchResult(
      message_matcher, std::string(status.message()), result_listener);
}

MATCHER_P(IsOkAndHolds, value_matcher, "is OK and holds a matching value") {
  if (!arg.ok()) {
    *result_listener << "status is " << arg.status();
    return false;
  }
  return ::testing::ExplainMatchResult(value_matcher, *arg, result_listener);
}

}  // namespace xtune::testing

// ASSERT_OK_AND_ASSIGN(T var, expr): asserts that the StatusOr `expr` is OK
// and moves its value into the declaration `var`.
#define XTUNE_MATCHERS_CONCAT_INNER(a, b) a##b
#define XTUNE_MATCHERS_CONCAT(a, b) XTUNE_MATCHERS_CONCAT_INNER(a, b)
#define ASSERT_OK_AND_ASSIGN(lhs, expr)                         \
  auto XTUNE_MATCHERS_CONCAT(status_or_, __LINE__) = (expr);    \
  ASSERT_TRUE(XTUNE_MATCHERS_CONCAT(status_or_, __LINE__).ok()) \
      << XTUNE_MATCHERS_CONCAT(status_or_, __LINE__).status();  \
  lhs = std::move(*XTUNE_MATCHERS_CONCAT(status_or_, __LINE__))

#endif  // XTUNE_UTIL_STATUS_MATCHERS_H_
