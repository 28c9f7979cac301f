// The XLA_FLAGS parser: any text gives flags and warnings or an error.
#include <string>
#include <vector>

#include "compiler/xla_flags.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  xtune::XlaFlags flags;
  std::vector<std::string> warnings;
  (void)xtune::ApplyXlaFlagsEnv(xtune::fuzz::Bytes(data, size), &flags, &warnings);
  return 0;
}
