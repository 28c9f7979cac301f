#include "codegen/cuda/library_gemm_kernel.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "util/status_macros.h"

namespace xtune::cuda {
namespace {

absl::Status Prefixed(const absl::Status& s, const std::string& what) {
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat(what, ": ", s.message()));
}

}  // namespace

LibraryGemmKernel::~LibraryGemmKernel() {
  if (!allocated_) return;
  backend_->Free(a_);
  backend_->Free(b_);
  backend_->Free(c_);
}

// GPU kernels are queued; other steps (emulated kernels) run.
static absl::Status Step(Kernel& k, absl::Span<const DeviceBuffer> inputs,
                         DeviceBuffer output) {
  if (auto* queued = dynamic_cast<QueuedKernel*>(&k)) {
    return queued->Enqueue(inputs, output);
  }
  return k.Run(inputs, output);
}

absl::Status LibraryGemmKernel::Run(absl::Span<const DeviceBuffer> inputs,
                                    DeviceBuffer output) {
  XTUNE_RETURN_IF_ERROR(Enqueue(inputs, output));
  if (finish_ == nullptr) return absl::OkStatus();
  return Prefixed(finish_(), name_);
}

absl::Status LibraryGemmKernel::Enqueue(absl::Span<const DeviceBuffer> inputs,
                                        DeviceBuffer output) {
  if (!allocated_) {
    const int64_t esize = DTypeByteSize(shape_.pack_type);
    const int64_t b = shape_.batch;
    XTUNE_ASSIGN_OR_RETURN(a_, backend_->Allocate(b * shape_.m * shape_.k * esize));
    absl::StatusOr<DeviceBuffer> bb =
        backend_->Allocate(b * shape_.k * shape_.n * esize);
    absl::StatusOr<DeviceBuffer> cc =
        epilogue_ ? backend_->Allocate(b * shape_.m * shape_.n * 4)
                  : absl::StatusOr<DeviceBuffer>(DeviceBuffer());
    if (!bb.ok() || !cc.ok()) {
      backend_->Free(a_);
      if (bb.ok()) backend_->Free(*bb);
      return bb.ok() ? cc.status() : bb.status();
    }
    b_ = *bb;
    c_ = *cc;
    allocated_ = true;
  }
  XTUNE_RETURN_IF_ERROR(
      Prefixed(Step(*pack_a_, inputs, a_), absl::StrCat(name_, " (packing A)")));
  XTUNE_RETURN_IF_ERROR(
      Prefixed(Step(*pack_b_, inputs, b_), absl::StrCat(name_, " (packing B)")));
  DeviceBuffer c = epilogue_ ? c_ : output;
  XTUNE_RETURN_IF_ERROR(
      Prefixed(gemm_(shape_, a_, b_, c), absl::StrCat(name_, " (gemm)")));
  if (epilogue_ == nullptr) return absl::OkStatus();
  std::vector<DeviceBuffer> with_c(inputs.begin(), inputs.end());
  with_c.push_back(c_);
  return Prefixed(Step(*epilogue_, with_c, output),
                  absl::StrCat(name_, " (epilogue)"));
}

SplitKKernel::~SplitKKernel() {
  if (allocated_) backend_->Free(partials_);
}

absl::Status SplitKKernel::Run(absl::Span<const DeviceBuffer> inputs,
                               DeviceBuffer output) {
  XTUNE_RETURN_IF_ERROR(Enqueue(inputs, output));
  if (wait_ == nullptr) return absl::OkStatus();
  return Prefixed(wait_(), name_);
}

absl::Status SplitKKernel::Enqueue(absl::Span<const DeviceBuffer> inputs,
                                   DeviceBuffer output) {
  if (!allocated_) {
    XTUNE_ASSIGN_OR_RETURN(partials_, backend_->Allocate(partial_bytes_));
    allocated_ = true;
  }
  XTUNE_RETURN_IF_ERROR(Prefixed(Step(*main_, inputs, partials_),
                                 absl::StrCat(name_, " (split-k partials)")));
  std::vector<DeviceBuffer> with_partials(inputs.begin(), inputs.end());
  with_partials.push_back(partials_);
  return Prefixed(Step(*finish_, with_partials, output),
                  absl::StrCat(name_, " (split-k sum and epilogue)"));
}

LibraryConvKernel::~LibraryConvKernel() {
  if (!allocated_) return;
  backend_->Free(x_);
  backend_->Free(w_);
  backend_->Free(y_);
}

absl::Status LibraryConvKernel::Run(absl::Span<const DeviceBuffer> inputs,
                                    DeviceBuffer output) {
  XTUNE_RETURN_IF_ERROR(Enqueue(inputs, output));
  if (finish_ == nullptr) return absl::OkStatus();
  return Prefixed(finish_(), name_);
}

absl::Status LibraryConvKernel::Enqueue(absl::Span<const DeviceBuffer> inputs,
                                        DeviceBuffer output) {
  if (!allocated_) {
    const int64_t esize = DTypeByteSize(shape_.pack_type);
    DeviceBuffer bufs[3];
    const int64_t sizes[3] = {shape_.InElements() * esize, shape_.KernelElements() * esize,
                              shape_.OutElements() * esize};
    for (int i = 0; i < 3; ++i) {
      absl::StatusOr<DeviceBuffer> b = backend_->Allocate(sizes[i]);
      if (!b.ok()) {
        for (int j = 0; j < i; ++j) backend_->Free(bufs[j]);
        return b.status();
      }
      bufs[i] = *b;
    }
    x_ = bufs[0], w_ = bufs[1], y_ = bufs[2];
    allocated_ = true;
  }
  XTUNE_RETURN_IF_ERROR(
      Prefixed(Step(*pack_x_, inputs, x_), absl::StrCat(name_, " (packing the input)")));
  XTUNE_RETURN_IF_ERROR(
      Prefixed(Step(*pack_w_, inputs, w_), absl::StrCat(name_, " (packing the kernel)")));
  XTUNE_RETURN_IF_ERROR(
      Prefixed(conv_(shape_, x_, w_, y_), absl::StrCat(name_, " (convolution)")));
  std::vector<DeviceBuffer> with_y(inputs.begin(), inputs.end());
  with_y.push_back(y_);
  return Prefixed(Step(*epilogue_, with_y, output), absl::StrCat(name_, " (epilogue)"));
}

}  // namespace xtune::cuda
