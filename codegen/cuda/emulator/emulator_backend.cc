#include "codegen/cuda/emulator/emulator_backend.h"

#include <algorithm>
#include <cstring>

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
    const int in_place = source_.in_place_input;
    if (in_place >= 0 && inputs[in_place].opaque != output.opaque) {
      std::memcpy(output.opaque, inputs[in_place].opaque,
                  std::min(output.bytes, inputs[in_place].bytes));
    }
    args.push_back({output.opaque, output.bytes, source_.elem_bytes.back(),
                    true, in_place >= 0});
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

namespace {

// What every emulated kernel's source exports.
const std::vector<std::string>& EmulatorSymbols() {
  static const auto* symbols = new std::vector<std::string>{
      "xt_emu_bind", "xt_emu_entry"};
  return *symbols;
}

std::string EmulatorText(const CudaKernelSource& source) {
  return EmulatorPrelude() + source.body;
}

// The kernel `name` of `loaded` (compiled from EmulatorText(source)).
absl::StatusOr<std::unique_ptr<Kernel>> EmulatorKernelOf(
    const cpu::LoadedKernel& loaded, const std::string& name,
    const CudaKernelSource& source, const GpuDeviceInfo& device) {
  EmulatedKernel entry;
  entry.name = name;
  entry.bind = reinterpret_cast<void (*)(const XtEmuApi*)>(
      loaded.Symbol("xt_emu_bind"));
  entry.entry = reinterpret_cast<void (*)(const XtEmuBuffer*)>(
      loaded.Symbol("xt_emu_entry"));
  if (entry.bind == nullptr || entry.entry == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": the kernel object lacks the emulator's entry points "
        "(xt_emu_entry missing from the source?)"));
  }
  EmulatorLimits limits;
  limits.max_threads_per_block = device.threads_per_block_limit;
  // A launch gets 48 KB of static shared memory (no kernel opts in to more
  // through dynamic shared memory), whatever the device's opt-in maximum.
  limits.shared_bytes_per_block =
      std::min<int64_t>(kStaticSharedBytesLimit, device.shared_memory_per_block_optin);
  return std::unique_ptr<Kernel>(
      new EmulatorKernel(loaded.object, std::move(entry), source, limits));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Kernel>> CompileForEmulator(
    cpu::HostCompiler& compiler, const std::string& name,
    const CudaKernelSource& source, const GpuDeviceInfo& device) {
  XTUNE_ASSIGN_OR_RETURN(
      cpu::LoadedKernel loaded,
      compiler.LoadKernel(EmulatorText(source), EmulatorSymbols()));
  return EmulatorKernelOf(loaded, name, source, device);
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

absl::StatusOr<EmulatorBackend::Plan> EmulatorBackend::PlanFor(
    const Instruction& fusion, const KernelConfig& config) {
  Plan plan;
  const std::string& name = fusion.name();
  if (config.kind() == "cuda_cublaslt") {
    // The library candidate: its generated pack and epilogue kernels run
    // emulated, cuBLASLt's gemm as HostGemm.
    XTUNE_ASSIGN_OR_RETURN(LibraryGemm g, LibrarySource(fusion, config));
    plan.parts = {{name + ".pack_a", g.pack_a}, {name + ".pack_b", g.pack_b}};
    if (g.has_epilogue) plan.parts.push_back({name + ".epilogue", g.epilogue});
    const GemmShape shape = g.shape;
    plan.assemble = [this, name, shape](std::vector<std::unique_ptr<Kernel>> k)
        -> std::unique_ptr<Kernel> {
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
      std::unique_ptr<Kernel> epilogue = k.size() > 2 ? std::move(k[2]) : nullptr;
      return std::unique_ptr<Kernel>(new LibraryGemmKernel(
          name, this, shape, std::move(k[0]), std::move(k[1]),
          std::move(epilogue), gemm));
    };
    return plan;
  }
  if (config.kind() == "cuda_cudnn") {
    // The cuDNN candidate: its generated pack and epilogue kernels run
    // emulated, cuDNN's convolution as HostConv.
    XTUNE_ASSIGN_OR_RETURN(LibraryConv c, ConvSource(fusion, config));
    plan.parts = {{name + ".pack_x", c.pack_x},
                  {name + ".pack_w", c.pack_w},
                  {name + ".epilogue", c.epilogue}};
    const ConvShape shape = c.shape;
    plan.assemble = [this, name, shape](std::vector<std::unique_ptr<Kernel>> k)
        -> std::unique_ptr<Kernel> {
      auto conv = [](const ConvShape& s, DeviceBuffer x, DeviceBuffer w,
                     DeviceBuffer y) -> absl::Status {
        const int64_t esize = DTypeByteSize(s.pack_type);
        if (x.bytes < s.InElements() * esize || w.bytes < s.KernelElements() * esize ||
            y.bytes < s.OutElements() * esize) {
          return absl::InternalError("convolution buffers smaller than the convolution");
        }
        HostConv(s, x.opaque, w.opaque, y.opaque);
        return absl::OkStatus();
      };
      return std::unique_ptr<Kernel>(new LibraryConvKernel(
          name, this, shape, std::move(k[0]), std::move(k[1]), std::move(k[2]), conv));
    };
    return plan;
  }
  if (config.kind() == "triton_gemm" || config.kind() == kImplicitGemmKind) {
    XTUNE_ASSIGN_OR_RETURN(TritonGemm g, TritonSource(fusion, config));
    plan.parts = {{name, g.main}};
    if (g.splits == 1) return plan;
    plan.parts.push_back({name + ".epilogue", g.epilogue});
    const int64_t partial_bytes = g.partial_bytes;
    plan.assemble = [this, name, partial_bytes](
                        std::vector<std::unique_ptr<Kernel>> k) -> std::unique_ptr<Kernel> {
      return std::unique_ptr<Kernel>(new SplitKKernel(
          name, this, partial_bytes, std::move(k[0]), std::move(k[1]), nullptr));
    };
    return plan;
  }
  XTUNE_ASSIGN_OR_RETURN(CudaKernelSource source, Source(fusion, config));
  plan.parts = {{name, std::move(source)}};
  return plan;
}

absl::StatusOr<std::unique_ptr<Kernel>> EmulatorBackend::Compile(
    const Instruction& fusion, const KernelConfig& config) {
  std::vector<absl::StatusOr<std::unique_ptr<Kernel>>> kernels =
      CompileKernels({KernelRequest{&fusion, config}});
  return std::move(kernels[0]);
}

std::vector<absl::StatusOr<std::unique_ptr<Kernel>>>
EmulatorBackend::CompileKernels(absl::Span<const KernelRequest> requests) {
  // Every part of every request, as one bundle (HostCompiler::LoadKernels).
  std::vector<absl::StatusOr<Plan>> plans;
  std::vector<std::string> texts;
  for (const KernelRequest& r : requests) {
    plans.push_back(PlanFor(*r.fusion, r.config));
    if (!plans.back().ok()) continue;
    for (const auto& part : plans.back()->parts) {
      texts.push_back(EmulatorText(part.second));
    }
  }
  std::vector<absl::StatusOr<cpu::LoadedKernel>> loaded =
      compiler_->LoadKernels(texts, EmulatorSymbols());
  std::vector<absl::StatusOr<std::unique_ptr<Kernel>>> kernels;
  size_t next = 0;
  for (absl::StatusOr<Plan>& plan : plans) {
    if (!plan.ok()) {
      kernels.push_back(plan.status());
      continue;
    }
    std::vector<std::unique_ptr<Kernel>> parts;
    absl::Status failed;
    for (const auto& [name, source] : plan->parts) {
      const absl::StatusOr<cpu::LoadedKernel>& l = loaded[next++];
      if (!failed.ok()) continue;
      if (!l.ok()) {
        failed = l.status();
        continue;
      }
      absl::StatusOr<std::unique_ptr<Kernel>> k =
          EmulatorKernelOf(*l, name, source, device());
      if (k.ok()) {
        parts.push_back(*std::move(k));
      } else {
        failed = k.status();
      }
    }
    if (!failed.ok()) {
      kernels.push_back(failed);
    } else if (plan->assemble) {
      kernels.push_back(plan->assemble(std::move(parts)));
    } else {
      kernels.push_back(std::move(parts[0]));
    }
  }
  return kernels;
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
