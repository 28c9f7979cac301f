#include "util/file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace xtune {
namespace {

absl::Status ErrnoError(int err, absl::string_view what,
                        const std::string& path) {
  std::string message = absl::StrCat(what, " '", path, "': ", strerror(err));
  switch (err) {
    case ENOENT:
      return absl::NotFoundError(message);
    case EACCES:
    case EPERM:
    case EROFS:
      return absl::PermissionDeniedError(message);
    case EISDIR:
    case ENOTDIR:
      return absl::InvalidArgumentError(message);
    default:
      return absl::UnavailableError(message);
  }
}

}  // namespace

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError(errno, "cannot open", path);
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    close(fd);
    return absl::InvalidArgumentError(
        absl::StrCat("'", path, "' is a directory, not a file"));
  }
  std::string data;
  char buffer[1 << 16];
  while (true) {
    ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      close(fd);
      return ErrnoError(err, "cannot read", path);
    }
    if (n == 0) break;
    data.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return data;
}

std::string ThisHostLabel() {
  char host[256] = {0};
  if (gethostname(host, sizeof(host) - 1) != 0 || host[0] == '\0') return "localhost";
  // The name is parsed back at its dots: keep the host's first label.
  std::string h(host);
  return h.substr(0, h.find('.'));
}

bool ProcessIsGone(int64_t pid) {
  if (pid <= 0) return false;
  return kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

int RemoveStaleTemporaries(const std::string& dir, absl::string_view only_for) {
  std::error_code ec;
  std::filesystem::directory_iterator it(dir.empty() ? "." : dir, ec);
  if (ec) return 0;
  const std::string host = ThisHostLabel();
  int removed = 0;
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const std::string name = it->path().filename().string();
    // ".NAME.tmp.HOST.PID.N"
    if (name.size() < 2 || name[0] != '.') continue;
    size_t n_dot = name.rfind('.');
    if (n_dot == std::string::npos || n_dot == 0) continue;
    size_t pid_dot = name.rfind('.', n_dot - 1);
    if (pid_dot == std::string::npos || pid_dot == 0) continue;
    size_t host_dot = name.rfind('.', pid_dot - 1);
    if (host_dot == std::string::npos || host_dot < 5) continue;
    if (name.compare(host_dot - 4, 4, ".tmp") != 0) continue;
    if (name.compare(host_dot + 1, pid_dot - host_dot - 1, host) != 0) continue;
    if (!only_for.empty() && name.compare(1, host_dot - 5, only_for.data(), only_for.size()) != 0) {
      continue;
    }
    int64_t pid = 0;
    if (!absl::SimpleAtoi(absl::string_view(name).substr(pid_dot + 1, n_dot - pid_dot - 1), &pid) ||
        pid <= 0 || pid == getpid()) {
      continue;
    }
    // Gone: no such process. (A live one, or one of another user, stays.)
    if (!ProcessIsGone(pid)) continue;
    if (unlink(it->path().c_str()) == 0) ++removed;
  }
  return removed;
}

absl::Status WriteFileAtomically(const std::string& path,
                                 absl::string_view contents,
                                 const std::string& tmp_dir) {
  std::filesystem::path target(path);
  std::filesystem::path dir =
      tmp_dir.empty() ? target.parent_path() : std::filesystem::path(tmp_dir);
  if (dir.empty()) dir = ".";
  // A unique name beside the target: same file system, so rename is atomic.
  std::random_device rd;
  std::string tmp = (dir / absl::StrCat(".", target.filename().string(), ".tmp.", ThisHostLabel(),
                                        ".", getpid(), ".", rd()))
                        .string();
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoError(errno, "cannot create temporary file", tmp);
  size_t written = 0;
  while (written < contents.size()) {
    ssize_t n = write(fd, contents.data() + written, contents.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      close(fd);
      unlink(tmp.c_str());
      return ErrnoError(err, "cannot write", tmp);
    }
    written += static_cast<size_t>(n);
  }
  int err = fsync(fd) != 0 ? errno : 0;
  if (close(fd) != 0 && err == 0) err = errno;  // always closed
  if (err != 0) {
    unlink(tmp.c_str());
    return ErrnoError(err, "cannot flush", tmp);
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    unlink(tmp.c_str());
    return ErrnoError(err, "cannot rename temporary file onto", path);
  }
  return absl::OkStatus();
}

absl::StatusOr<FileLock> FileLock::Acquire(const std::string& lock_path) {
  int fd = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoError(errno, "cannot open lock file", lock_path);
  while (flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    int err = errno;
    close(fd);
    return ErrnoError(err, "cannot lock", lock_path);
  }
  return FileLock(fd);
}

FileLock& FileLock::operator=(FileLock&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

FileLock::~FileLock() {
  if (fd_ >= 0) close(fd_);  // releases the flock
}

absl::Status CreateDirectories(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) {
    return ErrnoError(ec.value(), "cannot create directory", path);
  }
  if (!std::filesystem::is_directory(path, ec)) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", path, "' exists and is not a directory"));
  }
  return absl::OkStatus();
}

std::string KernelCacheRoot(const std::string& configured) {
  if (!configured.empty()) return configured;
  const char* env = getenv("XTUNE_CACHE_DIR");
  if (env != nullptr && *env != '\0') return env;
  env = getenv("XDG_CACHE_HOME");
  if (env != nullptr && *env != '\0') return absl::StrCat(env, "/xtune");
  env = getenv("HOME");
  if (env != nullptr && *env != '\0') return absl::StrCat(env, "/.cache/xtune");
  return "";
}

}  // namespace xtune
