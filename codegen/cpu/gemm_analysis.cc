#include "codegen/cpu/gemm_analysis.h"

#include "fusion/precision.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "util/status_macros.h"

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

namespace {

// The convolution's operand dimensions as a gemm's: the kernel is a plain
// [k, n] view; the input is read through the window (no dims).
std::vector<int64_t> ConvKDims(const ConvDimensions& d) {
  std::vector<int64_t> k = d.kernel_spatial;
  k.push_back(d.kernel_input_feature);
  return k;
}

std::vector<int64_t> ConvMDims(const ConvDimensions& d) {
  std::vector<int64_t> m = {d.output_batch};
  m.insert(m.end(), d.output_spatial.begin(), d.output_spatial.end());
  return m;
}

// Finds the core (a dot, or without one a single convolution) and the
// problem's size.
absl::Status FindCore(const Computation& fused, GemmFusion* g) {
  const Instruction* conv = nullptr;
  for (const auto& i : fused.instructions()) {
    if (i->opcode() == Opcode::kDot) {
      if (g->dot != nullptr) return absl::InvalidArgumentError("several dots");
      g->dot = i.get();
    } else if (i->opcode() == Opcode::kConvolution) {
      if (conv != nullptr) return absl::InvalidArgumentError("several convolutions");
      conv = i.get();
    }
  }
  if (g->dot != nullptr) {
    const Instruction* dot = g->dot;
    const Shape& lhs = dot->operand(0)->shape();
    const Shape& rhs = dot->operand(1)->shape();
    const DotDimensions& dd = dot->attrs().dot;
    for (int64_t d : dd.lhs_batch) g->batch *= lhs.dim(d);
    for (int64_t d : dd.lhs_contracting) g->k *= lhs.dim(d);
    for (int64_t d : FreeDims(lhs, dd.lhs_batch, dd.lhs_contracting)) g->m *= lhs.dim(d);
    for (int64_t d : FreeDims(rhs, dd.rhs_batch, dd.rhs_contracting)) g->n *= rhs.dim(d);
    return absl::OkStatus();
  }
  if (conv == nullptr) return absl::InvalidArgumentError("no dot");
  const InstructionAttrs& a = conv->attrs();
  if (a.feature_group_count != 1 || a.batch_group_count != 1) {
    return absl::UnimplementedError(
        "a grouped convolution is no single gemm (its loop kernel computes it)");
  }
  g->dot = conv;
  g->conv = true;
  const ConvDimensions& d = a.conv;
  const Shape& rhs = conv->operand(1)->shape();
  for (int64_t x : ConvMDims(d)) g->m *= conv->shape().dim(x);
  for (int64_t x : ConvKDims(d)) g->k *= rhs.dim(x);
  g->n = conv->shape().dim(d.output_feature);
  return absl::OkStatus();
}

// Whether the output's memory order is [m, n] row-major: batch, spatial
// dimensions in order, then the features, densely.
bool ConvOutputIsRowMajor(const Instruction& conv) {
  const ConvDimensions& d = conv.attrs().conv;
  std::vector<int64_t> major_to_minor = ConvMDims(d);
  major_to_minor.push_back(d.output_feature);
  const std::vector<int64_t>& m2m = conv.shape().minor_to_major();
  if (m2m.size() != major_to_minor.size()) return false;
  for (size_t i = 0; i < m2m.size(); ++i) {
    if (m2m[i] != major_to_minor[m2m.size() - 1 - i]) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<GemmFusion> AnalyzeGemmFusion(const Computation& fused) {
  GemmFusion g;
  XTUNE_RETURN_IF_ERROR(FindCore(fused, &g));
  const Instruction* dot = g.dot;
  const Shape& lhs = dot->operand(0)->shape();
  const Shape& rhs = dot->operand(1)->shape();
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
  const bool row_major = g.conv ? ConvOutputIsRowMajor(*dot) && fused.root() == e
                                 : es.HasDefaultLayout();
  g.output_is_plain_f32 = !g.has_epilogue && es.dtype() == DType::kF32 && row_major &&
                          fused.root()->shape().dtype() == DType::kF32;
  bool contiguous_n;
  if (g.conv) {
    contiguous_n = es.minor_to_major()[0] == dot->attrs().conv.output_feature;
  } else {
    const DotDimensions& dd = dot->attrs().dot;
    contiguous_n = FreeDims(rhs, dd.rhs_batch, dd.rhs_contracting).size() == 1 &&
                   !es.minor_to_major().empty() &&
                   es.minor_to_major()[0] == es.rank() - 1;
  }
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

std::optional<GemmOperandDims> OperandDimsOf(const GemmFusion& g, int operand) {
  if (g.conv) {
    if (operand == 0) return std::nullopt;
    const ConvDimensions& d = g.dot->attrs().conv;
    return GemmOperandDims{{}, ConvKDims(d), {d.kernel_output_feature}};
  }
  const Shape& s = g.dot->operand(operand)->shape();
  const DotDimensions& dd = g.dot->attrs().dot;
  GemmOperandDims out;
  out.batch = operand == 0 ? dd.lhs_batch : dd.rhs_batch;
  out.contracting = operand == 0 ? dd.lhs_contracting : dd.rhs_contracting;
  out.free = FreeDims(s, out.batch, out.contracting);
  return out;
}

std::optional<std::vector<IndexExpr>> GemmOperandIndex(const GemmFusion& g, int operand,
                                                       const std::string& b,
                                                       const std::string& mn,
                                                       const std::string& k) {
  if (!g.conv) return DotOperandIndex(*g.dot, operand, b, mn, k);
  if (operand == 0) return std::nullopt;
  const std::vector<WindowDimension>& w = g.dot->attrs().window;
  const ConvDimensions& d = g.dot->attrs().conv;
  const Shape& s = g.dot->operand(1)->shape();
  std::vector<IndexExpr> index(s.rank());
  std::vector<std::string> ks = Decompose(k, SizesOf(s, ConvKDims(d)));
  for (size_t i = 0; i < d.kernel_spatial.size(); ++i) {
    index[d.kernel_spatial[i]] = {
        w[i].reversal ? absl::StrCat("(", w[i].size - 1, " - ", ks[i], ")") : ks[i], 0};
  }
  index[d.kernel_input_feature] = {ks.back(), 0};
  index[d.kernel_output_feature] = {mn, 0};
  return index;
}

absl::StatusOr<std::string> EmitGemmOperand(ElementalEmitter& emitter, const GemmFusion& g,
                                            int operand, const std::string& b,
                                            const std::string& mn, const std::string& k,
                                            CodeBuffer* out) {
  const Instruction* op = g.dot->operand(operand);
  if (std::optional<std::vector<IndexExpr>> index = GemmOperandIndex(g, operand, b, mn, k)) {
    return emitter.Emit(op, *index, out);
  }
  const Shape& rhs = g.dot->operand(1)->shape();
  const int64_t c = rhs.dim(g.dot->attrs().conv.kernel_input_feature);
  return EmitConvInput(emitter, g, mn, absl::StrCat("((", k, ") / ", c, ")"),
                       absl::StrCat("((", k, ") % ", c, ")"), out);
}

absl::StatusOr<std::string> EmitConvInput(ElementalEmitter& emitter, const GemmFusion& g,
                                          const std::string& mn, const std::string& kpos,
                                          const std::string& c, CodeBuffer* out) {
  const Instruction* op = g.dot->operand(0);
  // A convolution's input: output position o and window element w of each
  // spatial dimension meet at o * stride + w * rhs_dilate - pad_low of the
  // input dilated by lhs_dilate; outside it, or in a dilation hole, the
  // element is 0. The read itself is clamped to index 0 there.
  const std::vector<WindowDimension>& win = g.dot->attrs().window;
  const ConvDimensions& d = g.dot->attrs().conv;
  const Shape& in = op->shape();
  const Shape& rhs = g.dot->operand(1)->shape();
  std::vector<int64_t> m_sizes;
  for (int64_t x : ConvMDims(d)) m_sizes.push_back(g.dot->shape().dim(x));
  std::vector<std::string> ms = Decompose(mn, m_sizes);
  std::vector<std::string> ks = Decompose(kpos, SizesOf(rhs, d.kernel_spatial));
  std::vector<IndexExpr> index(in.rank());
  index[d.input_batch] = {ms[0], 0};
  index[d.input_feature] = {c, 0};
  const std::string valid = out->Fresh("inside");
  std::vector<std::string> positions, conditions;
  for (size_t i = 0; i < d.input_spatial.size(); ++i) {
    const WindowDimension& w = win[i];
    const std::string p = out->Fresh("at");
    out->Linef("const int64_t ", p, " = ", ms[i + 1], " * ", w.stride, " + ", ks[i], " * ",
               w.window_dilation, " - ", w.pad_low, ";");
    const int64_t size = in.dim(d.input_spatial[i]);
    if (w.base_dilation == 1) {
      conditions.push_back(absl::StrCat(p, " >= 0 && ", p, " < ", size));
      positions.push_back(p);
    } else {
      conditions.push_back(absl::StrCat(p, " >= 0 && ", p, " % ", w.base_dilation, " == 0 && ",
                                        p, " / ", w.base_dilation, " < ", size));
      positions.push_back(absl::StrCat("(", p, " / ", w.base_dilation, ")"));
    }
  }
  out->Linef("const bool ", valid, " = ",
             conditions.empty() ? "true" : absl::StrJoin(conditions, " && "), ";");
  for (size_t i = 0; i < d.input_spatial.size(); ++i) {
    index[d.input_spatial[i]] = {absl::StrCat("(", valid, " ? ", positions[i], " : 0)"), 0};
  }
  XTUNE_ASSIGN_OR_RETURN(std::string v, emitter.Emit(op, index, out));
  const std::string type = ElementalEmitter::ScalarType(in.dtype());
  const std::string r = out->Fresh("x");
  out->Linef("const ", type, " ", r, " = ", valid, " ? (", type, ")(", v, ") : (", type,
             ")0;");
  return r;
}

std::vector<IndexExpr> GemmResultIndex(const GemmFusion& g, const std::string& b,
                                       const std::string& m, const std::string& n,
                                       int64_t n_lane_stride) {
  if (!g.conv) return DotResultIndex(*g.dot, b, m, n, n_lane_stride);
  const ConvDimensions& d = g.dot->attrs().conv;
  const Shape& s = g.dot->shape();
  std::vector<int64_t> m_dims = ConvMDims(d);
  std::vector<std::string> ms = Decompose(m, SizesOf(s, m_dims));
  std::vector<IndexExpr> index(s.rank());
  for (size_t i = 0; i < m_dims.size(); ++i) index[m_dims[i]] = {ms[i], 0};
  index[d.output_feature] = {n, n_lane_stride};
  return index;
}

}  // namespace xtune::cpu
