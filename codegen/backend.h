// The codegen backend interface: what the autotuner and the executable see
// of a device. A backend describes its device, lists candidate kernel
// configs for a fusion, compiles (fusion, config) into a Kernel and runs
// kernels on buffers. The CPU backend generates C++; the CUDA backend will
// generate CUDA C++; FakeBackend (fake_backend.h) scripts everything for
// tests.
#ifndef XTUNE_CODEGEN_BACKEND_H_
#define XTUNE_CODEGEN_BACKEND_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "codegen/kernel_config.h"
#include "ir/instruction.h"

namespace xtune {

// A compiled kernel for one fusion and one config. Run() computes the
// fusion: `inputs` are the fusion's operands in order, each in the physical
// layout of its shape; `output` receives the fusion's result in the layout
// of its shape. Buffers must not alias. Thread-compatible: one Run at a
// time per kernel.
class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual absl::Status Run(absl::Span<const void* const> inputs,
                           void* output) = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;

  // "cpu", "cuda", "fake".
  virtual std::string name() const = 0;

  // The device string of cache keys (DESIGN §7.2): what makes tuning
  // results transferable between machines of the same type.
  virtual std::string DeviceDescription() const = 0;

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
                                   const KernelConfig& config) const {
    for (const KernelConfig& c : Candidates(fusion, true)) {
      if (c == config) return absl::OkStatus();
    }
    return absl::InvalidArgumentError(
        absl::StrCat(config.ToString(), " is not in the search space of '",
                     fusion.name(), "'"));
  }

  // Compiles one candidate. Thread-safe: the autotuner calls it from a pool.
  // Errors: InvalidArgument (the config does not fit this fusion, or the
  // generated source failed to compile, with the compiler's first lines),
  // Unimplemented (the fusion uses something the backend cannot generate),
  // Unavailable (no compiler / device).
  virtual absl::StatusOr<std::unique_ptr<Kernel>> Compile(
      const Instruction& fusion, const KernelConfig& config) = 0;

  // Called in a child process right after fork() (the autotuner times
  // candidates in forked workers): recreate whatever threads the backend
  // needs, since the child has only the forking thread. Default: nothing.
  virtual void ResetAfterFork() {}
};

}  // namespace xtune

#endif  // XTUNE_CODEGEN_BACKEND_H_
