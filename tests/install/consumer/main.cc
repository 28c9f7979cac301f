// Compiles and runs an HLO module through an installed xtune; prints the
// tuning summary and whether the outputs match the reference.
#include <iostream>

#include "xtune/compiler.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: consumer MODULE.hlo\n";
    return 1;
  }
  absl::StatusOr<std::unique_ptr<xtune::Compiler>> compiler = xtune::Compiler::Create();
  if (!compiler.ok()) {
    std::cerr << compiler.status() << "\n";
    return 1;
  }
  absl::StatusOr<std::unique_ptr<xtune::Program>> program = (*compiler)->CompileFile(argv[1]);
  if (!program.ok()) {
    std::cerr << program.status() << "\n";
    return 1;
  }
  std::cout << "tuned " << (*program)->stats().tuned << ": " << (*program)->stats().summary
            << "\n";
  absl::Status verified = (*program)->RunAndVerify();
  std::cout << (verified.ok() ? "verified" : std::string(verified.message())) << "\n";
  return verified.ok() ? 0 : 1;
}
