#include "cache/inspect.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xtune {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kGemm[] =
    "{\n  tmp_0 = f32[4,8]{1,0} parameter(0)\n  tmp_1 = f32[8,2]{1,0} "
    "parameter(1)\n"
    "  ROOT tmp_2 = f32[4,2]{1,0} dot(f32[4,8]{1,0} tmp_0, f32[8,2]{1,0} "
    "tmp_1), "
    "lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}";

xla::AutotuneResults::Entry Entry(const std::string& device,
                                  const std::string& hlo, int version,
                                  int block_m, int nanos) {
  xla::AutotuneResults::Entry e;
  e.set_device(device);
  e.set_hlo(hlo);
  e.set_version(version);
  // An xtune result kind: its version is xtune's codegen version.
  e.mutable_result()->mutable_cpu_gemm()->set_mc(block_m);
  e.mutable_result()->mutable_run_time()->set_nanos(nanos);
  return e;
}

TEST(InspectTest, SummarizesXtuneAndXlaText) {
  EXPECT_EQ(SummarizeFusionText(kGemm),
            "dot f32[4,2] <- f32[4,8], f32[8,2] (3 ops)");
  // Without ROOT (the last instruction is the root).
  EXPECT_EQ(
      SummarizeFusionText(
          "{\n  a = f16[2]{0} parameter(0)\n  b = f16[2]{0} negate(a)\n}"),
      "negate f16[2] <- f16[2] (2 ops)");
  EXPECT_EQ(SummarizeFusionText("garbage"), "(no instructions)");
}

TEST(InspectTest, ConfigTextNamesTheKeyType) {
  xla::AutotuneResults::Entry e = Entry("d", kGemm, 1, 64, 5);
  EXPECT_EQ(ResultConfigText(e.result()), "cpu_gemm {mc: 64}");
  EXPECT_EQ(ResultConfigText(xla::AutotuneResult()), "(no config)");
}

TEST(InspectTest, StatsDiffAndPrune) {
  xla::AutotuneResults a, b;
  *a.add_results() = Entry("gpu", kGemm, 0, 64, 100);
  *a.add_results() =
      Entry("gpu", "{\n  x = f32[1]{0} parameter(0)\n}", 1, 32, 100);
  *a.add_results() = Entry("cpu", kGemm, 2, 16, 100);
  *b.add_results() =
      Entry("gpu", kGemm, 1, 128, 50);                // version 0 == 1: changed
  *b.add_results() = Entry("cpu", kGemm, 2, 16, 80);  // re-timed
  *b.add_results() = Entry("tpu", kGemm, 1, 16, 80);  // added

  CacheStats s = ComputeStats(a);
  EXPECT_EQ(s.entries, 3);
  EXPECT_EQ(s.by_device["gpu"], 2);
  EXPECT_EQ(s.by_version[0], 1);
  EXPECT_EQ(s.by_key_type["cpu_gemm"], 3);

  CacheDiff d = DiffCaches(a, b, /*current_version=*/1);
  ASSERT_EQ(d.added.size(), 1u);
  EXPECT_EQ(d.added[0].device, "tpu");
  ASSERT_EQ(d.removed.size(), 1u);
  ASSERT_EQ(d.changed.size(), 1u);
  EXPECT_EQ(d.changed[0].after.cpu_gemm().mc(), 128);
  ASSERT_EQ(d.retimed.size(), 1u);
  EXPECT_EQ(d.retimed[0].key.device, "cpu");

  xla::AutotuneResults removed;
  PruneOptions by_text;
  by_text.keep_hlo = std::set<std::string>{kGemm};
  EXPECT_EQ(PruneCache(a, by_text, &removed).results_size(), 2);
  EXPECT_EQ(removed.results_size(), 1);
  PruneOptions by_device;
  by_device.keep_device = "cpu";
  EXPECT_EQ(PruneCache(a, by_device, &removed).results_size(), 1);
  // Devices match as `show --device` does: by substring.
  by_device.keep_device = "pu";
  EXPECT_EQ(PruneCache(a, by_device, &removed).results_size(), 3);
  EXPECT_EQ(removed.results_size(), 0);
  by_device.keep_device = "gp";
  EXPECT_EQ(PruneCache(a, by_device, &removed).results_size(), 2);
  EXPECT_THAT(CountByDeviceAndVersion(removed, ""),
              ::testing::HasSubstr("1  version "));
  PruneOptions by_version;
  by_version.keep_version = 1;  // keeps 0 and 1, drops 2
  EXPECT_EQ(PruneCache(a, by_version, &removed).results_size(), 2);
}

// XLA's entries carry XLA's cache-key version and, lately, the cuDNN
// version in the device: neither keeps a gemm or Triton result from
// matching; both are written back as they were.
TEST(InspectTest, XlaEntriesMatchWhateverXlasVersionAndDnnVersion) {
  xla::AutotuneResults r;
  xla::AutotuneResults::Entry e =
      Entry("CUDA: 9.0, Cores: 132, DNN version: 9.10.0", kGemm, 23, 1, 5);
  e.mutable_result()->clear_cpu_gemm();
  e.mutable_result()->mutable_gemm()->set_algorithm(-1);
  *r.add_results() = e;
  EXPECT_EQ(KeyOfEntry(e, 2), (AutotuneKey{"CUDA: 9.0, Cores: 132", kGemm, 2}));
  EXPECT_TRUE(ExplainMiss(r, {"CUDA: 9.0, Cores: 132", kGemm, 2}, 2).hit);
  // cuDNN engines keep the DNN version: it changes their meaning; its
  // legacy algorithms (a ConvKey) are one enum in every version.
  e.mutable_result()->mutable_algorithm()->set_algo_id(3);
  EXPECT_EQ(KeyOfEntry(e, 2).device, "CUDA: 9.0, Cores: 132, DNN version: 9.10.0");
  e.mutable_result()->mutable_conv()->set_algorithm(3);
  EXPECT_EQ(KeyOfEntry(e, 2).device, "CUDA: 9.0, Cores: 132");
  // xtune's own kinds keep their version.
  EXPECT_EQ(KeyOfEntry(Entry("cpu", kGemm, 1, 64, 5), 2).version, 1);
  // Loaded, then dumped: the device and version as they were.
  InMemoryAutotuneCache cache;
  ASSERT_TRUE(cache.Load(r, "xla.textproto", 2).ok());
  xla::AutotuneResults back = cache.Dump();
  ASSERT_EQ(back.results_size(), 1);
  EXPECT_EQ(back.results(0).device(), "CUDA: 9.0, Cores: 132, DNN version: 9.10.0");
  EXPECT_EQ(back.results(0).version(), 23);
  PruneOptions current;
  current.keep_version = 2;
  int64_t kept = PruneCache(r, current, nullptr).results_size();
  EXPECT_EQ(kept, 1);
  // One fusion under two of XLA's versions and another cuDNN version, with
  // different results: all load (they are different keys in the file), the
  // newest version answers lookups, and a dump writes all three back.
  xla::AutotuneResults both = r;
  xla::AutotuneResults::Entry newer = both.results(0);
  newer.set_version(36);
  auto* t = newer.mutable_result()->mutable_triton();
  t->set_block_m(64);
  t->set_block_n(32);
  t->set_block_k(32);
  t->set_split_k(1);
  t->set_num_stages(1);
  t->set_num_warps(4);
  t->set_num_ctas(1);
  *both.add_results() = newer;
  xla::AutotuneResults::Entry other_dnn = both.results(0);
  other_dnn.set_device("CUDA: 9.0, Cores: 132, DNN version: 9.1.0");
  *both.add_results() = other_dnn;
  InMemoryAutotuneCache three;
  absl::StatusOr<int64_t> loaded = three.Load(both, "xla.textproto", 2);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  absl::StatusOr<std::optional<CacheHit>> hit =
      three.Lookup({"CUDA: 9.0, Cores: 132", kGemm, 2});
  ASSERT_TRUE(hit.ok() && hit->has_value());
  EXPECT_EQ((*hit)->result->triton().block_m(), 64);
  EXPECT_EQ(three.Dump().results_size(), 3);
  // The same key as written, twice with different results, is still an
  // error.
  xla::AutotuneResults twice = r;
  xla::AutotuneResults::Entry changed = r.results(0);
  changed.mutable_result()->mutable_gemm()->set_algorithm(3);
  *twice.add_results() = changed;
  InMemoryAutotuneCache bad;
  EXPECT_FALSE(bad.Load(twice, "xla.textproto", 2).ok());
}

TEST(InspectTest, LineDiffShowsChangesWithContext) {
  std::string d = LineDiff("a\nb\nc\nd\ne\nf", "a\nb\nX\nd\ne\nf");
  EXPECT_EQ(d, "  ...\n  b\n- c\n+ X\n  d\n  ...\n");
  EXPECT_EQ(LineDiff("same", "same"), "");
}

TEST(InspectTest, ExplainNamesWhatDiffers) {
  xla::AutotuneResults r;
  *r.add_results() = Entry("gpu A", kGemm, 1, 64, 1);
  std::string other = kGemm;
  other.replace(other.find("f32[4,2]"), 8, "f32[4,3]");
  *r.add_results() = Entry("cpu", other, 1, 64, 1);

  EXPECT_TRUE(ExplainMiss(r, {"gpu A", kGemm, 1}, 1).hit);
  MissExplanation dev = ExplainMiss(r, {"gpu B", kGemm, 1}, 1);
  EXPECT_FALSE(dev.hit);
  EXPECT_TRUE(dev.device_differs);
  EXPECT_FALSE(dev.text_differs);
  MissExplanation ver = ExplainMiss(r, {"gpu A", kGemm, 2}, 2);
  EXPECT_TRUE(ver.version_differs);
  EXPECT_FALSE(ver.device_differs);
  // Same device, different text: the nearest is the cpu entry, with a diff.
  std::string want = other;
  want.replace(want.find("f32[8,2]"), 8, "f32[8,3]");
  MissExplanation text = ExplainMiss(r, {"cpu", want, 1}, 1);
  EXPECT_TRUE(text.text_differs);
  EXPECT_FALSE(text.device_differs);
  EXPECT_THAT(text.text_diff, HasSubstr("- "));
  EXPECT_THAT(text.text_diff, HasSubstr("+ "));
  EXPECT_TRUE(
      ExplainMiss(xla::AutotuneResults(), {"cpu", want, 1}, 1).cache_empty);
}

}  // namespace
}  // namespace xtune
