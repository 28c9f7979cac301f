#include "runtime/compare.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ir/dot_precision.h"

namespace xtune {

CompareOptions VerifyTolerance(const Module& module, bool tf32_dots) {
  CompareOptions o;
  if (tf32_dots && AnyDotAllowsTf32(module)) o.f32_tolerance = kTf32Tolerance;
  return o;
}

int64_t LongestSum(const Computation& fused) {
  int64_t longest = 1;
  for (const auto& inst : fused.instructions()) {
    const InstructionAttrs& a = inst->attrs();
    int64_t terms = 1;
    switch (inst->opcode()) {
      case Opcode::kDot:
        for (int64_t d : a.dot.lhs_contracting) terms *= inst->operand(0)->shape().dim(d);
        break;
      case Opcode::kConvolution:
        for (const WindowDimension& w : a.window) terms *= w.size;
        terms *= inst->operand(0)->shape().dim(a.conv.input_feature) /
                 std::max<int64_t>(a.feature_group_count, 1);
        break;
      case Opcode::kReduce:
        for (int64_t d : a.dimensions) terms *= inst->operand(0)->shape().dim(d);
        break;
      case Opcode::kReduceWindow:
        for (const WindowDimension& w : a.window) terms *= w.size;
        break;
      default:
        break;
    }
    longest = std::max(longest, terms);
    for (const Computation* called : inst->called_computations()) {
      longest = std::max(longest, LongestSum(*called));
    }
  }
  return longest;
}

CompareOptions EmulatorMatchTolerance(const Computation& fused) {
  CompareOptions o;
  o.f32_tolerance = 1e-5 + 16.0 * static_cast<double>(LongestSum(fused)) * std::ldexp(1.0, -24);
  return o;
}

namespace {

std::string IndexString(const Shape& s, int64_t linear) {
  std::vector<int64_t> idx(s.rank());
  for (int64_t d = s.rank() - 1; d >= 0; --d) {
    idx[d] = linear % std::max<int64_t>(s.dim(d), 1);
    linear /= std::max<int64_t>(s.dim(d), 1);
  }
  std::string out = "[";
  for (size_t i = 0; i < idx.size(); ++i) {
    absl::StrAppend(&out, i ? "," : "", idx[i]);
  }
  return out + "]";
}

}  // namespace

absl::Status CompareLiterals(const Literal& expected, const Literal& actual,
                             absl::string_view what,
                             const CompareOptions& options) {
  if (!expected.shape().Compatible(actual.shape())) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": shape ", actual.shape().ToString(false), " but expected ",
        expected.shape().ToString(false)));
  }
  if (expected.IsTuple()) {
    for (size_t i = 0; i < expected.elements().size(); ++i) {
      absl::Status s = CompareLiterals(expected.elements()[i], actual.elements()[i],
                                       absl::StrCat(what, "{", i, "}"), options);
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }
  DType t = expected.shape().dtype();
  double tol = (t == DType::kF16 || t == DType::kBF16) ? options.f16_tolerance
                                                       : options.f32_tolerance;
  // 8-bit floats: one step of their mantissa (2^-3 for e4m3, 2^-2 for e5m2),
  // the most an f32 accumulation order can move a rounded result.
  if (std::optional<Fp8Format> f = Fp8FormatOf(t)) {
    tol = std::ldexp(1.0, -f->mantissa_bits);
  }
  int64_t n = expected.element_count();
  int64_t mismatches = 0, worst = -1;
  double worst_error = 0;
  for (int64_t i = 0; i < n; ++i) {
    double error;
    if (IsFloat(t)) {
      double a = expected.GetDouble(i), b = actual.GetDouble(i);
      if (std::isnan(a) || std::isnan(b)) {
        error = std::isnan(a) && std::isnan(b) ? 0 : INFINITY;
      } else if (std::isinf(a) || std::isinf(b)) {
        error = a == b ? 0 : INFINITY;
      } else {
        error = std::fabs(a - b) / (std::max(std::fabs(a), std::fabs(b)) + 1);
      }
      if (error <= tol) continue;
    } else {
      if (expected.GetInt(i) == actual.GetInt(i)) continue;
      error = INFINITY;
    }
    ++mismatches;
    if (worst < 0 || error > worst_error) {
      worst = i;
      worst_error = error;
    }
  }
  if (mismatches == 0) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrFormat(
      "%s: %d of %d elements differ from the reference; worst at %s: got %.9g, "
      "expected %.9g (relative error %.3g, tolerance %.3g)",
      std::string(what), mismatches, n, IndexString(expected.shape(), worst),
      actual.GetDouble(worst), expected.GetDouble(worst), worst_error,
      IsFloat(t) ? tol : 0.0));
}

}  // namespace xtune
