#include "eval/control_flow.h"

#include "util/status_macros.h"

namespace xtune {

int64_t ConditionalBranch(bool is_pred, int64_t selector, int64_t branches) {
  if (is_pred) return selector != 0 ? 0 : 1;
  return selector < 0 || selector >= branches ? branches - 1 : selector;
}

absl::StatusOr<Tensor> EvalWhile(const Instruction& inst, const Tensor& init,
                                 const ComputationRunner& run) {
  const Computation& cond = *inst.called_computations()[0];
  const Computation& body = *inst.called_computations()[1];
  Tensor state = init;
  while (true) {
    XTUNE_ASSIGN_OR_RETURN(Tensor go, run(cond, {&state}));
    if (go.i.empty() || go.i[0] == 0) break;
    XTUNE_ASSIGN_OR_RETURN(state, run(body, {&state}));
  }
  return state;
}

absl::StatusOr<Tensor> EvalConditional(const Instruction& inst,
                                       const std::vector<const Tensor*>& ops,
                                       const ComputationRunner& run) {
  const std::vector<Computation*>& branches = inst.called_computations();
  const bool is_pred = ops[0]->shape.dtype() == DType::kPred;
  const int64_t b = ConditionalBranch(is_pred, ops[0]->i[0],
                                      static_cast<int64_t>(branches.size()));
  return run(*branches[b], {ops[b + 1]});
}

}  // namespace xtune
