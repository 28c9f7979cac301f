// XLA's cuDNN convolution custom-calls, as its GPU compiler writes them into
// optimized modules: `__cudnn$convForward`, `__cudnn$convBackwardInput`,
// `__cudnn$convBackwardFilter` and `__cudnn$convBiasActivationForward`.
// Each carries the *forward* convolution it belongs to (window=,
// dim_labels=, feature_group_count=, as on a convolution) and returns
// (result, u8[scratch]):
//   forward          (x, w)           -> y  = scale * conv(x, w)
//   backward input   (dy, w)          -> dx, the gradient of the forward
//                    convolution with respect to its input: dim_labels'
//                    input part describes dx, its output part dy
//   backward filter  (x, dy)          -> dw, likewise for the kernel (its
//                    kernel part describes dw)
//   bias+activation  (x, w, b[, s])   -> act(scale * conv(x, w)
//                    + side_input_scale * s + b), b along y's features
// with conv_result_scale, side_input_scale, activation_mode and
// leakyrelu_alpha from `cudnn_conv_backend_config` (XLA's
// CudnnConvBackendConfig, as JSON in the GpuBackendConfig). Products
// accumulate in f32 (f64 for f64); the epilogue runs in that type and the
// result is rounded once.
//
// Each call is one HLO convolution plus elementwise ops (AsConvolution):
// backward input convolves dy, dilated by the stride, with the kernel
// reversed and its features regrouped; backward filter convolves the input
// with dy, batch as the contracted feature and the groups as batch groups.
// The evaluator and the flatten pass both build that.
#ifndef XTUNE_IR_CONV_CALL_H_
#define XTUNE_IR_CONV_CALL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/instruction.h"

namespace xtune {

inline constexpr absl::string_view kCudnnConvForwardTarget = "__cudnn$convForward";
inline constexpr absl::string_view kCudnnConvBackwardInputTarget = "__cudnn$convBackwardInput";
inline constexpr absl::string_view kCudnnConvBackwardFilterTarget =
    "__cudnn$convBackwardFilter";
inline constexpr absl::string_view kCudnnConvBiasActivationTarget =
    "__cudnn$convBiasActivationForward";

enum class ConvCallKind { kForward, kBackwardInput, kBackwardFilter, kBiasActivation };

// XLA's ActivationMode values that cuDNN's fused convolution takes.
enum class ConvActivation { kNone, kRelu, kRelu6, kElu, kLeakyRelu, kTanh, kSigmoid };

struct ConvCall {
  std::string target;
  ConvCallKind kind = ConvCallKind::kForward;
  // The forward convolution.
  std::vector<WindowDimension> window;
  ConvDimensions dims;
  int64_t feature_group_count = 1;
  int64_t batch_group_count = 1;
  double conv_result_scale = 1;
  double side_input_scale = 0;
  double leakyrelu_alpha = 0;
  ConvActivation activation = ConvActivation::kNone;
  int64_t bias_operand = -1;        // bias+activation: 2
  int64_t side_input_operand = -1;  // bias+activation with a side input: 3
  Shape result;                     // tuple element 0
};

bool IsConvCallTarget(absl::string_view target);

// Reads and checks a cuDNN convolution custom-call. Unimplemented for
// another target or what xtune does not run (an activation outside
// ConvActivation, batch groups or lhs dilation in a backward call, a
// reversed kernel in a backward-filter call); InvalidArgument for a
// malformed one.
absl::StatusOr<ConvCall> ReadConvCall(const Instruction& inst);

// The call's convolution as one HLO convolution of operands `lhs` and
// `rhs` of the call, whose kernel operand is first regrouped when
// `regroup`: transposed by `perm`, reshaped to `split`, transposed by
// `perm2`, reshaped to `kernel_dims`. Its result (in f32, or f64) has the
// dimensions of the call's result.
struct ConvAsConvolution {
  int64_t lhs = 0, rhs = 1;
  bool regroup = false;
  std::vector<int64_t> perm, split, perm2, kernel_dims;
  std::vector<WindowDimension> window;
  ConvDimensions dims;
  int64_t feature_group_count = 1, batch_group_count = 1;
};
absl::StatusOr<ConvAsConvolution> AsConvolution(const ConvCall& call, const Shape& operand0,
                                                const Shape& operand1);

}  // namespace xtune

#endif  // XTUNE_IR_CONV_CALL_H_
