// The .npy reader (xtune run --input): any bytes give an array or an error,
// and an array converts to a parameter of its own shape.
#include "fuzz/fuzz_util.h"
#include "runtime/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<xtune::Literal> a = xtune::DecodeNpy(xtune::fuzz::Bytes(data, size), "fuzz.npy");
  if (!a.ok()) return 0;
  absl::StatusOr<xtune::Literal> p = xtune::NpyToParameter(*a, a->shape(), "fuzz");
  xtune::fuzz::Require(p.ok(), "an array does not fit its own shape");
  return 0;
}
