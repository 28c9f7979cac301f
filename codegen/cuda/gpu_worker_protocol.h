// The setup message from GpuProfiler (gpu_profiler.h) to the
// xtune_gpu_worker program (gpu_worker_main.cc), in util/wire.h fields;
// commands, replies and the shared memory (fd 4, the fusion's inputs and
// output at the offsets named here) are WorkerProfiler's
// (codegen/worker_profiler.h).
//
//   setup: kGpuSetupMagic flush_bytes shared_bytes
//          inputs {offset bytes}... output_offset output_bytes
//          kernels {name cubin grid block}...
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

namespace xtune::cuda {

inline constexpr int64_t kGpuSetupMagic = 0x78746731;  // "xtg1"

struct GpuWorkerKernel {
  std::string name;  // the fusion, for messages
  std::string cubin;
  int64_t grid = 1;
  int64_t block = 1;
};

struct GpuWorkerSetup {
  int64_t flush_bytes = 0;  // an L2 flush writes this many bytes
  int64_t shared_bytes = 0;
  std::vector<std::pair<int64_t, int64_t>> inputs;  // offset, bytes
  int64_t output_offset = 0;
  int64_t output_bytes = 0;
  std::vector<GpuWorkerKernel> kernels;
};

inline std::string EncodeGpuSetup(const GpuWorkerSetup& s) {
  WireWriter w;
  w.Int(kGpuSetupMagic);
  w.Int(s.flush_bytes);
  w.Int(s.shared_bytes);
  w.Int(static_cast<int64_t>(s.inputs.size()));
  for (const auto& [offset, bytes] : s.inputs) {
    w.Int(offset);
    w.Int(bytes);
  }
  w.Int(s.output_offset);
  w.Int(s.output_bytes);
  w.Int(static_cast<int64_t>(s.kernels.size()));
  for (const GpuWorkerKernel& k : s.kernels) {
    w.Str(k.name);
    w.Str(k.cubin);
    w.Int(k.grid);
    w.Int(k.block);
  }
  return w.bytes();
}

// False when the bytes are not a whole, sane setup.
inline bool DecodeGpuSetup(const std::string& bytes, GpuWorkerSetup* s) {
  WireReader r(bytes);
  if (r.Int() != kGpuSetupMagic) return false;
  s->flush_bytes = r.Int();
  s->shared_bytes = r.Int();
  if (s->flush_bytes < 0 || s->flush_bytes > (int64_t{1} << 32) ||
      s->shared_bytes < 0) {
    return false;
  }
  int64_t n = r.Int();
  if (n < 0 || n > 4096) return false;
  for (int64_t i = 0; i < n && !r.failed(); ++i) {
    int64_t offset = r.Int();
    int64_t size = r.Int();
    s->inputs.push_back({offset, size});
  }
  s->output_offset = r.Int();
  s->output_bytes = r.Int();
  int64_t kernels = r.Int();
  if (kernels < 0 || kernels > 100000) return false;
  for (int64_t i = 0; i < kernels && !r.failed(); ++i) {
    GpuWorkerKernel k;
    k.name = r.Str();
    k.cubin = r.Str();
    k.grid = r.Int();
    k.block = r.Int();
    if (k.grid < 1 || k.grid > 0x7fffffff || k.block < 1 || k.block > 1024) {
      return false;
    }
    s->kernels.push_back(std::move(k));
  }
  if (r.failed() || !r.done()) return false;
  auto inside = [&](int64_t offset, int64_t size) {
    return offset >= 0 && size >= 0 && offset <= s->shared_bytes &&
           size <= s->shared_bytes - offset;
  };
  for (const auto& [offset, size] : s->inputs) {
    if (!inside(offset, size)) return false;
  }
  return inside(s->output_offset, s->output_bytes);
}

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_GPU_WORKER_PROTOCOL_H_
