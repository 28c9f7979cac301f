// Running a child process with a timeout and capturing its output.
//
// Used to run host compilers and other tools. The child gets /dev/null as
// stdin and one pipe as both stdout and stderr, so the captured output keeps
// the order in which the child wrote it. The child leads a new process group;
// on timeout the whole group (the child and anything it started) is killed
// with SIGKILL. The child is also killed (SIGKILL, PR_SET_PDEATHSIG) when
// the calling thread's process dies first: a signal to the caller's own
// process group does not reach the child's, and a compiler must not outlive
// the xtune that started it.
//
// Thread-safe: any number of threads may run subprocesses at once (the pipe
// is close-on-exec, so it never leaks into another thread's child).
#ifndef XTUNE_UTIL_SUBPROCESS_H_
#define XTUNE_UTIL_SUBPROCESS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace xtune {

struct SubprocessResult {
  // The exit status when the child exited normally, otherwise -1.
  int exit_code = -1;
  // The signal that terminated the child, otherwise 0. SIGKILL on timeout.
  int term_signal = 0;
  // Whether `timeout` passed before the child exited and its output ended;
  // its process group was then killed with SIGKILL.
  bool timed_out = false;
  // Everything written to stdout and stderr, interleaved as written.
  std::string output;
};

// Runs argv[0] (looked up on $PATH when it has no '/') with arguments argv,
// in `working_dir` (the current directory when empty), inheriting the
// environment, and waits for it to exit or for `timeout` to pass
// (absl::InfiniteDuration() waits forever).
//
// Output is read until every process holding the pipe has closed it, so a
// background process that keeps it open counts against the timeout.
//
// A child that runs and fails is not an error: see the result's fields.
// Errors: InvalidArgument when argv is empty; NotFound when the program or
// `working_dir` cannot be found or executed (naming which); Internal when a
// pipe cannot be created, the spawn fails otherwise, or reading fails.
absl::StatusOr<SubprocessResult> RunSubprocess(
    const std::vector<std::string>& argv, absl::Duration timeout,
    const std::string& working_dir = "");

}  // namespace xtune

#endif  // XTUNE_UTIL_SUBPROCESS_H_
