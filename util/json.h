// A small JSON reader and writer for the backend configs XLA prints into
// HLO text (`backend_config={...}`): enough to read a config's fields and
// to print it back the way XLA's cache keys do (keys sorted at every level,
// no spaces). Numbers keep their source text, so "1" stays "1" and
// "0.797884583" is not reformatted. Thread-safe (values only).
#ifndef XTUNE_UTIL_JSON_H_
#define XTUNE_UTIL_JSON_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xtune {

struct JsonMember;

struct JsonValue {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  // kBool: "true"/"false"; kNumber: the number's text; kString: the
  // decoded string.
  std::string text;
  std::vector<JsonValue> items;                              // kArray
  std::vector<JsonMember> members;                           // kObject

  // The member named `key` of an object, or null (also for non-objects).
  const JsonValue* Find(absl::string_view key) const;
  // Removes the member named `key` of an object; false when absent.
  bool Erase(absl::string_view key);
};

// A member of an object: its key and value.
struct JsonMember {
  std::string first;
  JsonValue second;
};

// Parses one JSON value (the whole of `text`, surrounding spaces allowed).
// Errors: InvalidArgument naming the offset of the first bad character.
absl::StatusOr<JsonValue> ParseJson(absl::string_view text);

// A number field of object `object` (proto JSON writes doubles as numbers,
// int64s as strings); `fallback` when absent. InvalidArgument naming the
// field when it is neither.
absl::StatusOr<double> JsonNumberField(const JsonValue& object, absl::string_view field,
                                       double fallback);

// An HLO backend_config's JSON: a bare object, or a string holding one (as
// older XLA writes it), its keys possibly bare identifiers (XLA of 2019:
// `{conv_result_scale:1}`).
absl::StatusOr<JsonValue> ParseBackendConfigJson(absl::string_view text);

// Compact JSON (no spaces); object members in their order, or sorted by key
// at every level with `sort_keys` (XLA's SortJson, used in cache keys).
std::string PrintJson(const JsonValue& value, bool sort_keys);

// `s` as a JSON string literal, quotes included.
std::string JsonQuote(absl::string_view s);

}  // namespace xtune

#endif  // XTUNE_UTIL_JSON_H_
