// NVRTC, the CUDA runtime compiler, loaded at run time with dlopen: one
// xtune binary runs with or without the CUDA toolkit, and compiles CUDA C++
// to PTX and cubin for any architecture (sm_80, sm_90a, ...) without a GPU.
// ptxas's resource report (registers, shared memory, spills) comes back
// parsed, so tests and the autotuner can check kernels on GPU-less
// machines.
//
// Thread-safe: NVRTC programs are independent.
#ifndef XTUNE_CODEGEN_CUDA_NVRTC_H_
#define XTUNE_CODEGEN_CUDA_NVRTC_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xtune::cuda {

// What ptxas said of one entry function.
struct KernelResources {
  std::string function;
  int registers = 0;
  int barriers = 0;
  int64_t shared_bytes = 0;  // static shared memory
  int64_t stack_bytes = 0;
  int64_t spill_store_bytes = 0;
  int64_t spill_load_bytes = 0;
};

// The "ptxas info" lines of a compile log (--ptxas-options=-v), one entry
// per function, in the order reported. InvalidArgument when the log has
// no ptxas report.
absl::StatusOr<std::vector<KernelResources>> ParsePtxasReport(
    absl::string_view log);

struct NvrtcOutput {
  std::string ptx;
  std::string cubin;
  std::string log;  // NVRTC's and ptxas's messages
  std::vector<KernelResources> resources;
};

class Nvrtc {
 public:
  // Loads libnvrtc (the CUDA 13 soname, then unversioned; $XTUNE_NVRTC
  // names another path) from the loader's path and /usr/local/cuda/lib64.
  // Unavailable naming what was tried when none loads or a symbol is
  // missing.
  static absl::StatusOr<std::unique_ptr<Nvrtc>> Load();
  ~Nvrtc();

  // NVRTC's version, e.g. {13, 0}.
  int major() const { return major_; }
  int minor() const { return minor_; }
  // Where the library was loaded from.
  const std::string& path() const { return path_; }

  // Compiles `source` (named `name` in messages) for `arch` ("sm_90a"):
  // PTX, cubin and ptxas's resources. `options` are extra NVRTC options
  // (e.g. "-DXT_W=4", "--use_fast_math"). Errors: InvalidArgument with the
  // log's first lines when the source does not compile; Internal for NVRTC
  // failures.
  absl::StatusOr<NvrtcOutput> Compile(absl::string_view source,
                                      absl::string_view name,
                                      absl::string_view arch,
                                      const std::vector<std::string>& options = {});

 private:
  Nvrtc() = default;
  struct Api;
  void* handle_ = nullptr;
  std::unique_ptr<Api> api_;
  std::string path_;
  int major_ = 0;
  int minor_ = 0;
};

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_NVRTC_H_
