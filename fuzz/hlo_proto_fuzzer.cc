// XLA's binary HloProto / HloModuleProto reader: any bytes give HLO text or
// a status; the text it gives parses or is refused cleanly.
#include "fuzz/fuzz_util.h"
#include "ir/hlo_proto_text.h"
#include "ir/parser.h"
#include "ir/verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<std::string> text = xtune::HloProtoToText(xtune::fuzz::Bytes(data, size), "fuzz");
  if (!text.ok()) return 0;
  absl::StatusOr<std::unique_ptr<xtune::Module>> m = xtune::ParseModule(*text, "fuzz.pb");
  if (m.ok()) (void)xtune::VerifyModule(**m, *text);
  return 0;
}
