#include "codegen/cuda/cubin_cache.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "util/file.h"
#include "util/sha256.h"
#include "util/status_macros.h"

namespace xtune::cuda {
namespace {

// v1: cubin, ptx, log and the digest of the three.
constexpr int kCubinCacheVersion = 1;

std::string Digest(const NvrtcOutput& out) {
  return Sha256Hex(absl::StrCat(out.cubin.size(), ":", out.cubin,
                                out.ptx.size(), ":", out.ptx, out.log));
}

}  // namespace

CubinCache::CubinCache(std::string root) {
  if (root.empty()) return;
  std::string dir = root + "/cubins";
  if (CreateDirectories(dir).ok()) {
    dir_ = dir;
    RemoveStaleTemporaries(dir_);  // of writers killed before their rename
  }
}

std::optional<NvrtcOutput> CubinCache::Lookup(const std::string& base) const {
  absl::StatusOr<std::string> digest = ReadFile(base + ".sha256");
  if (!digest.ok()) return std::nullopt;
  NvrtcOutput out;
  absl::StatusOr<std::string> cubin = ReadFile(base + ".cubin");
  absl::StatusOr<std::string> ptx = ReadFile(base + ".ptx");
  absl::StatusOr<std::string> log = ReadFile(base + ".log");
  if (!cubin.ok() || !ptx.ok() || !log.ok()) return std::nullopt;
  out.cubin = std::move(*cubin);
  out.ptx = std::move(*ptx);
  out.log = std::move(*log);
  if (Digest(out) != *digest) return std::nullopt;
  absl::StatusOr<std::vector<KernelResources>> resources =
      ParsePtxasReport(out.log);
  if (!resources.ok()) return std::nullopt;
  out.resources = std::move(*resources);
  return out;
}

void CubinCache::Store(const std::string& base, const NvrtcOutput& out) const {
  // The digest last: until it is there the entry is a miss.
  if (WriteFileAtomically(base + ".cubin", out.cubin).ok() &&
      WriteFileAtomically(base + ".ptx", out.ptx).ok() &&
      WriteFileAtomically(base + ".log", out.log).ok()) {
    WriteFileAtomically(base + ".sha256", Digest(out)).IgnoreError();
  }
}

absl::StatusOr<NvrtcOutput> CubinCache::Compile(
    Nvrtc& nvrtc, absl::string_view source, absl::string_view name,
    absl::string_view arch, const std::vector<std::string>& options) {
  std::string base;
  if (!dir_.empty()) {
    std::string key = Sha256Hex(absl::StrCat(
        "xtune cubin cache v", kCubinCacheVersion, "\nnvrtc ", nvrtc.major(), ".",
        nvrtc.minor(), "\n", arch, "\n", absl::StrJoin(options, " "), "\n",
        name, "\n", source));
    base = absl::StrCat(dir_, "/", key);
    if (std::optional<NvrtcOutput> hit = Lookup(base)) {
      ++hits_;
      return std::move(*hit);
    }
  }
  ++misses_;
  XTUNE_ASSIGN_OR_RETURN(NvrtcOutput out,
                         nvrtc.Compile(source, name, arch, options));
  if (!base.empty()) Store(base, out);
  return out;
}

}  // namespace xtune::cuda
