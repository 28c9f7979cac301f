// TextCursor: the character-level reader under the HLO parser. It skips
// whitespace and comments (`//` to end of line, `/* ... */`), reads names,
// integers and balanced raw values, and formats errors as
// "file:line:col: message" followed by the offending line and a caret.
//
// Every Parse* function leaves the cursor unchanged on error... not
// guaranteed: callers stop parsing at the first error. Not thread-safe.
#ifndef XTUNE_IR_TEXT_CURSOR_H_
#define XTUNE_IR_TEXT_CURSOR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/instruction.h"

namespace xtune {

class TextCursor {
 public:
  TextCursor(absl::string_view text, std::string filename)
      : text_(text), filename_(std::move(filename)) {}

  // Skips whitespace and comments.
  void SkipSpace();
  // True when only whitespace and comments remain.
  bool AtEnd();
  // The next significant character ('\0' at the end). Skips space first.
  char Peek();
  // The character right at the cursor, without skipping space.
  char PeekRaw() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  size_t pos() const { return pos_; }
  void set_pos(size_t pos) { pos_ = pos; }
  absl::string_view text() const { return text_; }

  // Consumes `c` (after space) if it is next.
  bool TryConsume(char c);
  // Consumes `s` (after space) if it is next.
  bool TryConsume(absl::string_view s);
  // Consumes the keyword `word` if it is next and not followed by a name
  // character.
  bool TryConsumeWord(absl::string_view word);
  // Consumes `c` or fails with "expected 'c' <context>".
  absl::Status Expect(char c, absl::string_view context = "");

  // A name: optional '%', then [A-Za-z_$][A-Za-z0-9_.$-]*. The '%' is
  // dropped from the result.
  absl::StatusOr<std::string> ParseName(absl::string_view what = "a name");
  // An optionally signed decimal integer that fits in int64.
  absl::StatusOr<int64_t> ParseInt();
  // "{1,2,3}" or "{}".
  absl::StatusOr<std::vector<int64_t>> ParseIntList();
  // A number-like token: optional sign, then letters, digits, '.', and
  // exponent signs ("1e-3", "-inf", "nan", "true"). Empty on failure.
  absl::string_view ParseNumberToken();
  // A raw attribute value: a balanced {...}/(...)/[...] group, a "quoted"
  // string, or a bare token up to the next ',' '}' ')' or line end at depth
  // zero. Returns the text exactly as written.
  absl::StatusOr<absl::string_view> ParseRawValue();

  SourceLocation LocationOf(size_t pos) const;
  // InvalidArgument "file:line:col: message" plus the line and a caret.
  absl::Status ErrorAt(size_t pos, absl::string_view message) const;
  // The same, at a line and column (as recorded in SourceLocation).
  absl::Status ErrorAtLocation(SourceLocation loc,
                               absl::string_view message) const;
  absl::Status Error(absl::string_view message) const {
    return ErrorAt(pos_, message);
  }

 private:
  absl::string_view text_;
  std::string filename_;
  size_t pos_ = 0;
  // LocationOf's index: starts of the lines before `scanned_`.
  mutable std::vector<size_t> line_starts_;
  mutable size_t scanned_ = 0;
};

// True for characters that may follow the first one in a name.
bool IsNameChar(char c);

}  // namespace xtune

#endif  // XTUNE_IR_TEXT_CURSOR_H_
