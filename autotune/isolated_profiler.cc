#include "autotune/isolated_profiler.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace xtune {
namespace {

// A command to the worker and its reply header (plain data over pipes).
struct Command {
  int64_t kernel;
  int64_t min_repetitions;
  int64_t max_repetitions;
  int64_t budget_ns;
  int64_t flush;
};
struct ReplyHeader {
  int64_t status;  // 0 ok, 3 the kernel returned an error
  int64_t count;   // timed runs that follow, as doubles
};

bool WriteAll(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool ReadAll(int fd, void* data, size_t n) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    ssize_t r = read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

// Evicts the kernel's buffers from every cache level before a timed run,
// so each run starts cold, as a fusion does after others ran: on x86 each
// line of the inputs and the output is flushed with clflush (only what the
// kernel touches); elsewhere 64 MiB are written.
void FlushCaches(const std::vector<std::pair<const char*, size_t>>& ranges,
                 std::vector<char>& scratch) {
#if defined(__x86_64__) || defined(__i386__)
  for (const auto& [p, n] : ranges) {
    for (size_t off = 0; off < n; off += 64) __builtin_ia32_clflush(p + off);
  }
  __builtin_ia32_mfence();
#else
  if (scratch.empty()) scratch.assign(size_t{64} << 20, 0);
  for (size_t i = 0; i < scratch.size(); i += 64) scratch[i] += 1;
#endif
}

// The worker: answers commands until its pipe closes.
[[noreturn]] void WorkerMain(Backend* backend, const std::vector<Kernel*>& kernels,
                             const std::vector<const Literal*>& inputs,
                             void* output, size_t output_bytes, int in_fd,
                             int out_fd) {
  backend->ResetAfterFork();
  std::vector<const void*> in;
  std::vector<std::pair<const char*, size_t>> ranges;
  for (const Literal* l : inputs) {
    in.push_back(l->bytes().data());
    ranges.push_back({reinterpret_cast<const char*>(l->bytes().data()),
                      l->bytes().size()});
  }
  ranges.push_back({static_cast<const char*>(output), output_bytes});
  std::vector<char> scratch;
  Command cmd;
  while (ReadAll(in_fd, &cmd, sizeof(cmd))) {
    Kernel& kernel = *kernels[cmd.kernel];
    std::vector<double> seconds;
    int64_t status = 0;
    // Warm up: at least 3 runs and 1 ms (page faults, code caches, the
    // thread pool starting), at most 50 runs.
    auto warm_start = std::chrono::steady_clock::now();
    for (int i = 0; status == 0 && i < 50; ++i) {
      if (!kernel.Run(in, output).ok()) status = 3;
      if (i >= 2 && std::chrono::steady_clock::now() - warm_start >
                        std::chrono::milliseconds(1)) {
        break;
      }
    }
    auto begin = std::chrono::steady_clock::now();
    double budget = cmd.budget_ns * 1e-9;
    while (status == 0 && static_cast<int64_t>(seconds.size()) < cmd.max_repetitions) {
      double wall = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - begin)
                        .count();
      if (static_cast<int64_t>(seconds.size()) >= cmd.min_repetitions &&
          wall >= budget) {
        break;
      }
      if (cmd.flush) FlushCaches(ranges, scratch);
      auto start = std::chrono::steady_clock::now();
      if (!kernel.Run(in, output).ok()) status = 3;
      seconds.push_back(std::chrono::duration<double>(
                            std::chrono::steady_clock::now() - start)
                            .count());
    }
    ReplyHeader reply{status, static_cast<int64_t>(seconds.size())};
    if (!WriteAll(out_fd, &reply, sizeof(reply)) ||
        !WriteAll(out_fd, seconds.data(), sizeof(double) * seconds.size())) {
      break;
    }
  }
  _exit(0);
}

std::string SignalName(int sig) {
  const char* name = strsignal(sig);
  return absl::StrCat("signal ", sig, name ? absl::StrCat(" (", name, ")") : "");
}

// Reads exactly n bytes before `deadline`; false on timeout or EOF (with
// *timed_out set accordingly).
bool ReadBefore(int fd, void* data, size_t n,
                std::chrono::steady_clock::time_point deadline, bool* timed_out) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) {
      *timed_out = true;
      return false;
    }
    struct pollfd pfd = {fd, POLLIN, 0};
    int r = poll(&pfd, 1, static_cast<int>(std::min<int64_t>(left, 1000)));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) continue;
    ssize_t got = read(fd, p, n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    p += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

}  // namespace

IsolatedProfiler::~IsolatedProfiler() { EndFusion(); }

absl::Status IsolatedProfiler::BeginFusion(absl::Span<Kernel* const> kernels,
                                           absl::Span<const Literal> inputs,
                                           const Shape& output_shape) {
  EndFusion();
  kernels_.assign(kernels.begin(), kernels.end());
  inputs_.clear();
  for (const Literal& l : inputs) inputs_.push_back(&l);
  output_shape_ = output_shape;
  shared_bytes_ = std::max<size_t>(output_shape.ByteSize(), 1);
  shared_ = mmap(nullptr, shared_bytes_, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared_ == MAP_FAILED) {
    shared_ = nullptr;
    return absl::InternalError(absl::StrCat("mmap failed: ", strerror(errno)));
  }
  in_session_ = true;
  return absl::OkStatus();
}

void IsolatedProfiler::EndFusion() {
  StopWorker();
  if (shared_ != nullptr) munmap(shared_, shared_bytes_);
  shared_ = nullptr;
  kernels_.clear();
  inputs_.clear();
  in_session_ = false;
}

absl::Status IsolatedProfiler::StartWorker() {
  int down[2], up[2];
  if (pipe2(down, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe failed: ", strerror(errno)));
  }
  if (pipe2(up, O_CLOEXEC) != 0) {
    close(down[0]);
    close(down[1]);
    return absl::InternalError(absl::StrCat("pipe failed: ", strerror(errno)));
  }
  fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {down[0], down[1], up[0], up[1]}) close(fd);
    return absl::InternalError(absl::StrCat("fork failed: ", strerror(errno)));
  }
  if (pid == 0) {
    close(down[1]);
    close(up[0]);
    WorkerMain(backend_, kernels_, inputs_, shared_, shared_bytes_, down[0], up[1]);
  }
  close(down[0]);
  close(up[1]);
  worker_ = pid;
  to_worker_ = down[1];
  from_worker_ = up[0];
  return absl::OkStatus();
}

void IsolatedProfiler::StopWorker() {
  if (worker_ < 0) return;
  close(to_worker_);  // the worker exits at EOF
  close(from_worker_);
  int status;
  // Give it a moment to exit on its own, then make sure.
  for (int i = 0; i < 100; ++i) {
    pid_t r = waitpid(worker_, &status, WNOHANG);
    if (r == worker_ || r < 0) {
      worker_ = -1;
      return;
    }
    usleep(1000);
  }
  kill(worker_, SIGKILL);
  while (waitpid(worker_, &status, 0) < 0 && errno == EINTR) {
  }
  worker_ = -1;
}

absl::StatusOr<ProfileResult> IsolatedProfiler::Profile(
    Kernel& kernel, const KernelConfig& config, absl::Span<const Literal> inputs,
    const Shape& output_shape, const ProfileOptions& options) {
  (void)config;
  int64_t index = -1;
  if (in_session_) {
    auto it = std::find(kernels_.begin(), kernels_.end(), &kernel);
    if (it != kernels_.end()) index = it - kernels_.begin();
  }
  if (index < 0) {
    // No session for this kernel: a one-off worker.
    bool had_session = in_session_;
    if (had_session) {
      return absl::InternalError("kernel is not part of the current session");
    }
    Kernel* one[] = {&kernel};
    absl::Status begun = BeginFusion(one, inputs, output_shape);
    if (!begun.ok()) return begun;
    absl::StatusOr<ProfileResult> r =
        Profile(kernel, config, inputs, output_shape, options);
    EndFusion();
    return r;
  }
  if (worker_ < 0) {
    absl::Status started = StartWorker();
    if (!started.ok()) return started;
  }
  Command cmd{index, options.min_repetitions, options.max_repetitions,
              absl::ToInt64Nanoseconds(options.time_budget),
              options.flush_bytes > 0 ? 1 : 0};
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::microseconds(absl::ToInt64Microseconds(options.timeout));
  bool timed_out = false;
  ReplyHeader reply{};
  bool ok = WriteAll(to_worker_, &cmd, sizeof(cmd)) &&
            ReadBefore(from_worker_, &reply, sizeof(reply), deadline, &timed_out);
  std::vector<double> seconds;
  if (ok && reply.count >= 0 && reply.count < (int64_t{1} << 24)) {
    seconds.resize(static_cast<size_t>(reply.count));
    ok = ReadBefore(from_worker_, seconds.data(), sizeof(double) * seconds.size(),
                    deadline, &timed_out);
  } else if (ok) {
    ok = false;
  }
  if (!ok) {
    // The worker hung (kill it) or died: reap it and report why.
    if (timed_out) kill(worker_, SIGKILL);
    close(to_worker_);
    close(from_worker_);
    int status = 0;
    while (waitpid(worker_, &status, 0) < 0 && errno == EINTR) {
    }
    worker_ = -1;
    if (timed_out) {
      return absl::DeadlineExceededError(absl::StrCat(
          "still running after ", absl::FormatDuration(options.timeout),
          ": killed"));
    }
    if (WIFSIGNALED(status)) {
      return absl::AbortedError(
          absl::StrCat("crashed with ", SignalName(WTERMSIG(status))));
    }
    return absl::InternalError(absl::StrCat(
        "the profiling worker exited with status ", WEXITSTATUS(status)));
  }
  if (reply.status != 0) {
    return absl::InternalError("the kernel reported an error");
  }
  ProfileResult result;
  result.seconds = std::move(seconds);
  result.output = Literal(output_shape_);
  std::memcpy(result.output.bytes().data(), shared_, result.output.bytes().size());
  return result;
}

}  // namespace xtune
