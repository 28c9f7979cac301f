#include "util/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "absl/strings/str_cat.h"

extern char** environ;

namespace xtune {
namespace {

std::string SignalName(int sig) {
  const char* name = strsignal(sig);
  return absl::StrCat("signal ", sig,
                      name != nullptr ? absl::StrCat(" (", name, ")") : "");
}

}  // namespace

absl::StatusOr<std::unique_ptr<WorkerProcess>> WorkerProcess::Spawn(
    const std::vector<std::string>& argv, int shared_fd) {
  if (argv.empty()) return absl::InvalidArgumentError("no worker program");
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot create a socket for the worker '", argv[0],
                     "': ", strerror(errno)));
  }
  // The sources of the child's fds 3 and 4 are first moved above both, so
  // that one dup2 cannot clobber the other's source (a memfd that is fd 3
  // here would otherwise become a second copy of the socket).
  int child_socket = fcntl(sv[1], F_DUPFD_CLOEXEC, 10);
  int child_shared =
      shared_fd >= 0 ? fcntl(shared_fd, F_DUPFD_CLOEXEC, 10) : -1;
  close(sv[1]);
  sv[1] = child_socket;
  if (child_socket < 0 || (shared_fd >= 0 && child_shared < 0)) {
    int err = errno;
    close(sv[0]);
    if (child_socket >= 0) close(child_socket);
    if (child_shared >= 0) close(child_shared);
    return absl::UnavailableError(absl::StrCat(
        "cannot pass descriptors to the worker: ", strerror(err)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  // dup2 clears close-on-exec on the child's copies only, so no other
  // descriptor of ours (nor of a thread spawning at the same time) leaks.
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, child_socket, 3);
  if (child_shared >= 0) {
    posix_spawn_file_actions_adddup2(&actions, child_shared, 4);
  }
  sigset_t empty_mask, defaults;
  sigemptyset(&empty_mask);
  sigfillset(&defaults);
  posix_spawnattr_setsigmask(&attr, &empty_mask);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> c_argv;
  for (const std::string& a : argv) c_argv.push_back(const_cast<char*>(a.c_str()));
  c_argv.push_back(nullptr);
  pid_t pid = -1;
  int err = posix_spawn(&pid, c_argv[0], &actions, &attr, c_argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(sv[1]);
  if (child_shared >= 0) close(child_shared);
  if (err != 0) {
    close(sv[0]);
    return absl::UnavailableError(absl::StrCat(
        "cannot start the worker '", argv[0], "': ", strerror(err)));
  }
  return std::unique_ptr<WorkerProcess>(new WorkerProcess(pid, sv[0]));
}

WorkerProcess::~WorkerProcess() {
  close(socket_);  // the worker exits at EOF
  if (reaped_) return;
  // Give it a moment to exit on its own, then make sure.
  for (int i = 0; i < 100 && !Reap(false); ++i) usleep(1000);
  Kill();
}

bool WorkerProcess::Reap(bool block) {
  if (reaped_) return true;
  while (true) {
    pid_t r = waitpid(pid_, &wait_status_, block ? 0 : WNOHANG);
    if (r < 0 && errno == EINTR) continue;
    if (r == pid_ || r < 0) {
      // ECHILD: reaped elsewhere (SIGCHLD ignored): the status is unknown.
      status_known_ = r == pid_;
      reaped_ = true;
      return true;
    }
    return false;
  }
}

void WorkerProcess::Kill() {
  if (reaped_ || pid_ <= 1) return;
  kill(pid_, SIGKILL);
  Reap(true);
}

bool WorkerProcess::Alive() { return !Reap(false); }

std::string WorkerProcess::Death() {
  for (int i = 0; i < 200 && !Reap(false); ++i) usleep(1000);
  if (!reaped_) {
    Kill();
    return "stopped answering (killed)";
  }
  if (!status_known_) return "ended (its exit status is unknown)";
  if (WIFSIGNALED(wait_status_)) {
    int sig = WTERMSIG(wait_status_);
    return absl::StrCat(sig == SIGKILL ? "was killed with " : "crashed with ",
                        SignalName(sig),
                        sig == SIGKILL ? "; out of memory?" : "");
  }
  if (WIFEXITED(wait_status_)) {
    return absl::StrCat("exited with status ", WEXITSTATUS(wait_status_));
  }
  return "ended";
}

namespace {

// Milliseconds to wait in one poll() before `deadline`: at most 1000 (so a
// dead worker is noticed), at least 1, no overflow for InfiniteFuture.
int PollMillis(absl::Time deadline) {
  absl::Duration left = deadline - absl::Now();
  if (left >= absl::Seconds(1)) return 1000;
  return static_cast<int>(std::max<int64_t>(1, absl::ToInt64Milliseconds(left) + 1));
}

}  // namespace

absl::Status WorkerProcess::Send(const void* data, size_t bytes,
                                 absl::Time deadline) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    if (absl::Now() >= deadline) {
      Kill();
      return absl::DeadlineExceededError("the worker takes no input: killed");
    }
    struct pollfd pfd = {socket_, POLLOUT, 0};
    int r = poll(&pfd, 1, PollMillis(deadline));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) continue;
    ssize_t w = send(socket_, p, bytes, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (w <= 0) {
      return absl::AbortedError(absl::StrCat("the worker ", Death()));
    }
    p += w;
    bytes -= static_cast<size_t>(w);
  }
  return absl::OkStatus();
}

absl::Status WorkerProcess::Receive(void* data, size_t bytes,
                                    absl::Time deadline) {
  char* p = static_cast<char*>(data);
  while (bytes > 0) {
    absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      Kill();
      return absl::DeadlineExceededError("still running: killed");
    }
    struct pollfd pfd = {socket_, POLLIN, 0};
    int r = poll(&pfd, 1, PollMillis(deadline));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) continue;
    ssize_t got = recv(socket_, p, bytes, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      return absl::AbortedError(absl::StrCat("the worker ", Death()));
    }
    p += got;
    bytes -= static_cast<size_t>(got);
  }
  return absl::OkStatus();
}

}  // namespace xtune
