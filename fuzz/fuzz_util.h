// What the libFuzzer targets in fuzz/ share: the input as text, and the
// check that turns a broken invariant into a crash libFuzzer reports.
#ifndef XTUNE_FUZZ_FUZZ_UTIL_H_
#define XTUNE_FUZZ_FUZZ_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/string_view.h"

namespace xtune::fuzz {

inline absl::string_view Bytes(const uint8_t* data, size_t size) {
  return absl::string_view(reinterpret_cast<const char*>(data), size);
}

// Aborts (a finding) with `what` when `ok` is false.
inline void Require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
  std::abort();
}

}  // namespace xtune::fuzz

#endif  // XTUNE_FUZZ_FUZZ_UTIL_H_
