#include "fusion/definition_order.h"

#include <algorithm>
#include <memory>
#include <random>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xtune {
namespace {

using ::testing::ElementsAre;

TEST(OrderByKeyTest, ShortInputsAreStable) {
  EXPECT_THAT(OrderByKey({3, 1, 2, 1, 0}), ElementsAre(4, 1, 3, 2, 0));
  EXPECT_TRUE(OrderByKey({}).empty());
}

// Long inputs take the radix path: both digits, equal keys kept in index
// order, the same order a stable comparison sort gives.
TEST(OrderByKeyTest, LongInputsMatchAStableSort) {
  std::mt19937 rng(7);
  for (uint32_t max_key : {100u, 70000u, 2000000000u}) {
    std::vector<uint32_t> keys(50000);
    for (uint32_t& k : keys) k = std::uniform_int_distribution<uint32_t>(0, max_key)(rng);
    std::vector<uint32_t> want(keys.size());
    for (uint32_t i = 0; i < want.size(); ++i) want[i] = i;
    std::stable_sort(want.begin(), want.end(),
                     [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
    EXPECT_EQ(OrderByKey(keys), want) << "keys up to " << max_key;
  }
}

TEST(SortByPositionTest, PutsInstructionsInDefinitionOrder) {
  std::vector<std::unique_ptr<Instruction>> owned;
  Positions pos;
  std::vector<const Instruction*> insts;
  for (int i = 0; i < 10000; ++i) {
    owned.push_back(std::make_unique<Instruction>("i" + std::to_string(i), Opcode::kNegate,
                                                  Shape(DType::kF32, {})));
    pos[owned.back().get()] = i;
    insts.push_back(owned.back().get());
  }
  std::shuffle(insts.begin(), insts.end(), std::mt19937(3));
  SortByPosition(insts, pos);
  for (int i = 0; i < 10000; ++i) ASSERT_EQ(insts[i], owned[i].get()) << i;
}

}  // namespace
}  // namespace xtune
