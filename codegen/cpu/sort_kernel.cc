// Sort fusion kernels (config "cpu_sort" {vector_width (1), unroll,
// slices_per_task, threads}): each task sorts slices_per_task slices (the
// sort dimension's lines). A slice's operand values are first gathered into
// per-task arrays (computing fused producers such as argsort's iota), then
// a permutation of positions is sorted: insertion sort of runs of
// 8 * unroll positions, then bottom-up merges, each step stable. For a
// comparator that is a strict weak order this is the one stable order, the
// evaluator's (eval/sort.h); for any other the kernel still stays in
// bounds. Finally the fusion's output takes its values in that order (topk:
// the first k, or their positions).
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/cpu/code_buffer.h"
#include "codegen/cpu/elemental.h"
#include "codegen/cpu/kernel_source.h"
#include "codegen/cpu/sort_fusion.h"
#include "util/status_macros.h"

namespace xtune::cpu {

absl::StatusOr<std::string> SortKernelSource(const Computation& fused,
                                             const KernelConfig& config) {
  XTUNE_ASSIGN_OR_RETURN(SortFusion s, AnalyzeSortFusion(fused));
  if (config.Get("vector_width", 1) != 1) {
    return absl::InvalidArgumentError("cpu_sort takes vector_width=1");
  }
  const int64_t run = 8 * std::max<int64_t>(1, config.Get("unroll", 1));
  const Instruction* root = fused.root();
  const Shape& out_shape = root->shape();
  const DType out_t = out_shape.dtype();
  const int64_t m = s.topk ? 1 : s.sort->operand_count();
  const Shape& in = s.sort->operand(0)->shape();
  auto pointer = [&](int64_t i) { return absl::StrCat("xt_p", i); };
  ElementalEmitter emitter(1, pointer, "xt_const");
  XTUNE_ASSIGN_OR_RETURN(std::string less, ComparatorFunction(s, false));

  CodeBuffer body;
  body.Open("static void xt_sort(void* xt_arg, int64_t xt_task_index)");
  body.Line("const XtArgs* xt_args = (const XtArgs*)xt_arg;");
  body.Line("const void* const* xt_in = xt_args->in;");
  for (int64_t i = 0; i < fused.parameter_count(); ++i) {
    body.Linef("const auto* __restrict xt_p", i, " = ", InputPointer(fused, i),
               ";");
  }
  const std::string storage = ElementalEmitter::StorageType(out_t);
  body.Linef(storage, "* __restrict xt_out = (", storage, "*)xt_args->out;");
  const int64_t n = s.n;
  // Scratch: two permutations and one value array per operand.
  std::vector<std::string> vals;
  body.Linef("int64_t* xt_perm = (int64_t*)malloc(sizeof(int64_t) * ", 2 * n,
             ");");
  body.Linef("int64_t* xt_tmp = xt_perm + ", n, ";");
  for (int64_t j = 0; j < m; ++j) {
    const std::string type =
        ElementalEmitter::ScalarType(s.sort->operand(j)->shape().dtype());
    vals.push_back(absl::StrCat("xt_v", j));
    body.Linef(type, "* xt_v", j, " = (", type, "*)malloc(sizeof(", type,
               ") * ", n, ");");
  }
  body.Line("const int64_t xt_begin = xt_task_index * xt_args->per_task;");
  body.Linef("const int64_t xt_end = xt_begin + xt_args->per_task < ", s.slices,
             " ? xt_begin + xt_args->per_task : ", s.slices, ";");
  body.Open("for (int64_t xt_s = xt_begin; xt_s < xt_end; ++xt_s)");
  // Slice coordinates: every dimension but the sorted one, row-major.
  {
    int64_t stride = 1;
    for (int64_t d = in.rank() - 1; d >= 0; --d) {
      if (d == s.dim) continue;
      body.Linef("const int64_t xt_i", d, " = (xt_s / ", stride, ") % ",
                 in.dim(d), ";");
      stride *= in.dim(d);
    }
  }
  auto index_at = [&](const std::string& pos) {
    std::vector<IndexExpr> index;
    for (int64_t d = 0; d < in.rank(); ++d) {
      index.push_back({d == s.dim ? pos : absl::StrCat("xt_i", d), 0});
    }
    return index;
  };
  body.Open(absl::StrCat("for (int64_t xt_k = 0; xt_k < ", n, "; ++xt_k)"));
  body.Line("xt_perm[xt_k] = xt_k;");
  for (int64_t j = 0; j < m; ++j) {
    XTUNE_ASSIGN_OR_RETURN(
        std::string v, emitter.Emit(s.sort->operand(j), index_at("xt_k"), &body));
    body.Linef(vals[j], "[xt_k] = ", v, ";");
  }
  body.Close();
  auto call_less = [&](const std::string& a, const std::string& b) {
    std::vector<std::string> args;
    for (const std::string& v : vals) {
      args.push_back(absl::StrCat(v, "[", a, "]"));
      args.push_back(absl::StrCat(v, "[", b, "]"));
    }
    return absl::StrCat("xt_less(", absl::StrJoin(args, ", "), ")");
  };
  // Insertion sort of each run.
  body.Open(absl::StrCat("for (int64_t xt_lo = 0; xt_lo < ", n,
                         "; xt_lo += ", run, ")"));
  body.Linef("const int64_t xt_hi = xt_lo + ", run, " < ", n, " ? xt_lo + ",
             run, " : ", n, ";");
  body.Open("for (int64_t xt_x = xt_lo + 1; xt_x < xt_hi; ++xt_x)");
  body.Line("const int64_t xt_e = xt_perm[xt_x];");
  body.Line("int64_t xt_y = xt_x;");
  body.Linef("while (xt_y > xt_lo && ", call_less("xt_e", "xt_perm[xt_y - 1]"),
             ") { xt_perm[xt_y] = xt_perm[xt_y - 1]; --xt_y; }");
  body.Line("xt_perm[xt_y] = xt_e;");
  body.Close();
  body.Close();
  // Bottom-up merges of neighbouring runs.
  body.Open(absl::StrCat("for (int64_t xt_w = ", run, "; xt_w < ", n,
                         "; xt_w *= 2)"));
  body.Open(absl::StrCat("for (int64_t xt_lo = 0; xt_lo < ", n,
                         "; xt_lo += 2 * xt_w)"));
  body.Linef("const int64_t xt_mid = xt_lo + xt_w < ", n, " ? xt_lo + xt_w : ",
             n, ";");
  body.Linef("const int64_t xt_hi = xt_lo + 2 * xt_w < ", n,
             " ? xt_lo + 2 * xt_w : ", n, ";");
  body.Line("int64_t xt_l = xt_lo, xt_r = xt_mid, xt_o = xt_lo;");
  body.Open("while (xt_l < xt_mid && xt_r < xt_hi)");
  body.Linef("if (", call_less("xt_perm[xt_r]", "xt_perm[xt_l]"),
             ") xt_tmp[xt_o++] = xt_perm[xt_r++];");
  body.Line("else xt_tmp[xt_o++] = xt_perm[xt_l++];");
  body.Close();
  body.Line("while (xt_l < xt_mid) xt_tmp[xt_o++] = xt_perm[xt_l++];");
  body.Line("while (xt_r < xt_hi) xt_tmp[xt_o++] = xt_perm[xt_r++];");
  body.Close();
  body.Line("int64_t* xt_swap = xt_perm; xt_perm = xt_tmp; xt_tmp = xt_swap;");
  body.Close();
  // The output, in sorted order.
  body.Open(absl::StrCat("for (int64_t xt_k = 0; xt_k < ", s.keep, "; ++xt_k)"));
  std::vector<IndexExpr> out_index = index_at("xt_k");
  IndexExpr off = PhysicalOffset(out_shape, out_index);
  std::string value = s.topk && s.output == 1
                          ? std::string("xt_perm[xt_k]")
                          : absl::StrCat(vals[s.output], "[xt_perm[xt_k]]");
  body.Linef("xt_out[", off.base, "] = ", ElementalEmitter::ToStorage(value, out_t),
             ";");
  body.Close();
  body.Close();  // slices
  // xt_perm may be either half of the allocation after the merges.
  body.Line("free(xt_perm < xt_tmp ? xt_perm : xt_tmp);");
  for (const std::string& v : vals) body.Linef("free(", v, ");");
  body.Close();

  std::string src = KernelHeader(1);
  src += "#include <stdlib.h>\n";
  src += "struct XtArgs { const void* const* in; void* out; int64_t per_task; };\n";
  src += less;
  src += emitter.globals();
  src += body.text();
  // config: vector_width, unroll, slices_per_task, threads
  absl::StrAppend(
      &src,
      "extern \"C\" void xtune_kernel(const void* const* in, void* out, "
      "const int64_t* config, const XtContext* ctx) {\n"
      "  const int64_t per_task = config[2] > 0 ? config[2] : 1;\n"
      "  XtArgs args = {in, out, per_task};\n"
      "  const int64_t tasks = (", s.slices, " + per_task - 1) / per_task;\n"
      "  if (tasks == 1) xt_sort(&args, 0);\n"
      "  else if (tasks > 1) ctx->parallel_for(ctx->pool, tasks, config[3], xt_sort, &args);\n"
      "}\n");
  return src;
}

}  // namespace xtune::cpu
