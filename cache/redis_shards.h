// TuningShards over a Redis server (the remote tier's): the lease of a key
// is xtune:lease:v1:... (the entry's key name after its prefix) set to
// this process's owner id with SET NX PX, renewed by a background thread
// every third of its expiry while held, deleted (only while still ours)
// on Release. A process killed while tuning stops renewing: its leases
// expire and another process takes the keys over. A server that fails
// (down, paused, refusing) is left alone for a minute: every key is then
// this process's to tune (the tier's own warning says why).
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
  // Whether the server failed within the last minute: then every key is
  // this process's to tune, and nothing is asked of the server.
  bool Down();
  // Records a failure (`s` not ok) and returns whether there was one.
  bool Failed(const absl::Status& s);

  std::shared_ptr<RedisAutotuneCache> store_;
  RedisShardsOptions options_;
  std::string owner_;
  Mutex mu_;
  std::set<std::string> held_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  absl::Time down_until_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  std::thread renewer_;
};

}  // namespace xtune

#endif  // XTUNE_CACHE_REDIS_SHARDS_H_
