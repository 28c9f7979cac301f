#include "codegen/cuda/emulator/emulator_backend.h"

#include "absl/strings/str_cat.h"
#include "codegen/cuda/cuda_candidates.h"
#include "codegen/cuda/emulator/emulator.h"
#include "codegen/cuda/library_gemm_kernel.h"
#include "util/status_macros.h"

namespace xtune::cuda {
namespace {

class EmulatorKernel : public Kernel {
 public:
  EmulatorKernel(std::shared_ptr<cpu::LoadedObject> object,
                 EmulatedKernel entry, CudaKernelSource source,
                 EmulatorLimits limits)
      : object_(std::move(object)),
        entry_(std::move(entry)),
        source_(std::move(source)),
        limits_(limits) {}

  absl::Status Run(absl::Span<const DeviceBuffer> inputs,
                   DeviceBuffer output) override {
    if (inputs.size() + 1 != source_.elem_bytes.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          entry_.name, ": ", inputs.size(), " inputs for a kernel of ",
          source_.elem_bytes.size() - 1));
    }
    std::vector<EmulatorArg> args;
    for (size_t i = 0; i < inputs.size(); ++i) {
      args.push_back({inputs[i].opaque, inputs[i].bytes,
                      source_.elem_bytes[i], false});
    }
    args.push_back({output.opaque, output.bytes, source_.elem_bytes.back(), true});
    return EmulateLaunch(entry_, source_.grid, source_.block, args, limits_);
  }

 private:
  std::shared_ptr<cpu::LoadedObject> object_;
  EmulatedKernel entry_;
  CudaKernelSource source_;
  EmulatorLimits limits_;
};

}  // namespace

cpu::HostCompilerOptions EmulatorCompilerOptions() {
  cpu::HostCompilerOptions o;
  // Exceptions on: the emulator ends a thread after an error by unwinding
  // its fiber through the kernel's frames. -O1: kernels compile quickly
  // and run at a useful speed.
  o.flags = {"-O1", "-std=c++17", "-fPIC", "-shared", "-fno-math-errno",
             "-fexceptions"};
  // What xt_emu.h includes, parsed once (HostCompilerOptions).
  o.precompiled_header =
      "#include <stdint.h>\n#include <math.h>\n#include <string.h>\n"
      "#include <type_traits>\n";
  return o;
}

absl::StatusOr<std::unique_ptr<Kernel>> CompileForEmulator(
    cpu::HostCompiler& compiler, const std::string& name,
    const CudaKernelSource& source, const GpuDeviceInfo& device) {
  std::string text = EmulatorPrelude() + source.body;
  XTUNE_ASSIGN_OR_RETURN(std::shared_ptr<cpu::LoadedObject> object,
                         compiler.CompileAndLoad(text));
  EmulatedKernel entry;
  entry.name = name;
  entry.bind = reinterpret_cast<void (*)(const XtEmuApi*)>(
      object->Symbol("xt_emu_bind"));
  entry.set_thread = reinterpret_cast<void (*)(XtEmuThread*)>(
      object->Symbol("xt_emu_set_thread"));
  entry.entry = reinterpret_cast<void (*)(const XtEmuBuffer*)>(
      object->Symbol("xt_emu_entry"));
  if (entry.bind == nullptr || entry.set_thread == nullptr ||
      entry.entry == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": the kernel object lacks the emulator's entry points "
        "(xt_emu_entry missing from the source?)"));
  }
  EmulatorLimits limits;
  limits.max_threads_per_block = device.threads_per_block_limit;
  limits.shared_bytes_per_block = device.shared_memory_per_block_optin;
  return std::unique_ptr<Kernel>(
      new EmulatorKernel(std::move(object), std::move(entry), source, limits));
}

absl::StatusOr<std::unique_ptr<EmulatorBackend>> EmulatorBackend::Create(
    const BackendOptions& options) {
  XTUNE_ASSIGN_OR_RETURN(GpuDeviceInfo device,
                         GpuTargetFromOptions(options, "h200"));
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<cpu::HostCompiler> compiler,
                         cpu::HostCompiler::Create(EmulatorCompilerOptions()));
  return std::unique_ptr<EmulatorBackend>(new EmulatorBackend(
      std::move(device), std::move(compiler), options.excess_precision));
}

absl::StatusOr<std::unique_ptr<Kernel>> EmulatorBackend::Compile(
    const Instruction& fusion, const KernelConfig& config) {
  if (config.kind() == "cuda_cublaslt") {
    // The library candidate: its generated pack and epilogue kernels run
    // emulated, cuBLASLt's gemm as HostGemm.
    XTUNE_ASSIGN_OR_RETURN(LibraryGemm g, LibrarySource(fusion, config));
    const std::string& name = fusion.name();
    XTUNE_ASSIGN_OR_RETURN(
        std::unique_ptr<Kernel> pack_a,
        CompileForEmulator(*compiler_, name + ".pack_a", g.pack_a, device()));
    XTUNE_ASSIGN_OR_RETURN(
        std::unique_ptr<Kernel> pack_b,
        CompileForEmulator(*compiler_, name + ".pack_b", g.pack_b, device()));
    std::unique_ptr<Kernel> epilogue;
    if (g.has_epilogue) {
      XTUNE_ASSIGN_OR_RETURN(epilogue,
                             CompileForEmulator(*compiler_, name + ".epilogue",
                                                g.epilogue, device()));
    }
    auto gemm = [](const GemmShape& s, DeviceBuffer a, DeviceBuffer b,
                   DeviceBuffer c) -> absl::Status {
      int64_t esize = DTypeByteSize(s.pack_type);
      if (a.bytes < s.batch * s.m * s.k * esize ||
          b.bytes < s.batch * s.k * s.n * esize ||
          c.bytes < s.batch * s.m * s.n * 4) {
        return absl::InternalError("gemm buffers smaller than the gemm");
      }
      HostGemm(s, a.opaque, b.opaque, static_cast<float*>(c.opaque));
      return absl::OkStatus();
    };
    return std::unique_ptr<Kernel>(new LibraryGemmKernel(
        name, this, g.shape, std::move(pack_a), std::move(pack_b),
        std::move(epilogue), gemm));
  }
  if (config.kind() == "triton_gemm") {
    XTUNE_ASSIGN_OR_RETURN(TritonGemm g, TritonSource(fusion, config));
    XTUNE_ASSIGN_OR_RETURN(
        std::unique_ptr<Kernel> main,
        CompileForEmulator(*compiler_, fusion.name(), g.main, device()));
    if (g.splits == 1) return main;
    XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Kernel> finish,
                           CompileForEmulator(*compiler_, fusion.name() + ".epilogue",
                                              g.epilogue, device()));
    return std::unique_ptr<Kernel>(new SplitKKernel(
        fusion.name(), this, g.partial_bytes, std::move(main), std::move(finish),
        nullptr));
  }
  XTUNE_ASSIGN_OR_RETURN(CudaKernelSource source, Source(fusion, config));
  return CompileForEmulator(*compiler_, fusion.name(), source, device());
}

BackendRegistration EmulatorBackendRegistration() {
  return {"cuda_emulator",
          "the CUDA backend's kernels run on the CPU by a strict emulator of "
          "the CUDA execution model (checks every candidate, never tunes)",
          [](const BackendOptions& options)
              -> absl::StatusOr<std::unique_ptr<Backend>> {
            XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<EmulatorBackend> b,
                                   EmulatorBackend::Create(options));
            return std::unique_ptr<Backend>(std::move(b));
          },
          [](const BackendOptions& options) -> absl::StatusOr<std::string> {
            XTUNE_ASSIGN_OR_RETURN(GpuDeviceInfo d,
                                   GpuTargetFromOptions(options, "h200"));
            return CudaDeviceString(d);
          }};
}

}  // namespace xtune::cuda
