// libFuzzer target for the autotune results loader: any bytes, read as a
// text or a binary file (the first byte chooses), must give a status, never
// a crash, leak or undefined behaviour; what parses must also load (or be
// refused) by the in-memory cache and convert to configs without crashing.
// Built by the `fuzz` preset (clang); `make test` runs it for a fixed time
// (scripts/run_fuzzer.sh).
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "cache/autotune_cache.h"
#include "cache/config_proto.h"
#include "cache/inspect.h"
#include "cache/results_file.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  bool text = (data[0] & 1) != 0;
  absl::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  absl::StatusOr<xla::AutotuneResults> results =
      xtune::ParseAutotuneResults(bytes, text, "fuzz");
  if (!results.ok()) return 0;
  xtune::InMemoryAutotuneCache cache;
  (void)cache.Load(*results, "fuzz", 1);
  for (const auto& e : results->results()) {
    (void)xtune::ValidateResult(e.result());
    (void)xtune::SummarizeFusionText(e.hlo());
    (void)xtune::ResultConfigText(e.result());
  }
  // What parses must serialize and parse back.
  std::string again = xtune::SerializeAutotuneResults(*results, text);
  if (!xtune::ParseAutotuneResults(again, text, "fuzz again").ok())
    __builtin_trap();
  return 0;
}
