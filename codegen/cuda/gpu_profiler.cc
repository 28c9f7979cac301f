#include "codegen/cuda/gpu_profiler.h"

#include "codegen/cuda/gpu_kernel.h"
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
  setup.shared_bytes = layout.shared_bytes;
  setup.inputs = layout.inputs;
  setup.output_offset = layout.output_offset;
  setup.output_bytes = layout.output_bytes;
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

}  // namespace xtune::cuda
