// For tests that need NVRTC (the CUDA toolkit) but no GPU: on a machine
// without it they skip, saying why, instead of failing. With
// $XTUNE_REQUIRE_NVRTC set (to anything but 0), as `make test` sets it when
// /usr/local/cuda holds NVRTC, they run and fail with the loader's error:
// a toolkit that is there but broken is not skipped silently.
#ifndef XTUNE_CODEGEN_CUDA_NVRTC_OR_SKIP_H_
#define XTUNE_CODEGEN_CUDA_NVRTC_OR_SKIP_H_

#include <cstdlib>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "codegen/cuda/nvrtc.h"
#include "gtest/gtest.h"

namespace xtune::cuda {

// Why NVRTC-dependent tests skip here, or nullopt when they run.
inline std::optional<std::string> NvrtcMissingReason() {
  static const std::optional<std::string> reason = []() -> std::optional<std::string> {
    absl::StatusOr<std::unique_ptr<Nvrtc>> nvrtc = Nvrtc::Load();
    if (nvrtc.ok()) return std::nullopt;
    const char* require = std::getenv("XTUNE_REQUIRE_NVRTC");
    if (require != nullptr && *require != '\0' && std::string(require) != "0") {
      return std::nullopt;
    }
    return absl::StrCat("needs NVRTC (", nvrtc.status().message(), ")");
  }();
  return reason;
}

}  // namespace xtune::cuda

// Skips the current test when NVRTC is missing (see above).
#define XTUNE_NVRTC_OR_SKIP()                                                   \
  do {                                                                          \
    if (std::optional<std::string> xtune_nvrtc_missing =                        \
            ::xtune::cuda::NvrtcMissingReason()) {                              \
      GTEST_SKIP() << *xtune_nvrtc_missing;                                     \
    }                                                                           \
  } while (false)

#endif  // XTUNE_CODEGEN_CUDA_NVRTC_OR_SKIP_H_
