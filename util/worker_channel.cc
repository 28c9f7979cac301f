#include "util/worker_channel.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "util/status_macros.h"
#include "util/wire.h"

namespace xtune {
namespace {

bool ReadAll(int fd, void* data, size_t n) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    ssize_t r = read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

bool WriteAll(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

}  // namespace

absl::Status SendWorkerMessage(WorkerProcess& w, const std::string& bytes,
                               absl::Time deadline) {
  int64_t n = static_cast<int64_t>(bytes.size());
  XTUNE_RETURN_IF_ERROR(w.Send(&n, sizeof(n), deadline));
  return w.Send(bytes.data(), bytes.size(), deadline);
}

absl::StatusOr<WorkerReply> ReceiveWorkerReply(WorkerProcess& w,
                                               absl::Time deadline) {
  int64_t n = 0;
  XTUNE_RETURN_IF_ERROR(w.Receive(&n, sizeof(n), deadline));
  if (n < 0 || n > kMaxWorkerMessageBytes) {
    w.Kill();
    return absl::InternalError("the worker sent a malformed reply");
  }
  std::string bytes(static_cast<size_t>(n), '\0');
  XTUNE_RETURN_IF_ERROR(w.Receive(bytes.data(), bytes.size(), deadline));
  WireReader r(bytes);
  WorkerReply reply;
  reply.status = r.Int();
  int64_t count = r.Int();
  reply.message = r.Str();
  if (r.failed() || count < 0 || count > (int64_t{1} << 24)) {
    w.Kill();
    return absl::InternalError("the worker sent a malformed reply");
  }
  for (int64_t i = 0; i < count; ++i) reply.seconds.push_back(r.Double());
  if (r.failed()) {
    w.Kill();
    return absl::InternalError("the worker sent a malformed reply");
  }
  return reply;
}

bool ReadWorkerMessage(int fd, std::string* out) {
  int64_t n = 0;
  if (!ReadAll(fd, &n, sizeof(n)) || n < 0 || n > kMaxWorkerMessageBytes) {
    return false;
  }
  out->resize(static_cast<size_t>(n));
  return ReadAll(fd, out->data(), out->size());
}

bool WriteWorkerReply(int fd, int64_t status,
                      const std::vector<double>& seconds,
                      const std::string& message) {
  WireWriter w;
  w.Int(status);
  w.Int(static_cast<int64_t>(seconds.size()));
  w.Str(message);
  for (double s : seconds) w.Double(s);
  int64_t n = static_cast<int64_t>(w.bytes().size());
  return WriteAll(fd, &n, sizeof(n)) &&
         WriteAll(fd, w.bytes().data(), w.bytes().size());
}

void EncodeWorkerLayout(const WorkerLayout& l, WireWriter* w) {
  w->Int(l.shared_bytes);
  w->Int(static_cast<int64_t>(l.inputs.size()));
  for (const auto& [offset, bytes] : l.inputs) {
    w->Int(offset);
    w->Int(bytes);
  }
  w->Int(l.output_offset);
  w->Int(l.output_bytes);
}

bool DecodeWorkerLayout(WireReader* r, WorkerLayout* l) {
  l->shared_bytes = r->Int();
  int64_t n = r->Int();
  if (l->shared_bytes < 0 || n < 0 || n > 4096) return false;
  for (int64_t i = 0; i < n && !r->failed(); ++i) {
    int64_t offset = r->Int();
    int64_t size = r->Int();
    l->inputs.push_back({offset, size});
  }
  l->output_offset = r->Int();
  l->output_bytes = r->Int();
  if (r->failed()) return false;
  auto inside = [&](int64_t offset, int64_t size) {
    return offset >= 0 && size >= 0 && offset <= l->shared_bytes &&
           size <= l->shared_bytes - offset;
  };
  for (const auto& [offset, size] : l->inputs) {
    if (!inside(offset, size)) return false;
  }
  return inside(l->output_offset, l->output_bytes);
}

bool StartWorker(int argc, char** argv) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  return !(argc >= 2 && std::strncmp(argv[1], "--parent=", 9) == 0 &&
           std::atoll(argv[1] + 9) != static_cast<long long>(getppid()));
}

absl::StatusOr<SharedMemory> MapWorkerMemory(int fd, int64_t bytes) {
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size < bytes) {
    return absl::InvalidArgumentError(
        "the shared memory is smaller than the setup");
  }
  return SharedMemory::Map(fd, static_cast<size_t>(bytes));
}

}  // namespace xtune
