#include "runtime/random_inputs.h"

#include "util/rng.h"

namespace xtune {
namespace {

void Fill(Literal& lit, SplitMix64& rng) {
  if (lit.IsTuple()) {
    for (Literal& e : lit.elements()) Fill(e, rng);
    return;
  }
  DType t = lit.shape().dtype();
  int64_t n = lit.element_count();
  for (int64_t i = 0; i < n; ++i) {
    if (IsFloat(t)) {
      lit.SetDouble(i, rng.NextDouble() * 2.0 - 1.0);
    } else if (t == DType::kPred) {
      lit.SetInt(i, rng.NextInt(0, 1));
    } else if (IsUnsigned(t)) {
      lit.SetInt(i, rng.NextInt(0, 8));
    } else {
      lit.SetInt(i, rng.NextInt(-4, 4));
    }
  }
}

}  // namespace

Literal RandomLiteral(const Shape& shape, uint64_t seed) {
  Literal lit(shape);
  SplitMix64 rng(seed);
  Fill(lit, rng);
  return lit;
}

std::vector<Literal> RandomArguments(const Module& module, uint64_t seed) {
  std::vector<Literal> args;
  for (const Instruction* p : module.entry()->parameters()) {
    args.push_back(RandomLiteral(p->shape(), seed + args.size()));
  }
  return args;
}

}  // namespace xtune
