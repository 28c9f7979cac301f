#include "codegen/cuda/emulator/fiber_stacks.h"

#include <sys/mman.h>

#include <memory>
#include <utility>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

namespace xtune::cuda {
namespace {
constexpr size_t kGuardBytes = 4096;
}  // namespace

void StartSwitch(void** fake_stack, const StackBounds& to) {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_start_switch_fiber(fake_stack, to.bottom, to.size);
#else
  (void)fake_stack;
  (void)to;
#endif
}

void FinishSwitch(void* fake_stack, StackBounds* from) {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_finish_switch_fiber(fake_stack, from ? &from->bottom : nullptr,
                                  from ? &from->size : nullptr);
#else
  (void)fake_stack;
  (void)from;
#endif
}

FiberStacks::FiberStacks(int count) {
  bytes_ = static_cast<size_t>(count) * (kFiberStackBytes + kGuardBytes);
  void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  base_ = p == MAP_FAILED ? nullptr : static_cast<char*>(p);
  for (int i = 0; base_ != nullptr && i < count; ++i) {
    mprotect(base_ + i * (kFiberStackBytes + kGuardBytes), kGuardBytes,
             PROT_NONE);
  }
}

FiberStacks::~FiberStacks() {
  if (base_ != nullptr) munmap(base_, bytes_);
}

boost::context::stack_context FiberStacks::Get(int i) const {
  boost::context::stack_context sc;
  sc.size = kFiberStackBytes;
  sc.sp = base_ + (i + 1) * (kFiberStackBytes + kGuardBytes);
  return sc;
}

// Mapping, guarding and faulting in fresh stacks cost a launch milliseconds
// (a loop's small kernels paid it every iteration), hence the cache.
const FiberStacks& CachedFiberStacks(int count) {
  thread_local std::vector<std::pair<int, std::unique_ptr<FiberStacks>>> cache;
  for (const auto& [n, s] : cache) {
    if (n == count) return *s;
  }
  if (cache.size() >= 4) cache.erase(cache.begin());
  cache.emplace_back(count, std::make_unique<FiberStacks>(count));
  return *cache.back().second;
}

}  // namespace xtune::cuda
