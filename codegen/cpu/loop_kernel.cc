// Loop fusion kernels: the output is walked in physical order, one "row"
// (the physically minor dimension) at a time; each row is computed W
// elements at once (unrolled U times) by the elemental emitter in vector
// mode, with a scalar remainder. Rows are split into tasks for the thread
// pool.
#include "absl/strings/str_cat.h"
#include "codegen/cpu/code_buffer.h"
#include "codegen/cpu/elemental.h"
#include "codegen/cpu/kernel_source.h"
#include "codegen/cpu/prelude.h"
#include "codegen/kernel_text.h"
#include "fusion/in_place.h"
#include "util/status_macros.h"

namespace xtune::cpu {

std::string KernelHeader(int vector_width) {
  std::string out = absl::StrCat("#define XT_W ", vector_width, "\n");
  out += kKernelPrelude;
  out += kXtScalarHelpers;
  if (vector_width > 1) out += VectorHelpers(vector_width);
  out += kKernelMath;
  return out;
}

std::string InputPointer(const Computation& fused, int64_t i) {
  DType t = fused.parameter(i)->shape().dtype();
  std::string type = ElementalEmitter::StorageType(t);
  return absl::StrCat("((const ", type, "*)xt_in[", i, "])");
}

namespace {

// Emits the store of value `v` (vector when width > 1) at element offset
// `at` of the output.
void EmitStore(const std::string& v, const std::string& at, DType t, int width,
               CodeBuffer* out) {
  if (width == 1) {
    out->Linef("xt_out[", at, "] = ", ElementalEmitter::ToStorage(v, t), ";");
    return;
  }
  switch (t) {
    case DType::kF32:
      out->Linef("xt_store(xt_out + ", at, ", ", v, ");");
      break;
    case DType::kF16:
      out->Linef("xt_store_h(xt_out + ", at, ", ", v, ");");
      break;
    case DType::kBF16:
      out->Linef("xt_store_bf(xt_out + ", at, ", ", v, ");");
      break;
    default:
      if (IsFp8(t)) {
        out->Linef("for (int l = 0; l < XT_W; ++l) xt_out[", at, " + l] = ",
                   ElementalEmitter::ToStorage(absl::StrCat(v, "[l]"), t), ";");
        break;
      }
      // pred masks
      out->Linef("for (int l = 0; l < XT_W; ++l) xt_out[", at,
                 " + l] = ", v, "[l] ? 1 : 0;");
  }
}

}  // namespace

absl::StatusOr<std::string> LoopKernelSource(const Computation& fused,
                                             const KernelConfig& config) {
  if (InPlaceDusParameter(fused).has_value()) {
    return InPlaceDusKernelSource(fused, config);
  }
  const Instruction* root = fused.root();
  const Shape& shape = root->shape();
  if (shape.IsTuple()) {
    return absl::UnimplementedError("fusions with tuple results");
  }
  int width = static_cast<int>(config.Get("vector_width", 1));
  int unroll = static_cast<int>(config.Get("unroll", 1));
  if (width < 1 || unroll < 1) {
    return absl::InvalidArgumentError("vector_width and unroll must be >= 1");
  }
  if (width > 1 && !ElementalEmitter::Vectorizable(root)) {
    return absl::InvalidArgumentError(
        "this fusion cannot be vectorized: use vector_width=1");
  }
  int64_t rank = shape.rank();
  // Physical dimensions from major to minor; the minor one is the row.
  std::vector<int64_t> major_to_minor(shape.minor_to_major().rbegin(),
                                      shape.minor_to_major().rend());
  int64_t inner_dim = rank == 0 ? -1 : major_to_minor.back();
  int64_t inner = rank == 0 ? 1 : shape.dim(inner_dim);
  int64_t rows = inner == 0 ? 0 : shape.ElementCount() / inner;

  CodeBuffer body;
  auto pointer = [&](int64_t i) { return absl::StrCat("xt_p", i); };
  // Logical index of the current row's outer dimensions.
  auto row_index = [&](CodeBuffer* out) {
    int64_t stride = 1;
    for (int64_t k = static_cast<int64_t>(major_to_minor.size()) - 2; k >= 0; --k) {
      int64_t d = major_to_minor[k];
      out->Linef("const int64_t xt_i", d, " = (xt_row / ", stride, ") % ",
                 shape.dim(d), ";");
      stride *= shape.dim(d);
    }
  };
  auto index_at = [&](const std::string& inner_expr, int64_t lane_stride) {
    std::vector<IndexExpr> index;
    for (int64_t d = 0; d < rank; ++d) {
      if (d == inner_dim) {
        index.push_back({inner_expr, lane_stride});
      } else {
        index.push_back({absl::StrCat("xt_i", d), 0});
      }
    }
    return index;
  };
  ElementalEmitter vector_emitter(width, pointer, "xt_vconst");
  ElementalEmitter scalar_emitter(1, pointer, "xt_sconst");

  body.Open("static void xt_task(void* xt_arg, int64_t xt_task_index)");
  body.Line("const XtArgs* xt_args = (const XtArgs*)xt_arg;");
  body.Line("const void* const* xt_in = xt_args->in;");
  for (int64_t i = 0; i < fused.parameter_count(); ++i) {
    body.Linef("const auto* __restrict xt_p", i, " = ", InputPointer(fused, i), ";");
  }
  body.Linef(ElementalEmitter::StorageType(shape.dtype()),
             "* __restrict xt_out = (",
             ElementalEmitter::StorageType(shape.dtype()), "*)xt_args->out;");
  body.Line("const int64_t xt_begin = xt_task_index * xt_args->rows_per_task;");
  body.Linef("const int64_t xt_end = xt_begin + xt_args->rows_per_task < ",
             rows, " ? xt_begin + xt_args->rows_per_task : ", rows, ";");
  body.Open("for (int64_t xt_row = xt_begin; xt_row < xt_end; ++xt_row)");
  row_index(&body);
  body.Linef("const int64_t xt_base = xt_row * ", inner, ";");
  body.Line("int64_t xt_j = 0;");
  if (width > 1) {
    body.Open(absl::StrCat("for (; xt_j + ", width * unroll, " <= ", inner,
                           "; xt_j += ", width * unroll, ")"));
    for (int u = 0; u < unroll; ++u) {
      std::string j = u == 0 ? "xt_j" : absl::StrCat("(xt_j + ", u * width, ")");
      body.Open("");
      XTUNE_ASSIGN_OR_RETURN(std::string v,
                             vector_emitter.Emit(root, index_at(j, 1), &body));
      EmitStore(v, absl::StrCat("xt_base + ", j), shape.dtype(), width, &body);
      body.Close();
    }
    body.Close();
  } else if (unroll > 1) {
    body.Open(absl::StrCat("for (; xt_j + ", unroll, " <= ", inner,
                           "; xt_j += ", unroll, ")"));
    for (int u = 0; u < unroll; ++u) {
      std::string j = u == 0 ? "xt_j" : absl::StrCat("(xt_j + ", u, ")");
      body.Open("");
      XTUNE_ASSIGN_OR_RETURN(std::string v,
                             scalar_emitter.Emit(root, index_at(j, 0), &body));
      EmitStore(v, absl::StrCat("xt_base + ", j), shape.dtype(), 1, &body);
      body.Close();
    }
    body.Close();
  }
  body.Open(absl::StrCat("for (; xt_j < ", inner, "; ++xt_j)"));
  XTUNE_ASSIGN_OR_RETURN(std::string v,
                         scalar_emitter.Emit(root, index_at("xt_j", 0), &body));
  EmitStore(v, "xt_base + xt_j", shape.dtype(), 1, &body);
  body.Close();
  body.Close();  // rows
  body.Close();  // xt_task

  std::string src = KernelHeader(width);
  src += "struct XtArgs { const void* const* in; void* out; int64_t rows_per_task; };\n";
  src += vector_emitter.globals();
  src += scalar_emitter.globals();
  src += body.text();
  // config: vector_width, unroll, rows_per_task, threads
  src += RowTasksEntry(rows, "");
  return src;
}

std::string RowTasksEntry(int64_t rows, const std::string& prologue) {
  // config: vector_width, unroll, rows_per_task, threads
  return absl::StrCat(
      "extern \"C\" void xtune_kernel(const void* const* in, void* out, "
      "const int64_t* config, const XtContext* ctx) {\n",
      prologue,
      "  int64_t rows_per_task = config[2] > 0 ? config[2] : 1;\n"
      "  XtArgs args = {in, out, rows_per_task};\n"
      "  int64_t tasks = (", rows, " + rows_per_task - 1) / rows_per_task;\n"
      "  if (tasks == 0) return;\n"
      "  if (tasks == 1) { xt_task(&args, 0); return; }\n"
      "  ctx->parallel_for(ctx->pool, tasks, config[3], xt_task, &args);\n"
      "}\n");
}

}  // namespace xtune::cpu
