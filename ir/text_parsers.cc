#include "ir/text_parsers.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "util/status_macros.h"

namespace xtune {
namespace {

constexpr int kMaxShapeNesting = 32;

}  // namespace

absl::StatusOr<Shape> ParseShapeText(TextCursor& cursor, int depth) {
  if (depth > kMaxShapeNesting) return cursor.Error("shape nested too deeply");
  if (cursor.TryConsume('(')) {
    std::vector<Shape> elements;
    if (!cursor.TryConsume(')')) {
      while (true) {
        XTUNE_ASSIGN_OR_RETURN(Shape s, ParseShapeText(cursor, depth + 1));
        elements.push_back(std::move(s));
        if (cursor.TryConsume(')')) break;
        XTUNE_RETURN_IF_ERROR(cursor.Expect(',', "or ')' in a tuple shape"));
      }
    }
    return Shape::Tuple(std::move(elements));
  }
  cursor.SkipSpace();
  size_t pos = cursor.pos();
  XTUNE_ASSIGN_OR_RETURN(std::string type_name,
                         cursor.ParseName("a shape such as f32[2,3]"));
  if (type_name == "token") {
    if (!cursor.TryConsume("[]")) {
      return cursor.Error("expected '[]' after 'token' (a token has no "
                          "dimensions)");
    }
    return Shape::Token();
  }
  std::optional<DType> type = DTypeFromName(type_name);
  if (!type.has_value()) {
    return cursor.ErrorAt(
        pos, absl::StrCat("unsupported element type '", type_name,
                          "' (supported: pred s8 s16 s32 s64 u8 u16 u32 u64 "
                          "f16 bf16 f32 f64 f8e4m3fn f8e5m2 f8e4m3fnuz "
                          "f8e5m2fnuz f8e4m3b11fnuz token)"));
  }
  if (cursor.PeekRaw() != '[') {
    return cursor.Error(absl::StrCat("expected '[' after '", type_name,
                                      "' in a shape"));
  }
  cursor.TryConsume('[');
  std::vector<int64_t> dims;
  if (!cursor.TryConsume(']')) {
    while (true) {
      if (cursor.Peek() == '<' || cursor.Peek() == '?') {
        return cursor.Error("dynamic dimensions are not supported");
      }
      XTUNE_ASSIGN_OR_RETURN(int64_t d, cursor.ParseInt());
      dims.push_back(d);
      if (cursor.TryConsume(']')) break;
      XTUNE_RETURN_IF_ERROR(
          cursor.Expect(',', "or ']' in the dimensions of a shape"));
    }
  }
  Shape shape(*type, dims);
  // Layout: {1,0}, optionally with tiling and memory space after ':',
  // e.g. {1,0:T(8,128)}; the part after ':' is parsed and ignored.
  if (cursor.PeekRaw() == '{') {
    size_t layout_pos = cursor.pos();
    cursor.TryConsume('{');
    std::vector<int64_t> m2m;
    if (cursor.Peek() != '}' && cursor.Peek() != ':') {
      while (true) {
        XTUNE_ASSIGN_OR_RETURN(int64_t d, cursor.ParseInt());
        m2m.push_back(d);
        if (cursor.Peek() != ',') break;
        cursor.TryConsume(',');
      }
    }
    if (cursor.TryConsume(':')) {
      int nesting = 0;
      while (true) {
        char c = cursor.PeekRaw();
        if (c == '\0') return cursor.ErrorAt(layout_pos, "unterminated layout");
        if (c == '}' && nesting == 0) break;
        if (c == '(') ++nesting;
        if (c == ')') --nesting;
        cursor.set_pos(cursor.pos() + 1);
      }
    }
    XTUNE_RETURN_IF_ERROR(cursor.Expect('}', "to end a layout"));
    if (m2m.empty() && !dims.empty()) {
      // "{}" on an array: XLA treats it as the default layout too.
      m2m = DefaultLayout(static_cast<int64_t>(dims.size()));
    }
    shape.set_minor_to_major(std::move(m2m));
  }
  if (absl::Status s = shape.Validate(); !s.ok()) {
    return cursor.ErrorAt(pos, s.message());
  }
  return shape;
}

absl::Status ParseSliceText(TextCursor& cursor, std::vector<SliceDimension>* out) {
  XTUNE_RETURN_IF_ERROR(cursor.Expect('{', "to start a slice"));
  if (cursor.TryConsume('}')) return absl::OkStatus();
  while (true) {
    XTUNE_RETURN_IF_ERROR(cursor.Expect('[', "to start a slice dimension"));
    SliceDimension d;
    XTUNE_ASSIGN_OR_RETURN(d.start, cursor.ParseInt());
    XTUNE_RETURN_IF_ERROR(cursor.Expect(':', "in a slice dimension"));
    XTUNE_ASSIGN_OR_RETURN(d.limit, cursor.ParseInt());
    if (cursor.TryConsume(':')) {
      XTUNE_ASSIGN_OR_RETURN(d.stride, cursor.ParseInt());
    }
    XTUNE_RETURN_IF_ERROR(cursor.Expect(']', "to end a slice dimension"));
    out->push_back(d);
    if (cursor.TryConsume('}')) return absl::OkStatus();
    XTUNE_RETURN_IF_ERROR(cursor.Expect(',', "or '}' in a slice"));
  }
}

absl::Status ParsePaddingText(TextCursor& cursor,
                              std::vector<PaddingDimension>* out) {
  while (true) {
    PaddingDimension d;
    XTUNE_ASSIGN_OR_RETURN(d.low, cursor.ParseInt());
    if (cursor.PeekRaw() != '_') {
      return cursor.Error("expected '_' in padding (low_high[_interior])");
    }
    cursor.set_pos(cursor.pos() + 1);
    XTUNE_ASSIGN_OR_RETURN(d.high, cursor.ParseInt());
    if (cursor.PeekRaw() == '_') {
      cursor.set_pos(cursor.pos() + 1);
      XTUNE_ASSIGN_OR_RETURN(d.interior, cursor.ParseInt());
    }
    out->push_back(d);
    if (cursor.PeekRaw() != 'x') return absl::OkStatus();
    cursor.set_pos(cursor.pos() + 1);
  }
}

}  // namespace xtune
