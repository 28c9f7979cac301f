#include "codegen/cpu/row_reduction_kernel.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "codegen/cpu/kernel_source.h"
#include "codegen/cpu/reduction_emit.h"
#include "util/status_macros.h"

namespace xtune::cpu {
namespace {

std::string Pointer(int64_t i) { return absl::StrCat("xt_p", i); }

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

std::vector<std::vector<std::string>> PlanRowBuffers(const Computation& fused,
                                                     const RowFusion& f) {
  std::vector<std::vector<std::string>> buffer_of(f.passes.size());
  int buffers = 0;
  for (size_t p = 0; p < f.passes.size(); ++p) {
    for (const Instruction* r : f.passes[p]) {
      const Instruction* x = r->operand(0);
      DType t = x->shape().dtype();
      bool f32 = t == DType::kF32 || t == DType::kF16 || t == DType::kBF16;
      bool cheap = x->opcode() == Opcode::kParameter;
      buffer_of[p].push_back(
          f32 && !cheap && UsedAfterPass(x, f, p, fused.root())
              ? absl::StrCat("xt_buf", buffers++)
              : "");
    }
  }
  return buffer_of;
}

std::vector<int64_t> StreamedParameters(const Computation& fused,
                                        const RowFusion& f) {
  std::vector<int64_t> streamed;
  for (int64_t i = 0; i < fused.parameter_count(); ++i) {
    const Shape& ps = fused.parameter(i)->shape();
    if (ps.dims() == f.full_dims && ps.HasDefaultLayout()) streamed.push_back(i);
  }
  return streamed;
}

absl::StatusOr<std::unique_ptr<RowKernelWriter>> RowKernelWriter::Create(
    const Computation& fused, const KernelConfig& config) {
  XTUNE_ASSIGN_OR_RETURN(RowFusion f, AnalyzeRowFusion(fused));
  int width = static_cast<int>(config.Get("vector_width", 1));
  int unroll = static_cast<int>(config.Get("unroll", 1));
  if (width < 1 || unroll < 1) {
    return absl::InvalidArgumentError("vector_width and unroll must be >= 1");
  }
  return std::unique_ptr<RowKernelWriter>(
      new RowKernelWriter(fused, std::move(f), width, unroll));
}

RowKernelWriter::RowKernelWriter(const Computation& fused, RowFusion f,
                                 int width, int unroll)
    : fused_(fused),
      f_(std::move(f)),
      width_(width),
      unroll_(unroll),
      rank_(static_cast<int64_t>(f_.full_dims.size())),
      last_(f_.full_dims.back()),
      strides_(RowMajorStrides(f_.full_dims)),
      vec_(width, Pointer, "xt_vconst"),
      sca_(1, Pointer, "xt_sconst") {
  column_strides_.assign(rank_, 0);
  for (int64_t d = f_.kept; d < rank_; ++d) column_strides_[d] = strides_[d];
  buffer_of_ = PlanRowBuffers(fused_, f_);
  for (const auto& pass : buffer_of_) {
    for (const std::string& b : pass) buffers_ += b.empty() ? 0 : 1;
  }
  streamed_ = StreamedParameters(fused_, f_);
}

std::vector<IndexExpr> RowKernelWriter::FullIndex(const std::string& j,
                                                  int64_t lane) const {
  std::vector<IndexExpr> index;
  for (int64_t d = 0; d < rank_; ++d) {
    if (d < f_.kept) {
      index.push_back({absl::StrCat("xt_i", d), 0});
    } else if (d + 1 < rank_) {
      index.push_back({absl::StrCat("xt_c", d), 0});
    } else {
      index.push_back({j, lane});
    }
  }
  return index;
}

std::vector<IndexExpr> RowKernelWriter::RowIndex(const Shape& s) const {
  std::vector<IndexExpr> index;
  std::vector<int64_t> st = RowMajorStrides(s.dims());
  for (int64_t d = 0; d < s.rank(); ++d) {
    index.push_back(
        {absl::StrCat("((xt_row / ", st[d], ") % ", s.dim(d), ")"), 0});
  }
  return index;
}

void RowKernelWriter::OpenColumnLoops(CodeBuffer* body) const {
  for (int64_t d = f_.kept; d + 1 < rank_; ++d) {
    body->Open(absl::StrCat("for (int64_t xt_c", d, " = 0; xt_c", d, " < ",
                            f_.full_dims[d], "; ++xt_c", d, ")"));
  }
}

void RowKernelWriter::CloseColumnLoops(CodeBuffer* body) const {
  for (int64_t d = f_.kept; d + 1 < rank_; ++d) body->Close();
}

std::string RowKernelWriter::ColumnOffset(const std::string& j) const {
  std::string off = j;
  for (int64_t d = f_.kept; d + 1 < rank_; ++d) {
    off = absl::StrCat(off, " + xt_c", d, " * ", strides_[d]);
  }
  return off;
}

void RowKernelWriter::PrefetchNextRow(const std::string& j,
                                      CodeBuffer* body) const {
  for (int64_t i : streamed_) {
    body->Linef("__builtin_prefetch(xt_p", i, " + (xt_row + 1) * ", f_.columns,
                " + ", ColumnOffset(j), ", 0, 3);");
  }
}

bool RowKernelWriter::VectorPass(size_t p) const {
  bool vector_pass = width_ > 1;
  for (const Instruction* r : f_.passes[p]) {
    vector_pass = vector_pass && AsSimpleReduction(*r).has_value() &&
                  ElementalEmitter::Vectorizable(r->operand(0), bound_);
  }
  return vector_pass;
}

absl::StatusOr<std::string> RowKernelWriter::Write() {
  CodeBuffer body;
  EmitPrologue(&body);
  for (size_t p = 0; p < f_.passes.size(); ++p) {
    XTUNE_RETURN_IF_ERROR(EmitPass(p, &body));
  }
  XTUNE_RETURN_IF_ERROR(EmitRoot(&body));
  EmitEpilogue(&body);
  return FinishReductionKernel(body.text(), width_, f_.rows,
                               {vec_.globals(), sca_.globals()});
}

void RowKernelWriter::EmitPrologue(CodeBuffer* body) {
  body->Open("static void xt_task(void* xt_arg, int64_t xt_task_index)");
  EmitReductionPointers(fused_, fused_.root()->shape().dtype(), body);
  for (int b = 0; b < buffers_; ++b) {
    body->Linef("float* xt_buf", b, " = (float*)malloc(sizeof(float) * ",
                std::max<int64_t>(f_.columns, 1), ");");
  }
  body->Line("const int64_t xt_begin = xt_task_index * xt_args->per_task;");
  body->Linef("const int64_t xt_end = xt_begin + xt_args->per_task < ", f_.rows,
              " ? xt_begin + xt_args->per_task : ", f_.rows, ";");
  body->Open("for (int64_t xt_row = xt_begin; xt_row < xt_end; ++xt_row)");
  int64_t stride = 1;
  for (int64_t d = f_.kept - 1; d >= 0; --d) {
    body->Linef("const int64_t xt_i", d, " = (xt_row / ", stride, ") % ",
                f_.full_dims[d], ";");
    stride *= f_.full_dims[d];
  }
}

absl::Status RowKernelWriter::EmitPass(size_t p, CodeBuffer* body) {
  bool vector_pass = VectorPass(p);
  std::vector<std::string> names;
  for (size_t k = 0; k < f_.passes[p].size(); ++k) {
    names.push_back(absl::StrCat("xt_red", reduce_id_++));
  }
  XTUNE_RETURN_IF_ERROR(EmitAccumulators(p, vector_pass, names, body));
  XTUNE_RETURN_IF_ERROR(EmitPassLoop(p, vector_pass, names, body));
  FinalizePass(p, vector_pass, names, body);
  return EmitRowValues(p, body);
}

absl::Status RowKernelWriter::EmitAccumulators(
    size_t p, bool vector_pass, const std::vector<std::string>& names,
    CodeBuffer* body) {
  const std::vector<const Instruction*>& reduces = f_.passes[p];
  for (size_t k = 0; k < reduces.size(); ++k) {
    const Instruction* r = reduces[k];
    const std::string& n = names[k];
    XTUNE_ASSIGN_OR_RETURN(std::string init,
                           sca_.Emit(r->operand(1), {}, body));
    if (vector_pass) {
      SimpleReduction s = *AsSimpleReduction(*r);
      for (int u = 0; u < unroll_; ++u) {
        body->Linef("xt_vf ", n, "_v", u, " = xt_vsplat(", s.identity, ");");
      }
      body->Linef("float ", n, "_tail = ", s.identity, ";");
      body->Linef("const float ", n, "_init = ", init, ";");
    } else {
      body->Linef(ElementalEmitter::ScalarType(r->shape().dtype()), " ", n,
                  " = ", init, ";");
    }
  }
  return absl::OkStatus();
}

absl::Status RowKernelWriter::EmitPassLoop(
    size_t p, bool vector_pass, const std::vector<std::string>& names,
    CodeBuffer* body) {
  const std::vector<const Instruction*>& reduces = f_.passes[p];
  OpenColumnLoops(body);
  body->Open("");  // scope of xt_j
  body->Line("int64_t xt_j = 0;");
  if (vector_pass) {
    body->Open(absl::StrCat("for (; xt_j + ", width_ * unroll_, " <= ", last_,
                            "; xt_j += ", width_ * unroll_, ")"));
    if (p > 0) PrefetchNextRow("xt_j", body);
    for (int u = 0; u < unroll_; ++u) {
      std::string j =
          u == 0 ? "xt_j" : absl::StrCat("(xt_j + ", u * width_, ")");
      body->Open("");
      for (size_t k = 0; k < reduces.size(); ++k) {
        XTUNE_ASSIGN_OR_RETURN(
            std::string x,
            vec_.Emit(reduces[k]->operand(0), FullIndex(j, 1), body));
        if (!buffer_of_[p][k].empty()) {
          body->Linef("xt_store(", buffer_of_[p][k], " + ", ColumnOffset(j),
                      ", ", x, ");");
        }
        std::string acc = absl::StrCat(names[k], "_v", u);
        body->Linef(acc, " = ",
                    CombineExpr(AsSimpleReduction(*reduces[k])->op, acc, x),
                    ";");
      }
      body->Close();
    }
    body->Close();
  }
  body->Open(absl::StrCat("for (; xt_j < ", last_, "; ++xt_j)"));
  for (size_t k = 0; k < reduces.size(); ++k) {
    XTUNE_ASSIGN_OR_RETURN(
        std::string x,
        sca_.Emit(reduces[k]->operand(0), FullIndex("xt_j", 0), body));
    if (!buffer_of_[p][k].empty()) {
      body->Linef(buffer_of_[p][k], "[", ColumnOffset("xt_j"), "] = ", x, ";");
    }
    if (vector_pass) {
      std::string acc = names[k] + "_tail";
      body->Linef(acc, " = ",
                  CombineExpr(AsSimpleReduction(*reduces[k])->op, acc, x),
                  ";");
    } else {
      // General to_apply: inline it on (acc, x).
      const Computation& to_apply = *reduces[k]->called_computations()[0];
      sca_.Bind(to_apply.parameter(0), names[k]);
      sca_.Bind(to_apply.parameter(1), x);
      body->Open("");
      XTUNE_ASSIGN_OR_RETURN(std::string c,
                             sca_.Emit(to_apply.root(), {}, body));
      body->Linef(names[k], " = ", c, ";");
      body->Close();
    }
  }
  body->Close();
  body->Close();  // scope of xt_j
  CloseColumnLoops(body);
  return absl::OkStatus();
}

void RowKernelWriter::FinalizePass(size_t p, bool vector_pass,
                                   const std::vector<std::string>& names,
                                   CodeBuffer* body) {
  const std::vector<const Instruction*>& reduces = f_.passes[p];
  // Finalize and bind the reduce results for the rest of the row.
  for (size_t k = 0; k < reduces.size(); ++k) {
    const std::string& n = names[k];
    if (vector_pass) {
      Opcode op = AsSimpleReduction(*reduces[k])->op;
      body->Linef("float ", n, " = ", n, "_tail;");
      for (int u = 0; u < unroll_; ++u) {
        body->Linef("for (int l = 0; l < XT_W; ++l) ", n, " = ",
                    CombineExpr(op, n, absl::StrCat(n, "_v", u, "[l]")), ";");
      }
      body->Linef(n, " = ", CombineExpr(op, n + "_init", n), ";");
      if (reduces[k]->shape().dtype() == DType::kF16) {
        body->Linef(n, " = xt_round_h(", n, ");");
      } else if (reduces[k]->shape().dtype() == DType::kBF16) {
        body->Linef(n, " = xt_round_bf(", n, ");");
      }
    }
    if (!buffer_of_[p][k].empty()) {
      const Instruction* x = reduces[k]->operand(0);
      sca_.BindBuffer(x, buffer_of_[p][k], column_strides_);
      vec_.BindBuffer(x, buffer_of_[p][k], column_strides_);
      bound_.insert(x);
    }
    sca_.Bind(reduces[k], n);
    if (width_ > 1) {
      body->Linef("const xt_vf ", n, "_splat = xt_vsplat(", n, ");");
      vec_.Bind(reduces[k], n + "_splat");
    }
    bound_.insert(reduces[k]);
  }
}

absl::Status RowKernelWriter::EmitRowValues(size_t p, CodeBuffer* body) {
  for (const Instruction* x : f_.row_values[p]) {
    XTUNE_ASSIGN_OR_RETURN(std::string v,
                           sca_.Emit(x, RowIndex(x->shape()), body));
    std::string n = absl::StrCat("xt_rowv", reduce_id_++);
    body->Linef("const auto ", n, " = ", v, ";");
    sca_.Bind(x, n);
    if (width_ > 1 && x->shape().dtype() != DType::kPred &&
        IsFloat(x->shape().dtype()) && x->shape().dtype() != DType::kF64) {
      body->Linef("const xt_vf ", n, "_splat = xt_vsplat(", n, ");");
      vec_.Bind(x, n + "_splat");
      bound_.insert(x);
    }
  }
  return absl::OkStatus();
}

absl::Status RowKernelWriter::EmitRoot(CodeBuffer* body) {
  const Instruction* root = fused_.root();
  DType out_type = root->shape().dtype();
  if (!f_.root_is_full) {
    XTUNE_ASSIGN_OR_RETURN(std::string v,
                           sca_.Emit(root, RowIndex(root->shape()), body));
    body->Linef("xt_out[xt_row] = ", ElementalEmitter::ToStorage(v, out_type),
                ";");
    return absl::OkStatus();
  }
  bool vector_store = width_ > 1 && ElementalEmitter::Vectorizable(root, bound_);
  OpenColumnLoops(body);
  std::string offset = absl::StrCat("xt_row * ", f_.columns);
  for (int64_t d = f_.kept; d + 1 < rank_; ++d) {
    offset = absl::StrCat(offset, " + xt_c", d, " * ", strides_[d]);
  }
  body->Open("");  // scope of xt_j
  body->Line("int64_t xt_j = 0;");
  if (vector_store) {
    body->Open(absl::StrCat("for (; xt_j + ", width_ * unroll_, " <= ", last_,
                            "; xt_j += ", width_ * unroll_, ")"));
    if (!f_.passes.empty()) PrefetchNextRow("xt_j", body);
    for (int u = 0; u < unroll_; ++u) {
      std::string j =
          u == 0 ? "xt_j" : absl::StrCat("(xt_j + ", u * width_, ")");
      body->Open("");
      XTUNE_ASSIGN_OR_RETURN(std::string v,
                             vec_.Emit(root, FullIndex(j, 1), body));
      std::string at = absl::StrCat(offset, " + ", j);
      switch (out_type) {
        case DType::kF32:
          body->Linef("xt_store(xt_out + ", at, ", ", v, ");");
          break;
        case DType::kF16:
          body->Linef("xt_store_h(xt_out + ", at, ", ", v, ");");
          break;
        case DType::kBF16:
          body->Linef("xt_store_bf(xt_out + ", at, ", ", v, ");");
          break;
        default:
          body->Linef("for (int l = 0; l < XT_W; ++l) xt_out[", at, " + l] = ",
                      IsFp8(out_type)
                          ? ElementalEmitter::ToStorage(absl::StrCat(v, "[l]"),
                                                        out_type)
                          : absl::StrCat(v, "[l] ? 1 : 0"),
                      ";");
      }
      body->Close();
    }
    body->Close();
  }
  body->Open(absl::StrCat("for (; xt_j < ", last_, "; ++xt_j)"));
  XTUNE_ASSIGN_OR_RETURN(std::string v,
                         sca_.Emit(root, FullIndex("xt_j", 0), body));
  body->Linef("xt_out[", offset, " + xt_j] = ",
              ElementalEmitter::ToStorage(v, out_type), ";");
  body->Close();
  body->Close();  // scope of xt_j
  CloseColumnLoops(body);
  return absl::OkStatus();
}

void RowKernelWriter::EmitEpilogue(CodeBuffer* body) {
  body->Close();  // rows
  for (int b = 0; b < buffers_; ++b) body->Linef("free(xt_buf", b, ");");
  body->Close();  // xt_task
}

absl::StatusOr<std::string> RowReductionKernelSource(
    const Computation& fused, const KernelConfig& config) {
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<RowKernelWriter> writer,
                         RowKernelWriter::Create(fused, config));
  return writer->Write();
}

}  // namespace xtune::cpu
