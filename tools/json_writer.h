// A streaming JSON writer for the CLI's --format=json output: objects,
// arrays and scalars appended in order, commas and string escapes handled,
// non-finite numbers written as null (JSON has no NaN). Not thread-safe.
#ifndef XTUNE_TOOLS_JSON_WRITER_H_
#define XTUNE_TOOLS_JSON_WRITER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "tools/cli_args.h"

namespace xtune {

class JsonWriter {
 public:
  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  // The key of the next value inside an object.
  JsonWriter& Key(absl::string_view key);
  JsonWriter& String(absl::string_view value);
  JsonWriter& Int(int64_t value);
  JsonWriter& Double(double value);          // null when not finite
  JsonWriter& Double(std::optional<double> value);  // null when absent
  JsonWriter& Bool(bool value);
  JsonWriter& Null();

  // The text so far (complete once every object and array is closed).
  const std::string& text() const { return text_; }

 private:
  void BeforeValue();

  std::string text_;
  std::vector<bool> first_;  // per open container: no member written yet
  bool after_key_ = false;
};

// --format's value: "text" (the default) or "json". InvalidArgument for
// anything else.
absl::Status CheckFormat(const ParsedArgs& args);
bool WantsJson(const ParsedArgs& args);

}  // namespace xtune

#endif  // XTUNE_TOOLS_JSON_WRITER_H_
