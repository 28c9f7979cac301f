#include "cache/autotune_cache.h"

#include "gtest/gtest.h"

namespace xtune {
namespace {

TEST(AutotuneCacheTest, LookupInsertAndSortedEntries) {
  InMemoryAutotuneCache cache;
  AutotuneKey a{"CPU: x", "{\n  b\n}", 1};
  AutotuneKey b{"CPU: x", "{\n  a\n}", 1};
  EXPECT_FALSE(cache.Lookup(a).has_value());
  cache.Insert(a, {KernelConfig("k", {{"p", 1}}), absl::Microseconds(5)});
  cache.Insert(b, {KernelConfig("k", {{"p", 2}}), absl::Microseconds(7)});
  ASSERT_TRUE(cache.Lookup(a).has_value());
  EXPECT_EQ(cache.Lookup(a)->config.Get("p"), 1);
  // Another version is another key.
  EXPECT_FALSE(cache.Lookup({"CPU: x", "{\n  b\n}", 2}).has_value());
  auto entries = cache.Entries();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].first, b);  // sorted by hlo text
  EXPECT_EQ(a.ToString(), "<key model='CPU: x', hlo='{\n  b\n}', version=1>");
}

}  // namespace
}  // namespace xtune
