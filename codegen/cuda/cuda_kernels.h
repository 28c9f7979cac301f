// Generators of CUDA C++ kernels for loop and reduction fusions, in the
// device vocabulary of the prelude (prelude/xt_gpu.cuh for NVRTC,
// prelude/xt_emu.h for the emulator): one body, built both ways.
//
// Every kernel is `xt_kernel(inputs..., output)` with the fusion's
// parameters in order, each in the physical layout of its shape, on a 1-D
// grid. Configs (DESIGN §6):
//   cuda_loop        {block_size, vector_width, unroll}: each thread
//                    computes unroll groups of vector_width consecutive
//                    output elements (physical order); consecutive threads
//                    take consecutive groups.
//   cuda_row_reduce  {block_size, rows_per_block, vector_width, unroll}:
//                    block_size / rows_per_block threads (a multiple of 32)
//                    share a row; each pass accumulates a row's reduces,
//                    combines them with warp shuffles and (more than one
//                    warp a row) shared memory, and feeds later passes
//                    (softmax, layer norm).
//   cuda_col_reduce  {block_size, vector_width, unroll}: a block takes
//                    32 x vector_width columns; block_size / 32 rows of
//                    threads stride over the reduced rows, partial sums
//                    meet in shared memory.
// Reductions must be simple (add/mul/max/min of f16/bf16/f32, accumulated
// in f32); others, gemms and tuple results are Unimplemented (the
// evaluator computes them).
#ifndef XTUNE_CODEGEN_CUDA_CUDA_KERNELS_H_
#define XTUNE_CODEGEN_CUDA_CUDA_KERNELS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "codegen/kernel_config.h"
#include "ir/computation.h"

namespace xtune::cuda {

struct CudaKernelSource {
  std::string body;  // after the prelude; starts with "#line 1"
  int64_t grid = 1;
  int block = 1;
  // Bytes of one element of each input, then of the output.
  std::vector<int> elem_bytes;
  // The input whose buffer the output may be (an in-place
  // dynamic-update-slice, fusion/in_place.h): the kernel writes only the
  // update's window, so whoever launches it first copies that input into
  // the output when the buffers differ. -1: none.
  int in_place_input = -1;
};

struct CudaKernelOptions {
  // Round f16/bf16 reduction accumulators to their type after every
  // combine (--xla_allow_excess_precision=false). Default false.
  bool round_low_precision_accumulators = false;
  // f32 dots that allow it (DotAllowsTf32) multiply in TF32 on tensor
  // cores (sm_80 and later, Backend::Tf32Dots). Default false.
  bool tf32 = false;
  // Dots whose operands are both e4m3/e5m2 fusion parameters (each possibly
  // converted to f16/bf16/f32 and multiplied by a broadcast scalar) multiply
  // the 8-bit values on tensor cores (mma m16n8k32, sm_89 and later), the
  // scalars applied to the accumulators. Default false.
  bool fp8_mma = false;
  // The name in "#line 1 \"<name>.cu\"". Default "xt_kernel".
  std::string name = "xt_kernel";
};

// The kernel for `config` (its kind picks the generator). InvalidArgument
// for a config the generator cannot take (block not a multiple of 32, ...),
// Unimplemented for what it cannot generate.
absl::StatusOr<CudaKernelSource> CudaKernel(const Computation& fused,
                                            const KernelConfig& config,
                                            const CudaKernelOptions& options);

// The preludes (embedded from prelude/*.h at build time), each followed by
// the shared scalar helpers (codegen/kernel_text.h).
const std::string& GpuPrelude();       // xt_gpu.cuh + xt_scalar.h
const std::string& EmulatorPrelude();  // xt_emu.h + xt_scalar.h

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_CUDA_KERNELS_H_
