#include "ir/verifier.h"

#include <algorithm>
#include <cstring>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/parser.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using ::xtune::testing::StatusIs;

struct VerifyCase {
  const char* body;   // instructions of an ENTRY computation
  const char* error;  // expected substring
};

class VerifierTest : public ::testing::TestWithParam<VerifyCase> {};

TEST_P(VerifierTest, RejectsWithAMessageNamingTheInstruction) {
  std::string text = std::string(R"hlo(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[2,3] parameter(0)
  q = f32[3,4] parameter(1)
  z = f32[] constant(0)
  i = s32[2,3] parameter(2)
)hlo") + GetParam().body + "\n}\n";
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text, "v.hlo");
  // The error is on the body's last line.
  int line = 12 + static_cast<int>(
                      std::count(text.end() - std::strlen(GetParam().body) - 3,
                                 text.end() - 3, '\n'));
  EXPECT_THAT(m, StatusIs(absl::StatusCode::kInvalidArgument,
                          AllOf(StartsWith("v.hlo:" + std::to_string(line) +
                                           ":"),
                                HasSubstr(GetParam().error))));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, VerifierTest,
    ::testing::Values(
        VerifyCase{"ROOT r = f32[2,3] add(p, q)",
                   "add needs operands of the same shape"},
        VerifyCase{"ROOT r = f32[2,3] add(p, i)",
                   "add needs operands of the same shape, got f32[2,3] and "
                   "s32[2,3]"},
        VerifyCase{"ROOT r = f32[3,2] negate(p)",
                   "negate 'r' is declared as f32[3,2] but its operands give "
                   "f32[2,3]"},
        VerifyCase{"ROOT r = s32[2,3] exponential(i)",
                   "exponential needs a floating-point operand"},
        VerifyCase{"ROOT r = f32[2,4] dot(p, q), lhs_contracting_dims={0}, "
                   "rhs_contracting_dims={0}",
                   "dot contracting dimension 0 has size 2 on the lhs but 3"},
        VerifyCase{"ROOT r = f32[2] reduce(p, z), dimensions={3}, to_apply=add",
                   "reduce dimensions {3} names a dimension out of range"},
        VerifyCase{"ROOT r = f32[2] reduce(i, z), dimensions={1}, to_apply=add",
                   "reduce computation 'add' parameter 1 is f32[], expected "
                   "s32[]"},
        VerifyCase{"ROOT r = f32[3,2] transpose(p), dimensions={0,0}",
                   "transpose dimensions {0,0} repeats dimension 0"},
        VerifyCase{"ROOT r = f32[2,2] slice(p), slice={[0:2], [2:4]}",
                   "slice range [2:4:1] is invalid for dimension 1 of size 3"},
        VerifyCase{"ROOT r = f32[5,3] concatenate(p, q), dimensions={0}",
                   "concatenate operands differ in dimension 1"},
        VerifyCase{"ROOT r = f32[2,3,4] broadcast(p), dimensions={0,2}",
                   "broadcast maps operand dimension 1 (size 3) to result "
                   "dimension 2 of size 4"},
        VerifyCase{"ROOT r = f32[7] reshape(p)",
                   "reshape cannot change the element count"},
        VerifyCase{"ROOT r = f16[6] bitcast(p)",
                   "bitcast must keep the size in bytes"},
        VerifyCase{"ROOT r = f32[2,3] select(p, p, p)",
                   "select's first operand must be pred"},
        VerifyCase{"t = (f32[2,3]) tuple(p)\n ROOT r = f32[2,3] "
                   "get-tuple-element(t), index=1",
                   "index 1 out of range for a tuple of 1"},
        VerifyCase{"ROOT r = f32[2,3] pad(p, z), padding=0_0",
                   "padding has 1 dimensions for an operand of rank 2"},
        VerifyCase{"ROOT r = f32[2,3] call(p), to_apply=add",
                   "call passes 1 operands to 'add', which takes 2"}));

TEST(VerifierTest, RejectsRecursion) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(R"hlo(HloModule m
f {
  a = f32[] parameter(0)
  ROOT c = f32[] call(a), to_apply=g
}
g {
  a = f32[] parameter(0)
  ROOT c = f32[] call(a), to_apply=f
}
ENTRY e {
  p = f32[] parameter(0)
  ROOT r = f32[] call(p), to_apply=f
})hlo",
                                                          "rec.hlo");
  EXPECT_THAT(m, StatusIs(absl::StatusCode::kInvalidArgument,
                          HasSubstr("recursively")));
}

}  // namespace
}  // namespace xtune
