// scaling_probe KIND N: builds a module of about N instructions of one
// shape (KIND: chain, wide, calls) in memory, then parses, verifies, fuses,
// prints and evaluates it — the work scaling_test counts with callgrind at
// two sizes to catch super-linear passes. Prints one line with the sizes.
#include <cstdlib>
#include <iostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "eval/evaluator.h"
#include "fusion/fusion_pass.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "runtime/random_inputs.h"

namespace xtune {
namespace {

// A chain: each instruction uses the previous one and the parameter.
std::string Chain(int64_t n) {
  std::string t = "HloModule chain\nENTRY main {\n  p0 = f32[4] parameter(0)\n";
  std::string prev = "p0";
  for (int64_t i = 0; i < n; ++i) {
    absl::StrAppend(&t, "  a", i, " = f32[4] add(", prev, ", p0)\n");
    prev = absl::StrCat("a", i);
  }
  absl::StrAppend(&t, "  ROOT r = f32[4] negate(", prev, ")\n}\n");
  return t;
}

// Wide: one parameter with n users, all gathered by one tuple.
std::string Wide(int64_t n) {
  std::string t = "HloModule wide\nENTRY main {\n  p0 = f32[2] parameter(0)\n";
  std::string elems;
  for (int64_t i = 0; i < n; ++i) {
    absl::StrAppend(&t, "  e", i, " = f32[2] exponential(p0)\n");
    absl::StrAppend(&elems, i ? ", " : "", "e", i);
  }
  absl::StrAppend(&t, "  ROOT t = (", std::string(""), ") tuple(", elems,
                  ")\n}\n");
  // The tuple's shape lists every element.
  std::string shape;
  for (int64_t i = 0; i < n; ++i) absl::StrAppend(&shape, i ? ", " : "", "f32[2]");
  size_t at = t.find("ROOT t = (");
  t.insert(at + 10, shape);
  return t;
}

// Calls: n/4 small computations, each reducing a row, called in a chain.
std::string Calls(int64_t n) {
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

int Main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: scaling_probe chain|wide|calls N\n";
    return 1;
  }
  std::string kind = argv[1];
  int64_t n = std::atoll(argv[2]);
  std::string text = kind == "chain" ? Chain(n)
                     : kind == "wide" ? Wide(n)
                     : kind == "calls" ? Calls(n)
                                       : "";
  if (text.empty()) {
    std::cerr << "unknown kind " << kind << "\n";
    return 1;
  }
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(text, kind);
  if (!module.ok()) {
    std::cerr << module.status() << "\n";
    return 1;
  }
  absl::StatusOr<std::unique_ptr<Module>> fused = FuseModule(**module);
  if (!fused.ok()) {
    std::cerr << fused.status() << "\n";
    return 1;
  }
  std::string printed = ToString(**fused);
  std::vector<Literal> inputs = RandomArguments(**module, 1);
  absl::StatusOr<Literal> out = Evaluate(**module, inputs);
  if (!out.ok()) {
    std::cerr << out.status() << "\n";
    return 1;
  }
  std::cout << kind << " " << n << ": " << text.size() << " bytes parsed, "
            << printed.size() << " bytes printed\n";
  return 0;
}

}  // namespace
}  // namespace xtune

int main(int argc, char** argv) { return xtune::Main(argc, argv); }
