#include "util/sha256.h"

#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace xtune {
namespace {

// FIPS 180-4 section 4.2.2: the first 32 bits of the fractional parts of the
// cube roots of the first 64 primes.
constexpr uint32_t kRoundConstants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

// FIPS 180-4 section 5.3.3: the first 32 bits of the fractional parts of the
// square roots of the first 8 primes.
constexpr uint32_t kInitialHash[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
                                      0xa54ff53a, 0x510e527f, 0x9b05688c,
                                      0x1f83d9ab, 0x5be0cd19};

inline uint32_t RotateRight(uint32_t x, int n) {
  return (x >> n) | (x << (32 - n));
}

inline uint32_t LoadBigEndian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) |
         (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

// Processes one 64-byte block (FIPS 180-4 section 6.2.2).
void CompressBlock(uint32_t state[8], const uint8_t block[64]) {
  uint32_t w[64];
  for (int t = 0; t < 16; ++t) w[t] = LoadBigEndian32(block + 4 * t);
  for (int t = 16; t < 64; ++t) {
    uint32_t s0 = RotateRight(w[t - 15], 7) ^ RotateRight(w[t - 15], 18) ^
                  (w[t - 15] >> 3);
    uint32_t s1 = RotateRight(w[t - 2], 17) ^ RotateRight(w[t - 2], 19) ^
                  (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }
  uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
  uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
  for (int t = 0; t < 64; ++t) {
    uint32_t sigma1 =
        RotateRight(e, 6) ^ RotateRight(e, 11) ^ RotateRight(e, 25);
    uint32_t choose = (e & f) ^ (~e & g);
    uint32_t t1 = h + sigma1 + choose + kRoundConstants[t] + w[t];
    uint32_t sigma0 =
        RotateRight(a, 2) ^ RotateRight(a, 13) ^ RotateRight(a, 22);
    uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
    uint32_t t2 = sigma0 + majority;
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
  state[4] += e;
  state[5] += f;
  state[6] += g;
  state[7] += h;
}

#if defined(__x86_64__)
// The same compression with the x86 SHA extensions (SHA-NI), 4 rounds per
// group: the state is kept as (ABEF, CDGH), the message schedule in a ring
// of four registers of 4 words each.
__attribute__((target("sha,sse4.1,ssse3"))) void CompressBlocksShaNi(
    uint32_t state[8], const uint8_t* data, size_t blocks) {
  const __m128i kByteSwap =
      _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  __m128i tmp = _mm_loadu_si128(reinterpret_cast<const __m128i*>(&state[0]));
  __m128i state1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(&state[4]));
  tmp = _mm_shuffle_epi32(tmp, 0xB1);                // CDAB
  state1 = _mm_shuffle_epi32(state1, 0x1B);          // EFGH
  __m128i state0 = _mm_alignr_epi8(tmp, state1, 8);  // ABEF
  state1 = _mm_blend_epi16(state1, tmp, 0xF0);       // CDGH
  for (size_t b = 0; b < blocks; ++b, data += 64) {
    const __m128i abef_save = state0, cdgh_save = state1;
    __m128i msgs[4];
    for (int g = 0; g < 16; ++g) {
      if (g < 4) {
        msgs[g] = _mm_shuffle_epi8(
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + 16 * g)),
            kByteSwap);
      }
      __m128i msg = _mm_add_epi32(
          msgs[g % 4], _mm_loadu_si128(reinterpret_cast<const __m128i*>(
                           &kRoundConstants[4 * g])));
      state1 = _mm_sha256rnds2_epu32(state1, state0, msg);
      if (g >= 3 && g <= 14) {  // W[4(g+1) .. 4(g+1)+3]
        __m128i& next = msgs[(g + 1) % 4];
        next = _mm_add_epi32(
            next, _mm_alignr_epi8(msgs[g % 4], msgs[(g + 3) % 4], 4));
        next = _mm_sha256msg2_epu32(next, msgs[g % 4]);
      }
      msg = _mm_shuffle_epi32(msg, 0x0E);
      state0 = _mm_sha256rnds2_epu32(state0, state1, msg);
      if (g >= 1 && g <= 12) {
        msgs[(g + 3) % 4] =
            _mm_sha256msg1_epu32(msgs[(g + 3) % 4], msgs[g % 4]);
      }
    }
    state0 = _mm_add_epi32(state0, abef_save);
    state1 = _mm_add_epi32(state1, cdgh_save);
  }
  tmp = _mm_shuffle_epi32(state0, 0x1B);        // FEBA
  state1 = _mm_shuffle_epi32(state1, 0xB1);     // DCHG
  state0 = _mm_blend_epi16(tmp, state1, 0xF0);  // DCBA
  state1 = _mm_alignr_epi8(state1, tmp, 8);     // ABEF
  _mm_storeu_si128(reinterpret_cast<__m128i*>(&state[0]), state0);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(&state[4]), state1);
}

bool HasShaNi() {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
  bool ssse3 = (ecx >> 9) & 1, sse41 = (ecx >> 19) & 1;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  return ssse3 && sse41 && ((ebx >> 29) & 1);
}
#endif

bool force_portable = false;

void CompressBlocks(uint32_t state[8], const uint8_t* data, size_t blocks) {
#if defined(__x86_64__)
  static const bool sha_ni = HasShaNi();
  if (sha_ni && !force_portable) {
    CompressBlocksShaNi(state, data, blocks);
    return;
  }
#endif
  for (size_t i = 0; i < blocks; ++i) CompressBlock(state, data + 64 * i);
}

}  // namespace

void Sha256ForcePortableForTesting(bool portable) { force_portable = portable; }

std::array<uint8_t, 32> Sha256(absl::string_view data) {
  uint32_t state[8];
  std::memcpy(state, kInitialHash, sizeof(state));

  const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
  size_t full_blocks = data.size() / 64;
  CompressBlocks(state, bytes, full_blocks);

  // Padding (section 5.1.1): a 1 bit, zeros, then the message length in bits
  // as a 64-bit big-endian integer; one or two final blocks.
  uint8_t tail[128] = {};
  size_t rest = data.size() - 64 * full_blocks;
  if (rest > 0) std::memcpy(tail, bytes + 64 * full_blocks, rest);
  tail[rest] = 0x80;
  size_t tail_size = rest + 1 + 8 <= 64 ? 64 : 128;
  uint64_t bit_length = static_cast<uint64_t>(data.size()) * 8;
  for (int i = 0; i < 8; ++i) {
    tail[tail_size - 1 - i] = static_cast<uint8_t>(bit_length >> (8 * i));
  }
  CompressBlocks(state, tail, tail_size / 64);

  std::array<uint8_t, 32> digest;
  for (int i = 0; i < 8; ++i) {
    digest[4 * i] = static_cast<uint8_t>(state[i] >> 24);
    digest[4 * i + 1] = static_cast<uint8_t>(state[i] >> 16);
    digest[4 * i + 2] = static_cast<uint8_t>(state[i] >> 8);
    digest[4 * i + 3] = static_cast<uint8_t>(state[i]);
  }
  return digest;
}

std::string Sha256Hex(absl::string_view data) {
  static constexpr char kHexDigits[] = "0123456789abcdef";
  std::array<uint8_t, 32> digest = Sha256(data);
  std::string hex;
  hex.reserve(64);
  for (uint8_t byte : digest) {
    hex.push_back(kHexDigits[byte >> 4]);
    hex.push_back(kHexDigits[byte & 0xf]);
  }
  return hex;
}

std::string Base64UrlUnpadded(absl::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  out.reserve((bytes.size() * 4 + 2) / 3);
  size_t i = 0;
  auto byte_at = [&](size_t k) { return static_cast<uint8_t>(bytes[k]); };
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t group = (uint32_t{byte_at(i)} << 16) |
                     (uint32_t{byte_at(i + 1)} << 8) | byte_at(i + 2);
    out.push_back(kAlphabet[(group >> 18) & 63]);
    out.push_back(kAlphabet[(group >> 12) & 63]);
    out.push_back(kAlphabet[(group >> 6) & 63]);
    out.push_back(kAlphabet[group & 63]);
  }
  size_t rest = bytes.size() - i;
  if (rest == 1) {
    uint32_t group = uint32_t{byte_at(i)} << 16;
    out.push_back(kAlphabet[(group >> 18) & 63]);
    out.push_back(kAlphabet[(group >> 12) & 63]);
  } else if (rest == 2) {
    uint32_t group =
        (uint32_t{byte_at(i)} << 16) | (uint32_t{byte_at(i + 1)} << 8);
    out.push_back(kAlphabet[(group >> 18) & 63]);
    out.push_back(kAlphabet[(group >> 12) & 63]);
    out.push_back(kAlphabet[(group >> 6) & 63]);
  }
  return out;
}

}  // namespace xtune
