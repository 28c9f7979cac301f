// Stacks for the emulator's fibers (one per emulated thread of a block):
// mapped once with a guard page below each, and kept per calling thread for
// the next launch of the same block size.
#ifndef XTUNE_CODEGEN_CUDA_EMULATOR_FIBER_STACKS_H_
#define XTUNE_CODEGEN_CUDA_EMULATOR_FIBER_STACKS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include <boost/context/stack_context.hpp>

namespace xtune::cuda {

// AddressSanitizer must be told of every switch between a thread's stack and
// a fiber's: otherwise an exception unwinding a fiber cannot unpoison the
// fiber's stack, and the stale poison shows as false errors when a later
// launch reuses that stack. No-ops without ASan.
struct StackBounds {
  const void* bottom = nullptr;
  size_t size = 0;
};
// ThreadSanitizer must be told too, each fiber with a context of its own:
// otherwise it keeps one shadow call stack for the thread and all its
// fibers, which grew with every fiber (Boost.Context enters a new fiber
// from its constructor, and those frames never return); copying ever longer
// stacks made an emulator compile under TSan take over a minute and 10 GB.
// A fiber's context still gains a frame each time a fiber runs on it, so
// FiberStacks replaces it every kTsanContextRuns runs (a new one costs a
// large clear: not one per run). Switches do not synchronize and TSan
// ignores what runs inside a fiber (fiber_stacks.cc says why). Null
// without TSan.
using TsanContext = void*;
constexpr int kTsanContextRuns = 64;
// The calling thread's current TSan context.
TsanContext CurrentTsanContext();
// Makes `to` the current TSan context (if it is not): around a fiber's
// construction (Boost.Context enters the new fiber once), and after a fiber
// ended (its last switch stays in its context).
void SwitchTsanContext(TsanContext to);

// Before a switch to the stack `to` (whose TSan context is `tsan_to`; null:
// stay in the current one, for a fiber's last switch); `fake_stack` keeps
// this side's fake stack (nullptr: this side is ending).
void StartSwitch(void** fake_stack, const StackBounds& to, TsanContext tsan_to);
// After a switch back; `from` (when given) receives the stack left.
void FinishSwitch(void* fake_stack, StackBounds* from);

// Bytes of one fiber's stack (the guard page not counted).
constexpr int64_t kFiberStackBytes = 256 << 10;

// `count` stacks in one mapping; ok() is false when the mapping failed.
// Not copyable; thread-compatible.
class FiberStacks {
 public:
  explicit FiberStacks(int count);
  ~FiberStacks();
  FiberStacks(const FiberStacks&) = delete;
  FiberStacks& operator=(const FiberStacks&) = delete;

  bool ok() const { return base_ != nullptr; }
  // Stack i (0 <= i < count), for Boost.Context.
  boost::context::stack_context Get(int i) const;
  // The TSan context for the next run of a fiber on stack i (see above).
  TsanContext TsanContextForRun(int i) const;

 private:
  size_t bytes_;
  char* base_;
  mutable std::vector<TsanContext> tsan_;
  mutable std::vector<int> tsan_runs_;
};

// The stacks of `count` fibers for the calling thread, mapped on first use
// and kept (up to four block sizes) for later launches. A fiber's stack
// holds nothing between launches. The reference stays valid until this
// thread asks for a fifth block size.
const FiberStacks& CachedFiberStacks(int count);

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_EMULATOR_FIBER_STACKS_H_
