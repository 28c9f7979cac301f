#include "runtime/npy.h"

#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "util/file.h"
#include "util/status_macros.h"

namespace xtune {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

struct DescrInfo {
  DType type;
  const char* descr;
};

// The descr xtune writes for each type (bf16 goes out as float32).
constexpr DescrInfo kDescrs[] = {
    {DType::kPred, "|b1"}, {DType::kS8, "|i1"},  {DType::kS32, "<i4"},
    {DType::kS64, "<i8"},  {DType::kU8, "|u1"},
    {DType::kS16, "<i2"}, {DType::kU16, "<u2"},  {DType::kU32, "<u4"}, {DType::kU64, "<u8"},
    {DType::kF16, "<f2"},  {DType::kF32, "<f4"}, {DType::kF64, "<f8"},
};

std::optional<DType> DTypeOfDescr(std::string descr) {
  if (descr.size() >= 2 && (descr[0] == '<' || descr[0] == '|' || descr[0] == '=')) {
    std::string body = descr.substr(1);
    if (body == "V2") return DType::kBF16;
    for (const DescrInfo& d : kDescrs) {
      if (body == std::string(d.descr).substr(1)) return d.type;
    }
  }
  return std::nullopt;
}

// Value of `key` in the header dict, up to the next top-level comma/brace.
std::optional<std::string> DictValue(absl::string_view header,
                                     absl::string_view key) {
  std::string quoted1 = absl::StrCat("'", key, "'");
  std::string quoted2 = absl::StrCat("\"", key, "\"");
  size_t pos = header.find(quoted1);
  size_t len = quoted1.size();
  if (pos == absl::string_view::npos) {
    pos = header.find(quoted2);
    len = quoted2.size();
  }
  if (pos == absl::string_view::npos) return std::nullopt;
  pos = header.find(':', pos + len);
  if (pos == absl::string_view::npos) return std::nullopt;
  ++pos;
  int depth = 0;
  size_t end = pos;
  for (; end < header.size(); ++end) {
    char c = header[end];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth == 0 && (c == ',' || c == '}')) break;
  }
  if (depth != 0) return std::nullopt;
  return std::string(absl::StripAsciiWhitespace(header.substr(pos, end - pos)));
}

}  // namespace

std::string EncodeNpy(const Literal& literal) {
  const Shape& shape = literal.shape();
  // bf16 and the 8-bit floats (no NumPy type) as f32 holding their values.
  DType out_type = shape.dtype() == DType::kBF16 || IsFp8(shape.dtype())
                       ? DType::kF32
                       : shape.dtype();
  const char* descr = "<f4";
  for (const DescrInfo& d : kDescrs) {
    if (d.type == out_type) descr = d.descr;
  }
  std::string dims = absl::StrJoin(shape.dims(), ", ");
  if (shape.rank() == 1) dims += ",";
  std::string header =
      absl::StrCat("{'descr': '", descr, "', 'fortran_order': False, 'shape': (",
                   dims, "), }");
  // Pad with spaces so data starts on a 64-byte boundary; end with '\n'.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic, 6);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xFF);
  out += static_cast<char>((header.size() >> 8) & 0xFF);
  out += header;
  // Data in logical row-major order.
  Literal row_major(Shape(out_type, shape.dims()));
  int64_t n = literal.element_count();
  for (int64_t i = 0; i < n; ++i) {
    if (IsFloat(out_type)) {
      row_major.SetDouble(i, literal.GetDouble(i));
    } else {
      row_major.SetInt(i, literal.GetInt(i));
    }
  }
  out.append(reinterpret_cast<const char*>(row_major.bytes().data()),
             row_major.bytes().size());
  return out;
}

absl::Status WriteNpy(const std::string& path, const Literal& literal) {
  return WriteFileAtomically(path, EncodeNpy(literal));
}

absl::StatusOr<Literal> DecodeNpy(absl::string_view data,
                                  absl::string_view source) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": not a valid .npy file: ", why));
  };
  if (data.size() < 10 || data.substr(0, 6) != absl::string_view(kMagic, 6)) {
    return bad("missing the \\x93NUMPY magic");
  }
  uint8_t major = static_cast<uint8_t>(data[6]);
  size_t header_len, header_start;
  if (major == 1) {
    header_len = static_cast<uint8_t>(data[8]) |
                 (static_cast<size_t>(static_cast<uint8_t>(data[9])) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (data.size() < 12) return bad("truncated header");
    header_len = 0;
    for (int b = 0; b < 4; ++b) {
      header_len |= static_cast<size_t>(static_cast<uint8_t>(data[8 + b]))
                    << (8 * b);
    }
    header_start = 12;
  } else {
    return bad(absl::StrCat("unsupported format version ", major));
  }
  if (header_start + header_len > data.size()) return bad("truncated header");
  absl::string_view header = data.substr(header_start, header_len);
  std::optional<std::string> descr = DictValue(header, "descr");
  std::optional<std::string> fortran = DictValue(header, "fortran_order");
  std::optional<std::string> shape_text = DictValue(header, "shape");
  if (!descr || !fortran || !shape_text) {
    return bad("header lacks descr, fortran_order or shape");
  }
  std::string d = *descr;
  if (d.size() < 2 || (d.front() != '\'' && d.front() != '"')) {
    return bad("descr is not a string");
  }
  d = d.substr(1, d.size() - 2);
  if (!d.empty() && d[0] == '>' && d != ">i1" && d != ">u1" && d != ">b1") {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": big-endian data ('", d, "') is not supported"));
  }
  std::optional<DType> type = DTypeOfDescr(d);
  if (!type.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": unsupported dtype '", d,
        "' (supported: bool int8 int32 int64 uint8 uint32 float16 float32 "
        "float64)"));
  }
  bool fortran_order;
  if (*fortran == "False") {
    fortran_order = false;
  } else if (*fortran == "True") {
    fortran_order = true;
  } else {
    return bad("fortran_order is neither True nor False");
  }
  std::string s = *shape_text;
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') {
    return bad("shape is not a tuple");
  }
  std::vector<int64_t> dims;
  int64_t elements = 1;
  for (absl::string_view part :
       absl::StrSplit(s.substr(1, s.size() - 2), ',', absl::SkipWhitespace())) {
    int64_t v;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(part), &v) || v < 0) {
      return bad(absl::StrCat("bad dimension '", part, "'"));
    }
    if (v > 0 && elements > (int64_t{1} << 40) / v) return bad("shape too large");
    elements *= v;
    dims.push_back(v);
  }
  size_t data_start = header_start + header_len;
  size_t expected = static_cast<size_t>(elements) * DTypeByteSize(*type);
  if (data.size() - data_start != expected) {
    return absl::DataLossError(absl::StrCat(
        source, ": holds ", data.size() - data_start, " data bytes but shape (",
        absl::StrJoin(dims, ", "), ") of '", d, "' needs ", expected,
        data.size() - data_start < expected ? " (truncated file?)" : ""));
  }
  int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<int64_t> layout;
  for (int64_t i = 0; i < rank; ++i) {
    layout.push_back(fortran_order ? i : rank - 1 - i);
  }
  Literal lit(Shape(*type, dims, layout));
  // An empty array (a zero dimension) has no data, and no buffer to copy to.
  if (expected > 0) std::memcpy(lit.bytes().data(), data.data() + data_start, expected);
  if (*type == DType::kPred) {
    for (uint8_t& b : lit.bytes()) {
      if (b > 1) return bad("bool data holds a byte other than 0 or 1");
    }
  }
  return fortran_order ? lit.Relayout(DefaultLayout(rank)) : lit;
}

absl::StatusOr<Literal> ReadNpy(const std::string& path) {
  XTUNE_ASSIGN_OR_RETURN(std::string data, ReadFile(path));
  return DecodeNpy(data, path);
}

absl::StatusOr<Literal> NpyToParameter(const Literal& npy, const Shape& shape,
                                       absl::string_view what) {
  if (shape.IsTuple()) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": the parameter is a tuple ", shape.ToString(false),
        "; .npy inputs can only feed array parameters"));
  }
  DType got = npy.shape().dtype();
  DType want = shape.dtype();
  bool bf16_from_f32 =
      (want == DType::kBF16 || IsFp8(want)) && got == DType::kF32;
  if (got != want && !bf16_from_f32) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " holds ", DTypeName(got), " but the parameter is ",
                     shape.ToString(false)));
  }
  if (npy.shape().dims() != shape.dims()) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " has shape (", absl::StrJoin(npy.shape().dims(), ", "),
        ") but the parameter is ", shape.ToString(false)));
  }
  Literal out(shape);
  int64_t n = npy.element_count();
  for (int64_t i = 0; i < n; ++i) {
    if (IsFloat(want)) {
      out.SetDouble(i, npy.GetDouble(i));
    } else {
      out.SetInt(i, npy.GetInt(i));
    }
  }
  return out;
}

}  // namespace xtune
