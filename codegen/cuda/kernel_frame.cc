#include "codegen/cuda/kernel_frame.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xtune::cuda {
namespace {

std::string Param(int64_t i) { return absl::StrCat("XT_G(xt_p", i, ")"); }

}  // namespace

Frame MakeKernelFrame(const std::vector<DType>& inputs, DType output,
                      int block) {
  using cpu::ElementalEmitter;
  Frame f;
  std::vector<std::string> params, args;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string type = ElementalEmitter::StorageType(inputs[i]);
    params.push_back(absl::StrCat("XT_IN(", type, ") xt_p", i));
    args.push_back(absl::StrCat("XtG<const ", type, ">(&b[", i, "])"));
    f.elem_bytes.push_back(static_cast<int>(DTypeByteSize(inputs[i])));
  }
  std::string type = ElementalEmitter::StorageType(output);
  params.push_back(absl::StrCat("XT_OUT(", type, ") xt_out"));
  args.push_back(absl::StrCat("XtG<", type, ">(&b[", inputs.size(), "])"));
  f.elem_bytes.push_back(static_cast<int>(DTypeByteSize(output)));
  f.signature = absl::StrCat("XT_KERNEL(", block, ") xt_kernel(",
                             absl::StrJoin(params, ", "), ")");
  f.entry = absl::StrCat(
      "#ifdef XT_EMULATOR\n"
      "extern \"C\" void xt_emu_entry(const XtEmuBuffer* b) {\n"
      "  xt_kernel(", absl::StrJoin(args, ", "), ");\n"
      "}\n"
      "#endif\n");
  return f;
}

cpu::ElementalEmitter MakeEmitter(const char* prefix) {
  cpu::ElementalEmitter e(1, Param, prefix);
  e.set_array_qualifier("XT_CONST_ARRAY");
  return e;
}

CudaKernelSource Assemble(const CudaKernelOptions& options, const Frame& frame,
                          const cpu::ElementalEmitter& emitter,
                          const cpu::CodeBuffer& body, int64_t grid,
                          int64_t block, const std::string& functions) {
  CudaKernelSource out;
  out.body = absl::StrCat("#line 1 \"", options.name, ".cu\"\n",
                          emitter.globals(), functions, body.text(),
                          frame.entry);
  out.grid = std::max<int64_t>(1, grid);
  out.block = static_cast<int>(block);
  out.elem_bytes = frame.elem_bytes;
  return out;
}

std::string ParameterDecls(const Computation& fused) {
  std::string out;
  for (int64_t i = 0; i < fused.parameter_count(); ++i) {
    absl::StrAppend(&out, "XT_IN(",
                    cpu::ElementalEmitter::StorageType(fused.parameter(i)->shape().dtype()),
                    ") xt_p", i, ", ");
  }
  return out;
}

std::string ParameterNames(const Computation& fused) {
  std::string out;
  for (int64_t i = 0; i < fused.parameter_count(); ++i) absl::StrAppend(&out, "xt_p", i, ", ");
  return out;
}

}  // namespace xtune::cuda
