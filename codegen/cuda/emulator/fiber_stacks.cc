#include "codegen/cuda/emulator/fiber_stacks.h"

#include <sys/mman.h>

#include <memory>
#include <utility>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif
// The tsan preset undefines __SANITIZE_THREAD__ (see CMakePresets.json) and
// says XTUNE_TSAN instead.
#if defined(__SANITIZE_THREAD__) || defined(XTUNE_TSAN)
#define XTUNE_FIBER_TSAN 1
#include <sanitizer/tsan_interface.h>
#endif

#ifdef XTUNE_FIBER_TSAN
extern "C" void __tsan_ignore_thread_begin();
extern "C" void __tsan_ignore_thread_end();
#endif

namespace xtune::cuda {
namespace {
constexpr size_t kGuardBytes = 4096;
#ifdef XTUNE_FIBER_TSAN
// The emulated threads of a block take turns on one OS thread: nothing they
// do can race with each other, and the OS thread's code sees their effects
// in order. So switches do not synchronize (a synchronizing switch merges
// vector clocks as wide as every context ever made: that alone made an
// emulator compile under TSan take a minute), and TSan ignores what the
// fibers themselves touch (uninstrumented kernels and the emulator's own
// per-launch state); the code around the emulator stays checked.
constexpr unsigned kNoSync = __tsan_switch_to_fiber_no_sync;

// Runs `f` in the context `c`, then comes back.
template <typename F>
void InContext(TsanContext c, F f) {
  TsanContext here = __tsan_get_current_fiber();
  __tsan_switch_to_fiber(c, kNoSync);
  f();
  __tsan_switch_to_fiber(here, kNoSync);
}

TsanContext NewIgnoringContext() {
  TsanContext c = __tsan_create_fiber(0);
  InContext(c, [] { __tsan_ignore_thread_begin(); });
  return c;
}

void DestroyIgnoringContext(TsanContext c) {
  InContext(c, [] { __tsan_ignore_thread_end(); });
  __tsan_destroy_fiber(c);
}
#endif
}  // namespace

TsanContext CurrentTsanContext() {
#ifdef XTUNE_FIBER_TSAN
  return __tsan_get_current_fiber();
#else
  return nullptr;
#endif
}

void SwitchTsanContext(TsanContext to) {
#ifdef XTUNE_FIBER_TSAN
  if (__tsan_get_current_fiber() != to) __tsan_switch_to_fiber(to, kNoSync);
#else
  (void)to;
#endif
}

void StartSwitch(void** fake_stack, const StackBounds& to, TsanContext tsan_to) {
#ifdef XTUNE_FIBER_TSAN
  if (tsan_to != nullptr) __tsan_switch_to_fiber(tsan_to, kNoSync);
#else
  (void)tsan_to;
#endif
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
#ifdef XTUNE_FIBER_TSAN
  for (TsanContext c : tsan_) {
    if (c != nullptr) DestroyIgnoringContext(c);
  }
#endif
  if (base_ != nullptr) munmap(base_, bytes_);
}

boost::context::stack_context FiberStacks::Get(int i) const {
  boost::context::stack_context sc;
  sc.size = kFiberStackBytes;
  sc.sp = base_ + (i + 1) * (kFiberStackBytes + kGuardBytes);
  return sc;
}

TsanContext FiberStacks::TsanContextForRun(int i) const {
#ifdef XTUNE_FIBER_TSAN
  if (tsan_.empty()) {
    const size_t count = bytes_ / (kFiberStackBytes + kGuardBytes);
    tsan_.assign(count, nullptr);
    tsan_runs_.assign(count, 0);
  }
  if (tsan_[i] != nullptr && ++tsan_runs_[i] % kTsanContextRuns == 0) {
    DestroyIgnoringContext(tsan_[i]);
    tsan_[i] = nullptr;
  }
  if (tsan_[i] == nullptr) tsan_[i] = NewIgnoringContext();
  return tsan_[i];
#else
  (void)i;
  return nullptr;
#endif
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
