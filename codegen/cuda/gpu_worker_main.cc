// xtune_gpu_worker: times GPU kernels for the autotuner in a process of its
// own, so a kernel that faults (an illegal address, a trap) loses only this
// process's CUDA context. Started by GpuProfiler with posix_spawn (a CUDA
// context does not survive fork); speaks gpu_worker_protocol.h and
// WorkerProfiler's commands on fd 3, and finds the inputs and the output in
// the shared memory of fd 4. Exits at EOF on fd 3, after a kernel fault
// (the context is unusable), or when the compiler that started it dies.
//
// Timing, per command: the output is poisoned (0xFF bytes) on the device,
// then the kernel is warmed up and timed as gpu_timing.h says (the L2 flush
// writes flush_bytes, at least twice the L2, when the command asks for
// one). The output is copied back after the last run.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codegen/cuda/driver.h"
#include "codegen/cuda/gpu_kernel.h"
#include "codegen/cuda/gpu_timing.h"
#include "codegen/cuda/gpu_worker_protocol.h"
#include "util/shared_memory.h"
#include "util/status_macros.h"
#include "util/worker_channel.h"

namespace xtune::cuda {
namespace {

constexpr int kRequestFd = 3;
constexpr int kSharedFd = 4;

bool Reply(int64_t status, const std::vector<double>& seconds,
           const std::string& message) {
  return WriteWorkerReply(kRequestFd, status, seconds, message);
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
};

// Poisons the output (an in-place kernel's takes its input's values),
// then warms up and times the kernel (gpu_timing.h).
absl::StatusOr<std::vector<double>> Time(Session& s, const Driver::Function& f,
                                         const GpuWorkerKernel& k,
                                         const std::vector<int64_t>& cmd) {
  XTUNE_RETURN_IF_ERROR(s.driver->Memset(s.output, 0xFF, s.output_bytes));
  if (k.in_place_input >= 0) {
    // An in-place kernel writes only its window of the output, which
    // takes the input's values once: every timed launch then writes the
    // same window again, as in a module where the buffers are one.
    XTUNE_RETURN_IF_ERROR(s.driver->CopyOnDevice(
        s.output, s.inputs[k.in_place_input], s.output_bytes));
  }
  std::vector<uint64_t> addresses = s.inputs;
  addresses.push_back(s.output);
  DeviceTimingOptions o;
  o.min_repetitions = cmd[1];
  o.max_repetitions = cmd[2];
  o.budget_seconds = static_cast<double>(cmd[3]) * 1e-9;
  o.min_warmup_runs = cmd[5];
  if (cmd[4] != 0) {
    o.flush = s.flush;
    o.flush_bytes = s.flush_bytes;
  }
  return TimeOnDevice(*s.driver, [&] {
    return s.driver->LaunchWithAddresses(f, k.grid, static_cast<int>(k.block), addresses);
  }, o);
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
  if (!ready.ok()) {
    Reply(kWorkerNoDevice, {}, std::string(ready.message()));
    return 2;
  }
  std::map<int64_t, Loaded> loaded;
  if (!Reply(kWorkerOk, {}, "")) return 0;

  while (ReadWorkerMessage(kRequestFd, &message)) {
    WireReader r(message);
    std::vector<int64_t> cmd(6);
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
