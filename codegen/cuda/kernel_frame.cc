#include "codegen/cuda/kernel_frame.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "util/float_formats.h"

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

std::vector<DType> ParameterTypes(const Computation& fused) {
  std::vector<DType> types;
  for (int64_t i = 0; i < fused.parameter_count(); ++i) {
    types.push_back(fused.parameter(i)->shape().dtype());
  }
  return types;
}

float LoadPacked(const void* p, int64_t i, DType t) {
  uint16_t h;
  switch (t) {
    case DType::kF16:
      std::memcpy(&h, static_cast<const uint16_t*>(p) + i, 2);
      return static_cast<float>(F16FromBits(h));
    case DType::kBF16:
      std::memcpy(&h, static_cast<const uint16_t*>(p) + i, 2);
      return static_cast<float>(BF16FromBits(h));
    default:
      return static_cast<const float*>(p)[i];
  }
}

void StorePacked(void* p, int64_t i, DType t, float v) {
  uint16_t h;
  switch (t) {
    case DType::kF16:
      h = F16ToBits(v);
      std::memcpy(static_cast<uint16_t*>(p) + i, &h, 2);
      return;
    case DType::kBF16:
      h = BF16ToBits(v);
      std::memcpy(static_cast<uint16_t*>(p) + i, &h, 2);
      return;
    default:
      static_cast<float*>(p)[i] = v;
  }
}

}  // namespace xtune::cuda
