// The driver loads where there is a GPU (label `cuda` runs these there);
// elsewhere it is Unavailable with the reason, which is what the backend
// reports.
#include "codegen/cuda/driver.h"

#include <cstdlib>

#include "codegen/cuda/cudnn.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace xtune::cuda {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(DriverTest, LoadsOrSaysWhyNot) {
  absl::StatusOr<std::unique_ptr<Driver>> driver = Driver::Load();
  if (!driver.ok()) {
    EXPECT_EQ(driver.status().code(), absl::StatusCode::kUnavailable);
    EXPECT_THAT(std::string(driver.status().message()),
                AnyOf(StartsWith("no NVIDIA driver (libcuda.so.1 not found"),
                      StartsWith("no CUDA device")));
    GTEST_SKIP() << driver.status();
  }
  EXPECT_GT((*driver)->device_count(), 0);
  absl::StatusOr<GpuDeviceInfo> info = (*driver)->Describe(0);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_GE(info->cc_major, 7);
  EXPECT_GT(info->core_count, 0);
  EXPECT_GT(info->memory_bandwidth, 0);
  EXPECT_THAT(CudaDeviceString(*info), StartsWith("CUDA: "));
  std::cout << "device 0: " << info->name << ": " << CudaDeviceString(*info)
            << "\n";
  EXPECT_FALSE((*driver)->Describe(1000).ok());
}

TEST(DriverTest, AMissingLibraryIsUnavailableWithItsName) {
  setenv("XTUNE_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  absl::StatusOr<std::unique_ptr<Driver>> driver = Driver::Load();
  unsetenv("XTUNE_LIBCUDA");
  EXPECT_EQ(driver.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(driver.status().message()),
              HasSubstr("no NVIDIA driver (/nonexistent/libcuda.so.1 not found"));
}

// cuDNN is looked for where it is named; a missing one is Unavailable with
// its path (the backend then runs cuDNN calls as generated kernels).
TEST(DriverTest, AMissingCudnnIsUnavailableWithItsName) {
  setenv("XTUNE_CUDNN", "/nonexistent/libcudnn.so.9", 1);
  absl::StatusOr<std::unique_ptr<Cudnn>> dnn = Cudnn::Load();
  unsetenv("XTUNE_CUDNN");
  EXPECT_EQ(dnn.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(dnn.status().message()),
              HasSubstr("cuDNN not found (tried /nonexistent/libcudnn.so.9"));
}

}  // namespace
}  // namespace xtune::cuda
