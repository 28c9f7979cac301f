#include "util/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "util/status_macros.h"

namespace xtune {
namespace {

// Closes a file descriptor on scope exit.
class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  ~FdCloser() {
    if (fd_ >= 0) close(fd_);
  }
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;
  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

// A close-on-exec pipe for running `program`.
absl::Status MakePipe(const std::string& program, int fds[2]) {
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("cannot create a pipe for '",
                                            program, "': ", strerror(errno)));
  }
  return absl::OkStatus();
}

// Milliseconds until `deadline` for poll(): -1 for no deadline, 0 when past,
// rounded up so that we never wake just before the deadline and spin.
int PollTimeoutMs(absl::Time deadline) {
  if (deadline == absl::InfiniteFuture()) return -1;
  absl::Duration left = deadline - absl::Now();
  if (left <= absl::ZeroDuration()) return 0;
  return static_cast<int>(std::min<int64_t>(
      absl::ToInt64Milliseconds(absl::Ceil(left, absl::Milliseconds(1))),
      60 * 1000));
}

// Reaps `pid`, retrying on EINTR; returns its wait status.
int Reap(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// Waits for `pid` after its output has ended. Returns false when `deadline`
// passes first (the child closed its output but kept running).
bool WaitUntil(pid_t pid, absl::Time deadline, int* status) {
  if (deadline == absl::InfiniteFuture()) {
    *status = Reap(pid);
    return true;
  }
  absl::Duration nap = absl::Microseconds(100);
  while (true) {
    pid_t r = waitpid(pid, status, WNOHANG);
    if (r == pid) return true;
    if (r < 0 && errno != EINTR) return true;  // Cannot happen for our child.
    if (absl::Now() >= deadline) return false;
    absl::SleepFor(std::min(nap, deadline - absl::Now()));
    nap = std::min(nap * 2, absl::Milliseconds(10));
  }
}

}  // namespace

absl::StatusOr<SubprocessResult> RunSubprocess(
    const std::vector<std::string>& argv, absl::Duration timeout,
    const std::string& working_dir) {
  if (argv.empty()) {
    return absl::InvalidArgumentError("RunSubprocess: argv is empty");
  }
  if (!working_dir.empty()) {
    // A failed chdir in the child reads as ENOENT, indistinguishable from a
    // missing program, so check the directory first for a clear message.
    struct stat st;
    if (stat(working_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      return absl::NotFoundError(
          absl::StrCat("cannot run '", argv[0], "': working directory '",
                       working_dir, "' does not exist or is not a directory"));
    }
  }

  int fds[2];
  XTUNE_RETURN_IF_ERROR(MakePipe(argv[0], fds));
  FdCloser read_end(fds[0]);
  FdCloser write_end(fds[1]);

  // Everything the child needs is prepared before fork(): between fork and
  // exec it makes only async-signal-safe calls.
  std::vector<char*> c_argv;
  c_argv.reserve(argv.size() + 1);
  for (const std::string& arg : argv)
    c_argv.push_back(const_cast<char*>(arg.c_str()));
  c_argv.push_back(nullptr);
  const char* dir = working_dir.empty() ? nullptr : working_dir.c_str();
  // The child reports a failed exec (its errno) here; EOF means exec worked.
  int exec_fds[2];
  XTUNE_RETURN_IF_ERROR(MakePipe(argv[0], exec_fds));
  FdCloser exec_read(exec_fds[0]);
  FdCloser exec_write(exec_fds[1]);
  sigset_t empty_mask;
  sigemptyset(&empty_mask);
  struct sigaction default_action = {};
  default_action.sa_handler = SIG_DFL;
  const pid_t parent = getpid();

  absl::Time deadline = timeout == absl::InfiniteDuration()
                            ? absl::InfiniteFuture()
                            : absl::Now() + timeout;
  pid_t pid = fork();
  if (pid == 0) {
    // Dies with the thread that runs it: a compiler whose xtune was killed
    // (SIGKILL, the OOM killer, a signal to xtune's process group, which
    // does not reach this new group) must not go on writing into the cache.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    // A new process group, so that a timeout kills grandchildren too;
    // default signal dispositions and an empty mask, whatever the caller
    // changed.
    setpgid(0, 0);
    for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &default_action, nullptr);
    sigprocmask(SIG_SETMASK, &empty_mask, nullptr);
    int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (in < 0 || dup2(in, 0) < 0 || dup2(fds[1], 1) < 0 || dup2(fds[1], 2) < 0 ||
        (dir != nullptr && chdir(dir) != 0)) {
      int e = errno;
      (void)!write(exec_fds[1], &e, sizeof e);
      _exit(127);
    }
    execvp(c_argv[0], c_argv.data());
    int e = errno;
    (void)!write(exec_fds[1], &e, sizeof e);
    _exit(127);
  }
  if (pid < 0) {
    return absl::InternalError(
        absl::StrCat("cannot start '", argv[0], "': ", strerror(errno)));
  }
  setpgid(pid, pid);  // also here: kill(-pid) must work at once
  exec_write.Close();
  int err = 0;
  ssize_t got;
  while ((got = read(exec_fds[0], &err, sizeof err)) < 0 && errno == EINTR) {
  }
  if (got == static_cast<ssize_t>(sizeof err)) {
    Reap(pid);
    switch (err) {
      case ENOENT:
      case EACCES:
      case ENOEXEC:
      case ENOTDIR:
      case ELOOP:
      case ENAMETOOLONG:
        return absl::NotFoundError(absl::StrCat(
            "cannot execute '", argv[0], "': ", strerror(err),
            strchr(argv[0].c_str(), '/') == nullptr ? " (searched $PATH)"
                                                    : ""));
      default:
        return absl::InternalError(
            absl::StrCat("cannot start '", argv[0], "': ", strerror(err)));
    }
  }
  // Only the child may hold the write end, or we would never see EOF.
  write_end.Close();

  SubprocessResult result;
  absl::Status read_error;
  char buffer[1 << 14];
  while (true) {
    // Checked on every round, so a child that never stops writing still
    // times out.
    if (absl::Now() >= deadline) {
      result.timed_out = true;  // The process group is killed below.
      break;
    }
    struct pollfd pfd = {fds[0], POLLIN, 0};
    int ready = poll(&pfd, 1, PollTimeoutMs(deadline));
    if (ready < 0) {
      if (errno == EINTR) continue;
      read_error = absl::InternalError(absl::StrCat(
          "cannot poll the output of '", argv[0], "': ", strerror(errno)));
      break;
    }
    if (ready == 0) continue;  // Deadline check above.
    ssize_t n = read(fds[0], buffer, sizeof(buffer));
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      read_error = absl::InternalError(absl::StrCat(
          "cannot read the output of '", argv[0], "': ", strerror(errno)));
      break;
    }
    if (n == 0) break;  // EOF: every writer has exited or closed the pipe.
    result.output.append(buffer, static_cast<size_t>(n));
  }
  int status = 0;
  if (!read_error.ok()) {
    kill(-pid, SIGKILL);
    Reap(pid);
    return read_error;
  }
  // The child has not been reaped yet, so its process group still exists
  // and kill(-pid) reaches whatever is left of it, even after it exited.
  if (result.timed_out || !WaitUntil(pid, deadline, &status)) {
    result.timed_out = true;
    kill(-pid, SIGKILL);
    status = Reap(pid);
  }
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.term_signal = WTERMSIG(status);
  }
  return result;
}

}  // namespace xtune
