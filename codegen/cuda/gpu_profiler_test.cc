// The GPU profiler's parts that run anywhere: its setup message, and what
// it says where the worker finds no GPU. (Timing on a GPU: gpu_test.cc,
// label cuda.)
#include "codegen/cuda/gpu_profiler.h"

#include "codegen/cuda/driver.h"
#include "codegen/cuda/gpu_kernel.h"
#include "codegen/cuda/gpu_worker_protocol.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/random_inputs.h"
#include "util/status_matchers.h"

namespace xtune::cuda {
namespace {

using ::testing::HasSubstr;
using ::xtune::testing::StatusIs;

TEST(GpuWorkerProtocolTest, SetupRoundTripsAndMalformedOnesAreRefused) {
  GpuWorkerSetup s;
  s.flush_bytes = 100 << 20;
  s.layout.shared_bytes = 8192;
  s.layout.inputs = {{0, 4096}};
  s.layout.output_offset = 4096;
  s.layout.output_bytes = 4096;
  s.kernels.push_back({"fusion.1", std::string("\x7f" "ELF\0\1", 6), 1024, 256});
  std::string bytes = EncodeGpuSetup(s);
  GpuWorkerSetup back;
  ASSERT_TRUE(DecodeGpuSetup(bytes, &back));
  EXPECT_EQ(back.flush_bytes, s.flush_bytes);
  EXPECT_EQ(back.layout.inputs, s.layout.inputs);
  ASSERT_EQ(back.kernels.size(), 1u);
  EXPECT_EQ(back.kernels[0].cubin, s.kernels[0].cubin);
  EXPECT_EQ(back.kernels[0].grid, 1024);
  // Truncated, trailing bytes, a buffer outside the shared memory, a block
  // the hardware cannot launch.
  GpuWorkerSetup bad;
  EXPECT_FALSE(DecodeGpuSetup(bytes.substr(0, bytes.size() - 1), &bad));
  bad = {};
  EXPECT_FALSE(DecodeGpuSetup(bytes + "x", &bad));
  GpuWorkerSetup outside = s;
  outside.layout.output_bytes = 8192;
  bad = {};
  EXPECT_FALSE(DecodeGpuSetup(EncodeGpuSetup(outside), &bad));
  GpuWorkerSetup big_block = s;
  big_block.kernels[0].block = 2048;
  bad = {};
  EXPECT_FALSE(DecodeGpuSetup(EncodeGpuSetup(big_block), &bad));
}

TEST(GpuProfilerTest, TheWorkerIsFoundAndSaysWhenThereIsNoGpu) {
  ASSERT_TRUE(FindGpuWorker().ok()) << FindGpuWorker().status();
  if (Driver::Load().ok()) GTEST_SKIP() << "this machine has a GPU";
  GpuKernel k(nullptr, "fusion.7", "not a cubin", 4, 256, 1);
  Shape shape(DType::kF32, {1024});
  std::vector<Literal> args = {RandomLiteral(shape, 1)};
  GpuProfiler profiler("", 0);
  // No session and a session: the worker starts, finds no driver, and the
  // profiler says so (Unavailable: nothing can be timed here).
  EXPECT_THAT(profiler.Profile(k, KernelConfig(), args, shape, ProfileOptions()),
              StatusIs(absl::StatusCode::kUnavailable,
                       HasSubstr("no NVIDIA driver")));
  Kernel* kernels[] = {&k};
  ASSERT_TRUE(profiler.BeginFusion(kernels, args, shape).ok());
  EXPECT_THAT(profiler.Profile(k, KernelConfig(), args, shape, ProfileOptions()),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("did not start")));
  EXPECT_GE(profiler.workers_started(), 2);
}

TEST(GpuProfilerTest, OnlyTheCudaBackendsKernelsAreTimed) {
  struct Other : Kernel {
    absl::Status Run(absl::Span<const DeviceBuffer>, DeviceBuffer) override {
      return absl::OkStatus();
    }
  } other;
  Shape shape(DType::kF32, {16});
  std::vector<Literal> args = {RandomLiteral(shape, 1)};
  GpuProfiler profiler("", 0);
  Kernel* kernels[] = {&other};
  ASSERT_TRUE(profiler.BeginFusion(kernels, args, shape).ok());
  EXPECT_THAT(profiler.Profile(other, KernelConfig(), args, shape, ProfileOptions()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("only the cuda backend's kernels")));
}

}  // namespace
}  // namespace xtune::cuda
