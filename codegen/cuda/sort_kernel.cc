// Sort fusions on CUDA (config "cuda_sort" {block_size}): one thread per
// element of every slice, one launch, no scratch memory, no barrier and no
// atomics. A thread counts the elements of its slice that come before its
// own in the stable order (those the comparator puts first, and the equal
// ones at lower positions); that count is where its element goes, so each
// output position is written by exactly one thread when the comparator is
// a strict weak order, and the result is the evaluator's stable order
// (eval/sort.h). topk keeps the elements whose position is below k.
// The work is n comparisons per element, n^2 per slice: fine for the rows
// of a few thousand that top-k sampling and argsort over a vocabulary or a
// batch see; a merge-based kernel for long rows is future work.
#include "codegen/cuda/sort_kernel.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/cpu/code_buffer.h"
#include "codegen/cpu/elemental.h"
#include "codegen/cpu/sort_fusion.h"
#include "codegen/cuda/kernel_frame.h"
#include "util/status_macros.h"

namespace xtune::cuda {

using cpu::CodeBuffer;
using cpu::ElementalEmitter;
using cpu::IndexExpr;

absl::StatusOr<CudaKernelSource> SortKernel(const Computation& fused,
                                            const KernelConfig& config,
                                            const CudaKernelOptions& options) {
  XTUNE_ASSIGN_OR_RETURN(cpu::SortFusion s, cpu::AnalyzeSortFusion(fused));
  const int64_t block = config.Get("block_size", 128);
  if (block < 32 || block > 1024 || block % 32 != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "block_size=", block, ": must be a multiple of 32 from 32 to 1024"));
  }
  const Shape& out_shape = fused.root()->shape();
  const DType out_t = out_shape.dtype();
  const Shape& in = s.sort->operand(0)->shape();
  const int64_t m = s.topk ? 1 : s.sort->operand_count();
  XTUNE_ASSIGN_OR_RETURN(std::string less, cpu::ComparatorFunction(s, true));
  std::vector<DType> inputs;
  for (int64_t i = 0; i < fused.parameter_count(); ++i) {
    inputs.push_back(fused.parameter(i)->shape().dtype());
  }
  Frame frame = MakeKernelFrame(inputs, out_t, static_cast<int>(block));
  ElementalEmitter emitter = MakeEmitter("xt_const");
  CodeBuffer body;
  body.Open(frame.signature);
  const int64_t total = s.slices * s.n;
  body.Linef("const int64_t xt_t = (int64_t)xt_bid() * ", block, " + xt_tid();");
  body.Linef("if (xt_t >= ", total, ") return;");
  body.Linef("const int64_t xt_s = xt_t / ", std::max<int64_t>(s.n, 1), ";");
  body.Linef("const int64_t xt_pos = xt_t % ", std::max<int64_t>(s.n, 1), ";");
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
  std::vector<std::string> mine;
  for (int64_t j = 0; j < m; ++j) {
    XTUNE_ASSIGN_OR_RETURN(std::string v,
                           emitter.Emit(s.sort->operand(j), index_at("xt_pos"), &body));
    mine.push_back(v);
  }
  body.Line("int64_t xt_rank = 0;");
  body.Open(absl::StrCat("for (int64_t xt_k = 0; xt_k < ", s.n, "; ++xt_k)"));
  std::vector<std::string> other;
  for (int64_t j = 0; j < m; ++j) {
    XTUNE_ASSIGN_OR_RETURN(std::string v,
                           emitter.Emit(s.sort->operand(j), index_at("xt_k"), &body));
    other.push_back(v);
  }
  std::vector<std::string> k_first, i_first;
  for (int64_t j = 0; j < m; ++j) {
    k_first.push_back(other[j]);
    k_first.push_back(mine[j]);
    i_first.push_back(mine[j]);
    i_first.push_back(other[j]);
  }
  body.Linef("const bool xt_before = xt_less(", absl::StrJoin(k_first, ", "),
             ");");
  body.Linef("if (xt_before || (xt_k < xt_pos && !xt_less(",
             absl::StrJoin(i_first, ", "), "))) ++xt_rank;");
  body.Close();
  body.Linef("if (xt_rank >= ", s.keep, ") return;");
  IndexExpr off = PhysicalOffset(out_shape, index_at("xt_rank"));
  const std::string value = s.topk && s.output == 1 ? std::string("xt_pos")
                                                    : mine[s.output];
  body.Linef("XT_G(xt_out)[", off.base, "] = ",
             ElementalEmitter::ToStorage(value, out_t), ";");
  body.Close();
  return Assemble(options, frame, emitter, body, CeilDiv(total, block), block,
                  less);
}

}  // namespace xtune::cuda
