// The CUDA emulator's runtime: runs a kernel built against the emulated
// prelude (codegen/cuda/prelude/xt_emu.h) on the CPU, one block at a time,
// each thread of the block a fiber (Boost.Context) that switches at
// barriers and warp collectives. It is stricter than the hardware:
// - shared memory is poisoned when declared and outputs at launch (0xFF
//   bytes); reading a shared word no thread wrote, or an output element
//   before it is written, is an error;
// - cp.async data lands at the latest point the ISA allows, the
//   cp.async.wait_group that covers its group; reading it earlier, or
//   writing it (a store or another cp.async, by any thread, the issuing
//   one included), is an error naming the copy;
// - a block may use the shared memory its launch gets: 48 KB of static
//   __shared__ arrays (the kernels declare no dynamic shared memory), not
//   the device's opt-in maximum;
// - every global and shared access is bounds-checked;
// - a barrier that some thread of the block does not reach (it exited, or
//   waits at another barrier) and warp collectives not reached by every
//   lane are errors;
// - two threads touching one shared byte, one of them writing, with no
//   barrier between them is a race (per byte: threads may own the halves
//   of a word, as on the hardware), as are two threads writing one
//   output element, and an output element left unwritten.
// Errors name the kernel, the line of the generated source, the block and
// the thread. Blocks run in order on the calling thread.
#ifndef XTUNE_CODEGEN_CUDA_EMULATOR_EMULATOR_H_
#define XTUNE_CODEGEN_CUDA_EMULATOR_EMULATOR_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/types/span.h"

struct XtEmuApi;
struct XtEmuBuffer;
struct XtEmuThread;

namespace xtune::cuda {

// The entry points of a kernel object built against xt_emu.h.
struct EmulatedKernel {
  std::string name;  // for messages, e.g. "fusion.3"
  void (*bind)(const XtEmuApi*) = nullptr;
  void (*entry)(const XtEmuBuffer*) = nullptr;
};

// The static shared memory a kernel may declare (CUDA's limit without the
// dynamic opt-in, cudaFuncAttributeMaxDynamicSharedMemorySize): a larger
// static declaration fails to load on every GPU.
inline constexpr int64_t kStaticSharedBytesLimit = 48 * 1024;

struct EmulatorLimits {
  // Of the emulated device (GpuDeviceInfo). Default: an H200's.
  int max_threads_per_block = 1024;
  // What a launch of the kernel gets: the static limit (the kernels use no
  // dynamic shared memory), or less on a device with less.
  int64_t shared_bytes_per_block = kStaticSharedBytesLimit;
};

// One kernel argument: host memory the kernel reads (input) or writes
// (output; poisoned at launch and tracked per element of `elem_bytes`).
// An in-place output (an in-place dynamic-update-slice's, whose kernel
// writes only a window) keeps its values at launch and may be left partly
// unwritten; two threads writing one element and reads of an element no
// thread wrote are still errors.
struct EmulatorArg {
  void* data = nullptr;
  int64_t bytes = 0;
  int elem_bytes = 1;
  bool output = false;
  bool in_place = false;
};

// Runs `kernel` on a grid of `grid` blocks of `block` threads. Errors:
// InvalidArgument for a launch the device would refuse (block size,
// grid); Internal with the first problem the checks found, as
// "<kernel>.cu:<line>: <what> (block B, thread T)".
absl::Status EmulateLaunch(const EmulatedKernel& kernel, int64_t grid,
                           int block, absl::Span<const EmulatorArg> args,
                           const EmulatorLimits& limits);

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_EMULATOR_EMULATOR_H_
