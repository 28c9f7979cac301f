#include "codegen/interpreter/interpreter_backend.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "eval/evaluator.h"
#include "util/status_macros.h"

namespace xtune {
namespace {

const KernelConfig kEvaluate("interpreter", {});

class EvaluatorKernel : public Kernel {
 public:
  explicit EvaluatorKernel(const Instruction& fusion) : fusion_(fusion) {}

  absl::Status Run(absl::Span<const DeviceBuffer> inputs,
                   DeviceBuffer output) override {
    std::vector<Literal> args;
    for (int64_t i = 0; i < fusion_.operand_count(); ++i) {
      Literal arg(fusion_.operand(i)->shape());
      std::memcpy(arg.bytes().data(), inputs[i].opaque, arg.bytes().size());
      args.push_back(std::move(arg));
    }
    EvaluatorOptions options;
    options.excess_precision = false;  // HLO semantics (ExcessPrecision())
    XTUNE_ASSIGN_OR_RETURN(
        Literal result,
        EvaluateComputation(*fusion_.called_computations()[0], args, options));
    std::memcpy(output.opaque, result.bytes().data(), result.bytes().size());
    return absl::OkStatus();
  }

 private:
  const Instruction& fusion_;
};

}  // namespace

std::vector<KernelConfig> InterpreterBackend::Candidates(
    const Instruction& fusion, bool exhaustive) const {
  return {kEvaluate};
}

KernelConfig InterpreterBackend::DefaultConfig(
    const Instruction& fusion) const {
  return kEvaluate;
}

absl::StatusOr<std::unique_ptr<Kernel>> InterpreterBackend::Compile(
    const Instruction& fusion, const KernelConfig& config) {
  XTUNE_RETURN_IF_ERROR(CheckConfig(fusion, config));
  if (!fusion.shape().IsArray()) {
    return absl::UnimplementedError(
        "the interpreter's kernels have one array output");
  }
  return std::unique_ptr<Kernel>(new EvaluatorKernel(fusion));
}

BackendRegistration InterpreterBackendRegistration() {
  return {"interpreter", "the reference evaluator: slow, exact, not tuned",
          [](const BackendOptions&) -> absl::StatusOr<std::unique_ptr<Backend>> {
            return std::unique_ptr<Backend>(new InterpreterBackend());
          },
          [](const BackendOptions&) -> absl::StatusOr<std::string> {
            return std::string("interpreter");
          }};
}

}  // namespace xtune
