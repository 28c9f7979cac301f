// For the CUDA tests: the source tree holding examples/ and tests/, which
// is $XTUNE_SOURCE_DIR when set (a GPU machine running a bundle from
// scripts/make_gpu_bundle.sh) and otherwise the tree the test was built
// from.
#ifndef XTUNE_CODEGEN_CUDA_TEST_SOURCE_DIR_H_
#define XTUNE_CODEGEN_CUDA_TEST_SOURCE_DIR_H_

#include <cstdlib>
#include <string>

namespace xtune::cuda {

inline std::string TestSourceDir() {
  const char* dir = std::getenv("XTUNE_SOURCE_DIR");
  return dir != nullptr && *dir != 0 ? dir : XTUNE_SOURCE_DIR;
}

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_TEST_SOURCE_DIR_H_
