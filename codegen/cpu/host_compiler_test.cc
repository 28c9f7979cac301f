#include "codegen/cpu/host_compiler.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/file.h"
#include "util/sha256.h"
#include "util/status_matchers.h"

namespace xtune::cpu {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

constexpr absl::string_view kAnswerSource = R"cc(
  extern "C" int xtune_answer() {
    return 42;
  }
)cc";

using IntFn = int (*)();

// Calls the kernel `name` (an `int()` function) in `object`; -1 if absent.
int Call(const LoadedObject& object, const char* name) {
  auto fn = reinterpret_cast<IntFn>(object.Symbol(name));
  return fn == nullptr ? -1 : fn();
}

std::string ValueSource(int value) {
  return absl::StrCat("extern \"C\" int xtune_value() { return ", value,
                      "; }\n");
}

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = getenv(name);
    if (old != nullptr) old_ = old;
    had_old_ = old != nullptr;
    if (value == nullptr) {
      unsetenv(name);
    } else {
      setenv(name, value, 1);
    }
  }
  ~ScopedEnv() {
    if (had_old_) {
      setenv(name_, old_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::string old_;
  bool had_old_ = false;
};

class HostCompilerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "xtune_host_compiler_XXXXXX")
            .string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    // Undo any chmod so the folder can be removed.
    std::error_code ignored;
    std::filesystem::permissions(dir_, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ignored);
    std::filesystem::remove_all(dir_, ignored);
  }

  std::unique_ptr<HostCompiler> MakeCompiler(std::string cache_dir = "") {
    HostCompilerOptions options;
    options.cache_dir = cache_dir.empty() ? dir_ + "/cache" : cache_dir;
    absl::StatusOr<std::unique_ptr<HostCompiler>> compiler =
        HostCompiler::Create(options);
    EXPECT_THAT(compiler, IsOk());
    return compiler.ok() ? std::move(*compiler) : nullptr;
  }

  std::string dir_;
};

// A precompiled header is built once per identity into its own folder at
// the fifth compile, used by the kernels (which include it again,
// guarded), part of the identity, and used by a later HostCompiler from
// its first compile; one that does not compile leaves kernels compiling
// without it.
TEST_F(HostCompilerTest, PrecompiledHeaderIsBuiltOnceAndUsed) {
  HostCompilerOptions options;
  options.cache_dir = dir_ + "/cache";
  options.precompiled_header = "#include <math.h>\n#include <string.h>\n";
  absl::StatusOr<std::unique_ptr<HostCompiler>> a = HostCompiler::Create(options);
  ASSERT_THAT(a, IsOk());
  EXPECT_THAT((*a)->identity(), HasSubstr("precompiled:\n#include <math.h>"));
  // Not for a few kernels: built at the fifth compile.
  for (int i = 0; i < 4; ++i) {
    ASSERT_THAT((*a)->CompileAndLoad(ValueSource(100 + i)), IsOk());
    EXPECT_EQ((*a)->precompiled_header_path(), "");
  }
  const std::string source =
      "#include <math.h>\nextern \"C\" int xtune_value() { return (int)sqrt(49.0); }\n";
  absl::StatusOr<std::shared_ptr<LoadedObject>> object = (*a)->CompileAndLoad(source);
  ASSERT_THAT(object, IsOk());
  EXPECT_EQ(Call(**object, "xtune_value"), 7);
  const std::string header = (*a)->precompiled_header_path();
  ASSERT_FALSE(header.empty());
  EXPECT_TRUE(std::filesystem::exists(header + ".gch"));
  EXPECT_EQ(std::filesystem::path(header).parent_path().parent_path(),
            std::filesystem::path((*a)->kernel_dir()));
  auto built = std::filesystem::last_write_time(header + ".gch");

  // A later compiler uses it from its first compile.
  absl::StatusOr<std::unique_ptr<HostCompiler>> b = HostCompiler::Create(options);
  ASSERT_THAT(b, IsOk());
  ASSERT_THAT((*b)->CompileAndLoad(ValueSource(3)), IsOk());
  EXPECT_EQ((*b)->precompiled_header_path(), header);
  EXPECT_EQ(std::filesystem::last_write_time(header + ".gch"), built);

  options.precompiled_header = "#include <no_such_header_xtune.h>\n";
  absl::StatusOr<std::unique_ptr<HostCompiler>> bad = HostCompiler::Create(options);
  ASSERT_THAT(bad, IsOk());
  for (int i = 0; i < 6; ++i) {
    absl::StatusOr<std::shared_ptr<LoadedObject>> still =
        (*bad)->CompileAndLoad(ValueSource(200 + i));
    ASSERT_THAT(still, IsOk());
    EXPECT_EQ(Call(**still, "xtune_value"), 200 + i);
  }
  EXPECT_EQ((*bad)->precompiled_header_path(), "");
}

// Threads compiling one source at once (candidates that differ only in
// run-time parameters) run the compiler once and share the object.
TEST_F(HostCompilerTest, ConcurrentCompilesOfOneSourceRunTheCompilerOnce) {
  std::unique_ptr<HostCompiler> compiler = MakeCompiler();
  std::vector<std::shared_ptr<LoadedObject>> objects(4);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      absl::StatusOr<std::shared_ptr<LoadedObject>> o =
          compiler->CompileAndLoad(ValueSource(77));
      if (o.ok()) objects[i] = *o;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(compiler->compilations(), 1);
  for (const auto& o : objects) {
    ASSERT_NE(o, nullptr);
    EXPECT_EQ(Call(*o, "xtune_value"), 77);
  }
  // A failing source fails for every waiter, compiled once too.
  std::vector<absl::Status> errors(3);
  threads.clear();
  for (int i = 0; i < 3; ++i) {
    threads.emplace_back([&, i] {
      errors[i] = compiler->CompileAndLoad("this is not C++").status();
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(compiler->compilations(), 2);
  for (const absl::Status& e : errors) {
    EXPECT_THAT(e, StatusIs(absl::StatusCode::kInvalidArgument));
  }
}

TEST_F(HostCompilerTest, CompilesAndCallsAKernel) {
  std::unique_ptr<HostCompiler> compiler = MakeCompiler();
  ASSERT_NE(compiler, nullptr);
  EXPECT_EQ(compiler->kernel_dir(), dir_ + "/cache/kernels");
  absl::StatusOr<std::shared_ptr<LoadedObject>> object =
      compiler->CompileAndLoad(kAnswerSource);
  ASSERT_THAT(object, IsOk());
  EXPECT_EQ(Call(**object, "xtune_answer"), 42);
  EXPECT_EQ((*object)->Symbol("xtune_no_such_symbol"), nullptr);
  EXPECT_EQ(compiler->compilations(), 1);

  // The cache layout: <key>.so, its sidecar and the source.
  std::string key =
      Sha256Hex(absl::StrCat(compiler->identity(), "\n", kAnswerSource));
  std::string base = compiler->kernel_dir() + "/" + key;
  EXPECT_EQ((*object)->path(), base + ".so");
  absl::StatusOr<std::string> so_bytes = ReadFile(base + ".so");
  ASSERT_THAT(so_bytes, IsOk());
  EXPECT_THAT(ReadFile(base + ".sha256"),
              xtune::testing::IsOkAndHolds(Sha256Hex(*so_bytes) + "\n"));
  EXPECT_THAT(ReadFile(base + ".cc"),
              xtune::testing::IsOkAndHolds(std::string(kAnswerSource)));
  // No temporary files are left behind.
  int files = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(compiler->kernel_dir())) {
    EXPECT_NE(entry.path().filename().string()[0], '.') << entry.path();
    ++files;
  }
  EXPECT_EQ(files, 3);
}

TEST_F(HostCompilerTest, IdentityNamesCompilerVersionAndFlags) {
  std::unique_ptr<HostCompiler> compiler = MakeCompiler();
  ASSERT_NE(compiler, nullptr);
  EXPECT_THAT(compiler->identity(), HasSubstr("-march=native"));
  EXPECT_THAT(compiler->identity(), HasSubstr("-O3"));
  // The resolved compiler is an absolute path or at least has a folder.
  EXPECT_THAT(compiler->identity(), HasSubstr("/"));

  HostCompilerOptions other_flags;
  other_flags.cache_dir = dir_ + "/cache";
  other_flags.flags = {"-O1", "-std=c++17", "-fPIC", "-shared"};
  absl::StatusOr<std::unique_ptr<HostCompiler>> o1 =
      HostCompiler::Create(other_flags);
  ASSERT_THAT(o1, IsOk());
  EXPECT_NE((*o1)->identity(), compiler->identity());

  // A flag change never reuses objects built with other flags.
  ASSERT_THAT(compiler->CompileAndLoad(kAnswerSource), IsOk());
  absl::StatusOr<std::shared_ptr<LoadedObject>> object =
      (*o1)->CompileAndLoad(kAnswerSource);
  ASSERT_THAT(object, IsOk());
  EXPECT_EQ(Call(**object, "xtune_answer"), 42);
  EXPECT_EQ((*o1)->compilations(), 1);
}

TEST_F(HostCompilerTest, SecondLoadUsesTheCache) {
  std::unique_ptr<HostCompiler> compiler = MakeCompiler();
  ASSERT_NE(compiler, nullptr);
  absl::StatusOr<std::shared_ptr<LoadedObject>> first =
      compiler->CompileAndLoad(kAnswerSource);
  ASSERT_THAT(first, IsOk());
  absl::StatusOr<std::shared_ptr<LoadedObject>> second =
      compiler->CompileAndLoad(kAnswerSource);
  ASSERT_THAT(second, IsOk());
  EXPECT_EQ(Call(**second, "xtune_answer"), 42);
  EXPECT_EQ(compiler->compilations(), 1);

  // A new HostCompiler on the same folder (as in a later process) too.
  std::unique_ptr<HostCompiler> later = MakeCompiler();
  ASSERT_NE(later, nullptr);
  first->reset();
  second->reset();
  absl::StatusOr<std::shared_ptr<LoadedObject>> third =
      later->CompileAndLoad(kAnswerSource);
  ASSERT_THAT(third, IsOk());
  EXPECT_EQ(Call(**third, "xtune_answer"), 42);
  EXPECT_EQ(later->compilations(), 0);
}

// Objects loaded from the cache one after the other, each from a private
// in-memory copy, keep their own code (dlopen finds loaded objects by name,
// so the copies must never share one).
TEST_F(HostCompilerTest, CachedObjectsLoadedInTurnKeepTheirOwnCode) {
  std::unique_ptr<HostCompiler> compiler = MakeCompiler();
  ASSERT_NE(compiler, nullptr);
  for (int v = 0; v < 3; ++v) {
    ASSERT_THAT(compiler->CompileAndLoad(ValueSource(v)), IsOk());
  }
  std::vector<std::shared_ptr<LoadedObject>> held;
  for (int round = 0; round < 2; ++round) {
    for (int v = 0; v < 3; ++v) {
      absl::StatusOr<std::shared_ptr<LoadedObject>> o =
          compiler->CompileAndLoad(ValueSource(v));
      ASSERT_THAT(o, IsOk());
      EXPECT_EQ(Call(**o, "xtune_value"), v);
      if (round == 0) held.push_back(*o);  // round 1: each unloaded at once
    }
  }
  EXPECT_EQ(compiler->compilations(), 3);
  for (int v = 0; v < 3; ++v) EXPECT_EQ(Call(*held[v], "xtune_value"), v);
  // The objects' digests are those of the cached bytes.
  EXPECT_EQ(held[0]->sha256().size(), 64u);
  EXPECT_NE(held[0]->sha256(), held[1]->sha256());
}

// Two compiles of one source (two threads or processes racing on one
// cache, or two caches) make the same bytes: a worker that loads the
// published <key>.so finds the digest its parent loaded.
TEST_F(HostCompilerTest, CompilesAreReproducible) {
  std::unique_ptr<HostCompiler> a = MakeCompiler(dir_ + "/a");
  std::unique_ptr<HostCompiler> b = MakeCompiler(dir_ + "/b");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  absl::StatusOr<std::shared_ptr<LoadedObject>> x = a->CompileAndLoad(kAnswerSource);
  absl::StatusOr<std::shared_ptr<LoadedObject>> y = b->CompileAndLoad(kAnswerSource);
  ASSERT_THAT(x, IsOk());
  ASSERT_THAT(y, IsOk());
  EXPECT_EQ((*x)->sha256(), (*y)->sha256());
  absl::StatusOr<std::string> published = ReadFile((*x)->path());
  ASSERT_THAT(published, IsOk());
  EXPECT_EQ(Sha256Hex(*published), (*x)->sha256());
  // Nothing of the compile's private folder is left.
  for (const auto& e : std::filesystem::directory_iterator(a->kernel_dir())) {
    EXPECT_EQ(e.path().filename().string().rfind(".tmp.", 0), std::string::npos)
        << e.path();
  }
}

TEST_F(HostCompilerTest, SyntaxErrorIsInvalidArgumentWithCompilerOutput) {
  std::unique_ptr<HostCompiler> compiler = MakeCompiler();
  ASSERT_NE(compiler, nullptr);
  absl::StatusOr<std::shared_ptr<LoadedObject>> broken =
      compiler->CompileAndLoad("extern \"C\" int broken( { return 1; }\n");
  EXPECT_THAT(broken, StatusIs(absl::StatusCode::kInvalidArgument,
                               StartsWith("kernel compilation failed: ")));
  // The compiler's own diagnostic, pointing at the kept <key>.cc.
  EXPECT_THAT(broken.status().message(), HasSubstr("error"));
  EXPECT_THAT(broken.status().message(), HasSubstr(".cc:1:"));
  EXPECT_THAT(broken.status().message(), ::testing::Not(HasSubstr("/.tmp.")));

  absl::StatusOr<std::shared_ptr<LoadedObject>> good =
      compiler->CompileAndLoad(kAnswerSource);
  ASSERT_THAT(good, IsOk());
  EXPECT_EQ(Call(**good, "xtune_answer"), 42);
}

TEST_F(HostCompilerTest, LongCompilerOutputIsCutToTwentyLines) {
  std::unique_ptr<HostCompiler> compiler = MakeCompiler();
  ASSERT_NE(compiler, nullptr);
  std::string source;
  for (int i = 0; i < 30; ++i)
    source += absl::StrCat("int f", i, " = x", i, ";\n");
  absl::StatusOr<std::shared_ptr<LoadedObject>> broken =
      compiler->CompileAndLoad(source);
  ASSERT_THAT(broken, StatusIs(absl::StatusCode::kInvalidArgument));
  absl::string_view message = broken.status().message();
  EXPECT_THAT(message, HasSubstr("more lines)"));
  EXPECT_LE(std::count(message.begin(), message.end(), '\n'), 20);
}

TEST_F(HostCompilerTest, UnloadableObjectIsAnErrorAndNotCached) {
  std::unique_ptr<HostCompiler> compiler = MakeCompiler();
  ASSERT_NE(compiler, nullptr);
  constexpr absl::string_view kUndefined = R"cc(
    extern "C" int xtune_missing_function();
    extern "C" int xtune_call() { return xtune_missing_function(); }
  )cc";
  EXPECT_THAT(compiler->CompileAndLoad(kUndefined),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("xtune_missing_function")));
  EXPECT_THAT(compiler->CompileAndLoad(kUndefined),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(compiler->compilations(), 2);
}

// Damages the cached object for `source` with `damage`, then checks that the
// next load notices, recompiles and loads a fresh, working object.
void ExpectDamageIsRepaired(HostCompiler& compiler, absl::string_view source,
                            void (*damage)(const std::string& so_path)) {
  absl::StatusOr<std::shared_ptr<LoadedObject>> first =
      compiler.CompileAndLoad(source);
  ASSERT_THAT(first, IsOk());
  int64_t compilations = compiler.compilations();
  std::string so_path = (*first)->path();
  damage(so_path);

  absl::StatusOr<std::shared_ptr<LoadedObject>> rebuilt =
      compiler.CompileAndLoad(source);
  ASSERT_THAT(rebuilt, IsOk());
  EXPECT_EQ(compiler.compilations(), compilations + 1);
  EXPECT_EQ(Call(**rebuilt, "xtune_value"), 7);
  // The cache is sound again: the next load is free.
  absl::StatusOr<std::string> bytes = ReadFile(so_path);
  ASSERT_THAT(bytes, IsOk());
  std::string sidecar = so_path.substr(0, so_path.size() - 3) + ".sha256";
  EXPECT_THAT(ReadFile(sidecar),
              xtune::testing::IsOkAndHolds(Sha256Hex(*bytes) + "\n"));
  EXPECT_THAT(compiler.CompileAndLoad(source), IsOk());
  EXPECT_EQ(compiler.compilations(), compilations + 1);
}

TEST_F(HostCompilerTest, TruncatedObjectIsRebuiltWhileOldOneIsLoaded) {
  std::unique_ptr<HostCompiler> compiler = MakeCompiler();
  ASSERT_NE(compiler, nullptr);
  std::string source = ValueSource(7);
  absl::StatusOr<std::shared_ptr<LoadedObject>> held =
      compiler->CompileAndLoad(source);
  ASSERT_THAT(held, IsOk());
  void* held_symbol = (*held)->Symbol("xtune_value");
  // Truncate the very file the held object was loaded from. dlopen() of the
  // same path would hand back the held (now damaged) object; the rebuilt
  // object must be a fresh load.
  std::filesystem::resize_file((*held)->path(), 100);
  absl::StatusOr<std::shared_ptr<LoadedObject>> rebuilt =
      compiler->CompileAndLoad(source);
  ASSERT_THAT(rebuilt, IsOk());
  EXPECT_EQ(compiler->compilations(), 2);
  EXPECT_NE((*rebuilt)->Symbol("xtune_value"), held_symbol);
  EXPECT_EQ(Call(**rebuilt, "xtune_value"), 7);
}

TEST_F(HostCompilerTest, OverwrittenObjectIsRebuilt) {
  std::unique_ptr<HostCompiler> compiler = MakeCompiler();
  ASSERT_NE(compiler, nullptr);
  ExpectDamageIsRepaired(*compiler, ValueSource(7), [](const std::string& so) {
    // Same size, a few bytes changed in the middle.
    std::fstream file(so, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(std::filesystem::file_size(so) / 2));
    file.write("garbage!", 8);
  });
}

TEST_F(HostCompilerTest, EmptiedObjectIsRebuilt) {
  std::unique_ptr<HostCompiler> compiler = MakeCompiler();
  ASSERT_NE(compiler, nullptr);
  ExpectDamageIsRepaired(*compiler, ValueSource(7), [](const std::string& so) {
    std::filesystem::resize_file(so, 0);
  });
}

TEST_F(HostCompilerTest, MissingSidecarOrObjectIsRebuilt) {
  std::unique_ptr<HostCompiler> compiler = MakeCompiler();
  ASSERT_NE(compiler, nullptr);
  ExpectDamageIsRepaired(*compiler, ValueSource(7), [](const std::string& so) {
    std::filesystem::remove(so.substr(0, so.size() - 3) + ".sha256");
  });
  ExpectDamageIsRepaired(*compiler, ValueSource(7), [](const std::string& so) {
    std::filesystem::remove(so);
  });
}

TEST_F(HostCompilerTest, UnwritableCacheFallsBackToTemporaryCache) {
  // A folder under a regular file can never be created, even by root.
  std::string blocker = dir_ + "/a_file";
  ASSERT_THAT(WriteFileAtomically(blocker, "x"), IsOk());
  std::string cache_dir = blocker + "/sub";

  ::testing::internal::CaptureStderr();
  std::unique_ptr<HostCompiler> compiler = MakeCompiler(cache_dir);
  ASSERT_NE(compiler, nullptr);
  absl::StatusOr<std::shared_ptr<LoadedObject>> object =
      compiler->CompileAndLoad(kAnswerSource);
  ASSERT_THAT(compiler->CompileAndLoad(ValueSource(7)), IsOk());
  std::string warnings = ::testing::internal::GetCapturedStderr();

  ASSERT_THAT(object, IsOk());
  EXPECT_EQ(Call(**object, "xtune_answer"), 42);
  std::string temporary =
      std::filesystem::path(compiler->kernel_dir()).parent_path().string();
  EXPECT_THAT(warnings,
              StartsWith(absl::StrCat("xtune: warning: kernel cache '",
                                      cache_dir, "' is not writable (")));
  EXPECT_THAT(warnings, HasSubstr(absl::StrCat("); using temporary cache '",
                                               temporary, "'\n")));
  // Exactly one line, however many kernels are compiled.
  EXPECT_EQ(std::count(warnings.begin(), warnings.end(), '\n'), 1) << warnings;
  EXPECT_TRUE(std::filesystem::exists(compiler->kernel_dir()));

  // The temporary cache goes away with the compiler; loaded code stays valid.
  compiler.reset();
  EXPECT_FALSE(std::filesystem::exists(temporary));
  EXPECT_EQ(Call(**object, "xtune_answer"), 42);
}

TEST_F(HostCompilerTest, ReadOnlyCacheFallsBackToTemporaryCache) {
  if (geteuid() == 0) {
    GTEST_SKIP() << "root writes into read-only folders";
  }
  std::string cache_dir = dir_ + "/readonly";
  ASSERT_EQ(mkdir(cache_dir.c_str(), 0500), 0);
  ::testing::internal::CaptureStderr();
  std::unique_ptr<HostCompiler> compiler = MakeCompiler(cache_dir);
  std::string warnings = ::testing::internal::GetCapturedStderr();
  ASSERT_NE(compiler, nullptr);
  EXPECT_THAT(warnings, HasSubstr("is not writable"));
  EXPECT_THAT(compiler->kernel_dir(), ::testing::Not(StartsWith(cache_dir)));
  absl::StatusOr<std::shared_ptr<LoadedObject>> object =
      compiler->CompileAndLoad(kAnswerSource);
  ASSERT_THAT(object, IsOk());
  EXPECT_EQ(Call(**object, "xtune_answer"), 42);
}

TEST_F(HostCompilerTest, MissingCompilerIsUnavailable) {
  HostCompilerOptions options;
  options.cache_dir = dir_ + "/cache";
  options.compiler = "/nonexistent/cxx";
  EXPECT_THAT(HostCompiler::Create(options),
              StatusIs(absl::StatusCode::kUnavailable,
                       HasSubstr("'/nonexistent/cxx' not found")));
}

// A stand-in compiler: answers --version with `version`, and otherwise runs
// `action` (a shell command).
std::string FakeCompiler(const std::string& dir, const std::string& version,
                         const std::string& action) {
  std::string path = dir + "/fake-cxx";
  std::string script =
      absl::StrCat("#!/bin/sh\nif [ \"$1\" = --version ]; then echo '", version,
                   "'; echo second line; exit 0; fi\n", action, "\n");
  EXPECT_THAT(WriteFileAtomically(path, script), IsOk());
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}

TEST_F(HostCompilerTest, IdentityHasTheFirstVersionLine) {
  HostCompilerOptions options;
  options.cache_dir = dir_ + "/cache";
  options.compiler = FakeCompiler(dir_, "fake c++ 1.2.3", "exit 1");
  absl::StatusOr<std::unique_ptr<HostCompiler>> compiler =
      HostCompiler::Create(options);
  ASSERT_THAT(compiler, IsOk());
  EXPECT_THAT((*compiler)->identity(),
              HasSubstr(absl::StrCat("\n", options.compiler,
                                     "\nfake c++ 1.2.3\n-O3\n")));
  EXPECT_THAT((*compiler)->identity(), ::testing::Not(HasSubstr("second")));
}

TEST_F(HostCompilerTest, CompilerTimeoutIsDeadlineExceeded) {
  HostCompilerOptions options;
  options.cache_dir = dir_ + "/cache";
  options.compiler = FakeCompiler(dir_, "slow c++", "exec sleep 10");
  options.timeout = absl::Milliseconds(300);
  absl::StatusOr<std::unique_ptr<HostCompiler>> compiler =
      HostCompiler::Create(options);
  ASSERT_THAT(compiler, IsOk());
  absl::Time start = absl::Now();
  EXPECT_THAT(
      (*compiler)->CompileAndLoad(kAnswerSource),
      StatusIs(absl::StatusCode::kDeadlineExceeded, HasSubstr("timed out")));
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));
  EXPECT_EQ((*compiler)->compilations(), 1);
}

TEST_F(HostCompilerTest, CrashingCompilerIsInternal) {
  HostCompilerOptions options;
  options.cache_dir = dir_ + "/cache";
  options.compiler = FakeCompiler(dir_, "crashy c++", "kill -SEGV $$");
  absl::StatusOr<std::unique_ptr<HostCompiler>> compiler =
      HostCompiler::Create(options);
  ASSERT_THAT(compiler, IsOk());
  EXPECT_THAT((*compiler)->CompileAndLoad(kAnswerSource),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("signal 11")));
}

// A precompiled header that builds but cannot be used where it is
// published (clang's refers to the file it was built from, which the
// publishing rename moves) is marked failed: kernels compile without it,
// and later compilers do not build it again.
TEST_F(HostCompilerTest, PrecompiledHeaderThatCannotBeUsedIsNotUsed) {
  HostCompilerOptions options;
  options.cache_dir = dir_ + "/cache";
  options.precompiled_header = "#include <math.h>\n";
  options.compiler = FakeCompiler(
      dir_, "moving-pch c++",
      "case \" $* \" in *\" -include \"*) echo 'fatal error: malformed or "
      "corrupted AST file' >&2; exit 1;; esac\n"
      "echo run >> \"$(dirname \"$0\")/runs\"\nexec c++ \"$@\"");
  for (int round = 0; round < 2; ++round) {
    absl::StatusOr<std::unique_ptr<HostCompiler>> compiler =
        HostCompiler::Create(options);
    ASSERT_THAT(compiler, IsOk());
    for (int i = 0; i < 6; ++i) {
      absl::StatusOr<std::shared_ptr<LoadedObject>> object =
          (*compiler)->CompileAndLoad(ValueSource(300 + 10 * round + i));
      ASSERT_THAT(object, IsOk()) << round << " " << i;
      EXPECT_EQ(Call(**object, "xtune_value"), 300 + 10 * round + i);
    }
    EXPECT_EQ((*compiler)->precompiled_header_path(), "");
  }
  absl::StatusOr<std::string> runs = ReadFile(dir_ + "/runs");
  ASSERT_THAT(runs, IsOk());
  // 12 kernels and one header build: the second compiler saw `failed`.
  EXPECT_EQ(std::count(runs->begin(), runs->end(), '\n'), 13);
}

TEST_F(HostCompilerTest, MissingCxxIsUnavailable) {
  HostCompilerOptions options;
  options.cache_dir = dir_ + "/cache";
  {
    ScopedEnv cxx("CXX", "xtune-no-such-compiler");
    EXPECT_THAT(HostCompiler::Create(options),
                StatusIs(absl::StatusCode::kUnavailable,
                         HasSubstr("$CXX='xtune-no-such-compiler' not found")));
  }
  {
    ScopedEnv cxx("CXX", nullptr);
    ScopedEnv path("PATH", (dir_ + "/empty").c_str());
    EXPECT_THAT(HostCompiler::Create(options),
                StatusIs(absl::StatusCode::kUnavailable,
                         HasSubstr("no C++ compiler: $CXX is unset and 'c++' "
                                   "is not on PATH")));
  }
}

TEST_F(HostCompilerTest, CacheDirFromEnvironment) {
  ScopedEnv cache("XTUNE_CACHE_DIR", (dir_ + "/from_env").c_str());
  absl::StatusOr<std::unique_ptr<HostCompiler>> compiler =
      HostCompiler::Create(HostCompilerOptions());
  ASSERT_THAT(compiler, IsOk());
  EXPECT_EQ((*compiler)->kernel_dir(), dir_ + "/from_env/kernels");

  ScopedEnv unset_cache("XTUNE_CACHE_DIR", nullptr);
  ScopedEnv xdg("XDG_CACHE_HOME", (dir_ + "/xdg").c_str());
  compiler = HostCompiler::Create(HostCompilerOptions());
  ASSERT_THAT(compiler, IsOk());
  EXPECT_EQ((*compiler)->kernel_dir(), dir_ + "/xdg/xtune/kernels");

  ScopedEnv unset_xdg("XDG_CACHE_HOME", nullptr);
  ScopedEnv home("HOME", (dir_ + "/home").c_str());
  compiler = HostCompiler::Create(HostCompilerOptions());
  ASSERT_THAT(compiler, IsOk());
  EXPECT_EQ((*compiler)->kernel_dir(), dir_ + "/home/.cache/xtune/kernels");
}

TEST_F(HostCompilerTest, CompilesFromManyThreadsAtOnce) {
  std::unique_ptr<HostCompiler> compiler = MakeCompiler();
  ASSERT_NE(compiler, nullptr);
  constexpr int kThreads = 8;
  std::vector<int> results(kThreads, -1);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      absl::StatusOr<std::shared_ptr<LoadedObject>> object =
          compiler->CompileAndLoad(ValueSource(100 + t));
      if (object.ok()) results[t] = Call(**object, "xtune_value");
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(results[t], 100 + t);
  EXPECT_EQ(compiler->compilations(), kThreads);
}

TEST_F(HostCompilerTest, TwoCompilersRaceOnTheSameSource) {
  std::unique_ptr<HostCompiler> a = MakeCompiler();
  std::unique_ptr<HostCompiler> b = MakeCompiler();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  std::string source = ValueSource(7);
  int result_a = -1, result_b = -1;
  std::thread thread_a([&] {
    absl::StatusOr<std::shared_ptr<LoadedObject>> o = a->CompileAndLoad(source);
    if (o.ok()) result_a = Call(**o, "xtune_value");
  });
  std::thread thread_b([&] {
    absl::StatusOr<std::shared_ptr<LoadedObject>> o = b->CompileAndLoad(source);
    if (o.ok()) result_b = Call(**o, "xtune_value");
  });
  thread_a.join();
  thread_b.join();
  EXPECT_EQ(result_a, 7);
  EXPECT_EQ(result_b, 7);
  // Whoever won, the cache holds one sound object.
  std::unique_ptr<HostCompiler> c = MakeCompiler();
  ASSERT_NE(c, nullptr);
  absl::StatusOr<std::shared_ptr<LoadedObject>> o = c->CompileAndLoad(source);
  ASSERT_THAT(o, IsOk());
  EXPECT_EQ(Call(**o, "xtune_value"), 7);
  EXPECT_EQ(c->compilations(), 0);
}

}  // namespace
}  // namespace xtune::cpu
