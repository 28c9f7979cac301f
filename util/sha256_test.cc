#include "util/sha256.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xtune {
namespace {

// NIST FIPS 180-4 example vectors (csrc.nist.gov "SHA256.pdf",
// "SHA2_Additional.pdf").
TEST(Sha256Test, EmptyString) {
  EXPECT_EQ(Sha256Hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256Test, Abc) {
  EXPECT_EQ(Sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256Test, TwoBlockMessage448Bits) {
  EXPECT_EQ(
      Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256Test, Message896Bits) {
  EXPECT_EQ(
      Sha256Hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
                "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"),
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST(Sha256Test, OneMillionA) {
  EXPECT_EQ(Sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Test, PaddingBoundaries) {
  // 55 bytes fit the padding in one block, 56 need a second one, 64 is
  // exactly one full block plus a padding block.
  EXPECT_EQ(Sha256Hex(std::string(55, 'a')),
            "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(Sha256Hex(std::string(56, 'a')),
            "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  EXPECT_EQ(Sha256Hex(std::string(64, 'a')),
            "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

TEST(Sha256Test, BinaryDigestMatchesHex) {
  std::array<uint8_t, 32> digest = Sha256("abc");
  EXPECT_EQ(digest[0], 0xba);
  EXPECT_EQ(digest[1], 0x78);
  EXPECT_EQ(digest[31], 0xad);
}

TEST(Sha256Test, HandlesEmbeddedNulBytes) {
  std::string with_nul("a\0b", 3);
  EXPECT_NE(Sha256Hex(with_nul), Sha256Hex("a"));
  EXPECT_NE(Sha256Hex(with_nul), Sha256Hex("ab"));
}

// RFC 4648 section 10 test vectors, without padding.
// The hardware path (where the CPU has SHA extensions) and the portable one
// agree on every length around the block boundaries and on long inputs.
TEST(Sha256Test, HardwareAndPortablePathsAgree) {
  std::string data;
  uint64_t x = 88172645463325252ULL;
  for (int i = 0; i < 5000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    data.push_back(static_cast<char>(x));
  }
  for (size_t n :
       {0, 1, 55, 56, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 4999, 5000}) {
    absl::string_view prefix(data.data(), n);
    std::string fast = Sha256Hex(prefix);
    Sha256ForcePortableForTesting(true);
    std::string portable = Sha256Hex(prefix);
    Sha256ForcePortableForTesting(false);
    EXPECT_EQ(fast, portable) << n;
  }
}

TEST(Base64UrlTest, Rfc4648Vectors) {
  EXPECT_EQ(Base64UrlUnpadded(""), "");
  EXPECT_EQ(Base64UrlUnpadded("f"), "Zg");
  EXPECT_EQ(Base64UrlUnpadded("fo"), "Zm8");
  EXPECT_EQ(Base64UrlUnpadded("foo"), "Zm9v");
  EXPECT_EQ(Base64UrlUnpadded("foob"), "Zm9vYg");
  EXPECT_EQ(Base64UrlUnpadded("fooba"), "Zm9vYmE");
  EXPECT_EQ(Base64UrlUnpadded("foobar"), "Zm9vYmFy");
}

TEST(Base64UrlTest, UsesUrlSafeAlphabet) {
  // 0xfb 0xff 0xbf encodes to "+/+/" in standard base64.
  EXPECT_EQ(Base64UrlUnpadded(std::string("\xfb\xff\xbf", 3)), "-_-_");
  EXPECT_EQ(Base64UrlUnpadded(std::string("\xff", 1)), "_w");
  EXPECT_EQ(Base64UrlUnpadded(std::string("\0\0\0", 3)), "AAAA");
}

TEST(Base64UrlTest, EncodesSha256Digest) {
  std::array<uint8_t, 32> digest = Sha256("");
  std::string encoded = Base64UrlUnpadded(absl::string_view(
      reinterpret_cast<const char*>(digest.data()), digest.size()));
  EXPECT_EQ(encoded, "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU");
}

}  // namespace
}  // namespace xtune
