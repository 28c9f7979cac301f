#include "runtime/npy.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

Literal Iota(DType t, std::vector<int64_t> dims,
             std::vector<int64_t> layout = {}) {
  Shape s = layout.empty() ? Shape(t, dims) : Shape(t, dims, layout);
  Literal lit(s);
  for (int64_t i = 0; i < lit.element_count(); ++i) {
    if (IsFloat(t)) {
      lit.SetDouble(i, i * 0.5 - 1);
    } else {
      lit.SetInt(i, t == DType::kPred ? i % 2 : i - (IsUnsigned(t) ? 0 : 2));
    }
  }
  return lit;
}

TEST(NpyTest, RoundTripsEveryTypeInLogicalOrder) {
  for (DType t : {DType::kPred, DType::kS8, DType::kS32, DType::kS64,
                  DType::kU8, DType::kU32, DType::kS16, DType::kU16,
                  DType::kF16, DType::kF32,
                  DType::kF64}) {
    Literal lit = Iota(t, {2, 3}, {0, 1});  // column-major in memory
    absl::StatusOr<Literal> back = DecodeNpy(EncodeNpy(lit), "mem");
    ASSERT_THAT(back, IsOk()) << DTypeName(t);
    EXPECT_EQ(back->shape().dtype(), t);
    EXPECT_EQ(back->shape().dims(), lit.shape().dims());
    for (int64_t i = 0; i < 6; ++i) {
      EXPECT_EQ(back->GetDouble(i), lit.GetDouble(i)) << DTypeName(t) << i;
    }
  }
}

TEST(NpyTest, HeaderIsNumpyVersion1AndAligned) {
  std::string bytes = EncodeNpy(Iota(DType::kF32, {3}));
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  size_t header_len = static_cast<uint8_t>(bytes[8]) |
                      (static_cast<uint8_t>(bytes[9]) << 8);
  EXPECT_EQ((10 + header_len) % 64, 0u);
  EXPECT_THAT(bytes, HasSubstr("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (3,), }"));
  EXPECT_EQ(bytes.size(), 10 + header_len + 12);
  EXPECT_THAT(EncodeNpy(Iota(DType::kF32, {})), HasSubstr("'shape': (), }"));
}

TEST(NpyTest, Bf16IsWrittenAsFloat32AndReadBack) {
  Literal lit = Iota(DType::kBF16, {4});
  std::string bytes = EncodeNpy(lit);
  EXPECT_THAT(bytes, HasSubstr("'descr': '<f4'"));
  absl::StatusOr<Literal> f32 = DecodeNpy(bytes, "mem");
  ASSERT_THAT(f32, IsOk());
  absl::StatusOr<Literal> param =
      NpyToParameter(*f32, Shape(DType::kBF16, {4}), "input 0");
  ASSERT_THAT(param, IsOk());
  EXPECT_EQ(*param, lit);
}

TEST(NpyTest, FortranOrderIsReadLogically) {
  // shape (2, 3) stored column-major: 0 3 1 4 2 5 means logical 0..5.
  std::string header =
      "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }";
  header.append(128 - 10 - header.size() - 1, ' ');
  header += '\n';
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
  bytes += static_cast<char>(header.size());
  bytes += '\0';
  bytes += header;
  for (int32_t v : {0, 3, 1, 4, 2, 5}) {
    bytes.append(reinterpret_cast<const char*>(&v), 4);
  }
  absl::StatusOr<Literal> lit = DecodeNpy(bytes, "f.npy");
  ASSERT_THAT(lit, IsOk());
  for (int i = 0; i < 6; ++i) EXPECT_EQ(lit->GetInt(i), i);
}

// Found by fuzz/npy_fuzzer: an empty array (a zero dimension) has no data
// to copy; it decodes, with or without bytes after its header.
TEST(NpyTest, EmptyArraysDecode) {
  for (const std::string tail : {std::string(), std::string("\x00\x00\x40\x40", 4)}) {
    std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 0), }";
    header.append(128 - 10 - header.size() - 1, ' ');
    header += '\n';
    std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
    bytes += static_cast<char>(header.size());
    bytes += '\0';
    bytes += header + tail;
    absl::StatusOr<Literal> lit = DecodeNpy(bytes, "empty.npy");
    if (!tail.empty()) {
      // Trailing bytes past the (empty) data are refused like any oversize.
      EXPECT_FALSE(lit.ok());
      continue;
    }
    ASSERT_THAT(lit, IsOk());
    EXPECT_EQ(lit->element_count(), 0);
    EXPECT_EQ(lit->shape().dim(0), 2);
  }
}

TEST(NpyTest, BadFilesGiveClearErrors) {
  std::string good = EncodeNpy(Iota(DType::kF32, {4}));
  EXPECT_THAT(DecodeNpy("hello", "x.npy"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("x.npy: not a valid .npy file")));
  EXPECT_THAT(DecodeNpy(good.substr(0, good.size() - 3), "t.npy"),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("truncated")));
  std::string big = good;
  big.replace(big.find("<f4"), 3, ">f4");
  EXPECT_THAT(DecodeNpy(big, "b.npy"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("big-endian")));
  std::string complex = good;
  complex.replace(complex.find("<f4"), 3, "<c8");
  EXPECT_THAT(DecodeNpy(complex, "c.npy"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("unsupported dtype '<c8'")));
  // Every prefix is rejected without crashing.
  for (size_t n = 0; n < good.size(); ++n) {
    EXPECT_FALSE(DecodeNpy(good.substr(0, n), "p.npy").ok()) << n;
  }
}

TEST(NpyTest, ParameterMismatchesAreNamed) {
  Literal lit = Iota(DType::kF32, {2, 2});
  EXPECT_THAT(NpyToParameter(lit, Shape(DType::kF32, {4}), "input 1 (a.npy)"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("input 1 (a.npy) has shape (2, 2) but the "
                                 "parameter is f32[4]")));
  EXPECT_THAT(NpyToParameter(lit, Shape(DType::kF16, {2, 2}), "input 0"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("holds f32 but the parameter is f16[2,2]")));
}

}  // namespace
}  // namespace xtune
