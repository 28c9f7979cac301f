// TuningShards over a Redis server (the remote tier's): the lease of a key
// is xtune:lease:v1:... (the entry's key name after its prefix) set to
// this process's owner id with SET NX PX, renewed by a background thread
// every third of its expiry while held, deleted (only while still ours)
// on Release. A process killed while tuning stops renewing: its leases
// expire and another process takes the keys over.
#ifndef XTUNE_CACHE_REDIS_SHARDS_H_
#define XTUNE_CACHE_REDIS_SHARDS_H_

#include <memory>
#include <set>
#include <string>
#include <thread>

#include "cache/redis_store.h"
#include "cache/tuning_shards.h"
#include "util/mutex.h"

namespace xtune {

struct RedisShardsOptions {
  absl::Duration lease = absl::Seconds(10);
  absl::Duration wait = absl::Minutes(10);
  absl::Duration poll_interval = absl::Milliseconds(100);
};

class RedisTuningShards : public TuningShards {
 public:
  // `store` is the remote tier (shared: its connection serves both).
  RedisTuningShards(std::shared_ptr<RedisAutotuneCache> store, RedisShardsOptions options);
  ~RedisTuningShards() override;

  std::vector<bool> Acquire(const std::vector<AutotuneKey>& keys) override;
  void Release(const std::vector<AutotuneKey>& keys) override;
  std::vector<State> Poll(const std::vector<AutotuneKey>& keys) override;
  std::optional<xla::AutotuneResult> Published(const AutotuneKey& key) override;
  absl::Duration wait() const override { return options_.wait; }
  absl::Duration poll_interval() const override { return options_.poll_interval; }

  static std::string LeaseName(const AutotuneKey& key);
  const std::string& owner() const { return owner_; }

 private:
  void RenewLoop();

  std::shared_ptr<RedisAutotuneCache> store_;
  RedisShardsOptions options_;
  std::string owner_;
  Mutex mu_;
  std::set<std::string> held_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread renewer_;
};

}  // namespace xtune

#endif  // XTUNE_CACHE_REDIS_SHARDS_H_
