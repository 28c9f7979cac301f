#include "fusion/definition_order.h"

#include <algorithm>
#include <numeric>

namespace xtune {
namespace {

// Below this many keys a comparison sort is cheaper than two passes over
// 65,536 counters.
constexpr size_t kRadixThreshold = 4096;

// One stable counting pass of `order` by the 16-bit digit of its keys at
// `shift`.
void CountingPass(const std::vector<uint32_t>& keys, int shift,
                  const std::vector<uint32_t>& in, std::vector<uint32_t>& out) {
  std::vector<uint32_t> start(1u << 16, 0);
  for (uint32_t i : in) ++start[(keys[i] >> shift) & 0xffff];
  uint32_t sum = 0;
  for (uint32_t& s : start) {
    uint32_t n = s;
    s = sum;
    sum += n;
  }
  for (uint32_t i : in) out[start[(keys[i] >> shift) & 0xffff]++] = i;
}

}  // namespace

std::vector<uint32_t> OrderByKey(const std::vector<uint32_t>& keys) {
  std::vector<uint32_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0u);
  if (keys.size() < kRadixThreshold) {
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
    return order;
  }
  const uint32_t max_key = *std::max_element(keys.begin(), keys.end());
  std::vector<uint32_t> scratch(keys.size());
  CountingPass(keys, 0, order, scratch);
  if (max_key <= 0xffff) return scratch;
  CountingPass(keys, 16, scratch, order);
  return order;
}

void SortByPosition(std::vector<const Instruction*>& insts, const Positions& pos) {
  std::vector<uint32_t> keys;
  keys.reserve(insts.size());
  for (const Instruction* i : insts) keys.push_back(static_cast<uint32_t>(pos.at(i)));
  std::vector<const Instruction*> sorted;
  sorted.reserve(insts.size());
  for (uint32_t k : OrderByKey(keys)) sorted.push_back(insts[k]);
  insts = std::move(sorted);
}

}  // namespace xtune
