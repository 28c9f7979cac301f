// CodeBuffer: lines of generated C++ with indentation, fresh variable
// names, and a memo of values already computed in the enclosing scopes (so
// an elemental expression used twice is emitted once).
#ifndef XTUNE_CODEGEN_CPU_CODE_BUFFER_H_
#define XTUNE_CODEGEN_CPU_CODE_BUFFER_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace xtune::cpu {

class CodeBuffer {
 public:
  // Appends one line at the current indentation.
  void Line(absl::string_view text) {
    text_.append(2 * indent_, ' ');
    text_.append(text.data(), text.size());
    text_ += '\n';
  }
  template <typename... Args>
  void Linef(const Args&... args) {
    Line(absl::StrCat(args...));
  }

  // Opens "header {" and a memo scope; Close() ends both.
  void Open(absl::string_view header) {
    Line(absl::StrCat(header, " {"));
    ++indent_;
    memo_.emplace_back();
  }
  void Close(absl::string_view trailer = "") {
    memo_.pop_back();
    --indent_;
    Line(absl::StrCat("}", trailer));
  }

  std::string Fresh(absl::string_view prefix = "v") {
    return absl::StrCat(prefix, next_id_++);
  }

  // Memo of key -> variable, searched innermost scope first.
  const std::string* Find(const std::string& key) const {
    for (auto it = memo_.rbegin(); it != memo_.rend(); ++it) {
      auto found = it->find(key);
      if (found != it->end()) return &found->second;
    }
    return nullptr;
  }
  void Remember(const std::string& key, const std::string& var) {
    memo_.back()[key] = var;
  }

  const std::string& text() const { return text_; }

 private:
  std::string text_;
  int indent_ = 0;
  int next_id_ = 0;
  std::vector<absl::flat_hash_map<std::string, std::string>> memo_{1};
};

}  // namespace xtune::cpu

#endif  // XTUNE_CODEGEN_CPU_CODE_BUFFER_H_
