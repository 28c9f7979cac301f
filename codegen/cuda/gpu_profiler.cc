#include "codegen/cuda/gpu_profiler.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "codegen/cuda/cuda_backend.h"
#include "codegen/cuda/gpu_kernel.h"
#include "codegen/cuda/library_gemm_kernel.h"
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
    }
    runnable->push_back(gpu != nullptr);
    setup.kernels.push_back(std::move(wk));
  }
  return EncodeGpuSetup(setup);
}

absl::StatusOr<ProfileResult> GpuProfiler::Profile(
    Kernel& kernel, const KernelConfig& config, absl::Span<const Literal> inputs,
    const Shape& output_shape, const ProfileOptions& options) {
  if (dynamic_cast<LibraryGemmKernel*>(&kernel) == nullptr &&
      dynamic_cast<SplitKKernel*>(&kernel) == nullptr) {
    return WorkerProfiler::Profile(kernel, config, inputs, output_shape, options);
  }
  if (backend_ == nullptr || backend_->driver() == nullptr) {
    return absl::InvalidArgumentError(
        "this GPU profiler has no backend to run cuBLASLt candidates with");
  }
  return ProfileHere(kernel, inputs, output_shape, options);
}

absl::StatusOr<ProfileResult> GpuProfiler::ProfileHere(
    Kernel& kernel, absl::Span<const Literal> inputs, const Shape& output_shape,
    const ProfileOptions& options) {
  // The steps of a composite kernel, queued without waiting.
  auto enqueue = [&kernel](absl::Span<const DeviceBuffer> in, DeviceBuffer out) {
    if (auto* l = dynamic_cast<LibraryGemmKernel*>(&kernel)) return l->Enqueue(in, out);
    return static_cast<SplitKKernel&>(kernel).Enqueue(in, out);
  };
  CudaBackend& b = *backend_;
  Driver& d = *b.driver();
  std::vector<DeviceBuffer> buffers;  // inputs, output, flush
  void* start = nullptr;
  void* end = nullptr;
  auto release = [&] {
    for (DeviceBuffer x : buffers) b.Free(x);
    d.DestroyEvent(start);
    d.DestroyEvent(end);
  };
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
    DeviceBuffer flush;
    const bool flushing = options.flush_bytes > 0 && flush_bytes_ > 0;
    if (flushing) {
      XTUNE_ASSIGN_OR_RETURN(flush, b.Allocate(flush_bytes_));
      buffers.push_back(flush);
    }
    XTUNE_ASSIGN_OR_RETURN(start, d.CreateEvent());
    XTUNE_ASSIGN_OR_RETURN(end, d.CreateEvent());
    using Clock = std::chrono::steady_clock;
    auto since = [](Clock::time_point t) {
      return std::chrono::duration<double>(Clock::now() - t).count();
    };
    Clock::time_point warm = Clock::now();
    for (int i = 0; i < 100; ++i) {
      XTUNE_RETURN_IF_ERROR(kernel.Run(in, out));
      if (i >= 1 && since(warm) >= 5e-3) break;
    }
    Clock::time_point begin = Clock::now();
    const double budget = absl::ToDoubleSeconds(options.time_budget);
    for (int flushes = 1;
         static_cast<int>(result.seconds.size()) < options.max_repetitions;
         ++flushes) {
      if (static_cast<int>(result.seconds.size()) >= options.min_repetitions &&
          since(begin) >= budget) {
        break;
      }
      if (flushing) {
        XTUNE_RETURN_IF_ERROR(d.Memset(reinterpret_cast<uint64_t>(flush.opaque),
                                       static_cast<uint8_t>(flushes), flush.bytes));
      }
      // The steps queued back to back between the events, one wait after.
      XTUNE_RETURN_IF_ERROR(d.Record(start));
      XTUNE_RETURN_IF_ERROR(enqueue(in, out));
      XTUNE_RETURN_IF_ERROR(d.Record(end));
      XTUNE_ASSIGN_OR_RETURN(float ms, d.ElapsedMilliseconds(start, end));
      result.seconds.push_back(ms * 1e-3);
    }
    XTUNE_RETURN_IF_ERROR(b.CopyFromDevice(out, result.output.bytes().data()));
    return result;
  };
  absl::StatusOr<ProfileResult> r = run();
  release();
  return r;
}

}  // namespace xtune::cuda
