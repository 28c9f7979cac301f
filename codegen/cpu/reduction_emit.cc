#include "codegen/cpu/reduction_emit.h"

#include "absl/strings/str_cat.h"
#include "codegen/cpu/elemental.h"
#include "codegen/cpu/kernel_source.h"

namespace xtune::cpu {
namespace {

std::string StoreType(DType t) { return ElementalEmitter::StorageType(t); }

}  // namespace

std::string CombineExpr(Opcode op, const std::string& acc, const std::string& x) {
  switch (op) {
    case Opcode::kAdd: return absl::StrCat(acc, " + ", x);
    case Opcode::kMultiply: return absl::StrCat(acc, " * ", x);
    case Opcode::kMaximum: return absl::StrCat("xt_max(", acc, ", ", x, ")");
    default: return absl::StrCat("xt_min(", acc, ", ", x, ")");
  }
}

void EmitReductionPointers(const Computation& fused, DType out_type,
                           CodeBuffer* body) {
  body->Line("const XtArgs* xt_args = (const XtArgs*)xt_arg;");
  body->Line("const void* const* xt_in = xt_args->in;");
  for (int64_t i = 0; i < fused.parameter_count(); ++i) {
    body->Linef("const auto* __restrict xt_p", i, " = ", InputPointer(fused, i), ";");
  }
  body->Linef(StoreType(out_type), "* __restrict xt_out = (", StoreType(out_type),
              "*)xt_args->out;");
}

std::string FinishReductionKernel(const std::string& body, int width,
                                  int64_t tasks_of,
                                  const std::vector<std::string>& globals) {
  std::string src = KernelHeader(width);
  src += "struct XtArgs { const void* const* in; void* out; int64_t per_task; };\n";
  for (const std::string& g : globals) src += g;
  src += body;
  absl::StrAppend(
      &src,
      "extern \"C\" void xtune_kernel(const void* const* in, void* out, "
      "const int64_t* config, const XtContext* ctx) {\n"
      "  int64_t per_task = config[2] > 0 ? config[2] : 1;\n"
      "  XtArgs args = {in, out, per_task};\n"
      "  int64_t tasks = (", tasks_of, " + per_task - 1) / per_task;\n"
      "  if (tasks <= 1) { xt_task(&args, 0); return; }\n"
      "  ctx->parallel_for(ctx->pool, tasks, config[3], xt_task, &args);\n"
      "}\n");
  return src;
}

}  // namespace xtune::cpu
