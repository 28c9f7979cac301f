// Scatter fusion kernels (config "cpu_scatter" {vector_width, unroll,
// window_per_task, threads}): the output first takes the operand's values
// (its fused producers computed element by element, in parallel), then the
// updates are combined into it in XLA's order (ir/indexing.h): scatter
// indices outer, in row-major order, window elements inner.
//
// Deterministic on any thread count: the window elements are split into
// tasks (window_per_task each), and every task walks all scatter indices in
// order. Two updates can reach the same output element from different
// window elements only when a scattered dimension has a window wider than
// one; such fusions apply their updates in one task. vector_width is 1 (the
// updates' addresses depend on loaded indices); unroll repeats the window
// loop's body.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/cpu/code_buffer.h"
#include "codegen/cpu/elemental.h"
#include "codegen/cpu/kernel_source.h"
#include "ir/indexing.h"
#include "util/status_macros.h"

namespace xtune::cpu {
namespace {

// Row-major decode of linear `var` over `dims` of `shape_dims` into
// variables `prefix<d>`.
void Decode(const std::string& var, const std::vector<int64_t>& dims,
            const std::vector<int64_t>& shape_dims, const std::string& prefix,
            CodeBuffer* out) {
  int64_t stride = 1;
  for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
    out->Linef("const int64_t ", prefix, *it, " = (", var, " / ", stride,
               ") % ", shape_dims[*it], ";");
    stride *= shape_dims[*it];
  }
}

}  // namespace

bool ScatterWindowsAreDisjoint(const Instruction& scatter) {
  for (const OperandDimSource& s : MakeScatterPlan(scatter).operand) {
    if (s.start_component >= 0 && s.size > 1) return false;
  }
  return true;
}

absl::StatusOr<std::string> ScatterKernelSource(const Computation& fused,
                                                const KernelConfig& config) {
  const Instruction* s = fused.root();
  if (s->opcode() != Opcode::kScatter) {
    return absl::InvalidArgumentError("cpu_scatter needs a scatter root");
  }
  if (s->shape().IsTuple()) {
    return absl::UnimplementedError("scatters of several operands");
  }
  if (config.Get("vector_width", 1) != 1) {
    return absl::InvalidArgumentError("cpu_scatter takes vector_width=1");
  }
  const int unroll = static_cast<int>(config.Get("unroll", 1));
  const Shape& shape = s->shape();
  const Instruction* operand = s->operand(0);
  const Instruction* indices = s->operand(1);
  const Instruction* updates = s->operand(2);
  const std::vector<int64_t>& u_dims = updates->shape().dims();
  const IndexingPlan plan = MakeScatterPlan(*s);
  std::vector<int64_t> window_dims = s->attrs().scatter.update_window_dims;
  std::vector<int64_t> scatter_dims;
  int64_t windows = 1, count = 1;
  for (int64_t d = 0; d < static_cast<int64_t>(u_dims.size()); ++d) {
    bool window = std::find(window_dims.begin(), window_dims.end(), d) !=
                  window_dims.end();
    if (!window) {
      scatter_dims.push_back(d);
      count *= u_dims[d];
    } else {
      windows *= u_dims[d];
    }
  }
  const int64_t total = shape.ElementCount();
  const DType t = shape.dtype();
  const std::string storage = ElementalEmitter::StorageType(t);
  auto pointer = [&](int64_t i) { return absl::StrCat("xt_p", i); };
  auto declare_inputs = [&](CodeBuffer* b) {
    b->Line("const XtArgs* xt_args = (const XtArgs*)xt_arg;");
    b->Line("const void* const* xt_in = xt_args->in;");
    for (int64_t i = 0; i < fused.parameter_count(); ++i) {
      b->Linef("const auto* __restrict xt_p", i, " = ",
               InputPointer(fused, i), ";");
    }
    b->Linef(storage, "* __restrict xt_out = (", storage, "*)xt_args->out;");
  };

  // Phase 1: out = operand, in physical order, kCopyChunk elements a task.
  CodeBuffer body;
  ElementalEmitter copy_emitter(1, pointer, "xt_cconst");
  std::vector<int64_t> major_to_minor(shape.minor_to_major().rbegin(),
                                      shape.minor_to_major().rend());
  body.Open("static void xt_copy(void* xt_arg, int64_t xt_task_index)");
  declare_inputs(&body);
  body.Line("const int64_t xt_begin = xt_task_index * XT_COPY_CHUNK;");
  body.Linef("const int64_t xt_end = xt_begin + XT_COPY_CHUNK < ", total,
             " ? xt_begin + XT_COPY_CHUNK : ", total, ";");
  body.Open("for (int64_t xt_k = xt_begin; xt_k < xt_end; ++xt_k)");
  {
    int64_t stride = 1;
    for (auto it = major_to_minor.rbegin(); it != major_to_minor.rend(); ++it) {
      body.Linef("const int64_t xt_o", *it, " = (xt_k / ", stride, ") % ",
                 shape.dim(*it), ";");
      stride *= shape.dim(*it);
    }
    std::vector<IndexExpr> index;
    for (int64_t d = 0; d < shape.rank(); ++d) {
      index.push_back({absl::StrCat("xt_o", d), 0});
    }
    XTUNE_ASSIGN_OR_RETURN(std::string v, copy_emitter.Emit(operand, index, &body));
    body.Linef("xt_out[xt_k] = ", ElementalEmitter::ToStorage(v, t), ";");
  }
  body.Close();
  body.Close();

  // Phase 2: the updates, scatter indices outer, this task's window
  // elements inner.
  ElementalEmitter apply_emitter(1, pointer, "xt_aconst");
  body.Open("static void xt_apply(void* xt_arg, int64_t xt_task_index)");
  declare_inputs(&body);
  body.Line("const int64_t xt_wbegin = xt_task_index * xt_args->per_task;");
  body.Linef("const int64_t xt_wend = xt_wbegin + xt_args->per_task < ",
             windows, " ? xt_wbegin + xt_args->per_task : ", windows, ";");
  body.Open(absl::StrCat("for (int64_t xt_i = 0; xt_i < ", count, "; ++xt_i)"));
  Decode("xt_i", scatter_dims, u_dims, "xt_u", &body);
  std::vector<IndexExpr> position;
  for (int64_t src : plan.indices_dim_source) {
    position.push_back(src >= 0 ? IndexExpr{absl::StrCat("xt_u", src), 0}
                                : IndexExpr{"0", 0});
  }
  std::vector<std::string> starts;
  std::vector<std::string> fits;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    const OperandDimSource& src = plan.operand[d];
    std::string start = "0";
    if (src.start_component >= 0) {
      std::vector<IndexExpr> at = position;
      if (plan.index_vector_dim < static_cast<int64_t>(at.size())) {
        at[plan.index_vector_dim] = {absl::StrCat(src.start_component), 0};
      }
      XTUNE_ASSIGN_OR_RETURN(std::string v, apply_emitter.Emit(indices, at, &body));
      start = body.Fresh("start");
      body.Linef("const int64_t ", start, " = (int64_t)", v, ";");
      fits.push_back(absl::StrCat("xt_window_fits(", start, ", ", shape.dim(d),
                                  ", ", src.size, ")"));
    } else if (src.batch_indices_dim >= 0) {
      start = position[src.batch_indices_dim].base;
    }
    starts.push_back(start);
  }
  if (!fits.empty()) {
    body.Linef("if (!(", absl::StrJoin(fits, " && "), ")) continue;");
  }
  auto emit_window = [&](const std::string& w) -> absl::Status {
    body.Open("");
    Decode(w, window_dims, u_dims, "xt_u", &body);
    std::vector<IndexExpr> u_index;
    for (size_t d = 0; d < u_dims.size(); ++d) {
      u_index.push_back({absl::StrCat("xt_u", d), 0});
    }
    std::vector<IndexExpr> o_index;
    for (int64_t d = 0; d < shape.rank(); ++d) {
      const OperandDimSource& src = plan.operand[d];
      o_index.push_back(
          {src.window_dim >= 0
               ? absl::StrCat("(", starts[d], " + xt_u", src.window_dim, ")")
               : starts[d],
           0});
    }
    IndexExpr off = PhysicalOffset(shape, o_index);
    XTUNE_ASSIGN_OR_RETURN(std::string u,
                           apply_emitter.Emit(updates, u_index, &body));
    std::string cur = body.Fresh("cur");
    body.Linef("const ", ElementalEmitter::ScalarType(t), " ", cur, " = ",
               ElementalEmitter::FromStorage("xt_out", off.base, t), ";");
    XTUNE_ASSIGN_OR_RETURN(
        std::string combined,
        apply_emitter.EmitCombine(*s->called_computations()[0], cur, u, &body));
    body.Linef("xt_out[", off.base, "] = ",
               ElementalEmitter::ToStorage(combined, t), ";");
    body.Close();
    return absl::OkStatus();
  };
  body.Line("int64_t xt_w = xt_wbegin;");
  if (unroll > 1) {
    body.Open(absl::StrCat("for (; xt_w + ", unroll, " <= xt_wend; xt_w += ",
                           unroll, ")"));
    for (int u = 0; u < unroll; ++u) {
      std::string w = absl::StrCat("xt_w", u);
      body.Linef("const int64_t ", w, " = xt_w + ", u, ";");
      XTUNE_RETURN_IF_ERROR(emit_window(w));
    }
    body.Close();
  }
  body.Open("for (; xt_w < xt_wend; ++xt_w)");
  XTUNE_RETURN_IF_ERROR(emit_window("xt_w"));
  body.Close();
  body.Close();  // scatter indices
  body.Close();  // xt_apply

  const bool disjoint = ScatterWindowsAreDisjoint(*s);
  std::string src = KernelHeader(1);
  src += "#define XT_COPY_CHUNK 16384\n";
  src += "struct XtArgs { const void* const* in; void* out; int64_t per_task; };\n";
  src += copy_emitter.globals();
  src += apply_emitter.globals();
  src += body.text();
  // config: vector_width, unroll, window_per_task, threads
  absl::StrAppend(
      &src,
      "extern \"C\" void xtune_kernel(const void* const* in, void* out, "
      "const int64_t* config, const XtContext* ctx) {\n",
      "  const int64_t per_task = ", disjoint ? "config[2] > 0 ? config[2] : 1"
                                             : absl::StrCat(windows > 0 ? windows : 1),
      ";\n"
      "  XtArgs args = {in, out, per_task};\n"
      "  const int64_t copies = (", total, " + XT_COPY_CHUNK - 1) / XT_COPY_CHUNK;\n"
      "  if (copies == 1) xt_copy(&args, 0);\n"
      "  else if (copies > 1) ctx->parallel_for(ctx->pool, copies, config[3], xt_copy, &args);\n"
      "  const int64_t tasks = (", windows, " + per_task - 1) / per_task;\n"
      "  if (tasks == 1) xt_apply(&args, 0);\n"
      "  else if (tasks > 1) ctx->parallel_for(ctx->pool, tasks, config[3], xt_apply, &args);\n"
      "}\n");
  return src;
}

}  // namespace xtune::cpu
