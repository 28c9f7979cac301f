// In-place dynamic-update-slice fusions on the CPU (fusion/in_place.h),
// config "cpu_loop" as every loop fusion: the kernel walks the update, not
// the output. Its rows (the output's physically minor dimension, restricted
// to the update) are split into tasks; each element of the update is
// computed by the elemental emitter and stored at the clamped start plus
// its index. When the output is not the operand's buffer, the operand is
// first copied into it, so the result is the same either way.
#include "absl/strings/str_cat.h"
#include "codegen/cpu/code_buffer.h"
#include "codegen/cpu/elemental.h"
#include "codegen/cpu/kernel_source.h"
#include "fusion/in_place.h"
#include "util/status_macros.h"

namespace xtune::cpu {

absl::StatusOr<std::string> InPlaceDusKernelSource(const Computation& fused,
                                                   const KernelConfig& config) {
  const std::optional<int64_t> param = InPlaceDusParameter(fused);
  if (!param.has_value()) {
    return absl::InvalidArgumentError(
        "not an in-place dynamic-update-slice fusion");
  }
  if (config.Get("vector_width", 1) != 1) {
    return absl::InvalidArgumentError(
        "this fusion cannot be vectorized: use vector_width=1");
  }
  const int unroll = static_cast<int>(config.Get("unroll", 1));
  if (unroll < 1) return absl::InvalidArgumentError("unroll must be >= 1");
  const Instruction* dus = fused.root();
  const Instruction* update = dus->operand(1);
  const Shape& shape = dus->shape();
  const std::vector<int64_t>& u_dims = update->shape().dims();
  const std::vector<int64_t> strides = shape.PhysicalStrides();
  const int64_t rank = shape.rank();
  // The update in the output's physical order; its minor dimension is the
  // row (stride 1 in the output).
  std::vector<int64_t> major_to_minor(shape.minor_to_major().rbegin(),
                                      shape.minor_to_major().rend());
  const int64_t inner_dim = rank == 0 ? -1 : major_to_minor.back();
  const int64_t inner = rank == 0 ? 1 : u_dims[inner_dim];
  const int64_t rows = inner == 0 ? 0 : update->shape().ElementCount() / inner;

  ElementalEmitter emitter(1, [](int64_t i) { return absl::StrCat("xt_p", i); },
                           "xt_sconst");
  CodeBuffer body;
  body.Open("static void xt_task(void* xt_arg, int64_t xt_task_index)");
  body.Line("const XtArgs* xt_args = (const XtArgs*)xt_arg;");
  body.Line("const void* const* xt_in = xt_args->in;");
  body.Line("(void)xt_in;");
  for (int64_t i = 0; i < fused.parameter_count(); ++i) {
    if (i == *param) continue;  // written through xt_out, never read
    body.Linef("const auto* __restrict xt_p", i, " = ", InputPointer(fused, i),
               ";");
  }
  const std::string storage = ElementalEmitter::StorageType(shape.dtype());
  body.Linef(storage, "* __restrict xt_out = (", storage, "*)xt_args->out;");
  XTUNE_ASSIGN_OR_RETURN(
      std::vector<std::string> starts,
      emitter.EmitClampedStarts(dus, 2, update->shape(), &body));
  body.Line("const int64_t xt_begin = xt_task_index * xt_args->rows_per_task;");
  body.Linef("const int64_t xt_end = xt_begin + xt_args->rows_per_task < ",
             rows, " ? xt_begin + xt_args->rows_per_task : ", rows, ";");
  body.Open("for (int64_t xt_row = xt_begin; xt_row < xt_end; ++xt_row)");
  std::string base = "0";
  int64_t row_stride = 1;
  for (int64_t k = static_cast<int64_t>(major_to_minor.size()) - 2; k >= 0;
       --k) {
    const int64_t d = major_to_minor[k];
    body.Linef("const int64_t xt_i", d, " = (xt_row / ", row_stride, ") % ",
               u_dims[d], ";");
    row_stride *= u_dims[d];
    absl::StrAppend(&base, " + (xt_i", d, " + ", starts[d], ") * ", strides[d]);
  }
  if (inner_dim >= 0) absl::StrAppend(&base, " + ", starts[inner_dim]);
  body.Linef("const int64_t xt_base = ", base, ";");
  auto index_at = [&](const std::string& j) {
    std::vector<IndexExpr> index;
    for (int64_t d = 0; d < rank; ++d) {
      index.push_back({d == inner_dim ? j : absl::StrCat("xt_i", d), 0});
    }
    return index;
  };
  auto store = [&](const std::string& j) -> absl::Status {
    body.Open("");
    XTUNE_ASSIGN_OR_RETURN(std::string v,
                           emitter.Emit(update, index_at(j), &body));
    body.Linef("xt_out[xt_base + ", j, "] = ",
               ElementalEmitter::ToStorage(v, shape.dtype()), ";");
    body.Close();
    return absl::OkStatus();
  };
  body.Line("int64_t xt_j = 0;");
  if (unroll > 1) {
    body.Open(absl::StrCat("for (; xt_j + ", unroll, " <= ", inner,
                           "; xt_j += ", unroll, ")"));
    for (int u = 0; u < unroll; ++u) {
      XTUNE_RETURN_IF_ERROR(
          store(u == 0 ? "xt_j" : absl::StrCat("(xt_j + ", u, ")")));
    }
    body.Close();
  }
  body.Open(absl::StrCat("for (; xt_j < ", inner, "; ++xt_j)"));
  XTUNE_RETURN_IF_ERROR(store("xt_j"));
  body.Close();
  body.Close();  // rows
  body.Close();  // xt_task

  std::string src = KernelHeader(1);
  src += "struct XtArgs { const void* const* in; void* out; "
         "int64_t rows_per_task; };\n";
  src += emitter.globals();
  src += body.text();
  src += RowTasksEntry(
      rows, absl::StrCat("  if (out != in[", *param, "]) memcpy(out, in[",
                         *param, "], ", shape.ByteSize(), ");\n"));
  return src;
}

}  // namespace xtune::cpu
