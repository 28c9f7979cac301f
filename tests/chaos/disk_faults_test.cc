// Disk and file-system faults on the persistent paths: a full disk (a small
// tmpfs this test mounts; it skips, saying why, where it may not mount), a
// read-only folder, a target that is a folder, a lock held by a process
// that died, a file truncated or rewritten in place while read, and a
// kernel cache holding corrupt or foreign objects. Each gives a clear error
// (exit 1 from the CLI) or a rebuild; the previous file stays intact and no
// temporary file is left.
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cache/cache_test_util.h"
#include "cache/merge.h"
#include "cache/results_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli_util.h"
#include "util/file.h"
#include "util/sha256.h"
#include "util/status_matchers.h"
#include "util/test_temp_dir.h"

namespace xtune {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::xtune::testing::IsOk;

int Temporaries(const std::string& dir) {
  int n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir, ec)) {
    n += absl::StrContains(e.path().filename().string(), ".tmp.");
  }
  return n;
}

xla::AutotuneResults Entries(int count) {
  xla::AutotuneResults r;
  r.set_version(3);
  for (int i = 0; i < count; ++i) {
    AddEntry(&r, "CPU: disk", absl::StrCat("{\n  ROOT tmp_0 = f32[", i + 1, "]{0} parameter(0)\n}"),
             CpuLoopResult(1, 64, 1000 + i), 0);
  }
  return r;
}

// A tmpfs of `bytes` at `dir`, unmounted when destroyed.
class Tmpfs {
 public:
  Tmpfs(const std::string& dir, int64_t bytes) : dir_(dir) {
    std::filesystem::create_directories(dir);
    const std::string options = absl::StrCat("size=", bytes);
    if (mount("tmpfs", dir.c_str(), "tmpfs", 0, options.c_str()) == 0) {
      mounted_ = true;
    } else {
      error_ = strerror(errno);
    }
  }
  ~Tmpfs() {
    if (mounted_) umount2(dir_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }
  const std::string& error() const { return error_; }
  bool ReadOnly() {
    return mount("tmpfs", dir_.c_str(), "tmpfs", MS_REMOUNT | MS_RDONLY, nullptr) == 0;
  }

 private:
  std::string dir_;
  bool mounted_ = false;
  std::string error_;
};

#define XTUNE_MOUNT_OR_SKIP(var, dir, bytes)                                              \
  Tmpfs var(dir, bytes);                                                                  \
  if (!var.mounted()) {                                                                   \
    GTEST_SKIP() << "cannot mount a tmpfs (" << var.error()                               \
                 << "): the full-disk and read-only cases need root or CAP_SYS_ADMIN";    \
  }

// Fills the file system of `dir` up to its last few bytes.
void Fill(const std::string& dir) {
  std::ofstream f(dir + "/filler", std::ios::binary);
  std::string block(512, 'x');
  while (f.write(block.data(), block.size())) {
  }
}

class DiskFaultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = xtune::testing::TestTempDir(absl::StrCat(
        "xtune_disk_", ::testing::UnitTest::GetInstance()->current_test_info()->name()));
    module_ = dir_ + "/model.hlo";
    ASSERT_THAT(WriteFileAtomically(module_, kModel), IsOk());
  }
  std::string dir_, module_;
};

TEST_F(DiskFaultsTest, AFullDiskKeepsThePreviousFiles) {
  const std::string full = dir_ + "/full";
  XTUNE_MOUNT_OR_SKIP(fs, full, 64 * 1024);
  const std::string path = full + "/cache.textproto";
  ASSERT_THAT(WriteAutotuneResults(path, Entries(2)), IsOk());
  absl::StatusOr<std::string> before = ReadFile(path);
  ASSERT_THAT(before, IsOk());
  Fill(full);
  // The library: a clear error, the old file, no temporary file.
  absl::Status s = WriteAutotuneResults(path, Entries(400));
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("No space left on device"));
  EXPECT_EQ(*ReadFile(path), *before);
  EXPECT_EQ(Temporaries(full), 0);
  // The CLI: exit 1 naming the file, for a dump and a merge-dump.
  for (const std::string merge : {"", " --xtune_dump_autotune_results_merge"}) {
    Result r = RunXtune("compile " + module_ + " --xla_gpu_autotune_level=2 "
                        "--xla_gpu_dump_autotune_results_to=" + path + merge);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_THAT(r.output, HasSubstr("No space left on device")) << merge;
    EXPECT_THAT(r.output, HasSubstr(path));
    EXPECT_EQ(*ReadFile(path), *before) << merge;
    EXPECT_EQ(Temporaries(full), 0) << merge;
  }
  // A per-fusion directory there: the tier's writes fail with a warning and
  // the compile goes on; nothing half-written stays.
  Result r = RunXtune("run " + module_ + " --verify --xla_gpu_autotune_level=2 "
                      "--xla_gpu_per_fusion_autotune_cache_dir=" + full + "/per_fusion");
  EXPECT_THAT(r.exit_code, AnyOf(0, 1)) << r.output;
  if (r.exit_code == 0) {
    EXPECT_THAT(r.output, HasSubstr("could not store a result"));
  }
  EXPECT_EQ(Temporaries(full), 0);
  // A kernel cache there: the compile still runs and verifies.
  r = RunXtune("run " + module_ + " --verify --xla_gpu_autotune_level=2",
               "XTUNE_CACHE_DIR=" + full + "/kernel_cache");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(Temporaries(full), 0);
}

TEST_F(DiskFaultsTest, AReadOnlyFolderIsAClearError) {
  const std::string ro = dir_ + "/ro";
  XTUNE_MOUNT_OR_SKIP(fs, ro, 1 << 20);
  const std::string path = ro + "/cache.textproto";
  ASSERT_THAT(WriteAutotuneResults(path, Entries(2)), IsOk());
  const std::string before = *ReadFile(path);
  ASSERT_TRUE(fs.ReadOnly());
  Result r = RunXtune("compile " + module_ + " --xla_gpu_autotune_level=2 "
                      "--xla_gpu_dump_autotune_results_to=" + path);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("is not a writable folder"));
  EXPECT_EQ(*ReadFile(path), before);
  // Loading from it still works.
  r = RunXtune("compile " + module_ + " --xla_gpu_load_autotune_results_from=" + path);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  r = RunXtune("compile " + module_ + " --xla_gpu_per_fusion_autotune_cache_dir=" + ro + "/pf");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("Read-only file system"));
}

TEST_F(DiskFaultsTest, ATargetThatIsAFolder) {
  const std::string path = dir_ + "/cache.textproto";
  std::filesystem::create_directories(path + "/inside");
  Result r = RunXtune("compile " + module_ + " --xla_gpu_autotune_level=2 "
                      "--xla_gpu_dump_autotune_results_to=" + path);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr(path));
  EXPECT_TRUE(std::filesystem::is_directory(path + "/inside"));
  EXPECT_EQ(Temporaries(dir_), 0);
  r = RunXtune("compile " + module_ + " --xla_gpu_load_autotune_results_from=" + path);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr(path));
}

TEST_F(DiskFaultsTest, ALockHeldByADeadProcess) {
  const std::string path = dir_ + "/merged.textproto";
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t pid = fork();
  if (pid == 0) {
    absl::StatusOr<FileLock> lock = FileLock::Acquire(path + ".lock");
    char c = lock.ok() ? 'y' : 'n';
    (void)!write(ready[1], &c, 1);
    pause();  // holds the lock until killed
    _exit(0);
  }
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  ASSERT_EQ(c, 'y');
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  // The kernel dropped the dead holder's lock: the merge goes through.
  MergeStats stats;
  auto start = std::chrono::steady_clock::now();
  ASSERT_THAT(MergeIntoFile(path, Entries(3), 4, &stats), IsOk());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(ReadAutotuneResults(path)->results_size(), 3);
}

TEST_F(DiskFaultsTest, AFileTruncatedOrRewrittenInPlaceWhileRead) {
  const std::string path = dir_ + "/cache.textproto";
  const std::string a = SerializeAutotuneResults(Entries(50), true);
  const std::string b = SerializeAutotuneResults(Entries(80), true);
  // Truncated: xtune's own files carry a check, so a cut anywhere is caught.
  for (size_t cut : {a.size() / 2, a.size() - 2, size_t{40}}) {
    ASSERT_THAT(WriteFileAtomically(path, a.substr(0, cut)), IsOk());
    absl::StatusOr<xla::AutotuneResults> r = ReadAutotuneResults(path);
    EXPECT_FALSE(r.ok()) << cut;
    Result cli = RunXtune("compile " + module_ + " --xla_gpu_load_autotune_results_from=" + path);
    EXPECT_EQ(cli.exit_code, 1) << cli.output;
    EXPECT_THAT(cli.output, HasSubstr(path));
  }
  // Rewritten in place (not by xtune: O_TRUNC and write, as `cat > file`)
  // while read: every read is whole (a or b) or refused, never a crash.
  ASSERT_THAT(WriteFileAtomically(path, a), IsOk());
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (int i = 0; !stop; ++i) {
      std::ofstream f(path, std::ios::binary | std::ios::trunc);
      const std::string& t = i % 2 ? a : b;
      for (size_t at = 0; at < t.size(); at += 997) f.write(t.data() + at, std::min<size_t>(997, t.size() - at));
    }
  });
  int whole = 0, refused = 0;
  for (int i = 0; i < 2000; ++i) {
    absl::StatusOr<std::string> text = ReadFile(path);
    if (!text.ok()) continue;
    absl::StatusOr<xla::AutotuneResults> r = ParseAutotuneResults(*text, true, path);
    if (r.ok()) {
      EXPECT_TRUE(*text == a || *text == b);
      ++whole;
    } else {
      ++refused;
    }
  }
  stop = true;
  writer.join();
  EXPECT_GT(whole + refused, 0);
  std::cout << "file rewritten in place while read: " << whole << " whole reads, " << refused
            << " refused\n";
}

TEST_F(DiskFaultsTest, CorruptOrForeignKernelObjectsAreRebuilt) {
  const std::string cache = dir_ + "/kernel_cache";
  const std::string env = "XTUNE_CACHE_DIR=" + cache;
  Result r = RunXtune("run " + module_ + " --verify --xla_gpu_autotune_level=0", env);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::vector<std::string> objects;
  for (const auto& e : std::filesystem::directory_iterator(cache + "/kernels")) {
    if (e.path().extension() == ".so") objects.push_back(e.path().string());
  }
  ASSERT_FALSE(objects.empty());
  // Corrupt: bytes changed under the digest.
  for (const std::string& o : objects) ASSERT_THAT(WriteFileAtomically(o, "garbage"), IsOk());
  r = RunXtune("run " + module_ + " --verify --xla_gpu_autotune_level=0", env);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  // Foreign: not a shared object of this machine, with a digest to match.
  for (const std::string& o : objects) {
    const std::string foreign = "\x7f" "ELF foreign object";
    ASSERT_THAT(WriteFileAtomically(o, foreign), IsOk());
    const std::string base = o.substr(0, o.size() - 3);
    ASSERT_THAT(WriteFileAtomically(base + ".sha256", Sha256Hex(foreign) + "\n"), IsOk());
  }
  r = RunXtune("run " + module_ + " --verify --xla_gpu_autotune_level=0", env);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(Temporaries(cache), 0);
}

}  // namespace
}  // namespace xtune
