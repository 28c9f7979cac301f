#include "util/file.h"

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
