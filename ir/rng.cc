#include "ir/rng.h"

#include "absl/strings/str_cat.h"
#include "util/status_macros.h"

namespace xtune {

absl::StatusOr<RngAlgorithm> RngAlgorithmOf(const Instruction& inst) {
  for (const RawAttribute& a : inst.attrs().other) {
    if (a.name != "algorithm") continue;
    if (a.value == "rng_three_fry") return RngAlgorithm::kThreeFry;
    if (a.value == "rng_philox" || a.value == "rng_default") {
      return RngAlgorithm::kPhilox;
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "rng-bit-generator's algorithm '", a.value,
        "' is none of rng_default, rng_three_fry, rng_philox"));
  }
  return RngAlgorithm::kPhilox;  // XLA's default: rng_default
}

absl::StatusOr<Shape> InferRngBitGenerator(const Instruction& inst) {
  XTUNE_ASSIGN_OR_RETURN(RngAlgorithm algorithm, RngAlgorithmOf(inst));
  if (inst.operand_count() != 1) {
    return absl::InvalidArgumentError(
        "rng-bit-generator takes one operand, the state");
  }
  const Shape& state = inst.operand(0)->shape();
  const int64_t max_words = algorithm == RngAlgorithm::kPhilox ? 3 : 2;
  if (!state.IsArray() || state.dtype() != DType::kU64 || state.rank() != 1 ||
      state.dim(0) < 2 || state.dim(0) > max_words) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rng-bit-generator's state is ", state.ToString(false), "; ",
        algorithm == RngAlgorithm::kPhilox ? "Philox takes u64[2] or u64[3]"
                                           : "ThreeFry takes u64[2]"));
  }
  const Shape& declared = inst.shape();
  if (!declared.IsTuple() || declared.tuple_shapes().size() != 2 ||
      !declared.tuple_shapes()[0].Compatible(state) ||
      !declared.tuple_shapes()[1].IsArray() ||
      !IsInteger(declared.tuple_shapes()[1].dtype())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rng-bit-generator must produce (", state.ToString(false),
        ", an integer array), not ", declared.ToString(false)));
  }
  return declared;
}

}  // namespace xtune
