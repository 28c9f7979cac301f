// What every generated CUDA kernel is framed by (cuda_kernels.cc,
// library_gemm.cc): the signature `xt_kernel(inputs..., output)` with each
// buffer's storage type, the emulator's entry point, the elemental emitter
// set up for device code, and the assembled CudaKernelSource.
#ifndef XTUNE_CODEGEN_CUDA_KERNEL_FRAME_H_
#define XTUNE_CODEGEN_CUDA_KERNEL_FRAME_H_

#include <string>
#include <vector>

#include "codegen/cpu/code_buffer.h"
#include "codegen/cpu/elemental.h"
#include "codegen/cuda/cuda_kernels.h"
#include "ir/computation.h"
#include "ir/dtype.h"

namespace xtune::cuda {

struct Frame {
  std::string signature;  // "XT_KERNEL(block) xt_kernel(XT_IN(float) xt_p0, ...)"
  std::string entry;      // xt_emu_entry, under #ifdef XT_EMULATOR
  std::vector<int> elem_bytes;
};

// Inputs are named xt_p0, xt_p1, ...; the output xt_out.
Frame MakeKernelFrame(const std::vector<DType>& inputs, DType output, int block);

// An emitter reading input i as XT_G(xt_p<i>), constant arrays in device
// memory; `prefix` names its temporaries.
cpu::ElementalEmitter MakeEmitter(const char* prefix);

// "#line 1 <name>.cu", the emitter's globals, `functions` (device
// functions the body calls), the body and the entry.
CudaKernelSource Assemble(const CudaKernelOptions& options, const Frame& frame,
                          const cpu::ElementalEmitter& emitter,
                          const cpu::CodeBuffer& body, int64_t grid,
                          int64_t block, const std::string& functions = "");

inline int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The element types of the fusion's parameters, in order.
std::vector<DType> ParameterTypes(const Computation& fused);

// Host access to element i of a dense buffer of f32, f16 or bf16 (the
// library candidates' packed operands, in the emulator).
float LoadPacked(const void* p, int64_t i, DType t);
void StorePacked(void* p, int64_t i, DType t, float v);

// "XT_IN(float) xt_p0, XT_IN(uint16_t) xt_p1, " for the fusion's parameters
// (each followed by ", "), to declare a device function taking them.
std::string ParameterDecls(const Computation& fused);
// "xt_p0, xt_p1, " to pass them on.
std::string ParameterNames(const Computation& fused);

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_KERNEL_FRAME_H_
