// Deterministic pseudo-random inputs: the same shape and seed give the same
// values on every machine (SplitMix64, no <random> distributions).
//   floats: uniform in [-1, 1], rounded to the element type
//   signed integers: uniform in [-4, 4];  unsigned: [0, 8];  pred: 0 or 1
#ifndef XTUNE_RUNTIME_RANDOM_INPUTS_H_
#define XTUNE_RUNTIME_RANDOM_INPUTS_H_

#include <cstdint>
#include <vector>

#include "ir/literal.h"
#include "ir/module.h"

namespace xtune {

// The default seed of `xtune run`.
inline constexpr uint64_t kDefaultInputSeed = 42;

// A random literal of `shape` (tuples filled element by element).
Literal RandomLiteral(const Shape& shape, uint64_t seed);

// One random literal per entry parameter; parameter i uses seed + i.
std::vector<Literal> RandomArguments(const Module& module, uint64_t seed);

}  // namespace xtune

#endif  // XTUNE_RUNTIME_RANDOM_INPUTS_H_
