#include "codegen/cuda/library_conv.h"

#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "codegen/cuda/kernel_frame.h"
#include "util/status_macros.h"

namespace xtune::cuda {
namespace {

using cpu::CodeBuffer;
using cpu::ElementalEmitter;
using cpu::IndexExpr;

constexpr int kBlock = 256;

int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

absl::Status Refuse(absl::string_view why) {
  return absl::UnimplementedError(
      absl::StrCat("the cuDNN candidate cannot take this convolution fusion: ", why));
}

// The fusion's one convolution, when everything that depends on it is an
// elementwise op of its dimensions (the epilogue) and the root is one.
absl::StatusOr<const Instruction*> FindConvolution(const Computation& fused) {
  const Instruction* conv = nullptr;
  for (const auto& i : fused.instructions()) {
    if (i->opcode() != Opcode::kConvolution) continue;
    if (conv != nullptr) return Refuse("more than one convolution");
    conv = i.get();
  }
  if (conv == nullptr) return Refuse("no convolution");
  absl::flat_hash_set<const Instruction*> after = {conv};
  for (const auto& i : fused.instructions()) {
    if (i.get() == conv) continue;
    bool depends = false;
    for (const Instruction* o : i->operands()) depends |= after.contains(o);
    if (!depends) continue;
    if (!IsElementwise(i->opcode()) || !i->shape().IsArray() ||
        i->shape().dims() != conv->shape().dims()) {
      return Refuse(absl::StrCat("'", i->name(), "' (", OpcodeName(i->opcode()),
                                 ") after the convolution is not elementwise"));
    }
    after.insert(i.get());
  }
  if (!after.contains(fused.root())) return Refuse("its result is not the convolution's");
  return conv;
}

// Declares the index of element xt_lin of a dense [outer, spatial...,
// inner] tensor: `outer`, `spatial`0, `spatial`1, ..., `inner`.
void Decode(const std::string& outer, int64_t outer_size, const std::string& spatial,
            const std::vector<int64_t>& spatial_sizes, const std::string& inner,
            int64_t inner_size, CodeBuffer* body) {
  std::vector<std::string> names = {outer};
  std::vector<int64_t> dims = {outer_size};
  for (size_t i = 0; i < spatial_sizes.size(); ++i) {
    names.push_back(absl::StrCat(spatial, i));
    dims.push_back(spatial_sizes[i]);
  }
  names.push_back(inner);
  dims.push_back(inner_size);
  body->Line("int64_t xt_rest = xt_lin;");
  for (size_t d = dims.size(); d-- > 0;) {
    body->Linef("const int64_t ", names[d], " = xt_rest % ", dims[d], ";");
    body->Linef("xt_rest /= ", dims[d], ";");
  }
}

}  // namespace

int64_t ConvShape::InElements() const { return batch * Product(in_spatial) * in_features; }
int64_t ConvShape::KernelElements() const {
  return out_features * Product(kernel_spatial) * (in_features / groups);
}
int64_t ConvShape::OutElements() const { return batch * Product(out_spatial) * out_features; }

absl::StatusOr<ConvShape> LibraryConvShape(const Computation& fused) {
  XTUNE_ASSIGN_OR_RETURN(const Instruction* conv, FindConvolution(fused));
  const InstructionAttrs& a = conv->attrs();
  const ConvDimensions& d = a.conv;
  const Shape& x = conv->operand(0)->shape();
  const Shape& w = conv->operand(1)->shape();
  const Shape& y = conv->shape();
  if (a.batch_group_count != 1) return Refuse("batch groups");
  if (d.input_spatial.size() > 3) return Refuse("more than 3 spatial dimensions");
  const DType xt = x.dtype(), wt = w.dtype();
  for (DType t : {xt, wt}) {
    if (t != DType::kF32 && t != DType::kF16 && t != DType::kBF16) {
      return Refuse(absl::StrCat(DTypeName(t), " operands"));
    }
  }
  if (y.dtype() != DType::kF32) return Refuse("a result that is not f32");
  ConvShape s;
  s.pack_type = xt == wt ? xt : DType::kF32;
  s.batch = x.dim(d.input_batch);
  s.in_features = x.dim(d.input_feature);
  s.out_features = y.dim(d.output_feature);
  s.groups = a.feature_group_count;
  for (size_t i = 0; i < d.input_spatial.size(); ++i) {
    const WindowDimension& wd = a.window[i];
    const int64_t in = x.dim(d.input_spatial[i]);
    s.in_spatial.push_back(in == 0 ? 0
                                   : (in - 1) * wd.base_dilation + 1 + wd.pad_low + wd.pad_high);
    s.kernel_spatial.push_back(w.dim(d.kernel_spatial[i]));
    s.out_spatial.push_back(y.dim(d.output_spatial[i]));
    s.stride.push_back(wd.stride);
    s.dilation.push_back(wd.window_dilation);
  }
  if (s.OutElements() == 0 || s.InElements() <= 0 || s.KernelElements() == 0) {
    return Refuse("an empty operand or result");
  }
  return s;
}

absl::StatusOr<LibraryConv> LibraryConvKernels(const Computation& fused,
                                               const CudaKernelOptions& options) {
  XTUNE_ASSIGN_OR_RETURN(ConvShape s, LibraryConvShape(fused));
  XTUNE_ASSIGN_OR_RETURN(const Instruction* conv, FindConvolution(fused));
  const InstructionAttrs& a = conv->attrs();
  const ConvDimensions& d = a.conv;
  const size_t n = s.in_spatial.size();
  LibraryConv out;
  out.shape = s;
  auto kernel = [&](const char* suffix, int64_t total, auto&& emit_body)
      -> absl::StatusOr<CudaKernelSource> {
    std::vector<DType> inputs = ParameterTypes(fused);
    const bool epilogue = std::string(suffix) == ".epilogue";
    if (epilogue) inputs.push_back(s.pack_type);
    const DType result = epilogue ? fused.root()->shape().dtype() : s.pack_type;
    Frame frame = MakeKernelFrame(inputs, result, kBlock);
    ElementalEmitter emitter = MakeEmitter("xt_const");
    CodeBuffer body;
    body.Open(frame.signature);
    body.Linef("const int64_t xt_lin = (int64_t)xt_bid() * ", kBlock, " + xt_tid();");
    body.Open(absl::StrCat("if (xt_lin < ", total, ")"));
    XTUNE_RETURN_IF_ERROR(emit_body(emitter, body, static_cast<int64_t>(inputs.size()) - 1));
    body.Close();
    body.Close();
    CudaKernelOptions named = options;
    named.name = absl::StrCat(options.name, suffix);
    return Assemble(named, frame, emitter, body, CeilDiv(total, kBlock), kBlock);
  };
  // pack_x: [batch, padded spatial..., features].
  XTUNE_ASSIGN_OR_RETURN(
      out.pack_x,
      kernel(".pack_x", s.InElements(),
             [&](ElementalEmitter& e, CodeBuffer& body, int64_t) -> absl::Status {
               Decode("xt_b", s.batch, "xt_s", s.in_spatial, "xt_f", s.in_features, &body);
               std::vector<IndexExpr> index(n + 2);
               index[d.input_batch].base = "xt_b";
               index[d.input_feature].base = "xt_f";
               std::string inside = "true";
               for (size_t i = 0; i < n; ++i) {
                 const WindowDimension& wd = a.window[i];
                 // Position in the dilated input; the element is there when
                 // it falls on a multiple of the dilation inside the input.
                 body.Linef("const int64_t xt_t", i, " = xt_s", i, " - (", wd.pad_low, ");");
                 absl::StrAppend(&inside, " && xt_t", i, " >= 0 && xt_t", i, " % ",
                                 wd.base_dilation, " == 0 && xt_t", i, " / ", wd.base_dilation,
                                 " < ", conv->operand(0)->shape().dim(d.input_spatial[i]));
                 index[d.input_spatial[i]].base = absl::StrCat("(xt_t", i, " / ", wd.base_dilation, ")");
               }
               body.Line("float xt_v = 0.0f;");
               body.Open(absl::StrCat("if (", inside, ")"));
               XTUNE_ASSIGN_OR_RETURN(std::string v, e.Emit(conv->operand(0), index, &body));
               body.Linef("xt_v = (float)(", v, ");");
               body.Close();
               body.Linef("XT_G(xt_out)[xt_lin] = ", ElementalEmitter::ToStorage("xt_v", s.pack_type),
                          ";");
               return absl::OkStatus();
             }));
  // pack_w: [out features, kernel spatial..., in features per group].
  XTUNE_ASSIGN_OR_RETURN(
      out.pack_w,
      kernel(".pack_w", s.KernelElements(),
             [&](ElementalEmitter& e, CodeBuffer& body, int64_t) -> absl::Status {
               Decode("xt_o", s.out_features, "xt_r", s.kernel_spatial, "xt_i",
                      s.in_features / s.groups, &body);
               std::vector<IndexExpr> index(n + 2);
               index[d.kernel_output_feature].base = "xt_o";
               index[d.kernel_input_feature].base = "xt_i";
               for (size_t i = 0; i < n; ++i) {
                 index[d.kernel_spatial[i]].base =
                     a.window[i].reversal
                         ? absl::StrCat("(", s.kernel_spatial[i] - 1, " - xt_r", i, ")")
                         : absl::StrCat("xt_r", i);
               }
               XTUNE_ASSIGN_OR_RETURN(std::string v, e.Emit(conv->operand(1), index, &body));
               body.Linef("XT_G(xt_out)[xt_lin] = ",
                          ElementalEmitter::ToStorage(absl::StrCat("(float)(", v, ")"),
                                                      s.pack_type),
                          ";");
               return absl::OkStatus();
             }));
  // epilogue: y (the last input) through the fusion's elementwise ops.
  XTUNE_ASSIGN_OR_RETURN(
      out.epilogue,
      kernel(".epilogue", s.OutElements(),
             [&](ElementalEmitter& e, CodeBuffer& body, int64_t y) -> absl::Status {
               Decode("xt_b", s.batch, "xt_o", s.out_spatial, "xt_k", s.out_features, &body);
               body.Linef("const float xt_y = (float)",
                          ElementalEmitter::FromStorage(absl::StrCat("XT_G(xt_p", y, ")"),
                                                        "xt_lin", s.pack_type),
                          ";");
               e.Bind(conv, "xt_y");
               std::vector<IndexExpr> index(n + 2);
               index[d.output_batch].base = "xt_b";
               index[d.output_feature].base = "xt_k";
               for (size_t i = 0; i < n; ++i) {
                 index[d.output_spatial[i]].base = absl::StrCat("xt_o", i);
               }
               const Instruction* root = fused.root();
               XTUNE_ASSIGN_OR_RETURN(std::string v, e.Emit(root, index, &body));
               body.Linef("XT_G(xt_out)[", cpu::PhysicalOffset(root->shape(), index).base, "] = ",
                          ElementalEmitter::ToStorage(v, root->shape().dtype()), ";");
               return absl::OkStatus();
             }));
  return out;
}

void HostConv(const ConvShape& s, const void* x, const void* w, void* y) {
  // Three spatial dimensions, the missing ones of size 1.
  std::vector<int64_t> in = s.in_spatial, ks = s.kernel_spatial, os = s.out_spatial,
                       st = s.stride, dl = s.dilation;
  while (in.size() < 3) {
    in.push_back(1), ks.push_back(1), os.push_back(1), st.push_back(1), dl.push_back(1);
  }
  const int64_t cg = s.in_features / s.groups, kg = s.out_features / s.groups;
  int64_t out = 0;
  for (int64_t b = 0; b < s.batch; ++b) {
    for (int64_t o0 = 0; o0 < os[0]; ++o0) {
      for (int64_t o1 = 0; o1 < os[1]; ++o1) {
        for (int64_t o2 = 0; o2 < os[2]; ++o2) {
          for (int64_t k = 0; k < s.out_features; ++k, ++out) {
            const int64_t g = k / kg;
            float acc = 0;
            int64_t wi = k * ks[0] * ks[1] * ks[2] * cg;
            for (int64_t r0 = 0; r0 < ks[0]; ++r0) {
              for (int64_t r1 = 0; r1 < ks[1]; ++r1) {
                for (int64_t r2 = 0; r2 < ks[2]; ++r2) {
                  const int64_t i0 = o0 * st[0] + r0 * dl[0];
                  const int64_t i1 = o1 * st[1] + r1 * dl[1];
                  const int64_t i2 = o2 * st[2] + r2 * dl[2];
                  const int64_t xi =
                      (((b * in[0] + i0) * in[1] + i1) * in[2] + i2) * s.in_features + g * cg;
                  for (int64_t c = 0; c < cg; ++c, ++wi) {
                    acc += LoadPacked(x, xi + c, s.pack_type) * LoadPacked(w, wi, s.pack_type);
                  }
                }
              }
            }
            StorePacked(y, out, s.pack_type, acc);
          }
        }
      }
    }
  }
}

}  // namespace xtune::cuda
