#include "codegen/cuda/cuda_backend.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "codegen/cuda/cuda_candidates.h"
#include "codegen/cuda/driver.h"
#include "codegen/cuda/gpu_kernel.h"
#include "codegen/cuda/gpu_profiler.h"
#include "util/file.h"
#include "util/status_macros.h"

namespace xtune::cuda {
namespace {

// A kernel compiled for a GPU this process cannot launch on.
class CompiledOnlyKernel : public Kernel {
 public:
  explicit CompiledOnlyKernel(std::string what) : what_(std::move(what)) {}
  absl::Status Run(absl::Span<const DeviceBuffer>, DeviceBuffer) override {
    return absl::UnavailableError(absl::StrCat(
        what_, ": compiled for a target GPU (--xtune_gpu_target or "
        "--xla_gpu_target_config_filename), not this machine's: cannot run it "
        "here (use --backend=cuda_emulator, or drop the target on a machine "
        "with that GPU)"));
  }

 private:
  std::string what_;
};

// The GPU to compile for, and the driver when it is the machine's.
absl::StatusOr<GpuDeviceInfo> ChooseDevice(const BackendOptions& options,
                                           std::shared_ptr<Driver>* driver_out) {
  if (!options.gpu_target.empty() || !options.gpu_target_config_file.empty()) {
    return GpuTargetFromOptions(options, "");
  }
  absl::StatusOr<std::unique_ptr<Driver>> driver = Driver::Load();
  if (!driver.ok()) {
    return absl::UnavailableError(absl::StrCat(
        driver.status().message(),
        "; to compile without a GPU, name one with --xtune_gpu_target=NAME "
        "(a100, h100, h200, b200, ...) or --xla_gpu_target_config_filename"));
  }
  absl::StatusOr<GpuDeviceInfo> info = (*driver)->Describe(0);
  if (info.ok() && driver_out != nullptr) *driver_out = std::move(*driver);
  return info;
}

}  // namespace

absl::StatusOr<std::unique_ptr<CudaBackend>> CudaBackend::Create(
    const BackendOptions& options) {
  std::shared_ptr<Driver> driver;
  XTUNE_ASSIGN_OR_RETURN(GpuDeviceInfo device, ChooseDevice(options, &driver));
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Nvrtc> nvrtc, Nvrtc::Load());
  if (!options.dump_kernels_to.empty()) {
    XTUNE_RETURN_IF_ERROR(CreateDirectories(options.dump_kernels_to));
  }
  return std::unique_ptr<CudaBackend>(
      new CudaBackend(std::move(device), std::move(driver), std::move(nvrtc),
                      options));
}

absl::StatusOr<NvrtcOutput> CudaBackend::CompileToCubin(
    const Instruction& fusion, const KernelConfig& config,
    std::string* source) const {
  XTUNE_ASSIGN_OR_RETURN(CudaKernelSource kernel, Source(fusion, config));
  *source = absl::StrCat("// xtune kernel for ", DeviceDescription(), "\n// ",
                         config.ToString(), "; grid ", kernel.grid, ", block ",
                         kernel.block, "\n", GpuPrelude(), kernel.body);
  XTUNE_ASSIGN_OR_RETURN(NvrtcOutput out,
                         nvrtc_->Compile(*source, fusion.name(), device().Arch()));
  for (const KernelResources& r : out.resources) {
    if (r.function != "xt_kernel") continue;
    int64_t regs_per_block = static_cast<int64_t>(r.registers) * kernel.block;
    if (regs_per_block > device().registers_per_block_limit ||
        r.shared_bytes > device().shared_memory_per_block_optin) {
      return absl::InvalidArgumentError(absl::StrCat(
          fusion.name(), " with ", config.ToString(), ": ", r.registers,
          " registers x ", kernel.block, " threads and ", r.shared_bytes,
          " bytes of shared memory exceed the device's ",
          device().registers_per_block_limit, " registers and ",
          device().shared_memory_per_block_optin, " bytes per block"));
    }
  }
  return out;
}

absl::Status CudaBackend::Dump(const Instruction& fusion,
                               const KernelConfig& config,
                               const std::string& source,
                               const NvrtcOutput& out) {
  std::string base = absl::StrCat(dump_to_, "/", fusion.name());
  XTUNE_RETURN_IF_ERROR(WriteFileAtomically(base + ".cu", source));
  XTUNE_RETURN_IF_ERROR(WriteFileAtomically(base + ".ptx", out.ptx));
  XTUNE_RETURN_IF_ERROR(WriteFileAtomically(base + ".cubin", out.cubin));
  std::string line = absl::StrCat("fusion=", fusion.name(), " arch=",
                                  device().Arch(), " config=", config.ToString());
  for (const KernelResources& r : out.resources) {
    if (r.function != "xt_kernel") continue;
    absl::StrAppend(&line, " registers=", r.registers, " shared_bytes=",
                    r.shared_bytes, " spill_store_bytes=", r.spill_store_bytes,
                    " spill_load_bytes=", r.spill_load_bytes);
  }
  // The manifest: one line per fusion, rewritten whole (sorted by fusion).
  MutexLock lock(&dump_mu_);
  std::string path = dump_to_ + "/manifest.txt";
  std::vector<std::string> lines;
  absl::StatusOr<std::string> old = ReadFile(path);
  std::string prefix = absl::StrCat("fusion=", fusion.name(), " ");
  if (old.ok()) {
    for (absl::string_view l : absl::StrSplit(*old, '\n', absl::SkipEmpty())) {
      if (!absl::StartsWith(l, prefix)) lines.emplace_back(l);
    }
  }
  lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  return WriteFileAtomically(path, absl::StrJoin(lines, "\n") + "\n");
}

absl::StatusOr<std::unique_ptr<Kernel>> CudaBackend::Compile(
    const Instruction& fusion, const KernelConfig& config) {
  std::string source;
  XTUNE_ASSIGN_OR_RETURN(NvrtcOutput out, CompileToCubin(fusion, config, &source));
  if (!dump_to_.empty()) XTUNE_RETURN_IF_ERROR(Dump(fusion, config, source, out));
  if (driver_ != nullptr) {
    XTUNE_ASSIGN_OR_RETURN(CudaKernelSource kernel, Source(fusion, config));
    return std::unique_ptr<Kernel>(new GpuKernel(
        driver_, fusion.name(), std::move(out.cubin), kernel.grid, kernel.block,
        static_cast<int>(fusion.operand_count())));
  }
  return std::unique_ptr<Kernel>(new CompiledOnlyKernel(
      absl::StrCat(fusion.name(), " (", device().Arch(), ")")));
}

absl::StatusOr<std::unique_ptr<Profiler>> CudaBackend::CreateProfiler() {
  // Compiling for a target, nothing is timed (CanRunKernels() is false, so
  // the autotuner never profiles); the in-process default would only
  // relay each kernel's Unavailable.
  if (driver_ == nullptr) return Backend::CreateProfiler();
  return std::unique_ptr<Profiler>(new GpuProfiler("", FlushBytes()));
}

absl::StatusOr<DeviceBuffer> CudaBackend::Allocate(int64_t bytes) {
  if (driver_ == nullptr) return Backend::Allocate(bytes);
  XTUNE_ASSIGN_OR_RETURN(uint64_t address, driver_->Allocate(bytes));
  DeviceBuffer b{reinterpret_cast<void*>(address), bytes};
  if (absl::Status s = driver_->Memset(address, 0, bytes); !s.ok()) {
    Free(b);
    return s;
  }
  return b;
}

absl::Status CudaBackend::CopyToDevice(const void* host, DeviceBuffer buffer) {
  if (driver_ == nullptr) return Backend::CopyToDevice(host, buffer);
  return driver_->CopyToDevice(reinterpret_cast<uint64_t>(buffer.opaque), host,
                               buffer.bytes);
}

absl::Status CudaBackend::CopyFromDevice(DeviceBuffer buffer, void* host) {
  if (driver_ == nullptr) return Backend::CopyFromDevice(buffer, host);
  return driver_->CopyFromDevice(host, reinterpret_cast<uint64_t>(buffer.opaque),
                                 buffer.bytes);
}

void CudaBackend::Free(DeviceBuffer buffer) {
  if (driver_ == nullptr) return Backend::Free(buffer);
  if (buffer.opaque != nullptr) {
    driver_->Free(reinterpret_cast<uint64_t>(buffer.opaque)).IgnoreError();
  }
}

std::optional<DeviceBuffer> CudaBackend::HostAlias(const void* data,
                                                   int64_t bytes) {
  if (driver_ == nullptr) return Backend::HostAlias(data, bytes);
  return std::nullopt;
}

BackendRegistration CudaBackendRegistration() {
  return {"cuda",
          "kernels generated as CUDA C++, compiled by NVRTC for the machine's "
          "GPU (run and tuned there) or a named target (--xtune_gpu_target: "
          "compiled only)",
          [](const BackendOptions& options)
              -> absl::StatusOr<std::unique_ptr<Backend>> {
            XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<CudaBackend> b,
                                   CudaBackend::Create(options));
            return std::unique_ptr<Backend>(std::move(b));
          },
          [](const BackendOptions& options) -> absl::StatusOr<std::string> {
            XTUNE_ASSIGN_OR_RETURN(GpuDeviceInfo d,
                                   ChooseDevice(options, nullptr));
            return CudaDeviceString(d);
          }};
}

}  // namespace xtune::cuda
