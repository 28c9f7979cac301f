#include "codegen/cuda/cuda_kernels.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/cpu/code_buffer.h"
#include "codegen/cpu/cpu_candidates.h"
#include "codegen/cpu/elemental.h"
#include "codegen/cpu/reduction_analysis.h"
#include "codegen/cuda/kernel_frame.h"
#include "codegen/cuda/scatter_kernel.h"
#include "codegen/cuda/sort_kernel.h"
#include "codegen/kernel_text.h"
#include "fusion/in_place.h"
#include "util/status_macros.h"

namespace xtune::cuda {

// Defined in the generated prelude_text.cc.
extern const char kXtGpuPrelude[];
extern const char kXtEmuPrelude[];

const std::string& GpuPrelude() {
  static const std::string* s =
      new std::string(std::string(kXtGpuPrelude) + kXtScalarHelpers);
  return *s;
}

const std::string& EmulatorPrelude() {
  static const std::string* s =
      new std::string(std::string(kXtEmuPrelude) + kXtScalarHelpers);
  return *s;
}

namespace {

using cpu::CodeBuffer;
using cpu::ElementalEmitter;
using cpu::IndexExpr;

Frame MakeFrame(const Computation& fused, int block) {
  std::vector<DType> inputs;
  for (int64_t i = 0; i < fused.parameter_count(); ++i) {
    inputs.push_back(fused.parameter(i)->shape().dtype());
  }
  return MakeKernelFrame(inputs, fused.root()->shape().dtype(), block);
}

// Declares `<prefix><d> = (lin / stride) % size` for the (d, size) pairs
// of `major_to_minor`, the minor one first.
void Decompose(const std::string& lin, const std::string& prefix,
               const std::vector<std::pair<int64_t, int64_t>>& major_to_minor,
               CodeBuffer* body) {
  int64_t stride = 1;
  for (auto it = major_to_minor.rbegin(); it != major_to_minor.rend(); ++it) {
    body->Linef("const int64_t ", prefix, it->first, " = (", lin, " / ", stride,
                ") % ", it->second, ";");
    stride *= it->second;
  }
}

// (dimension, size) pairs from major to minor in `layout`'s physical order,
// the sizes from `dims` (an output's, or an update's laid out like it).
std::vector<std::pair<int64_t, int64_t>> PhysicalOrder(
    const Shape& layout, const std::vector<int64_t>& dims) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (auto it = layout.minor_to_major().rbegin();
       it != layout.minor_to_major().rend(); ++it) {
    out.push_back({*it, dims[*it]});
  }
  return out;
}

std::string Store(const Shape& shape, const std::string& offset,
                  const std::string& v) {
  return absl::StrCat("XT_G(xt_out)[", offset, "] = ",
                      ElementalEmitter::ToStorage(v, shape.dtype()), ";");
}

// The parameters every kind has.
absl::Status CheckCommon(int64_t block, int64_t width, int64_t unroll) {
  if (block < 32 || block > 1024 || block % 32 != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "block_size=", block, ": must be a multiple of 32 from 32 to 1024"));
  }
  if (width < 1 || width > 8 || unroll < 1 || unroll > 8) {
    return absl::InvalidArgumentError(
        "vector_width and unroll must be from 1 to 8");
  }
  return absl::OkStatus();
}

// ---- Loop fusions.

// An in-place dynamic-update-slice fusion (fusion/in_place.h): the threads
// walk the update in the output's physical order as LoopKernel walks an
// output (unroll groups of `width` consecutive elements; consecutive
// threads take consecutive groups, so stores coalesce) and store each
// element at the clamped start plus its index. GpuKernel (and the
// emulator) copy the operand into the output first when the buffers
// differ.
absl::StatusOr<CudaKernelSource> InPlaceDusKernel(
    const Computation& fused, int64_t param, int64_t block, int64_t width,
    int64_t unroll, const CudaKernelOptions& options) {
  const Instruction* dus = fused.root();
  const Instruction* update = dus->operand(1);
  const Shape& shape = dus->shape();
  const std::vector<int64_t> strides = shape.PhysicalStrides();
  const int64_t n = update->shape().ElementCount();
  const int64_t per_block = block * width * unroll;
  Frame frame = MakeFrame(fused, static_cast<int>(block));
  ElementalEmitter emitter = MakeEmitter("xt_const");
  const auto physical = PhysicalOrder(shape, update->shape().dims());
  CodeBuffer body;
  body.Open(frame.signature);
  XTUNE_ASSIGN_OR_RETURN(
      std::vector<std::string> starts,
      emitter.EmitClampedStarts(dus, 2, update->shape(), &body));
  body.Linef("const int64_t xt_base = (int64_t)xt_bid() * ", per_block, ";");
  for (int64_t g = 0; g < width * unroll; ++g) {
    const int64_t u = g / width, v = g % width;
    body.Open("");
    body.Linef("const int64_t xt_lin = xt_base + ((int64_t)", u * block,
               " + xt_tid()) * ", width, " + ", v, ";");
    body.Open(absl::StrCat("if (xt_lin < ", n, ")"));
    Decompose("xt_lin", "xt_i", physical, &body);
    std::vector<IndexExpr> index;
    std::string offset = "0";
    for (int64_t d = 0; d < shape.rank(); ++d) {
      index.push_back({absl::StrCat("xt_i", d), 0});
      absl::StrAppend(&offset, " + (xt_i", d, " + ", starts[d], ") * ",
                      strides[d]);
    }
    XTUNE_ASSIGN_OR_RETURN(std::string value,
                           emitter.Emit(update, index, &body));
    body.Line(Store(shape, offset, value));
    body.Close();
    body.Close();
  }
  body.Close();
  const int64_t grid = std::max<int64_t>(1, CeilDiv(n, per_block));
  CudaKernelSource source =
      Assemble(options, frame, emitter, body, grid, block);
  source.in_place_input = static_cast<int>(param);
  return source;
}

absl::StatusOr<CudaKernelSource> LoopKernel(const Computation& fused,
                                            const KernelConfig& config,
                                            const CudaKernelOptions& options) {
  const Instruction* root = fused.root();
  const Shape& shape = root->shape();
  if (shape.IsTuple()) {
    return absl::UnimplementedError("fusions with tuple results");
  }
  int64_t block = config.Get("block_size", 256);
  int64_t width = config.Get("vector_width", 1);
  int64_t unroll = config.Get("unroll", 1);
  XTUNE_RETURN_IF_ERROR(CheckCommon(block, width, unroll));
  if (std::optional<int64_t> param = InPlaceDusParameter(fused)) {
    return InPlaceDusKernel(fused, *param, block, width, unroll, options);
  }
  const int64_t n = shape.ElementCount();
  const int64_t per_block = block * width * unroll;
  Frame frame = MakeFrame(fused, static_cast<int>(block));
  ElementalEmitter emitter = MakeEmitter("xt_const");
  const auto physical = PhysicalOrder(shape, shape.dims());
  CodeBuffer body;
  body.Open(frame.signature);
  body.Linef("const int64_t xt_base = (int64_t)xt_bid() * ", per_block, ";");
  for (int64_t u = 0; u < unroll; ++u) {
    for (int64_t v = 0; v < width; ++v) {
      body.Open("");
      body.Linef("const int64_t xt_lin = xt_base + ((int64_t)", u * block,
                 " + xt_tid()) * ", width, " + ", v, ";");
      body.Open(absl::StrCat("if (xt_lin < ", n, ")"));
      Decompose("xt_lin", "xt_i", physical, &body);
      std::vector<IndexExpr> index;
      for (int64_t d = 0; d < shape.rank(); ++d) {
        index.push_back({absl::StrCat("xt_i", d), 0});
      }
      XTUNE_ASSIGN_OR_RETURN(std::string value, emitter.Emit(root, index, &body));
      body.Line(Store(shape, "xt_lin", value));
      body.Close();
      body.Close();
    }
  }
  body.Close();
  return Assemble(options, frame, emitter, body, CeilDiv(n, per_block), block);
}

// ---- Reductions: shared pieces.

const char* Combiner(Opcode op) {
  switch (op) {
    case Opcode::kAdd: return "xt_comb_add";
    case Opcode::kMultiply: return "xt_comb_mul";
    case Opcode::kMaximum: return "xt_comb_max";
    default: return "xt_comb_min";
  }
}

// The combine of `a` and `b` for `reduce`, rounded to its type when asked.
std::string Combine(const Instruction& reduce, const cpu::SimpleReduction& r,
                    const std::string& a, const std::string& b, bool round) {
  std::string e = absl::StrCat(Combiner(r.op), "(", a, ", ", b, ")");
  DType t = reduce.shape().dtype();
  return round ? cpu::ElementalEmitter::RoundTo(e, t) : e;
}

absl::StatusOr<cpu::SimpleReduction> Simple(const Instruction& reduce) {
  std::optional<cpu::SimpleReduction> r = cpu::AsSimpleReduction(reduce);
  if (!r.has_value() || reduce.shape().IsTuple()) {
    return absl::UnimplementedError(absl::StrCat(
        "reduce '", reduce.name(),
        "' is not an add/multiply/maximum/minimum of f16/bf16/f32"));
  }
  return *r;
}

// Multi-index of the reduced dims [kept, rank) of default-layout `dims`
// from the linear column `j`; declares xt_c<d>.
void ColumnIndex(const std::vector<int64_t>& dims, int64_t kept,
                 const std::string& j, CodeBuffer* body) {
  std::vector<std::pair<int64_t, int64_t>> reduced;
  for (int64_t d = kept; d < static_cast<int64_t>(dims.size()); ++d) {
    reduced.push_back({d, dims[d]});
  }
  Decompose(j, "xt_c", reduced, body);
}

// ---- Row reductions.

absl::StatusOr<CudaKernelSource> RowKernel(const Computation& fused,
                                           const KernelConfig& config,
                                           const CudaKernelOptions& options) {
  XTUNE_ASSIGN_OR_RETURN(cpu::RowFusion f, cpu::AnalyzeRowFusion(fused));
  int64_t block = config.Get("block_size", 256);
  int64_t rows_per_block = config.Get("rows_per_block", 1);
  int64_t width = config.Get("vector_width", 1);
  int64_t unroll = config.Get("unroll", 1);
  XTUNE_RETURN_IF_ERROR(CheckCommon(block, width, unroll));
  if (rows_per_block < 1 || block % rows_per_block != 0 ||
      (block / rows_per_block) % 32 != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rows_per_block=", rows_per_block, ": block_size / rows_per_block must "
        "be a multiple of 32"));
  }
  if (f.rows == 0 || f.columns == 0) {
    return absl::UnimplementedError("a row reduction of an empty array");
  }
  const int64_t group = block / rows_per_block;
  const int64_t warps_per_group = group / 32;
  const Instruction* root = fused.root();
  if (root->shape().IsTuple()) {
    return absl::UnimplementedError("fusions with tuple results");
  }
  const bool round = options.round_low_precision_accumulators;
  const int64_t rank = static_cast<int64_t>(f.full_dims.size());

  Frame frame = MakeFrame(fused, static_cast<int>(block));
  ElementalEmitter emitter = MakeEmitter("xt_const");
  CodeBuffer body;
  body.Open(frame.signature);
  body.Linef("const int xt_g = xt_tid() / ", group, ";");
  body.Linef("const int xt_gt = xt_tid() % ", group, ";");
  body.Linef("const int64_t xt_row = (int64_t)xt_bid() * ", rows_per_block,
             " + xt_g;");
  // Threads of a row past the end compute the last row (so every thread
  // takes part in the barriers and shuffles) and store nothing.
  body.Linef("const int64_t xt_rc = xt_row < ", f.rows, " ? xt_row : ",
             f.rows - 1, ";");
  {
    std::vector<std::pair<int64_t, int64_t>> rows;
    for (int64_t d = 0; d < f.kept; ++d) rows.push_back({d, f.full_dims[d]});
    Decompose("xt_rc", "xt_i", rows, &body);
  }
  auto full_index = [&] {
    std::vector<IndexExpr> index;
    for (int64_t d = 0; d < rank; ++d) {
      index.push_back({absl::StrCat(d < f.kept ? "xt_i" : "xt_c", d), 0});
    }
    return index;
  };
  // A per-row value's index: its dimensions are the row dimensions in
  // order, with any dimensions of size 1 between or after them.
  auto row_index = [&](const Shape& s) -> absl::StatusOr<std::vector<IndexExpr>> {
    std::vector<IndexExpr> index;
    int64_t next = 0;
    for (int64_t d = 0; d < s.rank(); ++d) {
      while (next < f.kept && f.full_dims[next] == 1) ++next;
      if (next < f.kept && s.dim(d) == f.full_dims[next]) {
        index.push_back({absl::StrCat("xt_i", next++), 0});
      } else if (s.dim(d) == 1) {
        index.push_back({"0", 0});
      } else {
        next = -1;
        break;
      }
    }
    while (next >= 0 && next < f.kept && f.full_dims[next] == 1) ++next;
    if (next != f.kept) {
      return absl::UnimplementedError(absl::StrCat(
          "a per-row value of shape ", s.ToString(false)));
    }
    return index;
  };
  // The loop over this thread's columns of the row; `each` emits the work
  // at column xt_j (indices xt_c<d> declared).
  auto column_loop = [&](const std::function<absl::Status()>& each) -> absl::Status {
    body.Open(absl::StrCat("for (int64_t xt_j0 = (int64_t)xt_gt * ", width,
                           "; xt_j0 < ", f.columns, "; xt_j0 += ",
                           group * width * unroll, ")"));
    for (int64_t u = 0; u < unroll; ++u) {
      for (int64_t v = 0; v < width; ++v) {
        body.Open("");
        body.Linef("const int64_t xt_j = xt_j0 + ", u * group * width + v, ";");
        body.Open(absl::StrCat("if (xt_j < ", f.columns, ")"));
        ColumnIndex(f.full_dims, f.kept, "xt_j", &body);
        XTUNE_RETURN_IF_ERROR(each());
        body.Close();
        body.Close();
      }
    }
    body.Close();
    return absl::OkStatus();
  };

  int reduce_id = 0;
  for (size_t p = 0; p < f.passes.size(); ++p) {
    const std::vector<const Instruction*>& reduces = f.passes[p];
    std::vector<cpu::SimpleReduction> simple;
    std::vector<std::string> acc;
    for (const Instruction* r : reduces) {
      XTUNE_ASSIGN_OR_RETURN(cpu::SimpleReduction s, Simple(*r));
      simple.push_back(s);
      acc.push_back(absl::StrCat("xt_acc", reduce_id + acc.size()));
      body.Linef("float ", acc.back(), " = ", s.identity, ";");
    }
    XTUNE_RETURN_IF_ERROR(column_loop([&]() -> absl::Status {
      for (size_t k = 0; k < reduces.size(); ++k) {
        XTUNE_ASSIGN_OR_RETURN(
            std::string x, emitter.Emit(reduces[k]->operand(0), full_index(), &body));
        body.Linef(acc[k], " = ", Combine(*reduces[k], simple[k], acc[k], x, round),
                   ";");
      }
      return absl::OkStatus();
    }));
    for (size_t k = 0; k < reduces.size(); ++k) {
      const Instruction& r = *reduces[k];
      const std::string& a = acc[k];
      body.Linef("for (int xt_o = 16; xt_o > 0; xt_o >>= 1) ", a, " = ",
                 Combine(r, simple[k], a, absl::StrCat("XT_SHFL_XOR(", a, ", xt_o)"),
                         round),
                 ";");
      if (warps_per_group > 1) {
        std::string sh = absl::StrCat("xt_part", reduce_id);
        body.Linef("XT_SHARED(float, ", sh, ", ", block / 32, ");");
        body.Linef("if (xt_lane() == 0) XT_S(", sh, ")[xt_warp()] = ", a, ";");
        body.Line("XT_SYNC();");
        body.Linef(a, " = XT_S(", sh, ")[xt_g * ", warps_per_group, "];");
        body.Linef("for (int xt_w = 1; xt_w < ", warps_per_group, "; ++xt_w) ",
                   a, " = ",
                   Combine(r, simple[k], a,
                           absl::StrCat("XT_S(", sh, ")[xt_g * ", warps_per_group,
                                        " + xt_w]"),
                           round),
                   ";");
      }
      XTUNE_ASSIGN_OR_RETURN(std::vector<IndexExpr> ri, row_index(r.shape()));
      XTUNE_ASSIGN_OR_RETURN(std::string init, emitter.Emit(r.operand(1), {}, &body));
      std::string result = absl::StrCat("xt_r", reduce_id);
      body.Linef("const float ", result, " = ",
                 Combine(r, simple[k], init, a, round), ";");
      emitter.Bind(&r, result);
      ++reduce_id;
    }
    if (p < f.row_values.size()) {
      for (const Instruction* v : f.row_values[p]) {
        XTUNE_ASSIGN_OR_RETURN(std::vector<IndexExpr> ri, row_index(v->shape()));
        XTUNE_ASSIGN_OR_RETURN(std::string x, emitter.Emit(v, ri, &body));
        emitter.Bind(v, x);
      }
    }
  }
  if (f.root_is_full) {
    body.Open(absl::StrCat("if (xt_row < ", f.rows, ")"));
    XTUNE_RETURN_IF_ERROR(column_loop([&]() -> absl::Status {
      std::vector<IndexExpr> index = full_index();
      XTUNE_ASSIGN_OR_RETURN(std::string x, emitter.Emit(root, index, &body));
      body.Line(Store(root->shape(), cpu::PhysicalOffset(root->shape(), index).base, x));
      return absl::OkStatus();
    }));
    body.Close();
  } else {
    XTUNE_ASSIGN_OR_RETURN(std::vector<IndexExpr> ri, row_index(root->shape()));
    body.Open(absl::StrCat("if (xt_gt == 0 && xt_row < ", f.rows, ")"));
    XTUNE_ASSIGN_OR_RETURN(std::string x, emitter.Emit(root, ri, &body));
    body.Line(Store(root->shape(), cpu::PhysicalOffset(root->shape(), ri).base, x));
    body.Close();
  }
  body.Close();
  return Assemble(options, frame, emitter, body, CeilDiv(f.rows, rows_per_block), block);
}

// ---- Column reductions.

absl::StatusOr<CudaKernelSource> ColumnKernel(const Computation& fused,
                                              const KernelConfig& config,
                                              const CudaKernelOptions& options) {
  XTUNE_ASSIGN_OR_RETURN(const Instruction* reduce, cpu::AnalyzeColumnFusion(fused));
  XTUNE_ASSIGN_OR_RETURN(cpu::SimpleReduction simple, Simple(*reduce));
  if (fused.root() != reduce) {
    return absl::UnimplementedError("a column reduction with an epilogue");
  }
  int64_t block = config.Get("block_size", 256);
  int64_t width = config.Get("vector_width", 1);
  int64_t unroll = config.Get("unroll", 1);
  XTUNE_RETURN_IF_ERROR(CheckCommon(block, width, unroll));
  const bool round = options.round_low_precision_accumulators;
  const Shape& in = reduce->operand(0)->shape();
  const int64_t rank = in.rank();
  const int64_t cols = in.dims().back();
  const int64_t rows = cols == 0 ? 0 : in.ElementCount() / cols;
  const int64_t ty = block / 32;
  const int64_t per_block = 32 * width;

  Frame frame = MakeFrame(fused, static_cast<int>(block));
  ElementalEmitter emitter = MakeEmitter("xt_const");
  CodeBuffer body;
  body.Open(frame.signature);
  body.Line("const int xt_tx = xt_lane();");
  body.Line("const int xt_ty = xt_warp();");
  body.Linef("XT_SHARED(float, xt_part, ", ty * per_block, ");");
  std::vector<std::string> acc;
  for (int64_t v = 0; v < width; ++v) {
    acc.push_back(absl::StrCat("xt_acc", v));
    body.Linef("float ", acc.back(), " = ", simple.identity, ";");
  }
  body.Open(absl::StrCat("for (int64_t xt_r0 = xt_ty; xt_r0 < ", rows,
                         "; xt_r0 += ", ty * unroll, ")"));
  for (int64_t u = 0; u < unroll; ++u) {
    body.Open("");
    body.Linef("const int64_t xt_r = xt_r0 + ", u * ty, ";");
    body.Open(absl::StrCat("if (xt_r < ", rows, ")"));
    std::vector<std::pair<int64_t, int64_t>> leading;
    for (int64_t d = 0; d + 1 < rank; ++d) leading.push_back({d, in.dim(d)});
    Decompose("xt_r", "xt_i", leading, &body);
    for (int64_t v = 0; v < width; ++v) {
      body.Open("");
      body.Linef("const int64_t xt_c = (int64_t)xt_bid() * ", per_block,
                 " + xt_tx * ", width, " + ", v, ";");
      body.Open(absl::StrCat("if (xt_c < ", cols, ")"));
      std::vector<IndexExpr> index;
      for (int64_t d = 0; d + 1 < rank; ++d) index.push_back({absl::StrCat("xt_i", d), 0});
      index.push_back({"xt_c", 0});
      XTUNE_ASSIGN_OR_RETURN(std::string x,
                             emitter.Emit(reduce->operand(0), index, &body));
      body.Linef(acc[v], " = ", Combine(*reduce, simple, acc[v], x, round), ";");
      body.Close();
      body.Close();
    }
    body.Close();
    body.Close();
  }
  body.Close();
  for (int64_t v = 0; v < width; ++v) {
    body.Linef("XT_S(xt_part)[xt_ty * ", per_block, " + xt_tx * ", width, " + ",
               v, "] = ", acc[v], ";");
  }
  body.Line("XT_SYNC();");
  body.Open("if (xt_ty == 0)");
  XTUNE_ASSIGN_OR_RETURN(std::string init, emitter.Emit(reduce->operand(1), {}, &body));
  for (int64_t v = 0; v < width; ++v) {
    body.Open("");
    body.Linef("const int64_t xt_c = (int64_t)xt_bid() * ", per_block,
               " + xt_tx * ", width, " + ", v, ";");
    body.Linef("float xt_t = XT_S(xt_part)[xt_tx * ", width, " + ", v, "];");
    body.Linef("for (int xt_y = 1; xt_y < ", ty, "; ++xt_y) xt_t = ",
               Combine(*reduce, simple, "xt_t",
                       absl::StrCat("XT_S(xt_part)[xt_y * ", per_block,
                                    " + xt_tx * ", width, " + ", v, "]"),
                       round),
               ";");
    std::vector<IndexExpr> out_index = {{"xt_c", 0}};
    body.Linef("if (xt_c < ", cols, ") ",
               Store(reduce->shape(),
                     cpu::PhysicalOffset(reduce->shape(), out_index).base,
                     Combine(*reduce, simple, init, "xt_t", round)));
    body.Close();
  }
  body.Close();
  body.Close();
  return Assemble(options, frame, emitter, body, CeilDiv(cols, per_block), block);
}

}  // namespace

absl::StatusOr<CudaKernelSource> CudaKernel(const Computation& fused,
                                            const KernelConfig& config,
                                            const CudaKernelOptions& options) {
  const std::string& kind = config.kind();
  if (kind == "cuda_loop") return LoopKernel(fused, config, options);
  if (kind == "cuda_row_reduce") return RowKernel(fused, config, options);
  if (kind == "cuda_col_reduce") return ColumnKernel(fused, config, options);
  if (kind == "cuda_scatter") return ScatterKernel(fused, config, options);
  if (kind == "cuda_sort") return SortKernel(fused, config, options);
  return absl::InvalidArgumentError(
      absl::StrCat("the CUDA backends have no generated kernels of kind '",
                   kind, "'"));
}

}  // namespace xtune::cuda
