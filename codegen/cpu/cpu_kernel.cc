#include "codegen/cpu/cpu_kernel.h"

#include "absl/strings/str_cat.h"

namespace xtune::cpu {

absl::StatusOr<std::unique_ptr<CpuKernel>> CpuKernel::Create(
    std::shared_ptr<LoadedObject> object, std::vector<int64_t> values,
    ThreadPool* pool) {
  auto fn = reinterpret_cast<KernelFn>(object->Symbol(kKernelSymbol));
  if (fn == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("kernel object '", object->path(), "' lacks ",
                     kKernelSymbol));
  }
  return std::unique_ptr<CpuKernel>(
      new CpuKernel(std::move(object), fn, std::move(values), pool));
}

absl::Status CpuKernel::Run(absl::Span<const DeviceBuffer> inputs,
                            DeviceBuffer output) {
  std::vector<const void*> in;
  in.reserve(inputs.size());
  for (const DeviceBuffer& b : inputs) in.push_back(b.opaque);
  fn_(in.data(), output.opaque, values_.data(), &context_);
  return absl::OkStatus();
}

}  // namespace xtune::cpu
