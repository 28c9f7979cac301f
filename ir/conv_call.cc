#include "ir/conv_call.h"

#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "ir/library_call.h"
#include "ir/text_cursor.h"
#include "ir/window.h"
#include "util/json.h"

namespace xtune {
namespace {

// The parser and the verifier name the instruction; the message says what.
absl::Status Bad(const Instruction& /*inst*/, absl::string_view what) {
  return absl::InvalidArgumentError(what);
}

const RawAttribute* Raw(const Instruction& inst, absl::string_view name) {
  for (const RawAttribute& a : inst.attrs().other) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

absl::Status ReadBackendConfig(const Instruction& inst, ConvCall* call) {
  if (inst.attrs().backend_config.empty()) return absl::OkStatus();
  absl::StatusOr<JsonValue> parsed = ParseBackendConfigJson(inst.attrs().backend_config);
  if (!parsed.ok()) return Bad(inst, "its backend_config is not JSON");
  const JsonValue* c = parsed->Find("cudnn_conv_backend_config");
  if (c == nullptr) c = &*parsed;
  for (auto [field, out, fallback] :
       {std::tuple{"conv_result_scale", &call->conv_result_scale, 1.0},
        std::tuple{"side_input_scale", &call->side_input_scale, 0.0},
        std::tuple{"leakyrelu_alpha", &call->leakyrelu_alpha, 0.0}}) {
    absl::StatusOr<double> v = JsonNumberField(*c, field, fallback);
    if (!v.ok()) return Bad(inst, v.status().message());
    *out = *v;
  }
  if (const JsonValue* a = c->Find("activation_mode")) {
    static constexpr std::pair<absl::string_view, ConvActivation> kModes[] = {
        {"kNone", ConvActivation::kNone},      {"kRelu", ConvActivation::kRelu},
        {"kRelu6", ConvActivation::kRelu6},    {"kElu", ConvActivation::kElu},
        {"kLeakyRelu", ConvActivation::kLeakyRelu}, {"kTanh", ConvActivation::kTanh},
        {"kSigmoid", ConvActivation::kSigmoid}, {"0", ConvActivation::kNone}};
    bool found = false;
    for (const auto& [name, mode] : kModes) {
      if (a->text == name) call->activation = mode, found = true;
    }
    if (!found) {
      return absl::UnimplementedError(absl::StrCat(
          "cuDNN activation ", a->text,
          " (xtune runs kNone kRelu kRelu6 kElu kLeakyRelu kTanh kSigmoid)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

bool IsConvCallTarget(absl::string_view target) {
  return target == kCudnnConvForwardTarget || target == kCudnnConvBackwardInputTarget ||
         target == kCudnnConvBackwardFilterTarget || target == kCudnnConvBiasActivationTarget;
}

absl::StatusOr<ConvCall> ReadConvCall(const Instruction& inst) {
  std::optional<std::string> target = CustomCallTarget(inst);
  if (!target.has_value() || !IsConvCallTarget(*target)) {
    return absl::UnimplementedError("not a cuDNN convolution call");
  }
  ConvCall call;
  call.target = *target;
  call.kind = *target == kCudnnConvForwardTarget         ? ConvCallKind::kForward
              : *target == kCudnnConvBackwardInputTarget  ? ConvCallKind::kBackwardInput
              : *target == kCudnnConvBackwardFilterTarget ? ConvCallKind::kBackwardFilter
                                                          : ConvCallKind::kBiasActivation;
  const RawAttribute* labels = Raw(inst, "dim_labels");
  if (labels == nullptr) return Bad(inst, "a cuDNN convolution needs dim_labels");
  absl::StatusOr<ConvDimensions> dims = ParseDimLabels(labels->value);
  if (!dims.ok()) return Bad(inst, dims.status().message());
  call.dims = *dims;
  if (const RawAttribute* w = Raw(inst, "window")) {
    TextCursor cursor(w->value, "window");
    absl::Status s = ParseWindowText(cursor, &call.window);
    if (!s.ok()) return Bad(inst, s.message());
  }
  for (auto [name, out] : {std::pair{"feature_group_count", &call.feature_group_count},
                           std::pair{"batch_group_count", &call.batch_group_count}}) {
    const RawAttribute* a = Raw(inst, name);
    if (a != nullptr && (!absl::SimpleAtoi(a->value, out) || *out < 1)) {
      return Bad(inst, absl::StrCat(name, " must be a positive integer"));
    }
  }
  absl::Status s = ReadBackendConfig(inst, &call);
  if (!s.ok()) return s;
  const int64_t want = call.kind == ConvCallKind::kBiasActivation ? 3 : 2;
  if (inst.operand_count() != want && !(want == 3 && inst.operand_count() == 4)) {
    return Bad(inst, absl::StrCat(*target, " takes ", want == 3 ? "3 or 4" : "2",
                                  " operands, not ", inst.operand_count()));
  }
  if (want == 3) {
    call.bias_operand = 2;
    if (inst.operand_count() == 4) call.side_input_operand = 3;
  }
  if (!inst.shape().IsTuple() || inst.shape().tuple_shapes().empty() ||
      !inst.shape().tuple_shapes()[0].IsArray()) {
    return Bad(inst, "a cuDNN convolution returns (result, u8[scratch])");
  }
  call.result = inst.shape().tuple_shapes()[0];
  if (call.kind == ConvCallKind::kBackwardInput || call.kind == ConvCallKind::kBackwardFilter) {
    if (call.batch_group_count != 1) {
      return absl::UnimplementedError("batch groups in a backward cuDNN convolution");
    }
    for (const WindowDimension& w : call.window) {
      if (w.base_dilation != 1 ||
          (call.kind == ConvCallKind::kBackwardFilter && w.reversal)) {
        return absl::UnimplementedError(
            "lhs dilation or a reversed kernel in a backward cuDNN convolution");
      }
    }
  }
  return call;
}

absl::StatusOr<ConvAsConvolution> AsConvolution(const ConvCall& call, const Shape& operand0,
                                                const Shape& operand1) {
  ConvAsConvolution c;
  const ConvDimensions& d = call.dims;
  const size_t n = d.input_spatial.size();
  if (call.window.size() != n || operand0.rank() != static_cast<int64_t>(n) + 2 ||
      operand1.rank() != operand0.rank() || call.result.rank() != operand0.rank()) {
    return absl::InvalidArgumentError(absl::StrCat(
        call.target, ": dim_labels, window and operands disagree on the rank"));
  }
  c.window = call.window;
  c.dims = d;
  c.feature_group_count = call.feature_group_count;
  c.batch_group_count = call.batch_group_count;
  if (call.kind == ConvCallKind::kForward || call.kind == ConvCallKind::kBiasActivation) {
    return c;
  }
  const int64_t g = call.feature_group_count;
  if (call.kind == ConvCallKind::kBackwardInput) {
    // dx = conv(dy dilated by the stride, the kernel reversed and regrouped
    // to [spatial..., O/G, C]).
    const Shape& dy = operand0;
    const Shape& w = operand1;
    const int64_t cg = w.dim(d.kernel_input_feature), o = w.dim(d.kernel_output_feature);
    if (o % g != 0) return absl::InvalidArgumentError(call.target + ": kernel groups");
    c.regroup = true;
    std::vector<int64_t> ks;
    for (size_t i = 0; i < n; ++i) {
      c.perm.push_back(d.kernel_spatial[i]);
      ks.push_back(w.dim(d.kernel_spatial[i]));
    }
    c.perm.push_back(d.kernel_input_feature);
    c.perm.push_back(d.kernel_output_feature);
    c.split = ks;
    c.split.insert(c.split.end(), {cg, g, o / g});
    for (size_t i = 0; i < n; ++i) c.perm2.push_back(static_cast<int64_t>(i));
    c.perm2.insert(c.perm2.end(), {static_cast<int64_t>(n) + 2, static_cast<int64_t>(n) + 1,
                                   static_cast<int64_t>(n)});
    c.kernel_dims = ks;
    c.kernel_dims.insert(c.kernel_dims.end(), {o / g, g * cg});
    ConvDimensions& e = c.dims;
    e.input_batch = d.output_batch;
    e.input_feature = d.output_feature;
    e.input_spatial = d.output_spatial;
    e.kernel_spatial.clear();
    for (size_t i = 0; i < n; ++i) e.kernel_spatial.push_back(static_cast<int64_t>(i));
    e.kernel_input_feature = static_cast<int64_t>(n);
    e.kernel_output_feature = static_cast<int64_t>(n) + 1;
    e.output_batch = d.input_batch;
    e.output_feature = d.input_feature;
    e.output_spatial = d.input_spatial;
    for (size_t i = 0; i < n; ++i) {
      const WindowDimension& f = call.window[i];
      WindowDimension& b = c.window[i];
      const int64_t x = call.result.dim(d.input_spatial[i]), y = dy.dim(d.output_spatial[i]);
      b = WindowDimension();
      b.size = f.size;
      b.base_dilation = f.stride;
      b.window_dilation = f.window_dilation;
      b.reversal = !f.reversal;
      b.pad_low = (f.size - 1) * f.window_dilation - f.pad_low;
      b.pad_high = x - 1 - (y - 1) * f.stride - b.pad_low + (f.size - 1) * f.window_dilation;
    }
    return c;
  }
  // dw = conv(x, dy): the input's features as the batch, its batch as the
  // contracted feature, dy as the kernel, the groups as batch groups.
  const Shape& x = operand0;
  const Shape& dy = operand1;
  ConvDimensions& e = c.dims;
  e.input_batch = d.input_feature;
  e.input_feature = d.input_batch;
  e.input_spatial = d.input_spatial;
  e.kernel_input_feature = d.output_batch;
  e.kernel_output_feature = d.output_feature;
  e.kernel_spatial = d.output_spatial;
  e.output_batch = d.kernel_input_feature;
  e.output_feature = d.kernel_output_feature;
  e.output_spatial = d.kernel_spatial;
  c.feature_group_count = 1;
  c.batch_group_count = g;
  for (size_t i = 0; i < n; ++i) {
    const WindowDimension& f = call.window[i];
    WindowDimension& b = c.window[i];
    const int64_t xs = x.dim(d.input_spatial[i]), ys = dy.dim(d.output_spatial[i]);
    b = WindowDimension();
    b.size = ys;
    b.stride = f.window_dilation;
    b.window_dilation = f.stride;
    b.pad_low = f.pad_low;
    b.pad_high = (f.size - 1) * f.window_dilation + (ys - 1) * f.stride + 1 - xs - f.pad_low;
  }
  return c;
}

}  // namespace xtune
