#include "util/json.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace xtune {
namespace {

class JsonReader {
 public:
  explicit JsonReader(absl::string_view text) : text_(text) {}

  absl::StatusOr<JsonValue> ReadAll() {
    absl::StatusOr<JsonValue> v = Read(0);
    if (!v.ok()) return v;
    SkipSpace();
    if (pos_ != text_.size()) return Error("text after the JSON value");
    return v;
  }

 private:
  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat("bad JSON at offset ", pos_, ": ", what));
  }
  void SkipSpace() {
    while (pos_ < text_.size() && absl::ascii_isspace(text_[pos_])) ++pos_;
  }
  bool Consume(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  absl::StatusOr<JsonValue> Read(int depth) {
    if (depth > 64) return Error("nested too deeply");
    SkipSpace();
    if (pos_ >= text_.size()) return Error("unexpected end");
    JsonValue v;
    const char c = text_[pos_];
    if (c == '{') {
      ++pos_;
      v.kind = JsonValue::Kind::kObject;
      if (Consume('}')) return v;
      do {
        SkipSpace();
        absl::StatusOr<std::string> key = ReadString();
        if (!key.ok()) return key.status();
        if (!Consume(':')) return Error("expected ':'");
        absl::StatusOr<JsonValue> member = Read(depth + 1);
        if (!member.ok()) return member;
        v.members.push_back(JsonMember{std::move(*key), std::move(*member)});
      } while (Consume(','));
      if (!Consume('}')) return Error("expected ',' or '}'");
      return v;
    }
    if (c == '[') {
      ++pos_;
      v.kind = JsonValue::Kind::kArray;
      if (Consume(']')) return v;
      do {
        absl::StatusOr<JsonValue> item = Read(depth + 1);
        if (!item.ok()) return item;
        v.items.push_back(std::move(*item));
      } while (Consume(','));
      if (!Consume(']')) return Error("expected ',' or ']'");
      return v;
    }
    if (c == '"') {
      absl::StatusOr<std::string> s = ReadString();
      if (!s.ok()) return s.status();
      v.kind = JsonValue::Kind::kString;
      v.text = std::move(*s);
      return v;
    }
    for (absl::string_view word : {"true", "false", "null"}) {
      if (text_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        v.kind = word == "null" ? JsonValue::Kind::kNull : JsonValue::Kind::kBool;
        if (word != "null") v.text = std::string(word);
        return v;
      }
    }
    if (c == '-' || absl::ascii_isdigit(c)) {
      const size_t start = pos_++;
      while (pos_ < text_.size() &&
             (absl::ascii_isdigit(text_[pos_]) || text_[pos_] == '.' ||
              text_[pos_] == 'e' || text_[pos_] == 'E' || text_[pos_] == '+' ||
              text_[pos_] == '-')) {
        ++pos_;
      }
      v.kind = JsonValue::Kind::kNumber;
      v.text = std::string(text_.substr(start, pos_ - start));
      return v;
    }
    return Error(absl::StrCat("unexpected character '", std::string(1, c), "'"));
  }

  absl::StatusOr<std::string> ReadString() {
    if (pos_ >= text_.size() || text_[pos_] != '"') {
      return Error("expected a string");
    }
    ++pos_;
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) break;
      char e = text_[pos_++];
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
          if (pos_ + 4 > text_.size()) return Error("short \\u escape");
          uint32_t code = 0;
          for (int k = 0; k < 4; ++k) {
            char h = text_[pos_++];
            if (!absl::ascii_isxdigit(h)) return Error("bad \\u escape");
            code = code * 16 + (absl::ascii_isdigit(h)
                                    ? h - '0'
                                    : absl::ascii_tolower(h) - 'a' + 10);
          }
          // UTF-8 (backend configs hold ASCII; surrogates kept as is).
          if (code < 0x80) {
            out += static_cast<char>(code);
          } else if (code < 0x800) {
            out += static_cast<char>(0xc0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3f));
          } else {
            out += static_cast<char>(0xe0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (code & 0x3f));
          }
          break;
        }
        default: out += e; break;  // \" \\ \/
      }
    }
    if (pos_ >= text_.size()) return Error("unterminated string");
    ++pos_;
    return out;
  }

  absl::string_view text_;
  size_t pos_ = 0;
};

void Print(const JsonValue& v, bool sort_keys, std::string* out) {
  switch (v.kind) {
    case JsonValue::Kind::kNull:
      *out += "null";
      return;
    case JsonValue::Kind::kBool:
    case JsonValue::Kind::kNumber:
      *out += v.text;
      return;
    case JsonValue::Kind::kString:
      *out += JsonQuote(v.text);
      return;
    case JsonValue::Kind::kArray:
      *out += '[';
      for (size_t k = 0; k < v.items.size(); ++k) {
        if (k > 0) *out += ',';
        Print(v.items[k], sort_keys, out);
      }
      *out += ']';
      return;
    case JsonValue::Kind::kObject: {
      std::vector<const JsonMember*> members;
      for (const auto& m : v.members) members.push_back(&m);
      if (sort_keys) {
        std::stable_sort(members.begin(), members.end(),
                         [](const auto* a, const auto* b) {
                           return a->first < b->first;
                         });
      }
      *out += '{';
      for (size_t k = 0; k < members.size(); ++k) {
        if (k > 0) *out += ',';
        *out += JsonQuote(members[k]->first);
        *out += ':';
        Print(members[k]->second, sort_keys, out);
      }
      *out += '}';
      return;
    }
  }
}

}  // namespace

const JsonValue* JsonValue::Find(absl::string_view key) const {
  for (const auto& [k, v] : members) {
    if (k == key) return &v;
  }
  return nullptr;
}

bool JsonValue::Erase(absl::string_view key) {
  for (auto it = members.begin(); it != members.end(); ++it) {
    if (it->first == key) {
      members.erase(it);
      return true;
    }
  }
  return false;
}

absl::StatusOr<double> JsonNumberField(const JsonValue& object, absl::string_view field,
                                       double fallback) {
  const JsonValue* v = object.Find(field);
  if (v == nullptr) return fallback;
  double x;
  if ((v->kind != JsonValue::Kind::kNumber && v->kind != JsonValue::Kind::kString) ||
      !absl::SimpleAtod(v->text, &x)) {
    return absl::InvalidArgumentError(absl::StrCat("\"", field, "\" must be a number"));
  }
  return x;
}

namespace {

// `{conv_result_scale:1}` as `{"conv_result_scale":1}`: object keys that
// are bare identifiers, as XLA of 2019 wrote backend configs, quoted.
std::string QuoteBareKeys(absl::string_view text) {
  std::string out;
  bool in_string = false, key_may_start = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) out += text[++i];
      else if (c == '"') in_string = false;
      continue;
    }
    if (key_may_start && (absl::ascii_isalpha(c) || c == '_')) {
      size_t end = i;
      while (end < text.size() && (absl::ascii_isalnum(text[end]) || text[end] == '_')) ++end;
      size_t colon = end;
      while (colon < text.size() && absl::ascii_isspace(text[colon])) ++colon;
      if (colon < text.size() && text[colon] == ':') {
        absl::StrAppend(&out, "\"", text.substr(i, end - i), "\"");
        i = end - 1;
        key_may_start = false;
        continue;
      }
    }
    if (c == '"') in_string = true;
    if (!absl::ascii_isspace(c)) key_may_start = c == '{' || c == ',';
    out += c;
  }
  return out;
}

}  // namespace

absl::StatusOr<JsonValue> ParseBackendConfigJson(absl::string_view text) {
  absl::StatusOr<JsonValue> parsed = ParseJson(text);
  if (parsed.ok() && parsed->kind == JsonValue::Kind::kString) {
    absl::StatusOr<JsonValue> inner = ParseJson(parsed->text);
    if (!inner.ok()) inner = ParseJson(QuoteBareKeys(parsed->text));
    return inner;
  }
  if (!parsed.ok()) {
    absl::StatusOr<JsonValue> quoted = ParseJson(QuoteBareKeys(text));
    if (quoted.ok()) return quoted;
  }
  return parsed;
}

absl::StatusOr<JsonValue> ParseJson(absl::string_view text) {
  return JsonReader(text).ReadAll();
}

std::string PrintJson(const JsonValue& value, bool sort_keys) {
  std::string out;
  Print(value, sort_keys, &out);
  return out;
}

std::string JsonQuote(absl::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          absl::StrAppend(&out, "\\u00", absl::Hex(static_cast<unsigned char>(c), absl::kZeroPad2));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

}  // namespace xtune
