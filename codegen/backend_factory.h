// What a backend hands the registry (codegen/registry.h) to be made by
// name: its name, a one-line description and a factory. Each backend
// provides a function returning its BackendRegistration (e.g.
// cpu::CpuBackendRegistration()); the registry adds the built-in ones, and
// programs or tests add theirs with RegisterBackend().
#ifndef XTUNE_CODEGEN_BACKEND_FACTORY_H_
#define XTUNE_CODEGEN_BACKEND_FACTORY_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "codegen/backend.h"

namespace xtune {

// What every backend factory is given. Plain data; each field says its
// default.
struct BackendOptions {
  // --xla_allow_excess_precision: kernels may keep f16/bf16 intermediates in
  // f32 (see AutotuneOptions::excess_precision). Default true.
  bool excess_precision = true;
  // Threads the CPU backend's kernels use; 0 = every hardware thread.
  // Default 0.
  int threads = 0;
  // The GPU to compile for (CUDA backends): a GpuTargetConfigProto text
  // file (--xla_gpu_target_config_filename) or a shipped target name
  // (--xtune_gpu_target); at most one. Default "": the machine's GPU for
  // `cuda`, an H200 for `cuda_emulator`.
  std::string gpu_target_config_file;
  std::string gpu_target;
  // --xtune_dump_kernels_to: where the CUDA backends write each kernel's
  // source, PTX, cubin and a manifest line. Default "": nowhere.
  std::string dump_kernels_to;
};

// Makes the backend, or says why it cannot be had here (Unavailable: "no
// NVIDIA driver (libcuda.so.1 not found)", "no C++ compiler ...").
using BackendFactory = std::function<absl::StatusOr<std::unique_ptr<Backend>>(
    const BackendOptions& options)>;

struct BackendRegistration {
  std::string name;         // what --backend= takes
  std::string description;  // one line, for `xtune devices`
  BackendFactory factory;
  // Optional: the device string of this machine without making the
  // backend (no compiler run, no device context), for tools that only read
  // cache files. When empty, the backend is made and asked.
  std::function<absl::StatusOr<std::string>(const BackendOptions& options)>
      device;
};

}  // namespace xtune

#endif  // XTUNE_CODEGEN_BACKEND_FACTORY_H_
