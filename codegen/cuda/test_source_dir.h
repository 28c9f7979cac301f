// For the CUDA tests: the source tree holding examples/ and tests/, which
// is $XTUNE_SOURCE_DIR when set (a GPU machine running a bundle from
// scripts/make_gpu_bundle.sh) and otherwise the tree the test was built
// from.
#ifndef XTUNE_CODEGEN_CUDA_TEST_SOURCE_DIR_H_
#define XTUNE_CODEGEN_CUDA_TEST_SOURCE_DIR_H_

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace xtune::cuda {

inline std::string TestSourceDir() {
  const char* dir = std::getenv("XTUNE_SOURCE_DIR");
  return dir != nullptr && *dir != 0 ? dir : XTUNE_SOURCE_DIR;
}

// The unfused .hlo files of examples/, tests/data/ and tests/golden/,
// sorted.
inline std::vector<std::string> TestModuleFiles() {
  std::vector<std::string> files;
  for (const char* dir : {"/examples", "/tests/data", "/tests/golden"}) {
    for (const auto& e :
         std::filesystem::directory_iterator(TestSourceDir() + dir)) {
      std::string p = e.path().string();
      if (e.path().extension() == ".hlo" &&
          p.find(".fused.") == std::string::npos) {
        files.push_back(p);
      }
    }
  }
  // The NumPy-checked cases of the newest types and operations too: the
  // 8-bit floats and XLA's cuBLAS library calls; and JAX's scaled-FP8 gemm
  // as XLA receives it (FP8 tensor cores from sm_89 on).
  for (const char* rel : {"/tests/numpy/cases/fp8.hlo",
                          "/tests/numpy/cases/cublas_calls.hlo",
                          "/tests/xla_compat/h200/before/fp8_scaled_f32.hlo"}) {
    files.push_back(TestSourceDir() + rel);
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_TEST_SOURCE_DIR_H_
