// The CPU profiler: candidates run in the spawned worker program, so
// crashing, hanging, exiting and killed workers fail one candidate and never
// the caller; a fresh worker takes the next command.
#include "codegen/cpu/cpu_profiler.h"

#include <signal.h>

#include <chrono>
#include <cmath>
#include <thread>

#include "codegen/cpu/cpu_backend.h"
#include "codegen/cpu/cpu_kernel.h"
#include "codegen/cpu/worker_path.h"
#include "eval/evaluator.h"
#include "fusion/fusion_pass.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/parser.h"
#include "runtime/compare.h"
#include "runtime/random_inputs.h"
#include "util/file.h"
#include "util/status_matchers.h"

namespace xtune::cpu {
namespace {

using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

std::unique_ptr<Module> FusedModule() {
  auto m = ParseModule(R"hlo(HloModule m
ENTRY e {
  a = f32[16,32] parameter(0)
  b = f32[32,8] parameter(1)
  ROOT d = f32[16,8] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})hlo");
  EXPECT_THAT(m, IsOk());
  auto fused = FuseModule(**m);
  EXPECT_THAT(fused, IsOk());
  return std::move(*fused);
}

ProfileOptions Quick() {
  ProfileOptions o;
  o.min_repetitions = 3;
  o.time_budget = absl::Milliseconds(1);
  o.timeout = absl::Milliseconds(1500);
  return o;
}

// Kills the worker `pid` as the OOM killer would. Never kill(-1, ...):
// that signals every process of the user.
void KillWorker(pid_t pid) {
  ASSERT_GT(pid, 1);
  kill(pid, SIGKILL);
  usleep(50000);  // SIGKILL is asynchronous
}

// A hand-written kernel object with the kernel ABI.
std::unique_ptr<Kernel> Handwritten(CpuBackend& backend, const char* body) {
  std::string source = absl::StrCat(
      "#include <stdint.h>\n#include <signal.h>\n#include <stdlib.h>\n"
      "#include <unistd.h>\n#include <string.h>\n"
      "extern \"C\" void xtune_kernel(const void* const* in, void* out, "
      "const int64_t* cfg, const void* ctx) {\n",
      body, "\n}\n");
  auto object = backend.compiler()->CompileAndLoad(source);
  EXPECT_THAT(object, IsOk());
  auto kernel = backend.KernelFromObject(*object, {});
  EXPECT_THAT(kernel, IsOk());
  return std::move(*kernel);
}

class CpuProfilerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    module_ = FusedModule();
    fusion_ = module_->entry()->root();
    auto cpu = CpuBackend::Create();
    ASSERT_THAT(cpu, IsOk());
    backend_ = std::move(*cpu);
    auto worker = FindCpuWorker();
    ASSERT_THAT(worker, IsOk());
    profiler_ = std::make_unique<CpuProfiler>(*worker, 2, 1 << 20);
    inputs_ = {RandomLiteral(fusion_->operand(0)->shape(), 1),
               RandomLiteral(fusion_->operand(1)->shape(), 2)};
    KernelConfig config = backend_->DefaultConfig(*fusion_);
    config.Set("threads", 2);
    config.Set("mc", 8);
    auto good = backend_->Compile(*fusion_, config);
    ASSERT_THAT(good, IsOk());
    good_ = std::move(*good);
    good_config_ = config;
  }

  absl::StatusOr<ProfileResult> Run(Kernel& k) {
    return profiler_->Profile(k, good_config_, inputs_, fusion_->shape(),
                              Quick());
  }
  void ExpectGood(const absl::StatusOr<ProfileResult>& r) {
    ASSERT_THAT(r, IsOk());
    EXPECT_GE(r->seconds.size(), 3u);
    absl::StatusOr<Literal> want =
        EvaluateComputation(*fusion_->called_computations()[0], inputs_);
    EXPECT_THAT(CompareLiterals(*want, r->output, "cpu"), IsOk());
  }

  std::unique_ptr<Module> module_;
  const Instruction* fusion_ = nullptr;
  std::unique_ptr<CpuBackend> backend_;
  std::unique_ptr<CpuProfiler> profiler_;
  std::vector<Literal> inputs_;
  std::unique_ptr<Kernel> good_;
  KernelConfig good_config_;
};

TEST_F(CpuProfilerTest, TimesAGeneratedKernelWithoutASession) {
  ExpectGood(Run(*good_));
  ExpectGood(Run(*good_));
}

TEST_F(CpuProfilerTest, CrashHangAndExitFailOnlyTheirCandidate) {
  auto crash = Handwritten(*backend_, "raise(SIGSEGV);");
  auto hang = Handwritten(*backend_, "volatile int x = 1; while (x) {}");
  auto quit = Handwritten(*backend_, "_exit(3);");
  Kernel* all[] = {good_.get(), crash.get(), hang.get(), quit.get()};
  ASSERT_THAT(profiler_->BeginFusion(all, inputs_, fusion_->shape()), IsOk());
  ExpectGood(Run(*good_));
  EXPECT_THAT(Run(*crash),
              StatusIs(absl::StatusCode::kAborted, HasSubstr("signal 11")));
  ExpectGood(Run(*good_));
  auto start = std::chrono::steady_clock::now();
  EXPECT_THAT(Run(*hang), StatusIs(absl::StatusCode::kDeadlineExceeded,
                                   HasSubstr("killed")));
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                          start)
                .count(),
            10.0);
  EXPECT_THAT(Run(*quit), StatusIs(absl::StatusCode::kAborted,
                                   HasSubstr("exited with status 3")));
  ExpectGood(Run(*good_));
  profiler_->EndFusion();
}

TEST_F(CpuProfilerTest, WorkerKilledBeforeTheFirstCommand) {
  Kernel* all[] = {good_.get()};
  ASSERT_THAT(profiler_->BeginFusion(all, inputs_, fusion_->shape()), IsOk());
  ExpectGood(Run(*good_));  // starts the worker
  pid_t pid = profiler_->worker_pid();
  KillWorker(pid);
  // Not this candidate's fault: a fresh worker runs it.
  ExpectGood(Run(*good_));
  EXPECT_NE(profiler_->worker_pid(), pid);
  EXPECT_EQ(profiler_->workers_started(), 2);
}

TEST_F(CpuProfilerTest, WorkerKilledDuringACommandFailsThatCandidate) {
  auto slow = Handwritten(*backend_, "usleep(200000);");
  Kernel* all[] = {good_.get(), slow.get()};
  ASSERT_THAT(profiler_->BeginFusion(all, inputs_, fusion_->shape()), IsOk());
  ExpectGood(Run(*good_));
  pid_t pid = profiler_->worker_pid();
  ASSERT_GT(pid, 1);
  std::thread killer([pid] {
    usleep(100000);
    KillWorker(pid);
  });
  ProfileOptions o = Quick();
  o.timeout = absl::Seconds(20);
  absl::StatusOr<ProfileResult> r =
      profiler_->Profile(*slow, good_config_, inputs_, fusion_->shape(), o);
  killer.join();
  EXPECT_THAT(r, StatusIs(absl::StatusCode::kAborted,
                          HasSubstr("killed with signal 9")));
  ExpectGood(Run(*good_));
}

TEST_F(CpuProfilerTest, WorkerKilledBetweenCommands) {
  auto second = Handwritten(*backend_, "memset(out, 0, 16 * 8 * 4);");
  Kernel* all[] = {good_.get(), second.get()};
  ASSERT_THAT(profiler_->BeginFusion(all, inputs_, fusion_->shape()), IsOk());
  ExpectGood(Run(*good_));
  KillWorker(profiler_->worker_pid());
  usleep(20000);
  // No SIGPIPE here, no failure: the next command gets a fresh worker.
  absl::StatusOr<ProfileResult> r = Run(*second);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->output.GetDouble(0), 0.0);
}

TEST_F(CpuProfilerTest, AKernelThatWritesNothingCannotPassForTheLastOne) {
  auto lazy = Handwritten(*backend_, "");
  Kernel* all[] = {good_.get(), lazy.get()};
  ASSERT_THAT(profiler_->BeginFusion(all, inputs_, fusion_->shape()), IsOk());
  ExpectGood(Run(*good_));
  absl::StatusOr<ProfileResult> r = Run(*lazy);
  ASSERT_THAT(r, IsOk());
  EXPECT_TRUE(std::isnan(r->output.GetDouble(0)));  // poisoned
}

TEST_F(CpuProfilerTest, AKernelThatWritesItsInputsCrashesInsteadOfCorruptingThem) {
  auto vandal = Handwritten(*backend_, "((float*)(in[0]))[0] = 1.0f;");
  Kernel* all[] = {vandal.get(), good_.get()};
  ASSERT_THAT(profiler_->BeginFusion(all, inputs_, fusion_->shape()), IsOk());
  EXPECT_THAT(Run(*vandal),
              StatusIs(absl::StatusCode::kAborted, HasSubstr("signal 11")));
  ExpectGood(Run(*good_));  // the inputs are intact
}

TEST_F(CpuProfilerTest, MissingWorkerProgramIsUnavailable) {
  CpuProfiler missing("/nonexistent/xtune_cpu_worker", 1, 0);
  EXPECT_THAT(missing.Profile(*good_, good_config_, inputs_, fusion_->shape(),
                              Quick()),
              StatusIs(absl::StatusCode::kUnavailable,
                       HasSubstr("/nonexistent/xtune_cpu_worker")));
}

TEST_F(CpuProfilerTest, ChangedObjectIsRefusedByTheWorker) {
  // A kernel object replaced after compiling is not run.
  auto k = Handwritten(*backend_, "memset(out, 0, 4);");
  auto* cpu = dynamic_cast<CpuKernel*>(k.get());
  ASSERT_NE(cpu, nullptr);
  ASSERT_THAT(WriteFileAtomically(cpu->object().path(), "not an object"),
              IsOk());
  EXPECT_THAT(Run(*k), StatusIs(absl::StatusCode::kInternal,
                                HasSubstr("changed since it was compiled")));
}

}  // namespace
}  // namespace xtune::cpu
