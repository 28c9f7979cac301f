// Synthetic HLO modules of a given size, for the scaling test and the
// parse_scaling benchmark.
#ifndef XTUNE_TESTS_GENERATED_MODULES_H_
#define XTUNE_TESTS_GENERATED_MODULES_H_

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"

namespace xtune {

// A chain of n adds, each using the previous one and the parameter; with
// `verbose`, operands carry their shapes and every instruction metadata, as
// XLA's dumps print them.
inline std::string ChainModule(int64_t n, bool verbose = false) {
  std::string t = "HloModule chain\nENTRY main {\n  p0 = f32[8]{0} parameter(0)\n";
  std::string prev = "p0";
  const char* shape = verbose ? "f32[8]{0} " : "";
  for (int64_t i = 0; i < n; ++i) {
    absl::StrAppend(&t, "  a", i, " = f32[8]{0} add(", shape, prev, ", ",
                    shape, "p0)",
                    verbose ? ", metadata={op_name=\"jit(f)/add\"}" : "", "\n");
    prev = absl::StrCat("a", i);
  }
  absl::StrAppend(&t, "  ROOT r = f32[8]{0} negate(", prev, ")\n}\n");
  return t;
}

// One parameter with n users, all gathered by one tuple.
inline std::string WideModule(int64_t n) {
  std::string t = "HloModule wide\nENTRY main {\n  p0 = f32[2] parameter(0)\n";
  std::string shape, elems;
  for (int64_t i = 0; i < n; ++i) {
    absl::StrAppend(&t, "  e", i, " = f32[2] exponential(p0)\n");
    absl::StrAppend(&elems, i ? ", " : "", "e", i);
    absl::StrAppend(&shape, i ? ", " : "", "f32[2]");
  }
  absl::StrAppend(&t, "  ROOT t = (", shape, ") tuple(", elems, ")\n}\n");
  return t;
}

// n/4 small computations, each the to_apply of one reduce in a chain.
inline std::string CallsModule(int64_t n) {
  std::string t = "HloModule calls\n";
  int64_t k = n / 4;
  for (int64_t i = 0; i < k; ++i) {
    absl::StrAppend(&t, "add", i, " {\n  x = f32[] parameter(0)\n",
                    "  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\n");
  }
  absl::StrAppend(&t, "ENTRY main {\n  p0 = f32[2,3] parameter(0)\n",
                  "  z = f32[] constant(0)\n");
  std::string prev = "p0";
  for (int64_t i = 0; i < k; ++i) {
    absl::StrAppend(&t, "  r", i, " = f32[2] reduce(", prev,
                    ", z), dimensions={1}, to_apply=add", i, "\n");
    absl::StrAppend(&t, "  b", i, " = f32[2,3] broadcast(r", i,
                    "), dimensions={0}\n");
    prev = absl::StrCat("b", i);
  }
  absl::StrAppend(&t, "  ROOT out = f32[2,3] negate(", prev, ")\n}\n");
  return t;
}

}  // namespace xtune

#endif  // XTUNE_TESTS_GENERATED_MODULES_H_
