// End-to-end tests of persistent autotuning through the `xtune` binary: the
// XLA flags (dump, load, per-fusion directory, require-complete, test path
// prefixes), bad cache files, the cache report, `xtune cache`, and many
// processes sharing one cache at once.
#include <filesystem>
#include <regex>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli_util.h"
#include "util/file.h"

namespace xtune {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr char kQuick[] =
    " --xla_gpu_cublas_fallback=false --xla_gpu_autotune_level=2";

std::string LoopModule(int n) {
  return "HloModule loop" + std::to_string(n) + "\nENTRY e {\n  a = f32[" +
         std::to_string(n) + "] parameter(0)\n  b = f32[" + std::to_string(n) +
         "] exponential(a)\n  ROOT c = f32[" + std::to_string(n) +
         "] negate(b)\n}\n";
}

constexpr char kXlaDevice[] =
    "CUDA: 8.0, Cores: 108, GPU clock: 1.41 GHz, Memory bandwidth: 1555 GB/s, "
    "L2 cache: 40 MB";

std::string XlaEntry(const std::string& hlo, int block_m) {
  return "results {\n  device: \"" + std::string(kXlaDevice) + "\"\n  hlo: \"" +
         hlo +
         "\"\n  result {\n    run_time { nanos: 1000 }\n    triton { "
         "block_m: " +
         std::to_string(block_m) +
         " block_n: 32 block_k: 32 split_k: 1 num_stages: 1 num_warps: 4 "
         "num_ctas: 1 }\n"
         "  }\n}\n";
}

std::string DataFile(const std::string& name) {
  return std::string(XTUNE_SOURCE_DIR) + "/tests/data/" + name;
}

class CacheCliTest : public CliTest {};

TEST_F(CacheCliTest, DumpThenLoadTunesNothing) {
  std::string model = Write("model.hlo", kModel);
  std::string text = dir_ + "/cache.textproto";
  Result cold = RunXtune("compile " + model + kQuick +
                         " --xla_gpu_dump_autotune_results_to=" + text);
  ASSERT_EQ(cold.exit_code, 0) << cold.output;
  EXPECT_THAT(cold.output, HasSubstr("0 from the cache, 2 tuned"));
  EXPECT_THAT(cold.output, HasSubstr("dumped 2 entries to " + text));
  absl::StatusOr<std::string> contents = ReadFile(text);
  ASSERT_TRUE(contents.ok());
  EXPECT_THAT(*contents, StartsWith("# xtune-file"));
  EXPECT_THAT(*contents, HasSubstr("version: 3"));

  // Load the text file and dump a binary one in the same compile.
  std::string binary = dir_ + "/cache.bin";
  Result warm = RunXtune("compile " + model + kQuick +
                         " --xla_gpu_load_autotune_results_from=" + text +
                         " --xla_gpu_dump_autotune_results_to=" + binary);
  ASSERT_EQ(warm.exit_code, 0) << warm.output;
  EXPECT_THAT(warm.output, HasSubstr("2 from the cache (memory 2), 0 tuned"));
  EXPECT_THAT(warm.output, HasSubstr("0 candidates compiled"));
  EXPECT_THAT(warm.output, HasSubstr("loaded 2 entries from " + text +
                                     " (0 for other devices, 0 not used)"));
  Result diff = RunXtune("cache diff " + text + " " + binary);
  EXPECT_EQ(diff.exit_code, 0) << diff.output;
  EXPECT_THAT(
      diff.output,
      HasSubstr("0 added, 0 removed, 0 changed config, 0 re-timed, 2 same"));

  // XLA_FLAGS works as well as the command line.
  Result env =
      RunXtune("compile " + model + " --xla_gpu_cublas_fallback=false",
               "XLA_FLAGS=--xla_gpu_load_autotune_results_from=" + binary);
  EXPECT_EQ(env.exit_code, 0) << env.output;
  EXPECT_THAT(env.output, HasSubstr("2 from the cache"));
}

TEST_F(CacheCliTest, BadCacheFilesAreClearErrors) {
  std::string model = Write("model.hlo", kModel);
  auto load = [&](const std::string& path) {
    return RunXtune("compile " + model +
                    " --xla_gpu_load_autotune_results_from=" + path);
  };
  Result missing = load(dir_ + "/missing.textproto");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.output, HasSubstr(dir_ + "/missing.textproto"));
  EXPECT_THAT(missing.output, HasSubstr("does not exist"));

  Result garbled =
      load(Write("garbled.textproto", "version: 3\nresults { device: \n"));
  EXPECT_EQ(garbled.exit_code, 1);
  EXPECT_THAT(garbled.output, HasSubstr("garbled.textproto"));

  Result version = load(Write("v2.textproto", "version: 2\n"));
  EXPECT_EQ(version.exit_code, 1);
  EXPECT_THAT(version.output, HasSubstr("version"));

  std::string hlo = "{\\n  tmp_0 = f32[2]{0} parameter(0)\\n}";
  Result invalid =
      load(Write("invalid.textproto", "version: 3\n" + XlaEntry(hlo, 0)));
  EXPECT_EQ(invalid.exit_code, 1);
  EXPECT_THAT(invalid.output, HasSubstr("invalid.textproto"));
  EXPECT_THAT(invalid.output, HasSubstr("block_m"));

  Result dup = load(Write(
      "dup.textproto", "version: 3\n" + XlaEntry(hlo, 32) + XlaEntry(hlo, 64)));
  EXPECT_EQ(dup.exit_code, 1);
  EXPECT_THAT(dup.output, HasSubstr("dup.textproto"));
  EXPECT_THAT(dup.output, HasSubstr("<key model='CUDA: 8.0"));
  Result same =
      load(Write("same.textproto",
                 "version: 3\n" + XlaEntry(hlo, 32) + XlaEntry(hlo, 32)));
  EXPECT_EQ(same.exit_code, 0) << same.output;

  // A truncated binary file xtune wrote.
  std::string good = dir_ + "/good.pb";
  ASSERT_EQ(RunXtune("cache convert " +
                     DataFile("test_autotune_cache.textproto") + " " + good)
                .exit_code,
            0);
  absl::StatusOr<std::string> bytes = ReadFile(good);
  ASSERT_TRUE(bytes.ok());
  Result cut = load(Write("cut.pb", bytes->substr(0, bytes->size() / 2)));
  EXPECT_EQ(cut.exit_code, 1);
  EXPECT_THAT(cut.output, HasSubstr("cut.pb"));
}

TEST_F(CacheCliTest, XlasFileLoadsAndTestPathPrefixes) {
  std::string model = Write("model.hlo", LoopModule(8));
  std::string xla_file = DataFile("test_autotune_cache.textproto");
  Result r = RunXtune("compile " + model +
                      " --xla_gpu_load_autotune_results_from=" + xla_file);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("loaded 1 entries from " + xla_file +
                                  " (1 for other devices, 1 not used)"));

  Result unset = RunXtune("compile " + model +
                              " --xla_gpu_dump_autotune_results_to=TEST_"
                              "UNDECLARED_OUTPUTS_DIR/c.textproto",
                          "env -u TEST_UNDECLARED_OUTPUTS_DIR");
  EXPECT_EQ(unset.exit_code, 1);
  EXPECT_THAT(unset.output, HasSubstr("File path can not be resolved"));
  Result no_dir = RunXtune("compile " + model +
                           " --xla_gpu_dump_autotune_results_to=" + dir_ +
                           "/missing/c.textproto");
  EXPECT_EQ(no_dir.exit_code, 1);
  EXPECT_THAT(no_dir.output, HasSubstr("is not a writable folder"));
  EXPECT_THAT(no_dir.output, Not(HasSubstr("autotuning:")));  // nothing tuned
  Result folder = RunXtune("compile " + model +
                           " --xla_gpu_dump_autotune_results_to=" + dir_);
  EXPECT_EQ(folder.exit_code, 1);
  EXPECT_THAT(folder.output, HasSubstr("it is a folder"));
  std::string corrupt = Write("corrupt.pb", "\x08\x03\xff\xff");
  Result merge = RunXtune("compile " + model +
                          " --xla_gpu_dump_autotune_results_to=" + corrupt +
                          " --xtune_dump_autotune_results_merge");
  EXPECT_EQ(merge.exit_code, 1);
  EXPECT_THAT(merge.output, HasSubstr("not a readable autotune cache"));
  EXPECT_THAT(merge.output, Not(HasSubstr("autotuning:")));
  EXPECT_EQ(*ReadFile(corrupt), "\x08\x03\xff\xff");  // left as it was
  Result set = RunXtune("compile " + model +
                            " --xla_gpu_dump_autotune_results_to=TEST_"
                            "UNDECLARED_OUTPUTS_DIR/c.textproto",
                        "TEST_UNDECLARED_OUTPUTS_DIR=" + dir_);
  EXPECT_EQ(set.exit_code, 0) << set.output;
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/c.textproto"));
  std::filesystem::create_directories(dir_ + "/src/ws");
  std::filesystem::copy_file(xla_file, dir_ + "/src/ws/x.textproto");
  Result ws = RunXtune(
      "compile " + model +
          " --xla_gpu_load_autotune_results_from=TEST_WORKSPACE/x.textproto",
      "TEST_SRCDIR=" + dir_ + "/src TEST_WORKSPACE=ws");
  EXPECT_EQ(ws.exit_code, 0) << ws.output;
  EXPECT_THAT(ws.output, HasSubstr("loaded 1 entries"));
}

TEST_F(CacheCliTest, RequireCompleteNamesTheMissingFusion) {
  std::string model = Write("model.hlo", kModel);
  Result r = RunXtune("compile " + model +
                      " --xla_gpu_require_complete_aot_autotune_results"
                      " --xla_gpu_load_autotune_results_from=" +
                      DataFile("test_autotune_cache.textproto"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output,
              HasSubstr("fusion 'gemm_fusion' with key <key model='CPU"));
  EXPECT_THAT(r.output, Not(HasSubstr("candidates compiled")));
}

TEST_F(CacheCliTest, PerFusionDirectoryAndCacheReport) {
  std::string model = Write("model.hlo", kModel);
  std::string dir = dir_ + "/per_fusion";
  Result update = RunXtune("compile " + model + kQuick +
                           " --xla_gpu_per_fusion_autotune_cache_dir=" + dir);
  ASSERT_EQ(update.exit_code, 0) << update.output;
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".textproto") ++files;
  }
  EXPECT_EQ(files, 2);
  EXPECT_TRUE(std::filesystem::is_directory(dir + "/tmp"));
  Result read = RunXtune("compile " + model + kQuick +
                         " --xla_gpu_per_fusion_autotune_cache_dir=" + dir +
                         " --xla_gpu_experimental_autotune_cache_mode=read"
                         " --xla_gpu_dump_autotune_results_to=" +
                         dir_ + "/all.textproto");
  ASSERT_EQ(read.exit_code, 0) << read.output;
  EXPECT_THAT(read.output,
              HasSubstr("2 from the cache (directory 2), 0 tuned"));
  // The dump holds the directory's hits. A module with one of those
  // fusions and a new one: the report lists the miss and the unused entry.
  std::string other = Write("other.hlo", R"hlo(HloModule other
ENTRY e {
  x = f32[16,32] parameter(0)
  w = f32[32,24] parameter(1)
  d = f32[16,24] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  n = f32[16,24] negate(d)
  y = f32[40] parameter(2)
  z = f32[40] exponential(y)
  ROOT t = (f32[16,24], f32[40]) tuple(n, z)
})hlo");
  std::string report = dir_ + "/report.txt";
  Result r = RunXtune("compile " + other + kQuick +
                      " --xla_gpu_load_autotune_results_from=" + dir_ +
                      "/all.textproto" + " --cache_report=" + report);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  absl::StatusOr<std::string> text = ReadFile(report);
  ASSERT_TRUE(text.ok());
  EXPECT_THAT(*text, HasSubstr("missed: 1\n- fusion: loop_fusion"));
  EXPECT_THAT(*text, HasSubstr("hlo: {\n    tmp_0 = f32[40]{0} parameter(0)"));
  EXPECT_THAT(*text, HasSubstr("unused: 1\n- entry\n"));
}

TEST_F(CacheCliTest, CacheSubcommandsOnXlasFile) {
  std::string xla_file = DataFile("test_autotune_cache.textproto");
  Result stats = RunXtune("cache stats " + xla_file);
  EXPECT_EQ(stats.exit_code, 0) << stats.output;
  EXPECT_THAT(stats.output, HasSubstr("1 entries (file version 3)"));
  EXPECT_THAT(stats.output, HasSubstr("1  triton"));
  Result show = RunXtune("cache show " + xla_file);
  EXPECT_THAT(show.output, HasSubstr("fusion:  bitcast f16[1,16,16] <- "
                                     "f16[1,16,17,3], s8[16,17,3] (7 ops)"));
  EXPECT_THAT(show.output, HasSubstr("config:  triton {block_m: 32"));
  EXPECT_THAT(show.output, HasSubstr("time:    31.7 us"));
  std::string pb = dir_ + "/x.pb", back = dir_ + "/x.textproto";
  EXPECT_EQ(RunXtune("cache convert " + xla_file + " " + pb).exit_code, 0);
  EXPECT_EQ(RunXtune("cache convert " + pb + " " + back).exit_code, 0);
  EXPECT_THAT(
      RunXtune("cache diff " + xla_file + " " + back).output,
      HasSubstr("0 added, 0 removed, 0 changed config, 0 re-timed, 1 same"));
  // Pruning every entry is refused unless --allow_empty.
  Result pruned = RunXtune("cache prune " + xla_file +
                           " --this_device --out=" + dir_ + "/p.pb");
  EXPECT_EQ(pruned.exit_code, 1) << pruned.output;
  EXPECT_THAT(pruned.output, HasSubstr("refusing to write"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/p.pb"));
  pruned = RunXtune("cache prune " + xla_file + " --this_device --out=" +
                    dir_ + "/p.pb --allow_empty");
  EXPECT_EQ(pruned.exit_code, 0) << pruned.output;
  EXPECT_THAT(pruned.output, HasSubstr("kept 0 entries, removed 1"));
  Result kept = RunXtune("cache prune " + xla_file + " --device='" +
                         kXlaDevice + "' --out=" + dir_ + "/q.pb");
  EXPECT_THAT(kept.output, HasSubstr("kept 1 entries, removed 0"));

  // A conflicting entry: merge refuses by default, a policy resolves it.
  std::string hlo = "{\\n  tmp_0 = f32[2]{0} parameter(0)\\n}";
  std::string a = Write("a.textproto", "version: 3\n" + XlaEntry(hlo, 32));
  std::string b = Write("b.textproto", "version: 3\n" + XlaEntry(hlo, 64));
  Result conflict =
      RunXtune("cache merge " + a + " " + b + " --out=" + dir_ + "/m.pb");
  EXPECT_EQ(conflict.exit_code, 1);
  EXPECT_THAT(conflict.output, HasSubstr("--on_conflict=faster"));
  // The conflict names the fusion's short form, not its whole text.
  EXPECT_THAT(conflict.output,
              HasSubstr("a different config for fusion parameter f32[2]"));
  EXPECT_THAT(conflict.output, Not(HasSubstr("tmp_0")));
  Result newer = RunXtune("cache merge " + a + " " + b + " " + xla_file +
                          " --on_conflict=newer --out=" + dir_ + "/m.pb");
  EXPECT_EQ(newer.exit_code, 0) << newer.output;
  EXPECT_THAT(newer.output, HasSubstr("2 entries"));
  Result differs = RunXtune("cache diff " + a + " " + dir_ + "/m.pb");
  EXPECT_THAT(differs.output, HasSubstr("1 added, 0 removed, 1 changed config"));
  EXPECT_EQ(differs.exit_code, 1);  // as diff(1)

  // Explain: the device differs, and the text (a different module).
  std::string model = Write("model.hlo", LoopModule(8));
  Result explain = RunXtune("cache explain " + model + " --cache=" + xla_file);
  EXPECT_EQ(explain.exit_code, 1) << explain.output;  // a miss
  EXPECT_THAT(
      explain.output,
      HasSubstr("miss; the nearest stored key differs in device, text"));
  EXPECT_THAT(explain.output, HasSubstr("- stored, + this fusion"));
  // The deviceless target names the device, as for `xtune compile`: XLA's
  // entry is an A100's.
  explain = RunXtune("cache explain " + model + " --cache=" + xla_file +
                     " --backend=cuda --xtune_gpu_target=a100");
  EXPECT_THAT(explain.output,
              HasSubstr("miss; the nearest stored key differs in text\n"));
  kept = RunXtune("cache prune " + xla_file +
                  " --this_device --backend=cuda --xtune_gpu_target=a100 --out=" +
                  dir_ + "/a100.pb");
  EXPECT_THAT(kept.output, HasSubstr("kept 1 entries, removed 0"));
  Result cpu_target = RunXtune("cache explain " + model + " --cache=" +
                              xla_file + " --xtune_gpu_target=a100");
  EXPECT_EQ(cpu_target.exit_code, 1);
  EXPECT_THAT(cpu_target.output, HasSubstr("not of --backend=cpu"));
  Result bad = RunXtune("cache stats " + xla_file + " --xtune_gpu_target=a100");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.output, HasSubstr("unknown flag '--xtune_gpu_target'"));
  EXPECT_EQ(RunXtune("cache frob").exit_code, 1);
  EXPECT_EQ(RunXtune("cache stats " + dir_ + "/none.pb").exit_code, 1);
}

// What a new user hit (issue 9): pruning by a part of the device string
// wiped the cache; merging two dumps of one fusion failed; a dump silently
// dropped another compile's entries; a cache for another device loaded
// quietly; `xtune cache` could not read a per-fusion directory.
TEST_F(CacheCliTest, CacheToolsLoseNothingAndSayWhy) {
  std::string model = Write("model.hlo", LoopModule(64));
  std::string cache = dir_ + "/c.textproto";
  ASSERT_EQ(RunXtune("compile " + model + kQuick +
                     " --xla_gpu_dump_autotune_results_to=" + cache)
                .exit_code,
            0);
  // The machine's device string contains "CPU": prune --device matches as
  // show --device does, by substring, and an in-place rewrite says so.
  Result in_place =
      RunXtune("cache prune " + cache + " --device=CPU --out=" + cache);
  EXPECT_EQ(in_place.exit_code, 0) << in_place.output;
  EXPECT_THAT(in_place.output, HasSubstr("kept 1 entries, removed 0; rewrote " +
                                         cache + " in place"));
  Result wipe =
      RunXtune("cache prune " + cache + " --device=EPYC-9999 --out=" + cache);
  EXPECT_EQ(wipe.exit_code, 1) << wipe.output;
  EXPECT_THAT(wipe.output, HasSubstr("it would remove all 1 (by device and "
                                     "version):\n    1  version "));
  EXPECT_THAT(RunXtune("cache stats " + cache).output, HasSubstr("1 entries"));

  // A second tuning of the same fusion: same config, another time.
  std::string again = dir_ + "/again.textproto";
  ASSERT_EQ(RunXtune("compile " + model + kQuick +
                     " --config=loop_fusion:vector_width=8"
                     " --xla_gpu_dump_autotune_results_to=" + again)
                .exit_code,
            0);
  std::string retimed = dir_ + "/retimed.textproto";
  ASSERT_TRUE(WriteFileAtomically(
                  retimed, absl::StrReplaceAll(*ReadFile(cache),
                                               {{"nanos: ", "nanos: 1"}}))
                  .ok());
  // (the integrity lines no longer match: drop them, as a hand edit would)
  std::string edited;
  for (absl::string_view line : absl::StrSplit(*ReadFile(retimed), '\n')) {
    if (!absl::StartsWith(line, "# xtune-")) absl::StrAppend(&edited, line, "\n");
  }
  ASSERT_TRUE(WriteFileAtomically(retimed, edited).ok());
  Result merged = RunXtune("cache merge " + cache + " " + retimed +
                           " --out=" + dir_ + "/m.textproto");
  EXPECT_EQ(merged.exit_code, 0) << merged.output;
  EXPECT_THAT(merged.output, HasSubstr("1 with the same config re-timed"));

  // Another module dumping into the same file without merging: the dump
  // says what it dropped and which flag keeps it.
  std::string other = Write("other.hlo", LoopModule(96));
  Result dropped = RunXtune("compile " + other + kQuick +
                            " --xla_gpu_dump_autotune_results_to=" + cache);
  EXPECT_EQ(dropped.exit_code, 0) << dropped.output;
  EXPECT_THAT(dropped.output,
              HasSubstr("dropping 1 entries it held that this process did "
                        "not have"));
  EXPECT_THAT(dropped.output, HasSubstr("--xtune_dump_autotune_results_merge"));
  // Two compiles at once, each dumping its own module into one file: the
  // dumps take turns under the lock, and the later one says what it drops.
  std::string shared = dir_ + "/shared.textproto";
  std::string third = Write("third.hlo", LoopModule(128));
  Result both = RunShell(
      std::string(XTUNE_BINARY) + " compile " + model + kQuick +
      " --xla_gpu_dump_autotune_results_to=" + shared + " 2>&1 & " +
      std::string(XTUNE_BINARY) + " compile " + third + kQuick +
      " --xla_gpu_dump_autotune_results_to=" + shared + " 2>&1; wait");
  EXPECT_THAT(both.output, HasSubstr("dropping 1 entries")) << both.output;
  // Dumping again from the same process state drops nothing new.
  Result same = RunXtune("compile " + other + kQuick +
                         " --xla_gpu_load_autotune_results_from=" + cache +
                         " --xla_gpu_dump_autotune_results_to=" + cache);
  EXPECT_THAT(same.output, Not(HasSubstr("dropping")));

  // A cache of another device loads, loudly.
  std::string hlo = "{\\n  tmp_0 = f32[2]{0} parameter(0)\\n}";
  std::string gpu = Write("gpu.textproto", "version: 3\n" + XlaEntry(hlo, 32));
  Result foreign = RunXtune("compile " + other + kQuick +
                            " --xla_gpu_load_autotune_results_from=" + gpu);
  EXPECT_EQ(foreign.exit_code, 0) << foreign.output;
  EXPECT_THAT(foreign.output, HasSubstr("none of the 1 entries loaded from"));
  EXPECT_THAT(foreign.output, HasSubstr(kXlaDevice));

  // `xtune cache` reads a per-fusion directory written by xtune.
  std::string pdir = dir_ + "/per_fusion";
  ASSERT_EQ(RunXtune("compile " + other + kQuick +
                     " --xla_gpu_per_fusion_autotune_cache_dir=" + pdir)
                .exit_code,
            0);
  Result listed = RunXtune("cache stats " + pdir);
  EXPECT_EQ(listed.exit_code, 0) << listed.output;
  EXPECT_THAT(listed.output, HasSubstr("1 entries"));
  Result exported = RunXtune("cache convert " + pdir + " " + dir_ + "/d.pb");
  EXPECT_EQ(exported.exit_code, 0) << exported.output;
  Result hit = RunXtune("cache explain " + other + " --cache=" + pdir);
  EXPECT_EQ(hit.exit_code, 0) << hit.output;
  EXPECT_THAT(hit.output, HasSubstr("hit"));
  // A file XLA wrote (no key comments) is skipped and counted; a damaged
  // one is an error naming it.
  ASSERT_TRUE(WriteFileAtomically(pdir + "/xla.textproto",
                                  "run_time { nanos: 5 }\n")
                  .ok());
  Result skipped = RunXtune("cache stats " + pdir);
  EXPECT_EQ(skipped.exit_code, 0) << skipped.output;
  EXPECT_THAT(skipped.output, HasSubstr("skipped 1 files without a key"));
  ASSERT_TRUE(WriteFileAtomically(pdir + "/bad.textproto", "garbage\n").ok());
  Result damaged = RunXtune("cache stats " + pdir);
  EXPECT_EQ(damaged.exit_code, 1) << damaged.output;
  EXPECT_THAT(damaged.output, HasSubstr("bad.textproto: not a valid "
                                        "AutotuneResult textproto"));
}

// Eight compiles at once, each dumping (merge mode) into one file and
// writing one per-fusion directory: every entry survives, every file parses.
TEST_F(CacheCliTest, EightProcessesShareOneCacheFileAndDirectory) {
  std::string script;
  for (int i = 0; i < 8; ++i) {
    std::string model =
        Write("m" + std::to_string(i) + ".hlo", LoopModule(16 + i));
    script +=
        std::string(XTUNE_BINARY) + " compile " + model +
        " --xla_gpu_autotune_level=1 --xla_gpu_force_compilation_parallelism=1"
        " --xla_gpu_dump_autotune_results_to=" +
        dir_ +
        "/shared.pb"
        " --xtune_dump_autotune_results_merge"
        " --xla_gpu_per_fusion_autotune_cache_dir=" +
        dir_ + "/dir > " + dir_ + "/log" + std::to_string(i) +
        " 2>&1 || echo FAILED " + std::to_string(i) + " &\n";
  }
  script += "wait\n";
  std::string path = Write("run.sh", script);
  std::string out = RunShell("sh " + path).output;
  EXPECT_THAT(out, Not(HasSubstr("FAILED")));
  Result stats = RunXtune("cache stats " + dir_ + "/shared.pb");
  EXPECT_EQ(stats.exit_code, 0) << stats.output;
  EXPECT_THAT(stats.output, HasSubstr("8 entries"));
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir_ + "/dir")) {
    if (e.path().extension() != ".textproto") continue;
    ++files;
    // Each per-fusion file is one whole AutotuneResult.
    absl::StatusOr<std::string> text = ReadFile(e.path());
    ASSERT_TRUE(text.ok());
    EXPECT_THAT(*text, HasSubstr("cpu_streaming"));
  }
  EXPECT_EQ(files, 8);
  EXPECT_TRUE(std::filesystem::is_empty(dir_ + "/dir/tmp"));
}

// XLA's key for a fusion that calls a computation (a reducer) leaves the
// computation out: an entry in that form is used by compile and named by
// explain.
TEST_F(CacheCliTest, EntriesUnderXlasKeyFormAreUsedAndExplained) {
  std::string model = Write("reduce.hlo", R"hlo(HloModule r
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[8,16] parameter(0)
  e = f32[8,16] exponential(x)
  zero = f32[] constant(0)
  ROOT r = f32[8] reduce(e, zero), dimensions={1}, to_apply=add
})hlo");
  std::string ours = dir_ + "/ours.textproto";
  ASSERT_EQ(RunXtune("compile " + model + kQuick +
                     " --xla_gpu_dump_autotune_results_to=" + ours)
                .exit_code,
            0);
  absl::StatusOr<std::string> text = ReadFile(ours);
  ASSERT_THAT(text, ::xtune::testing::IsOk());
  // The reducer's body, as xtune's key prints it, removed: XLA's form.
  std::string xla_form = std::regex_replace(
      *text, std::regex(R"(, to_apply=\\n  \{.*?\\n  \})"), "");
  ASSERT_NE(xla_form, *text);
  ASSERT_THAT(xla_form, Not(HasSubstr("to_apply")));
  // Without xtune's header and check: as XLA would write it.
  std::string body = std::regex_replace(
      xla_form.substr(xla_form.find("version: 3")),
      std::regex("# xtune-check:[^\n]*\n"), "");
  std::string cache = Write("xla_form.textproto", body);
  Result used = RunXtune("compile " + model + kQuick +
                         " --xla_gpu_require_complete_aot_autotune_results"
                         " --xla_gpu_load_autotune_results_from=" + cache);
  EXPECT_EQ(used.exit_code, 0) << used.output;
  EXPECT_THAT(used.output, HasSubstr("1 from the cache"));
  Result explain = RunXtune("cache explain " + model + " --cache=" + cache);
  EXPECT_EQ(explain.exit_code, 0) << explain.output;
  EXPECT_THAT(explain.output,
              HasSubstr("hit in XLA's key form (without the called "
                        "computations): cpu_streaming {"));
}

}  // namespace
}  // namespace xtune
