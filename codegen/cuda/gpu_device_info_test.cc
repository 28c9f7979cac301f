#include "codegen/cuda/gpu_device_info.h"

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "codegen/cuda/test_source_dir.h"
#include "util/file.h"
#include "util/status_matchers.h"

namespace xtune::cuda {
namespace {

using ::testing::HasSubstr;
using ::testing::IsSupersetOf;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

std::string DeviceOf(const char* target) {
  absl::StatusOr<GpuDeviceInfo> info = ShippedGpuTarget(target);
  EXPECT_THAT(info, IsOk()) << target;
  return info.ok() ? CudaDeviceString(*info) : "";
}

// The A100 of XLA's own test cache: an entry made on that GPU applies to
// the shipped target as it is.
TEST(GpuDeviceInfoTest, A100MatchesXlasTestCache) {
  ASSERT_OK_AND_ASSIGN(
      std::string cache,
      ReadFile(TestSourceDir() + "/tests/data/test_autotune_cache.textproto"));
  std::string device = DeviceOf("a100");
  EXPECT_EQ(device,
            "CUDA: 8.0, Cores: 108, GPU clock: 1.41 GHz, Memory bandwidth: "
            "1555 GB/s, L2 cache: 40 MB");
  EXPECT_THAT(cache, HasSubstr(absl::StrCat("device: \"", device, "\"")));
  EXPECT_EQ(DeviceOf("a100_sxm_40"), device);
}

// XLA's formula on XLA's spec values: bandwidth rounded to 1e9 B/s, L2 in
// MiB unrounded (B200: 126.5), the clock as printed by absl::StrCat.
TEST(GpuDeviceInfoTest, DeviceStringsAsXlaComputesThem) {
  EXPECT_EQ(DeviceOf("h100"),
            "CUDA: 9.0, Cores: 132, GPU clock: 1.98 GHz, Memory bandwidth: "
            "3352 GB/s, L2 cache: 50 MB");
  EXPECT_EQ(DeviceOf("h100_pcie"),
            "CUDA: 9.0, Cores: 114, GPU clock: 1.755 GHz, Memory bandwidth: "
            "2039 GB/s, L2 cache: 50 MB");
  EXPECT_EQ(DeviceOf("h200"),
            "CUDA: 9.0, Cores: 132, GPU clock: 1.98 GHz, Memory bandwidth: "
            "4800 GB/s, L2 cache: 50 MB");
  EXPECT_EQ(DeviceOf("b200"),
            "CUDA: 10.0, Cores: 148, GPU clock: 1.965 GHz, Memory bandwidth: "
            "7672 GB/s, L2 cache: 126.5 MB");
}

TEST(GpuDeviceInfoTest, ArchitecturesAndLimits) {
  ASSERT_OK_AND_ASSIGN(GpuDeviceInfo a100, ShippedGpuTarget("a100"));
  ASSERT_OK_AND_ASSIGN(GpuDeviceInfo h200, ShippedGpuTarget("h200"));
  ASSERT_OK_AND_ASSIGN(GpuDeviceInfo b200, ShippedGpuTarget("b200"));
  EXPECT_EQ(a100.Arch(), "sm_80");
  EXPECT_EQ(h200.Arch(), "sm_90a");
  EXPECT_EQ(b200.Arch(), "sm_100a");
  EXPECT_EQ(a100.shared_memory_per_block_optin, 166912);
  EXPECT_EQ(h200.shared_memory_per_block_optin, 232448);
  EXPECT_EQ(h200.registers_per_block_limit, 65536);
  EXPECT_EQ(h200.name, "NVIDIA H200 141GB HBM3e");
  EXPECT_THAT(ShippedGpuTargetNames(),
              IsSupersetOf({"a100", "a100_sxm_40", "b200", "h100", "h100_pcie",
                            "h100_sxm", "h200"}));
}

// XLA's own files carry more than xtune reads; those fields are skipped.
TEST(GpuDeviceInfoTest, ReadsXlaStyleFilesWithFieldsItDoesNotKnow) {
  ASSERT_OK_AND_ASSIGN(GpuDeviceInfo info, ParseGpuTargetConfig(R"pb(
    gpu_device_info {
      threads_per_block_limit: 1024
      core_count: 132
      clock_rate_ghz: 1.98
      memory_bandwidth: 3352320000000
      l2_cache_size: 52428800
      cuda_compute_capability { major: 9 feature_extension: ACCELERATED_FEATURES }
      matrix_unit_description { rate_infos { key: 0 value { clock_rate_ghz: 1.98 units_per_core: 4 } } }
      dnn_version: "9.10.0"
    }
    platform_name: "CUDA"
    dnn_version_info { major: 9 minor: 10 }
    device_description_str: "NVIDIA H100 80GB HBM3"
  )pb", "h100.txtpb"));
  EXPECT_EQ(CudaDeviceString(info), DeviceOf("h100"));
  EXPECT_EQ(info.name, "NVIDIA H100 80GB HBM3");
}

TEST(GpuDeviceInfoTest, BadFilesAreClearErrors) {
  EXPECT_THAT(ParseGpuTargetConfig("gpu_device_info { core_count: }", "t.txtpb"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("t.txtpb: cannot parse")));
  EXPECT_THAT(ParseGpuTargetConfig(
                  "platform_name: \"ROCM\" gpu_device_info { core_count: 1 }", "r"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not CUDA")));
  EXPECT_THAT(ParseGpuTargetConfig("gpu_device_info { core_count: 5 }", "c"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("no cuda_compute_capability")));
  EXPECT_THAT(ShippedGpuTarget("v100"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("unknown GPU target 'v100' (shipped: a100,")));
}

}  // namespace
}  // namespace xtune::cuda
