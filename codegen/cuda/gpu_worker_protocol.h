// The setup message from GpuProfiler (gpu_profiler.h) to the
// xtune_gpu_worker program (gpu_worker_main.cc), in util/wire.h fields;
// commands, replies and the shared memory (fd 4, the fusion's inputs and
// output at the offsets named here) are WorkerProfiler's
// (codegen/worker_profiler.h).
//
//   setup: kGpuSetupMagic flush_bytes layout (util/worker_channel.h)
//          kernels {name cubin grid block in_place_input}...
//
// The worker copies the inputs to device memory once, loads each kernel's
// cubin on its first command, and copies the output back after each.
#ifndef XTUNE_CODEGEN_CUDA_GPU_WORKER_PROTOCOL_H_
#define XTUNE_CODEGEN_CUDA_GPU_WORKER_PROTOCOL_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "util/wire.h"
#include "util/worker_channel.h"

namespace xtune::cuda {

inline constexpr int64_t kGpuSetupMagic = 0x78746732;  // "xtg2"

struct GpuWorkerKernel {
  std::string name;  // the fusion, for messages
  std::string cubin;
  int64_t grid = 1;
  int64_t block = 1;
  // CudaKernelSource::in_place_input: the worker copies that input into the
  // output once before timing (the kernel writes only a window). -1: none.
  int64_t in_place_input = -1;
};

struct GpuWorkerSetup {
  int64_t flush_bytes = 0;  // an L2 flush writes this many bytes
  WorkerLayout layout;
  std::vector<GpuWorkerKernel> kernels;
};

inline std::string EncodeGpuSetup(const GpuWorkerSetup& s) {
  WireWriter w;
  w.Int(kGpuSetupMagic);
  w.Int(s.flush_bytes);
  EncodeWorkerLayout(s.layout, &w);
  w.Int(static_cast<int64_t>(s.kernels.size()));
  for (const GpuWorkerKernel& k : s.kernels) {
    w.Str(k.name);
    w.Str(k.cubin);
    w.Int(k.grid);
    w.Int(k.block);
    w.Int(k.in_place_input);
  }
  return w.bytes();
}

// False when the bytes are not a whole, sane setup.
inline bool DecodeGpuSetup(const std::string& bytes, GpuWorkerSetup* s) {
  WireReader r(bytes);
  if (r.Int() != kGpuSetupMagic) return false;
  s->flush_bytes = r.Int();
  if (s->flush_bytes < 0 || s->flush_bytes > (int64_t{1} << 32) ||
      !DecodeWorkerLayout(&r, &s->layout)) {
    return false;
  }
  int64_t kernels = r.Int();
  if (kernels < 0 || kernels > 100000) return false;
  for (int64_t i = 0; i < kernels && !r.failed(); ++i) {
    GpuWorkerKernel k;
    k.name = r.Str();
    k.cubin = r.Str();
    k.grid = r.Int();
    k.block = r.Int();
    k.in_place_input = r.Int();
    if (k.grid < 1 || k.grid > 0x7fffffff || k.block < 1 || k.block > 1024 ||
        k.in_place_input < -1 ||
        k.in_place_input >= static_cast<int64_t>(s->layout.inputs.size())) {
      return false;
    }
    s->kernels.push_back(std::move(k));
  }
  return !r.failed() && r.done();
}

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_GPU_WORKER_PROTOCOL_H_
