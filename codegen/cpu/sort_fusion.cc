#include "codegen/cpu/sort_fusion.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/cpu/code_buffer.h"
#include "codegen/cpu/elemental.h"
#include "util/status_macros.h"

namespace xtune::cpu {

absl::StatusOr<SortFusion> AnalyzeSortFusion(const Computation& fused) {
  SortFusion s;
  const Instruction* root = fused.root();
  if (root->opcode() == Opcode::kGetTupleElement) {
    s.output = root->attrs().tuple_index;
    root = root->operand(0);
  }
  if (root->opcode() != Opcode::kSort && root->opcode() != Opcode::kTopK) {
    return absl::InvalidArgumentError(
        "a sort kernel needs a sort or topk root (or a get-tuple-element of "
        "one)");
  }
  s.sort = root;
  s.topk = root->opcode() == Opcode::kTopK;
  const Shape& in = root->operand(0)->shape();
  s.dim = s.topk ? in.rank() - 1 : root->attrs().dimensions[0];
  s.n = in.dim(s.dim);
  s.keep = s.topk ? root->attrs().k : s.n;
  s.slices = s.n == 0 ? 0 : in.ElementCount() / s.n;
  return s;
}

absl::StatusOr<std::string> ComparatorFunction(const SortFusion& s,
                                               bool device_arrays) {
  const int64_t m = s.topk ? 1 : s.sort->operand_count();
  std::vector<std::string> params;
  for (int64_t j = 0; j < m; ++j) {
    const std::string type =
        ElementalEmitter::ScalarType(s.sort->operand(j)->shape().dtype());
    params.push_back(absl::StrCat("const ", type, " xt_a", j));
    params.push_back(absl::StrCat("const ", type, " xt_b", j));
  }
  CodeBuffer fn;
  fn.Open(absl::StrCat("XT_DEVICE bool xt_less(", absl::StrJoin(params, ", "),
                       ")"));
  std::string globals;
  if (s.topk) {
    // b before a when a < b for largest: keys in total order.
    const DType key_type = s.sort->operand(0)->shape().dtype();
    auto key = [&](const char* v) {
      if (IsFloat(key_type)) return absl::StrCat("xt_total_key(", v, ")");
      if (key_type == DType::kU64) return absl::StrCat("(uint64_t)", v);
      return std::string(v);
    };
    fn.Linef("return ", s.sort->attrs().largest ? key("xt_b0") : key("xt_a0"),
             " < ", s.sort->attrs().largest ? key("xt_a0") : key("xt_b0"), ";");
  } else {
    const Computation& cmp = *s.sort->called_computations()[0];
    ElementalEmitter emitter(
        1, [](int64_t) { return std::string("nullptr"); }, "xt_kconst");
    if (device_arrays) emitter.set_array_qualifier("XT_CONST_ARRAY");
    for (int64_t j = 0; j < m; ++j) {
      emitter.Bind(cmp.parameter(2 * j), absl::StrCat("xt_a", j));
      emitter.Bind(cmp.parameter(2 * j + 1), absl::StrCat("xt_b", j));
    }
    XTUNE_ASSIGN_OR_RETURN(std::string v, emitter.Emit(cmp.root(), {}, &fn));
    fn.Linef("return ", v, ";");
    globals = emitter.globals();
  }
  fn.Close();
  return globals + fn.text();
}

}  // namespace xtune::cpu
