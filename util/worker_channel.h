// The framing both ends of a profiling worker speak (codegen/cpu/ and
// codegen/cuda/ workers): every message is an int64 length and that many
// bytes (util/wire.h fields); a reply is `status count message
// {seconds}...`. The compiler's side talks through a WorkerProcess with
// deadlines; the worker's side reads and writes its request fd, blocking.
#ifndef XTUNE_UTIL_WORKER_CHANNEL_H_
#define XTUNE_UTIL_WORKER_CHANNEL_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "util/shared_memory.h"
#include "util/wire.h"
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

// Where a fusion session's buffers are in the shared memory a worker maps
// as fd 4: the inputs, then the output on a page of its own.
struct WorkerLayout {
  int64_t shared_bytes = 0;
  std::vector<std::pair<int64_t, int64_t>> inputs;  // offset, bytes
  int64_t output_offset = 0;
  int64_t output_bytes = 0;
};

// `shared_bytes n {offset bytes}*n output_offset output_bytes`.
void EncodeWorkerLayout(const WorkerLayout& layout, WireWriter* w);
// False for a truncated layout, more than 4096 inputs, or a buffer outside
// the shared memory.
bool DecodeWorkerLayout(WireReader* r, WorkerLayout* layout);

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
// A worker's first call: it dies with the compiler that started it
// (PR_SET_PDEATHSIG) and returns false when argv's --parent=PID is no
// longer its parent (the compiler died before; not "parent is pid 1": the
// compiler may be pid 1 in a container).
bool StartWorker(int argc, char** argv);
// Maps the session's shared memory (fd `fd`, at least `bytes` long).
absl::StatusOr<SharedMemory> MapWorkerMemory(int fd, int64_t bytes);

}  // namespace xtune

#endif  // XTUNE_UTIL_WORKER_CHANNEL_H_
