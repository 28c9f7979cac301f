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
#include "codegen/cuda/library_gemm_kernel.h"
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
  // NVRTC first: without the toolkit, no target helps (the error says
  // what to install).
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Nvrtc> nvrtc, Nvrtc::Load());
  std::shared_ptr<Driver> driver;
  XTUNE_ASSIGN_OR_RETURN(GpuDeviceInfo device, ChooseDevice(options, &driver));
  if (!options.dump_kernels_to.empty()) {
    XTUNE_RETURN_IF_ERROR(CreateDirectories(options.dump_kernels_to));
  }
  std::unique_ptr<CudaBackend> backend(
      new CudaBackend(std::move(device), std::move(driver), std::move(nvrtc),
                      options));
  if (backend->driver_ != nullptr) {
    absl::StatusOr<std::unique_ptr<CublasLt>> lt = CublasLt::Load();
    if (lt.ok()) {
      backend->cublaslt_ = std::move(*lt);
    } else {
      backend->cublaslt_error_ = std::string(lt.status().message());
    }
    absl::StatusOr<std::unique_ptr<Cudnn>> dnn = Cudnn::Load();
    if (dnn.ok()) {
      backend->cudnn_ = std::move(*dnn);
    } else {
      backend->cudnn_error_ = std::string(dnn.status().message());
    }
  }
  return backend;
}

CudaBackend::~CudaBackend() {
  if (workspace_ != 0) driver_->Free(workspace_).IgnoreError();
}

absl::StatusOr<NvrtcOutput> CudaBackend::CompileToCubin(
    const std::string& name, const KernelConfig& config,
    const CudaKernelSource& kernel, std::string* source) const {
  *source = absl::StrCat("// xtune kernel for ", DeviceDescription(), "\n// ",
                         config.ToString(), "; grid ", kernel.grid, ", block ",
                         kernel.block, "\n", GpuPrelude(), kernel.body);
  XTUNE_ASSIGN_OR_RETURN(NvrtcOutput out,
                         cubins_.Compile(*nvrtc_, *source, name, device().Arch()));
  for (const KernelResources& r : out.resources) {
    if (r.function != kKernelFunction) continue;
    // Registers are allocated per warp, 8 a thread at a time (256 a warp).
    int64_t regs_per_block = (r.registers + 7) / 8 * 8 *
                             ((static_cast<int64_t>(kernel.block) + 31) / 32 * 32);
    if (regs_per_block > device().registers_per_block_limit ||
        r.shared_bytes > device().shared_memory_per_block_optin) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, " with ", config.ToString(), ": ", r.registers,
          " registers x ", kernel.block, " threads and ", r.shared_bytes,
          " bytes of shared memory exceed the device's ",
          device().registers_per_block_limit, " registers and ",
          device().shared_memory_per_block_optin, " bytes per block"));
    }
  }
  return out;
}

absl::Status CudaBackend::Dump(const std::string& name,
                               const KernelConfig& config,
                               const std::string& source,
                               const NvrtcOutput& out) {
  std::string base = absl::StrCat(dump_to_, "/", name);
  XTUNE_RETURN_IF_ERROR(WriteFileAtomically(base + ".cu", source));
  XTUNE_RETURN_IF_ERROR(WriteFileAtomically(base + ".ptx", out.ptx));
  XTUNE_RETURN_IF_ERROR(WriteFileAtomically(base + ".cubin", out.cubin));
  std::string line = absl::StrCat("fusion=", name, " arch=", device().Arch(),
                                  " config=", config.ToString());
  for (const KernelResources& r : out.resources) {
    if (r.function != kKernelFunction) continue;
    absl::StrAppend(&line, " registers=", r.registers, " shared_bytes=",
                    r.shared_bytes, " spill_store_bytes=", r.spill_store_bytes,
                    " spill_load_bytes=", r.spill_load_bytes);
  }
  // The manifest: one line per kernel, rewritten whole (sorted by name).
  MutexLock lock(&dump_mu_);
  std::string path = dump_to_ + "/manifest.txt";
  std::vector<std::string> lines;
  absl::StatusOr<std::string> old = ReadFile(path);
  std::string prefix = absl::StrCat("fusion=", name, " ");
  if (old.ok()) {
    for (absl::string_view l : absl::StrSplit(*old, '\n', absl::SkipEmpty())) {
      if (!absl::StartsWith(l, prefix)) lines.emplace_back(l);
    }
  }
  lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  return WriteFileAtomically(path, absl::StrJoin(lines, "\n") + "\n");
}

absl::StatusOr<std::unique_ptr<Kernel>> CudaBackend::CompileKernel(
    const Instruction& fusion, const std::string& name,
    const KernelConfig& config, const CudaKernelSource& kernel, int inputs,
    bool refuse_spills) {
  std::string source;
  XTUNE_ASSIGN_OR_RETURN(NvrtcOutput out,
                         CompileToCubin(name, config, kernel, &source));
  for (const KernelResources& r : out.resources) {
    if (refuse_spills && r.function == kKernelFunction &&
        (r.spill_store_bytes > 0 || r.spill_load_bytes > 0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, " with ", config.ToString(), " spills registers (",
          r.spill_store_bytes, " bytes stored, ", r.spill_load_bytes,
          " loaded): dropped, as XLA drops spilling gemm kernels"));
    }
  }
  if (!dump_to_.empty()) XTUNE_RETURN_IF_ERROR(Dump(name, config, source, out));
  if (driver_ != nullptr) {
    return std::unique_ptr<Kernel>(new GpuKernel(
        driver_, name, std::move(out.cubin), kernel.grid, kernel.block, inputs,
        kernel.in_place_input));
  }
  return std::unique_ptr<Kernel>(
      new CompiledOnlyKernel(absl::StrCat(name, " (", device().Arch(), ")")));
}

absl::StatusOr<uint64_t> CudaBackend::Workspace() {
  MutexLock lock(&workspace_mu_);
  if (workspace_ == 0) {
    XTUNE_ASSIGN_OR_RETURN(workspace_,
                           driver_->Allocate(CublasLt::kWorkspaceBytes));
  }
  return workspace_;
}

absl::StatusOr<std::unique_ptr<Kernel>> CudaBackend::CompileLibraryGemm(
    const Instruction& fusion, const KernelConfig& config) {
  XTUNE_ASSIGN_OR_RETURN(LibraryGemm g, LibrarySource(fusion, config));
  if (driver_ != nullptr && cublaslt_ == nullptr) {
    return absl::UnimplementedError(absl::StrCat(
        "cuBLASLt is not available (", cublaslt_error_, ")"));
  }
  const std::string& name = fusion.name();
  const int params = static_cast<int>(fusion.operand_count());
  XTUNE_ASSIGN_OR_RETURN(
      std::unique_ptr<Kernel> pack_a,
      CompileKernel(fusion, name + ".pack_a", config, g.pack_a, params));
  XTUNE_ASSIGN_OR_RETURN(
      std::unique_ptr<Kernel> pack_b,
      CompileKernel(fusion, name + ".pack_b", config, g.pack_b, params));
  std::unique_ptr<Kernel> epilogue;
  if (g.has_epilogue) {
    XTUNE_ASSIGN_OR_RETURN(epilogue, CompileKernel(fusion, name + ".epilogue",
                                                   config, g.epilogue, params + 1));
  }
  if (driver_ == nullptr) {
    return std::unique_ptr<Kernel>(
        new CompiledOnlyKernel(absl::StrCat(name, " (", device().Arch(), ")")));
  }
  const int algorithm = static_cast<int>(config.Get("algorithm", 0));
  auto gemm = [this, algorithm](const GemmShape& s, DeviceBuffer a,
                                DeviceBuffer b, DeviceBuffer c) -> absl::Status {
    XTUNE_ASSIGN_OR_RETURN(uint64_t workspace, Workspace());
    return cublaslt_->Gemm(s, algorithm, reinterpret_cast<uint64_t>(a.opaque),
                           reinterpret_cast<uint64_t>(b.opaque),
                           reinterpret_cast<uint64_t>(c.opaque), workspace);
  };
  // The steps are queued on the default stream; Run waits once at the end.
  auto finish = [driver = driver_]() { return driver->Synchronize(); };
  return std::unique_ptr<Kernel>(new LibraryGemmKernel(
      name, this, g.shape, std::move(pack_a), std::move(pack_b),
      std::move(epilogue), gemm, finish));
}

absl::StatusOr<std::unique_ptr<Kernel>> CudaBackend::CompileLibraryConv(
    const Instruction& fusion, const KernelConfig& config) {
  XTUNE_ASSIGN_OR_RETURN(LibraryConv c, ConvSource(fusion, config));
  if (driver_ != nullptr && cudnn_ == nullptr) {
    return absl::UnimplementedError(absl::StrCat("cuDNN is not available (", cudnn_error_, ")"));
  }
  const std::string& name = fusion.name();
  const int params = static_cast<int>(fusion.operand_count());
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Kernel> pack_x,
                         CompileKernel(fusion, name + ".pack_x", config, c.pack_x, params));
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Kernel> pack_w,
                         CompileKernel(fusion, name + ".pack_w", config, c.pack_w, params));
  XTUNE_ASSIGN_OR_RETURN(
      std::unique_ptr<Kernel> epilogue,
      CompileKernel(fusion, name + ".epilogue", config, c.epilogue, params + 1));
  if (driver_ == nullptr) {
    return std::unique_ptr<Kernel>(
        new CompiledOnlyKernel(absl::StrCat(name, " (", device().Arch(), ", cuDNN)")));
  }
  const int algorithm = static_cast<int>(config.Get("algorithm", -1));
  const bool tensor_ops = config.Get("tensor_ops", 0) != 0;
  auto conv = [this, algorithm, tensor_ops](const ConvShape& s, DeviceBuffer x, DeviceBuffer w,
                                            DeviceBuffer y) -> absl::Status {
    XTUNE_ASSIGN_OR_RETURN(uint64_t workspace, Workspace());
    return cudnn_->Forward(s, algorithm, tensor_ops, reinterpret_cast<uint64_t>(x.opaque),
                           reinterpret_cast<uint64_t>(w.opaque),
                           reinterpret_cast<uint64_t>(y.opaque), workspace,
                           CublasLt::kWorkspaceBytes);
  };
  auto finish = [driver = driver_]() { return driver->Synchronize(); };
  return std::unique_ptr<Kernel>(new LibraryConvKernel(name, this, c.shape, std::move(pack_x),
                                                       std::move(pack_w), std::move(epilogue),
                                                       conv, finish));
}

KernelConfig CudaBackend::DefaultConfig(const Instruction& fusion) const {
  KernelConfig def = GpuBackend::DefaultConfig(fusion);
  if (driver_ == nullptr || cudnn_ != nullptr || def.kind() != "cuda_cudnn") return def;
  return GeneratedDefault(fusion);
}

absl::StatusOr<std::unique_ptr<Kernel>> CudaBackend::Compile(
    const Instruction& fusion, const KernelConfig& config) {
  return CompileWith(fusion, config, /*refuse_spills=*/false);
}

absl::StatusOr<std::unique_ptr<Kernel>> CudaBackend::CompileCandidate(
    const Instruction& fusion, const KernelConfig& config, int64_t candidates) {
  return CompileWith(fusion, config, /*refuse_spills=*/candidates > 1);
}

absl::StatusOr<std::unique_ptr<Kernel>> CudaBackend::CompileWith(
    const Instruction& fusion, const KernelConfig& config, bool refuse_spills) {
  if (config.kind() == "cuda_cublaslt") return CompileLibraryGemm(fusion, config);
  if (config.kind() == "cuda_cudnn") return CompileLibraryConv(fusion, config);
  if (config.kind() == "triton_gemm" || config.kind() == kImplicitGemmKind) {
    XTUNE_ASSIGN_OR_RETURN(TritonGemm g, TritonSource(fusion, config));
    const int params = static_cast<int>(fusion.operand_count());
    XTUNE_ASSIGN_OR_RETURN(
        std::unique_ptr<Kernel> main,
        CompileKernel(fusion, fusion.name(), config, g.main, params, refuse_spills));
    if (g.splits == 1) return main;
    XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Kernel> finish,
                           CompileKernel(fusion, fusion.name() + ".epilogue", config,
                                         g.epilogue, params + 1));
    if (driver_ == nullptr) return main;  // compiled only: either says so
    auto wait = [driver = driver_]() { return driver->Synchronize(); };
    return std::unique_ptr<Kernel>(new SplitKKernel(fusion.name(), this,
                                                    g.partial_bytes, std::move(main),
                                                    std::move(finish), wait));
  }
  XTUNE_ASSIGN_OR_RETURN(CudaKernelSource kernel, Source(fusion, config));
  return CompileKernel(fusion, fusion.name(), config, kernel,
                       static_cast<int>(fusion.operand_count()));
}

std::vector<KernelConfig> CudaBackend::Candidates(const Instruction& fusion,
                                                  bool exhaustive) const {
  std::vector<KernelConfig> out = GpuBackend::Candidates(fusion, exhaustive);
  if (driver_ != nullptr && !out.empty() && out[0].kind() == "cuda_cudnn") {
    // cuDNN's supported algorithms for the call replace the static pair.
    const bool tensor_ops = out[0].Get("tensor_ops", 0) != 0;
    std::erase_if(out, [](const KernelConfig& c) { return c.kind() == "cuda_cudnn"; });
    absl::StatusOr<ConvShape> shape = LibraryConvShape(*fusion.called_computations()[0]);
    absl::StatusOr<std::vector<int>> algorithms =
        cudnn_ != nullptr && shape.ok()
            ? cudnn_->Algorithms(*shape, tensor_ops, CublasLt::kWorkspaceBytes)
            : absl::StatusOr<std::vector<int>>(std::vector<int>());
    std::vector<KernelConfig> library;
    for (int a : algorithms.ok() ? *algorithms : std::vector<int>()) {
      if (!exhaustive && library.size() >= 4) break;
      library.push_back(KernelConfig("cuda_cudnn", {{"algorithm", a},
                                                    {"tensor_ops", tensor_ops ? 1 : 0}}));
    }
    out.insert(out.begin(), library.begin(), library.end());
    return out;
  }
  if (cublaslt_ == nullptr || out.empty() ||
      out.back().kind() != "cuda_cublaslt" ||
      out.back().Get("algorithm", 0) != 0) {
    return out;  // no library candidate, or the library's default only
  }
  // The heuristic needs only the shape, not the pack and epilogue kernels.
  absl::StatusOr<GemmShape> shape =
      LibraryGemmShape(*fusion.called_computations()[0], Tf32Dots());
  if (!shape.ok()) return out;
  absl::StatusOr<int> n = cublaslt_->AlgorithmCount(*shape, exhaustive ? 16 : 4);
  for (int a = 1; n.ok() && a < *n; ++a) {
    out.push_back(KernelConfig("cuda_cublaslt", {{"algorithm", a}}));
  }
  return out;
}

absl::StatusOr<std::unique_ptr<Profiler>> CudaBackend::CreateProfiler() {
  // Compiling for a target, nothing is timed (CanRunKernels() is false, so
  // the autotuner never profiles); the in-process default would only
  // relay each kernel's Unavailable.
  if (driver_ == nullptr) return Backend::CreateProfiler();
  return std::unique_ptr<Profiler>(new GpuProfiler("", FlushBytes(), this));
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

absl::Status CudaBackend::CopyBuffer(DeviceBuffer src, DeviceBuffer dst) {
  if (driver_ == nullptr) return Backend::CopyBuffer(src, dst);
  if (src.bytes > dst.bytes) {
    return absl::InternalError("CopyBuffer into a smaller buffer");
  }
  if (src.bytes == 0 || src.opaque == dst.opaque) return absl::OkStatus();
  std::vector<uint8_t> staging(static_cast<size_t>(src.bytes));
  XTUNE_RETURN_IF_ERROR(CopyFromDevice(src, staging.data()));
  return CopyToDevice(staging.data(), DeviceBuffer{dst.opaque, src.bytes});
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
