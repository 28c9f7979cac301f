#include "cache/redis_test_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "absl/strings/str_cat.h"

namespace xtune::testing {
namespace {

std::string RedisServerPath() {
  if (const char* p = std::getenv("XTUNE_REDIS_SERVER"); p != nullptr && *p != '\0') return p;
  const char* path = std::getenv("PATH");
  std::string dirs = path == nullptr ? "/usr/bin:/usr/local/bin" : path;
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string candidate = dirs.substr(start, end - start) + "/redis-server";
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

std::string ReplyText(const redisReply* r) {
  switch (r->type) {
    case REDIS_REPLY_STRING:
    case REDIS_REPLY_STATUS:
      return std::string(r->str, r->len);
    case REDIS_REPLY_ERROR:
      return absl::StrCat("ERR: ", std::string(r->str, r->len));
    case REDIS_REPLY_INTEGER:
      return absl::StrCat(r->integer);
    case REDIS_REPLY_NIL:
      return "(nil)";
    case REDIS_REPLY_ARRAY: {
      std::string out;
      for (size_t i = 0; i < r->elements; ++i) {
        absl::StrAppend(&out, i == 0 ? "" : "\n", ReplyText(r->element[i]));
      }
      return out;
    }
    default:
      return "?";
  }
}

}  // namespace

absl::StatusOr<int> FreeLoopbackPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return absl::InternalError("socket() failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    close(fd);
    return absl::InternalError("cannot bind a loopback port");
  }
  int port = ntohs(addr.sin_port);
  close(fd);
  return port;
}

absl::StatusOr<std::unique_ptr<RedisTestServer>> RedisTestServer::Start(
    const std::vector<std::string>& extra) {
  const std::string binary = RedisServerPath();
  if (binary.empty()) {
    return absl::NotFoundError("redis-server is not installed (scripts/install_deps.sh)");
  }
  for (int attempt = 0; attempt < 5; ++attempt) {
    absl::StatusOr<int> port = FreeLoopbackPort();
    if (!port.ok()) return port.status();
    std::vector<std::string> args = {binary, "--port", absl::StrCat(*port), "--bind",
                                     "127.0.0.1", "--save", "", "--appendonly", "no",
                                     "--daemonize", "no", "--logfile", ""};
    args.insert(args.end(), extra.begin(), extra.end());
    pid_t pid = fork();
    if (pid < 0) return absl::InternalError("fork() failed");
    if (pid == 0) {
      int null = open("/dev/null", O_RDWR);
      if (null >= 0) {
        dup2(null, 1);
        dup2(null, 2);
      }
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(binary.c_str(), argv.data());
      _exit(127);
    }
    std::unique_ptr<RedisTestServer> s(new RedisTestServer());
    s->pid_ = pid;
    s->port_ = *port;
    // Up when it answers; gone when it exited (the port was taken).
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (waitpid(pid, &status, WNOHANG) == pid) {
        s->pid_ = -1;
        break;
      }
      timeval tv{0, 200000};
      redisContext* c = redisConnectWithTimeout("127.0.0.1", *port, tv);
      const bool up = c != nullptr && c->err == 0;
      if (c != nullptr) redisFree(c);
      if (up) return s;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  return absl::InternalError("redis-server did not start on a loopback port");
}

RedisTestServer::~RedisTestServer() { Kill(); }

std::string RedisTestServer::url(int db) const {
  return absl::StrCat("redis://127.0.0.1:", port_, "/", db);
}

void RedisTestServer::Pause() {
  if (pid_ > 0) kill(pid_, SIGSTOP);
}

void RedisTestServer::Resume() {
  if (pid_ > 0) kill(pid_, SIGCONT);
}

void RedisTestServer::Kill() {
  if (pid_ <= 0) return;
  kill(pid_, SIGCONT);
  kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

absl::StatusOr<std::string> RedisTestServer::Command(const std::vector<std::string>& args,
                                                     int db,
                                                     const std::string& password) const {
  timeval tv{2, 0};
  redisContext* c = redisConnectWithTimeout("127.0.0.1", port_, tv);
  if (c == nullptr || c->err != 0) {
    if (c != nullptr) redisFree(c);
    return absl::UnavailableError("cannot connect to the test server");
  }
  redisSetTimeout(c, tv);
  auto run = [&](const std::vector<std::string>& cmd) -> absl::StatusOr<std::string> {
    std::vector<const char*> argv;
    std::vector<size_t> lens;
    for (const std::string& a : cmd) {
      argv.push_back(a.data());
      lens.push_back(a.size());
    }
    void* r = redisCommandArgv(c, static_cast<int>(argv.size()), argv.data(), lens.data());
    if (r == nullptr) return absl::UnavailableError(c->errstr);
    std::string text = ReplyText(static_cast<redisReply*>(r));
    freeReplyObject(r);
    return text;
  };
  absl::StatusOr<std::string> out = std::string();
  if (!password.empty()) out = run({"AUTH", password});
  if (out.ok() && db != 0) out = run({"SELECT", absl::StrCat(db)});
  if (out.ok()) out = run(args);
  redisFree(c);
  return out;
}

}  // namespace xtune::testing
