// xtune's public C++ API: compile an HLO module for the CPU backend with
// persistent autotuning, and run it.
//
// Options come from XLA's flags exactly as an XLA program reads them: the
// XLA_FLAGS environment variable, then flags passed to Compiler::Create
// (which win). So a GoogleTest using this API honours
//   XLA_FLAGS=--xla_gpu_load_autotune_results_from=cache.textproto
//   XLA_FLAGS=--xla_gpu_dump_autotune_results_to=TEST_UNDECLARED_OUTPUTS_DIR/c.textproto
// like an XLA test does (see docs/persistent_autotuning.md).
//
//   #include "xtune/testing.h"  // ASSERT_OK, ASSERT_OK_AND_ASSIGN
//
//   ASSERT_OK_AND_ASSIGN(auto compiler, xtune::Compiler::Create());
//   ASSERT_OK_AND_ASSIGN(auto program, compiler->CompileFile("model.hlo"));
//   if (!xtune::testing::UpdatingAutotuneCaches()) {
//     EXPECT_EQ(program->stats().tuned, 0);  // everything came from the cache
//   }
//   ASSERT_OK(program->RunAndVerify());
#ifndef XTUNE_INCLUDE_XTUNE_COMPILER_H_
#define XTUNE_INCLUDE_XTUNE_COMPILER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xtune {

// A dense array: dimensions and values in logical row-major order, as
// doubles whatever the element type (converted on the way in and out).
struct Array {
  std::vector<int64_t> dims;
  std::vector<double> values;
};

// What one compile did.
struct CompileStats {
  int fusions = 0;
  int cache_hits = 0;   // configs taken from the autotune cache
  int tuned = 0;        // fusions the cache missed, tuned now
  int defaults = 0;     // default configs (autotuning level 0)
  std::string summary;  // the one-line summary the CLI prints
};

class Program {
 public:
  ~Program();
  const CompileStats& stats() const;
  // Runs on `args`, one per parameter of the entry computation. Returns one
  // Array per output (the elements of a tuple result, in order).
  // InvalidArgument for a wrong number of arguments or element count.
  absl::StatusOr<std::vector<Array>> Run(const std::vector<Array>& args);
  // Runs on xtune's deterministic pseudo-random inputs (`seed`) and checks
  // the outputs against the reference interpreter (XLA's tolerances).
  absl::Status RunAndVerify(uint64_t seed = 0);

 private:
  friend class Compiler;
  struct Impl;
  explicit Program(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

class Compiler {
 public:
  ~Compiler();
  // Reads XLA_FLAGS, then `flags` ("--xla_gpu_autotune_level=0", ...; they
  // win), and loads --xla_gpu_load_autotune_results_from. As in XLA the
  // autotune cache is per process: compilers with the same cache flags
  // share it (the file is loaded once; every dump holds all their results).
  // Errors: InvalidArgument for a bad or unknown flag in `flags` (unknown flags
  // in XLA_FLAGS are warnings), the load errors of the cache file (naming it).
  static absl::StatusOr<std::unique_ptr<Compiler>> Create(
      const std::vector<std::string>& flags = {});

  // Fuses, autotunes (cache first) and compiles; dumps the cache when
  // --xla_gpu_dump_autotune_results_to is set. Errors name the module.
  absl::StatusOr<std::unique_ptr<Program>> CompileText(
      absl::string_view hlo_text, absl::string_view name = "<module>");
  absl::StatusOr<std::unique_ptr<Program>> CompileFile(const std::string& path);

 private:
  struct Impl;
  explicit Compiler(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace xtune

#endif  // XTUNE_INCLUDE_XTUNE_COMPILER_H_
