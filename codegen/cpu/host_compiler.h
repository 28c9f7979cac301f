// Compiling generated C++ kernels into shared objects and loading them.
//
// The CPU backend emits one self-contained C++ translation unit per kernel
// candidate; HostCompiler turns it into a loaded shared object, or turns
// several into one object, a bundle (kernel_bundle.h). Objects are
// kept in a content-addressed on-disk cache, so a source compiled once (in
// this process or an earlier one) loads without running the compiler again:
//
//   <cache_dir>/kernels/<key>.so      the object
//   <cache_dir>/kernels/<key>.sha256  hex SHA-256 of the object's bytes
//   <cache_dir>/kernels/<key>.cc      the source, kept for debugging
//   <cache_dir>/kernels/<key>.entry   for a source compiled in a bundle
//                                     (LoadKernels): the bundle's key and
//                                     the suffix of the source's symbols
//                                     (its text is in the bundle's .cc)
//
// where <key> = Sha256Hex(identity() + "\n" + source) and identity() names
// the compiler binary, its version and the flags. An object whose bytes no
// longer match its sidecar (truncated, overwritten, half-copied) or that fails
// to load is rebuilt. Several threads and processes may share one cache:
// every file is written under a unique temporary name and renamed into place.
// Objects are loaded from private copies, so no later change to the cache
// files (even a damaging one) can affect code already loaded.
#ifndef XTUNE_CODEGEN_CPU_HOST_COMPILER_H_
#define XTUNE_CODEGEN_CPU_HOST_COMPILER_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "util/mutex.h"

namespace xtune::cpu {

struct HostCompilerOptions {
  // The C++ compiler: a path, or a name looked up on $PATH. Default "": $CXX
  // when set and non-empty (taken as one program, not split on spaces),
  // otherwise "c++".
  std::string compiler;
  // Every flag passed to the compiler, before "-o <object> <source>".
  // Default: optimised, position-independent shared objects for this host.
  std::vector<std::string> flags = {
      "-O3",     "-march=native",   "-std=c++17",      "-fPIC",
      "-shared", "-fno-math-errno", "-fno-exceptions", "-fno-rtti"};
  // The cache root; objects go in <cache_dir>/kernels. Default "":
  // $XTUNE_CACHE_DIR, else $XDG_CACHE_HOME/xtune, else $HOME/.cache/xtune.
  // When it cannot be created or written, a private temporary directory
  // (removed with the HostCompiler) is used instead, with one warning line on
  // stderr.
  std::string cache_dir;
  // Limit for one compiler run (and for `<compiler> --version`). Default 120 s.
  absl::Duration timeout = absl::Seconds(120);
  // A header every kernel source starts with (its system includes): it is
  // precompiled once per compiler identity, under
  // <kernel_dir>/pch-<hash>/, and passed to kernel compiles with -include,
  // so they skip parsing it. It is built at a process's fifth kernel
  // compile (a compile of a few kernels does not pay for it), and used
  // from the first once it
  // exists. When precompiling fails, kernels compile without it. Part of
  // identity(). Default "": none.
  std::string precompiled_header;
  // Concurrent CompileAndLoad calls for one source run the compiler once
  // (the others wait for it). Default true; false is the behaviour of
  // earlier versions (each call compiles on a cache miss), kept for
  // bench/tuning_cost.
  bool one_compile_per_source = true;
};

// The flags HostCompiler::Create adds to every kernel compile of this build:
// in a build configured with XTUNE_SANITIZE_KERNELS (the asan preset, whose
// own code runs under ASan + UBSan) the same sanitizers, so the generated
// kernels and the emulator's kernels are checked as the program loading
// them is; none otherwise. Part of identity(), so sanitized objects never
// mix with others in a cache.
const std::vector<std::string>& KernelSanitizerFlags();

// A loaded shared object. The object stays loaded while any shared_ptr to it
// lives, independently of the HostCompiler that made it.
//
// Thread-safe: all members are const.
class LoadedObject {
 public:
  // Takes ownership of `handle` from dlopen; `path` is reported by path(),
  // `sha256` (hex) is the digest of the bytes that were loaded.
  LoadedObject(void* handle, std::string path, std::string sha256);
  // dlclose()s the handle.
  ~LoadedObject();
  LoadedObject(const LoadedObject&) = delete;
  LoadedObject& operator=(const LoadedObject&) = delete;

  // The address of the symbol `name` (an extern "C" name, for kernels), or
  // nullptr when the object has no such symbol.
  void* Symbol(const char* name) const;

  // The cache path of the object (<kernel_dir>/<key>.so). The code was loaded
  // from a private copy of it, so it never changes with that file.
  const std::string& path() const { return path_; }
  // The hex SHA-256 of the loaded bytes: what a worker process that loads
  // path() itself must find there.
  const std::string& sha256() const { return sha256_; }

 private:
  void* handle_;
  std::string path_;
  std::string sha256_;
};

// dlopen()s `bytes` (a shared object) from a private copy in `scratch_dir`
// (a unique name, unlinked once loaded), so no later change to any file can
// affect the loaded code and no two loads share a name or an inode (which
// dlopen would take for the same object). No file descriptor stays open.
// `path` is what the object reports as its path(). Errors: the copy's write
// errors; Internal with dlopen's message.
absl::StatusOr<std::shared_ptr<LoadedObject>> LoadObjectBytes(
    absl::string_view bytes, const std::string& path,
    const std::string& scratch_dir);

// A kernel source's code in a loaded object: the object compiled from the
// source alone, or a bundle that holds it (kernel_bundle.h), where the
// source's extern "C" names have `suffix` appended.
struct LoadedKernel {
  std::shared_ptr<LoadedObject> object;
  std::string suffix;  // "" in the source's own object
  // The name the source's extern "C" `name` has in `object`.
  std::string Name(absl::string_view name) const {
    return absl::StrCat(name, suffix);
  }
  // Its address, or nullptr.
  void* Symbol(absl::string_view name) const {
    return object->Symbol(Name(name).c_str());
  }
};

class HostCompiler {
 public:
  // Resolves the compiler, reads its version and prepares the cache.
  // Errors: Unavailable when the compiler cannot be found ("no C++ compiler:
  // $CXX is unset and 'c++' is not on PATH", "$CXX='foo' not found",
  // "compiler 'foo' not found"), when `<compiler> --version` fails, or when
  // neither the cache nor a temporary directory is writable.
  static absl::StatusOr<std::unique_ptr<HostCompiler>> Create(
      HostCompilerOptions options);

  // Removes the temporary cache, if one is used. Objects already loaded stay
  // valid.
  ~HostCompiler();
  HostCompiler(const HostCompiler&) = delete;
  HostCompiler& operator=(const HostCompiler&) = delete;

  // Returns `source` compiled and loaded (RTLD_NOW | RTLD_LOCAL), from the
  // cache when a sound object is there, otherwise by running the compiler.
  // Errors: InvalidArgument("kernel compilation failed: <first 20 lines of
  // compiler output>") when the compiler rejects the source, or when the
  // object it produced cannot be loaded (e.g. an undefined symbol);
  // DeadlineExceeded when the compiler runs past the timeout; Internal when
  // the compiler crashes or cannot be run; Unavailable / PermissionDenied when
  // cache files cannot be written.
  //
  // Thread-safe; concurrent calls, also for the same source and from other
  // processes sharing the cache, are fine. Concurrent calls of this
  // HostCompiler for one source compile it once (the others wait and get
  // the same loaded object, or the same error); other processes may compile
  // it again.
  absl::StatusOr<std::shared_ptr<LoadedObject>> CompileAndLoad(
      absl::string_view source);

  // The code of `source`, which exports the extern "C" `symbols`, loaded:
  // from a bundle this HostCompiler has loaded, from the cache (the
  // source's own object, or the bundle that LoadKernels compiled it in,
  // which <key>.entry names; it must have every symbol), or else compiled
  // alone (CompileAndLoad). Errors and thread-safety as CompileAndLoad.
  absl::StatusOr<LoadedKernel> LoadKernel(absl::string_view source,
                                          absl::Span<const std::string> symbols);

  // LoadKernel for each of `sources`, except that those not in the cache
  // compile as one bundle (kernel_bundle.h, with the precompiled header's
  // text as its prologue) when there are two or more, and each then gets a
  // <key>.entry naming the bundle, so later LoadKernel calls, in this
  // process or another, find it there. When the bundle fails to compile or
  // load, each of its sources is compiled alone, so each gets its own
  // object or its own error. One result per source, in order. Thread-safe.
  std::vector<absl::StatusOr<LoadedKernel>> LoadKernels(
      absl::Span<const std::string> sources,
      absl::Span<const std::string> symbols);

  // How many bundles this HostCompiler has compiled (LoadKernels), and how
  // many sources they held.
  int64_t bundles() const { return bundles_.load(); }
  int64_t bundled_sources() const { return bundled_sources_.load(); }

  // The cache key prefix: a format version, the resolved compiler path, the
  // first line of its --version output and the flags, one per line.
  const std::string& identity() const { return identity_; }

  // The folder holding the objects: <cache_dir>/kernels, or its temporary
  // replacement.
  const std::string& kernel_dir() const { return kernel_dir_; }

  // How many times this HostCompiler has run the compiler on a kernel
  // (cache misses, successful or not).
  int64_t compilations() const { return compilations_.load(); }

  // The precompiled header's -include path once this HostCompiler uses it,
  // or "" (none asked for, not needed yet, or it failed).
  std::string precompiled_header_path() const;

 private:
  HostCompiler(std::string compiler_path, std::vector<std::string> flags,
               absl::Duration timeout, std::string identity,
               std::string kernel_dir, std::string temporary_cache,
               std::string precompiled_header, bool one_compile_per_source);

  // The compiler and its flags for a kernel, with `pch` (when not "")
  // included first; the caller appends the output and the source.
  std::vector<std::string> KernelCommand(const std::string& pch) const;
  // Builds (or finds) the precompiled header; "" when there is none.
  std::string BuildPrecompiledHeader() const;
  // Kernels this process compiles before it builds the header.
  static constexpr int64_t kCompilesBeforePch = 4;

  // Loads <key>.so when it matches its sidecar; nullptr when it does not.
  std::shared_ptr<LoadedObject> LoadCached(const std::string& key) const;
  // dlopen()s a private copy of `bytes`; nullptr when that fails.
  std::shared_ptr<LoadedObject> LoadPrivateCopy(
      absl::string_view bytes, const std::string& reported_path) const;
  absl::StatusOr<std::shared_ptr<LoadedObject>> Compile(
      const std::string& key, absl::string_view source);
  // The cache key of `source`.
  std::string KeyOf(absl::string_view source) const;
  // The kernel of the source with cache key `key` when the cache has it:
  // its own object, or the bundle its <key>.entry names.
  std::optional<LoadedKernel> FindKernel(const std::string& key,
                                         absl::Span<const std::string> symbols);
  // CompileAndLoad(source) as a LoadedKernel of its own object.
  absl::StatusOr<LoadedKernel> CompileAlone(absl::string_view source);
  // The bundle object with cache key `bundle_key`: the one this
  // HostCompiler has loaded while it is alive, else the cache's.
  std::shared_ptr<LoadedObject> LoadBundle(const std::string& bundle_key);

  const std::string compiler_path_;
  const std::vector<std::string> flags_;
  const absl::Duration timeout_;
  const std::string identity_;
  const std::string kernel_dir_;
  const std::string temporary_cache_;  // Empty when the real cache is used.
  const std::string precompiled_header_;  // its text
  const bool one_compile_per_source_;
  const std::string pch_dir_;  // <kernel_dir>/pch-<hash of identity>
  std::atomic<int64_t> compilations_{0};
  // Compiles in progress, by key, so that one source compiles once.
  struct InFlight {
    bool done = false;
    absl::StatusOr<std::shared_ptr<LoadedObject>> result;
  };
  Mutex in_flight_mu_;
  std::map<std::string, std::shared_ptr<InFlight>> in_flight_;
  // Bundles loaded, by key, while something holds them.
  Mutex bundles_mu_;
  std::map<std::string, std::weak_ptr<LoadedObject>> loaded_bundles_;
  std::atomic<int64_t> bundles_{0};
  std::atomic<int64_t> bundled_sources_{0};
  mutable std::once_flag pch_once_;
  mutable std::string pch_path_;  // set once, under pch_once_
  mutable std::atomic<bool> pch_ready_{false};
};

}  // namespace xtune::cpu

#endif  // XTUNE_CODEGEN_CPU_HOST_COMPILER_H_
