#include "fusion/conv_as_dot.h"

#include <vector>

namespace xtune {

bool ConvolutionAsGemmPays(const Shape& lhs, const Shape& rhs, const InstructionAttrs& a,
                           const Shape& out) {
  if (a.batch_group_count != 1 || !IsFloat(lhs.dtype()) || !IsFloat(rhs.dtype()) ||
      !IsFloat(out.dtype())) {
    return false;
  }
  int64_t positions = 1;
  for (const WindowDimension& w : a.window) {
    if (w.pad_low < 0 || w.pad_high < 0) return false;
    positions *= w.size;
  }
  return positions * rhs.dim(a.conv.kernel_input_feature) >= kConvAsDotMinDepth;
}

bool ConvolutionIsImplicitGemm(const Instruction& conv) {
  return conv.opcode() == Opcode::kConvolution && conv.attrs().feature_group_count == 1 &&
         ConvolutionAsGemmPays(conv.operand(0)->shape(), conv.operand(1)->shape(),
                               conv.attrs(), conv.shape());
}

bool ConvolutionAsDotPays(const Shape& lhs, const Shape& rhs, const InstructionAttrs& a,
                          const Shape& out) {
  return a.feature_group_count > 1 && ConvolutionAsGemmPays(lhs, rhs, a, out);
}

Instruction* BuildConvolution(HloBuilder& b, Instruction* lhs, Instruction* rhs,
                              const InstructionAttrs& a, const Shape& out) {
  if (!ConvolutionAsDotPays(lhs->shape(), rhs->shape(), a, out)) {
    return b.Convolution(lhs, rhs, a, out);
  }
  const ConvDimensions& d = a.conv;
  const size_t n = d.input_spatial.size();
  const int64_t g = a.feature_group_count;
  const int64_t c = lhs->shape().dim(d.input_feature), cg = c / g;
  const int64_t o = rhs->shape().dim(d.kernel_output_feature);
  const int64_t batch = lhs->shape().dim(d.input_batch);
  // 1. [batch, spatial..., C], padded and dilated.
  std::vector<int64_t> perm = {d.input_batch};
  perm.insert(perm.end(), d.input_spatial.begin(), d.input_spatial.end());
  perm.push_back(d.input_feature);
  Instruction* x = b.Transpose(lhs, perm);
  std::vector<PaddingDimension> pad(n + 2);
  for (size_t i = 0; i < n; ++i) {
    const WindowDimension& w = a.window[i];
    pad[i + 1] = {w.pad_low, w.pad_high, w.base_dilation - 1};
  }
  x = b.Pad(x, b.FloatConstant(lhs->shape().dtype(), 0), pad);
  // 2. One strided slice per kernel position, row-major over the window.
  std::vector<int64_t> ys, ks;
  int64_t m = batch, positions = 1;
  for (size_t i = 0; i < n; ++i) {
    ys.push_back(out.dim(d.output_spatial[i]));
    ks.push_back(a.window[i].size);
    m *= ys.back();
    positions *= ks.back();
  }
  std::vector<Instruction*> patches;
  std::vector<int64_t> k(n, 0);
  for (int64_t p = 0; p < positions; ++p) {
    std::vector<SliceDimension> s = {{0, batch, 1}};
    for (size_t i = 0; i < n; ++i) {
      const WindowDimension& w = a.window[i];
      const int64_t start = k[i] * w.window_dilation;
      s.push_back({start, start + (ys[i] - 1) * w.stride + 1, w.stride});
    }
    s.push_back({0, c, 1});
    Instruction* patch = b.StridedSlice(x, s);
    patches.push_back(patch);
    for (int64_t i = static_cast<int64_t>(n) - 1; i >= 0; --i) {
      if (++k[i] < ks[i]) break;
      k[i] = 0;
    }
  }
  Instruction* cols = patches.size() == 1 ? patches[0]
                                          : b.Concatenate(patches, static_cast<int64_t>(n) + 1);
  // [batch, out spatial..., positions, G, C/G] -> [G, M, positions x C/G].
  std::vector<int64_t> split = {batch};
  split.insert(split.end(), ys.begin(), ys.end());
  split.insert(split.end(), {positions, g, cg});
  std::vector<int64_t> to_groups = {static_cast<int64_t>(n) + 2};
  for (size_t i = 0; i <= n; ++i) to_groups.push_back(static_cast<int64_t>(i));
  to_groups.insert(to_groups.end(), {static_cast<int64_t>(n) + 1, static_cast<int64_t>(n) + 3});
  Instruction* a_op =
      b.Reshape(b.Transpose(b.Reshape(cols, split), to_groups), {g, m, positions * cg});
  // 3. The kernel as [G, positions x C/G, O/G].
  std::vector<int64_t> reversed;
  for (size_t i = 0; i < n; ++i) {
    if (a.window[i].reversal) reversed.push_back(d.kernel_spatial[i]);
  }
  std::vector<int64_t> kperm = d.kernel_spatial;
  kperm.insert(kperm.end(), {d.kernel_input_feature, d.kernel_output_feature});
  Instruction* w = b.Transpose(b.Reverse(rhs, reversed), kperm);
  w = b.Reshape(w, {positions, cg, g, o / g});
  w = b.Reshape(b.Transpose(w, {2, 0, 1, 3}), {g, positions * cg, o / g});
  // 4. The dot (batched over groups), then [batch, out spatial..., O] in
  //    the output's dimension order.
  DotDimensions dd;
  dd.lhs_batch = {0};
  dd.rhs_batch = {0};
  dd.lhs_contracting = {2};
  dd.rhs_contracting = {1};
  std::vector<int64_t> nyo = {batch};
  nyo.insert(nyo.end(), ys.begin(), ys.end());
  std::vector<int64_t> nyo_o = nyo;
  nyo_o.push_back(o);
  Instruction* y = b.Dot(a_op, w, dd, Shape(out.dtype(), {g, m, o / g}));
  bool precise = false;
  for (const RawAttribute& r : a.other) {
    if (r.name == "operand_precision" || r.name == "algorithm") {
      y->mutable_attrs()->other.push_back(r);
      precise = true;
    }
  }
  if (!precise && lhs->shape().dtype() == DType::kF32) {
    y->mutable_attrs()->other.push_back({"operand_precision", "{highest,highest}"});
  }
  std::vector<int64_t> gnyo = {g};
  gnyo.insert(gnyo.end(), nyo.begin(), nyo.end());
  gnyo.push_back(o / g);
  std::vector<int64_t> back;
  for (size_t i = 1; i <= n + 1; ++i) back.push_back(static_cast<int64_t>(i));
  back.insert(back.end(), {0, static_cast<int64_t>(n) + 2});
  y = b.Transpose(b.Reshape(y, gnyo), back);
  y = b.Reshape(y, nyo_o);
  // y's dimension i is output dimension order[i]; transpose into place.
  std::vector<int64_t> order = {d.output_batch};
  order.insert(order.end(), d.output_spatial.begin(), d.output_spatial.end());
  order.push_back(d.output_feature);
  std::vector<int64_t> inverse(order.size());
  for (size_t i = 0; i < order.size(); ++i) inverse[order[i]] = static_cast<int64_t>(i);
  y = b.Transpose(y, inverse);
  *y->mutable_shape() = out;
  return y;
}

}  // namespace xtune
