#include "codegen/cuda/gpu_profiler.h"

#include "absl/strings/str_cat.h"
#include "codegen/cuda/cuda_backend.h"
#include "codegen/cuda/gpu_kernel.h"
#include "codegen/cuda/gpu_timing.h"
#include "util/status_macros.h"
#include "codegen/cuda/gpu_worker_protocol.h"
#include "util/worker_path.h"

namespace xtune::cuda {

absl::StatusOr<std::string> FindGpuWorker() {
  WorkerProgram program{"xtune_gpu_worker", "XTUNE_GPU_WORKER",
                        "the cuda backend's worker program", {}};
#ifdef XTUNE_GPU_WORKER_BUILD_PATH
  program.built_in.push_back(XTUNE_GPU_WORKER_BUILD_PATH);
#endif
#ifdef XTUNE_GPU_WORKER_INSTALL_PATH
  program.built_in.push_back(XTUNE_GPU_WORKER_INSTALL_PATH);
#endif
  return FindWorkerProgram(program);
}

absl::StatusOr<std::string> GpuProfiler::FindWorker() const {
  return FindGpuWorker();
}

std::string GpuProfiler::SetupMessage(absl::Span<Kernel* const> kernels,
                                      const WorkerLayout& layout,
                                      std::vector<bool>* runnable) const {
  GpuWorkerSetup setup;
  setup.flush_bytes = flush_bytes_;
  setup.layout = layout;
  for (Kernel* k : kernels) {
    GpuWorkerKernel wk;
    auto* gpu = dynamic_cast<GpuKernel*>(k);
    if (gpu != nullptr) {
      wk.name = gpu->name();
      wk.cubin = gpu->cubin();
      wk.grid = gpu->grid();
      wk.block = gpu->block();
      wk.in_place_input = gpu->in_place_input();
    }
    runnable->push_back(gpu != nullptr);
    setup.kernels.push_back(std::move(wk));
  }
  return EncodeGpuSetup(setup);
}

absl::StatusOr<ProfileResult> GpuProfiler::Profile(
    Kernel& kernel, const KernelConfig& config, absl::Span<const Literal> inputs,
    const Shape& output_shape, const ProfileOptions& options) {
  // Single launches go to the worker; composite kernels (several steps)
  // are timed here.
  auto* queued = dynamic_cast<QueuedKernel*>(&kernel);
  if (queued == nullptr || dynamic_cast<GpuKernel*>(&kernel) != nullptr) {
    return WorkerProfiler::Profile(kernel, config, inputs, output_shape, options);
  }
  if (backend_ == nullptr || backend_->driver() == nullptr) {
    return absl::InvalidArgumentError(
        "this GPU profiler has no backend to run cuBLASLt candidates with");
  }
  return ProfileHere(*queued, inputs, output_shape, options);
}

absl::StatusOr<ProfileResult> GpuProfiler::ProfileHere(
    QueuedKernel& kernel, absl::Span<const Literal> inputs,
    const Shape& output_shape, const ProfileOptions& options) {
  CudaBackend& b = *backend_;
  Driver& d = *b.driver();
  std::vector<DeviceBuffer> buffers;  // inputs, output, flush
  auto run = [&]() -> absl::StatusOr<ProfileResult> {
    for (const Literal& l : inputs) {
      XTUNE_ASSIGN_OR_RETURN(DeviceBuffer x, b.Allocate(l.bytes().size()));
      buffers.push_back(x);
      XTUNE_RETURN_IF_ERROR(b.CopyToDevice(l.bytes().data(), x));
    }
    std::vector<DeviceBuffer> in = buffers;
    ProfileResult result;
    result.output = Literal(output_shape);
    XTUNE_ASSIGN_OR_RETURN(DeviceBuffer out,
                           b.Allocate(result.output.bytes().size()));
    buffers.push_back(out);
    XTUNE_RETURN_IF_ERROR(
        d.Memset(reinterpret_cast<uint64_t>(out.opaque), 0xFF, out.bytes));
    DeviceTimingOptions o;
    o.min_warmup_runs = options.min_warmup_runs;
    o.min_repetitions = options.min_repetitions;
    o.max_repetitions = options.max_repetitions;
    o.budget_seconds = absl::ToDoubleSeconds(options.time_budget);
    if (options.flush_bytes > 0 && flush_bytes_ > 0) {
      XTUNE_ASSIGN_OR_RETURN(DeviceBuffer flush, b.Allocate(flush_bytes_));
      buffers.push_back(flush);
      o.flush = reinterpret_cast<uint64_t>(flush.opaque);
      o.flush_bytes = flush.bytes;
    }
    // The steps queued back to back between the events, one wait after.
    XTUNE_ASSIGN_OR_RETURN(result.seconds,
                           TimeOnDevice(d, [&] { return kernel.Enqueue(in, out); }, o));
    XTUNE_RETURN_IF_ERROR(b.CopyFromDevice(out, result.output.bytes().data()));
    return result;
  };
  absl::StatusOr<ProfileResult> r = run();
  for (DeviceBuffer x : buffers) b.Free(x);
  return r;
}

}  // namespace xtune::cuda
