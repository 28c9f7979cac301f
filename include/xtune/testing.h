// GoogleTest helpers for tests that use xtune's C++ API (xtune/compiler.h),
// header-only. Include it in a test built with xtune_add_test (or linked
// with GoogleTest yourself):
//
//   #include "xtune/testing.h"
//
//   TEST(MyModel, RunsFromTheCheckedInCache) {
//     ASSERT_OK_AND_ASSIGN(auto compiler, xtune::Compiler::Create());
//     ASSERT_OK_AND_ASSIGN(auto program, compiler->CompileFile("model.hlo"));
//     if (!xtune::testing::UpdatingAutotuneCaches()) {
//       EXPECT_EQ(program->stats().tuned, 0) << program->stats().summary;
//     }
//     ASSERT_OK(program->RunAndVerify());
//   }
#ifndef XTUNE_INCLUDE_XTUNE_TESTING_H_
#define XTUNE_INCLUDE_XTUNE_TESTING_H_

#include <cstdlib>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gtest/gtest.h"

namespace xtune::testing {

// True while xtune_add_test's -DXTUNE_UPDATE_AUTOTUNE_CACHES=ON regenerates
// the checked-in caches (the helper sets XTUNE_UPDATE_AUTOTUNE_CACHES=1 in
// the test's environment): tests then tune, so they should not assert that
// nothing was tuned.
inline bool UpdatingAutotuneCaches() {
  const char* v = std::getenv("XTUNE_UPDATE_AUTOTUNE_CACHES");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

namespace internal {
inline const absl::Status& StatusOf(const absl::Status& s) { return s; }
template <typename T>
const absl::Status& StatusOf(const absl::StatusOr<T>& s) {
  return s.status();
}
}  // namespace internal

}  // namespace xtune::testing

#define XTUNE_TESTING_CONCAT_INNER_(a, b) a##b
#define XTUNE_TESTING_CONCAT_(a, b) XTUNE_TESTING_CONCAT_INNER_(a, b)

// Fails the test (ASSERT: and returns) unless `expr`, an absl::Status or
// absl::StatusOr, is OK; the message is the status.
#define ASSERT_OK(expr)                                                     \
  do {                                                                      \
    const auto& xtune_testing_v_ = (expr);                                  \
    const ::absl::Status& xtune_testing_s_ =                                \
        ::xtune::testing::internal::StatusOf(xtune_testing_v_);             \
    ASSERT_TRUE(xtune_testing_s_.ok()) << #expr << ": " << xtune_testing_s_; \
  } while (false)
#define EXPECT_OK(expr)                                                     \
  do {                                                                      \
    const auto& xtune_testing_v_ = (expr);                                  \
    const ::absl::Status& xtune_testing_s_ =                                \
        ::xtune::testing::internal::StatusOf(xtune_testing_v_);             \
    EXPECT_TRUE(xtune_testing_s_.ok()) << #expr << ": " << xtune_testing_s_; \
  } while (false)

// Evaluates `rexpr` (an absl::StatusOr<T>); fails the test and returns when
// it is not OK, else moves its value into `lhs` (a declaration or a
// variable).
#define ASSERT_OK_AND_ASSIGN(lhs, rexpr) \
  XTUNE_TESTING_ASSIGN_IMPL_(            \
      XTUNE_TESTING_CONCAT_(xtune_testing_statusor_, __LINE__), lhs, rexpr)
#define XTUNE_TESTING_ASSIGN_IMPL_(statusor, lhs, rexpr)               \
  auto statusor = (rexpr);                                             \
  ASSERT_TRUE(statusor.ok()) << #rexpr << ": " << statusor.status();   \
  lhs = std::move(statusor).value()

#endif  // XTUNE_INCLUDE_XTUNE_TESTING_H_
