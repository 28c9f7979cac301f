// The library candidate of XLA's cuDNN convolution calls (kind `cuda_cudnn`,
// XLA's ConvKey{algorithm, tensor_ops_enabled}): a library conv fusion
// (fusion/library_call_expander.h) of a forward or bias+activation call,
// as a user would run it around cuDNN's forward convolution:
//   1. pack_x: a generated kernel that writes the convolution's input,
//      padded and dilated by lhs_dilate (both as zeros), dense [batch,
//      spatial..., features] (NHWC) in `pack_type`;
//   2. pack_w: likewise the kernel, reversed where rhs_reversal, as
//      [out features, spatial..., in features per group] (KRSC);
//   3. the convolution, y = x (*) w with the stride, rhs dilation and
//      feature groups and no padding, dense [batch, out spatial..., out
//      features] in `pack_type`, products summed in f32 (cuDNN's
//      cudnnConvolutionForward on the GPU, HostConv in the emulator);
//   4. epilogue: a generated kernel applying the fusion's elementwise ops
//      to y and storing its result.
// pack_type is f16 or bf16 when both operands are (cuDNN's pseudo-half
// configs, on tensor cores), f32 otherwise. Padding and dilation done by
// pack_x leave cuDNN only what it takes everywhere: symmetric zero padding.
#ifndef XTUNE_CODEGEN_CUDA_LIBRARY_CONV_H_
#define XTUNE_CODEGEN_CUDA_LIBRARY_CONV_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "codegen/cuda/cuda_kernels.h"
#include "ir/computation.h"

namespace xtune::cuda {

struct ConvShape {
  int64_t batch = 1, in_features = 1, out_features = 1, groups = 1;
  std::vector<int64_t> in_spatial;      // of the packed (padded) input
  std::vector<int64_t> kernel_spatial;
  std::vector<int64_t> out_spatial;
  std::vector<int64_t> stride, dilation;
  DType pack_type = DType::kF32;

  int64_t InElements() const;
  int64_t KernelElements() const;
  int64_t OutElements() const;
};

struct LibraryConv {
  ConvShape shape;
  CudaKernelSource pack_x, pack_w, epilogue;
};

// Unimplemented for fusions cuDNN's forward convolution cannot compute:
// not one convolution followed by elementwise ops of its shape, batch
// groups, f64 or integer operands, more than 3 spatial dimensions, an
// empty result.
absl::StatusOr<ConvShape> LibraryConvShape(const Computation& fused);
absl::StatusOr<LibraryConv> LibraryConvKernels(const Computation& fused,
                                               const CudaKernelOptions& options);

// The convolution of step 3 on the host (the emulator's cuDNN): products of
// the packed values summed in f32 in kernel order, y rounded to pack_type.
void HostConv(const ConvShape& s, const void* x, const void* w, void* y);

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_LIBRARY_CONV_H_
