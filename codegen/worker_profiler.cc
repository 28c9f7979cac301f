#include "codegen/worker_profiler.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "util/status_macros.h"
#include "util/wire.h"
#include "util/worker_channel.h"

namespace xtune {
namespace {

// Start-up and setup of a worker: generous, since a loaded machine may be
// slow to exec (and a GPU worker creates a context), but bounded.
constexpr absl::Duration kStartTimeout = absl::Seconds(60);

int64_t Align(int64_t n) { return (n + 63) / 64 * 64; }

}  // namespace

WorkerProfiler::~WorkerProfiler() { EndFusion(); }

absl::Status WorkerProfiler::BeginFusion(absl::Span<Kernel* const> kernels,
                                         absl::Span<const Literal> inputs,
                                         const Shape& output_shape) {
  EndFusion();
  layout_ = WorkerLayout();
  int64_t offset = 0;
  for (const Literal& l : inputs) {
    int64_t bytes = static_cast<int64_t>(l.bytes().size());
    layout_.inputs.push_back({offset, bytes});
    offset += Align(bytes);
  }
  // The output starts on a page of its own: a CPU worker makes the inputs
  // read-only, so a kernel that writes them crashes instead of corrupting
  // them for every later candidate.
  int64_t page = sysconf(_SC_PAGESIZE);
  offset = (offset + page - 1) / page * page;
  layout_.output_offset = offset;
  layout_.output_bytes = output_shape.ByteSize();
  layout_.shared_bytes =
      offset + Align(std::max<int64_t>(layout_.output_bytes, 1));
  runnable_.clear();
  setup_ = SetupMessage(kernels, layout_, &runnable_);
  runnable_.resize(kernels.size(), false);
  XTUNE_ASSIGN_OR_RETURN(shared_, SharedMemory::Create(static_cast<size_t>(
                                      layout_.shared_bytes)));
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::memcpy(shared_.data() + layout_.inputs[i].first,
                inputs[i].bytes().data(), inputs[i].bytes().size());
  }
  kernels_.assign(kernels.begin(), kernels.end());
  output_shape_ = output_shape;
  in_session_ = true;
  return absl::OkStatus();
}

void WorkerProfiler::EndFusion() {
  worker_.reset();
  shared_ = SharedMemory();
  kernels_.clear();
  in_session_ = false;
}

absl::Status WorkerProfiler::StartWorker(absl::Time deadline) {
  worker_.reset();
  if (worker_path_.empty()) {
    XTUNE_ASSIGN_OR_RETURN(worker_path_, FindWorker());  // Unavailable
  }
  // A program that cannot be started at all is Unavailable (nothing can be
  // timed), as is one that cannot reach its device; one that starts and
  // then dies or refuses the setup is Aborted (a failure of this attempt:
  // the caller may try again).
  XTUNE_ASSIGN_OR_RETURN(
      worker_, WorkerProcess::Spawn(
                   {worker_path_, absl::StrCat("--parent=", getpid())},
                   shared_.fd()));
  ++workers_started_;
  absl::Status sent = SendWorkerMessage(*worker_, setup_, deadline);
  absl::StatusOr<WorkerReply> ready =
      sent.ok() ? ReceiveWorkerReply(*worker_, deadline) : sent;
  if (!ready.ok() || ready->status != kWorkerOk) {
    std::string why = ready.ok() ? ready->message
                                 : std::string(ready.status().message());
    bool no_device = ready.ok() && ready->status == kWorkerNoDevice;
    worker_.reset();
    std::string message = absl::StrCat("the profiling worker '", worker_path_,
                                       "' did not start: ", why);
    return no_device ? absl::UnavailableError(message)
                     : absl::AbortedError(message);
  }
  return absl::OkStatus();
}

absl::StatusOr<ProfileResult> WorkerProfiler::Profile(
    Kernel& kernel, const KernelConfig& config, absl::Span<const Literal> inputs,
    const Shape& output_shape, const ProfileOptions& options) {
  int64_t index = -1;
  if (in_session_) {
    auto it = std::find(kernels_.begin(), kernels_.end(), &kernel);
    if (it == kernels_.end()) {
      return absl::InternalError("kernel is not part of the current session");
    }
    index = it - kernels_.begin();
  } else {
    // No session: a one-off worker for this kernel.
    Kernel* one[] = {&kernel};
    XTUNE_RETURN_IF_ERROR(BeginFusion(one, inputs, output_shape));
    absl::StatusOr<ProfileResult> r =
        Profile(kernel, config, inputs, output_shape, options);
    EndFusion();
    return r;
  }
  if (!runnable_[index]) return absl::InvalidArgumentError(ForeignKernelError());
  // A worker that died since its last reply (killed between commands) is
  // no fault of this candidate: it gets a fresh one.
  if (worker_ != nullptr && !worker_->Alive()) worker_.reset();
  if (worker_ == nullptr) {
    absl::Status started = StartWorker(absl::Now() + kStartTimeout);
    if (started.code() == absl::StatusCode::kAborted) {
      started = StartWorker(absl::Now() + kStartTimeout);  // once more
    }
    XTUNE_RETURN_IF_ERROR(started);
  }
  // Poison the output: NaN for floats, all ones for integers.
  std::memset(shared_.data() + layout_.output_offset, 0xFF,
              static_cast<size_t>(layout_.output_bytes));
  WireWriter cmd;
  cmd.Int(index);
  cmd.Int(options.min_repetitions);
  cmd.Int(options.max_repetitions);
  cmd.Int(absl::ToInt64Nanoseconds(options.time_budget));
  cmd.Int(options.flush_bytes > 0 ? 1 : 0);
  cmd.Int(options.min_warmup_runs);
  absl::Time deadline = absl::Now() + options.timeout;
  absl::Status sent = SendWorkerMessage(*worker_, cmd.bytes(), deadline);
  absl::StatusOr<WorkerReply> reply =
      sent.ok() ? ReceiveWorkerReply(*worker_, deadline) : sent;
  if (!reply.ok()) {
    // Hung (killed by Receive), crashed or killed: this candidate failed;
    // the next command starts a fresh worker.
    worker_.reset();
    if (reply.status().code() == absl::StatusCode::kDeadlineExceeded) {
      return absl::DeadlineExceededError(absl::StrCat(
          "still running after ", absl::FormatDuration(options.timeout),
          ": killed"));
    }
    return reply.status();
  }
  switch (reply->status) {
    case kWorkerOk:
      break;
    case kWorkerLoadFailed:
      return absl::InternalError(
          absl::StrCat("the worker cannot load the kernel: ", reply->message));
    case kWorkerKernelError:
      worker_.reset();  // its device context may be unusable now
      return absl::InternalError(
          absl::StrCat("the kernel failed in the worker: ", reply->message));
    default:
      return absl::InternalError(
          absl::StrCat("the worker refused the command: ", reply->message));
  }
  ProfileResult result;
  result.seconds = std::move(reply->seconds);
  result.output = Literal(output_shape_);
  std::memcpy(result.output.bytes().data(),
              shared_.data() + layout_.output_offset,
              result.output.bytes().size());
  return result;
}

}  // namespace xtune
