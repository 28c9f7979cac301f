// Column reduction kernels: tasks take ranges of the output columns; each
// keeps a vector of accumulators over its columns while walking the rows.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "codegen/cpu/code_buffer.h"
#include "codegen/cpu/elemental.h"
#include "codegen/cpu/kernel_source.h"
#include "codegen/cpu/reduction_analysis.h"
#include "codegen/cpu/reduction_emit.h"
#include "util/status_macros.h"

namespace xtune::cpu {

absl::StatusOr<std::string> ColumnReductionKernelSource(
    const Computation& fused, const KernelConfig& config) {
  XTUNE_ASSIGN_OR_RETURN(const Instruction* r, AnalyzeColumnFusion(fused));
  int width = static_cast<int>(config.Get("vector_width", 1));
  int unroll = static_cast<int>(config.Get("unroll", 1));
  if (width < 1 || unroll < 1) {
    return absl::InvalidArgumentError("vector_width and unroll must be >= 1");
  }
  const Shape& in = r->operand(0)->shape();
  int64_t rank = in.rank();
  int64_t columns = in.dims().back();
  int64_t rows = in.ElementCount() / std::max<int64_t>(columns, 1);
  std::optional<SimpleReduction> simple = AsSimpleReduction(*r);
  bool vector = width > 1 && simple.has_value() &&
                ElementalEmitter::Vectorizable(r->operand(0));
  auto pointer = [](int64_t i) { return absl::StrCat("xt_p", i); };
  ElementalEmitter vec(width, pointer, "xt_vconst");
  ElementalEmitter sca(1, pointer, "xt_sconst");
  DType t = r->shape().dtype();
  std::string acc_type = ElementalEmitter::ScalarType(t);

  auto index = [&](const std::string& j, int64_t lane) {
    std::vector<IndexExpr> idx;
    for (int64_t d = 0; d + 1 < rank; ++d) {
      idx.push_back({absl::StrCat("xt_i", d), 0});
    }
    idx.push_back({j, lane});
    return idx;
  };
  CodeBuffer body;
  body.Open("static void xt_task(void* xt_arg, int64_t xt_task_index)");
  EmitReductionPointers(fused, t, &body);
  body.Line("const int64_t xt_c0 = xt_task_index * xt_args->per_task;");
  body.Linef("const int64_t xt_c1 = xt_c0 + xt_args->per_task < ", columns,
             " ? xt_c0 + xt_args->per_task : ", columns, ";");
  XTUNE_ASSIGN_OR_RETURN(std::string init, sca.Emit(r->operand(1), {}, &body));
  body.Linef(acc_type, "* xt_acc = (", acc_type, "*)malloc(sizeof(", acc_type,
             ") * (xt_c1 - xt_c0 + 1));");
  body.Linef("for (int64_t c = 0; c < xt_c1 - xt_c0; ++c) xt_acc[c] = ",
             vector ? simple->identity : init, ";");
  body.Open(absl::StrCat("for (int64_t xt_row = 0; xt_row < ", rows, "; ++xt_row)"));
  {
    int64_t stride = 1;
    for (int64_t d = rank - 2; d >= 0; --d) {
      body.Linef("const int64_t xt_i", d, " = (xt_row / ", stride, ") % ",
                 in.dim(d), ";");
      stride *= in.dim(d);
    }
  }
  body.Line("int64_t xt_j = xt_c0;");
  if (vector) {
    body.Open(absl::StrCat("for (; xt_j + ", width * unroll,
                           " <= xt_c1; xt_j += ", width * unroll, ")"));
    for (int u = 0; u < unroll; ++u) {
      std::string j = u == 0 ? "xt_j" : absl::StrCat("(xt_j + ", u * width, ")");
      body.Open("");
      XTUNE_ASSIGN_OR_RETURN(std::string x, vec.Emit(r->operand(0), index(j, 1), &body));
      std::string slot = absl::StrCat("xt_acc + (", j, " - xt_c0)");
      body.Linef("xt_store(", slot, ", ", CombineExpr(simple->op,
                                                      absl::StrCat("xt_load(", slot, ")"), x),
                 ");");
      body.Close();
    }
    body.Close();
  }
  body.Open("for (; xt_j < xt_c1; ++xt_j)");
  XTUNE_ASSIGN_OR_RETURN(std::string x, sca.Emit(r->operand(0), index("xt_j", 0), &body));
  if (vector) {
    body.Linef("xt_acc[xt_j - xt_c0] = ",
               CombineExpr(simple->op, "xt_acc[xt_j - xt_c0]", x), ";");
  } else {
    const Computation& to_apply = *r->called_computations()[0];
    sca.Bind(to_apply.parameter(0), "xt_acc[xt_j - xt_c0]");
    sca.Bind(to_apply.parameter(1), x);
    XTUNE_ASSIGN_OR_RETURN(std::string c, sca.Emit(to_apply.root(), {}, &body));
    body.Linef("xt_acc[xt_j - xt_c0] = ", c, ";");
  }
  body.Close();
  body.Close();  // rows
  body.Open("for (int64_t c = xt_c0; c < xt_c1; ++c)");
  std::string value = "xt_acc[c - xt_c0]";
  if (vector) value = CombineExpr(simple->op, init, value);
  body.Linef("xt_out[c] = ", ElementalEmitter::ToStorage(value, t), ";");
  body.Close();
  body.Line("free(xt_acc);");
  body.Close();  // xt_task
  return FinishReductionKernel(body.text(), width, columns,
                               {vec.globals(), sca.globals()});
}

}  // namespace xtune::cpu
