#include "ir/hlo_proto_text.h"

#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/library_call.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "util/file.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

std::string H200Dir() { return std::string(XTUNE_SOURCE_DIR) + "/tests/xla_compat/h200"; }

// XLA wrote each module twice on an H200 (tests/xla_compat/h200): as text
// (NAME.hlo) and as the HloProto of --xla_dump_hlo_as_proto (NAME.hlo.pb),
// cuDNN convolution calls included (conv/).
// Both read to the same computations (canonical text, constants in full),
// the same backend configs and the same library-call keys.
TEST(HloProtoTextTest, XlasBinaryDumpsReadAsTheirTextTwins) {
  int pairs = 0;
  for (const char* mode : {"default", "cublas", "before", "conv"}) {
    for (const auto& e : std::filesystem::directory_iterator(H200Dir() + "/" + mode)) {
      const std::string pb = e.path().string();
      if (e.path().extension() != ".pb") continue;
      const std::string text = pb.substr(0, pb.size() - 3);
      SCOPED_TRACE(pb);
      absl::StatusOr<std::unique_ptr<Module>> a = ParseModuleFile(text);
      absl::StatusOr<std::unique_ptr<Module>> b = ParseModuleFile(pb);
      ASSERT_THAT(a, IsOk());
      ASSERT_THAT(b, IsOk());
      ++pairs;
      ASSERT_EQ((*a)->computations().size(), (*b)->computations().size());
      CanonicalOptions full;
      full.essential_constants_only = false;
      for (size_t k = 0; k < (*a)->computations().size(); ++k) {
        const Computation& ca = *(*a)->computations()[k];
        const Computation* cb = (*b)->FindComputation(ca.name());
        ASSERT_NE(cb, nullptr) << ca.name();
        EXPECT_EQ(CanonicalText(ca, full), CanonicalText(*cb, full)) << ca.name();
        for (const auto& inst : ca.instructions()) {
          const Instruction* twin = cb->FindInstruction(inst->name());
          if (twin == nullptr) continue;  // a `name#i` element XLA's text elides
          EXPECT_EQ(inst->attrs().backend_config, twin->attrs().backend_config) << inst->name();
          if (std::optional<std::string> t = CustomCallTarget(*inst);
              t.has_value() && IsLibraryCallTarget(*t)) {
            EXPECT_EQ(*LibraryCallKeyText(*inst), *LibraryCallKeyText(*twin)) << inst->name();
          }
        }
      }
      EXPECT_EQ((*a)->entry()->name(), (*b)->entry()->name());
    }
  }
  EXPECT_EQ(pairs, 35);
}

TEST(HloProtoTextTest, TellsBinaryFromText) {
  EXPECT_TRUE(LooksLikeHloProto("HloModule m", "m.pb"));
  EXPECT_TRUE(LooksLikeHloProto(std::string("\x0a\x05hello", 7), "m"));
  EXPECT_FALSE(LooksLikeHloProto("HloModule m\nENTRY e {\n\tROOT p = f32[] parameter(0)\n}",
                                 "m.hlo"));
}

TEST(HloProtoTextTest, BadBinaryModulesGetAClearError) {
  EXPECT_THAT(HloProtoToText(std::string("\x0a\xff\xff\xff", 4), "x.pb"),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("x.pb: not an XLA HloModuleProto or HloProto")));
  // A real dump cut short.
  absl::StatusOr<std::string> whole = ReadFile(H200Dir() + "/cublas/mm_bf16.hlo.pb");
  ASSERT_THAT(whole, IsOk());
  EXPECT_THAT(HloProtoToText(whole->substr(0, whole->size() / 2), "half.pb"),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("half.pb")));
  // Through the parser: the file's name and what is wrong.
  const std::string path = ::testing::TempDir() + "/garbage.pb";
  ASSERT_THAT(WriteFileAtomically(path, "not a protobuf at all"), IsOk());
  EXPECT_THAT(ParseModuleFile(path), StatusIs(absl::StatusCode::kDataLoss,
                                              HasSubstr("garbage.pb: not an XLA")));
}

// XLA's convolution and pooling dumps (issue 29) are read, then refused by
// the parser naming the operation, exactly as their text twins.
// A cuDNN convolution call's convolution attributes (window, dim_labels,
// feature_group_count) come out of the proto as XLA writes them in text.
TEST(HloProtoTextTest, CudnnCallsKeepTheirConvolutionAttributes) {
  const std::string text = H200Dir() + "/conv/conv_depthwise.default.hlo";
  absl::StatusOr<std::unique_ptr<Module>> a = ParseModuleFile(text);
  absl::StatusOr<std::unique_ptr<Module>> b = ParseModuleFile(text + ".pb");
  ASSERT_THAT(a, IsOk());
  ASSERT_THAT(b, IsOk());
  const Instruction* x = (*a)->entry()->FindInstruction("cudnn-conv.1");
  const Instruction* y = (*b)->entry()->FindInstruction("cudnn-conv.1");
  ASSERT_NE(x, nullptr);
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(x->attrs().other, y->attrs().other);
  EXPECT_THAT(ToString(*y), HasSubstr("window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_o01i->b01f, "
                                      "feature_group_count=64, custom_call_target="));
}

}  // namespace
}  // namespace xtune
