#include "codegen/cuda/nvrtc.h"

#include <dlfcn.h>

#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace xtune::cuda {
namespace {

// NVRTC's C ABI, declared here so that the build needs no CUDA headers
// (nvrtc.h: nvrtcResult is an int enum, nvrtcProgram an opaque pointer).
using nvrtcResult = int;
using nvrtcProgram = void*;
constexpr nvrtcResult kSuccess = 0;

// The numbers after `prefix` in `line` ("Used 10 registers" -> 10).
bool NumberBefore(absl::string_view line, absl::string_view unit,
                  int64_t* out) {
  size_t at = line.find(unit);
  if (at == absl::string_view::npos) return false;
  absl::string_view head = absl::StripTrailingAsciiWhitespace(line.substr(0, at));
  size_t space = head.find_last_of(" ,:");
  absl::string_view digits =
      space == absl::string_view::npos ? head : head.substr(space + 1);
  return absl::SimpleAtoi(digits, out);
}

}  // namespace

struct Nvrtc::Api {
  nvrtcResult (*version)(int*, int*);
  const char* (*error_string)(nvrtcResult);
  nvrtcResult (*create)(nvrtcProgram*, const char*, const char*, int,
                        const char* const*, const char* const*);
  nvrtcResult (*destroy)(nvrtcProgram*);
  nvrtcResult (*compile)(nvrtcProgram, int, const char* const*);
  nvrtcResult (*ptx_size)(nvrtcProgram, size_t*);
  nvrtcResult (*ptx)(nvrtcProgram, char*);
  nvrtcResult (*cubin_size)(nvrtcProgram, size_t*);
  nvrtcResult (*cubin)(nvrtcProgram, char*);
  nvrtcResult (*log_size)(nvrtcProgram, size_t*);
  nvrtcResult (*log)(nvrtcProgram, char*);
};

absl::StatusOr<std::vector<KernelResources>> ParsePtxasReport(
    absl::string_view log) {
  std::vector<KernelResources> out;
  for (absl::string_view line : absl::StrSplit(log, '\n')) {
    if (absl::StrContains(line, "Function properties for ")) {
      KernelResources k;
      k.function = std::string(absl::StripAsciiWhitespace(
          line.substr(line.find("Function properties for ") + 24)));
      out.push_back(k);
      continue;
    }
    if (out.empty()) continue;
    KernelResources& k = out.back();
    int64_t v;
    if (absl::StrContains(line, "bytes stack frame")) {
      if (NumberBefore(line, "bytes stack frame", &v)) k.stack_bytes = v;
      if (NumberBefore(line, "bytes spill stores", &v)) k.spill_store_bytes = v;
      if (NumberBefore(line, "bytes spill loads", &v)) k.spill_load_bytes = v;
    } else if (absl::StrContains(line, "registers")) {
      if (NumberBefore(line, "registers", &v)) k.registers = static_cast<int>(v);
      if (NumberBefore(line, "barriers", &v)) k.barriers = static_cast<int>(v);
      if (NumberBefore(line, "bytes smem", &v)) k.shared_bytes = v;
    }
  }
  if (out.empty()) {
    return absl::InvalidArgumentError(
        "no ptxas report in the compile log (was --ptxas-options=-v given?)");
  }
  return out;
}

absl::StatusOr<std::unique_ptr<Nvrtc>> Nvrtc::Load() {
  std::vector<std::string> tried;
  if (const char* env = std::getenv("XTUNE_NVRTC"); env && *env) {
    tried.push_back(env);
  } else {
    tried = {"libnvrtc.so.13", "libnvrtc.so", "/usr/local/cuda/lib64/libnvrtc.so.13",
             "/usr/local/cuda/lib64/libnvrtc.so"};
  }
  std::unique_ptr<Nvrtc> n(new Nvrtc());
  std::string last_error;
  for (const std::string& name : tried) {
    n->handle_ = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (n->handle_ != nullptr) {
      n->path_ = name;
      break;
    }
    last_error = dlerror();
  }
  if (n->handle_ == nullptr) {
    return absl::UnavailableError(absl::StrCat(
        "NVRTC not found (tried ", absl::StrJoin(tried, ", "), "; last: ", last_error,
        "): install the CUDA 13 toolkit's NVRTC in /usr/local/cuda (NVIDIA's "
        "cuda-nvrtc-13-0 package or the nvidia-cuda-nvrtc wheel's lib/) or name the "
        "library with $XTUNE_NVRTC; the cpu, cuda_emulator and interpreter backends need "
        "no CUDA"));
  }
  n->api_ = std::make_unique<Api>();
  Api& a = *n->api_;
  struct {
    const char* name;
    void** slot;
  } symbols[] = {
      {"nvrtcVersion", reinterpret_cast<void**>(&a.version)},
      {"nvrtcGetErrorString", reinterpret_cast<void**>(&a.error_string)},
      {"nvrtcCreateProgram", reinterpret_cast<void**>(&a.create)},
      {"nvrtcDestroyProgram", reinterpret_cast<void**>(&a.destroy)},
      {"nvrtcCompileProgram", reinterpret_cast<void**>(&a.compile)},
      {"nvrtcGetPTXSize", reinterpret_cast<void**>(&a.ptx_size)},
      {"nvrtcGetPTX", reinterpret_cast<void**>(&a.ptx)},
      {"nvrtcGetCUBINSize", reinterpret_cast<void**>(&a.cubin_size)},
      {"nvrtcGetCUBIN", reinterpret_cast<void**>(&a.cubin)},
      {"nvrtcGetProgramLogSize", reinterpret_cast<void**>(&a.log_size)},
      {"nvrtcGetProgramLog", reinterpret_cast<void**>(&a.log)},
  };
  for (auto& s : symbols) {
    *s.slot = dlsym(n->handle_, s.name);
    if (*s.slot == nullptr) {
      return absl::UnavailableError(
          absl::StrCat("NVRTC at '", n->path_, "' lacks ", s.name));
    }
  }
  if (a.version(&n->major_, &n->minor_) != kSuccess) {
    return absl::UnavailableError("nvrtcVersion failed");
  }
  return n;
}

// NVRTC stays loaded for the rest of the process, as the CUDA libraries
// usually do: it links its own libstdc++, whose emergency exception pool
// (72 KB) would be orphaned by dlclose (LeakSanitizer reports it under
// the CLI tests), and a later Nvrtc::Load gets the same handle back anyway.
Nvrtc::~Nvrtc() = default;

absl::StatusOr<NvrtcOutput> Nvrtc::Compile(
    absl::string_view source, absl::string_view name, absl::string_view arch,
    const std::vector<std::string>& options) {
  const Api& a = *api_;
  std::string src(source);
  std::string program_name(name);
  nvrtcProgram prog = nullptr;
  nvrtcResult r = a.create(&prog, src.c_str(), program_name.c_str(), 0,
                           nullptr, nullptr);
  if (r != kSuccess) {
    return absl::InternalError(
        absl::StrCat("nvrtcCreateProgram: ", a.error_string(r)));
  }
  std::vector<std::string> all = {absl::StrCat("--gpu-architecture=", arch),
                                  "--ptxas-options=-v", "-default-device",
                                  // The prelude's helpers a kernel leaves unused.
                                  "--diag-suppress=177"};
  all.insert(all.end(), options.begin(), options.end());
  std::vector<const char*> argv;
  for (const std::string& o : all) argv.push_back(o.c_str());
  r = a.compile(prog, static_cast<int>(argv.size()), argv.data());
  NvrtcOutput out;
  size_t n = 0;
  if (a.log_size(prog, &n) == kSuccess && n > 1) {
    out.log.resize(n);
    a.log(prog, out.log.data());
    out.log.resize(n - 1);  // the terminating NUL
  }
  if (r != kSuccess) {
    a.destroy(&prog);
    // The errors (each with the two lines that show where) before the
    // warnings, then at most 20 lines.
    std::vector<absl::string_view> all_lines = absl::StrSplit(out.log, '\n');
    std::vector<absl::string_view> lines;
    std::vector<bool> taken(all_lines.size(), false);
    for (size_t i = 0; i < all_lines.size(); ++i) {
      if (!absl::StrContains(all_lines[i], "error")) continue;
      for (size_t j = i; j < std::min(all_lines.size(), i + 3); ++j) {
        if (!taken[j]) lines.push_back(all_lines[j]);
        taken[j] = true;
      }
    }
    for (size_t i = 0; i < all_lines.size(); ++i) {
      if (!taken[i] && !all_lines[i].empty()) lines.push_back(all_lines[i]);
    }
    if (lines.size() > 20) lines.resize(20);
    return absl::InvalidArgumentError(
        absl::StrCat("NVRTC could not compile '", name, "' for ", arch, " (",
                     a.error_string(r), "):\n", absl::StrJoin(lines, "\n")));
  }
  if (a.ptx_size(prog, &n) == kSuccess && n > 1) {
    out.ptx.resize(n);
    a.ptx(prog, out.ptx.data());
    out.ptx.resize(n - 1);
  }
  if (a.cubin_size(prog, &n) == kSuccess && n > 0) {
    out.cubin.resize(n);
    a.cubin(prog, out.cubin.data());
  }
  a.destroy(&prog);
  absl::StatusOr<std::vector<KernelResources>> resources =
      ParsePtxasReport(out.log);
  if (resources.ok()) out.resources = std::move(*resources);
  return out;
}

}  // namespace xtune::cuda
