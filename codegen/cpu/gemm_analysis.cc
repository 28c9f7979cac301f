#include "codegen/cpu/gemm_analysis.h"

#include "fusion/precision.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace xtune::cpu {
namespace {

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// Row-major decomposition of `var` over `sizes`.
std::vector<std::string> Decompose(const std::string& var,
                                   const std::vector<int64_t>& sizes) {
  std::vector<std::string> out;
  std::vector<int64_t> strides = RowMajorStrides(sizes);
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes.size() == 1) {
      out.push_back(var);
    } else {
      out.push_back(absl::StrCat("((", var, " / ", strides[i], ") % ", sizes[i], ")"));
    }
  }
  return out;
}

// Free dimensions of a dot operand, in order.
std::vector<int64_t> FreeDims(const Shape& s, const std::vector<int64_t>& batch,
                              const std::vector<int64_t>& contracting) {
  std::vector<int64_t> free;
  for (int64_t d = 0; d < s.rank(); ++d) {
    if (!Contains(batch, d) && !Contains(contracting, d)) free.push_back(d);
  }
  return free;
}

std::vector<int64_t> SizesOf(const Shape& s, const std::vector<int64_t>& dims) {
  std::vector<int64_t> sizes;
  for (int64_t d : dims) sizes.push_back(s.dim(d));
  return sizes;
}

}  // namespace

std::vector<IndexExpr> DotOperandIndex(const Instruction& dot, int operand,
                                       const std::string& b,
                                       const std::string& mn,
                                       const std::string& k) {
  const Shape& s = dot.operand(operand)->shape();
  const DotDimensions& dd = dot.attrs().dot;
  const std::vector<int64_t>& batch = operand == 0 ? dd.lhs_batch : dd.rhs_batch;
  const std::vector<int64_t>& contracting =
      operand == 0 ? dd.lhs_contracting : dd.rhs_contracting;
  std::vector<int64_t> free = FreeDims(s, batch, contracting);
  std::vector<IndexExpr> index(s.rank());
  std::vector<std::string> bs = Decompose(b, SizesOf(s, batch));
  std::vector<std::string> ks = Decompose(k, SizesOf(s, contracting));
  std::vector<std::string> fs = Decompose(mn, SizesOf(s, free));
  for (size_t i = 0; i < batch.size(); ++i) index[batch[i]] = {bs[i], 0};
  for (size_t i = 0; i < contracting.size(); ++i) index[contracting[i]] = {ks[i], 0};
  for (size_t i = 0; i < free.size(); ++i) index[free[i]] = {fs[i], 0};
  return index;
}

std::vector<IndexExpr> DotResultIndex(const Instruction& dot,
                                      const std::string& b,
                                      const std::string& m,
                                      const std::string& n,
                                      int64_t n_lane_stride) {
  const DotDimensions& dd = dot.attrs().dot;
  const Shape& lhs = dot.operand(0)->shape();
  const Shape& rhs = dot.operand(1)->shape();
  std::vector<int64_t> lhs_free = FreeDims(lhs, dd.lhs_batch, dd.lhs_contracting);
  std::vector<int64_t> rhs_free = FreeDims(rhs, dd.rhs_batch, dd.rhs_contracting);
  std::vector<IndexExpr> index;
  for (const std::string& e : Decompose(b, SizesOf(lhs, dd.lhs_batch))) {
    index.push_back({e, 0});
  }
  for (const std::string& e : Decompose(m, SizesOf(lhs, lhs_free))) {
    index.push_back({e, 0});
  }
  std::vector<std::string> ns = Decompose(n, SizesOf(rhs, rhs_free));
  for (size_t i = 0; i < ns.size(); ++i) {
    index.push_back({ns[i], i + 1 == ns.size() && ns.size() == 1 ? n_lane_stride : 0});
  }
  return index;
}

absl::StatusOr<GemmFusion> AnalyzeGemmFusion(const Computation& fused) {
  GemmFusion g;
  for (const auto& i : fused.instructions()) {
    if (i->opcode() == Opcode::kDot) {
      if (g.dot != nullptr) return absl::InvalidArgumentError("several dots");
      g.dot = i.get();
    }
  }
  if (g.dot == nullptr) return absl::InvalidArgumentError("no dot");
  const Instruction* dot = g.dot;
  const Shape& lhs = dot->operand(0)->shape();
  const Shape& rhs = dot->operand(1)->shape();
  const DotDimensions& dd = dot->attrs().dot;
  for (int64_t d : dd.lhs_batch) g.batch *= lhs.dim(d);
  for (int64_t d : dd.lhs_contracting) g.k *= lhs.dim(d);
  for (int64_t d : FreeDims(lhs, dd.lhs_batch, dd.lhs_contracting)) g.m *= lhs.dim(d);
  std::vector<int64_t> rhs_free = FreeDims(rhs, dd.rhs_batch, dd.rhs_contracting);
  for (int64_t d : rhs_free) g.n *= rhs.dim(d);
  DType out = dot->shape().dtype();
  if (out != DType::kF32 && out != DType::kF16 && out != DType::kBF16) {
    return absl::UnimplementedError(absl::StrCat(
        "the generated gemm computes f32/f16/bf16 results, not ",
        DTypeName(out)));
  }
  for (const Shape* s : {&lhs, &rhs}) {
    if (s->dtype() == DType::kF64 || s->dtype() == DType::kPred) {
      return absl::UnimplementedError("f64 or pred dot operands");
    }
  }
  // Strip layout-preserving ops from the root down to the epilogue.
  const Instruction* e = fused.root();
  while (e->opcode() == Opcode::kBitcast || e->opcode() == Opcode::kReshape ||
         e->opcode() == Opcode::kCopy) {
    if (!e->shape().HasDefaultLayout() ||
        !e->operand(0)->shape().HasDefaultLayout()) {
      return absl::UnimplementedError(
          "gemm fusion root reorders the dot's result");
    }
    e = e->operand(0);
  }
  if (e->shape().IsTuple() || e->shape().dims() != dot->shape().dims()) {
    return absl::InvalidArgumentError("the root is not an epilogue of the dot");
  }
  // Everything between the dot and the epilogue root must be elementwise
  // over the dot's shape.
  std::vector<const Instruction*> stack = {e};
  absl::flat_hash_set<const Instruction*> seen;
  bool reaches_dot = false;
  while (!stack.empty()) {
    const Instruction* i = stack.back();
    stack.pop_back();
    if (!seen.insert(i).second) continue;
    if (i == dot) {
      reaches_dot = true;
      continue;
    }
    bool uses_dot_value = false;
    for (const Instruction* op : i->operands()) {
      // Only values derived from the dot need the same shape.
      absl::flat_hash_set<const Instruction*> s2;
      std::vector<const Instruction*> st2 = {op};
      while (!st2.empty()) {
        const Instruction* x = st2.back();
        st2.pop_back();
        if (x == dot) uses_dot_value = true;
        if (!s2.insert(x).second) continue;
        for (const Instruction* y : x->operands()) st2.push_back(y);
      }
    }
    if (uses_dot_value) {
      if (!IsElementwise(i->opcode()) || i->shape().dims() != dot->shape().dims()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "'", i->name(), "' between the dot and the root is not elementwise"));
      }
      for (const Instruction* op : i->operands()) stack.push_back(op);
    }
  }
  if (!reaches_dot) return absl::InvalidArgumentError("root does not use the dot");
  g.epilogue_root = e;
  g.has_epilogue = e != dot;
  const Shape& es = e->shape();
  g.output_is_plain_f32 = !g.has_epilogue && es.dtype() == DType::kF32 &&
                          es.HasDefaultLayout() &&
                          fused.root()->shape().dtype() == DType::kF32;
  bool contiguous_n =
      rhs_free.size() == 1 && !es.minor_to_major().empty() &&
      es.minor_to_major()[0] == es.rank() - 1;
  g.vector_epilogue =
      contiguous_n &&
      ElementalEmitter::Vectorizable(e, absl::flat_hash_set<const Instruction*>{dot});
  return g;
}

bool DotOperandNeedsRounding(const Instruction& dot, int operand) {
  const Instruction* op = dot.operand(operand);
  const DType t = op->shape().dtype();
  if (t != DType::kF16 && t != DType::kBF16 && !IsFp8(t)) return false;
  while (op->opcode() == Opcode::kTranspose || op->opcode() == Opcode::kBitcast ||
         op->opcode() == Opcode::kReshape || op->opcode() == Opcode::kCopy ||
         op->opcode() == Opcode::kBroadcast) {
    op = op->operand(0);
  }
  return MayExceedPrecision(*op);
}

}  // namespace xtune::cpu
