// The emulator's checks, each planted in a small kernel written in the
// device vocabulary, and the message it must give.
#include "codegen/cuda/emulator/emulator.h"

#include <elf.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "codegen/cpu/host_compiler.h"
#include "codegen/cuda/cuda_kernels.h"
#include "codegen/cuda/emulator/emulator_backend.h"
#include "codegen/cuda/gpu_device_info.h"
#include "codegen/cuda/nvrtc.h"
#include "codegen/cuda/nvrtc_or_skip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/file.h"
#include "util/float_formats.h"
#include "util/status_macros.h"
#include "util/status_matchers.h"

namespace xtune::cuda {
namespace {

using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

class EmulatorTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto c = cpu::HostCompiler::Create(EmulatorCompilerOptions());
    ASSERT_TRUE(c.ok()) << c.status();
    compiler_ = c->release();
  }

  // Runs `body` (a kernel `k(XT_IN(float) in, XT_OUT(float) out)`) on
  // `grid` x `block` threads with in = 0, 1, 2, ... of `n` floats and an
  // output of `m` floats.
  absl::Status Run(const std::string& body, int64_t grid, int block, int64_t n,
                   int64_t m, std::vector<float>* out = nullptr) {
    CudaKernelSource src;
    src.body = "#line 1 \"planted.cu\"\n" + body +
               "\n#ifdef XT_EMULATOR\nextern \"C\" void xt_emu_entry(const "
               "XtEmuBuffer* b) { k(XtG<const float>(&b[0]), XtG<float>(&b[1])); }\n"
               "#endif\n";
    src.grid = grid;
    src.block = block;
    src.elem_bytes = {4, 4};
    XTUNE_ASSIGN_OR_RETURN(GpuDeviceInfo d, ShippedGpuTarget("h200"));
    XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Kernel> kernel,
                           CompileForEmulator(*compiler_, "planted", src, d));
    std::vector<float> in(n), result(m);
    for (int64_t i = 0; i < n; ++i) in[i] = static_cast<float>(i);
    absl::Status s = kernel->Run({HostBuffer(in.data(), n * 4)},
                                 HostBuffer(result.data(), m * 4));
    if (out != nullptr) *out = result;
    return s;
  }

  static cpu::HostCompiler* compiler_;
};

cpu::HostCompiler* EmulatorTest::compiler_ = nullptr;

// A correct block reduction through shared memory: the baseline every
// planted bug below breaks in one place.
constexpr char kGoodReduce[] = R"cu(
XT_KERNEL(64) k(XT_IN(float) in, XT_OUT(float) out) {
  XT_SHARED(float, s, 64);
  XT_S(s)[xt_tid()] = XT_G(in)[xt_bid() * 64 + xt_tid()];
  XT_SYNC();
  for (int h = 32; h > 0; h >>= 1) {
    if (xt_tid() < h) XT_S(s)[xt_tid()] = XT_S(s)[xt_tid()] + XT_S(s)[xt_tid() + h];
    XT_SYNC();
  }
  if (xt_tid() == 0) XT_G(out)[xt_bid()] = XT_S(s)[0];
}
)cu";

TEST_F(EmulatorTest, CorrectKernelRuns) {
  std::vector<float> out;
  ASSERT_THAT(Run(kGoodReduce, 2, 64, 128, 2, &out), IsOk());
  EXPECT_EQ(out[0], 63 * 64 / 2);
  EXPECT_EQ(out[1], (127 * 128 - 63 * 64) / 2);
}

// In the asan build, kernels are compiled with ASan + UBSan too: an
// overflow of a thread's local array (registers or local memory on a GPU,
// which no emulator check sees) stops the program with UBSan's or ASan's
// report.
TEST_F(EmulatorTest, SanitizedKernelsCatchLocalArrayOverflows) {
  if (cpu::KernelSanitizerFlags().empty()) {
    GTEST_SKIP() << "kernels carry the sanitizers only in the asan build "
                    "(XTUNE_SANITIZE_KERNELS)";
  }
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(Run(R"cu(
XT_KERNEL(32) k(XT_IN(float) in, XT_OUT(float) out) {
  float acc[4];
  for (int i = 0; i < 4; ++i) acc[i] = XT_G(in)[i];
  XT_G(out)[xt_tid()] = acc[xt_tid() % 8];
}
)cu", 1, 32, 32, 32).IgnoreError(),
               "planted.cu:5:.*index 4 out of bounds for type 'float \\[4\\]'");
  // Through a pointer: UBSan's object-size check, or ASan's redzones.
  EXPECT_DEATH(Run(R"cu(
XT_KERNEL(32) k(XT_IN(float) in, XT_OUT(float) out) {
  float acc[4];
  float* p = acc;
  for (int i = 0; i < 4; ++i) p[i] = XT_G(in)[i];
  XT_G(out)[xt_tid()] = p[xt_tid() % 8];
}
)cu", 1, 32, 32, 32).IgnoreError(),
               "planted.cu:6:.*insufficient space|stack-buffer-overflow");
}

// Kernel objects are dlopen()ed and dlclose()d by the hundred: they must
// not hold thread-local storage (dynamic TLS from dlopen churns every
// thread's DTV, and GCC 12's LeakSanitizer misreads it and crashes at
// exit). The runtime keeps the current emulated thread instead.
TEST_F(EmulatorTest, KernelObjectsHaveNoThreadLocalStorage) {
  absl::StatusOr<cpu::LoadedKernel> loaded = compiler_->LoadKernel(
      EmulatorPrelude() + kGoodReduce +
          "extern \"C\" void xt_emu_entry(const XtEmuBuffer* b) "
          "{ k(XtG<const float>(&b[0]), XtG<float>(&b[1])); }\n",
      {"xt_emu_bind", "xt_emu_entry"});
  ASSERT_THAT(loaded, IsOk());
  absl::StatusOr<std::string> bytes = ReadFile(loaded->object->path());
  ASSERT_THAT(bytes, IsOk());
  ASSERT_GE(bytes->size(), sizeof(Elf64_Ehdr));
  Elf64_Ehdr header;
  std::memcpy(&header, bytes->data(), sizeof header);
  ASSERT_EQ(std::memcmp(header.e_ident, ELFMAG, SELFMAG), 0);
  ASSERT_EQ(header.e_ident[EI_CLASS], ELFCLASS64);
  ASSERT_GT(header.e_phnum, 0);
  for (int i = 0; i < header.e_phnum; ++i) {
    size_t at = header.e_phoff + static_cast<size_t>(i) * header.e_phentsize;
    ASSERT_LE(at + sizeof(Elf64_Phdr), bytes->size());
    Elf64_Phdr ph;
    std::memcpy(&ph, bytes->data() + at, sizeof ph);
    EXPECT_NE(ph.p_type, static_cast<Elf64_Word>(PT_TLS))
        << "the kernel object has a TLS segment of " << ph.p_memsz << " bytes";
  }
}

TEST_F(EmulatorTest, MissingBarrierIsARace) {
  std::string body = kGoodReduce;
  // Drop the barrier between the tree steps.
  const std::string step_barrier = "    XT_SYNC();\n  }";
  body.replace(body.find(step_barrier), step_barrier.size(), "  }");
  absl::Status s = Run(body, 2, 64, 128, 2);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInternal,
                          HasSubstr("shared-memory race")));
  EXPECT_THAT(s.message(), HasSubstr("planted.cu:"));
  EXPECT_THAT(s.message(), HasSubstr("no barrier in between"));
  EXPECT_THAT(s.message(), HasSubstr("block 0, thread"));
}

TEST_F(EmulatorTest, DivergentBarrier) {
  absl::Status s = Run(R"cu(
XT_KERNEL(64) k(XT_IN(float) in, XT_OUT(float) out) {
  if (xt_tid() < 32) XT_SYNC();
  XT_G(out)[xt_tid()] = XT_G(in)[xt_tid()];
}
)cu", 1, 64, 64, 64);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInternal,
                          HasSubstr("barrier not reached by every thread")));
  EXPECT_THAT(s.message(), HasSubstr("planted.cu:3"));
}

TEST_F(EmulatorTest, BarriersAtDifferentLines) {
  absl::Status s = Run(R"cu(
XT_KERNEL(64) k(XT_IN(float) in, XT_OUT(float) out) {
  if (xt_tid() < 32) { XT_SYNC(); } else {
    XT_SYNC(); }
  XT_G(out)[xt_tid()] = XT_G(in)[xt_tid()];
}
)cu", 1, 64, 64, 64);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInternal,
                          HasSubstr("divergent barrier")));
}

TEST_F(EmulatorTest, OutOfBoundsStore) {
  absl::Status s = Run(R"cu(
XT_KERNEL(64) k(XT_IN(float) in, XT_OUT(float) out) {
  XT_G(out)[xt_tid() + 1] = XT_G(in)[xt_tid()];
}
)cu", 1, 64, 64, 64);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInternal,
                          HasSubstr("out-of-bounds global store at index 64 of 64")));
  EXPECT_THAT(s.message(), HasSubstr("planted.cu:3"));
  EXPECT_THAT(s.message(), HasSubstr("thread 63"));
}

TEST_F(EmulatorTest, OutOfBoundsSharedLoad) {
  absl::Status s = Run(R"cu(
XT_KERNEL(32) k(XT_IN(float) in, XT_OUT(float) out) {
  XT_SHARED(float, s, 32);
  XT_S(s)[xt_tid()] = 1.0f;
  XT_SYNC();
  XT_G(out)[xt_tid()] = XT_S(s)[xt_tid() + 1];
}
)cu", 1, 32, 32, 32);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInternal,
                          HasSubstr("out-of-bounds shared load at index 32 of 32")));
}

TEST_F(EmulatorTest, ReadBeforeCpAsyncWait) {
  std::string good = R"cu(
XT_KERNEL(32) k(XT_IN(float) in, XT_OUT(float) out) {
  XT_SHARED(float, s, 128);
  XT_CP_ASYNC16(s, xt_tid() * 4, in, xt_tid() * 4);
  XT_CP_ASYNC_COMMIT();
  XT_CP_ASYNC_WAIT(0);
  XT_G(out)[xt_tid()] = XT_S(s)[xt_tid() * 4 + 3];
}
)cu";
  std::vector<float> out;
  ASSERT_THAT(Run(good, 1, 32, 128, 32, &out), IsOk());
  EXPECT_EQ(out[5], 23);
  std::string bad = good;
  bad.replace(bad.find("  XT_CP_ASYNC_WAIT(0);\n"), 23, "");
  absl::Status s = Run(bad, 1, 32, 128, 32);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInternal,
                          HasSubstr("before its cp.async completed")));
  EXPECT_THAT(s.message(), HasSubstr("issued at line 4"));
  // A wait that leaves the newest group in flight is not enough either.
  std::string partial = good;
  partial.replace(partial.find("XT_CP_ASYNC_WAIT(0)"), 19, "XT_CP_ASYNC_WAIT(1)");
  EXPECT_THAT(Run(partial, 1, 32, 128, 32),
              StatusIs(absl::StatusCode::kInternal,
                       HasSubstr("before its cp.async completed")));
}

TEST_F(EmulatorTest, WritingACpAsyncDestinationBeforeItsWait) {
  // The copy lands at the wait, over anything written before it: a store
  // or a second cp.async there is an error even from the issuing thread.
  std::string good = R"cu(
XT_KERNEL(32) k(XT_IN(float) in, XT_OUT(float) out) {
  XT_SHARED(float, s, 128);
  XT_CP_ASYNC16(s, xt_tid() * 4, in, xt_tid() * 4);
  XT_CP_ASYNC_COMMIT();
  XT_CP_ASYNC_WAIT(0);
  XT_S(s)[xt_tid() * 4] = 7.0f;
  XT_G(out)[xt_tid()] = XT_S(s)[xt_tid() * 4] + XT_S(s)[xt_tid() * 4 + 1];
}
)cu";
  std::vector<float> out;
  ASSERT_THAT(Run(good, 1, 32, 128, 32, &out), IsOk());
  EXPECT_EQ(out[5], 7 + 21);
  auto replace = [](std::string text, const std::string& from, const std::string& to) {
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? text : text.replace(at, from.size(), to);
  };
  std::string store = replace(good, "  XT_CP_ASYNC_WAIT(0);\n  XT_S(s)[xt_tid() * 4] = 7.0f;\n",
                              "  XT_S(s)[xt_tid() * 4] = 7.0f;\n  XT_CP_ASYNC_WAIT(0);\n");
  absl::Status s = Run(store, 1, 32, 128, 32);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInternal,
                          HasSubstr("is the destination of a cp.async in flight (issued at "
                                    "line 4 by thread 0, this thread")));
  EXPECT_THAT(s.message(), HasSubstr("planted.cu:6:"));
  std::string twice = replace(good, "  XT_CP_ASYNC_COMMIT();\n",
                              "  XT_CP_ASYNC16(s, xt_tid() * 4, in, 0);\n  XT_CP_ASYNC_COMMIT();\n");
  EXPECT_THAT(Run(twice, 1, 32, 128, 32),
              StatusIs(absl::StatusCode::kInternal,
                       HasSubstr("cp.async into byte 0 that is the destination of a cp.async "
                                 "still in flight (issued at line 4 by thread 0, this thread")));
}

TEST_F(EmulatorTest, StaticSharedMemoryIsLimitedTo48KB) {
  // 48 KB fits; one float more is what no launch gets without dynamic
  // shared memory, whatever the device's opt-in maximum (227 KB here).
  std::string fits = R"cu(
XT_KERNEL(32) k(XT_IN(float) in, XT_OUT(float) out) {
  XT_SHARED(float, s, 12288);
  XT_S(s)[xt_tid() * 384] = XT_G(in)[xt_tid()];
  XT_G(out)[xt_tid()] = XT_S(s)[xt_tid() * 384];
}
)cu";
  ASSERT_THAT(Run(fits, 1, 32, 32, 32), IsOk());
  std::string over = fits;
  over.replace(over.find("12288"), 5, "12289");
  EXPECT_THAT(Run(over, 1, 32, 32, 32),
              StatusIs(absl::StatusCode::kInternal,
                       HasSubstr("shared memory of 49156 bytes exceeds the 49152 a launch gets")));
}

TEST_F(EmulatorTest, SharedMemoryRaceBetweenWriters) {
  absl::Status s = Run(R"cu(
XT_KERNEL(64) k(XT_IN(float) in, XT_OUT(float) out) {
  XT_SHARED(float, s, 32);
  XT_S(s)[xt_tid() % 32] = XT_G(in)[xt_tid()];
  XT_SYNC();
  XT_G(out)[xt_tid()] = XT_S(s)[xt_tid() % 32];
}
)cu", 1, 64, 64, 64);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInternal,
                          HasSubstr("written here was written by thread 0")));
}

TEST_F(EmulatorTest, PoisonedSharedMemoryRead) {
  absl::Status s = Run(R"cu(
XT_KERNEL(32) k(XT_IN(float) in, XT_OUT(float) out) {
  XT_SHARED(float, s, 64);
  XT_S(s)[xt_tid()] = 1.0f;
  XT_SYNC();
  XT_G(out)[xt_tid()] = XT_S(s)[xt_tid() + 32];
}
)cu", 1, 32, 32, 32);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInternal,
                          HasSubstr("uninitialized shared memory")));
}

TEST_F(EmulatorTest, UnwrittenAndDoublyWrittenOutputs) {
  EXPECT_THAT(Run(R"cu(
XT_KERNEL(32) k(XT_IN(float) in, XT_OUT(float) out) {
  if (xt_tid() != 7) XT_G(out)[xt_tid()] = 1.0f;
}
)cu", 1, 32, 32, 32),
              StatusIs(absl::StatusCode::kInternal,
                       HasSubstr("1 of 32 elements of output argument 1 were "
                                 "never written (the first is element 7")));
  EXPECT_THAT(Run(R"cu(
XT_KERNEL(32) k(XT_IN(float) in, XT_OUT(float) out) {
  XT_G(out)[xt_tid() / 2] = 1.0f;
}
)cu", 1, 32, 16, 16),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("output race")));
}

TEST_F(EmulatorTest, WarpShufflesAndVotes) {
  std::vector<float> out;
  ASSERT_THAT(Run(R"cu(
XT_KERNEL(64) k(XT_IN(float) in, XT_OUT(float) out) {
  float v = XT_G(in)[xt_tid()];
  for (int o = 16; o > 0; o >>= 1) v += XT_SHFL_XOR(v, o);
  float d = XT_SHFL_DOWN(XT_G(in)[xt_tid()], 1);
  unsigned b = XT_BALLOT(xt_lane() % 3 == 0);
  XT_G(out)[xt_tid()] = xt_lane() == 0 ? v : (xt_lane() == 1 ? (float)b : d);
}
)cu", 1, 64, 64, 64, &out), IsOk());
  EXPECT_EQ(out[0], 31 * 32 / 2);
  EXPECT_EQ(out[32], (63 * 64 - 31 * 32) / 2);
  EXPECT_EQ(out[2], 3);     // lane 2 got lane 3's value
  EXPECT_EQ(out[31], 31);   // the last lane keeps its own
  EXPECT_EQ(out[1], static_cast<float>(0x49249249u));  // lanes 0, 3, 6, ...
}

TEST_F(EmulatorTest, WarpCollectiveNotReachedByEveryLane) {
  absl::Status s = Run(R"cu(
XT_KERNEL(32) k(XT_IN(float) in, XT_OUT(float) out) {
  float v = XT_G(in)[xt_tid()];
  if (xt_lane() < 16) v = XT_SHFL_XOR(v, 1);
  XT_G(out)[xt_tid()] = v;
}
)cu", 1, 32, 32, 32);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInternal,
                          HasSubstr("warp collective not reached by lane 16")));
}

TEST_F(EmulatorTest, BadLaunchIsInvalidArgument) {
  EXPECT_THAT(Run(kGoodReduce, 1, 2048, 2048, 1),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("block of 2048 threads")));
}

// Every tensor-core and async primitive of the vocabulary in one kernel:
// cp.async of A (16x16) and B^T (8x16) into shared memory, conversion to
// f16 / bf16, ldmatrix x4 (A), x2 (B^T) and x2.trans (B as k x n), mma
// m16n8k16 f16 and bf16 and m16n8k8 tf32, plus a shuffle and a ballot.
// Integers keep every product exact, so the emulator must give the plain
// matrix products; NVRTC must compile the same text for sm_80 and sm_90a.
constexpr char kVocabulary[] = R"cu(
XT_KERNEL(32) k(XT_IN(float) in, XT_OUT(float) out) {
  XT_SHARED(float, sf, 384);
  XT_SHARED(uint16_t, sa, 256);
  XT_SHARED(uint16_t, sb, 128);
  XT_SHARED(uint16_t, sk, 128);
  XT_SHARED(uint16_t, ba, 256);
  const int l = xt_lane();
  for (int j = 0; j < 3; ++j) XT_CP_ASYNC16(sf, (l + 32 * j) * 4, in, (l + 32 * j) * 4);
  XT_CP_ASYNC_COMMIT();
  XT_CP_ASYNC_WAIT(0);
  XT_SYNC();
  for (int e = l; e < 256; e += 32) {
    XT_S(sa)[e] = xt_f2h(XT_S(sf)[e]);
    XT_S(ba)[e] = xt_f2bf(XT_S(sf)[e]);
  }
  for (int e = l; e < 128; e += 32) {
    XT_S(sb)[e] = xt_f2h(XT_S(sf)[256 + e]);
    // B as k x n: element (k, n) = B^T(n, k).
    XT_S(sk)[e] = xt_f2bf(XT_S(sf)[256 + (e % 8) * 16 + e / 8]);
  }
  XT_SYNC();
  const int g = l / 4, t = l % 4;
  uint32_t a[4], b[2], bt[2], ab[4];
  const float c[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  float d[4];
  XT_LDMATRIX_X4(a, sa, ((l % 8) + 8 * ((l / 8) % 2)) * 16 + 8 * (l / 16));
  XT_LDMATRIX_X2(b, sb, (l % 8) * 16 + 8 * ((l / 8) % 2));
  XT_MMA_M16N8K16_F16(d, a, b, c);
  for (int i = 0; i < 4; ++i) XT_G(out)[(g + 8 * (i / 2)) * 8 + 2 * t + (i & 1)] = d[i];
  XT_LDMATRIX_X4(ab, ba, ((l % 8) + 8 * ((l / 8) % 2)) * 16 + 8 * (l / 16));
  XT_LDMATRIX_X2_T(bt, sk, (l % 8) * 8 + 64 * ((l / 8) % 2));
  XT_MMA_M16N8K16_BF16(d, ab, bt, c);
  for (int i = 0; i < 4; ++i) XT_G(out)[128 + (g + 8 * (i / 2)) * 8 + 2 * t + (i & 1)] = d[i];
  // tf32, k = 8: A[:, 0:8] times B[0:8, :], registers straight from shared.
  uint32_t a32[4], b32[2];
  a32[0] = xt_f32_bits(XT_S(sf)[g * 16 + t]);
  a32[1] = xt_f32_bits(XT_S(sf)[(g + 8) * 16 + t]);
  a32[2] = xt_f32_bits(XT_S(sf)[g * 16 + t + 4]);
  a32[3] = xt_f32_bits(XT_S(sf)[(g + 8) * 16 + t + 4]);
  b32[0] = xt_f32_bits(XT_S(sf)[256 + g * 16 + t]);
  b32[1] = xt_f32_bits(XT_S(sf)[256 + g * 16 + t + 4]);
  XT_MMA_M16N8K8_TF32(d, a32, b32, c);
  for (int i = 0; i < 4; ++i) XT_G(out)[256 + (g + 8 * (i / 2)) * 8 + 2 * t + (i & 1)] = d[i];
  float s = (float)l;
  for (int o = 16; o > 0; o >>= 1) s += XT_SHFL_XOR(s, o);
  unsigned odd = XT_BALLOT(l % 2 == 1);
  XT_G(out)[384 + l] = l == 0 ? s : (float)(odd == 0xAAAAAAAAu);
}
)cu";

TEST_F(EmulatorTest, TensorCoreVocabularyMatchesMatrixProducts) {
  // Run fills in[i] = i: entries up to 383 are exact in f16 and tf32, bf16
  // rounds them, and every product sum stays an integer below 2^24.
  std::vector<float> out;
  ASSERT_THAT(Run(kVocabulary, 1, 32, 384, 416, &out), IsOk());
  // The reference: A(r, k) = in[r*16+k], B(k, n) = in[256 + n*16 + k],
  // each as stored after f16 (f16 path) or bf16 rounding.
  auto f16 = [](float v) { return static_cast<float>(RoundToF16(v)); };
  auto bf16 = [](float v) { return static_cast<float>(RoundToBF16(v)); };
  for (int r = 0; r < 16; ++r) {
    for (int n = 0; n < 8; ++n) {
      double want16 = 0, wantb = 0, want32 = 0;
      for (int kk = 0; kk < 16; ++kk) {
        float a = static_cast<float>(r * 16 + kk), b = static_cast<float>(256 + n * 16 + kk);
        want16 += static_cast<double>(f16(a)) * f16(b);
        wantb += static_cast<double>(bf16(a)) * bf16(b);
        if (kk < 8) want32 += static_cast<double>(a) * b;
      }
      EXPECT_NEAR(out[r * 8 + n], want16, want16 * 1e-6) << r << "," << n;
      EXPECT_NEAR(out[128 + r * 8 + n], wantb, wantb * 1e-6) << r << "," << n;
      EXPECT_NEAR(out[256 + r * 8 + n], want32, want32 * 1e-6) << r << "," << n;
    }
  }
  EXPECT_EQ(out[384], 31 * 32 / 2);
  EXPECT_EQ(out[385], 1.0f);
}

TEST(VocabularyTest, NvrtcCompilesTheTensorCoreKernelForSm80AndSm90a) {
  XTUNE_NVRTC_OR_SKIP();
  absl::StatusOr<std::unique_ptr<Nvrtc>> nvrtc = Nvrtc::Load();
  ASSERT_THAT(nvrtc, IsOk());
  std::string source = GpuPrelude() + "#line 1 \"vocabulary.cu\"\n" + kVocabulary;
  for (const char* arch : {"sm_80", "sm_90a"}) {
    absl::StatusOr<NvrtcOutput> out = (*nvrtc)->Compile(source, "vocabulary", arch);
    ASSERT_THAT(out, IsOk()) << arch;
    EXPECT_THAT(out->ptx, HasSubstr("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"));
    EXPECT_THAT(out->ptx, HasSubstr("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"));
    EXPECT_THAT(out->ptx, HasSubstr("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"));
    EXPECT_THAT(out->ptx, HasSubstr("ldmatrix.sync.aligned.m8n8.x4.shared.b16"));
    EXPECT_THAT(out->ptx, HasSubstr("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16"));
    EXPECT_THAT(out->ptx, HasSubstr("cp.async.cg.shared.global"));
    EXPECT_THAT(out->ptx, HasSubstr("cp.async.wait_group 0"));
    bool found = false;
    for (const KernelResources& r : out->resources) {
      if (r.function != "k") continue;
      found = true;
      EXPECT_GT(r.registers, 0);
      EXPECT_EQ(r.spill_store_bytes, 0) << arch;
      EXPECT_EQ(r.shared_bytes, 384 * 4 + 2 * (256 + 128 + 128 + 256)) << arch;
    }
    EXPECT_TRUE(found) << out->log;
  }
}

// FP8 on tensor cores: A (16 x 32, e4m3) and B^T (8 x 32, e5m2) bytes
// built in shared memory four to a word, ldmatrix x4 / x2 of the byte
// tiles (an m16n8k32 8-bit fragment has the bytes of an m16n8k16 16-bit
// one), and mma m16n8k32 e4m3 x e5m2. A(r, k) = (r * 32 + k) % 7 - 3 and
// B(k, n) = ((n * 32 + k) % 5 - 2) / 2 are exact in both formats.
constexpr char kFp8Vocabulary[] = R"cu(
XT_KERNEL(32) k(XT_IN(float) in, XT_OUT(float) out) {
  XT_SHARED(uint16_t, sa, 256);
  XT_SHARED(uint16_t, sb, 128);
  XT_SHARED_VIEW(uint32_t, sa32, sa);
  XT_SHARED_VIEW(uint32_t, sb32, sb);
  const int l = xt_lane();
  for (int w = l; w < 128; w += 32) {
    uint32_t word = 0;
    for (int e = 0; e < 4; ++e) {
      const int i = (w / 8) * 32 + (w % 8) * 4 + e;
      word |= (uint32_t)xt_f2f8((float)(i % 7 - 3), 4, 3, 7, 1) << (8 * e);
    }
    XT_S(sa32)[w] = word;
  }
  for (int w = l; w < 64; w += 32) {
    uint32_t word = 0;
    for (int e = 0; e < 4; ++e) {
      const int i = (w / 8) * 32 + (w % 8) * 4 + e;
      word |= (uint32_t)xt_f2f8((float)(i % 5 - 2) * 0.5f, 5, 2, 15, 0) << (8 * e);
    }
    XT_S(sb32)[w] = word;
  }
  XT_SYNC();
  const int g = l / 4, t = l % 4;
  uint32_t a[4], b[2];
  const float c[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  float d[4];
  XT_LDMATRIX_X4(a, sa, ((l % 8) + 8 * ((l / 8) % 2)) * 16 + 8 * (l / 16));
  XT_LDMATRIX_X2(b, sb, (l % 8) * 16 + 8 * ((l / 8) % 2));
  XT_MMA_M16N8K32_E4M3_E5M2(d, a, b, c);
  for (int i = 0; i < 4; ++i) XT_G(out)[(g + 8 * (i / 2)) * 8 + 2 * t + (i & 1)] = d[i];
}
)cu";

TEST_F(EmulatorTest, Fp8TensorCoreVocabularyMatchesTheMatrixProduct) {
  std::vector<float> out;
  ASSERT_THAT(Run(kFp8Vocabulary, 1, 32, 1, 128, &out), IsOk());
  for (int r = 0; r < 16; ++r) {
    for (int n = 0; n < 8; ++n) {
      double want = 0;
      for (int kk = 0; kk < 32; ++kk) {
        want += static_cast<double>((r * 32 + kk) % 7 - 3) * (((n * 32 + kk) % 5 - 2) * 0.5);
      }
      EXPECT_EQ(out[r * 8 + n], want) << r << "," << n;
    }
  }
}

TEST(VocabularyTest, NvrtcCompilesTheFp8TensorCoreKernelFromSm89Only) {
  XTUNE_NVRTC_OR_SKIP();
  absl::StatusOr<std::unique_ptr<Nvrtc>> nvrtc = Nvrtc::Load();
  ASSERT_THAT(nvrtc, IsOk());
  std::string source = GpuPrelude() + "#line 1 \"fp8.cu\"\n" + kFp8Vocabulary;
  for (const char* arch : {"sm_89", "sm_90a"}) {
    absl::StatusOr<NvrtcOutput> out = (*nvrtc)->Compile(source, "fp8", arch);
    ASSERT_THAT(out, IsOk()) << arch;
    EXPECT_THAT(out->ptx, HasSubstr("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32"));
    EXPECT_THAT(out->ptx, HasSubstr("ldmatrix.sync.aligned.m8n8.x4.shared.b16"));
  }
  // Before Ada the macro does not exist: a compile error, never wrong code.
  EXPECT_THAT((*nvrtc)->Compile(source, "fp8", "sm_80"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("XT_MMA_M16N8K32")));
}

}  // namespace
}  // namespace xtune::cuda
