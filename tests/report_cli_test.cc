// `xtune report` end to end: a page from a real tuning run, and the bad
// inputs a careless user gives (no output, a missing cache, a results file
// or a truncated log given as a log), each a clear error that leaves an
// existing page alone.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli_util.h"
#include "util/file.h"

namespace xtune {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class ReportCliTest : public CliTest {};

TEST_F(ReportCliTest, APageFromARealRunAndClearErrors) {
  const std::string module = Write("model.hlo", kModel);
  const std::string cache = dir_ + "/cache.textproto", log = dir_ + "/tuning.log";
  Result r = RunXtune("compile " + module + " --xla_gpu_autotune_level=2 --xla_gpu_dump_autotune_results_to=" +
               cache + " --xla_gpu_dump_autotune_logs_to=" + log);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string page = dir_ + "/report.html";
  r = RunXtune("report " + cache + " " + log + " --output=" + page);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("wrote " + page + ": 2 tuned fusions from 1 logs; 2 cache "
                                  "entries, 0 stale"));
  absl::StatusOr<std::string> html = ReadFile(page);
  ASSERT_TRUE(html.ok());
  absl::StatusOr<std::string> log_text = ReadFile(log);
  ASSERT_TRUE(log_text.ok());
  // Every fusion of the log has its section, and the cache holds each.
  int fusions = 0;
  for (size_t at = log_text->find("\n  fusion: \""); at != std::string::npos;
       at = log_text->find("\n  fusion: \"", at + 1)) {
    size_t start = at + 12, end = log_text->find('"', start);
    std::string name = log_text->substr(start, end - start);
    EXPECT_THAT(*html, HasSubstr("data-fusion=\"" + name + "\"")) << name;
    ++fusions;
  }
  EXPECT_EQ(fusions, 2);
  EXPECT_THAT(*html, Not(HasSubstr("Not in the cache")));
  EXPECT_THAT(*html, HasSubstr("<svg class=\"dist\""));

  // A cache alone.
  r = RunXtune("report " + cache + " --output=" + dir_ + "/cache.html");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("0 tuned fusions from 0 logs; 2 cache entries"));

  // Bad inputs: exit 1, a message, and the page from before untouched.
  struct Bad {
    std::string args, message;
  };
  const std::string truncated = Write("truncated.log", log_text->substr(0, log_text->size() / 2));
  for (const Bad& bad : std::vector<Bad>{
           {cache + " " + log, "needs --output=FILE.html"},
           {"", "takes a CACHE"},
           {dir_ + "/missing.textproto --output=" + page, "does not exist"},
           {cache + " " + dir_ + "/missing.log --output=" + page, "cannot read the log"},
           {cache + " " + cache + " --output=" + page, "cache.textproto:2:"},
           {cache + " " + truncated + " --output=" + page, "truncated.log:"},
           {cache + " --output=" + page + " --bogus", "bogus"},
           {cache + " --output=" + page + " --xla_gpu_autotune_level=2", "unknown flag"},
           {cache + " --output=" + page + " --backend=tpu", "tpu"},
           {cache + " --output=" + dir_, ""},
       }) {
    Result b = RunXtune("report " + bad.args);
    EXPECT_EQ(b.exit_code, 1) << bad.args << "\n" << b.output;
    EXPECT_THAT(b.output, HasSubstr(bad.message)) << bad.args;
    EXPECT_THAT(b.output, HasSubstr("xtune report: ")) << bad.args;
  }
  absl::StatusOr<std::string> after = ReadFile(page);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(*after, *html);

  r = RunXtune("help report");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("usage: xtune report CACHE [LOG...] --output=FILE.html"));
}

}  // namespace
}  // namespace xtune
