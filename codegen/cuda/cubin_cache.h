// CubinCache: NVRTC's outputs kept by content, as the CPU backend keeps its
// objects, so compiling a kernel source again (a second compile of a model,
// every candidate of a re-tuned fusion) costs a file read, not NVRTC.
//
//   <root>/cubins/<key>.cubin, .ptx, .log (NVRTC's and ptxas's messages,
//   from which the resources are parsed again), .sha256 (of the three,
//   written last: an entry without it, or whose bytes do not hash to it, is
//   a miss and is compiled again)
//
// The key hashes a format version, NVRTC's version, the architecture, the
// options, the name and the source. The cache is best effort: a root that
// cannot be written only means every lookup misses.
//
// Thread-safe: entries are written through temporary files and rename.
#ifndef XTUNE_CODEGEN_CUDA_CUBIN_CACHE_H_
#define XTUNE_CODEGEN_CUDA_CUBIN_CACHE_H_

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "codegen/cuda/nvrtc.h"

namespace xtune::cuda {

class CubinCache {
 public:
  // `root` is the kernel cache root (util/file.h's KernelCacheRoot); ""
  // disables the cache.
  explicit CubinCache(std::string root);

  // NVRTC's output for the inputs, from the cache or compiled (and kept).
  absl::StatusOr<NvrtcOutput> Compile(Nvrtc& nvrtc, absl::string_view source,
                                      absl::string_view name,
                                      absl::string_view arch,
                                      const std::vector<std::string>& options = {});

  int64_t hits() const { return hits_; }
  int64_t misses() const { return misses_; }

  // The entry at path prefix `base` (BASE.cubin, .ptx, .log, .sha256):
  // nullopt unless all four are there and the digest matches the other
  // three (a writer killed between them leaves a miss, never a mix).
  std::optional<NvrtcOutput> Lookup(const std::string& base) const;
  // Writes the entry, each file atomically, the digest last.
  void Store(const std::string& base, const NvrtcOutput& out) const;

 private:

  std::string dir_;  // "" when disabled
  std::atomic<int64_t> hits_{0};
  std::atomic<int64_t> misses_{0};
};

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_CUBIN_CACHE_H_
