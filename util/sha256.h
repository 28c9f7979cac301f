// SHA-256 (FIPS 180-4) and unpadded base64url (RFC 4648 section 5).
//
// Used for content-addressed cache keys and integrity checks of cache
// files. Uses the x86 SHA extensions when the CPU has them (about 10x the
// portable code), the portable code otherwise. Not intended for
// security-sensitive uses such as password hashing or MACs.
//
// Thread-safe: every function is pure.
#ifndef XTUNE_UTIL_SHA256_H_
#define XTUNE_UTIL_SHA256_H_

#include <array>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace xtune {

// Returns the 32-byte SHA-256 digest of `data`. Never fails.
std::array<uint8_t, 32> Sha256(absl::string_view data);

// Returns the SHA-256 digest of `data` as 64 lowercase hex characters.
std::string Sha256Hex(absl::string_view data);

// Tests only: use the portable code even where SHA extensions exist.
void Sha256ForcePortableForTesting(bool portable);

// Encodes `bytes` with the URL- and filename-safe base64 alphabet
// ('-' and '_' instead of '+' and '/') and without '=' padding.
std::string Base64UrlUnpadded(absl::string_view bytes);

}  // namespace xtune

#endif  // XTUNE_UTIL_SHA256_H_
