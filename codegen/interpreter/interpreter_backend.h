// The interpreter backend: every fusion computed by the reference evaluator
// (eval/), with HLO semantics (every f16/bf16 result rounded). Slow and
// exact; the oracle of tests and of `xtune run --verify`. It has one config
// per fusion and is not tuned. Always available. Thread-safe.
#ifndef XTUNE_CODEGEN_INTERPRETER_INTERPRETER_BACKEND_H_
#define XTUNE_CODEGEN_INTERPRETER_INTERPRETER_BACKEND_H_

#include "absl/status/status.h"
#include "codegen/backend.h"
#include "codegen/backend_factory.h"

namespace xtune {

class InterpreterBackend : public Backend {
 public:
  std::string name() const override { return "interpreter"; }
  std::string DeviceDescription() const override { return "interpreter"; }
  std::vector<KernelConfig> Candidates(const Instruction& fusion,
                                       bool exhaustive) const override;
  KernelConfig DefaultConfig(const Instruction& fusion) const override;
  // Unimplemented for tuple-shaped (multi-output) fusions, which the
  // executable then evaluates itself.
  absl::StatusOr<std::unique_ptr<Kernel>> Compile(
      const Instruction& fusion, const KernelConfig& config) override;
  bool Tunable() const override { return false; }
  // HLO semantics: every f16/bf16 result rounded.
  bool ExcessPrecision() const override { return false; }
};

// "interpreter", for the registry (codegen/registry.h).
BackendRegistration InterpreterBackendRegistration();

}  // namespace xtune

#endif  // XTUNE_CODEGEN_INTERPRETER_INTERPRETER_BACKEND_H_
