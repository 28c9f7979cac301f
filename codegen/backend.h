// The codegen backend interface: everything the compile path, the
// autotuner and the executable know of a device. A backend
// - describes its device (the device string of cache keys),
// - lists candidate kernel configs for a fusion and compiles (fusion,
//   config) into a Kernel,
// - owns its config vocabulary: the codec between its KernelConfigs and the
//   keys of XLA's AutotuneResult, its reading of
//   --xla_gpu_override_gemm_autotuner, and which candidates are library
//   calls,
// - supplies the profiler that times its kernels (in worker processes for
//   real devices),
// - allocates, fills, reads and frees its buffers.
// Backends are made by name through codegen/registry.h. The CPU backend
// generates C++ (codegen/cpu/), the interpreter runs the reference evaluator
// (codegen/interpreter/); FakeBackend (fake_backend.h) scripts everything
// for tests.
#ifndef XTUNE_CODEGEN_BACKEND_H_
#define XTUNE_CODEGEN_BACKEND_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "cache/autotune_results.pb.h"
#include "codegen/device_buffer.h"
#include "codegen/kernel_config.h"
#include "ir/instruction.h"

namespace xtune {

class Profiler;

// A compiled kernel for one fusion and one config. Run() computes the
// fusion: `inputs` are the fusion's operands in order, each in the physical
// layout of its shape; `output` receives the fusion's result in the layout
// of its shape. All are buffers of the backend that compiled the kernel and
// must not alias, except that the output may be the buffer of the input
// that InPlaceOperand(fusion) names (fusion/in_place.h): the result is the
// same either way. Thread-compatible: one Run at a time per kernel.
class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual absl::Status Run(absl::Span<const DeviceBuffer> inputs,
                           DeviceBuffer output) = 0;
};

// Thread-safety: Compile() and the const members may be called from any
// thread; the buffer functions too. Everything else from one thread.
class Backend {
 public:
  virtual ~Backend() = default;

  // The registered name: "cpu", "interpreter", "fake", ...
  virtual std::string name() const = 0;

  // The device string of cache keys (DESIGN §7.2): what makes tuning
  // results transferable between machines of the same type.
  virtual std::string DeviceDescription() const = 0;

  // ---- Candidates and compiling.

  // Candidate configs for `fusion` (a fusion instruction whose fused
  // computation the backend can compile), in canonical order, deduplicated
  // and clamped to the problem shape. `exhaustive` asks for the full space.
  virtual std::vector<KernelConfig> Candidates(const Instruction& fusion,
                                               bool exhaustive) const = 0;

  // The config a shape heuristic picks without tuning; always among
  // Candidates(fusion, false).
  virtual KernelConfig DefaultConfig(const Instruction& fusion) const = 0;

  // Whether the backend can run `config` for `fusion`: its kind and
  // parameters are ones the generators take, within bounds that keep the
  // kernel's memory sane. Configs can come from outside the search space
  // (a loaded cache file, --config), so Compile() checks this first and the
  // autotuner checks cached configs with it. InvalidArgument naming the
  // problem. Default: the config is one of Candidates(fusion, true).
  virtual absl::Status CheckConfig(const Instruction& fusion,
                                   const KernelConfig& config) const;

  // Compiles one candidate. Thread-safe: the autotuner calls it from a pool.
  // Errors: InvalidArgument (the config does not fit this fusion, or the
  // generated source failed to compile, with the compiler's first lines),
  // Unimplemented (the fusion uses something the backend cannot generate),
  // Unavailable (no compiler / device).
  virtual absl::StatusOr<std::unique_ptr<Kernel>> Compile(
      const Instruction& fusion, const KernelConfig& config) = 0;

  // Compiles one of `candidates` configs the autotuner tries for a fusion.
  // A backend may refuse what it would not choose when there are others
  // (the CUDA backend drops gemm kernels that spill registers, as XLA
  // does); Compile() itself never refuses them, since a cached or forced
  // config must run. Default: Compile().
  virtual absl::StatusOr<std::unique_ptr<Kernel>> CompileCandidate(
      const Instruction& fusion, const KernelConfig& config,
      int64_t candidates) {
    return Compile(fusion, config);
  }

  // One kernel to compile: what Compile() takes.
  struct KernelRequest {
    const Instruction* fusion = nullptr;
    KernelConfig config;
  };

  // Compile() for each request (of any fusions), one result per request in
  // order. A backend whose compiler has a large fixed cost per run may
  // build them together (the CPU backend: as one translation unit); each
  // request still gets its own kernel or its own error. Thread-safe.
  // Default: one Compile after another.
  virtual std::vector<absl::StatusOr<std::unique_ptr<Kernel>>> CompileKernels(
      absl::Span<const KernelRequest> requests);

  // Whether CompileKernels builds several kernels in one compiler run.
  // Callers then hand it many kernels at once: the autotuner a fusion's
  // candidates (instead of CompileCandidate, so such a backend refuses no
  // candidate), Executable::Create a module's kernels in as many parts as
  // there are threads; otherwise they compile one kernel per thread.
  // Default false.
  virtual bool CompilesTogether() const { return false; }

  // Configs of one fusion with the same key here build the same code (they
  // differ only in parameters passed at run time), so one compile serves
  // them all: the autotuner compiles one of each key first, on all its
  // threads, then the others (a lookup), instead of letting a second
  // thread wait for a compile already under way. Thread-safe. Default: the
  // config's text (every config its own code).
  virtual std::string CodeKey(const Instruction& fusion,
                              const KernelConfig& config) const {
    return config.ToString();
  }

  // Whether the autotuner tunes (and caches) this backend's configs. The
  // interpreter is not tuned: it runs every fusion with its default config.
  // Default true.
  virtual bool Tunable() const { return true; }

  // Whether this backend's timings mean nothing (an emulator): the
  // autotuner then checks candidates against the reference
  // (AutotuneOptions::check_candidates) but never tunes, so nothing it
  // measures reaches a cache; fusions use the cached config (its device's
  // entries are read) or the default. Default false.
  virtual bool ChecksOnly() const { return false; }

  // Whether this process can run the backend's kernels at all. A backend
  // compiling for a GPU it does not have (a deviceless `cuda` compile) is
  // not tuned either: fusions use the cached config or the default, with a
  // warning. Default true.
  virtual bool CanRunKernels() const { return true; }

  // Whether the autotuner's in-module timing (autotune/in_module.h) can
  // time this backend's kernels with the host clock inside a running
  // module: its kernels run on the host, Kernel::Run returns when the
  // kernel is done, and a kernel that passed tuning's checks runs safely in
  // the compiler's process. Default false.
  virtual bool TimesInModule() const { return false; }

  // Whether this backend's kernels may keep f16/bf16 intermediates and
  // accumulators in f32 (--xla_allow_excess_precision), so that references
  // they are checked against allow the same (EvaluatorOptions::
  // excess_precision). Default true, the flag's default.
  virtual bool ExcessPrecision() const { return true; }
  // Whether its kernels compute f32 dots that allow it (DotAllowsTf32) in
  // TF32, so that their references do too (EvaluatorOptions::tf32_dots).
  // Default false.
  virtual bool Tf32Dots() const { return false; }

  // ---- Config vocabulary.

  // Whether `config` is a library call (BLAS, cuBLAS) rather than a
  // generated kernel: the reference for gemms, and what
  // --xla_gpu_cublas_fallback=false removes. Default: none is.
  virtual bool IsLibraryCall(const KernelConfig& config) const {
    return false;
  }

  // How many threads `config`'s kernel runs on (host backends' parallel
  // kernels): what the in-module timing (autotune/in_module.h) never adds
  // on the module's word alone, as a second thread's worth changes over
  // time on a shared machine. Default 1.
  virtual int64_t HostThreads(const KernelConfig& config) const { return 1; }

  // Sets the key of `result` (clearing any other key) from `config`.
  // InvalidArgument when the config is not one of this backend's. Default:
  // XLA's BackendConfigKey with name "kind:name=value,..."
  // (codegen/config_codec.h).
  virtual absl::Status ConfigToResult(const KernelConfig& config,
                                      xla::AutotuneResult* result) const;

  // The config a stored result's key stands for. Unimplemented for keys
  // this backend does not run (another backend's, cuBLAS algorithms on the
  // CPU, convolutions, ...). Default: the BackendConfigKey form above.
  virtual absl::StatusOr<KernelConfig> ConfigFromResult(
      const xla::AutotuneResult& result) const;

  // The config a stored result stands for on `fusion`: results that name
  // no config of their own (XLA's NATIVE_EMITTER: "not Triton, the
  // compiler's own kernel") take the fusion's. Default:
  // ConfigFromResult(result).
  virtual absl::StatusOr<KernelConfig> ConfigFromResultFor(
      const Instruction& fusion, const xla::AutotuneResult& result) const {
    return ConfigFromResult(result);
  }

  // --xla_gpu_override_gemm_autotuner: the config that the textproto (XLA's
  // TritonGemmKey fields, or the backend's own key) stands for on `fusion`,
  // a gemm fusion. Every field is mapped or rejected. InvalidArgument for
  // malformed text or a field without meaning here. Default: Unimplemented
  // (the backend has no gemm kernels to override).
  virtual absl::StatusOr<KernelConfig> GemmOverride(
      const Instruction& fusion, absl::string_view textproto) const;

  // ---- Profiling.

  // The profiler that times this backend's kernels for the autotuner.
  // Default: an in-process profiler (codegen/in_process_profiler.h), fit
  // only for kernels that cannot crash and run on host memory: a backend
  // with its own buffers must supply its own. Errors: Unavailable (no
  // worker program, no device).
  virtual absl::StatusOr<std::unique_ptr<Profiler>> CreateProfiler();

  // The bytes a cache flush between timed runs writes (about 1.5x the
  // last-level cache). Default 0: no flush.
  virtual int64_t FlushBytes() const { return 0; }

  // ---- Buffers. Defaults: host memory (malloc, memcpy), right for every
  // backend whose kernels run on the host.

  // A buffer of `bytes` (zero-filled for host memory). ResourceExhausted
  // when it cannot be had.
  virtual absl::StatusOr<DeviceBuffer> Allocate(int64_t bytes);
  // Copies buffer.bytes bytes from `host` into `buffer`.
  virtual absl::Status CopyToDevice(const void* host, DeviceBuffer buffer);
  // Copies buffer.bytes bytes from `buffer` into `host`.
  virtual absl::Status CopyFromDevice(DeviceBuffer buffer, void* host);
  // Copies src.bytes bytes (at most dst.bytes) from one of this backend's
  // buffers into another (loop state, control-flow results). Default:
  // memmove in host memory.
  virtual absl::Status CopyBuffer(DeviceBuffer src, DeviceBuffer dst);
  // Releases a buffer from Allocate(); a null buffer is ignored.
  virtual void Free(DeviceBuffer buffer);
  // The host memory [data, data + bytes) as a buffer this backend's kernels
  // may read in place, when they can (host backends); nullopt when it must
  // be copied in. Default: the pointer itself.
  virtual std::optional<DeviceBuffer> HostAlias(const void* data,
                                                int64_t bytes) {
    return HostBuffer(data, bytes);
  }
};

}  // namespace xtune

#endif  // XTUNE_CODEGEN_BACKEND_H_
