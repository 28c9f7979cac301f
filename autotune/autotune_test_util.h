// Shared fixtures of the autotuner's tests: a fused module with two
// identical gemm fusions and one loop fusion, and quiet options.
#ifndef XTUNE_AUTOTUNE_AUTOTUNE_TEST_UTIL_H_
#define XTUNE_AUTOTUNE_AUTOTUNE_TEST_UTIL_H_

#include <memory>

#include "autotune/options.h"
#include "codegen/kernel_config.h"
#include "fusion/fusion_pass.h"
#include "gtest/gtest.h"
#include "ir/parser.h"

namespace xtune {

// "fake:x=N", the fake backend's configs.
inline KernelConfig C(int x) { return KernelConfig("fake", {{"x", x}}); }

// Two identical gemm fusions (dot + exp) and one loop fusion.
inline std::unique_ptr<Module> Fused() {
  auto m = ParseModule(R"hlo(HloModule m
ENTRY e {
  a = f32[8,16] parameter(0)
  b = f32[16,4] parameter(1)
  c = f32[8,16] parameter(2)
  d1 = f32[8,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  d2 = f32[8,4] dot(c, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  e1 = f32[8,4] exponential(d1)
  e2 = f32[8,4] exponential(d2)
  t = f32[8,16] tanh(a)
  ROOT r = (f32[8,4], f32[8,4], f32[8,16]) tuple(e1, e2, t)
})hlo");
  EXPECT_TRUE(m.ok()) << m.status();
  auto fused = FuseModule(**m);
  EXPECT_TRUE(fused.ok()) << fused.status();
  return std::move(*fused);
}

// No summary line, two compile threads.
inline AutotuneOptions Options() {
  AutotuneOptions o;
  o.print_summary = false;
  o.compilation_parallelism = 2;
  return o;
}

}  // namespace xtune

#endif  // XTUNE_AUTOTUNE_AUTOTUNE_TEST_UTIL_H_
