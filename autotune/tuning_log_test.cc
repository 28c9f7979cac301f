#include "autotune/tuning_log.h"

#include "cache/tuning_log.pb.h"
#include "google/protobuf/text_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xtune {
namespace {

// The text the autotuner writes reads back through its schema
// (cache/tuning_log.proto), every field included: what `xtune report` and
// other tools parse.
TEST(TuningLogTest, TextReadsBackThroughTheSchema) {
  FusionLog f;
  f.fusion = "gemm_fusion";
  f.key = AutotuneKey{"CPU: test", "{ ROOT x = f32[2] parameter(0) }", 4};
  CandidateLog timed;
  timed.config = KernelConfig("cpu_gemm", {{"mc", 64}, {"nr", 32}});
  timed.median_seconds = 2.5e-6;
  timed.seconds = {3e-6, 2.5e-6, 1.5};
  timed.round_seconds = {2.5e-6};
  CandidateLog wrong;
  wrong.config = KernelConfig("cpu_gemm_blas", {{"threads", 2}});
  wrong.failure = FailureKind::kWrongResult;
  wrong.message = "output 0 differs at {1}: \"3\" vs 4\nsecond line";
  CandidateLog slow;
  slow.config = KernelConfig("cpu_loop", {{"threads", 1}});
  slow.failure = FailureKind::kTimeout;
  f.candidates = {timed, wrong, slow};
  f.pruned.push_back({KernelConfig("cpu_gemm", {{"mc", 8}, {"nr", 32}}), 1.75});
  f.selected = timed.config;
  f.default_config = wrong.config;
  f.noise_band = 0.03;
  f.in_module.push_back({timed.config, 4e-6});
  f.in_module_band = 0.02;
  f.isolated_selected = wrong.config;
  f.seeded_from = "CPU: other";
  FusionLog checked;
  checked.checked_only = true;

  logs::TuningLogs logs;
  const std::string text = TuningLogsToText({f, checked});
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &logs)) << text;
  ASSERT_EQ(logs.logs_size(), 2);
  const logs::FusionLog& p = logs.logs(0);
  EXPECT_EQ(p.fusion(), "gemm_fusion");
  EXPECT_EQ(p.key(), f.key.ToString());
  ASSERT_EQ(p.candidates_size(), 3);
  EXPECT_EQ(p.candidates(0).config(), "cpu_gemm:mc=64,nr=32");
  EXPECT_EQ(p.candidates(0).run_time().nanos(), 2500);
  ASSERT_EQ(p.candidates(0).samples_size(), 3);
  EXPECT_EQ(p.candidates(0).samples(2).seconds(), 1);
  EXPECT_EQ(p.candidates(0).samples(2).nanos(), 500000000);
  EXPECT_EQ(p.candidates(0).round_medians_size(), 1);
  EXPECT_FALSE(p.candidates(0).has_failure());
  EXPECT_EQ(p.candidates(1).failure().kind(), logs::FusionLog::Candidate::Failure::WRONG_RESULT);
  EXPECT_EQ(p.candidates(1).failure().msg(), wrong.message);
  EXPECT_EQ(p.candidates(1).failure().xtune_reason(), logs::WRONG_RESULT);
  EXPECT_FALSE(p.candidates(1).has_run_time());
  EXPECT_EQ(p.candidates(2).failure().kind(), logs::FusionLog::Candidate::Failure::UNKNOWN);
  EXPECT_EQ(p.candidates(2).failure().xtune_reason(), logs::TIMEOUT);
  ASSERT_EQ(p.pruned_size(), 1);
  EXPECT_DOUBLE_EQ(p.pruned(0).predicted_ratio(), 1.75);
  EXPECT_EQ(p.selected(), "cpu_gemm:mc=64,nr=32");
  EXPECT_EQ(p.default_config(), "cpu_gemm_blas:threads=2");
  EXPECT_DOUBLE_EQ(p.noise_band(), 0.03);
  ASSERT_EQ(p.in_module_size(), 1);
  EXPECT_EQ(p.in_module(0).run_time().nanos(), 4000);
  EXPECT_EQ(p.isolated_selected(), "cpu_gemm_blas:threads=2");
  EXPECT_EQ(p.seeded_from(), "CPU: other");
  EXPECT_FALSE(p.checked_only());
  EXPECT_TRUE(logs.logs(1).checked_only());
}

}  // namespace
}  // namespace xtune
