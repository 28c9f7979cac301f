#include "codegen/fake_backend.h"

#include <algorithm>
#include <set>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "codegen/config_codec.h"
#include "eval/evaluator.h"

namespace xtune {
namespace {

class FakeKernel : public Kernel {
 public:
  FakeKernel(const Instruction& fusion, FakeBehavior behavior)
      : fusion_(fusion), behavior_(behavior) {}

  absl::Status Run(absl::Span<const DeviceBuffer> inputs,
                   DeviceBuffer output) override {
    std::vector<Literal> args;
    for (int64_t i = 0; i < fusion_.operand_count(); ++i) {
      Literal lit(fusion_.operand(i)->shape());
      std::memcpy(lit.bytes().data(), inputs[i].opaque, lit.bytes().size());
      args.push_back(std::move(lit));
    }
    absl::StatusOr<Literal> result =
        EvaluateComputation(*fusion_.called_computations()[0], args);
    if (!result.ok()) return result.status();
    if (behavior_ == FakeBehavior::kWrong) {
      for (int64_t i = 0; i < result->element_count(); ++i) {
        result->SetDouble(i, result->GetDouble(i) + 1);
      }
    }
    std::memcpy(output.opaque, result->bytes().data(), result->bytes().size());
    return absl::OkStatus();
  }

 private:
  const Instruction& fusion_;
  FakeBehavior behavior_;
};

}  // namespace

FakeBackend::FakeBackend(std::vector<FakeCandidate> candidates,
                         int default_index, std::string device)
    : candidates_(std::move(candidates)),
      default_index_(default_index),
      device_(std::move(device)) {}

std::vector<KernelConfig> FakeBackend::Candidates(const Instruction& fusion,
                                                  bool exhaustive) const {
  std::vector<KernelConfig> out;
  for (const FakeCandidate& c : candidates_) out.push_back(c.config);
  if (exhaustive) {
    for (const FakeCandidate& c : extras_) out.push_back(c.config);
    std::sort(out.begin(), out.end());
  }
  return out;
}

KernelConfig FakeBackend::DefaultConfig(const Instruction& fusion) const {
  return candidates_[default_index_].config;
}

absl::StatusOr<std::unique_ptr<Kernel>> FakeBackend::Compile(
    const Instruction& fusion, const KernelConfig& config) {
  ++compilations_;
  for (const std::vector<FakeCandidate>* list : {&candidates_, &extras_}) {
    for (const FakeCandidate& c : *list) {
      if (c.config != config) continue;
      if (c.behavior == FakeBehavior::kCompileError) {
        return absl::InvalidArgumentError(
            absl::StrCat("kernel compilation failed: fake error for ",
                         config.ToString()));
      }
      return std::unique_ptr<Kernel>(new FakeKernel(fusion, c.behavior));
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown config ", config.ToString()));
}

}  // namespace xtune

namespace xtune {

bool FakeBackend::IsLibraryCall(const KernelConfig& config) const {
  return absl::EndsWith(config.kind(), "_blas");
}

absl::StatusOr<KernelConfig> FakeBackend::GemmOverride(
    const Instruction& fusion, absl::string_view textproto) const {
  xla::AutotuneResult::TritonGemmKey key;
  std::set<std::string> given;
  absl::Status parsed = ParseTextProto(
      textproto, "--xla_gpu_override_gemm_autotuner", &key, &given);
  if (!parsed.ok()) return parsed;
  KernelConfig out = DefaultConfig(fusion);
  const google::protobuf::Reflection* r = key.GetReflection();
  for (const std::string& field : given) {
    if (!out.Has(field)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--xla_gpu_override_gemm_autotuner: '", field,
          "' is not a parameter of ", out.kind(), " configs"));
    }
    const auto* f = key.GetDescriptor()->FindFieldByName(field);
    out.Set(field, f->type() == google::protobuf::FieldDescriptor::TYPE_BOOL
                       ? r->GetBool(key, f)
                       : r->GetInt64(key, f));
  }
  return out;
}

}  // namespace xtune
