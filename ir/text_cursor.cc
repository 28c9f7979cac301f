#include "ir/text_cursor.h"

#include <cerrno>
#include <algorithm>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace xtune {
namespace {

bool IsNameStart(char c) {
  return absl::ascii_isalpha(static_cast<unsigned char>(c)) || c == '_' ||
         c == '$';
}

}  // namespace

bool IsNameChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' ||
         c == '.' || c == '-' || c == '$';
}

void TextCursor::SkipSpace() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
        c == '\v') {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
      while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '*') {
      size_t end = text_.find("*/", pos_ + 2);
      pos_ = end == absl::string_view::npos ? text_.size() : end + 2;
    } else {
      break;
    }
  }
}

bool TextCursor::AtEnd() {
  SkipSpace();
  return pos_ >= text_.size();
}

char TextCursor::Peek() {
  SkipSpace();
  return PeekRaw();
}

bool TextCursor::TryConsume(char c) {
  if (Peek() != c) return false;
  ++pos_;
  return true;
}

bool TextCursor::TryConsume(absl::string_view s) {
  SkipSpace();
  if (text_.substr(pos_, s.size()) != s) return false;
  pos_ += s.size();
  return true;
}

bool TextCursor::TryConsumeWord(absl::string_view word) {
  SkipSpace();
  if (text_.substr(pos_, word.size()) != word) return false;
  size_t end = pos_ + word.size();
  if (end < text_.size() && IsNameChar(text_[end])) return false;
  pos_ = end;
  return true;
}

absl::Status TextCursor::Expect(char c, absl::string_view context) {
  if (TryConsume(c)) return absl::OkStatus();
  std::string found = pos_ < text_.size()
                          ? absl::StrCat("'", text_.substr(pos_, 1), "'")
                          : "end of input";
  return Error(absl::StrCat("expected '", std::string(1, c), "'",
                            context.empty() ? "" : " ", context, ", found ",
                            found));
}

absl::StatusOr<std::string> TextCursor::ParseName(absl::string_view what) {
  SkipSpace();
  size_t start = pos_;
  if (PeekRaw() == '%') ++pos_;
  if (!IsNameStart(PeekRaw())) {
    pos_ = start;
    return Error(absl::StrCat("expected ", what));
  }
  size_t name_start = pos_;
  while (pos_ < text_.size() && IsNameChar(text_[pos_])) ++pos_;
  return std::string(text_.substr(name_start, pos_ - name_start));
}

absl::StatusOr<int64_t> TextCursor::ParseInt() {
  SkipSpace();
  size_t start = pos_;
  if (PeekRaw() == '-' || PeekRaw() == '+') ++pos_;
  size_t digits = pos_;
  while (pos_ < text_.size() && absl::ascii_isdigit(text_[pos_])) ++pos_;
  if (pos_ == digits) {
    pos_ = start;
    return Error("expected an integer");
  }
  std::string token(text_.substr(start, pos_ - start));
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(token.c_str(), &end, 10);
  if (errno == ERANGE) {
    return ErrorAt(start, absl::StrCat("integer out of range: ", token));
  }
  return static_cast<int64_t>(v);
}

absl::StatusOr<std::vector<int64_t>> TextCursor::ParseIntList() {
  if (absl::Status s = Expect('{', "to start a list of integers"); !s.ok()) {
    return s;
  }
  std::vector<int64_t> values;
  if (TryConsume('}')) return values;
  while (true) {
    absl::StatusOr<int64_t> v = ParseInt();
    if (!v.ok()) return v.status();
    values.push_back(*v);
    if (TryConsume('}')) return values;
    if (absl::Status s = Expect(',', "or '}' in a list of integers"); !s.ok()) {
      return s;
    }
  }
}

absl::string_view TextCursor::ParseNumberToken() {
  SkipSpace();
  size_t start = pos_;
  if (PeekRaw() == '-' || PeekRaw() == '+') ++pos_;
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' ||
        c == '_') {
      ++pos_;
    } else if ((c == '-' || c == '+') && pos_ > start &&
               (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E') &&
               pos_ - 1 > start &&
               absl::ascii_isdigit(text_[pos_ - 2]) ) {
      ++pos_;  // exponent sign, as in 1e-3
    } else if ((c == '-' || c == '+') && pos_ > start &&
               (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E') &&
               pos_ - 1 > start && text_[pos_ - 2] == '.') {
      ++pos_;  // "1.e-3"
    } else {
      break;
    }
  }
  return text_.substr(start, pos_ - start);
}

absl::StatusOr<absl::string_view> TextCursor::ParseRawValue() {
  SkipSpace();
  size_t start = pos_;
  std::vector<char> closers;
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == '"') {
      ++pos_;
      while (pos_ < text_.size() && text_[pos_] != '"') {
        if (text_[pos_] == '\\') ++pos_;
        ++pos_;
      }
      if (pos_ >= text_.size()) {
        return ErrorAt(start, "unterminated string in attribute value");
      }
      ++pos_;
    } else if (c == '{' || c == '(' || c == '[') {
      closers.push_back(c == '{' ? '}' : c == '(' ? ')' : ']');
      ++pos_;
    } else if (c == '}' || c == ')' || c == ']') {
      if (closers.empty()) break;
      if (c != closers.back()) {
        return ErrorAt(pos_, absl::StrCat("unbalanced '", std::string(1, c),
                                          "' in attribute value"));
      }
      closers.pop_back();
      ++pos_;
    } else if (closers.empty() && (c == ',' || c == '\n')) {
      break;
    } else {
      ++pos_;
    }
    if (closers.empty() && pos_ > start &&
        (text_[pos_ - 1] == '}' || text_[pos_ - 1] == ')' ||
         text_[pos_ - 1] == ']' || text_[pos_ - 1] == '"')) {
      break;  // a complete group or string
    }
  }
  if (!closers.empty()) {
    return ErrorAt(start, "unterminated attribute value");
  }
  absl::string_view value = text_.substr(start, pos_ - start);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t' ||
                            value.back() == '\r')) {
    value.remove_suffix(1);
  }
  if (value.empty()) return ErrorAt(start, "expected an attribute value");
  return value;
}

SourceLocation TextCursor::LocationOf(size_t pos) const {
  if (pos > text_.size()) pos = text_.size();
  // Line starts are found once, up to the furthest position asked for, so
  // locating every instruction of a module costs O(size + n log n), not
  // O(size * n).
  if (line_starts_.empty()) line_starts_.push_back(0);
  while (scanned_ < pos) {
    if (text_[scanned_] == '\n') line_starts_.push_back(scanned_ + 1);
    ++scanned_;
  }
  // The last line start <= pos.
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), pos);
  size_t line = static_cast<size_t>(it - line_starts_.begin());
  SourceLocation loc;
  loc.line = static_cast<int>(line);
  loc.column = static_cast<int>(pos - line_starts_[line - 1]) + 1;
  return loc;
}

absl::Status TextCursor::ErrorAtLocation(SourceLocation loc,
                                         absl::string_view message) const {
  size_t pos = 0;
  for (int line = 1; line < loc.line && pos < text_.size(); ++line) {
    size_t nl = text_.find('\n', pos);
    if (nl == absl::string_view::npos) {
      pos = text_.size();
      break;
    }
    pos = nl + 1;
  }
  pos += loc.column > 0 ? static_cast<size_t>(loc.column - 1) : 0;
  return ErrorAt(std::min(pos, text_.size()), message);
}

absl::Status TextCursor::ErrorAt(size_t pos, absl::string_view message) const {
  if (pos > text_.size()) pos = text_.size();
  SourceLocation loc = LocationOf(pos);
  size_t line_start = text_.rfind('\n', pos == 0 ? 0 : pos - 1);
  line_start = (line_start == absl::string_view::npos || pos == 0)
                   ? 0
                   : line_start + 1;
  if (pos > 0 && text_[pos - 1] == '\n') line_start = pos;
  size_t line_end = text_.find('\n', pos);
  if (line_end == absl::string_view::npos) line_end = text_.size();
  // Show at most 100 characters around the error.
  size_t show_start = line_start;
  if (pos - show_start > 60) show_start = pos - 60;
  size_t show_end = line_end;
  if (show_end - pos > 40) show_end = pos + 40;
  std::string line(text_.substr(show_start, show_end - show_start));
  for (char& c : line) {
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t') c = ' ';
  }
  return absl::InvalidArgumentError(absl::StrCat(
      filename_, ":", loc.line, ":", loc.column, ": ", message, "\n  ",
      line, "\n  ", std::string(pos - show_start, ' '), "^"));
}

}  // namespace xtune
