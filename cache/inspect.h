// Looking into autotuning result files, for `xtune cache`: statistics,
// readable summaries of fused computations, diffs between caches, pruning,
// and why a key misses. Works on any AutotuneResults, XLA's files included.
#ifndef XTUNE_CACHE_INSPECT_H_
#define XTUNE_CACHE_INSPECT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "cache/autotune_cache.h"
#include "cache/autotune_results.pb.h"

namespace xtune {

// One line about a fused computation in HLO text (xtune's canonical text or
// XLA's): "dot f32[32,512] <- f32[32,256], f32[256,512] (21 ops)" — the
// root's opcode and shape, the parameters' shapes, the instruction count.
std::string SummarizeFusionText(absl::string_view hlo);

// The stored config as text: "triton {block_m: 64 ...}" (key type and its
// fields).
std::string ResultConfigText(const xla::AutotuneResult& result);

// What a result's config stands for, in words: "cuBLAS with the library's
// default algorithm (XLA's -1)", "Triton gemm: 64x128x32 tiles, ...",
// "xtune CPU loop kernel: ...", or what xtune does not run ("cuDNN
// convolution algorithm 3 ...: convolutions are not supported yet").
std::string ResultMeaning(const xla::AutotuneResult& result);

struct CacheStats {
  int64_t entries = 0;
  std::map<std::string, int64_t> by_device;
  std::map<int, int64_t> by_version;  // 0 = no version stored
  std::map<std::string, int64_t> by_key_type;
  int64_t failures = 0;  // entries whose result records a failure
};
CacheStats ComputeStats(const xla::AutotuneResults& results);

struct CacheDiff {
  std::vector<AutotuneKey> added;    // only in the second
  std::vector<AutotuneKey> removed;  // only in the first
  struct Changed {
    AutotuneKey key;
    xla::AutotuneResult before, after;
  };
  std::vector<Changed> changed;  // a different config (same key)
  std::vector<Changed> retimed;  // the same config, a different result
  int64_t same = 0;
};
// Compares two caches key by key (version 0 read as `current_version`).
CacheDiff DiffCaches(const xla::AutotuneResults& a,
                     const xla::AutotuneResults& b, int current_version);

// The one device-matching rule of every `xtune cache` subcommand: an
// entry's device matches `pattern` when it contains it ("EPYC" matches
// "AMD EPYC 7B13 ..."; a whole device string matches itself). An empty
// pattern matches everything.
bool DeviceMatches(absl::string_view device, absl::string_view pattern);

struct PruneOptions {
  // Keep only entries whose fused text is one of these (any device).
  std::optional<std::set<std::string>> keep_hlo;
  // Keep only entries whose device matches this (DeviceMatches).
  std::optional<std::string> keep_device;
  // Keep only entries of this codegen version (0 or absent counts as it,
  // as does any version of XLA's result kinds: KeyOfEntry).
  std::optional<int> keep_version;
};
// The entries of `in` that `options` keep, in order; `removed` (when not
// null) gets the rest.
xla::AutotuneResults PruneCache(const xla::AutotuneResults& in,
                                const PruneOptions& options,
                                xla::AutotuneResults* removed);

// Entry counts by device and version, one line each ("    3  version 2  AMD
// EPYC ..."), for messages about what a command removed or would remove.
std::string CountByDeviceAndVersion(const xla::AutotuneResults& results,
                                    absl::string_view indent = "    ");

// A line diff of two texts: lines prefixed "- " (only in a), "+ " (only in
// b); equal lines are left out except `context` lines around changes
// ("  "); "..." marks skipped runs.
std::string LineDiff(absl::string_view a, absl::string_view b, int context = 1);

struct MissExplanation {
  bool hit = false;
  bool cache_empty = false;
  AutotuneKey nearest;  // the closest stored key, unless the cache is empty
  xla::AutotuneResult result;  // the stored result, on a hit
  bool device_differs = false;
  bool version_differs = false;
  bool text_differs = false;
  std::string text_diff;  // LineDiff(nearest.hlo, key.hlo) when text differs
};
// Why `key` misses in `results`: the stored key closest to it (same text
// first, then the most lines in common, preferring the same device and
// version) and which parts differ.
MissExplanation ExplainMiss(const xla::AutotuneResults& results,
                            const AutotuneKey& key, int current_version);

}  // namespace xtune

#endif  // XTUNE_CACHE_INSPECT_H_
