#include "util/file.h"

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"
#include "util/test_temp_dir.h"

namespace xtune {
namespace {

using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::IsOkAndHolds;
using ::xtune::testing::StatusIs;

std::string TempDir() {
  // Unique per process, so runs by different users or in parallel never
  // share it.
  return xtune::testing::TestTempDir("xtune_file_test");
}

TEST(FileTest, WriteThenReadBack) {
  std::string path = TempDir() + "/a.txt";
  ASSERT_THAT(WriteFileAtomically(path, "hello\n"), IsOk());
  EXPECT_THAT(ReadFile(path), IsOkAndHolds(std::string("hello\n")));
  ASSERT_THAT(WriteFileAtomically(path, "second"), IsOk());
  EXPECT_THAT(ReadFile(path), IsOkAndHolds(std::string("second")));
}

TEST(FileTest, AtomicWriteLeavesNoTemporaryFiles) {
  std::string dir = TempDir();
  ASSERT_THAT(WriteFileAtomically(dir + "/x", "1"), IsOk());
  int count = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    (void)e;
    ++count;
  }
  EXPECT_EQ(count, 1);
}

std::string Host() {
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  std::string h(host);
  return h.empty() ? "localhost" : h.substr(0, h.find('.'));
}

// A process id that no longer exists: a child that exited and was reaped.
pid_t DeadPid() {
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  int status = 0;
  waitpid(pid, &status, 0);
  return pid;
}

TEST(FileTest, StaleTemporariesOfDeadWritersAreRemoved) {
  const std::string dir = TempDir();
  const std::string host = Host();
  const pid_t dead = DeadPid();
  auto make = [&](const std::string& name) {
    ASSERT_THAT(WriteFileAtomically(dir + "/" + name, "partial"), IsOk());
  };
  const std::string dead_a = ".a.txt.tmp." + host + "." + std::to_string(dead) + ".11";
  const std::string dead_b = ".b.txt.tmp." + host + "." + std::to_string(dead) + ".12";
  const std::string mine = ".a.txt.tmp." + host + "." + std::to_string(getpid()) + ".13";
  const std::string live = ".a.txt.tmp." + host + "." + std::to_string(getppid()) + ".14";
  const std::string other_host = ".a.txt.tmp.not-" + host + "." + std::to_string(dead) + ".15";
  const std::string unrelated = ".a.txt.tmp.notes";
  for (const std::string& n : {dead_a, dead_b, mine, live, other_host, unrelated}) make(n);
  auto exists = [&](const std::string& n) { return std::filesystem::exists(dir + "/" + n); };
  // Only a.txt's, then every file's.
  EXPECT_EQ(RemoveStaleTemporaries(dir, "a.txt"), 1);
  EXPECT_FALSE(exists(dead_a));
  EXPECT_TRUE(exists(dead_b));
  EXPECT_EQ(RemoveStaleTemporaries(dir), 1);
  EXPECT_FALSE(exists(dead_b));
  for (const std::string& n : {mine, live, other_host, unrelated}) EXPECT_TRUE(exists(n)) << n;
  EXPECT_EQ(RemoveStaleTemporaries(dir + "/missing"), 0);
}

TEST(FileTest, MissingFileIsNotFound) {
  EXPECT_THAT(ReadFile(TempDir() + "/missing"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("missing")));
}

TEST(FileTest, WriteIntoMissingDirectoryFailsAndKeepsNothing) {
  std::string dir = TempDir();
  EXPECT_FALSE(WriteFileAtomically(dir + "/no/such/dir/f", "x").ok());
}

TEST(FileTest, ReadingADirectoryIsAnError) {
  EXPECT_THAT(ReadFile(TempDir()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("directory")));
}

TEST(FileTest, CreateDirectoriesMakesParents) {
  std::string dir = TempDir() + "/p/q/r";
  ASSERT_THAT(CreateDirectories(dir), IsOk());
  EXPECT_TRUE(std::filesystem::is_directory(dir));
  EXPECT_THAT(CreateDirectories(dir), IsOk());
}

}  // namespace
}  // namespace xtune
