// WorkerProcess: a helper program started with posix_spawn (never fork: the
// caller may have threads, and CUDA contexts do not survive a fork), talked
// to over a socket, that may die at any moment without harming the caller.
//
// The child gets /dev/null as stdin, the caller's stdout and stderr, one
// end of a socketpair as fd 3, and optionally a shared-memory fd as fd 4;
// nothing else leaks into it (every other fd of ours is close-on-exec). It
// runs with default signal dispositions and should exit at EOF on fd 3.
// Writes use MSG_NOSIGNAL, so a dead worker is an error here, never SIGPIPE.
// A worker still alive when the WorkerProcess goes away is killed and
// reaped.
//
// Thread-compatible: one thread talks to a worker at a time.
#ifndef XTUNE_UTIL_WORKER_PROCESS_H_
#define XTUNE_UTIL_WORKER_PROCESS_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace xtune {

class WorkerProcess {
 public:
  // Starts `argv[0]` (a path) with `argv`; `shared_fd` >= 0 becomes the
  // child's fd 4. Errors: Unavailable naming the program and the reason.
  static absl::StatusOr<std::unique_ptr<WorkerProcess>> Spawn(
      const std::vector<std::string>& argv, int shared_fd = -1);

  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Sends all of `data` before `deadline`. DeadlineExceeded when the worker
  // does not take it in time (it is then killed), Aborted (with Death()'s
  // description) when the worker is gone.
  absl::Status Send(const void* data, size_t bytes, absl::Time deadline);
  // Receives exactly `bytes` before `deadline`. DeadlineExceeded when the
  // deadline passes (the worker is then killed), Aborted when the worker
  // closed its end or died (with Death()'s description).
  absl::Status Receive(void* data, size_t bytes, absl::Time deadline);

  // Kills (SIGKILL) and reaps the worker; idempotent.
  void Kill();
  // Whether the worker still runs (reaping it when it does not).
  bool Alive();
  // After a failure: waits (briefly, then kills) for the worker to end and
  // describes how it did: "crashed with signal 11 (Segmentation fault)",
  // "was killed with signal 9 (Killed); out of memory?", "exited with
  // status 3".
  std::string Death();

  pid_t pid() const { return pid_; }

 private:
  WorkerProcess(pid_t pid, int socket) : pid_(pid), socket_(socket) {}
  // Reaps without blocking; true when the worker has ended.
  bool Reap(bool block);

  pid_t pid_;
  int socket_;
  bool reaped_ = false;
  bool status_known_ = false;
  int wait_status_ = 0;
};

}  // namespace xtune

#endif  // XTUNE_UTIL_WORKER_PROCESS_H_
