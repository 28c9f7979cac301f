#include "codegen/cuda/emulator/emulator.h"

#include <cstring>
#include <deque>
#include <memory>
#include <vector>

#include <boost/context/fiber.hpp>

#include "absl/strings/str_cat.h"
#include "codegen/cuda/emulator/fiber_stacks.h"
#include "codegen/cuda/emulator/warp_ops.h"

#define XT_EMU_ABI_ONLY
#include "codegen/cuda/prelude/xt_emu.h"

namespace xtune::cuda {
namespace {

namespace ctx = boost::context;

// Thrown inside a fiber to end it after an error; caught by the fiber's
// own entry function, so it never crosses a context switch.
struct AbortThread {};

// The emulated thread whose fiber runs on this OS thread (XtEmuApi::self).
thread_local XtEmuThread* current_thread = nullptr;

constexpr int kManyReaders = -2;

// Shadow state of one shared byte (so two threads may own the halves of a
// word, as on the hardware). Valid only when `serial` is the
// current block's; otherwise the word is poison, untouched by this block.
struct Word {
  uint64_t serial = 0;
  uint32_t write_epoch = 0, read_epoch = 0;
  int32_t writer = -1, reader = -1;
  int32_t write_line = 0, read_line = 0;
  uint8_t state = 0;  // 0 poison, 1 written, 2 a cp.async in flight
};

enum class State { kRunnable, kBarrier, kWarp, kDone };

struct AsyncCopy {
  int64_t off;
  const void* src;
  int bytes;
  int line;
};

struct Thread {
  XtEmuThread abi;
  ctx::fiber fiber;  // the thread, while suspended
  ctx::fiber sink;   // the scheduler, while the thread runs
  State state = State::kRunnable;
  int line = 0;
  WarpRequest request;
  size_t decls = 0;  // shared arrays declared so far
  std::vector<AsyncCopy> open_group;
  std::deque<std::vector<AsyncCopy>> committed;
  TsanContext tsan = nullptr;  // this run's (fiber_stacks.h)
};

// The allocator Boost.Context asks for thread i's stack.
struct StackRef {
  const FiberStacks* stacks;
  int index;
  ctx::stack_context allocate() { return stacks->Get(index); }
  void deallocate(ctx::stack_context&) noexcept {}
};

struct Decl {
  int64_t off;
  int64_t bytes;
  int line;
};

class Launch {
 public:
  Launch(const EmulatedKernel& kernel, int64_t grid, int block,
         const EmulatorLimits& limits)
      : kernel_(kernel), grid_(grid), block_(block), limits_(limits),
        stacks_(CachedFiberStacks(block)), threads_(block),
        shared_(static_cast<size_t>(limits.shared_bytes_per_block) + 16),
        shadow_(static_cast<size_t>(limits.shared_bytes_per_block) + 16) {}

  absl::Status Run(absl::Span<const EmulatorArg> args);

  // ---- XtEmuApi, called from kernel code in a fiber.
  [[noreturn]] void Fail(int line, const std::string& what);
  void GlobalAccess(const XtEmuBuffer* buf, int64_t elem, int write, int line);
  int64_t SharedDecl(int64_t bytes, int line);
  void SharedAccess(int64_t off, int bytes, int write, int line);
  void Barrier(int line);
  uint64_t WarpOp(int kind, uint64_t value, int arg, int line);
  void Mma(int kind, float* d, const uint32_t* a, const uint32_t* b,
           const float* c, int line);
  void Ldmatrix(int count, int trans, int64_t off, uint32_t* r, int line);
  void CpAsync(int64_t off, const void* src, int bytes, int line);
  void CpAsyncCommit(int line);
  void CpAsyncWait(int pending, int line);

 private:
  Thread& Me() { return threads_[current_]; }
  std::string Who(int tid) const {
    return absl::StrCat("block ", bid_, ", thread ", tid);
  }
  // Records the first error of the launch (others are dropped).
  void Record(int line, int tid, const std::string& what) {
    if (!error_.empty()) return;
    error_ = absl::StrCat(kernel_.name, ".cu:", line, ": ", what, " (", Who(tid),
                          ")");
  }
  // Suspends the current thread until the scheduler resumes it; throws
  // AbortThread when the launch is being abandoned.
  void Yield() {
    Thread& t = Me();
    void* fake_stack = nullptr;
    StartSwitch(&fake_stack, scheduler_stack_, scheduler_tsan_);
    t.sink = std::move(t.sink).resume();
    FinishSwitch(fake_stack, &scheduler_stack_);
    if (aborting_) throw AbortThread();
  }
  // Runs thread i until it blocks or ends (from the scheduler).
  void Resume(int i) {
    ctx::stack_context sc = stacks_.Get(i);
    void* fake_stack = nullptr;
    Thread& t = threads_[i];
    StartSwitch(&fake_stack, {static_cast<char*>(sc.sp) - sc.size, sc.size},
                t.tsan);
    t.fiber = std::move(t.fiber).resume();
    FinishSwitch(fake_stack, nullptr);
    if (t.state == State::kDone) SwitchTsanContext(scheduler_tsan_);
  }
  Word& ShadowWord(int64_t w) {
    Word& s = shadow_[w];
    if (s.serial != serial_) {
      s = Word();
      s.serial = serial_;
    }
    return s;
  }
  void WriteWord(int64_t w, int tid, int line);
  // Checks and records a read of shared word `w` by thread `tid` at `line`;
  // the error, or "".
  std::string ReadWord(int64_t w, int tid, int line);
  void LandGroup(const std::vector<AsyncCopy>& group);

  absl::Status RunBlock(int64_t bid);
  // After every runnable thread has blocked: completes warp collectives and
  // barriers, or records why the block cannot go on. Returns whether
  // something was released.
  bool Resolve();
  bool ResolveWarp(int warp);

  const EmulatedKernel& kernel_;
  const int64_t grid_;
  const int block_;
  const EmulatorLimits limits_;
  const FiberStacks& stacks_;
  StackBounds scheduler_stack_;  // the OS thread's, seen from a fiber
  TsanContext scheduler_tsan_ = nullptr;  // the OS thread's (RunBlock)
  std::vector<Thread> threads_;
  std::vector<uint8_t> shared_;
  std::vector<Word> shadow_;
  std::vector<Decl> decls_;
  int64_t shared_used_ = 0;
  uint64_t serial_ = 0;
  uint32_t epoch_ = 1;
  int64_t bid_ = 0;
  int current_ = 0;
  bool aborting_ = false;
  std::string error_;
  std::vector<XtEmuBuffer> buffers_;
  // Output elements: the writer (global thread id + 1, 0 = none) and line.
  std::vector<std::vector<int64_t>> writer_;
  std::vector<std::vector<int32_t>> writer_line_;
};

Launch* Rt(void* rt) { return static_cast<Launch*>(rt); }

const XtEmuApi kApi = {
    [](void* rt, int line, const char* what, int64_t a, int64_t b) {
      Rt(rt)->Fail(line, absl::StrCat(what, " at index ", a, " of ", b));
    },
    [](void* rt, const XtEmuBuffer* buf, int64_t elem, int write, int line) {
      Rt(rt)->GlobalAccess(buf, elem, write, line);
    },
    [](void* rt, int64_t bytes, int line) {
      return Rt(rt)->SharedDecl(bytes, line);
    },
    [](void* rt, int64_t off, int bytes, int write, int line) {
      Rt(rt)->SharedAccess(off, bytes, write, line);
    },
    [](void* rt, int line) { Rt(rt)->Barrier(line); },
    [](void* rt, int kind, uint64_t value, int arg, int line) {
      return Rt(rt)->WarpOp(kind, value, arg, line);
    },
    [](void* rt, int kind, float* d, const uint32_t* a, const uint32_t* b,
       const float* c, int line) { Rt(rt)->Mma(kind, d, a, b, c, line); },
    [](void* rt, int count, int trans, int64_t off, uint32_t* r, int line) {
      Rt(rt)->Ldmatrix(count, trans, off, r, line);
    },
    [](void* rt, int64_t off, const void* src, int bytes, int line) {
      Rt(rt)->CpAsync(off, src, bytes, line);
    },
    [](void* rt, int line) { Rt(rt)->CpAsyncCommit(line); },
    [](void* rt, int pending, int line) { Rt(rt)->CpAsyncWait(pending, line); },
    []() { return current_thread; },
};

void Launch::Fail(int line, const std::string& what) {
  Record(line, current_, what);
  aborting_ = true;
  throw AbortThread();
}

void Launch::GlobalAccess(const XtEmuBuffer* buf, int64_t elem, int write,
                          int line) {
  std::vector<int64_t>& writer = writer_[buf->index];
  std::vector<int32_t>& wline = writer_line_[buf->index];
  if (elem < 0 || elem >= static_cast<int64_t>(writer.size())) return;
  int64_t me = bid_ * block_ + current_ + 1;
  int64_t w = writer[elem];
  auto other = [&] {
    return absl::StrCat("block ", (w - 1) / block_, ", thread ", (w - 1) % block_,
                        " at line ", wline[elem]);
  };
  if (write) {
    if (w != 0 && w != me) {
      Fail(line, absl::StrCat("output race: argument ", buf->index,
                              " element ", elem, " was already written by ",
                              other()));
    }
    writer[elem] = me;
    wline[elem] = line;
    return;
  }
  if (w == 0) {
    Fail(line, absl::StrCat("read of output argument ", buf->index,
                            " element ", elem,
                            " before any thread wrote it (poison)"));
  }
  if (w != me) {
    Fail(line, absl::StrCat("output race: argument ", buf->index, " element ",
                            elem, " read here was written by ", other(),
                            " (no ordering between them)"));
  }
}

int64_t Launch::SharedDecl(int64_t bytes, int line) {
  Thread& t = Me();
  size_t i = t.decls++;
  if (i < decls_.size()) {
    if (decls_[i].bytes != bytes || decls_[i].line != line) {
      Fail(line, absl::StrCat("shared array declared differently by threads: "
                              "this thread's declaration ", i, " is ", bytes,
                              " bytes at line ", line, ", thread 0's ",
                              decls_[i].bytes, " bytes at line ", decls_[i].line));
    }
    return decls_[i].off;
  }
  int64_t off = (shared_used_ + 15) / 16 * 16;
  if (off + bytes > limits_.shared_bytes_per_block) {
    Fail(line, absl::StrCat("shared memory of ", off + bytes,
                            " bytes exceeds the ", limits_.shared_bytes_per_block,
                            " a launch gets (static __shared__ arrays are limited to 48 KB; "
                            "more needs dynamic shared memory and the opt-in attribute)"));
  }
  std::memset(shared_.data() + off, 0xFF, bytes);  // poison
  decls_.push_back({off, bytes, line});
  shared_used_ = off + bytes;
  return off;
}

void Launch::SharedAccess(int64_t off, int bytes, int write, int line) {
  if (off < 0 || off + bytes > shared_used_) {
    Fail(line, absl::StrCat("shared access of ", bytes, " bytes at offset ", off,
                            " outside the ", shared_used_, " declared"));
  }
  int me = current_;
  for (int64_t w = off; w < off + bytes; ++w) {
    Word& s = ShadowWord(w);
    if (!write) {
      std::string error = ReadWord(w, me, line);
      if (!error.empty()) Fail(line, error);
      continue;
    }
    if (s.state == 2) {
      // The copy lands at its covering wait, over this store: even the
      // issuing thread must wait first.
      Fail(line, absl::StrCat("shared-memory race: byte ", w,
                              " written here is the destination of a cp.async in flight "
                              "(issued at line ", s.write_line, " by thread ", s.writer,
                              s.writer == me ? ", this thread" : "",
                              "; it lands only at a cp.async.wait_group that covers it)"));
    }
    if (s.write_epoch == epoch_ && s.writer != me) {
      Fail(line, absl::StrCat("shared-memory race: byte ", w,
                              " written here was written by thread ", s.writer,
                              " at line ", s.write_line,
                              " with no barrier in between"));
    }
    if (s.read_epoch == epoch_ && s.reader != me) {
      Fail(line, absl::StrCat(
                     "shared-memory race: byte ", w, " written here was read by ",
                     s.reader == kManyReaders ? std::string("other threads")
                                              : absl::StrCat("thread ", s.reader),
                     " at line ", s.read_line, " with no barrier in between"));
    }
    WriteWord(w, me, line);
  }
}

std::string Launch::ReadWord(int64_t w, int tid, int line) {
  Word& s = ShadowWord(w);
  if (s.state == 2) {
    return absl::StrCat("read of shared memory (byte ", w,
                        ") before its cp.async completed: the copy issued at "
                        "line ", s.write_line, " by thread ", s.writer,
                        " lands only at a cp.async.wait_group that covers it");
  }
  if (s.state == 0) {
    return absl::StrCat("read of uninitialized shared memory (byte ", w,
                        "): no thread wrote it (poison)");
  }
  if (s.write_epoch == epoch_ && s.writer != tid) {
    return absl::StrCat("shared-memory race: byte ", w,
                        " read here was written by thread ", s.writer,
                        " at line ", s.write_line, " with no barrier in between");
  }
  if (s.read_epoch != epoch_) {
    s.read_epoch = epoch_;
    s.reader = tid;
    s.read_line = line;
  } else if (s.reader != tid) {
    s.reader = kManyReaders;
  }
  return "";
}

void Launch::WriteWord(int64_t w, int tid, int line) {
  Word& s = ShadowWord(w);
  s.write_epoch = epoch_;
  s.writer = tid;
  s.write_line = line;
  s.state = 1;
}

void Launch::Barrier(int line) {
  Thread& t = Me();
  t.state = State::kBarrier;
  t.line = line;
  Yield();
}

uint64_t Launch::WarpOp(int kind, uint64_t value, int arg, int line) {
  Thread& t = Me();
  t.request = WarpRequest();
  t.request.kind = kind;
  t.request.value = value;
  t.request.arg = arg;
  t.state = State::kWarp;
  t.line = line;
  Yield();
  return t.request.result;
}

void Launch::Mma(int kind, float* d, const uint32_t* a, const uint32_t* b,
                 const float* c, int line) {
  Thread& t = Me();
  t.request = WarpRequest();
  t.request.kind = kMmaBase + kind;
  t.request.d = d;
  t.request.a = a;
  t.request.b = b;
  t.request.c = c;
  t.state = State::kWarp;
  t.line = line;
  Yield();
}

void Launch::Ldmatrix(int count, int trans, int64_t off, uint32_t* r, int line) {
  Thread& t = Me();
  if (off % 16 != 0) {
    Fail(line, absl::StrCat("ldmatrix row address (shared byte ", off,
                            ") is not 16-byte aligned"));
  }
  t.request = WarpRequest();
  t.request.kind = kLdmatrixBase + count * 2 + trans;
  t.request.off = off;
  t.request.r = r;
  t.state = State::kWarp;
  t.line = line;
  Yield();
}

void Launch::CpAsync(int64_t off, const void* src, int bytes, int line) {
  Thread& t = Me();
  if (off < 0 || off + bytes > shared_used_) {
    Fail(line, absl::StrCat("cp.async destination ", off, " outside the ",
                            shared_used_, " shared bytes declared"));
  }
  for (int64_t w = off; w < off + bytes; ++w) {
    Word& s = ShadowWord(w);
    if (s.state == 2) {
      Fail(line, absl::StrCat("shared-memory race: cp.async into byte ", w,
                              " that is the destination of a cp.async still in flight "
                              "(issued at line ", s.write_line, " by thread ", s.writer,
                              s.writer == current_ ? ", this thread" : "",
                              "; wait for it first)"));
    }
    if ((s.write_epoch == epoch_ && s.writer != current_) ||
        (s.read_epoch == epoch_ && s.reader != current_)) {
      Fail(line, absl::StrCat("shared-memory race: cp.async into byte ", w,
                              " that another thread touched with no barrier "
                              "in between"));
    }
    s.state = 2;
    s.writer = current_;
    s.write_line = line;
  }
  t.open_group.push_back({off, src, bytes, line});
}

void Launch::CpAsyncCommit(int line) {
  Thread& t = Me();
  t.committed.push_back(std::move(t.open_group));
  t.open_group.clear();
}

void Launch::LandGroup(const std::vector<AsyncCopy>& group) {
  for (const AsyncCopy& c : group) {
    std::memcpy(shared_.data() + c.off, c.src, c.bytes);
    for (int64_t w = c.off; w < c.off + c.bytes; ++w) {
      WriteWord(w, current_, c.line);
    }
  }
}

void Launch::CpAsyncWait(int pending, int line) {
  Thread& t = Me();
  while (static_cast<int>(t.committed.size()) > pending) {
    LandGroup(t.committed.front());
    t.committed.pop_front();
  }
}

bool Launch::ResolveWarp(int warp) {
  int first = warp * 32, last = std::min(block_, first + 32);
  int at_warp = 0, done = 0, barrier = 0;
  for (int i = first; i < last; ++i) {
    State s = threads_[i].state;
    at_warp += s == State::kWarp;
    done += s == State::kDone;
    barrier += s == State::kBarrier;
  }
  if (at_warp == 0) return false;
  int lead = first;
  while (threads_[lead].state != State::kWarp) ++lead;
  const Thread& l = threads_[lead];
  auto fail = [&](const std::string& what) {
    Record(l.line, lead, what);
    aborting_ = true;
    return false;
  };
  if (last - first < 32) {
    return fail("warp collective in a partial warp (the block size is "
                      "not a multiple of 32)");
  }
  if (at_warp + done + barrier < last - first) return false;  // not yet
  for (int i = first; i < last; ++i) {
    const Thread& t = threads_[i];
    if (t.state == State::kDone) {
      return fail(absl::StrCat("warp collective not reached by lane ",
                                     i - first, " (thread ", i,
                                     " exited): every lane of the mask must "
                                     "take part"));
    }
    if (t.state == State::kBarrier) {
      return fail(absl::StrCat("divergent warp: lane ", i - first,
                                     " waits at the barrier at line ", t.line,
                                     " while this lane is at a collective"));
    }
    if (t.request.kind != l.request.kind || t.line != l.line) {
      return fail(absl::StrCat("divergent warp: lane ", i - first,
                                     " is at another collective (line ", t.line,
                                     ")"));
    }
  }
  std::vector<WarpRequest*> lanes;
  for (int i = first; i < last; ++i) lanes.push_back(&threads_[i].request);
  std::string error = CompleteWarpOp(
      lanes, shared_.data(), [&](int lane, int64_t off, int bytes) {
        // A collective's shared reads are the lanes' own.
        current_ = first + lane;
        if (off < 0 || off + bytes > shared_used_) {
          return std::string("ldmatrix row outside the declared shared memory");
        }
        for (int64_t w = off; w < off + bytes; ++w) {
          std::string error = ReadWord(w, current_, l.line);
          if (!error.empty()) return absl::StrCat("ldmatrix: ", error);
        }
        return std::string();
      });
  if (!error.empty()) return fail(error);
  for (int i = first; i < last; ++i) threads_[i].state = State::kRunnable;
  return true;
}

bool Launch::Resolve() {
  bool released = false;
  for (int w = 0; w * 32 < block_ && !aborting_; ++w) released |= ResolveWarp(w);
  if (released || aborting_) return released;
  int at_barrier = 0, done = 0, first = -1;
  for (int i = 0; i < block_; ++i) {
    if (threads_[i].state == State::kBarrier) {
      ++at_barrier;
      if (first < 0) first = i;
    }
    done += threads_[i].state == State::kDone;
  }
  if (at_barrier == 0) {
    int lead = 0;
    while (lead < block_ && threads_[lead].state != State::kWarp) ++lead;
    if (lead < block_) {
      Record(threads_[lead].line, lead,
             "warp collective never completed: some lanes of the warp never "
             "arrive (deadlock)");
      aborting_ = true;
    }
    return false;
  }
  int line = threads_[first].line;
  for (int i = 0; i < block_; ++i) {
    const Thread& t = threads_[i];
    if (t.state == State::kDone) {
      Record(line, first, absl::StrCat("barrier not reached by every thread of "
                                       "the block: thread ", i,
                                       " exited without reaching it"));
      aborting_ = true;
      return false;
    }
    if (t.state == State::kWarp) {
      Record(line, first, absl::StrCat("divergent barrier: thread ", i,
                                       " waits at a warp collective at line ",
                                       t.line, " instead"));
      aborting_ = true;
      return false;
    }
    if (t.line != line) {
      Record(line, first, absl::StrCat("divergent barrier: thread ", i,
                                       " waits at the barrier at line ", t.line,
                                       " instead"));
      aborting_ = true;
      return false;
    }
  }
  ++epoch_;
  for (Thread& t : threads_) t.state = State::kRunnable;
  return true;
}

absl::Status Launch::RunBlock(int64_t bid) {
  bid_ = bid;
  ++serial_;
  epoch_ = 1;
  decls_.clear();
  shared_used_ = 0;
  scheduler_tsan_ = CurrentTsanContext();
  for (int i = 0; i < block_; ++i) {
    Thread& t = threads_[i];
    t = Thread();
    t.abi.rt = this;
    t.abi.shared = shared_.data();
    t.abi.tid = i;
    t.abi.bid = static_cast<int32_t>(bid);
    t.abi.bdim = block_;
    t.abi.gdim = static_cast<int32_t>(grid_);
    t.tsan = stacks_.TsanContextForRun(i);
    SwitchTsanContext(t.tsan);  // the constructor enters the fiber once
    t.fiber = ctx::fiber(std::allocator_arg, StackRef{&stacks_, i},
                         [this, i](ctx::fiber&& sink) {
                           FinishSwitch(nullptr, &scheduler_stack_);
                           Thread& self = threads_[i];
                           self.sink = std::move(sink);
                           try {
                             kernel_.entry(buffers_.data());
                           } catch (const AbortThread&) {
                           }
                           self.state = State::kDone;
                           StartSwitch(nullptr, scheduler_stack_, nullptr);
                           return std::move(self.sink);
                         });
    SwitchTsanContext(scheduler_tsan_);
  }
  while (true) {
    for (int i = 0; i < block_; ++i) {
      Thread& t = threads_[i];
      if (t.state != State::kRunnable) continue;
      current_ = i;
      current_thread = &t.abi;
      Resume(i);
      if (aborting_) break;
    }
    if (aborting_) break;
    bool all_done = true;
    for (const Thread& t : threads_) all_done &= t.state == State::kDone;
    if (all_done) break;
    if (!Resolve() && !aborting_) {
      Record(0, 0, "no thread can make progress");
      aborting_ = true;
    }
    if (aborting_) break;
  }
  if (aborting_) {
    // Let every suspended thread unwind (its Yield throws).
    for (int i = 0; i < block_; ++i) {
      Thread& t = threads_[i];
      if (t.state == State::kDone || !t.fiber) continue;
      current_ = i;
      current_thread = &t.abi;
      Resume(i);
    }
    return absl::InternalError(error_);
  }
  return absl::OkStatus();
}

absl::Status Launch::Run(absl::Span<const EmulatorArg> args) {
  if (!stacks_.ok()) {
    return absl::ResourceExhaustedError("cannot map the emulator's fiber stacks");
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const EmulatorArg& a = args[i];
    XtEmuBuffer b = {};
    b.data = a.data;
    b.bytes = a.bytes;
    b.elem_bytes = a.elem_bytes;
    b.index = static_cast<int32_t>(i);
    b.tracked = a.output ? 1 : 0;
    buffers_.push_back(b);
    int64_t n = a.output ? a.bytes / std::max(1, a.elem_bytes) : 0;
    writer_.emplace_back(n, 0);
    writer_line_.emplace_back(n, 0);
    if (a.output && !a.in_place) std::memset(a.data, 0xFF, a.bytes);  // poison
  }
  kernel_.bind(&kApi);
  for (int64_t b = 0; b < grid_; ++b) {
    absl::Status s = RunBlock(b);
    if (!s.ok()) return s;
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].in_place) continue;
    const std::vector<int64_t>& w = writer_[i];
    int64_t missing = 0, first = -1;
    for (size_t e = 0; e < w.size(); ++e) {
      if (w[e] == 0) {
        if (first < 0) first = static_cast<int64_t>(e);
        ++missing;
      }
    }
    if (missing > 0) {
      return absl::InternalError(absl::StrCat(
          kernel_.name, ": ", missing, " of ", w.size(), " elements of output "
          "argument ", i, " were never written (the first is element ", first,
          "; it holds poison)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status EmulateLaunch(const EmulatedKernel& kernel, int64_t grid,
                           int block, absl::Span<const EmulatorArg> args,
                           const EmulatorLimits& limits) {
  if (block < 1 || block > limits.max_threads_per_block) {
    return absl::InvalidArgumentError(absl::StrCat(
        kernel.name, ": block of ", block, " threads; the device takes 1 to ",
        limits.max_threads_per_block));
  }
  if (grid < 1 || grid > 0x7fffffff) {
    return absl::InvalidArgumentError(
        absl::StrCat(kernel.name, ": grid of ", grid, " blocks"));
  }
  if (kernel.bind == nullptr || kernel.entry == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(kernel.name, ": not an emulator kernel object"));
  }
  auto launch = std::make_unique<Launch>(kernel, grid, block, limits);
  return launch->Run(args);
}

}  // namespace xtune::cuda
