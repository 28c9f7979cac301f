// CpuKernel: a loaded kernel object and the config values it is called
// with. Runs in the calling process on the backend's thread pool; the
// worker program runs the same object by path (CpuProfiler).
#ifndef XTUNE_CODEGEN_CPU_CPU_KERNEL_H_
#define XTUNE_CODEGEN_CPU_CPU_KERNEL_H_

#include <memory>
#include <string>
#include <vector>

#include "codegen/backend.h"
#include "codegen/cpu/host_compiler.h"
#include "codegen/cpu/kernel_abi.h"
#include "util/thread_pool.h"

namespace xtune::cpu {

class CpuKernel : public Kernel {
 public:
  // The kernel entry point `symbol` of `object` (kKernelSymbol for an
  // object of its own, another name in a bundle). `pool` is borrowed.
  // InvalidArgument when the object lacks the symbol.
  static absl::StatusOr<std::unique_ptr<CpuKernel>> Create(
      std::shared_ptr<LoadedObject> object, std::string symbol,
      std::vector<int64_t> values, ThreadPool* pool);

  absl::Status Run(absl::Span<const DeviceBuffer> inputs,
                   DeviceBuffer output) override;

  const LoadedObject& object() const { return *object_; }
  const std::string& symbol() const { return symbol_; }
  const std::vector<int64_t>& values() const { return values_; }

 private:
  CpuKernel(std::shared_ptr<LoadedObject> object, std::string symbol,
            KernelFn fn, std::vector<int64_t> values, ThreadPool* pool)
      : object_(std::move(object)),
        symbol_(std::move(symbol)),
        fn_(fn),
        values_(std::move(values)),
        context_(MakeContext(pool)) {}

  std::shared_ptr<LoadedObject> object_;
  std::string symbol_;
  KernelFn fn_;
  std::vector<int64_t> values_;
  XtContext context_;
};

}  // namespace xtune::cpu

#endif  // XTUNE_CODEGEN_CPU_CPU_KERNEL_H_
