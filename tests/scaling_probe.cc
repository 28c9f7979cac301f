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
#include "tests/generated_modules.h"

namespace xtune {
namespace {

int Main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: scaling_probe chain|wide|calls N\n";
    return 1;
  }
  std::string kind = argv[1];
  int64_t n = std::atoll(argv[2]);
  std::string text = kind == "chain"   ? ChainModule(n)
                     : kind == "wide"  ? WideModule(n)
                     : kind == "calls" ? CallsModule(n)
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
