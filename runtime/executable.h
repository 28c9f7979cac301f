// Executable: a fused module ready to run on a backend — one compiled
// kernel per fusion, buffers allocated once (by the backend, in its memory)
// and reused by every Run(). Everything device-specific goes through the
// Backend: Allocate / CopyToDevice / CopyFromDevice / Free / HostAlias, so
// a device backend needs no change here.
//
// The computations of a fused module (the entry, and the conditions, bodies
// and branches of its control flow) hold parameters, constants, tuples,
// get-tuple-elements, fusions, whiles and conditionals
// (fusion/fusion_pass.h). Each computation's buffers are allocated once;
// its fusions run in order; a while copies its operand into its body's
// parameter buffers, then runs the condition (reading back the predicate)
// and the body until the predicate is false, moving the body's result into
// the parameter buffers between iterations (no allocation, compile or cache
// lookup per iteration); a conditional reads its selector back and runs
// one branch. An in-place fusion (fusion/in_place.h) whose operand is read
// by nothing that runs after it writes into the operand's buffer (a loop's
// state included), so a loop updating a slice of its state moves the slice
// only. A fusion the backend cannot generate code for
// (Unimplemented) runs on the reference evaluator instead, and says so in
// fallback_reason.
//
// Not thread-safe: one Run() at a time.
#ifndef XTUNE_RUNTIME_EXECUTABLE_H_
#define XTUNE_RUNTIME_EXECUTABLE_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "codegen/backend.h"
#include "eval/evaluator.h"
#include "ir/literal.h"
#include "ir/module.h"

namespace xtune {

// Which config each fusion gets (default config, a tuned one, an override).
using ConfigChooser =
    std::function<absl::StatusOr<KernelConfig>(const Instruction& fusion)>;

struct CompiledFusion {
  const Instruction* fusion = nullptr;
  KernelConfig config;
  std::unique_ptr<Kernel> kernel;  // null when it falls back
  std::string fallback_reason;     // why it runs on the evaluator
};

struct ExecutableOptions {
  // Kernels compiled at once; 0 = one per hardware thread. Default 0.
  int compile_parallelism = 0;
  // Fusions that run on the evaluator do so with this excess-precision
  // setting (EvaluatorOptions::excess_precision). Default true, as
  // --xla_allow_excess_precision.
  bool excess_precision = true;
  // And EvaluatorOptions::tf32_dots. Default false.
  bool tf32_dots = false;
};

// In-module timing (the autotuner's last phase, autotune/in_module.h): a
// probe swaps kernels in and times fusions where the module runs them,
// between the fusions that run before and after them.
struct RunProbe {
  // Per fusion (an index into fusions()): the kernel to run instead of its
  // own; null or absent: its own. Borrowed; it must compile the same
  // fusion.
  std::vector<Kernel*> substitute;
  // Per fusion: whether to time it. Absent: not timed.
  std::vector<bool> timed;
  // Per fusion: the wall time (host clock) its kernel took in this run
  // (summed over a loop's iterations), for timed ones; resized to the
  // fusion count by Run. The backend's
  // Kernel::Run must return when the kernel is done (host backends).
  std::vector<double> seconds;
};

class Executable {
 public:
  // Compiles every fusion of `fused` (taking ownership) with the config
  // `choose` returns for it. `backend` is borrowed and must outlive the
  // executable. Errors from `choose`, from compiling (other than
  // Unimplemented) and from allocating buffers are returned, naming the
  // fusion.
  static absl::StatusOr<std::unique_ptr<Executable>> Create(
      std::unique_ptr<Module> fused, Backend* backend,
      const ConfigChooser& choose, const ExecutableOptions& options = {});

  // Runs on one argument per entry parameter (compatible shapes, any
  // layout); returns the root value in the root's layout. Arguments in the
  // parameters' layouts are read in place when the backend can (host
  // memory); they must stay alive and unchanged until Run returns.
  absl::StatusOr<Literal> Run(absl::Span<const Literal> arguments);
  // The same, with `probe`'s substitutes and timings (see RunProbe).
  absl::StatusOr<Literal> Run(absl::Span<const Literal> arguments,
                              RunProbe* probe);

  const Module& module() const { return *module_; }
  // Every fusion of the module, in FusionsOf(module()) order.
  const std::vector<CompiledFusion>& fusions() const { return fusions_; }
  // How many fusions write their output into their operand's buffer (an
  // in-place dynamic-update-slice whose operand dies there).
  int in_place_fusions() const { return in_place_fusions_; }

  ~Executable();
  // A runtime value and a computation's compiled form (defined in the .cc).
  struct Value;
  struct Frame;

 private:
  Executable() = default;
  // The frame of `c` (made once per computation and parameter value):
  // its values allocated, with parameter(0) bound to `param` when given (a
  // while's condition reads its body's state buffers). A failed allocation
  // is recorded in `allocation`.
  absl::StatusOr<Frame*> BuildFrame(const Computation& c, Value* param,
                                    absl::Status* allocation);
  // Gives each in-place fusion of `frame` (fusion/in_place.h) its
  // operand's buffer when the operand is one of `donatable` (buffers the
  // frame owns and rewrites every run) and nothing that runs later reads it.
  void ShareInPlaceBuffers(Frame& frame,
                           absl::flat_hash_set<const Value*>& donatable);
  absl::Status RunFrame(Frame& frame, RunProbe* probe);
  absl::Status RunFusion(const Instruction* inst, Frame& frame,
                         RunProbe* probe);
  absl::Status RunWhile(const Instruction* inst, Frame& frame,
                        RunProbe* probe);
  absl::Status RunConditional(const Instruction* inst, Frame& frame,
                              RunProbe* probe);
  // Copies src's leaves into dst's buffers.
  absl::Status CopyValue(const Value* src, Value* dst);

  std::unique_ptr<Module> module_;
  Backend* backend_ = nullptr;
  EvaluatorOptions evaluator_options_;  // for fusions on the evaluator
  std::vector<CompiledFusion> fusions_;
  absl::flat_hash_map<const Instruction*, size_t> fusion_index_;
  int in_place_fusions_ = 0;
  // Every value (array values own a buffer), and every computation's frame
  // (the entry's first).
  std::vector<std::unique_ptr<Value>> values_;
  std::vector<std::unique_ptr<Frame>> frames_;
  absl::flat_hash_map<std::pair<const Computation*, const Value*>, Frame*>
      frame_of_;
};

}  // namespace xtune

#endif  // XTUNE_RUNTIME_EXECUTABLE_H_
