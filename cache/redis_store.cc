#include "cache/redis_store.h"

#include <hiredis/hiredis.h>
#include <sys/time.h>

#include <cerrno>
#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "util/sha256.h"
#include "util/status_macros.h"

namespace xtune {

std::string RedisAddress::ToString() const {
  if (!unix_path.empty()) return absl::StrCat("unix://", unix_path, "?db=", db);
  const bool v6 = host.find(':') != std::string::npos;
  return absl::StrCat("redis://", v6 ? "[" : "", host, v6 ? "]" : "", ":", port, "/", db);
}

bool IsRemoteCacheUrl(absl::string_view path) {
  return absl::StartsWith(path, "redis://") || absl::StartsWith(path, "unix://");
}

absl::StatusOr<RedisAddress> ParseRedisUrl(absl::string_view url) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "remote autotune cache '", url, "': ", why,
        " (expected redis://HOST:PORT[/DB] or unix:///PATH[?db=N])"));
  };
  auto parse_db = [&](absl::string_view text, RedisAddress* a) -> absl::Status {
    if (!absl::SimpleAtoi(text, &a->db) || a->db < 0) {
      return bad(absl::StrCat("the database '", text, "' is not a number >= 0"));
    }
    return absl::OkStatus();
  };
  RedisAddress a;
  absl::string_view rest = url;
  if (absl::ConsumePrefix(&rest, "unix://")) {
    size_t q = rest.find('?');
    a.unix_path = std::string(rest.substr(0, q));
    if (a.unix_path.empty() || a.unix_path[0] != '/') {
      return bad("a unix socket needs an absolute path");
    }
    if (q != absl::string_view::npos) {
      absl::string_view query = rest.substr(q + 1);
      if (!absl::ConsumePrefix(&query, "db=")) return bad("the only query is db=N");
      XTUNE_RETURN_IF_ERROR(parse_db(query, &a));
    }
    return a;
  }
  if (!absl::ConsumePrefix(&rest, "redis://")) return bad("unknown scheme");
  size_t slash = rest.find('/');
  absl::string_view authority = rest.substr(0, slash);
  if (authority.find('@') != absl::string_view::npos) {
    return bad("credentials do not go in the URL: set $XTUNE_REDIS_PASSWORD "
               "(and $XTUNE_REDIS_USERNAME)");
  }
  absl::string_view port;
  if (absl::ConsumePrefix(&authority, "[")) {
    size_t close = authority.find(']');
    if (close == absl::string_view::npos) return bad("an unclosed '['");
    a.host = std::string(authority.substr(0, close));
    absl::string_view after = authority.substr(close + 1);
    if (!after.empty() && !absl::ConsumePrefix(&after, ":")) return bad("junk after ']'");
    port = after;
  } else {
    size_t colon = authority.rfind(':');
    a.host = std::string(authority.substr(0, colon));
    if (colon != absl::string_view::npos) port = authority.substr(colon + 1);
  }
  if (a.host.empty()) return bad("no host");
  if (!port.empty() && (!absl::SimpleAtoi(port, &a.port) || a.port < 1 || a.port > 65535)) {
    return bad(absl::StrCat("the port '", port, "' is not 1 to 65535"));
  }
  if (slash != absl::string_view::npos && slash + 1 < rest.size()) {
    XTUNE_RETURN_IF_ERROR(parse_db(rest.substr(slash + 1), &a));
  }
  return a;
}

// One answer, copied out of hiredis's reply.
struct RedisAutotuneCache::Reply {
  int type = 0;
  std::string str;
  long long integer = 0;
  std::vector<Reply> elements;

  static Reply From(const redisReply* r) {
    Reply out;
    out.type = r->type;
    if (r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS ||
        r->type == REDIS_REPLY_ERROR) {
      out.str.assign(r->str, r->len);
    }
    out.integer = r->integer;
    for (size_t i = 0; r->type == REDIS_REPLY_ARRAY && i < r->elements; ++i) {
      out.elements.push_back(From(r->element[i]));
    }
    return out;
  }
};

namespace {

timeval TimevalOf(absl::Duration d) {
  return absl::ToTimeval(std::max(d, absl::Milliseconds(1)));
}

// An error answer as a status naming what the server said.
absl::Status ErrorReply(const std::string& where, const std::string& message) {
  if (absl::StartsWith(message, "OOM")) {
    return absl::ResourceExhaustedError(
        absl::StrCat(where, ": the server is full (maxmemory): ", message));
  }
  if (absl::StartsWith(message, "READONLY")) {
    return absl::FailedPreconditionError(
        absl::StrCat(where, ": the server is a read-only replica: ", message));
  }
  if (absl::StartsWith(message, "NOAUTH") || absl::StartsWith(message, "WRONGPASS") ||
      absl::StartsWith(message, "NOPERM")) {
    return absl::UnavailableError(absl::StrCat(
        where, ": the server refused the credentials (set $XTUNE_REDIS_PASSWORD, and "
               "$XTUNE_REDIS_USERNAME for an ACL user): ",
        message));
  }
  if (absl::StartsWith(message, "LOADING") || absl::StartsWith(message, "BUSY") ||
      absl::StartsWith(message, "MASTERDOWN")) {
    return absl::UnavailableError(absl::StrCat(where, ": ", message));
  }
  return absl::UnknownError(absl::StrCat(where, ": the server answered an error: ", message));
}

std::string EnvOr(const std::string& given, const char* name) {
  if (!given.empty()) return given;
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

}  // namespace

RedisAutotuneCache::RedisAutotuneCache(RedisStoreOptions options)
    : options_(std::move(options)) {
  options_.username = EnvOr(options_.username, "XTUNE_REDIS_USERNAME");
  options_.password = EnvOr(options_.password, "XTUNE_REDIS_PASSWORD");
}

RedisAutotuneCache::~RedisAutotuneCache() {
  MutexLock lock(&mu_);
  Disconnect();
}

std::string RedisAutotuneCache::DevicesIndexName(const AutotuneKey& key) {
  return absl::StrCat("xtune:devices:v1:", key.version, ":", Sha256Hex(key.hlo));
}

std::string RedisAutotuneCache::KeyName(const AutotuneKey& key) {
  return absl::StrCat(kPrefix, key.version, ":", Sha256Hex(key.device).substr(0, 16), ":",
                      Sha256Hex(key.hlo));
}

int64_t RedisAutotuneCache::round_trips() const {
  MutexLock lock(&mu_);
  return round_trips_;
}

void RedisAutotuneCache::Disconnect() {
  if (context_ != nullptr) redisFree(context_);
  context_ = nullptr;
}

absl::Status RedisAutotuneCache::Connect() {
  if (context_ != nullptr) return absl::OkStatus();
  const RedisAddress& a = options_.address;
  const std::string where = a.ToString();
  timeval tv = TimevalOf(options_.timeout);
  redisContext* c = a.unix_path.empty()
                        ? redisConnectWithTimeout(a.host.c_str(), a.port, tv)
                        : redisConnectUnixWithTimeout(a.unix_path.c_str(), tv);
  if (c == nullptr) {
    return absl::UnavailableError(absl::StrCat(where, ": cannot allocate a connection"));
  }
  if (c->err != 0) {
    absl::Status s = absl::UnavailableError(
        absl::StrCat(where, ": cannot connect (", c->errstr, ")"));
    redisFree(c);
    return s;
  }
  if (redisSetTimeout(c, tv) != REDIS_OK) {
    redisFree(c);
    return absl::UnavailableError(absl::StrCat(where, ": cannot set the timeout"));
  }
  context_ = c;
  // Credentials and the database, in one round trip.
  std::vector<std::vector<std::string>> hello;
  if (!options_.password.empty()) {
    if (options_.username.empty()) {
      hello.push_back({"AUTH", options_.password});
    } else {
      hello.push_back({"AUTH", options_.username, options_.password});
    }
  }
  if (a.db != 0) hello.push_back({"SELECT", absl::StrCat(a.db)});
  if (hello.empty()) return absl::OkStatus();
  absl::StatusOr<std::vector<Reply>> replies = Run(hello);
  if (!replies.ok()) return replies.status();
  for (const Reply& r : *replies) {
    if (r.type == REDIS_REPLY_ERROR) {
      Disconnect();
      absl::Status s = ErrorReply(where, r.str);
      if (s.code() == absl::StatusCode::kUnknown) return absl::UnavailableError(s.message());
      return s;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<RedisAutotuneCache::Reply>> RedisAutotuneCache::Run(
    const std::vector<std::vector<std::string>>& commands) {
  const std::string where = options_.address.ToString();
  if (context_ == nullptr) XTUNE_RETURN_IF_ERROR(Connect());
  ++round_trips_;
  for (const std::vector<std::string>& cmd : commands) {
    std::vector<const char*> argv;
    std::vector<size_t> lens;
    for (const std::string& s : cmd) {
      argv.push_back(s.data());
      lens.push_back(s.size());
    }
    if (redisAppendCommandArgv(context_, static_cast<int>(argv.size()), argv.data(),
                               lens.data()) != REDIS_OK) {
      Disconnect();
      return absl::UnavailableError(absl::StrCat(where, ": cannot queue a command"));
    }
  }
  std::vector<Reply> out;
  for (size_t i = 0; i < commands.size(); ++i) {
    void* raw = nullptr;
    if (redisGetReply(context_, &raw) != REDIS_OK || raw == nullptr) {
      const int err = context_->err;
      const std::string text = context_->errstr;
      const bool timed_out = err == REDIS_ERR_IO && (errno == EAGAIN || errno == EWOULDBLOCK ||
                                                     absl::StrContains(text, "temporarily"));
      Disconnect();
      if (timed_out) {
        return absl::DeadlineExceededError(absl::StrCat(
            where, ": no answer within ", absl::FormatDuration(options_.timeout)));
      }
      if (err == REDIS_ERR_PROTOCOL) {
        return absl::UnavailableError(absl::StrCat(
            where, ": the answer is not Redis's protocol (", text, ")"));
      }
      return absl::UnavailableError(absl::StrCat(where, ": ", text.empty() ? "connection lost" : text));
    }
    redisReply* r = static_cast<redisReply*>(raw);
    out.push_back(Reply::From(r));
    freeReplyObject(r);
  }
  return out;
}

absl::Status RedisAutotuneCache::FirstError(const std::vector<Reply>& replies) const {
  for (const Reply& r : replies) {
    if (r.type == REDIS_REPLY_ERROR) return ErrorReply(options_.address.ToString(), r.str);
  }
  return absl::OkStatus();
}

std::optional<xla::AutotuneResults::Entry> ParseRedisValue(absl::string_view value) {
  xla::AutotuneResults::Entry entry;
  if (!entry.ParseFromArray(value.data(), static_cast<int>(value.size())) ||
      !entry.has_result()) {
    return std::nullopt;
  }
  return entry;
}

absl::StatusOr<std::optional<CacheHit>> RedisAutotuneCache::Decode(
    const AutotuneKey& key, const std::string& value) const {
  std::optional<xla::AutotuneResults::Entry> parsed = ParseRedisValue(value);
  if (!parsed) {
    return absl::DataLossError(absl::StrCat(
        options_.address.ToString(), ": the value of ", KeyName(key),
        " is not an autotune results entry (", value.size(), " bytes)"));
  }
  xla::AutotuneResults::Entry& entry = *parsed;
  // As stored (an XLA entry keeps its own device and version): its lookup
  // key must be this one.
  if (!(KeyOfEntry(entry, key.version) == key)) return std::optional<CacheHit>();
  CacheHit hit;
  hit.result = std::make_shared<const xla::AutotuneResult>(std::move(*entry.mutable_result()));
  hit.tier = "redis";
  return std::optional<CacheHit>(std::move(hit));
}

absl::StatusOr<std::optional<CacheHit>> RedisAutotuneCache::Lookup(const AutotuneKey& key) {
  const std::string name = KeyName(key);
  std::optional<std::string> value;
  {
    MutexLock lock(&mu_);
    auto it = prefetched_.find(name);
    if (it != prefetched_.end()) {
      value = std::move(it->second);
      prefetched_.erase(it);
      if (!value.has_value()) return std::optional<CacheHit>();
    } else {
      XTUNE_ASSIGN_OR_RETURN(std::vector<Reply> replies, Run({{"GET", name}}));
      const Reply& r = replies[0];
      if (r.type == REDIS_REPLY_NIL) return std::optional<CacheHit>();
      if (r.type == REDIS_REPLY_ERROR) return ErrorReply(options_.address.ToString(), r.str);
      if (r.type != REDIS_REPLY_STRING) {
        return absl::DataLossError(absl::StrCat(options_.address.ToString(),
                                                ": GET answered a non-string"));
      }
      value = r.str;
    }
  }
  return Decode(key, *value);
}

absl::Status RedisAutotuneCache::Prefetch(const std::vector<AutotuneKey>& keys) {
  if (keys.empty()) return absl::OkStatus();
  std::vector<std::string> cmd = {"MGET"};
  for (const AutotuneKey& k : keys) cmd.push_back(KeyName(k));
  MutexLock lock(&mu_);
  XTUNE_ASSIGN_OR_RETURN(std::vector<Reply> replies, Run({cmd}));
  const Reply& r = replies[0];
  if (r.type == REDIS_REPLY_ERROR) return ErrorReply(options_.address.ToString(), r.str);
  if (r.type != REDIS_REPLY_ARRAY || r.elements.size() + 1 != cmd.size()) {
    return absl::UnavailableError(absl::StrCat(options_.address.ToString(),
                                               ": MGET answered something else than its keys"));
  }
  for (size_t i = 0; i < r.elements.size(); ++i) {
    const Reply& e = r.elements[i];
    if (e.type == REDIS_REPLY_STRING) {
      prefetched_[cmd[i + 1]] = e.str;
    } else {
      prefetched_[cmd[i + 1]] = std::nullopt;
    }
  }
  return absl::OkStatus();
}

absl::Status RedisAutotuneCache::Insert(const AutotuneKey& key,
                                        const xla::AutotuneResult& result) {
  xla::AutotuneResults::Entry entry;
  entry.set_device(key.device);
  entry.set_hlo(key.hlo);
  entry.set_version(key.version);
  *entry.mutable_result() = result;
  std::string value;
  if (!entry.SerializeToString(&value)) {
    return absl::InternalError("cannot serialize an autotune results entry");
  }
  const std::string name = KeyName(key);
  std::vector<std::string> cmd = {"SET", name, value};
  if (options_.first_writer_wins) cmd.push_back("NX");
  if (options_.ttl_seconds > 0) {
    cmd.push_back("EX");
    cmd.push_back(absl::StrCat(options_.ttl_seconds));
  }
  MutexLock lock(&mu_);
  prefetched_.erase(name);
  XTUNE_ASSIGN_OR_RETURN(std::vector<Reply> replies,
                         Run({cmd, {"SADD", DevicesIndexName(key), name}}));
  XTUNE_RETURN_IF_ERROR(FirstError(replies));
  return absl::OkStatus();
}

absl::StatusOr<AutotuneCache::Related> RedisAutotuneCache::OtherDevices(const AutotuneKey& key) {
  Related out;
  const std::string own = KeyName(key);
  MutexLock lock(&mu_);
  XTUNE_ASSIGN_OR_RETURN(std::vector<Reply> members,
                         Run({{"SMEMBERS", DevicesIndexName(key)}}));
  if (members[0].type == REDIS_REPLY_ERROR) {
    return ErrorReply(options_.address.ToString(), members[0].str);
  }
  std::vector<std::string> get = {"MGET"};
  for (const Reply& m : members[0].elements) {
    if (m.str != own) get.push_back(m.str);
  }
  if (get.size() == 1) return out;
  XTUNE_ASSIGN_OR_RETURN(std::vector<Reply> values, Run({get}));
  for (const Reply& v : values[0].elements) {
    if (v.type != REDIS_REPLY_STRING) continue;
    std::optional<xla::AutotuneResults::Entry> parsed = ParseRedisValue(v.str);
    if (!parsed) continue;
    const xla::AutotuneResults::Entry& e = *parsed;
    AutotuneKey k = KeyOfEntry(e, key.version);
    if (k.hlo != key.hlo || k.version != key.version || k.device == key.device) continue;
    out.emplace_back(k.device, std::make_shared<const xla::AutotuneResult>(e.result()));
  }
  return out;
}

absl::Status RedisAutotuneCache::Erase(const AutotuneKey& key) {
  const std::string name = KeyName(key);
  MutexLock lock(&mu_);
  prefetched_.erase(name);
  XTUNE_ASSIGN_OR_RETURN(std::vector<Reply> replies, Run({{"DEL", name}}));
  if (replies[0].type == REDIS_REPLY_ERROR) {
    return ErrorReply(options_.address.ToString(), replies[0].str);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::optional<xla::AutotuneResult>>> RedisAutotuneCache::Fetch(
    const std::vector<AutotuneKey>& keys) {
  std::vector<std::optional<xla::AutotuneResult>> out(keys.size());
  if (keys.empty()) return out;
  std::vector<std::string> cmd = {"MGET"};
  for (const AutotuneKey& k : keys) cmd.push_back(KeyName(k));
  std::vector<Reply> replies;
  {
    MutexLock lock(&mu_);
    XTUNE_ASSIGN_OR_RETURN(replies, Run({cmd}));
  }
  const Reply& r = replies[0];
  if (r.type == REDIS_REPLY_ERROR) return ErrorReply(options_.address.ToString(), r.str);
  if (r.type != REDIS_REPLY_ARRAY || r.elements.size() != keys.size()) {
    return absl::UnavailableError(absl::StrCat(options_.address.ToString(),
                                               ": MGET answered something else than its keys"));
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    if (r.elements[i].type != REDIS_REPLY_STRING) continue;
    absl::StatusOr<std::optional<CacheHit>> hit = Decode(keys[i], r.elements[i].str);
    if (hit.ok() && hit->has_value()) out[i] = *(*hit)->result;
  }
  return out;
}

absl::StatusOr<xla::AutotuneResults> RedisAutotuneCache::ReadAll(int64_t* damaged) {
  xla::AutotuneResults out;
  out.set_version(3);
  int64_t bad = 0;
  std::string cursor = "0";
  MutexLock lock(&mu_);
  do {
    XTUNE_ASSIGN_OR_RETURN(
        std::vector<Reply> scan,
        Run({{"SCAN", cursor, "MATCH", absl::StrCat(kPrefix, "*"), "COUNT", "1000"}}));
    const Reply& r = scan[0];
    if (r.type == REDIS_REPLY_ERROR) return ErrorReply(options_.address.ToString(), r.str);
    if (r.type != REDIS_REPLY_ARRAY || r.elements.size() != 2 ||
        r.elements[1].type != REDIS_REPLY_ARRAY) {
      return absl::UnavailableError(
          absl::StrCat(options_.address.ToString(), ": SCAN answered something else"));
    }
    cursor = r.elements[0].str;
    std::vector<std::string> get = {"MGET"};
    for (const Reply& k : r.elements[1].elements) get.push_back(k.str);
    if (get.size() == 1) continue;
    XTUNE_ASSIGN_OR_RETURN(std::vector<Reply> values, Run({get}));
    for (const Reply& v : values[0].elements) {
      if (v.type != REDIS_REPLY_STRING) continue;  // expired meanwhile
      std::optional<xla::AutotuneResults::Entry> e = ParseRedisValue(v.str);
      if (!e) {
        ++bad;
        continue;
      }
      *out.add_results() = std::move(*e);
    }
  } while (cursor != "0");
  if (damaged != nullptr) *damaged = bad;
  SortEntries(&out);
  return out;
}

absl::Status RedisAutotuneCache::WriteAll(const xla::AutotuneResults& results,
                                          int current_version) {
  std::vector<std::vector<std::string>> cmds;
  MutexLock lock(&mu_);
  auto flush = [&]() -> absl::Status {
    if (cmds.empty()) return absl::OkStatus();
    XTUNE_ASSIGN_OR_RETURN(std::vector<Reply> replies, Run(cmds));
    cmds.clear();
    XTUNE_RETURN_IF_ERROR(FirstError(replies));
    return absl::OkStatus();
  };
  for (const xla::AutotuneResults::Entry& e : results.results()) {
    std::string value;
    if (!e.SerializeToString(&value)) return absl::InternalError("cannot serialize an entry");
    const AutotuneKey key = KeyOfEntry(e, current_version);
    cmds.push_back({"SET", KeyName(key), std::move(value)});
    cmds.push_back({"SADD", DevicesIndexName(key), KeyName(key)});
    if (cmds.size() >= 500) XTUNE_RETURN_IF_ERROR(flush());
  }
  prefetched_.clear();
  return flush();
}

absl::Status RedisAutotuneCache::DeleteAll(const xla::AutotuneResults& results,
                                           int current_version) {
  std::vector<std::string> cmd = {"DEL"};
  for (const xla::AutotuneResults::Entry& e : results.results()) {
    cmd.push_back(KeyName(KeyOfEntry(e, current_version)));
  }
  if (cmd.size() == 1) return absl::OkStatus();
  MutexLock lock(&mu_);
  prefetched_.clear();
  XTUNE_ASSIGN_OR_RETURN(std::vector<Reply> replies, Run({cmd}));
  if (replies[0].type == REDIS_REPLY_ERROR) {
    return ErrorReply(options_.address.ToString(), replies[0].str);
  }
  return absl::OkStatus();
}

namespace {

// Renews (PEXPIRE) or deletes a key only while it holds the owner's value.
constexpr char kRenewScript[] =
    "if redis.call('get', KEYS[1]) == ARGV[1] then "
    "return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";
constexpr char kDeleteScript[] =
    "if redis.call('get', KEYS[1]) == ARGV[1] then "
    "return redis.call('del', KEYS[1]) else return 0 end";

int64_t Millis(absl::Duration d) { return std::max<int64_t>(1, absl::ToInt64Milliseconds(d)); }

}  // namespace

absl::StatusOr<std::vector<RedisAutotuneCache::Reply>> RedisAutotuneCache::RunChecked(
    const std::vector<std::vector<std::string>>& commands) {
  if (commands.empty()) return std::vector<Reply>();
  MutexLock lock(&mu_);
  XTUNE_ASSIGN_OR_RETURN(std::vector<Reply> replies, Run(commands));
  XTUNE_RETURN_IF_ERROR(FirstError(replies));
  return replies;
}

absl::StatusOr<std::vector<bool>> RedisAutotuneCache::SetIfAbsent(
    const std::vector<std::string>& names, const std::string& owner, absl::Duration expiry) {
  std::vector<std::vector<std::string>> cmds;
  for (const std::string& n : names) {
    cmds.push_back({"SET", n, owner, "NX", "PX", absl::StrCat(Millis(expiry))});
  }
  XTUNE_ASSIGN_OR_RETURN(std::vector<Reply> replies, RunChecked(cmds));
  std::vector<bool> out;
  for (const Reply& r : replies) out.push_back(r.type == REDIS_REPLY_STATUS);
  return out;
}

absl::Status RedisAutotuneCache::RenewIfOwner(const std::vector<std::string>& names,
                                              const std::string& owner,
                                              absl::Duration expiry) {
  std::vector<std::vector<std::string>> cmds;
  for (const std::string& n : names) {
    cmds.push_back({"EVAL", kRenewScript, "1", n, owner, absl::StrCat(Millis(expiry))});
  }
  return RunChecked(cmds).status();
}

absl::Status RedisAutotuneCache::DeleteIfOwner(const std::vector<std::string>& names,
                                               const std::string& owner) {
  std::vector<std::vector<std::string>> cmds;
  for (const std::string& n : names) cmds.push_back({"EVAL", kDeleteScript, "1", n, owner});
  return RunChecked(cmds).status();
}

absl::StatusOr<std::vector<bool>> RedisAutotuneCache::Exists(
    const std::vector<std::string>& names) {
  std::vector<std::vector<std::string>> cmds;
  for (const std::string& n : names) cmds.push_back({"EXISTS", n});
  XTUNE_ASSIGN_OR_RETURN(std::vector<Reply> replies, RunChecked(cmds));
  std::vector<bool> out;
  for (const Reply& r : replies) out.push_back(r.type == REDIS_REPLY_INTEGER && r.integer > 0);
  return out;
}

}  // namespace xtune
