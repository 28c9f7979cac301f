// The Redis tier against a real redis-server each test starts on a free
// loopback port (cache/redis_test_server.h), and its faults through the
// store chain: a server that is killed, paused, full, read-only, asks for
// a password, or answers garbage.
#include "cache/redis_store.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <thread>

#include "absl/strings/str_cat.h"
#include "cache/cache_test_util.h"
#include "cache/redis_shards.h"
#include "cache/redis_test_server.h"
#include "cache/store_chain.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::xtune::testing::IsOk;
using ::xtune::testing::RedisTestServer;
using ::xtune::testing::StatusIs;

const AutotuneKey kKey{"CPU: test device", "fused_computation { x }", 4};

std::shared_ptr<RedisAutotuneCache> StoreFor(const std::string& url,
                                             absl::Duration timeout = absl::Seconds(1),
                                             int64_t ttl = 0) {
  RedisStoreOptions o;
  o.address = *ParseRedisUrl(url);
  o.timeout = timeout;
  o.ttl_seconds = ttl;
  return std::make_shared<RedisAutotuneCache>(std::move(o));
}

double SecondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

TEST(RedisUrlTest, ParsesTcpUnixAndRefusesWhatIsWrong) {
  absl::StatusOr<RedisAddress> a = ParseRedisUrl("redis://127.0.0.1:7000/3");
  ASSERT_THAT(a, IsOk());
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 7000);
  EXPECT_EQ(a->db, 3);
  EXPECT_EQ(a->ToString(), "redis://127.0.0.1:7000/3");
  EXPECT_EQ(ParseRedisUrl("redis://localhost")->port, 6379);
  EXPECT_EQ(ParseRedisUrl("redis://[::1]:7001")->host, "::1");
  EXPECT_EQ(ParseRedisUrl("redis://[::1]:7001")->ToString(), "redis://[::1]:7001/0");
  absl::StatusOr<RedisAddress> u = ParseRedisUrl("unix:///run/redis.sock?db=2");
  ASSERT_THAT(u, IsOk());
  EXPECT_EQ(u->unix_path, "/run/redis.sock");
  EXPECT_EQ(u->db, 2);
  EXPECT_THAT(ParseRedisUrl("http://x"), StatusIs(absl::StatusCode::kInvalidArgument,
                                                  HasSubstr("unknown scheme")));
  EXPECT_THAT(ParseRedisUrl("redis://:secret@host:1"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("XTUNE_REDIS_PASSWORD")));
  EXPECT_THAT(ParseRedisUrl("redis://host:99999"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("port")));
  EXPECT_THAT(ParseRedisUrl("redis://host/x"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("database")));
  EXPECT_THAT(ParseRedisUrl("unix://relative"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("absolute path")));
  EXPECT_THAT(ParseRedisUrl("redis://"), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(RedisStoreTest, RoundTripNamespacedByDeviceAndVersion) {
  XTUNE_START_REDIS_OR_SKIP(server);
  std::shared_ptr<RedisAutotuneCache> store = StoreFor(server.url());
  ASSERT_THAT(store->Insert(kKey, CpuGemmResult(64, 1000)), IsOk());
  absl::StatusOr<std::optional<CacheHit>> hit = store->Lookup(kKey);
  ASSERT_THAT(hit, IsOk());
  ASSERT_TRUE(hit->has_value());
  EXPECT_EQ((*hit)->tier, "redis");
  EXPECT_EQ((*hit)->result->cpu_gemm().kc(), 64);
  AutotuneKey other_device = kKey;
  other_device.device = "CPU: another device";
  AutotuneKey other_version = kKey;
  other_version.version = 5;
  EXPECT_FALSE(store->Lookup(other_device)->has_value());
  EXPECT_FALSE(store->Lookup(other_version)->has_value());
  // The key names the format, the version and the device; the value is a
  // file entry.
  const std::string name = RedisAutotuneCache::KeyName(kKey);
  EXPECT_EQ(name.rfind("xtune:autotune:v1:4:", 0), 0u) << name;
  EXPECT_NE(name, RedisAutotuneCache::KeyName(other_device));
  absl::StatusOr<std::string> value = server.Command({"GET", name});
  ASSERT_THAT(value, IsOk());
  xla::AutotuneResults::Entry entry;
  ASSERT_TRUE(entry.ParseFromString(*value));
  EXPECT_EQ(entry.device(), kKey.device);
  EXPECT_EQ(entry.hlo(), kKey.hlo);
  EXPECT_EQ(entry.result().run_time().nanos(), 1000);
  EXPECT_EQ(*server.Command({"TTL", name}), "-1");  // no TTL asked for
}

TEST(RedisStoreTest, PrefetchIsOneRoundTripForAllKeys) {
  XTUNE_START_REDIS_OR_SKIP(server);
  std::shared_ptr<RedisAutotuneCache> writer = StoreFor(server.url());
  std::vector<AutotuneKey> keys;
  for (int i = 0; i < 30; ++i) {
    AutotuneKey k = kKey;
    k.hlo = absl::StrCat("fusion ", i);
    keys.push_back(k);
    if (i % 3 != 0) {
      ASSERT_THAT(writer->Insert(k, CpuGemmResult(8 + i)), IsOk());
    }
  }
  std::shared_ptr<RedisAutotuneCache> reader = StoreFor(server.url());
  ASSERT_THAT(reader->Prefetch(keys), IsOk());
  int hits = 0;
  for (const AutotuneKey& k : keys) {
    absl::StatusOr<std::optional<CacheHit>> hit = reader->Lookup(k);
    ASSERT_THAT(hit, IsOk());
    hits += hit->has_value();
  }
  EXPECT_EQ(hits, 20);
  EXPECT_EQ(reader->round_trips(), 1);
  EXPECT_THAT(*server.Command({"INFO", "commandstats"}), Not(HasSubstr("cmdstat_get:")));
}

TEST(RedisStoreTest, TtlDatabaseAndPassword) {
  XTUNE_START_REDIS_OR_SKIP(server, {"--requirepass", "s3cret-pass"});
  const std::string name = RedisAutotuneCache::KeyName(kKey);
  // Without the password: refused, saying where it goes, never what it is.
  unsetenv("XTUNE_REDIS_PASSWORD");
  std::shared_ptr<RedisAutotuneCache> anonymous = StoreFor(server.url(2));
  absl::Status refused = anonymous->Insert(kKey, CpuGemmResult(8));
  EXPECT_THAT(refused, StatusIs(absl::StatusCode::kUnavailable,
                                HasSubstr("$XTUNE_REDIS_PASSWORD")));
  setenv("XTUNE_REDIS_PASSWORD", "s3cret-pass", 1);
  std::shared_ptr<RedisAutotuneCache> store = StoreFor(server.url(2), absl::Seconds(1), 100);
  unsetenv("XTUNE_REDIS_PASSWORD");
  ASSERT_THAT(store->Insert(kKey, CpuGemmResult(8)), IsOk());
  EXPECT_TRUE(store->Lookup(kKey)->has_value());
  absl::StatusOr<std::string> ttl = server.Command({"TTL", name}, 2, "s3cret-pass");
  ASSERT_THAT(ttl, IsOk());
  EXPECT_GT(std::atoi(ttl->c_str()), 0);
  EXPECT_LE(std::atoi(ttl->c_str()), 100);
  EXPECT_EQ(*server.Command({"EXISTS", name}, 0, "s3cret-pass"), "0");  // database 2 only
  std::shared_ptr<RedisAutotuneCache> wrong = [&] {
    RedisStoreOptions o;
    o.address = *ParseRedisUrl(server.url());
    o.password = "wrong-pass";
    return std::make_shared<RedisAutotuneCache>(o);
  }();
  absl::Status bad = wrong->Lookup(kKey).status();
  EXPECT_THAT(bad, StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_THAT(std::string(bad.message()), Not(HasSubstr("wrong-pass")));
}

// A chain of memory over Redis with the session's policy
// (cache/persistent.cc).
struct RemoteChain {
  std::shared_ptr<InMemoryAutotuneCache> memory = std::make_shared<InMemoryAutotuneCache>();
  std::shared_ptr<RedisAutotuneCache> redis;
  StoreChain chain;
  std::vector<std::string> warnings;

  RemoteChain(const std::string& url, absl::Duration timeout) : redis(StoreFor(url, timeout)) {
    TierPolicy p;
    p.writes_required = false;
    p.promote = true;
    p.down_on_failure = true;
    p.timeout = 3 * timeout + absl::Milliseconds(500);
    chain.AddTier("memory", memory, TierPolicy());
    chain.AddTier("redis", redis, p);
    chain.set_warning_callback([this](const std::string& w) { warnings.push_back(w); });
  }
  // Looks up and inserts `n` keys as a compile does; returns the hits.
  int Compile(int n) {
    std::vector<AutotuneKey> keys;
    for (int i = 0; i < n; ++i) {
      AutotuneKey k = kKey;
      k.hlo = absl::StrCat("fusion ", i);
      keys.push_back(k);
    }
    (void)chain.Prefetch(keys);
    int hits = 0;
    for (const AutotuneKey& k : keys) {
      absl::StatusOr<std::optional<CacheHit>> hit = chain.Lookup(k);
      if (hit.ok() && hit->has_value()) {
        ++hits;
      } else {
        EXPECT_THAT(chain.Insert(k, CpuGemmResult(16)), IsOk());  // never fails
      }
    }
    return hits;
  }
};

TEST(RedisStoreTest, ReadThroughAndWriteThroughShareTuningAcrossProcesses) {
  XTUNE_START_REDIS_OR_SKIP(server);
  RemoteChain first(server.url(), absl::Seconds(1));
  EXPECT_EQ(first.Compile(8), 0);
  RemoteChain second(server.url(), absl::Seconds(1));  // an empty memory tier
  EXPECT_EQ(second.Compile(8), 8);
  EXPECT_EQ(second.memory->size(), 8);  // promoted: a dump holds them
  EXPECT_TRUE(first.warnings.empty());
  EXPECT_TRUE(second.warnings.empty());
}

TEST(RedisStoreTest, AKilledServerCostsOneWarning) {
  XTUNE_START_REDIS_OR_SKIP(server);
  RemoteChain c(server.url(), absl::Seconds(1));
  EXPECT_EQ(c.Compile(4), 0);
  server.Kill();
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(c.Compile(16), 4);  // memory's own; the rest tuned
  EXPECT_LT(SecondsSince(start), 2.0);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_THAT(c.warnings[0], HasSubstr("'redis' failed ("));
  EXPECT_THAT(c.warnings[0], HasSubstr("not using it for the next 1m"));
  EXPECT_EQ(c.memory->size(), 16);
}

TEST(RedisStoreTest, APausedServerCostsOneTimeout) {
  XTUNE_START_REDIS_OR_SKIP(server);
  RemoteChain c(server.url(), absl::Milliseconds(200));
  server.Pause();
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(c.Compile(16), 0);
  EXPECT_LT(SecondsSince(start), 2.0);
  ASSERT_EQ(c.warnings.size(), 1u) << c.warnings[1];
  EXPECT_THAT(c.warnings[0], HasSubstr("timed out ("));
  EXPECT_THAT(c.warnings[0], HasSubstr("no answer within 200ms"));
  EXPECT_EQ(c.memory->size(), 16);
  server.Resume();
}

TEST(RedisStoreTest, AFullOrReadOnlyServerStillAnswersLookups) {
  for (const char* fault : {"full", "read-only"}) {
    SCOPED_TRACE(fault);
    XTUNE_START_REDIS_OR_SKIP(server);
    RemoteChain seed(server.url(), absl::Seconds(1));
    EXPECT_EQ(seed.Compile(2), 0);
    if (std::string(fault) == "full") {
      ASSERT_THAT(server.Command({"CONFIG", "SET", "maxmemory-policy", "noeviction"}), IsOk());
      ASSERT_THAT(server.Command({"CONFIG", "SET", "maxmemory", "1"}), IsOk());
    } else {
      absl::StatusOr<int> nobody = testing::FreeLoopbackPort();
      ASSERT_THAT(nobody, IsOk());
      ASSERT_THAT(server.Command({"REPLICAOF", "127.0.0.1", absl::StrCat(*nobody)}), IsOk());
    }
    RemoteChain c(server.url(), absl::Seconds(1));
    EXPECT_EQ(c.Compile(6), 2);  // the two stored entries still hit
    ASSERT_EQ(c.warnings.size(), 1u);
    EXPECT_THAT(c.warnings[0], HasSubstr("refused a write"));
    EXPECT_THAT(c.warnings[0], HasSubstr(std::string(fault) == "full" ? "maxmemory" : "read-only"));
    EXPECT_EQ(c.memory->size(), 6);
  }
}

TEST(RedisStoreTest, ADamagedValueIsAMissNotAFault) {
  XTUNE_START_REDIS_OR_SKIP(server);
  RemoteChain c(server.url(), absl::Seconds(1));
  EXPECT_EQ(c.Compile(3), 0);
  AutotuneKey damaged = kKey;
  damaged.hlo = "fusion 1";
  ASSERT_THAT(server.Command({"SET", RedisAutotuneCache::KeyName(damaged), "\xff\xfe garbage"}),
              IsOk());
  RemoteChain d(server.url(), absl::Seconds(1));
  EXPECT_EQ(d.Compile(3), 2);
  ASSERT_EQ(d.warnings.size(), 1u);
  EXPECT_THAT(d.warnings[0], HasSubstr("is not an autotune results entry"));
}

// A server on a loopback port that answers every connection with bytes
// that are not Redis's protocol.
class GarbageServer {
 public:
  GarbageServer() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    listen(fd_, 8);
    thread_ = std::thread([this] {
      while (!stop_) {
        int c = accept(fd_, nullptr, nullptr);
        if (c < 0) break;
        char buf[4096];
        (void)!read(c, buf, sizeof(buf));
        const char junk[] = "HTTP/1.1 400 Bad Request\r\n\r\n";
        (void)!write(c, junk, sizeof(junk) - 1);
        close(c);
      }
    });
  }
  ~GarbageServer() {
    stop_ = true;
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

TEST(RedisStoreTest, AServerAnsweringGarbageCostsOneWarning) {
  GarbageServer garbage;
  RemoteChain c(absl::StrCat("redis://127.0.0.1:", garbage.port()), absl::Seconds(1));
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(c.Compile(8), 0);
  EXPECT_LT(SecondsSince(start), 2.0);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_THAT(c.warnings[0], HasSubstr("not Redis's protocol"));
  EXPECT_EQ(c.memory->size(), 8);
}

// Verify-on-restore's eviction: a key goes from every writable tier.
TEST(RedisStoreTest, EraseEverywhereRemovesTheKeyFromEveryTier) {
  XTUNE_START_REDIS_OR_SKIP(server);
  RemoteChain c(server.url(), absl::Seconds(1));
  EXPECT_EQ(c.Compile(2), 0);
  AutotuneKey key = kKey;
  key.hlo = "fusion 0";
  EXPECT_EQ(*server.Command({"EXISTS", RedisAutotuneCache::KeyName(key)}), "1");
  EXPECT_THAT(c.chain.EraseEverywhere(key), ::testing::ElementsAre("memory", "redis"));
  EXPECT_EQ(*server.Command({"EXISTS", RedisAutotuneCache::KeyName(key)}), "0");
  EXPECT_EQ(c.memory->size(), 1);
  EXPECT_FALSE(c.chain.Lookup(key)->has_value());
  EXPECT_TRUE(c.warnings.empty());
}

// Device-match seeding's lookup: the same fused computation's entries of
// other devices, through the index Insert keeps.
TEST(RedisStoreTest, OtherDevicesListsTheSameFusionsEntriesOfOtherDevices) {
  XTUNE_START_REDIS_OR_SKIP(server);
  std::shared_ptr<RedisAutotuneCache> store = StoreFor(server.url());
  AutotuneKey a100 = kKey, h100 = kKey, other_fusion = kKey;
  a100.device = "CUDA: 8.0, A100";
  h100.device = "CUDA: 9.0, H100";
  other_fusion.hlo = "another fusion";
  ASSERT_THAT(store->Insert(kKey, CpuGemmResult(8)), IsOk());
  ASSERT_THAT(store->Insert(a100, CpuGemmResult(16)), IsOk());
  ASSERT_THAT(store->Insert(h100, CpuGemmResult(32)), IsOk());
  ASSERT_THAT(store->Insert(other_fusion, CpuGemmResult(64)), IsOk());
  absl::StatusOr<AutotuneCache::Related> related = store->OtherDevices(kKey);
  ASSERT_THAT(related, IsOk());
  std::map<std::string, int64_t> kc;
  for (const auto& [device, result] : *related) kc[device] = result->cpu_gemm().kc();
  EXPECT_THAT(kc, ::testing::ElementsAre(::testing::Pair("CUDA: 8.0, A100", 16),
                                         ::testing::Pair("CUDA: 9.0, H100", 32)));
}

// The leases of sharded tuning: taken by one process at a time, renewed
// while held, published keys and free ones told apart, released (and
// deleted when their holder goes).
TEST(RedisStoreTest, LeasesAreExclusiveRenewedAndReleased) {
  XTUNE_START_REDIS_OR_SKIP(server);
  RedisShardsOptions o;
  o.lease = absl::Milliseconds(300);
  auto store_a = StoreFor(server.url());
  auto store_b = StoreFor(server.url());
  auto a = std::make_unique<RedisTuningShards>(store_a, o);
  RedisTuningShards b(store_b, o);
  AutotuneKey k1 = kKey, k2 = kKey, k3 = kKey;
  k1.hlo = "one";
  k2.hlo = "two";
  k3.hlo = "three";
  EXPECT_THAT(a->Acquire({k1, k2}), ::testing::ElementsAre(true, true));
  EXPECT_THAT(b.Acquire({k1, k2, k3}), ::testing::ElementsAre(false, false, true));
  using State = TuningShards::State;
  EXPECT_THAT(b.Poll({k1, k2}), ::testing::ElementsAre(State::kHeld, State::kHeld));
  ASSERT_THAT(store_a->Insert(k1, CpuGemmResult(8)), IsOk());
  a->Release({k2});
  EXPECT_THAT(b.Poll({k1, k2}), ::testing::ElementsAre(State::kPublished, State::kFree));
  ASSERT_TRUE(b.Published(k1).has_value());
  EXPECT_EQ(b.Published(k1)->cpu_gemm().kc(), 8);
  // Held past its expiry: the holder renews it.
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  EXPECT_EQ(*server.Command({"EXISTS", RedisTuningShards::LeaseName(k1)}), "1");
  EXPECT_EQ(*server.Command({"GET", RedisTuningShards::LeaseName(k1)}), a->owner());
  // Another's release does not touch it; its holder going deletes it.
  b.Release({k1});
  EXPECT_EQ(*server.Command({"EXISTS", RedisTuningShards::LeaseName(k1)}), "1");
  a.reset();
  EXPECT_EQ(*server.Command({"EXISTS", RedisTuningShards::LeaseName(k1)}), "0");
  EXPECT_EQ(*server.Command({"EXISTS", RedisTuningShards::LeaseName(k3)}), "1");  // b's
}

}  // namespace
}  // namespace xtune
