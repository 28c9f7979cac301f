#include "cache/results_file.h"

#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/unknown_field_set.h>
#include <google/protobuf/util/message_differencer.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cache/cache_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/file.h"
#include "util/status_matchers.h"
#include "util/test_temp_dir.h"

namespace xtune {
namespace {

using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::IsOkAndHolds;
using ::xtune::testing::StatusIs;

xla::AutotuneResults Sample(int n) {
  xla::AutotuneResults rs;
  rs.set_version(3);
  for (int i = 0; i < n; ++i) {
    AddEntry(
        &rs, "CPU: test",
        "{\n  tmp_0 = f32[" + std::to_string(i + 1) + "]{0} parameter(0)\n}",
        CpuGemmResult(128 + i, 1000 + i), 1);
  }
  return rs;
}

std::string TempPath(const std::string& name) {
  static const std::string dir =
      xtune::testing::TestTempDir("results_file_test");
  return dir + "/" + name;
}

TEST(ResultsFileTest, TextProtoExtensions) {
  for (const char* p :
       {"a.txt", "a.txtpb", "a.textproto", "a.prototxt", "a.pbtxt"}) {
    EXPECT_TRUE(IsTextProtoPath(p)) << p;
  }
  for (const char* p : {"a.pb", "a.binpb", "a", "a.txt.gz"}) {
    EXPECT_FALSE(IsTextProtoPath(p)) << p;
  }
}

TEST(ResultsFileTest, XlasOwnFileLoads) {
  ASSERT_OK_AND_ASSIGN(
      xla::AutotuneResults rs,
      ReadAutotuneResults(std::string(XTUNE_SOURCE_DIR) +
                          "/tests/data/test_autotune_cache.textproto"));
  ASSERT_EQ(rs.results_size(), 1);
  EXPECT_EQ(rs.results(0).result().triton().block_m(), 32);
  EXPECT_THAT(rs.results(0).device(), HasSubstr("CUDA: 8.0"));
}

// XLA's cuDNN entries carry `tuning_knobs`, a protobuf map. Under GCC's
// ThreadSanitizer, protobuf's headers add two fields to every map (when
// __SANITIZE_THREAD__ is defined) that Debian's uninstrumented libprotobuf
// does not have: parsing this file crashed in the tsan build until its preset
// undefined the macro (CMakePresets.json).
TEST(ResultsFileTest, XlasConvEntriesWithTuningKnobsLoad) {
  ASSERT_OK_AND_ASSIGN(
      xla::AutotuneResults rs,
      ReadAutotuneResults(std::string(XTUNE_SOURCE_DIR) +
                          "/tests/xla_compat/xla_conv_entries.textproto"));
  ASSERT_EQ(rs.results_size(), 3);
  int knobs = 0;
  for (const auto& e : rs.results()) knobs += e.result().algorithm().tuning_knobs_size();
  EXPECT_GT(knobs, 0);
  const std::string path = TempPath("conv.pb");
  ASSERT_THAT(WriteAutotuneResults(path, rs), IsOk());
  ASSERT_OK_AND_ASSIGN(xla::AutotuneResults back, ReadAutotuneResults(path));
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(back, rs));
}

TEST(ResultsFileTest, RoundTripBothFormatsDeterministically) {
  for (const char* name : {"c.textproto", "c.pb"}) {
    std::string path = TempPath(name);
    ASSERT_THAT(WriteAutotuneResults(path, Sample(5)), IsOk());
    ASSERT_OK_AND_ASSIGN(xla::AutotuneResults back, ReadAutotuneResults(path));
    EXPECT_EQ(back.SerializeAsString(), Sample(5).SerializeAsString()) << name;
    ASSERT_OK_AND_ASSIGN(std::string a, ReadFile(path));
    ASSERT_THAT(WriteAutotuneResults(path, back), IsOk());
    ASSERT_OK_AND_ASSIGN(std::string b, ReadFile(path));
    EXPECT_EQ(a, b) << name;
  }
}

// Removes every field numbered 1000 or more (xtune's) from `m` and its
// nested messages.
void StripXtuneFields(google::protobuf::DescriptorProto* m) {
  auto* fields = m->mutable_field();
  for (int i = fields->size() - 1; i >= 0; --i) {
    if (fields->Get(i).number() >= 1000) fields->DeleteSubrange(i, 1);
  }
  for (auto& nested : *m->mutable_nested_type()) StripXtuneFields(&nested);
}

// XLA's view of a file: the schema without xtune's fields (every field
// numbered 1000 or more removed from the compiled-in schema of
// cache/autotune_results.proto). A file whose entries use only XLA's key
// types must parse with it, text and binary, with nothing unknown inside the
// entries.
TEST(ResultsFileTest, XlaKeysOnlyFileDecodesWithXlasSchema) {
  google::protobuf::DescriptorPool pool;
  // Dependencies first, unchanged; then the schema, stripped.
  const google::protobuf::FileDescriptor* file =
      xla::AutotuneResults::descriptor()->file();
  std::vector<const google::protobuf::FileDescriptor*> order;
  std::function<void(const google::protobuf::FileDescriptor*)> visit =
      [&](const google::protobuf::FileDescriptor* f) {
        for (const auto* seen : order) {
          if (seen == f) return;
        }
        for (int i = 0; i < f->dependency_count(); ++i) visit(f->dependency(i));
        order.push_back(f);
      };
  visit(file);
  for (const auto* f : order) {
    google::protobuf::FileDescriptorProto fdp;
    f->CopyTo(&fdp);
    if (f == file) {
      for (auto& m : *fdp.mutable_message_type()) StripXtuneFields(&m);
    }
    ASSERT_NE(pool.BuildFile(fdp), nullptr) << f->name();
  }
  const google::protobuf::Descriptor* results_type =
      pool.FindMessageTypeByName("xla.AutotuneResults");
  ASSERT_NE(results_type, nullptr);
  EXPECT_EQ(results_type->FindFieldByNumber(1000), nullptr);
  EXPECT_EQ(
      pool.FindMessageTypeByName("xla.AutotuneResult")->FindFieldByNumber(1000),
      nullptr);
  google::protobuf::DynamicMessageFactory factory(&pool);

  xla::AutotuneResults rs;
  rs.set_version(3);
  auto* e = rs.add_results();
  e->set_device("CUDA: 9.0");
  e->set_hlo("{}");
  e->mutable_result()->mutable_gemm()->set_algorithm(4);
  e->mutable_result()->mutable_run_time()->set_nanos(7);
  auto* t = rs.add_results();
  t->set_device("CUDA: 9.0");
  t->set_hlo("{ }");
  t->mutable_result()->mutable_triton()->set_block_m(64);
  for (bool text : {true, false}) {
    std::string bytes = SerializeAutotuneResults(rs, text);
    std::unique_ptr<google::protobuf::Message> m(
        factory.GetPrototype(results_type)->New());
    if (text) {
      // TextFormat refuses unknown fields, so this also shows there are none.
      ASSERT_TRUE(
          google::protobuf::TextFormat::ParseFromString(bytes, m.get()));
    } else {
      ASSERT_TRUE(m->ParseFromString(bytes));
      // Only the top-level header and check (1000, 1001) are unknown to XLA.
      const auto& unknown = m->GetReflection()->GetUnknownFields(*m);
      for (int i = 0; i < unknown.field_count(); ++i) {
        EXPECT_GE(unknown.field(i).number(), 1000);
      }
    }
    const auto* results_field = results_type->FindFieldByName("results");
    ASSERT_EQ(m->GetReflection()->FieldSize(*m, results_field), 2);
    const auto& entry =
        m->GetReflection()->GetRepeatedMessage(*m, results_field, 0);
    EXPECT_EQ(entry.GetReflection()->GetUnknownFields(entry).field_count(), 0);
    EXPECT_THAT(entry.ShortDebugString(), HasSubstr("algorithm: 4"));
    EXPECT_THAT(m->ShortDebugString(), HasSubstr("block_m: 64"));
  }
}

TEST(ResultsFileTest, EveryTruncationIsDetected) {
  for (bool text : {true, false}) {
    std::string data = SerializeAutotuneResults(Sample(3), text);
    // Every byte for binary; for text every byte but the final newline
    // (without it the file still holds everything, check line included).
    for (size_t cut = 0; cut < data.size() - (text ? 1 : 0); ++cut) {
      absl::StatusOr<xla::AutotuneResults> r =
          ParseAutotuneResults(data.substr(0, cut), text, "cut");
      EXPECT_FALSE(r.ok()) << (text ? "text" : "binary") << " cut at " << cut;
      if (!r.ok()) {
        EXPECT_NE(r.status().code(), absl::StatusCode::kInternal);
        EXPECT_THAT(r.status().message(), HasSubstr("cut"));
      }
    }
    EXPECT_THAT(ParseAutotuneResults(data, text, "whole"), IsOk());
  }
}

TEST(ResultsFileTest, AlteredEntryIsDetected) {
  std::string data = SerializeAutotuneResults(Sample(2), true);
  size_t at = data.find("kc: 129");
  ASSERT_NE(at, std::string::npos);
  data.replace(at, 7, "kc: 130");
  EXPECT_THAT(ParseAutotuneResults(data, true, "f"),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("altered")));
}

TEST(ResultsFileTest, WrongVersionAndGarbage) {
  xla::AutotuneResults rs = Sample(1);
  rs.set_version(2);
  for (bool text : {true, false}) {
    EXPECT_THAT(
        ParseAutotuneResults(SerializeAutotuneResults(rs, text), text, "v2"),
        StatusIs(absl::StatusCode::kFailedPrecondition,
                 AllOf(HasSubstr("v2"), HasSubstr("version 2"))));
  }
  EXPECT_THAT(
      ParseAutotuneResults("version: 3\nresults { bogus: 1 }", true, "g.txt"),
      StatusIs(absl::StatusCode::kDataLoss, HasSubstr("g.txt:2:")));
  EXPECT_THAT(ParseAutotuneResults("\xff\xff\xff\xff garbage", false, "g.pb"),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("g.pb")));
  EXPECT_THAT(ReadAutotuneResults(TempPath("missing.pb")),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("missing.pb")));
}

// A process killed (SIGKILL) while dumping leaves the previous file whole:
// the file always parses and holds one of the complete versions written.
TEST(ResultsFileTest, KilledDumpLeavesAWholeFile) {
  for (const char* ext : {".textproto", ".pb"}) {
    std::string path = TempPath(std::string("killed") + ext);
    xla::AutotuneResults small = Sample(3), big = Sample(20000);
    ASSERT_THAT(WriteAutotuneResults(path, small), IsOk());
    for (int attempt = 0; attempt < 6; ++attempt) {
      pid_t pid = fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) {
        for (;;) {
          if (!WriteAutotuneResults(path, big).ok()) _exit(1);
          if (!WriteAutotuneResults(path, small).ok()) _exit(1);
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20 + 37 * attempt));
      ASSERT_EQ(kill(pid, SIGKILL), 0);
      int status = 0;
      ASSERT_EQ(waitpid(pid, &status, 0), pid);
      ASSERT_TRUE(WIFSIGNALED(status))
          << "the writer failed instead of being killed";
      absl::StatusOr<xla::AutotuneResults> now = ReadAutotuneResults(path);
      ASSERT_THAT(now, IsOk()) << ext << " attempt " << attempt;
      EXPECT_TRUE(now->results_size() == 3 || now->results_size() == 20000)
          << now->results_size();
    }
  }
}

}  // namespace
}  // namespace xtune
