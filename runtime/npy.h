// NumPy .npy files: read and write arrays of every xtune element type.
//
// Written files are format version 1.0, little-endian, C (row-major) order
// of the logical array. bf16 has no NumPy type, so bf16 arrays are written
// as float32 (exact: every bf16 value is a float32 value); a bf16 parameter
// reads float32 (rounded to nearest even) or raw 2-byte void ('|V2') data.
// pred is '|b1'. Reading accepts versions 1.0, 2.0 and 3.0 and Fortran
// order. Thread-safe.
#ifndef XTUNE_RUNTIME_NPY_H_
#define XTUNE_RUNTIME_NPY_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/literal.h"

namespace xtune {

// The bytes of a .npy file holding `literal` (an array, any layout).
std::string EncodeNpy(const Literal& literal);

// Writes `literal` to `path` atomically.
absl::Status WriteNpy(const std::string& path, const Literal& literal);

// Decodes .npy bytes. bf16 never comes back from this (see
// NpyToParameter); raw '|V2' data decodes as bf16. Errors name `source`:
// InvalidArgument (not an .npy file, unsupported dtype or byte order),
// DataLoss (truncated or oversized data).
absl::StatusOr<Literal> DecodeNpy(absl::string_view data,
                                  absl::string_view source);
absl::StatusOr<Literal> ReadNpy(const std::string& path);

// Checks a decoded array fits parameter `shape` and converts it to that
// shape's layout (and, for bf16 from float32, element type). InvalidArgument
// naming `what` (e.g. "input 0 (x.npy)") on a dtype or dimension mismatch.
absl::StatusOr<Literal> NpyToParameter(const Literal& npy, const Shape& shape,
                                       absl::string_view what);

}  // namespace xtune

#endif  // XTUNE_RUNTIME_NPY_H_
