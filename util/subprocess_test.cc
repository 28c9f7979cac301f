#include "util/subprocess.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/file.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

TEST(SubprocessTest, CapturesOutputAndExitCode) {
  absl::StatusOr<SubprocessResult> r =
      RunSubprocess({"echo", "hello", "world"}, absl::Seconds(10));
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->output, "hello world\n");
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_EQ(r->term_signal, 0);
  EXPECT_FALSE(r->timed_out);
}

TEST(SubprocessTest, InterleavesStdoutAndStderr) {
  absl::StatusOr<SubprocessResult> r = RunSubprocess(
      {"sh", "-c", "echo one; echo two >&2; echo three"}, absl::Seconds(10));
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->output, "one\ntwo\nthree\n");
}

TEST(SubprocessTest, ReportsNonZeroExitCode) {
  absl::StatusOr<SubprocessResult> r =
      RunSubprocess({"sh", "-c", "echo failing; exit 3"}, absl::Seconds(10));
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_EQ(r->term_signal, 0);
  EXPECT_EQ(r->output, "failing\n");
}

TEST(SubprocessTest, ReportsTerminatingSignal) {
  absl::StatusOr<SubprocessResult> r =
      RunSubprocess({"sh", "-c", "kill -SEGV $$"}, absl::Seconds(10));
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->term_signal, SIGSEGV);
  EXPECT_EQ(r->exit_code, -1);
  EXPECT_FALSE(r->timed_out);
}

TEST(SubprocessTest, StdinIsEmpty) {
  absl::StatusOr<SubprocessResult> r =
      RunSubprocess({"wc", "-c"}, absl::Seconds(10));
  ASSERT_THAT(r, IsOk());
  EXPECT_THAT(r->output, HasSubstr("0"));
  EXPECT_EQ(r->exit_code, 0);
}

TEST(SubprocessTest, TimeoutKillsChild) {
  absl::Time start = absl::Now();
  absl::StatusOr<SubprocessResult> r =
      RunSubprocess({"sleep", "10"}, absl::Milliseconds(200));
  absl::Duration elapsed = absl::Now() - start;
  ASSERT_THAT(r, IsOk());
  EXPECT_TRUE(r->timed_out);
  EXPECT_EQ(r->term_signal, SIGKILL);
  EXPECT_GE(elapsed, absl::Milliseconds(200));
  EXPECT_LT(elapsed, absl::Seconds(2));
}

// Whether `pid` has terminated (gone, or a zombie waiting to be reaped by
// whoever inherited it), waiting up to two seconds for that to happen.
bool ProcessTerminates(pid_t pid) {
  absl::Time deadline = absl::Now() + absl::Seconds(2);
  while (absl::Now() < deadline) {
    absl::StatusOr<std::string> stat =
        ReadFile(absl::StrCat("/proc/", pid, "/stat"));
    if (!stat.ok()) return true;
    // Format: "pid (comm) state ...".
    size_t paren = stat->rfind(')');
    if (paren != std::string::npos && paren + 2 < stat->size() &&
        (*stat)[paren + 2] == 'Z') {
      return true;
    }
    absl::SleepFor(absl::Milliseconds(10));
  }
  return false;
}

TEST(SubprocessTest, TimeoutKillsTheWholeProcessGroup) {
  // The shell's background child must die with the shell.
  absl::Time start = absl::Now();
  absl::StatusOr<SubprocessResult> r = RunSubprocess(
      {"sh", "-c", "sleep 10 & echo $!; wait"}, absl::Milliseconds(300));
  absl::Duration elapsed = absl::Now() - start;
  ASSERT_THAT(r, IsOk());
  EXPECT_TRUE(r->timed_out);
  EXPECT_LT(elapsed, absl::Seconds(2));
  int grandchild = 0;
  ASSERT_TRUE(
      absl::SimpleAtoi(absl::StripAsciiWhitespace(r->output), &grandchild))
      << r->output;
  EXPECT_TRUE(ProcessTerminates(grandchild));
}

// A child must not outlive its caller: a process killed with SIGKILL (or
// by a signal to its own process group, which the child's new group does
// not get) takes its running subprocess with it.
TEST(SubprocessTest, ChildDiesWithItsCaller) {
  const std::string pid_file =
      ::testing::TempDir() + "/subprocess_child_" + std::to_string(getpid());
  std::filesystem::remove(pid_file);
  pid_t watcher = fork();
  if (watcher == 0) {
    // The child's orphan comes to this process, which can then wait for it.
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    pid_t caller = fork();
    if (caller == 0) {
      RunSubprocess({"sh", "-c", "echo $$ > " + pid_file + ".tmp && mv " + pid_file +
                                     ".tmp " + pid_file + " && exec sleep 30"},
                    absl::Seconds(60))
          .IgnoreError();
      _exit(0);
    }
    int child = 0;
    for (int i = 0; i < 500 && child == 0; ++i) {
      absl::StatusOr<std::string> text = ReadFile(pid_file);
      if (!text.ok() || !absl::SimpleAtoi(absl::StripAsciiWhitespace(*text), &child)) {
        child = 0;
        usleep(10000);
      }
    }
    if (child == 0) _exit(2);  // the subprocess never started
    kill(caller, SIGKILL);
    waitpid(caller, nullptr, 0);
    for (int i = 0; i < 500; ++i) {
      int status = 0;
      if (waitpid(child, &status, WNOHANG) == child) {
        _exit(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? 0 : 3);
      }
      usleep(10000);
    }
    kill(child, SIGKILL);
    _exit(1);  // still running 5 s after its caller died
  }
  int status = 0;
  ASSERT_EQ(waitpid(watcher, &status, 0), watcher);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "1: the subprocess outlived its caller; 2: it never started; 3: it ended otherwise";
  std::filesystem::remove(pid_file);
}

TEST(SubprocessTest, ChattyChildStillTimesOut) {
  absl::Time start = absl::Now();
  absl::StatusOr<SubprocessResult> r =
      RunSubprocess({"yes"}, absl::Milliseconds(200));
  ASSERT_THAT(r, IsOk());
  EXPECT_TRUE(r->timed_out);
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
}

TEST(SubprocessTest, MissingProgramIsNotFound) {
  EXPECT_THAT(RunSubprocess({"xtune-no-such-program"}, absl::Seconds(10)),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("xtune-no-such-program")));
  EXPECT_THAT(RunSubprocess({"/nonexistent/bin/tool"}, absl::Seconds(10)),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("/nonexistent/bin/tool")));
}

TEST(SubprocessTest, EmptyArgvIsInvalid) {
  EXPECT_THAT(RunSubprocess({}, absl::Seconds(10)),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(SubprocessTest, RunsInWorkingDirectory) {
  std::string dir = std::filesystem::temp_directory_path().string();
  absl::StatusOr<SubprocessResult> r =
      RunSubprocess({"pwd", "-P"}, absl::Seconds(10), dir);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->output, std::filesystem::canonical(dir).string() + "\n");
}

TEST(SubprocessTest, MissingWorkingDirectoryIsNotFound) {
  EXPECT_THAT(
      RunSubprocess({"pwd"}, absl::Seconds(10), "/nonexistent/xtune/dir"),
      StatusIs(absl::StatusCode::kNotFound,
               HasSubstr("/nonexistent/xtune/dir")));
}

TEST(SubprocessTest, ConcurrentCallsKeepOutputsApart) {
  // Pipes are close-on-exec: a child started by one thread must not hold
  // another thread's pipe open (which would delay that thread's EOF).
  constexpr int kThreads = 8;
  std::vector<std::string> outputs(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&outputs, t] {
      absl::StatusOr<SubprocessResult> r = RunSubprocess(
          {"sh", "-c", "echo $0", std::to_string(t)}, absl::Seconds(10));
      if (r.ok()) outputs[t] = r->output;
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(outputs[t], std::to_string(t) + "\n");
  }
}

}  // namespace
}  // namespace xtune
