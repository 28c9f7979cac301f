// The fusion pass on any module that parses and verifies: a fused module
// that verifies, or a status; never a crash.
#include "fusion/fusion_pass.h"
#include "fuzz/fuzz_util.h"
#include "ir/parser.h"
#include "ir/verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view text = xtune::fuzz::Bytes(data, size);
  absl::StatusOr<std::unique_ptr<xtune::Module>> m = xtune::ParseModule(text, "fuzz");
  if (!m.ok() || !xtune::VerifyModule(**m, text).ok()) return 0;
  absl::StatusOr<std::unique_ptr<xtune::Module>> fused = xtune::FuseModule(**m);
  if (!fused.ok()) return 0;
  xtune::fuzz::Require(xtune::VerifyModule(**fused).ok(), "the fused module does not verify");
  return 0;
}
