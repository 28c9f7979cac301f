// cuDNN 9 (libcudnn.so.9, from the CUDA installation or the nvidia-cudnn
// Python wheels), loaded with dlopen: the convolution of the `cuda`
// backend's cuDNN candidate (library_conv.h). Declares the small part of
// cuDNN's legacy convolution API it uses, so the build needs no cuDNN
// headers (docs/research/cudnn_legacy_api.md has the facts and sources).
//
// The packed operands of a ConvShape are NHWC (input, output) and KRSC
// (kernel) tensors; cudnnConvolutionForward runs them with no padding, the
// shape's stride, dilation and groups, cross-correlation, f32 compute. One
// spatial dimension is run as two (the first of size 1), as XLA does.
// Algorithms are cudnnConvolutionFwdAlgo_t (XLA's legacy ConvKey): tensor
// ops give CUDNN_TENSOR_OP_MATH, no tensor ops CUDNN_FMA_MATH, as XLA's
// legacy runner did.
//
// Thread-safe: calls are serialised on one handle.
#ifndef XTUNE_CODEGEN_CUDA_CUDNN_H_
#define XTUNE_CODEGEN_CUDA_CUDNN_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "codegen/cuda/library_conv.h"
#include "util/mutex.h"

namespace xtune::cuda {

class Cudnn {
 public:
  // Loads libcudnn ($XTUNE_CUDNN names another path; else libcudnn.so.9 as
  // the dynamic loader finds it, then in /usr/local/cuda/lib64 and
  // $XTUNE_CUDNN_DIR) and creates a handle (which needs a GPU). Unavailable
  // naming what was tried or why the handle could not be made.
  static absl::StatusOr<std::unique_ptr<Cudnn>> Load();
  ~Cudnn();

  // cudnnGetVersion(), e.g. 92800 for 9.28.0.
  int64_t version() const { return version_; }
  // "9.28.0": the DNN version of XLA's device strings.
  std::string VersionString() const;

  // The forward algorithms cuDNN supports for `shape` (its heuristic's
  // order) whose workspace fits `max_workspace` bytes.
  absl::StatusOr<std::vector<int>> Algorithms(const ConvShape& shape, bool tensor_ops,
                                              int64_t max_workspace);

  // y = x (*) w with `algorithm` (-1: the heuristic's first that fits) on
  // the default stream (asynchronous). InvalidArgument for an algorithm
  // cuDNN does not support for the shape or whose workspace does not fit.
  absl::Status Forward(const ConvShape& shape, int algorithm, bool tensor_ops, uint64_t x,
                       uint64_t w, uint64_t y, uint64_t workspace, int64_t workspace_bytes);

 private:
  Cudnn() = default;
  struct Api;
  struct Plan;
  absl::Status Init();
  // The descriptors of (shape, tensor_ops) and cuDNN's view of its
  // algorithms, made on first use (failures kept), under mu_.
  absl::StatusOr<Plan*> PlanFor(const ConvShape& shape, bool tensor_ops);
  absl::Status Describe(const ConvShape& shape, bool tensor_ops, Plan* plan);
  std::string Error(int status) const;

  void* library_ = nullptr;
  std::unique_ptr<Api> api_;
  void* handle_ = nullptr;
  int64_t version_ = 0;
  Mutex mu_;
  std::map<std::string, std::unique_ptr<Plan>> plans_;
};

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_CUDNN_H_
