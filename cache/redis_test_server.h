// For tests: a real redis-server of the test's own, on a free loopback port
// (127.0.0.1 only), without persistence, stopped (SIGKILL) when the object
// goes. Tests skip, saying why, where redis-server is not installed
// (scripts/install_deps.sh installs it).
#ifndef XTUNE_CACHE_REDIS_TEST_SERVER_H_
#define XTUNE_CACHE_REDIS_TEST_SERVER_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace xtune::testing {

class RedisTestServer {
 public:
  // Starts `redis-server` (found on PATH, or $XTUNE_REDIS_SERVER) with
  // `extra` arguments and waits until it answers. NotFound when there is no
  // redis-server.
  static absl::StatusOr<std::unique_ptr<RedisTestServer>> Start(
      const std::vector<std::string>& extra = {});
  ~RedisTestServer();

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  // redis://127.0.0.1:PORT/DB
  std::string url(int db = 0) const;

  void Pause();   // SIGSTOP
  void Resume();  // SIGCONT
  void Kill();    // SIGKILL, and reaped

  // Runs one command on database `db` (with `password` when set) and
  // returns its answer as text: a string or status as it is, an integer in
  // decimal, nil as "(nil)", an error as "ERR: ...", an array's elements
  // one per line.
  absl::StatusOr<std::string> Command(const std::vector<std::string>& args, int db = 0,
                                      const std::string& password = "") const;

 private:
  RedisTestServer() = default;
  pid_t pid_ = -1;
  int port_ = 0;
};

// A free TCP port on 127.0.0.1 (bound, then released).
absl::StatusOr<int> FreeLoopbackPort();

}  // namespace xtune::testing

// In a GoogleTest test: starts a server (RedisTestServer::Start with the
// optional arguments) as `var`, a RedisTestServer&, or skips the test,
// saying why, where redis-server is not installed.
#define XTUNE_START_REDIS_OR_SKIP(var, ...)                                   \
  absl::StatusOr<std::unique_ptr<::xtune::testing::RedisTestServer>> var##_or = \
      ::xtune::testing::RedisTestServer::Start(__VA_ARGS__);                  \
  if (absl::IsNotFound(var##_or.status())) GTEST_SKIP() << var##_or.status(); \
  ASSERT_TRUE(var##_or.ok()) << var##_or.status();                            \
  ::xtune::testing::RedisTestServer& var = **var##_or

#endif  // XTUNE_CACHE_REDIS_TEST_SERVER_H_
