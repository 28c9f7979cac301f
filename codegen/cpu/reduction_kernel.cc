// Row and column reduction kernels.
//
// Row kernel (softmax, layer norm, plain row sums): each task takes whole
// rows. A row is processed in passes: pass p loops over the row's columns
// once, accumulating every reduce of that pass (vector accumulators from the
// identity when the reduce is a simple add/mul/max/min, else one scalar
// accumulator in order), then computes the per-row values that need them;
// the last loop computes and stores the fused root. Elementwise values are
// recomputed in each pass that needs them rather than stored.
//
// Column kernel: tasks take ranges of the output columns; each keeps a
// vector of accumulators over its columns while walking the rows.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/cpu/code_buffer.h"
#include "codegen/cpu/elemental.h"
#include "codegen/cpu/kernel_source.h"
#include "codegen/cpu/reduction_analysis.h"
#include "util/status_macros.h"

namespace xtune::cpu {
namespace {

std::string CombineExpr(Opcode op, const std::string& acc, const std::string& x) {
  switch (op) {
    case Opcode::kAdd: return absl::StrCat(acc, " + ", x);
    case Opcode::kMultiply: return absl::StrCat(acc, " * ", x);
    case Opcode::kMaximum: return absl::StrCat("xt_max(", acc, ", ", x, ")");
    default: return absl::StrCat("xt_min(", acc, ", ", x, ")");
  }
}

std::string StoreType(DType t) { return ElementalEmitter::StorageType(t); }

void EmitPointers(const Computation& fused, DType out_type, CodeBuffer* body) {
  body->Line("const XtArgs* xt_args = (const XtArgs*)xt_arg;");
  body->Line("const void* const* xt_in = xt_args->in;");
  for (int64_t i = 0; i < fused.parameter_count(); ++i) {
    body->Linef("const auto* __restrict xt_p", i, " = ", InputPointer(fused, i), ";");
  }
  body->Linef(StoreType(out_type), "* __restrict xt_out = (", StoreType(out_type),
              "*)xt_args->out;");
}

std::string Finish(const std::string& body, int width, int64_t tasks_of,
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

// Whether `x` is used (not looking past reduces) by anything computed after
// pass `p`: the reduces of later passes, later per-row values, the root.
bool UsedAfterPass(const Instruction* x, const RowFusion& f, size_t p,
                   const Instruction* root) {
  std::vector<const Instruction*> stack;
  for (size_t q = p + 1; q < f.passes.size(); ++q) {
    for (const Instruction* r : f.passes[q]) stack.push_back(r->operand(0));
  }
  for (size_t q = p; q < f.row_values.size(); ++q) {
    for (const Instruction* v : f.row_values[q]) stack.push_back(v);
  }
  stack.push_back(root);
  absl::flat_hash_set<const Instruction*> seen;
  while (!stack.empty()) {
    const Instruction* i = stack.back();
    stack.pop_back();
    if (i == x) return true;
    if (!seen.insert(i).second || i->opcode() == Opcode::kReduce) continue;
    for (const Instruction* op : i->operands()) stack.push_back(op);
  }
  return false;
}

}  // namespace

absl::StatusOr<std::string> RowReductionKernelSource(const Computation& fused,
                                                     const KernelConfig& config) {
  XTUNE_ASSIGN_OR_RETURN(RowFusion f, AnalyzeRowFusion(fused));
  int width = static_cast<int>(config.Get("vector_width", 1));
  int unroll = static_cast<int>(config.Get("unroll", 1));
  if (width < 1 || unroll < 1) {
    return absl::InvalidArgumentError("vector_width and unroll must be >= 1");
  }
  const int64_t rank = static_cast<int64_t>(f.full_dims.size());
  const int64_t last = f.full_dims.back();
  std::vector<int64_t> strides = RowMajorStrides(f.full_dims);
  auto pointer = [](int64_t i) { return absl::StrCat("xt_p", i); };
  ElementalEmitter vec(width, pointer, "xt_vconst");
  ElementalEmitter sca(1, pointer, "xt_sconst");
  absl::flat_hash_set<const Instruction*> bound;

  auto full_index = [&](const std::string& j, int64_t lane) {
    std::vector<IndexExpr> index;
    for (int64_t d = 0; d < rank; ++d) {
      if (d < f.kept) {
        index.push_back({absl::StrCat("xt_i", d), 0});
      } else if (d + 1 < rank) {
        index.push_back({absl::StrCat("xt_c", d), 0});
      } else {
        index.push_back({j, lane});
      }
    }
    return index;
  };
  // Index of a per-row value of shape `s` for the current row.
  auto row_index = [&](const Shape& s) {
    std::vector<IndexExpr> index;
    std::vector<int64_t> st = RowMajorStrides(s.dims());
    for (int64_t d = 0; d < s.rank(); ++d) {
      index.push_back({absl::StrCat("((xt_row / ", st[d], ") % ", s.dim(d), ")"), 0});
    }
    return index;
  };
  // Opens the loops over the columns but the last; the caller adds the last.
  auto open_column_loops = [&](CodeBuffer* body) {
    for (int64_t d = f.kept; d + 1 < rank; ++d) {
      body->Open(absl::StrCat("for (int64_t xt_c", d, " = 0; xt_c", d, " < ",
                              f.full_dims[d], "; ++xt_c", d, ")"));
    }
  };
  auto close_column_loops = [&](CodeBuffer* body) {
    for (int64_t d = f.kept; d + 1 < rank; ++d) body->Close();
  };

  // Column strides of the full index (0 for the row dimensions) and the
  // column offset of the current element, for row buffers.
  std::vector<int64_t> column_strides(rank, 0);
  for (int64_t d = f.kept; d < rank; ++d) column_strides[d] = strides[d];
  auto column_offset = [&](const std::string& j) {
    std::string off = j;
    for (int64_t d = f.kept; d + 1 < rank; ++d) {
      off = absl::StrCat(off, " + xt_c", d, " * ", strides[d]);
    }
    return off;
  };
  // Reduce inputs that later passes need again are stored in a row buffer
  // (they stay in L1/L2) instead of being recomputed: softmax's exp.
  std::vector<std::vector<std::string>> buffer_of(f.passes.size());
  int buffers = 0;
  for (size_t p = 0; p < f.passes.size(); ++p) {
    for (const Instruction* r : f.passes[p]) {
      const Instruction* x = r->operand(0);
      DType t = x->shape().dtype();
      bool f32 = t == DType::kF32 || t == DType::kF16 || t == DType::kBF16;
      bool cheap = x->opcode() == Opcode::kParameter;
      buffer_of[p].push_back(f32 && !cheap && UsedAfterPass(x, f, p, fused.root())
                                 ? absl::StrCat("xt_buf", buffers++)
                                 : "");
    }
  }

  // Parameters read once per element: the next row's data is prefetched
  // while later passes compute on the current row (which sits in L1), so
  // memory traffic overlaps compute.
  std::vector<int64_t> streamed;
  for (int64_t i = 0; i < fused.parameter_count(); ++i) {
    const Shape& ps = fused.parameter(i)->shape();
    if (ps.dims() == f.full_dims && ps.HasDefaultLayout()) streamed.push_back(i);
  }
  auto prefetch_next_row = [&](const std::string& j, CodeBuffer* out) {
    for (int64_t i : streamed) {
      out->Linef("__builtin_prefetch(xt_p", i, " + (xt_row + 1) * ", f.columns,
                 " + ", column_offset(j), ", 0, 3);");
    }
  };

  CodeBuffer body;
  body.Open("static void xt_task(void* xt_arg, int64_t xt_task_index)");
  EmitPointers(fused, fused.root()->shape().dtype(), &body);
  for (int b = 0; b < buffers; ++b) {
    body.Linef("float* xt_buf", b, " = (float*)malloc(sizeof(float) * ",
               std::max<int64_t>(f.columns, 1), ");");
  }
  body.Line("const int64_t xt_begin = xt_task_index * xt_args->per_task;");
  body.Linef("const int64_t xt_end = xt_begin + xt_args->per_task < ", f.rows,
             " ? xt_begin + xt_args->per_task : ", f.rows, ";");
  body.Open("for (int64_t xt_row = xt_begin; xt_row < xt_end; ++xt_row)");
  {
    int64_t stride = 1;
    for (int64_t d = f.kept - 1; d >= 0; --d) {
      body.Linef("const int64_t xt_i", d, " = (xt_row / ", stride, ") % ",
                 f.full_dims[d], ";");
      stride *= f.full_dims[d];
    }
  }
  int reduce_id = 0;
  for (size_t p = 0; p < f.passes.size(); ++p) {
    const std::vector<const Instruction*>& reduces = f.passes[p];
    bool vector_pass = width > 1;
    for (const Instruction* r : reduces) {
      vector_pass = vector_pass && AsSimpleReduction(*r).has_value() &&
                    ElementalEmitter::Vectorizable(r->operand(0), bound);
    }
    std::vector<std::string> names;
    for (const Instruction* r : reduces) {
      std::string n = absl::StrCat("xt_red", reduce_id++);
      names.push_back(n);
      XTUNE_ASSIGN_OR_RETURN(std::string init, sca.Emit(r->operand(1), {}, &body));
      if (vector_pass) {
        SimpleReduction s = *AsSimpleReduction(*r);
        for (int u = 0; u < unroll; ++u) {
          body.Linef("xt_vf ", n, "_v", u, " = xt_vsplat(", s.identity, ");");
        }
        body.Linef("float ", n, "_tail = ", s.identity, ";");
        body.Linef("const float ", n, "_init = ", init, ";");
      } else {
        body.Linef(ElementalEmitter::ScalarType(r->shape().dtype()), " ", n,
                   " = ", init, ";");
      }
    }
    open_column_loops(&body);
    body.Open("");  // scope of xt_j
    body.Line("int64_t xt_j = 0;");
    if (vector_pass) {
      body.Open(absl::StrCat("for (; xt_j + ", width * unroll, " <= ", last,
                             "; xt_j += ", width * unroll, ")"));
      if (p > 0) prefetch_next_row("xt_j", &body);
      for (int u = 0; u < unroll; ++u) {
        std::string j = u == 0 ? "xt_j" : absl::StrCat("(xt_j + ", u * width, ")");
        body.Open("");
        for (size_t k = 0; k < reduces.size(); ++k) {
          XTUNE_ASSIGN_OR_RETURN(
              std::string x, vec.Emit(reduces[k]->operand(0), full_index(j, 1), &body));
          if (!buffer_of[p][k].empty()) {
            body.Linef("xt_store(", buffer_of[p][k], " + ", column_offset(j), ", ", x, ");");
          }
          std::string acc = absl::StrCat(names[k], "_v", u);
          body.Linef(acc, " = ", CombineExpr(AsSimpleReduction(*reduces[k])->op, acc, x), ";");
        }
        body.Close();
      }
      body.Close();
    }
    body.Open(absl::StrCat("for (; xt_j < ", last, "; ++xt_j)"));
    for (size_t k = 0; k < reduces.size(); ++k) {
      XTUNE_ASSIGN_OR_RETURN(
          std::string x, sca.Emit(reduces[k]->operand(0), full_index("xt_j", 0), &body));
      if (!buffer_of[p][k].empty()) {
        body.Linef(buffer_of[p][k], "[", column_offset("xt_j"), "] = ", x, ";");
      }
      if (vector_pass) {
        std::string acc = names[k] + "_tail";
        body.Linef(acc, " = ", CombineExpr(AsSimpleReduction(*reduces[k])->op, acc, x), ";");
      } else {
        // General to_apply: inline it on (acc, x).
        const Computation& to_apply = *reduces[k]->called_computations()[0];
        sca.Bind(to_apply.parameter(0), names[k]);
        sca.Bind(to_apply.parameter(1), x);
        body.Open("");
        XTUNE_ASSIGN_OR_RETURN(std::string c, sca.Emit(to_apply.root(), {}, &body));
        body.Linef(names[k], " = ", c, ";");
        body.Close();
      }
    }
    body.Close();
    body.Close();  // scope of xt_j
    close_column_loops(&body);
    // Finalize and bind the reduce results for the rest of the row.
    for (size_t k = 0; k < reduces.size(); ++k) {
      const std::string& n = names[k];
      if (vector_pass) {
        Opcode op = AsSimpleReduction(*reduces[k])->op;
        body.Linef("float ", n, " = ", n, "_tail;");
        for (int u = 0; u < unroll; ++u) {
          body.Linef("for (int l = 0; l < XT_W; ++l) ", n, " = ",
                     CombineExpr(op, n, absl::StrCat(n, "_v", u, "[l]")), ";");
        }
        body.Linef(n, " = ", CombineExpr(op, n + "_init", n), ";");
        if (reduces[k]->shape().dtype() == DType::kF16) {
          body.Linef(n, " = xt_round_h(", n, ");");
        } else if (reduces[k]->shape().dtype() == DType::kBF16) {
          body.Linef(n, " = xt_round_bf(", n, ");");
        }
      }
      if (!buffer_of[p][k].empty()) {
        const Instruction* x = reduces[k]->operand(0);
        sca.BindBuffer(x, buffer_of[p][k], column_strides);
        vec.BindBuffer(x, buffer_of[p][k], column_strides);
        bound.insert(x);
      }
      sca.Bind(reduces[k], n);
      if (width > 1) {
        body.Linef("const xt_vf ", n, "_splat = xt_vsplat(", n, ");");
        vec.Bind(reduces[k], n + "_splat");
      }
      bound.insert(reduces[k]);
    }
    for (const Instruction* x : f.row_values[p]) {
      XTUNE_ASSIGN_OR_RETURN(std::string v, sca.Emit(x, row_index(x->shape()), &body));
      std::string n = absl::StrCat("xt_rowv", reduce_id++);
      body.Linef("const auto ", n, " = ", v, ";");
      sca.Bind(x, n);
      if (width > 1 && x->shape().dtype() != DType::kPred &&
          IsFloat(x->shape().dtype()) && x->shape().dtype() != DType::kF64) {
        body.Linef("const xt_vf ", n, "_splat = xt_vsplat(", n, ");");
        vec.Bind(x, n + "_splat");
        bound.insert(x);
      }
    }
  }
  // The root.
  const Instruction* root = fused.root();
  DType out_type = root->shape().dtype();
  if (!f.root_is_full) {
    XTUNE_ASSIGN_OR_RETURN(std::string v, sca.Emit(root, row_index(root->shape()), &body));
    body.Linef("xt_out[xt_row] = ", ElementalEmitter::ToStorage(v, out_type), ";");
  } else {
    bool vector_store = width > 1 && ElementalEmitter::Vectorizable(root, bound);
    open_column_loops(&body);
    std::string offset = absl::StrCat("xt_row * ", f.columns);
    for (int64_t d = f.kept; d + 1 < rank; ++d) {
      offset = absl::StrCat(offset, " + xt_c", d, " * ", strides[d]);
    }
    body.Open("");  // scope of xt_j
    body.Line("int64_t xt_j = 0;");
    if (vector_store) {
      body.Open(absl::StrCat("for (; xt_j + ", width * unroll, " <= ", last,
                             "; xt_j += ", width * unroll, ")"));
      if (!f.passes.empty()) prefetch_next_row("xt_j", &body);
      for (int u = 0; u < unroll; ++u) {
        std::string j = u == 0 ? "xt_j" : absl::StrCat("(xt_j + ", u * width, ")");
        body.Open("");
        XTUNE_ASSIGN_OR_RETURN(std::string v, vec.Emit(root, full_index(j, 1), &body));
        std::string at = absl::StrCat(offset, " + ", j);
        switch (out_type) {
          case DType::kF32: body.Linef("xt_store(xt_out + ", at, ", ", v, ");"); break;
          case DType::kF16: body.Linef("xt_store_h(xt_out + ", at, ", ", v, ");"); break;
          case DType::kBF16: body.Linef("xt_store_bf(xt_out + ", at, ", ", v, ");"); break;
          default:
            body.Linef("for (int l = 0; l < XT_W; ++l) xt_out[", at, " + l] = ", v,
                       "[l] ? 1 : 0;");
        }
        body.Close();
      }
      body.Close();
    }
    body.Open(absl::StrCat("for (; xt_j < ", last, "; ++xt_j)"));
    XTUNE_ASSIGN_OR_RETURN(std::string v, sca.Emit(root, full_index("xt_j", 0), &body));
    body.Linef("xt_out[", offset, " + xt_j] = ", ElementalEmitter::ToStorage(v, out_type), ";");
    body.Close();
    body.Close();  // scope of xt_j
    close_column_loops(&body);
  }
  body.Close();  // rows
  for (int b = 0; b < buffers; ++b) body.Linef("free(xt_buf", b, ");");
  body.Close();  // xt_task
  return Finish(body.text(), width, f.rows, {vec.globals(), sca.globals()});
}

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
  EmitPointers(fused, t, &body);
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
  return Finish(body.text(), width, columns, {vec.globals(), sca.globals()});
}

}  // namespace xtune::cpu
