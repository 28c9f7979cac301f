#include "cache/redis_shards.h"

#include <unistd.h>

#include <random>

#include "absl/strings/str_cat.h"

namespace xtune {

RedisTuningShards::RedisTuningShards(std::shared_ptr<RedisAutotuneCache> store,
                                     RedisShardsOptions options)
    : store_(std::move(store)), options_(options) {
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  std::random_device rd;
  owner_ = absl::StrCat(host, ":", getpid(), ":", rd());
  renewer_ = std::thread([this] { RenewLoop(); });
}

RedisTuningShards::~RedisTuningShards() {
  {
    MutexLock lock(&mu_);
    stop_ = true;
  }
  renewer_.join();
  std::vector<std::string> held;
  {
    MutexLock lock(&mu_);
    held.assign(held_.begin(), held_.end());
  }
  if (!held.empty() && !Down()) (void)store_->DeleteIfOwner(held, owner_);
}

bool RedisTuningShards::Down() {
  MutexLock lock(&mu_);
  return absl::Now() < down_until_;
}

bool RedisTuningShards::Failed(const absl::Status& s) {
  if (s.ok()) return false;
  MutexLock lock(&mu_);
  down_until_ = absl::Now() + absl::Minutes(1);
  return true;
}

std::string RedisTuningShards::LeaseName(const AutotuneKey& key) {
  std::string name = RedisAutotuneCache::KeyName(key);
  return absl::StrCat("xtune:lease:v1:", name.substr(sizeof(RedisAutotuneCache::kPrefix) - 1));
}

void RedisTuningShards::RenewLoop() {
  const absl::Duration every = options_.lease / 3;
  MutexLock lock(&mu_);
  while (!stop_) {
    mu_.AwaitWithTimeout(absl::Condition(&stop_), every);
    if (stop_) break;
    std::vector<std::string> held(held_.begin(), held_.end());
    if (held.empty() || absl::Now() < down_until_) continue;
    mu_.Unlock();
    absl::Status renewed = store_->RenewIfOwner(held, owner_, options_.lease);
    mu_.Lock();
    if (!renewed.ok()) down_until_ = absl::Now() + absl::Minutes(1);
  }
}

std::vector<bool> RedisTuningShards::Acquire(const std::vector<AutotuneKey>& keys) {
  std::vector<std::string> names;
  for (const AutotuneKey& k : keys) names.push_back(LeaseName(k));
  if (Down()) return std::vector<bool>(keys.size(), true);
  absl::StatusOr<std::vector<bool>> taken = store_->SetIfAbsent(names, owner_, options_.lease);
  if (Failed(taken.status())) return std::vector<bool>(keys.size(), true);
  MutexLock lock(&mu_);
  for (size_t i = 0; i < names.size(); ++i) {
    if ((*taken)[i]) held_.insert(names[i]);
  }
  return *taken;
}

void RedisTuningShards::Release(const std::vector<AutotuneKey>& keys) {
  std::vector<std::string> names;
  {
    MutexLock lock(&mu_);
    for (const AutotuneKey& k : keys) {
      std::string n = LeaseName(k);
      if (held_.erase(n) > 0) names.push_back(n);
    }
  }
  if (!names.empty() && !Down()) Failed(store_->DeleteIfOwner(names, owner_));
}

std::vector<TuningShards::State> RedisTuningShards::Poll(const std::vector<AutotuneKey>& keys) {
  std::vector<State> out(keys.size(), State::kFree);
  if (Down()) return out;
  absl::StatusOr<std::vector<std::optional<xla::AutotuneResult>>> stored = store_->Fetch(keys);
  if (Failed(stored.status())) return out;
  std::vector<std::string> names;
  for (const AutotuneKey& k : keys) names.push_back(LeaseName(k));
  absl::StatusOr<std::vector<bool>> held = store_->Exists(names);
  Failed(held.status());
  for (size_t i = 0; i < keys.size(); ++i) {
    if ((*stored)[i].has_value()) {
      out[i] = State::kPublished;
    } else if (held.ok() && (*held)[i]) {
      out[i] = State::kHeld;
    }
  }
  return out;
}

std::optional<xla::AutotuneResult> RedisTuningShards::Published(const AutotuneKey& key) {
  if (Down()) return std::nullopt;
  absl::StatusOr<std::vector<std::optional<xla::AutotuneResult>>> stored = store_->Fetch({key});
  if (Failed(stored.status())) return std::nullopt;
  return (*stored)[0];
}

}  // namespace xtune
