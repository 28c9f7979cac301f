#include "ir/shape.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xtune {

std::vector<int64_t> DefaultLayout(int64_t rank) {
  std::vector<int64_t> layout(rank);
  for (int64_t i = 0; i < rank; ++i) layout[i] = rank - 1 - i;
  return layout;
}

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * dims[i + 1];
  }
  return strides;
}

Shape::Shape(DType type, std::vector<int64_t> dims)
    : dtype_(type), dims_(std::move(dims)) {
  SetDefaultLayout();
}

Shape::Shape(DType type, std::vector<int64_t> dims,
             std::vector<int64_t> minor_to_major)
    : dtype_(type), dims_(std::move(dims)), layout_(std::move(minor_to_major)) {}

Shape Shape::Tuple(std::vector<Shape> elements) {
  Shape s;
  s.dtype_ = DType::kTuple;
  s.tuple_ = std::move(elements);
  return s;
}

Shape Shape::Token() {
  Shape s = Tuple({});
  s.token_ = true;
  return s;
}

int64_t Shape::ElementCount() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

bool Shape::HasDefaultLayout() const { return layout_ == DefaultLayout(rank()); }

void Shape::SetDefaultLayout() { layout_ = DefaultLayout(rank()); }

absl::Status Shape::Validate() const {
  if (IsTuple()) {
    for (const Shape& s : tuple_) {
      if (absl::Status st = s.Validate(); !st.ok()) return st;
    }
    return absl::OkStatus();
  }
  int64_t elements = 1;
  for (int64_t d : dims_) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("negative dimension in shape ", ToString()));
    }
    if (d > 0 && elements > (int64_t{1} << 40) / d) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape ", ToString(), " has too many elements"));
    }
    elements *= d;
  }
  if (layout_.size() != dims_.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "layout {", absl::StrJoin(layout_, ","), "} has ", layout_.size(),
        " entries but the shape has rank ", dims_.size()));
  }
  std::vector<bool> seen(dims_.size(), false);
  for (int64_t d : layout_) {
    if (d < 0 || d >= rank() || seen[d]) {
      return absl::InvalidArgumentError(
          absl::StrCat("layout {", absl::StrJoin(layout_, ","),
                       "} is not a permutation of the dimensions of rank ",
                       rank()));
    }
    seen[d] = true;
  }
  return absl::OkStatus();
}

std::string Shape::ToString(bool print_layout) const {
  if (token_) return "token[]";
  if (IsTuple()) {
    std::vector<std::string> parts;
    parts.reserve(tuple_.size());
    for (const Shape& s : tuple_) parts.push_back(s.ToString(print_layout));
    return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
  }
  std::string out =
      absl::StrCat(DTypeName(dtype_), "[", absl::StrJoin(dims_, ","), "]");
  if (print_layout && !dims_.empty()) {
    absl::StrAppend(&out, "{", absl::StrJoin(layout_, ","), "}");
  }
  return out;
}

bool Shape::Compatible(const Shape& other) const {
  if (dtype_ != other.dtype_) return false;
  if (IsTuple()) {
    if (tuple_.size() != other.tuple_.size()) return false;
    for (size_t i = 0; i < tuple_.size(); ++i) {
      if (!tuple_[i].Compatible(other.tuple_[i])) return false;
    }
    return true;
  }
  return dims_ == other.dims_;
}

bool Shape::operator==(const Shape& other) const {
  if (dtype_ != other.dtype_) return false;
  if (IsTuple()) return tuple_ == other.tuple_;
  return dims_ == other.dims_ && layout_ == other.layout_;
}

std::vector<int64_t> Shape::PhysicalStrides() const {
  std::vector<int64_t> strides(dims_.size(), 1);
  int64_t stride = 1;
  for (int64_t d : layout_) {
    strides[d] = stride;
    stride *= dims_[d];
  }
  return strides;
}

}  // namespace xtune
