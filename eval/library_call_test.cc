#include "eval/library_call.h"

#include <cmath>

#include "eval/evaluator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/parser.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::xtune::testing::IsOk;

Literal MakeLiteral(DType t, std::vector<int64_t> dims,
                    const std::vector<double>& values) {
  Literal lit(Shape(t, std::move(dims)));
  for (size_t i = 0; i < values.size(); ++i) lit.SetDouble(i, values[i]);
  return lit;
}

std::vector<double> Values(const Literal& lit) {
  std::vector<double> v;
  for (int64_t i = 0; i < lit.element_count(); ++i) v.push_back(lit.GetDouble(i));
  return v;
}

// x [[1,2],[3,4]] times y = identity, C all ones, bias [1, -100].
absl::StatusOr<Literal> RunCall(const std::string& result_shape,
                                const std::string& operands,
                                const std::string& config) {
  std::string text = R"hlo(HloModule m
ENTRY e {
  x = f32[2,2] parameter(0)
  y = f32[2,2] parameter(1)
  c = f32[2,2] parameter(2)
  bias = f32[2] parameter(3)
  ROOT r = )hlo" + result_shape + " custom-call(" + operands +
                     R"(), custom_call_target="__cublas$lt$matmul", )"
                     R"(backend_config={"gemm_backend_config":{)"
                     R"("dot_dimension_numbers":{"lhs_contracting_dimensions":)"
                     R"(["1"],"rhs_contracting_dimensions":["0"]},)" +
                     config + "}}\n}\n";
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text, "t.hlo");
  if (!m.ok()) return m.status();
  std::vector<Literal> args;
  args.push_back(MakeLiteral(DType::kF32, {2, 2}, {1, 2, 3, 4}));
  args.push_back(MakeLiteral(DType::kF32, {2, 2}, {1, 0, 0, 1}));
  args.push_back(MakeLiteral(DType::kF32, {2, 2}, {1, 1, 1, 1}));
  args.push_back(MakeLiteral(DType::kF32, {2}, {1, -100}));
  return Evaluate(**m, args);
}

// D = relu(alpha x + beta C + bias), worked by hand:
// 2 [[1,2],[3,4]] + 3 + [1,-100] = [[6,-93],[10,-89]] -> [[6,0],[10,0]].
TEST(LibraryCallEvalTest, AlphaBetaBiasRelu) {
  absl::StatusOr<Literal> r = RunCall("(f32[2,2], s8[8])", "x, y, c, bias",
                                  R"("alpha_real":2,"beta":3,"epilogue":"BIAS_RELU")");
  ASSERT_THAT(r, IsOk());
  EXPECT_THAT(Values(r->elements()[0]), ElementsAre(6, 0, 10, 0));
  EXPECT_THAT(Values(r->elements()[1]), ElementsAre(0, 0, 0, 0, 0, 0, 0, 0));
}

// GELU's tanh approximation: gelu(1) = 0.841192, gelu(-1) = -0.158808,
// gelu(3) = 2.996363, gelu(4) = 3.999930; the aux output is the value
// before it.
TEST(LibraryCallEvalTest, GeluWithAux) {
  absl::StatusOr<Literal> r = RunCall("(f32[2,2], f32[2,2], s8[8])", "x, y",
                                  R"("alpha_real":1,"beta":0,"epilogue":"GELU_AUX")");
  ASSERT_THAT(r, IsOk());
  std::vector<double> d = Values(r->elements()[0]);
  EXPECT_THAT(d, ElementsAre(DoubleNear(0.841192, 1e-6), DoubleNear(1.954598, 1e-6),
                             DoubleNear(2.996363, 1e-6), DoubleNear(3.999930, 1e-6)));
  EXPECT_THAT(Values(r->elements()[1]), ElementsAre(1, 2, 3, 4));
  absl::StatusOr<Literal> neg = RunCall("f32[2,2]", "x, y",
                                    R"("alpha_real":-1,"beta":0,"epilogue":"GELU")");
  ASSERT_THAT(neg, IsOk());
  EXPECT_THAT(Values(*neg)[0], DoubleNear(-0.158808, 1e-6));
}

}  // namespace
}  // namespace xtune
