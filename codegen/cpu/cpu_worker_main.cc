// xtune_cpu_worker: times CPU kernels for the autotuner in a process of its
// own, so a kernel that crashes, hangs or exhausts memory takes only this
// process down. Started by CpuProfiler with posix_spawn; speaks the protocol
// of cpu_worker_protocol.h on fd 3 (requests and replies, each a length and
// its bytes) and fd 4 (shared memory with the inputs and the output). Exits
// at EOF on fd 3, or when the compiler that started it dies.
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codegen/cpu/cpu_worker_protocol.h"
#include "codegen/cpu/host_compiler.h"
#include "codegen/cpu/kernel_abi.h"
#include "util/file.h"
#include "util/sha256.h"
#include "util/shared_memory.h"
#include "util/thread_pool.h"
#include "util/worker_channel.h"

// In a sanitizer build the worker must still die of the signal a kernel
// raises (the profiler reports "crashed with signal 11"), not be turned
// into a sanitizer report and exit 1: generated kernels are not
// instrumented, and their crashes are the candidates' failures.
extern "C" const char* __asan_default_options() {
  return "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_abort=0";
}
extern "C" const char* __tsan_default_options() {
  return "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_abort=0";
}

namespace xtune::cpu {
namespace {

constexpr int kRequestFd = 3;
constexpr int kSharedFd = 4;

bool ReadMessage(std::string* out) { return ReadWorkerMessage(kRequestFd, out); }

bool Reply(int64_t status, const std::vector<double>& seconds,
           const std::string& message) {
  return WriteWorkerReply(kRequestFd, status, seconds, message);
}

// Evicts the kernel's buffers from every cache level before a timed run,
// so each run starts cold, as a fusion does after others ran: on x86 each
// line of the inputs and the output is flushed with clflush (only what the
// kernel touches); elsewhere `scratch` (flush_bytes) is written.
void FlushCaches(const std::vector<std::pair<const uint8_t*, size_t>>& ranges,
                 std::vector<char>& scratch) {
#if defined(__x86_64__) || defined(__i386__)
  (void)scratch;
  for (const auto& [p, n] : ranges) {
    for (size_t off = 0; off < n; off += 64) __builtin_ia32_clflush(p + off);
  }
  __builtin_ia32_mfence();
#else
  for (size_t i = 0; i < scratch.size(); i += 64) scratch[i] += 1;
#endif
}

struct Loaded {
  std::shared_ptr<LoadedObject> object;
  KernelFn fn = nullptr;
  std::string error;
};

// The objects loaded so far, by path and digest: the kernels of a bundle
// share one.
using ObjectCache =
    std::map<std::pair<std::string, std::string>, std::shared_ptr<LoadedObject>>;

Loaded Load(const WorkerKernel& k, ObjectCache* objects) {
  Loaded out;
  std::shared_ptr<LoadedObject>& cached = (*objects)[{k.path, k.sha256}];
  if (cached == nullptr) {
    absl::StatusOr<std::string> bytes = ReadFile(k.path);
    if (!bytes.ok()) {
      out.error = std::string(bytes.status().message());
      return out;
    }
    if (Sha256Hex(*bytes) != k.sha256) {
      out.error = absl::StrCat("kernel object '", k.path,
                               "' changed since it was compiled");
      return out;
    }
    // The private copy goes beside the object: the kernel cache is writable
    // and, unlike /tmp on many systems, not mounted noexec.
    size_t slash = k.path.find_last_of('/');
    std::string dir = slash == std::string::npos ? "." : k.path.substr(0, slash);
    absl::StatusOr<std::shared_ptr<LoadedObject>> object =
        LoadObjectBytes(*bytes, k.path, dir.empty() ? "/" : dir);
    if (!object.ok()) {
      out.error = std::string(object.status().message());
      return out;
    }
    cached = *object;
  }
  out.object = cached;
  out.fn = reinterpret_cast<KernelFn>(out.object->Symbol(k.symbol.c_str()));
  if (out.fn == nullptr) {
    out.error = absl::StrCat("'", k.path, "' has no ", k.symbol);
  }
  return out;
}

int Main(int argc, char** argv) {
  if (!StartWorker(argc, argv)) return 1;
  std::string message;
  WorkerSetup setup;
  if (!ReadMessage(&message)) return 0;
  if (!DecodeSetup(message, &setup)) {
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
  // The inputs are read-only: a kernel that writes them crashes here
  // instead of corrupting them for the candidates after it (the output
  // starts on its own page).
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t input_bytes =
      static_cast<size_t>(layout.output_offset) / page * page;
  if (input_bytes > 0) mprotect(shared->data(), input_bytes, PROT_READ);
  std::vector<const void*> inputs;
  std::vector<std::pair<const uint8_t*, size_t>> ranges;
  for (const auto& [offset, bytes] : layout.inputs) {
    inputs.push_back(shared->data() + offset);
    ranges.push_back({shared->data() + offset, static_cast<size_t>(bytes)});
  }
  void* output = shared->data() + layout.output_offset;
  ranges.push_back({shared->data() + layout.output_offset,
                    static_cast<size_t>(layout.output_bytes)});
  // Only written where clflush is not available: on x86 allocating it
  // (1.5x the last-level cache, zero-filled) would cost every worker start
  // a tenth of a second for nothing.
#if defined(__x86_64__) || defined(__i386__)
  std::vector<char> scratch;
#else
  std::vector<char> scratch(static_cast<size_t>(std::max<int64_t>(0, setup.flush_bytes)));
#endif
  ThreadPool pool(static_cast<int>(setup.threads));
  XtContext context = MakeContext(&pool);
  std::map<int64_t, Loaded> loaded;
  ObjectCache objects;
  if (!Reply(kWorkerOk, {}, "")) return 0;  // ready

  while (ReadMessage(&message)) {
    WireReader r(message);
    WorkerCommand cmd;
    cmd.kernel = r.Int();
    cmd.min_repetitions = r.Int();
    cmd.max_repetitions = r.Int();
    cmd.budget_ns = r.Int();
    cmd.flush = r.Int();
    cmd.min_warmup_runs = r.Int();
    if (r.failed() || cmd.kernel < 0 || cmd.min_warmup_runs < 0 ||
        cmd.kernel >= static_cast<int64_t>(setup.kernels.size())) {
      if (!Reply(kWorkerBadRequest, {}, "malformed command")) break;
      continue;
    }
    auto it = loaded.find(cmd.kernel);
    if (it == loaded.end()) {
      it = loaded.emplace(cmd.kernel, Load(setup.kernels[cmd.kernel], &objects)).first;
    }
    if (it->second.fn == nullptr) {
      if (!Reply(kWorkerLoadFailed, {}, it->second.error)) break;
      continue;
    }
    KernelFn fn = it->second.fn;
    const int64_t* values = setup.kernels[cmd.kernel].values.data();
    // Warm up: at least min_warmup_runs runs and 1 ms (page faults, code
    // caches, the thread pool starting), at most 50 runs; none when 0.
    auto warm_start = std::chrono::steady_clock::now();
    for (int i = 0; cmd.min_warmup_runs > 0 && i < 50; ++i) {
      fn(inputs.data(), output, values, &context);
      if (i + 1 >= cmd.min_warmup_runs &&
          std::chrono::steady_clock::now() - warm_start > std::chrono::milliseconds(1)) {
        break;
      }
    }
    std::vector<double> seconds;
    auto begin = std::chrono::steady_clock::now();
    double budget = static_cast<double>(cmd.budget_ns) * 1e-9;
    while (static_cast<int64_t>(seconds.size()) < cmd.max_repetitions) {
      double wall = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - begin)
                        .count();
      if (static_cast<int64_t>(seconds.size()) >= cmd.min_repetitions &&
          wall >= budget) {
        break;
      }
      if (cmd.flush) FlushCaches(ranges, scratch);
      auto start = std::chrono::steady_clock::now();
      fn(inputs.data(), output, values, &context);
      seconds.push_back(std::chrono::duration<double>(
                            std::chrono::steady_clock::now() - start)
                            .count());
    }
    if (!Reply(kWorkerOk, seconds, "")) break;
  }
  return 0;
}

}  // namespace
}  // namespace xtune::cpu

int main(int argc, char** argv) { return xtune::cpu::Main(argc, argv); }
