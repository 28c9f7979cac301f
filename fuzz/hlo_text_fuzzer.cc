// The HLO text parser, the verifier and shape inference: any bytes give a
// module or a status, never a crash, a hang or undefined behaviour. A module
// that verifies prints as text that parses and verifies again, to the same
// text.
#include "fuzz/fuzz_util.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using xtune::fuzz::Require;
  absl::string_view text = xtune::fuzz::Bytes(data, size);
  absl::StatusOr<std::unique_ptr<xtune::Module>> m = xtune::ParseModule(text, "fuzz");
  if (!m.ok() || !xtune::VerifyModule(**m, text).ok()) return 0;
  const std::string printed = xtune::ToString(**m);
  absl::StatusOr<std::unique_ptr<xtune::Module>> again = xtune::ParseModule(printed, "printed");
  Require(again.ok(), "a verified module's text does not parse");
  Require(xtune::VerifyModule(**again, printed).ok(), "a verified module's text does not verify");
  Require(xtune::ToString(**again) == printed, "printing is not stable");
  return 0;
}
