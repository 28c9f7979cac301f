// xtune_gpu_worker: times GPU kernels for the autotuner in a process of its
// own, so a kernel that faults (an illegal address, a trap) loses only this
// process's CUDA context. Started by GpuProfiler with posix_spawn (a CUDA
// context does not survive fork); speaks gpu_worker_protocol.h and
// WorkerProfiler's commands on fd 3, and finds the inputs and the output in
// the shared memory of fd 4. Exits at EOF on fd 3, after a kernel fault
// (the context is unusable), or when the compiler that started it dies.
//
// Timing, per command: the output is poisoned (0xFF bytes) on the device,
// the kernel warms up (at least 2 runs and 5 ms, at most 100 runs), then
// each timed run is bracketed by CUDA events on the default stream, after
// an L2 flush (a memset of flush_bytes, at least twice the L2) when the
// command asks for one, until min_repetitions ran and budget_ns of wall
// time passed (at most max_repetitions). The output is copied back after
// the last run.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codegen/cuda/driver.h"
#include "codegen/cuda/gpu_kernel.h"
#include "codegen/cuda/gpu_worker_protocol.h"
#include "util/shared_memory.h"
#include "util/worker_channel.h"

namespace xtune::cuda {
namespace {

constexpr int kRequestFd = 3;
constexpr int kSharedFd = 4;

bool Reply(int64_t status, const std::vector<double>& seconds,
           const std::string& message) {
  return WriteWorkerReply(kRequestFd, status, seconds, message);
}

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

struct Loaded {
  Driver::Function function;
  std::string error;  // empty when loaded
};

// The device side of a session.
struct Session {
  Driver* driver = nullptr;
  std::vector<uint64_t> inputs;
  uint64_t output = 0;
  int64_t output_bytes = 0;
  uint64_t flush = 0;
  int64_t flush_bytes = 0;
  int flushes = 0;
  void* start = nullptr;
  void* end = nullptr;
};

absl::Status Launch(Session& s, const Driver::Function& f,
                    const GpuWorkerKernel& k) {
  std::vector<uint64_t> addresses = s.inputs;
  addresses.push_back(s.output);
  std::vector<void*> params;
  for (uint64_t& a : addresses) params.push_back(&a);
  return s.driver->Launch(f, k.grid, static_cast<int>(k.block), params.data());
}

// Warm-up and timed runs of one kernel; the seconds of each timed run.
absl::StatusOr<std::vector<double>> Time(Session& s, const Driver::Function& f,
                                         const GpuWorkerKernel& k,
                                         const std::vector<int64_t>& cmd) {
  const int64_t min_reps = cmd[1], max_reps = cmd[2], budget_ns = cmd[3];
  const bool flush = cmd[4] != 0;
  absl::Status st = s.driver->Memset(s.output, 0xFF, s.output_bytes);
  Clock::time_point warm = Clock::now();
  for (int i = 0; st.ok() && i < 100; ++i) {
    st = Launch(s, f, k);
    if (st.ok()) st = s.driver->Synchronize();
    if (i >= 1 && Since(warm) >= 5e-3) break;
  }
  std::vector<double> seconds;
  Clock::time_point begin = Clock::now();
  while (st.ok() && static_cast<int64_t>(seconds.size()) < max_reps) {
    if (static_cast<int64_t>(seconds.size()) >= min_reps &&
        Since(begin) * 1e9 >= static_cast<double>(budget_ns)) {
      break;
    }
    if (flush && s.flush_bytes > 0) {
      // A different value each time: the whole buffer is written again.
      st = s.driver->Memset(s.flush, static_cast<uint8_t>(++s.flushes),
                            s.flush_bytes);
      if (!st.ok()) break;
    }
    st = s.driver->Record(s.start);
    if (st.ok()) st = Launch(s, f, k);
    if (st.ok()) st = s.driver->Record(s.end);
    if (!st.ok()) break;
    absl::StatusOr<float> ms = s.driver->ElapsedMilliseconds(s.start, s.end);
    if (!ms.ok()) return ms.status();
    seconds.push_back(static_cast<double>(*ms) * 1e-3);
  }
  if (!st.ok()) return st;
  return seconds;
}

int Main(int argc, char** argv) {
  if (!StartWorker(argc, argv)) return 1;
  std::string message;
  GpuWorkerSetup setup;
  if (!ReadWorkerMessage(kRequestFd, &message)) return 0;
  if (!DecodeGpuSetup(message, &setup)) {
    Reply(kWorkerBadRequest, {}, "malformed setup");
    return 2;
  }
  const WorkerLayout& layout = setup.layout;
  absl::StatusOr<SharedMemory> shared =
      MapWorkerMemory(kSharedFd, layout.shared_bytes);
  if (!shared.ok()) {
    Reply(kWorkerBadRequest, {}, std::string(shared.status().message()));
    return 2;
  }
  absl::StatusOr<std::unique_ptr<Driver>> driver = Driver::Load();
  if (!driver.ok()) {
    Reply(kWorkerNoDevice, {}, std::string(driver.status().message()));
    return 2;
  }
  Session s;
  s.driver = driver->get();
  absl::Status ready;
  auto allocate = [&](int64_t bytes, uint64_t* out) {
    if (!ready.ok()) return;
    absl::StatusOr<uint64_t> a = s.driver->Allocate(bytes);
    if (a.ok()) {
      *out = *a;
    } else {
      ready = a.status();
    }
  };
  for (const auto& [offset, bytes] : layout.inputs) {
    uint64_t a = 0;
    allocate(bytes, &a);
    if (ready.ok() && bytes > 0) {
      ready = s.driver->CopyToDevice(a, shared->data() + offset, bytes);
    }
    s.inputs.push_back(a);
  }
  s.output_bytes = layout.output_bytes;
  allocate(layout.output_bytes, &s.output);
  s.flush_bytes = setup.flush_bytes;
  if (s.flush_bytes > 0) allocate(s.flush_bytes, &s.flush);
  if (ready.ok()) {
    absl::StatusOr<void*> a = s.driver->CreateEvent();
    absl::StatusOr<void*> b = s.driver->CreateEvent();
    if (a.ok() && b.ok()) {
      s.start = *a;
      s.end = *b;
    } else {
      ready = a.ok() ? b.status() : a.status();
    }
  }
  if (!ready.ok()) {
    Reply(kWorkerNoDevice, {}, std::string(ready.message()));
    return 2;
  }
  std::map<int64_t, Loaded> loaded;
  if (!Reply(kWorkerOk, {}, "")) return 0;

  while (ReadWorkerMessage(kRequestFd, &message)) {
    WireReader r(message);
    std::vector<int64_t> cmd(5);
    for (int64_t& v : cmd) v = r.Int();
    if (r.failed() || !r.done() || cmd[0] < 0 ||
        cmd[0] >= static_cast<int64_t>(setup.kernels.size())) {
      if (!Reply(kWorkerBadRequest, {}, "malformed command")) break;
      continue;
    }
    const GpuWorkerKernel& k = setup.kernels[cmd[0]];
    auto it = loaded.find(cmd[0]);
    if (it == loaded.end()) {
      Loaded l;
      absl::StatusOr<Driver::Function> f =
          s.driver->LoadFunction(k.cubin, kKernelFunction);
      if (f.ok()) {
        l.function = *f;
      } else {
        l.error = absl::StrCat(k.name, ": ", f.status().message());
      }
      it = loaded.emplace(cmd[0], l).first;
    }
    if (!it->second.error.empty()) {
      if (!Reply(kWorkerLoadFailed, {}, it->second.error)) break;
      continue;
    }
    absl::StatusOr<std::vector<double>> seconds =
        Time(s, it->second.function, k, cmd);
    absl::Status copied =
        seconds.ok() ? s.driver->CopyFromDevice(
                           shared->data() + layout.output_offset, s.output,
                           layout.output_bytes)
                     : seconds.status();
    if (!copied.ok()) {
      // A fault leaves the context unusable: report it and end.
      Reply(kWorkerKernelError, {},
            absl::StrCat(k.name, " (grid ", k.grid, ", block ", k.block,
                         "): ", copied.message()));
      return 3;
    }
    if (!Reply(kWorkerOk, *seconds, "")) break;
  }
  return 0;
}

}  // namespace
}  // namespace xtune::cuda

int main(int argc, char** argv) { return xtune::cuda::Main(argc, argv); }
