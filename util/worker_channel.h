// The framing both ends of a profiling worker speak (codegen/cpu/ and
// codegen/cuda/ workers): every message is an int64 length and that many
// bytes (util/wire.h fields); a reply is `status count message
// {seconds}...`. The compiler's side talks through a WorkerProcess with
// deadlines; the worker's side reads and writes its request fd, blocking.
#ifndef XTUNE_UTIL_WORKER_CHANNEL_H_
#define XTUNE_UTIL_WORKER_CHANNEL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "util/worker_process.h"

namespace xtune {

// The largest message either side accepts.
inline constexpr int64_t kMaxWorkerMessageBytes = int64_t{64} << 20;

// Status codes of worker replies (every worker).
enum WorkerStatus : int64_t {
  kWorkerOk = 0,
  kWorkerLoadFailed = 1,   // the kernel cannot be loaded
  kWorkerKernelError = 2,  // it ran and failed (a GPU fault, ...)
  kWorkerBadRequest = 3,
  kWorkerNoDevice = 4,  // the worker cannot reach its device
};

struct WorkerReply {
  int64_t status = 0;  // the worker protocol's status codes; 0 = ok
  std::vector<double> seconds;
  std::string message;
};

// ---- The compiler's side.
// Sends one message before `deadline` (WorkerProcess::Send's errors).
absl::Status SendWorkerMessage(WorkerProcess& w, const std::string& bytes,
                               absl::Time deadline);
// Receives one reply before `deadline`: WorkerProcess::Receive's errors,
// or Internal for a malformed reply (the worker is then killed).
absl::StatusOr<WorkerReply> ReceiveWorkerReply(WorkerProcess& w,
                                               absl::Time deadline);

// ---- The worker's side, on its request fd.
// One message; false at EOF, on a read error or an absurd length.
bool ReadWorkerMessage(int fd, std::string* out);
// Writes a reply; false when the compiler is gone.
bool WriteWorkerReply(int fd, int64_t status,
                      const std::vector<double>& seconds,
                      const std::string& message);

}  // namespace xtune

#endif  // XTUNE_UTIL_WORKER_CHANNEL_H_
