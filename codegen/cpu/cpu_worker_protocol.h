// The messages between CpuProfiler (codegen/cpu/cpu_profiler.h) and the
// xtune_cpu_worker program (cpu_worker_main.cc). The worker reads requests
// from fd 3 (a socket) and maps the shared memory of fd 4, which holds the
// fusion's inputs and output at the offsets the setup names. Every field is
// an int64 in host byte order (both ends run on one machine); a string is
// its length and its bytes.
//
//   setup   (to worker):  kSetupMagic threads flush_bytes shared_bytes
//                         inputs {offset bytes}... output_offset output_bytes
//                         kernels {path sha256 symbol values {v}...}...
//   command (to worker):  kernel min_repetitions max_repetitions budget_ns
//                         flush
//   reply   (from worker, to both): status count message {seconds}...
//
// Kernels are loaded lazily (on their first command) from `path`, refused
// unless their bytes hash to `sha256`; `symbol` is the entry point (several
// kernels of a bundle share one object).
#ifndef XTUNE_CODEGEN_CPU_CPU_WORKER_PROTOCOL_H_
#define XTUNE_CODEGEN_CPU_CPU_WORKER_PROTOCOL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "util/wire.h"
#include "util/worker_channel.h"

namespace xtune::cpu {

// "xtw2"; v2: kernels carry their symbol.
inline constexpr int64_t kSetupMagic = 0x78747732;

struct WorkerKernel {
  std::string path;
  std::string sha256;
  std::string symbol;
  std::vector<int64_t> values;
};

struct WorkerSetup {
  int64_t threads = 0;
  int64_t flush_bytes = 0;
  WorkerLayout layout;
  std::vector<WorkerKernel> kernels;
};

struct WorkerCommand {
  int64_t kernel = 0;
  int64_t min_repetitions = 0;
  int64_t max_repetitions = 0;
  int64_t budget_ns = 0;
  int64_t flush = 0;
  int64_t min_warmup_runs = 3;
};

inline std::string EncodeSetup(const WorkerSetup& s) {
  WireWriter w;
  w.Int(kSetupMagic);
  w.Int(s.threads);
  w.Int(s.flush_bytes);
  EncodeWorkerLayout(s.layout, &w);
  w.Int(static_cast<int64_t>(s.kernels.size()));
  for (const WorkerKernel& k : s.kernels) {
    w.Str(k.path);
    w.Str(k.sha256);
    w.Str(k.symbol);
    w.Int(static_cast<int64_t>(k.values.size()));
    for (int64_t v : k.values) w.Int(v);
  }
  return w.bytes();
}

// False when the bytes are not a whole, sane setup.
inline bool DecodeSetup(const std::string& bytes, WorkerSetup* s) {
  WireReader r(bytes);
  if (r.Int() != kSetupMagic) return false;
  s->threads = r.Int();
  s->flush_bytes = r.Int();
  if (s->threads < 0 || s->threads > 4096 || s->flush_bytes < 0 ||
      s->flush_bytes > (int64_t{1} << 32) || !DecodeWorkerLayout(&r, &s->layout)) {
    return false;
  }
  int64_t kernels = r.Int();
  if (kernels < 0 || kernels > 100000) return false;
  for (int64_t i = 0; i < kernels && !r.failed(); ++i) {
    WorkerKernel k;
    k.path = r.Str();
    k.sha256 = r.Str();
    k.symbol = r.Str();
    int64_t values = r.Int();
    if (values < 0 || values > 64) return false;
    for (int64_t j = 0; j < values; ++j) k.values.push_back(r.Int());
    s->kernels.push_back(std::move(k));
  }
  return !r.failed() && r.done();
}

}  // namespace xtune::cpu

#endif  // XTUNE_CODEGEN_CPU_CPU_WORKER_PROTOCOL_H_
