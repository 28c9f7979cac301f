// Device-match seeding (--xtune_autotune_device_match=arch|any): on a
// miss, the configs that entries of other devices hold for the same fused
// computation are timed first, with the default config; when one of them
// is within the noise band of the best of those, tuning stops there (the
// entry records the seed's device), else the fusion is tuned in full.
#ifndef XTUNE_AUTOTUNE_DEVICE_MATCH_H_
#define XTUNE_AUTOTUNE_DEVICE_MATCH_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "autotune/options.h"
#include "autotune/phases.h"
#include "cache/autotune_cache.h"
#include "codegen/backend.h"

namespace xtune {

// The architecture part of a device string: a GPU's compute capability
// ("CUDA: 9.0"), a CPU's instruction set ("CPU ISA: avx512"), else the
// text before the first comma.
std::string DeviceArchitecture(absl::string_view device);

struct Seed {
  KernelConfig config;
  std::string device;
};

// The usable configs of other devices' entries for `group` (at most
// `limit`, distinct): the same architecture's first; with kArch only
// those. Empty with kExact, or when the cache has none.
std::vector<Seed> SeedsFor(const Backend& backend, AutotuneCache& cache,
                           AutotuneOptions::DeviceMatch match, const KeyGroup& group,
                           size_t limit = 4);

// The configs of the first, seeded search: the seeds and the default
// config, in canonical order.
std::vector<KernelConfig> SeededCandidates(const Backend& backend, const KeyGroup& group,
                                           const std::vector<Seed>& seeds);

// After the seeded search was timed and checked: the device of the best
// seed when it is within the noise band (max(min_band, the trial's)) of
// the best candidate, else nullopt (tune in full).
std::optional<std::string> SeedAccepted(const Trial& trial, const std::vector<Seed>& seeds,
                                        double min_band);

}  // namespace xtune

#endif  // XTUNE_AUTOTUNE_DEVICE_MATCH_H_
