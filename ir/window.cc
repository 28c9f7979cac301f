#include "ir/window.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "util/status_macros.h"

namespace xtune {
namespace {

constexpr int64_t kMaxWindowField = int64_t{1} << 31;

// Integers joined by 'x' ("3x3"); with `pairs`, low_high pairs ("1_1x0_2").
absl::StatusOr<std::vector<int64_t>> ParseXList(TextCursor& cursor, bool pairs) {
  std::vector<int64_t> values;
  while (true) {
    XTUNE_ASSIGN_OR_RETURN(int64_t v, cursor.ParseInt());
    values.push_back(v);
    if (pairs) {
      if (cursor.PeekRaw() != '_') return cursor.Error("expected '_' in pad (low_high)");
      cursor.set_pos(cursor.pos() + 1);
      XTUNE_ASSIGN_OR_RETURN(int64_t high, cursor.ParseInt());
      values.push_back(high);
    }
    if (cursor.PeekRaw() != 'x') return values;
    cursor.set_pos(cursor.pos() + 1);
  }
}

std::string XList(const std::vector<WindowDimension>& w,
                  int64_t (*field)(const WindowDimension&)) {
  std::vector<int64_t> v;
  for (const WindowDimension& d : w) v.push_back(field(d));
  return absl::StrJoin(v, "x");
}

}  // namespace

absl::Status ParseWindowText(TextCursor& cursor, std::vector<WindowDimension>* out) {
  XTUNE_RETURN_IF_ERROR(cursor.Expect('{', "to open a window"));
  out->clear();
  bool sized = false;
  while (!cursor.TryConsume('}')) {
    cursor.SkipSpace();
    size_t pos = cursor.pos();
    XTUNE_ASSIGN_OR_RETURN(std::string key, cursor.ParseName("a window field"));
    XTUNE_RETURN_IF_ERROR(cursor.Expect('=', "after a window field"));
    const bool pad = key == "pad";
    XTUNE_ASSIGN_OR_RETURN(std::vector<int64_t> v, ParseXList(cursor, pad));
    // Window arithmetic multiplies these: keep every product in int64.
    for (int64_t x : v) {
      if (x > kMaxWindowField || x < -kMaxWindowField) {
        return cursor.ErrorAt(pos, absl::StrCat("window field '", key, "' value ", x,
                                                " is out of range (|value| <= 2^31)"));
      }
    }
    const size_t n = pad ? v.size() / 2 : v.size();
    if (key == "size") {
      out->assign(n, WindowDimension());
      sized = true;
    } else if (!sized) {
      return cursor.ErrorAt(pos, "a window's size= must come first");
    }
    if (n != out->size()) {
      return cursor.ErrorAt(pos, absl::StrCat("window field '", key, "' has ", n,
                                              " dimensions, size= has ", out->size()));
    }
    for (size_t d = 0; d < n; ++d) {
      WindowDimension& w = (*out)[d];
      if (key == "size") {
        w.size = v[d];
      } else if (key == "stride") {
        w.stride = v[d];
      } else if (key == "pad") {
        w.pad_low = v[2 * d];
        w.pad_high = v[2 * d + 1];
      } else if (key == "lhs_dilate") {
        w.base_dilation = v[d];
      } else if (key == "rhs_dilate") {
        w.window_dilation = v[d];
      } else if (key == "rhs_reversal") {
        if (v[d] != 0 && v[d] != 1) return cursor.ErrorAt(pos, "rhs_reversal takes 0 or 1");
        w.reversal = v[d] == 1;
      } else {
        return cursor.ErrorAt(pos, absl::StrCat("unknown window field '", key,
                                                "' (size stride pad lhs_dilate "
                                                "rhs_dilate rhs_reversal)"));
      }
    }
  }
  for (const WindowDimension& w : *out) {
    if (w.size < 1 || w.stride < 1 || w.base_dilation < 1 || w.window_dilation < 1) {
      return cursor.Error("window sizes, strides and dilations must be positive");
    }
  }
  return absl::OkStatus();
}

std::string WindowText(const std::vector<WindowDimension>& window) {
  if (window.empty()) return "";
  std::vector<std::string> parts = {
      "size=" + XList(window, [](const WindowDimension& d) { return d.size; })};
  auto any = [&](auto pred) { return std::any_of(window.begin(), window.end(), pred); };
  if (any([](const WindowDimension& d) { return d.stride != 1; })) {
    parts.push_back("stride=" + XList(window, [](const WindowDimension& d) { return d.stride; }));
  }
  if (any([](const WindowDimension& d) { return d.pad_low != 0 || d.pad_high != 0; })) {
    std::vector<std::string> pads;
    for (const WindowDimension& d : window) pads.push_back(absl::StrCat(d.pad_low, "_", d.pad_high));
    parts.push_back("pad=" + absl::StrJoin(pads, "x"));
  }
  if (any([](const WindowDimension& d) { return d.base_dilation != 1; })) {
    parts.push_back("lhs_dilate=" +
                    XList(window, [](const WindowDimension& d) { return d.base_dilation; }));
  }
  if (any([](const WindowDimension& d) { return d.window_dilation != 1; })) {
    parts.push_back("rhs_dilate=" +
                    XList(window, [](const WindowDimension& d) { return d.window_dilation; }));
  }
  if (any([](const WindowDimension& d) { return d.reversal; })) {
    parts.push_back("rhs_reversal=" + XList(window, [](const WindowDimension& d) {
                      return static_cast<int64_t>(d.reversal);
                    }));
  }
  return absl::StrJoin(parts, " ");
}

namespace {

// One part of dim_labels: the dimension of each of `a`, `b` (batch and
// feature, or input and output feature) and each spatial digit.
absl::Status ParseLabelPart(absl::string_view part, char a, char b, int64_t* da,
                            int64_t* db, std::vector<int64_t>* spatial,
                            absl::string_view text) {
  *da = *db = -1;
  spatial->assign(part.size() >= 2 ? part.size() - 2 : 0, -1);
  for (size_t d = 0; d < part.size(); ++d) {
    const char c = part[d];
    int64_t* slot = nullptr;
    if (c == a) {
      slot = da;
    } else if (c == b) {
      slot = db;
    } else if (c >= '0' && c <= '9' && static_cast<size_t>(c - '0') < spatial->size()) {
      slot = &(*spatial)[c - '0'];
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "dim_labels '", text, "': '", std::string(1, c), "' in '", part,
          "' (expected ", std::string(1, a), ", ", std::string(1, b),
          spatial->empty() ? std::string(", no spatial digits")
                           : absl::StrCat(" and the spatial digits 0 to ", spatial->size() - 1),
          ")"));
    }
    if (*slot != -1) {
      return absl::InvalidArgumentError(absl::StrCat("dim_labels '", text, "': '",
                                                     std::string(1, c), "' twice in '",
                                                     part, "'"));
    }
    *slot = static_cast<int64_t>(d);
  }
  if (*da < 0 || *db < 0) {
    return absl::InvalidArgumentError(absl::StrCat("dim_labels '", text, "': '", part,
                                                   "' needs ", std::string(1, a), " and ",
                                                   std::string(1, b)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ConvDimensions> ParseDimLabels(absl::string_view text) {
  const size_t us = text.find('_');
  const size_t arrow = text.find("->");
  if (us == absl::string_view::npos || arrow == absl::string_view::npos || arrow < us) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dim_labels '", text, "' is not INPUT_KERNEL->OUTPUT (e.g. b01f_01io->b01f)"));
  }
  absl::string_view lhs = text.substr(0, us);
  absl::string_view rhs = text.substr(us + 1, arrow - us - 1);
  absl::string_view out = text.substr(arrow + 2);
  if (lhs.size() != rhs.size() || lhs.size() != out.size() || lhs.size() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dim_labels '", text, "': input, kernel and output need the same rank"));
  }
  ConvDimensions d;
  XTUNE_RETURN_IF_ERROR(
      ParseLabelPart(lhs, 'b', 'f', &d.input_batch, &d.input_feature, &d.input_spatial, text));
  XTUNE_RETURN_IF_ERROR(ParseLabelPart(rhs, 'i', 'o', &d.kernel_input_feature,
                                       &d.kernel_output_feature, &d.kernel_spatial, text));
  XTUNE_RETURN_IF_ERROR(ParseLabelPart(out, 'b', 'f', &d.output_batch, &d.output_feature,
                                       &d.output_spatial, text));
  return d;
}

std::string DimLabelsText(const ConvDimensions& d, int64_t rank) {
  auto part = [rank](int64_t x, char a, int64_t y, char b, const std::vector<int64_t>& s) {
    std::string out(static_cast<size_t>(rank), '?');
    if (x >= 0 && x < rank) out[x] = a;
    if (y >= 0 && y < rank) out[y] = b;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] >= 0 && s[i] < rank) out[s[i]] = static_cast<char>('0' + i);
    }
    return out;
  };
  return absl::StrCat(part(d.input_batch, 'b', d.input_feature, 'f', d.input_spatial), "_",
                      part(d.kernel_input_feature, 'i', d.kernel_output_feature, 'o',
                           d.kernel_spatial),
                      "->",
                      part(d.output_batch, 'b', d.output_feature, 'f', d.output_spatial));
}

int64_t WindowOutputSize(int64_t input, const WindowDimension& w) {
  const int64_t dilated = input == 0 ? 0 : (input - 1) * w.base_dilation + 1;
  const int64_t padded = dilated + w.pad_low + w.pad_high;
  const int64_t span = (w.size - 1) * w.window_dilation + 1;
  if (padded < span) return 0;
  return (padded - span) / w.stride + 1;
}

}  // namespace xtune
