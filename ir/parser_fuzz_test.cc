// Robustness: truncated and garbled versions of every test module must give
// an OK result or a clean InvalidArgument naming the source — never a crash,
// a hang, an abort or an escaping exception. The `asan` preset runs this
// under AddressSanitizer and UBSan in `make test`.
#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/hlo_proto_text.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "util/file.h"
#include "util/rng.h"

namespace xtune {
namespace {

std::vector<std::string> Corpus() {
  std::vector<std::string> texts;
  std::string dir = std::string(XTUNE_SOURCE_DIR) + "/tests/data";
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".hlo") continue;
    absl::StatusOr<std::string> text = ReadFile(entry.path().string());
    if (text.ok()) texts.push_back(*text);
  }
  // The windowed operations and a cuDNN call (window and dim_labels text).
  absl::StatusOr<std::string> windowed =
      ReadFile(std::string(XTUNE_SOURCE_DIR) + "/tests/golden/windowed.hlo");
  if (windowed.ok()) texts.push_back(*windowed);
  std::sort(texts.begin(), texts.end());
  return texts;
}

// Parses `text` and checks the result is OK or a well-formed error.
void ParseAndCheck(const std::string& text) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text, "fuzz.hlo");
  if (m.ok()) {
    // Whatever parses must also print and parse again.
    std::string printed = ToString(**m);
    EXPECT_TRUE(ParseModule(printed, "printed").ok()) << printed;
    return;
  }
  // InvalidArgument, or Unimplemented for what xtune does not run (a
  // custom-call target it does not know).
  EXPECT_THAT(m.status().code(), ::testing::AnyOf(absl::StatusCode::kInvalidArgument,
                                                  absl::StatusCode::kUnimplemented))
      << m.status();
  EXPECT_EQ(m.status().message().substr(0, 9), "fuzz.hlo:") << m.status();
}

TEST(ParserFuzzTest, CorpusIsNotEmpty) { EXPECT_GE(Corpus().size(), 3u); }

TEST(ParserFuzzTest, EveryPrefix) {
  for (const std::string& text : Corpus()) {
    for (size_t n = 0; n < text.size(); ++n) {
      ParseAndCheck(text.substr(0, n));
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TEST(ParserFuzzTest, RandomByteFlipsAndSplices) {
  const char kInteresting[] = "{}()[],=:%-_.\"/*0123456789xfe\n ";
  SplitMix64 rng(20261130);
  std::vector<std::string> corpus = Corpus();
  for (const std::string& text : corpus) {
    for (int round = 0; round < 1500; ++round) {
      std::string mutated = text;
      int edits = 1 + static_cast<int>(rng.NextInt(0, 3));
      for (int e = 0; e < edits; ++e) {
        size_t pos = rng.NextInt(0, static_cast<int64_t>(mutated.size()) - 1);
        switch (rng.NextInt(0, 3)) {
          case 0:  // flip to an arbitrary byte
            mutated[pos] = static_cast<char>(rng.NextInt(0, 255));
            break;
          case 1:  // flip to a syntactically interesting byte
            mutated[pos] = kInteresting[rng.NextInt(0, sizeof(kInteresting) - 2)];
            break;
          case 2:  // delete a span
            mutated.erase(pos, rng.NextInt(1, 20));
            break;
          default: {  // duplicate a span from elsewhere
            size_t from = rng.NextInt(0, static_cast<int64_t>(text.size()) - 1);
            mutated.insert(pos, text.substr(from, rng.NextInt(1, 40)));
          }
        }
        if (mutated.empty()) mutated = "x";
      }
      ParseAndCheck(mutated);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

// XLA's binary modules (ir/hlo_proto_text.h), truncated and with bytes
// flipped: a clean error (DataLoss for what is not a module, the parser's
// errors for the text it gives) or a module, never a crash.
TEST(ParserFuzzTest, BinaryModulesTruncatedAndFlipped) {
  const std::string dir = std::string(XTUNE_SOURCE_DIR) + "/tests/xla_compat/h200/";
  SplitMix64 rng(20261204);
  for (const char* name : {"cublas/fp8_delayed.hlo.pb", "default/mlp_train_step.hlo.pb"}) {
    absl::StatusOr<std::string> whole = ReadFile(dir + name);
    ASSERT_TRUE(whole.ok()) << name;
    auto check = [&](const std::string& bytes) {
      absl::StatusOr<std::string> text = HloProtoToText(bytes, "fuzz.pb");
      if (!text.ok()) {
        EXPECT_THAT(text.status().code(),
                    ::testing::AnyOf(absl::StatusCode::kDataLoss,
                                     absl::StatusCode::kInvalidArgument))
            << text.status();
        EXPECT_EQ(text.status().message().substr(0, 8), "fuzz.pb:") << text.status();
        return;
      }
      absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(*text, "fuzz.pb");
      if (!m.ok()) {
        EXPECT_THAT(m.status().code(),
                    ::testing::AnyOf(absl::StatusCode::kInvalidArgument,
                                     absl::StatusCode::kUnimplemented))
            << m.status();
      }
    };
    for (int k = 0; k < 150; ++k) {
      check(whole->substr(0, rng.NextInt(0, static_cast<int64_t>(whole->size()))));
    }
    for (int k = 0; k < 400; ++k) {
      std::string bytes = *whole;
      for (int e = 0; e < 1 + static_cast<int>(rng.NextInt(0, 3)); ++e) {
        bytes[rng.NextInt(0, static_cast<int64_t>(bytes.size()) - 1)] =
            static_cast<char>(rng.NextInt(0, 255));
      }
      check(bytes);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TEST(ParserFuzzTest, PathologicalInputs) {
  ParseAndCheck(std::string(100000, '{'));
  ParseAndCheck("HloModule m\nENTRY e {\n p = " + std::string(5000, '(') +
                "f32[]");
  ParseAndCheck("HloModule m\nENTRY e {\n c = f32[999999999999] constant(1)\n}");
  ParseAndCheck("HloModule m\nENTRY e {\n c = f32[99999999,99999999,99999] "
                "parameter(0)\n}");
  ParseAndCheck("HloModule m\nENTRY e {\n p = f32[2] parameter(99999999999)\n}");
  ParseAndCheck("HloModule m\nENTRY e {\n p = f32[2] parameter(-1)\n}");
  ParseAndCheck(std::string("HloModule m\0\xff\x80", 15));
}

}  // namespace
}  // namespace xtune
