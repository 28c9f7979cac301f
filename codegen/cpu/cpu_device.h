// What the CPU backend needs to know about the host: SIMD width, threads,
// caches, and the device string of cache keys.
#ifndef XTUNE_CODEGEN_CPU_CPU_DEVICE_H_
#define XTUNE_CODEGEN_CPU_CPU_DEVICE_H_

#include <cstdint>
#include <string>

namespace xtune::cpu {

struct CpuDevice {
  std::string model;     // /proc/cpuinfo "model name"
  std::string isa;       // "avx512", "avx2", "sse4" or "generic"
  int simd_floats = 4;   // f32 lanes of one vector register
  int threads = 1;       // threads the backend uses
  int64_t l2_bytes = 0;
  int64_t l3_bytes = 0;

  // "CPU: AMD EPYC, ISA: avx2, Threads: 2, L2: 512 KiB, L3: 32 MiB" — what
  // changes performance, nothing that differs between two units of the same
  // machine type.
  std::string Description() const;
};

// Reads the host. `threads` <= 0 means all hardware threads.
CpuDevice DetectCpu(int threads);

}  // namespace xtune::cpu

#endif  // XTUNE_CODEGEN_CPU_CPU_DEVICE_H_
