#include "codegen/cpu/host_compiler.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "util/file.h"
#include "util/sha256.h"
#include "util/status_macros.h"
#include "util/subprocess.h"

namespace xtune::cpu {
namespace {

// Part of every cache key. Bump when the meaning of cached files changes.
// v1: <key>.so with a <key>.sha256 sidecar holding the object's hex SHA-256.
constexpr int kCacheFormatVersion = 1;

// How much compiler output an error message carries.
constexpr int kMaxErrorLines = 20;

// A name no other thread or process uses at the same time: the pid tells
// processes apart, the counter threads, the random part survivors of earlier
// processes with the same pid.
// "HOST.PID.COUNTER.HEX": work folders and probes carry their writer, so
// that RemoveStaleWork can tell a killed process's leftovers.
std::string UniqueSuffix() {
  static std::atomic<uint64_t> counter{0};
  thread_local std::mt19937_64 random_bits(std::random_device{}());
  return absl::StrCat(ThisHostLabel(), ".", getpid(), ".", counter.fetch_add(1), ".",
                      absl::Hex(random_bits()));
}

// Removes the work folders (".tmp.<key>.SUFFIX", ".tmp.pch.SUFFIX"),
// probes (".probe.SUFFIX"), private copies being loaded (".load.SUFFIX.so",
// LoadObjectBytes, of compilers and workers) and temporary files of
// WriteFileAtomically left in the kernel folder by processes of this host
// that are gone (killed mid-compile or mid-load); those of live processes
// and other hosts stay.
void RemoveStaleWork(const std::string& dir) {
  RemoveStaleTemporaries(dir);
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) return;
  const std::string host = ThisHostLabel();
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const std::string name = it->path().filename().string();
    absl::string_view stem = name;
    if (absl::StartsWith(name, ".load.")) {
      if (!absl::ConsumeSuffix(&stem, ".so")) continue;
    } else if (!absl::StartsWith(name, ".tmp.") && !absl::StartsWith(name, ".probe.")) {
      continue;
    }
    std::vector<absl::string_view> parts = absl::StrSplit(stem, '.');
    // "", "tmp" (or "probe", "load"), ..., HOST, PID, COUNTER, HEX
    if (parts.size() < 6) continue;
    int64_t pid = 0;
    if (parts[parts.size() - 4] != host ||
        !absl::SimpleAtoi(parts[parts.size() - 3], &pid) || !ProcessIsGone(pid)) {
      continue;
    }
    std::error_code ignored;
    std::filesystem::remove_all(it->path(), ignored);
  }
}

bool IsExecutableFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
         access(path.c_str(), X_OK) == 0;
}

// Finds `program` like execvp would: as given when it contains a '/',
// otherwise in the $PATH folders (an empty entry is the current folder).
// Returns "" when there is no such executable file.
std::string FindProgram(const std::string& program) {
  if (program.find('/') != std::string::npos) {
    // Absolute: compiles run in their own folder.
    return IsExecutableFile(program) ? std::filesystem::absolute(program).string()
                                     : "";
  }
  const char* path_env = getenv("PATH");
  std::string search_path = path_env != nullptr ? path_env : "/usr/bin:/bin";
  for (absl::string_view dir : absl::StrSplit(search_path, ':')) {
    std::string candidate =
        dir.empty() ? program : absl::StrCat(dir, "/", program);
    if (IsExecutableFile(candidate)) {
      return std::filesystem::absolute(candidate).string();
    }
  }
  return "";
}

absl::StatusOr<std::string> ResolveCompiler(const std::string& requested) {
  if (!requested.empty()) {
    std::string path = FindProgram(requested);
    if (path.empty()) {
      return absl::UnavailableError(absl::StrCat(
          "no C++ compiler: compiler '", requested, "' not found",
          requested.find('/') == std::string::npos ? " on PATH"
                                                   : " or not executable"));
    }
    return path;
  }
  const char* cxx = getenv("CXX");
  if (cxx != nullptr && *cxx != '\0') {
    std::string path = FindProgram(cxx);
    if (path.empty()) {
      return absl::UnavailableError(absl::StrCat(
          "no C++ compiler: $CXX='", cxx, "' not found",
          strchr(cxx, '/') == nullptr ? " on PATH" : " or not executable"));
    }
    return path;
  }
  std::string path = FindProgram("c++");
  if (path.empty()) {
    return absl::UnavailableError(
        "no C++ compiler: $CXX is unset and 'c++' is not on PATH");
  }
  return path;
}

// Creates `path`, which must not exist yet, holding `contents`.
absl::Status WriteNewFile(const std::string& path, absl::string_view contents) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot create '", path, "': ", strerror(errno)));
  }
  size_t written = 0;
  while (written < contents.size()) {
    ssize_t n = write(fd, contents.data() + written, contents.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      close(fd);
      unlink(path.c_str());
      return absl::UnavailableError(
          absl::StrCat("cannot write '", path, "': ", strerror(err)));
    }
    written += static_cast<size_t>(n);
  }
  if (close(fd) != 0) {
    int err = errno;
    unlink(path.c_str());
    return absl::UnavailableError(
        absl::StrCat("cannot write '", path, "': ", strerror(err)));
  }
  return absl::OkStatus();
}

// Creates `dir` and checks that files can be created in it. access(W_OK)
// would not do: it ignores read-only mounts for root and is racy anyway.
// Room a kernel cache needs to be worth using: a compile session writes
// sources and objects of tens to hundreds of KB each.
constexpr uint64_t kMinFreeBytes = 64ull << 20;

absl::Status PrepareWritableDir(const std::string& dir) {
  XTUNE_RETURN_IF_ERROR(CreateDirectories(dir));
  std::string probe = absl::StrCat(dir, "/.probe.", UniqueSuffix());
  XTUNE_RETURN_IF_ERROR(WriteNewFile(probe, ""));
  unlink(probe.c_str());
  // A nearly full disk takes the probe but not the objects: every compile
  // would fail on it.
  struct statvfs fs;
  if (statvfs(dir.c_str(), &fs) == 0 &&
      static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize < kMinFreeBytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "only ", static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize / 1024,
        " KiB free; a kernel cache needs ", kMinFreeBytes >> 20, " MiB"));
  }
  return absl::OkStatus();
}

// A private temporary directory under $TMPDIR (or /tmp).
absl::StatusOr<std::string> MakeTemporaryDir() {
  const char* tmpdir = getenv("TMPDIR");
  std::string base = tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp";
  std::string name = base + "/xtune-cache-XXXXXX";
  if (mkdtemp(name.data()) == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("cannot create a temporary directory under '", base,
                     "': ", strerror(errno)));
  }
  return name;
}

// Whether `run` ran to a zero exit.
bool Succeeded(const absl::StatusOr<SubprocessResult>& run) {
  return run.ok() && !run->timed_out && run->exit_code == 0 && run->term_signal == 0;
}

// The first `max_lines` lines of `text`, noting how many were left out.
std::string FirstLines(absl::string_view text, int max_lines) {
  std::vector<absl::string_view> lines =
      absl::StrSplit(absl::StripTrailingAsciiWhitespace(text), '\n');
  if (static_cast<int>(lines.size()) <= max_lines) {
    return absl::StrJoin(lines, "\n");
  }
  return absl::StrCat(
      absl::StrJoin(lines.begin(), lines.begin() + max_lines, "\n"), "\n... (",
      lines.size() - max_lines, " more lines)");
}

}  // namespace

LoadedObject::LoadedObject(void* handle, std::string path, std::string sha256)
    : handle_(handle), path_(std::move(path)), sha256_(std::move(sha256)) {}

LoadedObject::~LoadedObject() { dlclose(handle_); }

void* LoadedObject::Symbol(const char* name) const {
  return dlsym(handle_, name);
}

const std::vector<std::string>& KernelSanitizerFlags() {
  static const auto* flags = new std::vector<std::string>{
#ifdef XTUNE_SANITIZE_KERNELS
      "-fsanitize=address,undefined", "-fno-sanitize-recover=undefined",
      "-fno-omit-frame-pointer",
#endif
  };
  return *flags;
}

absl::StatusOr<std::unique_ptr<HostCompiler>> HostCompiler::Create(
    HostCompilerOptions options) {
  options.flags.insert(options.flags.end(), KernelSanitizerFlags().begin(),
                       KernelSanitizerFlags().end());
  XTUNE_ASSIGN_OR_RETURN(std::string compiler_path,
                         ResolveCompiler(options.compiler));

  XTUNE_ASSIGN_OR_RETURN(
      SubprocessResult version,
      RunSubprocess({compiler_path, "--version"}, options.timeout));
  if (version.exit_code != 0) {
    return absl::UnavailableError(absl::StrCat(
        "C++ compiler '", compiler_path, "' does not work: '", compiler_path,
        " --version' failed: ", FirstLines(version.output, 5)));
  }
  std::string version_line(absl::StripAsciiWhitespace(
      absl::string_view(version.output).substr(0, version.output.find('\n'))));
  std::string identity = absl::StrCat(
      "xtune host kernel cache v", kCacheFormatVersion, "\n", compiler_path,
      "\n", version_line, "\n", absl::StrJoin(options.flags, "\n"));
  if (!options.precompiled_header.empty()) {
    absl::StrAppend(&identity, "\nprecompiled:\n", options.precompiled_header);
  }

  std::string cache_dir = KernelCacheRoot(options.cache_dir);
  std::string kernel_dir;
  std::string temporary_cache;
  absl::Status writable =
      cache_dir.empty()
          ? absl::NotFoundError(
                "$XTUNE_CACHE_DIR, $XDG_CACHE_HOME and $HOME are unset")
          : PrepareWritableDir(cache_dir + "/kernels");
  if (writable.ok()) {
    kernel_dir = cache_dir + "/kernels";
  } else {
    absl::StatusOr<std::string> tmp = MakeTemporaryDir();
    if (!tmp.ok()) {
      return absl::UnavailableError(
          absl::StrCat("kernel cache '", cache_dir, "' is not writable (",
                       writable.message(), ") and ", tmp.status().message()));
    }
    temporary_cache = *tmp;
    kernel_dir = temporary_cache + "/kernels";
    absl::Status created = PrepareWritableDir(kernel_dir);
    if (!created.ok()) {
      std::error_code ignored;
      std::filesystem::remove_all(temporary_cache, ignored);
      return absl::UnavailableError(absl::StrCat(
          "kernel cache '", cache_dir, "' is not writable (",
          writable.message(),
          ") and neither is a temporary cache: ", created.message()));
    }
    std::string warning =
        absl::StrCat("xtune: warning: kernel cache '", cache_dir,
                     "' is not writable (", writable.message(),
                     "); using temporary cache '", temporary_cache, "'\n");
    std::fputs(warning.c_str(), stderr);
  }
  RemoveStaleWork(kernel_dir);
  return std::unique_ptr<HostCompiler>(new HostCompiler(
      std::move(compiler_path), std::move(options.flags), options.timeout,
      std::move(identity), std::move(kernel_dir), std::move(temporary_cache),
      std::move(options.precompiled_header), options.one_compile_per_source));
}

HostCompiler::HostCompiler(std::string compiler_path,
                           std::vector<std::string> flags,
                           absl::Duration timeout, std::string identity,
                           std::string kernel_dir, std::string temporary_cache,
                           std::string precompiled_header,
                           bool one_compile_per_source)
    : compiler_path_(std::move(compiler_path)),
      flags_(std::move(flags)),
      timeout_(timeout),
      identity_(std::move(identity)),
      kernel_dir_(std::move(kernel_dir)),
      temporary_cache_(std::move(temporary_cache)),
      precompiled_header_(std::move(precompiled_header)),
      one_compile_per_source_(one_compile_per_source),
      pch_dir_(absl::StrCat(kernel_dir_, "/pch-", Sha256Hex(identity_).substr(0, 32))) {}

std::string HostCompiler::precompiled_header_path() const {
  return pch_ready_.load() ? pch_path_ : std::string();
}

std::vector<std::string> HostCompiler::KernelCommand(const std::string& pch) const {
  std::vector<std::string> argv = {compiler_path_};
  argv.insert(argv.end(), flags_.begin(), flags_.end());
  if (!pch.empty()) argv.insert(argv.end(), {"-include", pch});
  return argv;
}

std::string HostCompiler::BuildPrecompiledHeader() const {
  if (precompiled_header_.empty()) return "";
  // One folder per identity, published whole by rename with the header and
  // its .gch; then `ok` once a kernel compiles with it there, or `failed`.
  const std::string& dir = pch_dir_;
  // Absolute: kernels compile in their own work folders.
  const std::string header = std::filesystem::absolute(dir + "/xt_pch.h").string();
  struct stat st;
  if (stat((dir + "/ok").c_str(), &st) == 0) return header;
  if (stat((dir + "/failed").c_str(), &st) == 0) return "";
  std::string work = absl::StrCat(kernel_dir_, "/.tmp.pch.", UniqueSuffix());
  if (mkdir(work.c_str(), 0700) != 0) return "";
  auto remove_work = [&] {
    std::error_code ignored;
    std::filesystem::remove_all(work, ignored);
  };
  auto note = [] {
    std::fputs("xtune: note: precompiling the kernel prelude failed; kernels "
               "compile without it\n", stderr);
  };
  if (!WriteNewFile(work + "/xt_pch.h", precompiled_header_).ok()) {
    remove_work();
    return "";
  }
  std::vector<std::string> argv = {compiler_path_};
  for (const std::string& f : flags_) {
    if (f != "-shared") argv.push_back(f);
  }
  argv.insert(argv.end(), {"-x", "c++-header", "-o", "xt_pch.h.gch", "xt_pch.h"});
  if (!Succeeded(RunSubprocess(argv, timeout_, work))) {
    remove_work();
    note();
    return "";
  }
  if (rename(work.c_str(), dir.c_str()) != 0) {
    remove_work();  // another thread or process published it first
    return stat((dir + "/ok").c_str(), &st) == 0 ? header : "";
  }
  // Used only if a kernel compiles with it where it now is: clang's refers
  // to the file it was built from, which the rename moved away.
  std::string probe = absl::StrCat(kernel_dir_, "/.tmp.probe.", UniqueSuffix());
  bool usable = false;
  if (mkdir(probe.c_str(), 0700) == 0) {
    if (WriteNewFile(probe + "/probe.cc", "int xt_probe;\n").ok()) {
      std::vector<std::string> test = KernelCommand(header);
      test.insert(test.end(), {"-o", "probe.so", "probe.cc"});
      usable = Succeeded(RunSubprocess(test, timeout_, probe));
    }
    std::error_code ignored;
    std::filesystem::remove_all(probe, ignored);
  }
  if (!usable || !WriteNewFile(dir + "/ok", "").ok()) {
    WriteNewFile(dir + "/failed", "").IgnoreError();
    note();
    return "";
  }
  return header;
}

HostCompiler::~HostCompiler() {
  if (!temporary_cache_.empty()) {
    // Loaded objects keep their (already unlinked) files mapped.
    std::error_code ignored;
    std::filesystem::remove_all(temporary_cache_, ignored);
  }
}

absl::StatusOr<std::shared_ptr<LoadedObject>> HostCompiler::CompileAndLoad(
    absl::string_view source) {
  std::string key = KeyOf(source);
  if (std::shared_ptr<LoadedObject> cached = LoadCached(key)) return cached;
  if (!one_compile_per_source_) return Compile(key, source);
  // Candidates that differ only in run-time parameters share a source, and
  // the autotuner compiles them at once: the first compiles, the others
  // wait for it.
  std::shared_ptr<InFlight> flight;
  bool leader = false;
  {
    MutexLock lock(&in_flight_mu_);
    std::shared_ptr<InFlight>& slot = in_flight_[key];
    if (slot == nullptr) {
      slot = std::make_shared<InFlight>();
      leader = true;
    }
    flight = slot;
    if (!leader) {
      in_flight_mu_.Await(absl::Condition(
          +[](InFlight* f) { return f->done; }, flight.get()));
      return flight->result;
    }
  }
  absl::StatusOr<std::shared_ptr<LoadedObject>> result = Compile(key, source);
  MutexLock lock(&in_flight_mu_);
  flight->result = result;
  flight->done = true;
  in_flight_.erase(key);
  return result;
}

std::string HostCompiler::KeyOf(absl::string_view source) const {
  return Sha256Hex(absl::StrCat(identity_, "\n", source));
}

std::shared_ptr<LoadedObject> HostCompiler::LoadCached(
    const std::string& key) const {
  std::string object = absl::StrCat(kernel_dir_, "/", key, ".so");
  absl::StatusOr<std::string> expected_hash =
      ReadFile(absl::StrCat(kernel_dir_, "/", key, ".sha256"));
  if (!expected_hash.ok()) return nullptr;
  absl::StatusOr<std::string> bytes = ReadFile(object);
  if (!bytes.ok() ||
      Sha256Hex(*bytes) != absl::StripAsciiWhitespace(*expected_hash)) {
    return nullptr;
  }
  return LoadPrivateCopy(*bytes, object);
}

std::shared_ptr<LoadedObject> HostCompiler::LoadPrivateCopy(
    absl::string_view bytes, const std::string& reported_path) const {
  absl::StatusOr<std::shared_ptr<LoadedObject>> loaded =
      LoadObjectBytes(bytes, reported_path, kernel_dir_);
  return loaded.ok() ? *loaded : nullptr;
}

absl::StatusOr<std::shared_ptr<LoadedObject>> LoadObjectBytes(
    absl::string_view bytes, const std::string& path,
    const std::string& scratch_dir) {
  // Load the verified bytes from a private file, never the cache's file:
  //  - a file that is mapped can still be damaged in place (cp, truncate,
  //    rsync --inplace); code loaded from a private, unlinked copy cannot;
  //  - glibc's dlopen returns an already-loaded object when the file name
  //    (or the inode) matches, so loading <key>.so again after a rebuild
  //    could hand back the damaged object; a fresh name and inode cannot.
  std::string copy =
      absl::StrCat(scratch_dir, "/.load.", UniqueSuffix(), ".so");
  XTUNE_RETURN_IF_ERROR(WriteNewFile(copy, bytes));
  void* handle = dlopen(copy.c_str(), RTLD_NOW | RTLD_LOCAL);
  std::string error = handle == nullptr ? dlerror() : "";
  unlink(copy.c_str());
  if (handle == nullptr) {
    return absl::InternalError(
        absl::StrCat("cannot load '", path, "': ", error));
  }
  return std::make_shared<LoadedObject>(handle, path, Sha256Hex(bytes));
}

absl::StatusOr<std::shared_ptr<LoadedObject>> HostCompiler::Compile(
    const std::string& key, absl::string_view source) {
  compilations_.fetch_add(1);
  std::string base = absl::StrCat(kernel_dir_, "/", key);
  std::string source_path = base + ".cc";
  // Each compile works in a private folder but under the fixed names
  // <key>.cc / <key>.so, with -frandom-seed=<key>: the object then does not
  // depend on which compile made it (the source file's name is in it), so
  // two threads or processes compiling one source publish identical bytes,
  // and a worker process that loads <key>.so by path finds the digest its
  // parent loaded.
  std::string work = absl::StrCat(kernel_dir_, "/.tmp.", key, ".", UniqueSuffix());
  if (mkdir(work.c_str(), 0700) != 0) {
    return absl::UnavailableError(absl::StrCat(
        "cannot create '", work, "': ", strerror(errno)));
  }
  auto remove_work = [&] {
    std::error_code ignored;
    std::filesystem::remove_all(work, ignored);
  };
  std::string temp_source = absl::StrCat(work, "/", key, ".cc");
  std::string temp_object = absl::StrCat(work, "/", key, ".so");
  if (absl::Status w = WriteNewFile(temp_source, source); !w.ok()) {
    remove_work();
    return w;
  }
  // The precompiled header pays for itself after a few kernels: build it
  // at the fifth compile of this process, or use it at once when an earlier
  // process built it.
  std::string pch;
  if (!precompiled_header_.empty()) {
    struct stat st;
    if (pch_ready_.load() || compilations_.load() > kCompilesBeforePch ||
        stat((pch_dir_ + "/ok").c_str(), &st) == 0) {
      std::call_once(pch_once_, [this] {
        pch_path_ = BuildPrecompiledHeader();
        pch_ready_.store(!pch_path_.empty());
      });
      pch = pch_path_;
    }
  }
  std::vector<std::string> argv = KernelCommand(pch);
  argv.insert(argv.end(), {absl::StrCat("-frandom-seed=", key), "-o",
                           key + ".so", key + ".cc"});
  absl::StatusOr<SubprocessResult> run = RunSubprocess(argv, timeout_, work);
  // Keep the source as <key>.cc for debugging, above all when it failed.
  if (rename(temp_source.c_str(), source_path.c_str()) != 0) {
    unlink(temp_source.c_str());
  }

  absl::Status failure;
  if (!run.ok()) {
    failure = absl::InternalError(
        absl::StrCat("cannot run the C++ compiler: ", run.status().message()));
  } else if (run->timed_out) {
    failure = absl::DeadlineExceededError(absl::StrCat(
        "kernel compilation timed out after ", absl::FormatDuration(timeout_),
        " (HostCompilerOptions::timeout); source kept at '", source_path, "'"));
  } else {
    // Point diagnostics at the kept source, not the temporary one (the
    // compiler names it relative to its folder).
    std::string output = FirstLines(
        absl::StrReplaceAll(run->output, {{key + ".cc", source_path}}),
        kMaxErrorLines);
    if (run->term_signal != 0) {
      failure = absl::InternalError(absl::StrCat(
          "C++ compiler '", compiler_path_, "' was killed by signal ",
          run->term_signal, " compiling '", source_path, "': ", output));
    } else if (run->exit_code != 0) {
      failure = absl::InvalidArgumentError(
          absl::StrCat("kernel compilation failed: ", output));
    }
  }
  if (!failure.ok()) {
    remove_work();
    return failure;
  }

  absl::StatusOr<std::string> bytes = ReadFile(temp_object);
  if (!bytes.ok()) {
    remove_work();
    return absl::InternalError(absl::StrCat(
        "the C++ compiler reported success but its object is unreadable: ",
        bytes.status().message()));
  }
  // Load before publishing, so an object that cannot be loaded never enters
  // the cache. The temporary object is private to this call (a unique name
  // and a new inode), so it is loaded as is and, unlike the published copy
  // below, nothing else ever writes to it.
  void* handle = dlopen(temp_object.c_str(), RTLD_NOW | RTLD_LOCAL);
  remove_work();
  if (handle == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "compiled kernel '", source_path, "' cannot be loaded: ", dlerror()));
  }
  std::string object_path = base + ".so";
  auto loaded =
      std::make_shared<LoadedObject>(handle, object_path, Sha256Hex(*bytes));

  // Publish: the object first, then its sidecar, each written to a temporary
  // file and renamed into place. A reader between the two sees a mismatch
  // and compiles again, which is safe. The object must be published: the
  // profiling worker loads it by path. (A cache that cannot be written at
  // all was replaced by a temporary one when the HostCompiler was made.)
  absl::Status published = WriteFileAtomically(object_path, *bytes);
  if (!published.ok()) {
    return absl::Status(published.code(),
                        absl::StrCat("cannot publish the compiled kernel: ",
                                     published.message()));
  }
  WriteFileAtomically(base + ".sha256", Sha256Hex(*bytes) + "\n").IgnoreError();
  return loaded;
}

}  // namespace xtune::cpu
