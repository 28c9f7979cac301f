#include "codegen/cuda/library_gemm.h"

#include "absl/strings/str_cat.h"
#include "codegen/cpu/gemm_analysis.h"
#include "codegen/cuda/kernel_frame.h"
#include "ir/dot_precision.h"
#include "util/status_macros.h"

namespace xtune::cuda {
namespace {

using cpu::CodeBuffer;
using cpu::ElementalEmitter;
using cpu::IndexExpr;

constexpr int kBlock = 256;

// Declares xt_bi and the two inner indices of a row-major [batch, rows,
// cols] element xt_lin.
void Split(const std::string& rows, const std::string& cols, int64_t r,
           int64_t c, CodeBuffer* body) {
  body->Linef("const int64_t ", cols, " = xt_lin % ", c, ";");
  body->Linef("const int64_t ", rows, " = (xt_lin / ", c, ") % ", r, ";");
  body->Linef("const int64_t xt_bi = xt_lin / ", r * c, ";");
}

absl::StatusOr<CudaKernelSource> PackKernel(const Computation& fused,
                                            const cpu::GemmFusion& g,
                                            int operand, const GemmShape& shape,
                                            const CudaKernelOptions& options) {
  const DType pack = shape.pack_type;
  const int64_t rows = operand == 0 ? g.m : g.k;
  const int64_t cols = operand == 0 ? g.k : g.n;
  const int64_t total = g.batch * rows * cols;
  Frame frame = MakeKernelFrame(ParameterTypes(fused), pack, kBlock);
  ElementalEmitter emitter = MakeEmitter("xt_const");
  CodeBuffer body;
  body.Open(frame.signature);
  body.Linef("const int64_t xt_lin = (int64_t)xt_bid() * ", kBlock, " + xt_tid();");
  body.Open(absl::StrCat("if (xt_lin < ", total, ")"));
  if (operand == 0) {
    Split("xt_mi", "xt_ki", rows, cols, &body);
  } else {
    Split("xt_ki", "xt_ni", rows, cols, &body);
  }
  XTUNE_ASSIGN_OR_RETURN(std::string v,
                         cpu::EmitGemmOperand(emitter, g, operand, "xt_bi",
                                              operand == 0 ? "xt_mi" : "xt_ni", "xt_ki", &body));
  std::string value = absl::StrCat("(float)(", v, ")");
  if (shape.tf32) value = absl::StrCat("xt_round_tf32(", value, ")");
  body.Linef("XT_G(xt_out)[xt_lin] = ", ElementalEmitter::ToStorage(value, pack), ";");
  body.Close();
  body.Close();
  CudaKernelOptions named = options;
  named.name = absl::StrCat(options.name, operand == 0 ? ".pack_a" : ".pack_b");
  return Assemble(named, frame, emitter, body, CeilDiv(total, kBlock), kBlock);
}

}  // namespace

absl::Status EmitGemmResultStore(const cpu::GemmFusion& g, const std::string& acc,
                                 DType out, ElementalEmitter* emitter, CodeBuffer* body) {
  emitter->Bind(g.dot, acc);
  std::vector<IndexExpr> index = cpu::GemmResultIndex(g, "xt_bi", "xt_mi", "xt_ni", 0);
  XTUNE_ASSIGN_OR_RETURN(std::string v, emitter->Emit(g.epilogue_root, index, body));
  body->Linef("XT_G(xt_out)[", cpu::PhysicalOffset(g.epilogue_root->shape(), index).base,
              "] = ", ElementalEmitter::ToStorage(v, out), ";");
  return absl::OkStatus();
}

absl::StatusOr<CudaKernelSource> GemmEpilogueKernel(
    const Computation& fused, const cpu::GemmFusion& g, int64_t splits,
    const CudaKernelOptions& options) {
  const int64_t total = g.batch * g.m * g.n;
  std::vector<DType> inputs = ParameterTypes(fused);
  const int64_t c = static_cast<int64_t>(inputs.size());
  inputs.push_back(DType::kF32);
  DType out = fused.root()->shape().dtype();
  Frame frame = MakeKernelFrame(inputs, out, kBlock);
  ElementalEmitter emitter = MakeEmitter("xt_const");
  CodeBuffer body;
  body.Open(frame.signature);
  body.Linef("const int64_t xt_lin = (int64_t)xt_bid() * ", kBlock, " + xt_tid();");
  body.Open(absl::StrCat("if (xt_lin < ", total, ")"));
  Split("xt_mi", "xt_ni", g.m, g.n, &body);
  if (splits == 1) {
    body.Linef("const float xt_acc = XT_G(xt_p", c, ")[xt_lin];");
  } else {
    // The split-k partials, summed in split order (deterministic).
    body.Line("float xt_acc = 0.0f;");
    body.Linef("for (int xt_s = 0; xt_s < ", splits, "; ++xt_s) xt_acc += XT_G(xt_p",
               c, ")[xt_s * (int64_t)", total, " + xt_lin];");
  }
  XTUNE_RETURN_IF_ERROR(EmitGemmResultStore(g, "xt_acc", out, &emitter, &body));
  body.Close();
  body.Close();
  CudaKernelOptions named = options;
  named.name = absl::StrCat(options.name, ".epilogue");
  return Assemble(named, frame, emitter, body, CeilDiv(total, kBlock), kBlock);
}

namespace {

absl::StatusOr<cpu::GemmFusion> Analyze(const Computation& fused) {
  absl::StatusOr<cpu::GemmFusion> analyzed = cpu::AnalyzeGemmFusion(fused);
  if (!analyzed.ok()) {
    return absl::UnimplementedError(absl::StrCat(
        "the cuBLASLt candidate cannot take this gemm fusion: ",
        analyzed.status().message()));
  }
  return analyzed;
}

GemmShape ShapeOf(const cpu::GemmFusion& g, bool tf32) {
  GemmShape shape = {g.batch, g.m, g.n, g.k, DType::kF32};
  shape.tf32 = tf32 && DotAllowsTf32(*g.dot);
  DType a = g.dot->operand(0)->shape().dtype();
  DType b = g.dot->operand(1)->shape().dtype();
  if (a == b && (a == DType::kF16 || a == DType::kBF16)) shape.pack_type = a;
  return shape;
}

}  // namespace

absl::StatusOr<GemmShape> LibraryGemmShape(const Computation& fused, bool tf32) {
  XTUNE_ASSIGN_OR_RETURN(cpu::GemmFusion g, Analyze(fused));
  return ShapeOf(g, tf32);
}

absl::StatusOr<LibraryGemm> LibraryGemmKernels(const Computation& fused,
                                               const CudaKernelOptions& options) {
  XTUNE_ASSIGN_OR_RETURN(cpu::GemmFusion g, Analyze(fused));
  LibraryGemm out;
  out.shape = ShapeOf(g, options.tf32);
  XTUNE_ASSIGN_OR_RETURN(out.pack_a,
                         PackKernel(fused, g, 0, out.shape, options));
  XTUNE_ASSIGN_OR_RETURN(out.pack_b,
                         PackKernel(fused, g, 1, out.shape, options));
  out.has_epilogue = !g.output_is_plain_f32;
  if (out.has_epilogue) {
    XTUNE_ASSIGN_OR_RETURN(out.epilogue, GemmEpilogueKernel(fused, g, 1, options));
  }
  return out;
}

void HostGemm(const GemmShape& s, const void* a, const void* b, float* c) {
  for (int64_t bi = 0; bi < s.batch; ++bi) {
    for (int64_t m = 0; m < s.m; ++m) {
      for (int64_t n = 0; n < s.n; ++n) {
        float acc = 0;
        for (int64_t k = 0; k < s.k; ++k) {
          acc += LoadPacked(a, (bi * s.m + m) * s.k + k, s.pack_type) *
                 LoadPacked(b, (bi * s.k + k) * s.n + n, s.pack_type);
        }
        c[(bi * s.m + m) * s.n + n] = acc;
      }
    }
  }
}

}  // namespace xtune::cuda
