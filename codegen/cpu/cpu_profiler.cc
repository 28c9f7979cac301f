#include "codegen/cpu/cpu_profiler.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "codegen/cpu/cpu_kernel.h"
#include "codegen/cpu/worker_path.h"
#include "util/status_macros.h"

namespace xtune::cpu {
namespace {

// Start-up and setup of a worker: generous, since a loaded machine may be
// slow to exec, but bounded.
constexpr absl::Duration kStartTimeout = absl::Seconds(60);

int64_t Align(int64_t n) { return (n + 63) / 64 * 64; }

absl::Status SendMessage(WorkerProcess& w, const std::string& bytes,
                         absl::Time deadline) {
  int64_t n = static_cast<int64_t>(bytes.size());
  XTUNE_RETURN_IF_ERROR(w.Send(&n, sizeof(n), deadline));
  return w.Send(bytes.data(), bytes.size(), deadline);
}

struct WorkerReply {
  int64_t status = 0;
  std::vector<double> seconds;
  std::string message;
};

absl::StatusOr<WorkerReply> ReceiveReply(WorkerProcess& w,
                                         absl::Time deadline) {
  int64_t n = 0;
  XTUNE_RETURN_IF_ERROR(w.Receive(&n, sizeof(n), deadline));
  if (n < 0 || n > (int64_t{64} << 20)) {
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

}  // namespace

CpuProfiler::CpuProfiler(std::string worker, int threads, int64_t flush_bytes)
    : worker_path_(std::move(worker)),
      threads_(threads),
      flush_bytes_(flush_bytes) {}

CpuProfiler::~CpuProfiler() { EndFusion(); }

absl::Status CpuProfiler::BeginFusion(absl::Span<Kernel* const> kernels,
                                      absl::Span<const Literal> inputs,
                                      const Shape& output_shape) {
  EndFusion();
  setup_ = WorkerSetup();
  setup_.threads = threads_;
  setup_.flush_bytes = flush_bytes_;
  int64_t offset = 0;
  for (const Literal& l : inputs) {
    int64_t bytes = static_cast<int64_t>(l.bytes().size());
    setup_.inputs.push_back({offset, bytes});
    offset += Align(bytes);
  }
  // The output starts on a page of its own: the worker makes the inputs
  // read-only, so a kernel that writes them crashes instead of corrupting
  // them for every later candidate.
  int64_t page = sysconf(_SC_PAGESIZE);
  offset = (offset + page - 1) / page * page;
  setup_.output_offset = offset;
  setup_.output_bytes = output_shape.ByteSize();
  setup_.shared_bytes = offset + Align(std::max<int64_t>(setup_.output_bytes, 1));
  for (Kernel* k : kernels) {
    WorkerKernel wk;
    if (auto* cpu = dynamic_cast<CpuKernel*>(k)) {
      wk.path = cpu->object().path();
      wk.sha256 = cpu->object().sha256();
      wk.values = cpu->values();
    }
    setup_.kernels.push_back(std::move(wk));
  }
  XTUNE_ASSIGN_OR_RETURN(shared_, SharedMemory::Create(static_cast<size_t>(
                                      setup_.shared_bytes)));
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::memcpy(shared_.data() + setup_.inputs[i].first,
                inputs[i].bytes().data(), inputs[i].bytes().size());
  }
  kernels_.assign(kernels.begin(), kernels.end());
  output_shape_ = output_shape;
  in_session_ = true;
  return absl::OkStatus();
}

void CpuProfiler::EndFusion() {
  worker_.reset();
  shared_ = SharedMemory();
  kernels_.clear();
  in_session_ = false;
}

absl::Status CpuProfiler::StartWorker(absl::Time deadline) {
  worker_.reset();
  if (worker_path_.empty()) {
    XTUNE_ASSIGN_OR_RETURN(worker_path_, FindCpuWorker());  // Unavailable
  }
  // A program that cannot be started at all is Unavailable (nothing can be
  // timed); one that starts and then dies or refuses the setup is Aborted
  // (a failure of this attempt: the caller may try again).
  XTUNE_ASSIGN_OR_RETURN(
      worker_, WorkerProcess::Spawn(
                   {worker_path_, absl::StrCat("--parent=", getpid())},
                   shared_.fd()));
  ++workers_started_;
  absl::Status sent = SendMessage(*worker_, EncodeSetup(setup_), deadline);
  absl::StatusOr<WorkerReply> ready =
      sent.ok() ? ReceiveReply(*worker_, deadline) : sent;
  if (!ready.ok() || ready->status != kWorkerOk) {
    std::string why = ready.ok() ? ready->message
                                 : std::string(ready.status().message());
    worker_.reset();
    return absl::AbortedError(absl::StrCat(
        "the profiling worker '", worker_path_, "' did not start: ", why));
  }
  return absl::OkStatus();
}

absl::StatusOr<ProfileResult> CpuProfiler::Profile(
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
  if (setup_.kernels[index].path.empty()) {
    return absl::InvalidArgumentError(
        "the CPU profiler times only the CPU backend's kernels");
  }
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
  std::memset(shared_.data() + setup_.output_offset, 0xFF,
              static_cast<size_t>(setup_.output_bytes));
  WireWriter cmd;
  cmd.Int(index);
  cmd.Int(options.min_repetitions);
  cmd.Int(options.max_repetitions);
  cmd.Int(absl::ToInt64Nanoseconds(options.time_budget));
  cmd.Int(options.flush_bytes > 0 ? 1 : 0);
  absl::Time deadline = absl::Now() + options.timeout;
  absl::Status sent = SendMessage(*worker_, cmd.bytes(), deadline);
  absl::StatusOr<WorkerReply> reply =
      sent.ok() ? ReceiveReply(*worker_, deadline) : sent;
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
  if (reply->status == kWorkerLoadFailed) {
    return absl::InternalError(
        absl::StrCat("the worker cannot load the kernel: ", reply->message));
  }
  if (reply->status != kWorkerOk) {
    return absl::InternalError(
        absl::StrCat("the worker refused the command: ", reply->message));
  }
  ProfileResult result;
  result.seconds = std::move(reply->seconds);
  result.output = Literal(output_shape_);
  std::memcpy(result.output.bytes().data(),
              shared_.data() + setup_.output_offset,
              result.output.bytes().size());
  return result;
}

}  // namespace xtune::cpu
