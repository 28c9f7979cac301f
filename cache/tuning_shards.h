// Sharded autotuning: processes that compile modules sharing fusions split
// the fusions none of them has in a shared cache, through a lease per key
// (cache/redis_shards.h over the Redis tier; --xla_gpu_shard_autotuning,
// docs/fleet.md). The autotuner tunes the keys whose leases it takes,
// publishes them, then waits (bounded) for the others' and takes over a
// key whose lease is gone without a result.
#ifndef XTUNE_CACHE_TUNING_SHARDS_H_
#define XTUNE_CACHE_TUNING_SHARDS_H_

#include <optional>
#include <vector>

#include "absl/time/time.h"
#include "cache/autotune_cache.h"

namespace xtune {

class TuningShards {
 public:
  virtual ~TuningShards() = default;

  // Takes the lease of every key no process holds: true where this process
  // now holds it (kept alive in the background until Release). A store
  // that cannot answer gives every key (each process tunes on its own).
  virtual std::vector<bool> Acquire(const std::vector<AutotuneKey>& keys) = 0;
  // Gives up the lease of `keys` (after publishing their results).
  virtual void Release(const std::vector<AutotuneKey>& keys) = 0;

  enum class State {
    kPublished,  // the shared store holds its result
    kHeld,       // another process holds its lease
    kFree,       // neither: its holder died or gave up; take it over
  };
  // Where each key stands; a store that cannot answer says kFree.
  virtual std::vector<State> Poll(const std::vector<AutotuneKey>& keys) = 0;
  // The result the shared store holds for `key` (the first published).
  virtual std::optional<xla::AutotuneResult> Published(const AutotuneKey& key) = 0;

  // Longest wait for other processes' keys, after which the rest are
  // tuned here; and the pause between polls.
  virtual absl::Duration wait() const = 0;
  virtual absl::Duration poll_interval() const = 0;
};

}  // namespace xtune

#endif  // XTUNE_CACHE_TUNING_SHARDS_H_
