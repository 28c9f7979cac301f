#include "autotune/isolated_profiler.h"

#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace xtune {
namespace {

// Evicts the kernel's buffers from every cache level before a timed run,
// so each run starts cold, as a fusion does after others ran. On x86 each
// line of the inputs and the output is flushed with clflush (cheap: only
// what the kernel touches); elsewhere a buffer of `flush_bytes` (about 1.5x
// the last-level cache) is written.
class CacheFlusher {
 public:
  CacheFlusher(std::vector<std::pair<const char*, size_t>> ranges,
               int64_t flush_bytes)
      : ranges_(std::move(ranges)) {
#if !(defined(__x86_64__) || defined(__i386__))
    buffer_.assign(static_cast<size_t>(flush_bytes), 0);
#else
    (void)flush_bytes;
#endif
  }
  void Flush() {
#if defined(__x86_64__) || defined(__i386__)
    for (const auto& [p, n] : ranges_) {
      for (size_t off = 0; off < n; off += 64) __builtin_ia32_clflush(p + off);
    }
    __builtin_ia32_mfence();
#else
    for (size_t i = 0; i < buffer_.size(); i += 64) buffer_[i] += 1;
#endif
  }

 private:
  std::vector<std::pair<const char*, size_t>> ranges_;
  std::vector<char> buffer_;
};

// The child: warm up, then time repetitions until both the minimum count
// and the wall-time budget (flushing included) are reached; report through
// `fd`.
[[noreturn]] void RunChild(Backend* backend, Kernel& kernel,
                           absl::Span<const Literal> inputs, void* output,
                           size_t output_bytes, const ProfileOptions& options,
                           int fd) {
  backend->ResetAfterFork();
  std::vector<const void*> in;
  std::vector<std::pair<const char*, size_t>> ranges;
  for (const Literal& l : inputs) {
    in.push_back(l.bytes().data());
    ranges.push_back({reinterpret_cast<const char*>(l.bytes().data()),
                      l.bytes().size()});
  }
  ranges.push_back({static_cast<const char*>(output), output_bytes});
  CacheFlusher flusher(ranges, options.flush_bytes);
  std::vector<double> seconds;
  int status = 0;
  // Warm up: at least 3 runs and 1 ms (page faults, caches of code, the
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
  double budget = absl::ToDoubleSeconds(options.time_budget);
  while (status == 0 &&
         static_cast<int>(seconds.size()) < options.max_repetitions) {
    double wall = std::chrono::duration<double>(
                      std::chrono::steady_clock::now() - begin)
                      .count();
    if (static_cast<int>(seconds.size()) >= options.min_repetitions &&
        wall >= budget) {
      break;
    }
    if (options.flush_bytes > 0) flusher.Flush();
    auto start = std::chrono::steady_clock::now();
    if (!kernel.Run(in, output).ok()) status = 3;
    seconds.push_back(std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - start)
                          .count());
  }
  int64_t n = static_cast<int64_t>(seconds.size());
  const char* p = reinterpret_cast<const char*>(&n);
  ssize_t ignored = write(fd, p, sizeof(n));
  ignored = write(fd, seconds.data(), sizeof(double) * seconds.size());
  (void)ignored;
  close(fd);
  _exit(status);
}

std::string SignalName(int sig) {
  const char* name = strsignal(sig);
  return absl::StrCat("signal ", sig, name ? absl::StrCat(" (", name, ")") : "");
}

}  // namespace

absl::StatusOr<ProfileResult> IsolatedProfiler::Profile(
    Kernel& kernel, const KernelConfig& config, absl::Span<const Literal> inputs,
    const Shape& output_shape, const ProfileOptions& options) {
  size_t out_bytes = std::max<size_t>(output_shape.ByteSize(), 1);
  void* shared = mmap(nullptr, out_bytes, PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) {
    return absl::InternalError(absl::StrCat("mmap failed: ", strerror(errno)));
  }
  int fds[2];
  if (pipe(fds) != 0) {
    munmap(shared, out_bytes);
    return absl::InternalError(absl::StrCat("pipe failed: ", strerror(errno)));
  }
  fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    munmap(shared, out_bytes);
    return absl::InternalError(absl::StrCat("fork failed: ", strerror(errno)));
  }
  if (pid == 0) {
    close(fds[0]);
    RunChild(backend_, kernel, inputs, shared, output_shape.ByteSize(), options,
             fds[1]);
  }
  close(fds[1]);
  // Read everything the child sends until it closes the pipe or the
  // deadline passes.
  std::string data;
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::microseconds(absl::ToInt64Microseconds(options.timeout));
  bool timed_out = false;
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    struct pollfd pfd = {fds[0], POLLIN, 0};
    int r = poll(&pfd, 1, static_cast<int>(std::min<int64_t>(left, 1000)));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) continue;
    char buf[4096];
    ssize_t n = read(fds[0], buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    data.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  if (timed_out) kill(pid, SIGKILL);
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  absl::Status failure;
  if (timed_out) {
    failure = absl::DeadlineExceededError(absl::StrCat(
        "still running after ", absl::FormatDuration(options.timeout),
        ": killed"));
  } else if (WIFSIGNALED(wstatus)) {
    failure = absl::AbortedError(
        absl::StrCat("crashed with ", SignalName(WTERMSIG(wstatus))));
  } else if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
    failure = absl::InternalError(absl::StrCat(
        "the profiling worker exited with status ", WEXITSTATUS(wstatus)));
  }
  ProfileResult result;
  if (failure.ok()) {
    int64_t n = 0;
    if (data.size() < sizeof(n)) {
      failure = absl::InternalError("the profiling worker sent no timings");
    } else {
      std::memcpy(&n, data.data(), sizeof(n));
      if (n < 0 || data.size() != sizeof(n) + n * sizeof(double)) {
        failure = absl::InternalError("the profiling worker sent bad timings");
      } else {
        result.seconds.resize(n);
        std::memcpy(result.seconds.data(), data.data() + sizeof(n),
                    n * sizeof(double));
        result.output = Literal(output_shape);
        std::memcpy(result.output.bytes().data(), shared,
                    result.output.bytes().size());
      }
    }
  }
  munmap(shared, out_bytes);
  (void)config;
  if (!failure.ok()) return failure;
  return result;
}

}  // namespace xtune
