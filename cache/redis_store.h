// The remote tier: an autotune cache on a Redis server that a fleet of
// machines shares (--xtune_autotune_cache_remote=redis://HOST:PORT[/DB] or
// unix:///PATH[?db=N]), through hiredis.
//
// Keys are namespaced so that two formats, two codegen versions or two
// devices never read each other's results:
//   xtune:autotune:v1:<codegen version>:<device hash>:<hlo hash>
// (the hashes are SHA-256 hex, the device's cut to 16 digits). A value is
// one entry of a binary results file (xla::AutotuneResults.Entry: device,
// hlo, version and the AutotuneResult), so the cache tools can list and
// show it; a value whose device, text or version is not the key's is a
// miss.
//
// Every call has a connect and command timeout; the connection is opened
// on first use and again after a failure. Errors: Unavailable (no server,
// a closed connection, an answer that is not Redis's protocol, refused
// credentials), DeadlineExceeded (no answer in time), ResourceExhausted
// (the server is full: maxmemory), FailedPrecondition (a read-only
// replica), DataLoss (a stored value that is not an entry). The password
// comes from $XTUNE_REDIS_PASSWORD (and a user from $XTUNE_REDIS_USERNAME),
// never from a flag, and is never printed.
//
// Thread-safe (one connection, one call at a time).
#ifndef XTUNE_CACHE_REDIS_STORE_H_
#define XTUNE_CACHE_REDIS_STORE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cache/autotune_cache.h"
#include "util/mutex.h"

struct redisContext;

namespace xtune {

struct RedisAddress {
  std::string host;       // empty for a unix socket
  int port = 6379;
  std::string unix_path;  // empty for TCP
  int db = 0;
  // "redis://127.0.0.1:6379/0" or "unix:///run/redis.sock?db=0".
  std::string ToString() const;
};

// Whether `path` names a remote cache (redis:// or unix://) rather than a
// file or folder.
bool IsRemoteCacheUrl(absl::string_view path);

// redis://HOST[:PORT][/DB] (HOST may be [v6-address]) or
// unix:///PATH[?db=N]. InvalidArgument naming what is wrong; credentials in
// the URL are refused (they belong in the environment).
absl::StatusOr<RedisAddress> ParseRedisUrl(absl::string_view url);

// A value the remote cache holds: the serialized AutotuneResults.Entry the
// files hold (device, hlo, version, result). nullopt for anything else (a
// damaged or foreign value), which callers count and skip.
std::optional<xla::AutotuneResults::Entry> ParseRedisValue(absl::string_view value);

struct RedisStoreOptions {
  RedisAddress address;
  // Longest connect, and longest wait for each answer.
  absl::Duration timeout = absl::Seconds(1);
  // Expiry of written entries; 0: none.
  int64_t ttl_seconds = 0;
  // Credentials ($XTUNE_REDIS_USERNAME, $XTUNE_REDIS_PASSWORD when empty).
  std::string username, password;
  // Insert keeps an entry already stored (SET NX): with sharded tuning,
  // the first result published for a key is every process's.
  bool first_writer_wins = false;
};

class RedisAutotuneCache : public AutotuneCache {
 public:
  // Does not connect (the first call does).
  explicit RedisAutotuneCache(RedisStoreOptions options);
  ~RedisAutotuneCache() override;

  // A prefetched key answers from the prefetch (no round trip).
  absl::StatusOr<std::optional<CacheHit>> Lookup(const AutotuneKey& key) override;
  absl::Status Insert(const AutotuneKey& key, const xla::AutotuneResult& result) override;
  absl::Status Erase(const AutotuneKey& key) override;
  // From the index of the devices that stored each fused computation
  // (xtune:devices:v1:<version>:<hlo hash>, a set of entry keys that
  // Insert and WriteAll add to): one SMEMBERS and one MGET.
  absl::StatusOr<Related> OtherDevices(const AutotuneKey& key) override;
  static std::string DevicesIndexName(const AutotuneKey& key);
  // One MGET for all of `keys`; their lookups then need no round trip.
  absl::Status Prefetch(const std::vector<AutotuneKey>& keys) override;
  bool Prefetches() const override { return true; }

  // The Redis key of `key`.
  static std::string KeyName(const AutotuneKey& key);
  // The prefix of every key of format version 1.
  static constexpr char kPrefix[] = "xtune:autotune:v1:";

  // The stored results of `keys` now (one MGET, past any prefetch):
  // nullopt where there is none or it is not the key's entry.
  absl::StatusOr<std::vector<std::optional<xla::AutotuneResult>>> Fetch(
      const std::vector<AutotuneKey>& keys);

  // The cache tools' side (`xtune cache` with a redis:// argument):
  // every entry of format version 1 the server holds, as stored (SCAN,
  // then MGET in batches; values that are not entries are counted in
  // `damaged`); stores entries under their lookup keys (KeyOfEntry with
  // `current_version`), without expiry, keeping whatever else the server
  // holds; deletes entries.
  absl::StatusOr<xla::AutotuneResults> ReadAll(int64_t* damaged = nullptr);
  absl::Status WriteAll(const xla::AutotuneResults& results, int current_version);
  absl::Status DeleteAll(const xla::AutotuneResults& results, int current_version);

  // Leases (cache/redis_shards.h), in one pipeline each: sets each of
  // `names` to `owner` where it does not exist, expiring after `expiry`
  // (true where set); renews those still `owner`'s; deletes those still
  // `owner`'s; whether each exists.
  absl::StatusOr<std::vector<bool>> SetIfAbsent(const std::vector<std::string>& names,
                                                const std::string& owner,
                                                absl::Duration expiry);
  absl::Status RenewIfOwner(const std::vector<std::string>& names, const std::string& owner,
                            absl::Duration expiry);
  absl::Status DeleteIfOwner(const std::vector<std::string>& names, const std::string& owner);
  absl::StatusOr<std::vector<bool>> Exists(const std::vector<std::string>& names);

  // Round trips so far (a pipeline or MGET counts once): for tests and
  // figures.
  int64_t round_trips() const;

  const RedisStoreOptions& options() const { return options_; }

 private:
  struct Reply;
  // Sends `commands` in one pipeline and reads their answers in order.
  absl::StatusOr<std::vector<Reply>> Run(const std::vector<std::vector<std::string>>& commands)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status Connect() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Run (under the lock), then the first error answer as a status;
  // nothing is sent for no commands.
  absl::StatusOr<std::vector<Reply>> RunChecked(
      const std::vector<std::vector<std::string>>& commands);
  // The first error answer among `replies`, as a status.
  absl::Status FirstError(const std::vector<Reply>& replies) const;
  void Disconnect() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The hit in a stored value of `key` (nullopt: not the key's entry).
  absl::StatusOr<std::optional<CacheHit>> Decode(const AutotuneKey& key,
                                                 const std::string& value) const;

  RedisStoreOptions options_;
  mutable Mutex mu_;
  redisContext* context_ ABSL_GUARDED_BY(mu_) = nullptr;
  int64_t round_trips_ ABSL_GUARDED_BY(mu_) = 0;
  // Values of prefetched keys (nullopt: the server had none).
  absl::flat_hash_map<std::string, std::optional<std::string>> prefetched_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace xtune

#endif  // XTUNE_CACHE_REDIS_STORE_H_
