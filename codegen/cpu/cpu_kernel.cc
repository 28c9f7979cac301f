#include "codegen/cpu/cpu_kernel.h"

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"

namespace xtune::cpu {

absl::StatusOr<std::unique_ptr<CpuKernel>> CpuKernel::Create(
    std::shared_ptr<LoadedObject> object, std::string symbol,
    std::vector<int64_t> values, ThreadPool* pool) {
  auto fn = reinterpret_cast<KernelFn>(object->Symbol(symbol.c_str()));
  if (fn == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "kernel object '", object->path(), "' lacks ", symbol));
  }
  return std::unique_ptr<CpuKernel>(new CpuKernel(
      std::move(object), std::move(symbol), fn, std::move(values), pool));
}

absl::Status CpuKernel::Run(absl::Span<const DeviceBuffer> inputs,
                            DeviceBuffer output) {
  // No heap allocation per run: this is the executable's inner loop.
  absl::InlinedVector<const void*, 16> in;
  for (const DeviceBuffer& b : inputs) in.push_back(b.opaque);
  fn_(in.data(), output.opaque, values_.data(), &context_);
  return absl::OkStatus();
}

}  // namespace xtune::cpu
