// Shape inference of the windowed operations: convolution (any rank, any
// dim_labels, feature and batch groups), reduce-window (variadic) and
// select-and-scatter, with XLA's output-size rule (ir/window.h).
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "ir/conv_call.h"
#include "ir/library_call.h"
#include "ir/shape_inference_internal.h"
#include "ir/window.h"

namespace xtune {

absl::Status RefusePackedNibbles(const Instruction& inst) {
  for (const RawAttribute& a : inst.attrs().other) {
    if (a.name == "operand_precision" &&
        absl::StrContains(absl::AsciiStrToLower(a.value), "packed_nibble")) {
      return absl::UnimplementedError(
          "operand_precision PACKED_NIBBLE (two 4-bit values in each s8) is not supported");
    }
  }
  return absl::OkStatus();
}

namespace {

// The parser and the verifier name the instruction; the message says what.
absl::Status Invalid(const Instruction&, const std::string& message) {
  return absl::InvalidArgumentError(message);
}

bool SameClass(DType a, DType b) {
  return IsFloat(a) == IsFloat(b) && (a == DType::kPred) == (b == DType::kPred);
}

absl::StatusOr<Shape> InferConvolution(const Instruction& inst) {
  if (inst.operand_count() != 2) return Invalid(inst, "takes an input and a kernel");
  if (absl::Status s = RefusePackedNibbles(inst); !s.ok()) return s;
  const Shape& in = inst.operand(0)->shape();
  const Shape& k = inst.operand(1)->shape();
  if (!in.IsArray() || !k.IsArray() || in.rank() != k.rank() || in.rank() < 2) {
    return Invalid(inst, "input and kernel must be arrays of the same rank (at least 2)");
  }
  if (in.dtype() == DType::kPred && k.dtype() == DType::kPred) {
    return absl::UnimplementedError("pred operands (XLA's OR of ANDs) are not supported");
  }
  if (!SameClass(in.dtype(), k.dtype()) || !SameClass(in.dtype(), inst.shape().dtype()) ||
      in.dtype() == DType::kPred) {
    return Invalid(inst, absl::StrCat("mixes element types ", DTypeName(in.dtype()), ", ",
                                      DTypeName(k.dtype()), " -> ",
                                      DTypeName(inst.shape().dtype())));
  }
  const InstructionAttrs& a = inst.attrs();
  const ConvDimensions& d = a.conv;
  const int64_t spatial = in.rank() - 2;
  if (static_cast<int64_t>(d.input_spatial.size()) != spatial) {
    return Invalid(inst, absl::StrCat("dim_labels name ", d.input_spatial.size() + 2,
                                      " dimensions, the operands have ", in.rank()));
  }
  if (static_cast<int64_t>(a.window.size()) != spatial) {
    return Invalid(inst, absl::StrCat("the window has ", a.window.size(),
                                      " dimensions, the convolution ", spatial,
                                      " spatial ones"));
  }
  const int64_t g = a.feature_group_count, bg = a.batch_group_count;
  if (g > 1 && bg > 1) return Invalid(inst, "both feature and batch groups");
  const int64_t c = in.dim(d.input_feature), ci = k.dim(d.kernel_input_feature);
  const int64_t o = k.dim(d.kernel_output_feature), n = in.dim(d.input_batch);
  if (c != ci * g) {
    return Invalid(inst, absl::StrCat("input features (", c, ") must be the kernel's input "
                                      "features (", ci, ") x feature_group_count (", g, ")"));
  }
  if (o % g != 0 || o % bg != 0) {
    return Invalid(inst, absl::StrCat("output features (", o, ") must divide into ",
                                      g > 1 ? g : bg, " groups"));
  }
  if (n % bg != 0) {
    return Invalid(inst, absl::StrCat("batch (", n, ") must divide into ", bg, " groups"));
  }
  std::vector<int64_t> dims(in.rank(), 0);
  dims[d.output_batch] = n / bg;
  dims[d.output_feature] = o;
  for (int64_t i = 0; i < spatial; ++i) {
    const WindowDimension& w = a.window[i];
    if (k.dim(d.kernel_spatial[i]) != w.size) {
      return Invalid(inst, absl::StrCat("kernel spatial dimension ", i, " is ",
                                        k.dim(d.kernel_spatial[i]), ", the window ", w.size));
    }
    dims[d.output_spatial[i]] = WindowOutputSize(in.dim(d.input_spatial[i]), w);
  }
  return Shape(inst.shape().dtype(), dims);
}

absl::Status CheckWindowRank(const Instruction& inst, const Shape& s) {
  if (static_cast<int64_t>(inst.attrs().window.size()) != s.rank()) {
    return Invalid(inst, absl::StrCat("the window has ", inst.attrs().window.size(),
                                      " dimensions, the operand ", s.rank()));
  }
  return absl::OkStatus();
}

std::vector<int64_t> WindowedDims(const Instruction& inst, const Shape& s) {
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < s.rank(); ++i) {
    dims.push_back(WindowOutputSize(s.dim(i), inst.attrs().window[i]));
  }
  return dims;
}

absl::StatusOr<Shape> InferReduceWindow(const Instruction& inst) {
  const int64_t n = inst.operand_count() / 2;
  if (n < 1 || inst.operand_count() != 2 * n || inst.called_computations().size() != 1) {
    return Invalid(inst, "takes N inputs, N initial values and one to_apply");
  }
  const Shape& first = inst.operand(0)->shape();
  std::vector<DType> types;
  for (int64_t i = 0; i < n; ++i) {
    const Shape& x = inst.operand(i)->shape();
    const Shape& init = inst.operand(n + i)->shape();
    if (!x.IsArray() || x.dims() != first.dims()) {
      return Invalid(inst, "inputs must be arrays of the same dimensions");
    }
    if (!init.IsArray() || init.rank() != 0 || init.dtype() != x.dtype()) {
      return Invalid(inst, absl::StrCat("initial value ", i, " must be a ",
                                        DTypeName(x.dtype()), " scalar"));
    }
    types.push_back(x.dtype());
  }
  absl::Status s = CheckWindowRank(inst, first);
  if (!s.ok()) return s;
  std::vector<DType> params = types;
  params.insert(params.end(), types.begin(), types.end());
  s = CheckScalarComputation(inst.called_computations()[0], params, types, "reduce-window");
  if (!s.ok()) return s;
  std::vector<int64_t> dims = WindowedDims(inst, first);
  if (n == 1) return Shape(types[0], dims);
  std::vector<Shape> elems;
  for (DType t : types) elems.emplace_back(t, dims);
  return Shape::Tuple(std::move(elems));
}

absl::StatusOr<Shape> InferSelectAndScatter(const Instruction& inst) {
  if (inst.operand_count() != 3 || inst.called_computations().size() != 2) {
    return Invalid(inst, "takes (operand, source, init) with select= and scatter=");
  }
  const Shape& x = inst.operand(0)->shape();
  const Shape& src = inst.operand(1)->shape();
  const Shape& init = inst.operand(2)->shape();
  if (!x.IsArray() || !src.IsArray() || !init.IsArray() || init.rank() != 0 ||
      src.dtype() != x.dtype() || init.dtype() != x.dtype()) {
    return Invalid(inst, "operand, source and a scalar init of one element type");
  }
  absl::Status s = CheckWindowRank(inst, x);
  if (!s.ok()) return s;
  if (WindowedDims(inst, x) != src.dims()) {
    return Invalid(inst, absl::StrCat("source is ", src.ToString(false),
                                      ", the windows of the operand make ",
                                      Shape(x.dtype(), WindowedDims(inst, x)).ToString(false)));
  }
  s = CheckScalarComputation(inst.called_computations()[0], {x.dtype(), x.dtype()},
                             {DType::kPred}, "select");
  if (!s.ok()) return s;
  s = CheckScalarComputation(inst.called_computations()[1], {x.dtype(), x.dtype()},
                             {x.dtype()}, "scatter");
  if (!s.ok()) return s;
  return Shape(x.dtype(), x.dims());
}

}  // namespace

bool IsConvCall(const Instruction& inst) {
  std::optional<std::string> target = CustomCallTarget(inst);
  return target.has_value() && IsConvCallTarget(*target);
}

absl::StatusOr<Shape> InferConvCall(const Instruction& inst) {
  absl::StatusOr<ConvCall> call = ReadConvCall(inst);
  if (!call.ok()) return call.status();
  if (inst.operand_count() < 2 || !inst.operand(0)->shape().IsArray() ||
      !inst.operand(1)->shape().IsArray()) {
    return Invalid(inst, "operands must be arrays");
  }
  const Shape& a = inst.operand(0)->shape();
  const Shape& b = inst.operand(1)->shape();
  absl::StatusOr<ConvAsConvolution> c = AsConvolution(*call, a, b);
  if (!c.ok()) return c.status();
  // The shape of the equivalent convolution, on the regrouped kernel.
  Shape kernel = b;
  if (c->regroup) {
    if (b.ElementCount() != Shape(b.dtype(), c->kernel_dims).ElementCount()) {
      return Invalid(inst, "the kernel does not split into its groups");
    }
    kernel = Shape(b.dtype(), c->kernel_dims);
  }
  Instruction conv(inst.name(), Opcode::kConvolution, Shape(call->result.dtype(), {}));
  Instruction lhs("lhs", Opcode::kParameter, c->lhs == 0 ? a : b);
  Instruction rhs("rhs", Opcode::kParameter, c->rhs == 0 ? a : kernel);
  conv.AppendOperand(&lhs);
  conv.AppendOperand(&rhs);
  InstructionAttrs* attrs = conv.mutable_attrs();
  attrs->window = c->window;
  attrs->conv = c->dims;
  attrs->feature_group_count = c->feature_group_count;
  attrs->batch_group_count = c->batch_group_count;
  absl::StatusOr<Shape> s = InferConvolution(conv);
  if (!s.ok()) return s.status();
  if (s->dims() != call->result.dims()) {
    return Invalid(inst, absl::StrCat(call->target, " of these operands gives ",
                                      s->ToString(false), ", the call returns ",
                                      call->result.ToString(false)));
  }
  const int64_t features = call->result.dim(call->dims.output_feature);
  if (call->bias_operand >= 0 &&
      inst.operand(call->bias_operand)->shape().dims() != std::vector<int64_t>{features}) {
    return Invalid(inst, absl::StrCat("the bias must have the ", features, " output features"));
  }
  if (call->side_input_operand >= 0 &&
      inst.operand(call->side_input_operand)->shape().dims() != call->result.dims()) {
    return Invalid(inst, "the side input must have the result's dimensions");
  }
  return inst.shape();
}

absl::StatusOr<Shape> InferWindowed(const Instruction& inst) {
  for (const WindowDimension& w : inst.attrs().window) {
    if (w.size < 1 || w.stride < 1 || w.base_dilation < 1 || w.window_dilation < 1) {
      return Invalid(inst, "window sizes, strides and dilations must be positive");
    }
  }
  switch (inst.opcode()) {
    case Opcode::kConvolution:
      return InferConvolution(inst);
    case Opcode::kReduceWindow:
      return InferReduceWindow(inst);
    default:
      return InferSelectAndScatter(inst);
  }
}

}  // namespace xtune
