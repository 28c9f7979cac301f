#include "tools/json_writer.h"

#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/json.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::xtune::testing::IsOk;

TEST(JsonWriterTest, WritesNestedValuesWithCommasAndEscapes) {
  JsonWriter w;
  w.BeginObject();
  w.Key("name").String("a \"quoted\"\nline\t\x01");
  w.Key("n").Int(-3).Key("x").Double(0.5).Key("ok").Bool(true).Key("none").Null();
  w.Key("list").BeginArray().Int(1).BeginObject().EndObject().BeginArray().EndArray().EndArray();
  w.EndObject();
  EXPECT_EQ(w.text(),
            R"({"name":"a \"quoted\"\nline\t\u0001","n":-3,"x":0.5,"ok":true,"none":null,)"
            R"("list":[1,{},[]]})");
  absl::StatusOr<JsonValue> parsed = ParseJson(w.text());
  ASSERT_THAT(parsed, IsOk());
  EXPECT_EQ(parsed->Find("name")->text, "a \"quoted\"\nline\t\x01");
}

// JSON has no NaN or infinity, and its strings are UTF-8: a time that was
// not measured is null, and a byte that is no UTF-8 becomes U+FFFD.
TEST(JsonWriterTest, NonFiniteNumbersAreNullAndBadBytesAreReplaced) {
  JsonWriter w;
  w.BeginArray().Double(NAN).Double(INFINITY).Double(std::optional<double>()).Double(2.0);
  w.String("caf\xc3\xa9").String("bad\xff\xc3").String("\xed\xa0\x80").EndArray();
  EXPECT_EQ(w.text(), "[null,null,null,2,\"caf\xc3\xa9\",\"bad\xef\xbf\xbd\xef\xbf\xbd\","
                      "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"]");
}

}  // namespace
}  // namespace xtune
