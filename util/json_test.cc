#include "util/json.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

TEST(JsonTest, PrintsSortedCompactAndKeepsNumberText) {
  absl::StatusOr<JsonValue> v = ParseJson(
      R"( {"b": [ "1", 2.50, -3e2 ], "a": {"z": true, "y": null},
           "c": "q\"uote\\" } )");
  ASSERT_THAT(v, IsOk());
  EXPECT_EQ(PrintJson(*v, /*sort_keys=*/false),
            R"({"b":["1",2.50,-3e2],"a":{"z":true,"y":null},"c":"q\"uote\\"})");
  EXPECT_EQ(PrintJson(*v, /*sort_keys=*/true),
            R"({"a":{"y":null,"z":true},"b":["1",2.50,-3e2],"c":"q\"uote\\"})");
  ASSERT_NE(v->Find("c"), nullptr);
  EXPECT_EQ(v->Find("c")->text, "q\"uote\\");
  EXPECT_EQ(v->Find("d"), nullptr);
  EXPECT_TRUE(v->Erase("a"));
  EXPECT_FALSE(v->Erase("a"));
  EXPECT_EQ(PrintJson(*v, true), R"({"b":["1",2.50,-3e2],"c":"q\"uote\\"})");
}

TEST(JsonTest, BadTextIsAnErrorWithItsOffset) {
  EXPECT_THAT(ParseJson(R"({"a":1,})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("offset 7")));
  EXPECT_THAT(ParseJson(R"({"a":"x)"), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseJson(R"([1] 2)"), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseJson(""), StatusIs(absl::StatusCode::kInvalidArgument));
  std::string deep(200, '[');
  EXPECT_THAT(ParseJson(deep), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(JsonTest, QuoteEscapesControlCharacters) {
  EXPECT_EQ(JsonQuote("a\x01\n"), "\"a\\u0001\\n\"");
  absl::StatusOr<JsonValue> v = ParseJson(JsonQuote("a\x01\n\"\\"));
  ASSERT_THAT(v, IsOk());
  EXPECT_EQ(v->text, "a\x01\n\"\\");
}

// XLA of 2019 wrote backend configs with bare keys; string values keep
// their text, and what is not JSON either way stays an error.
TEST(JsonTest, BackendConfigsWithBareKeysAreRead) {
  absl::StatusOr<JsonValue> v =
      ParseBackendConfigJson(R"("{conv_result_scale:1, b : {c_2:\"x:y\"}}")");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(PrintJson(*v, /*sort_keys=*/true),
            R"({"b":{"c_2":"x:y"},"conv_result_scale":1})");
  EXPECT_TRUE(ParseBackendConfigJson("{a:1}").ok());
  EXPECT_FALSE(ParseBackendConfigJson("{a 1}").ok());
}

}  // namespace
}  // namespace xtune
