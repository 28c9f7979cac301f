// xtune's public C++ API: compile an HLO module with persistent autotuning
// on a backend (the CPU by default), and run it.
//
// Options come either from a CompilerOptions struct (xtune/options.h) or
// from XLA's flags exactly as an XLA program reads them: the XLA_FLAGS
// environment variable, then flags passed to Compiler::Create (which win).
// So a GoogleTest using this API honours
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
//
// Thread-safety: a Compiler may be used from several threads (its compiles
// run one at a time on its one backend); Compilers with the same cache
// options share one process-wide cache, safely. A Program is
// thread-compatible: one Run at a time. Array is a value type.
#ifndef XTUNE_INCLUDE_XTUNE_COMPILER_H_
#define XTUNE_INCLUDE_XTUNE_COMPILER_H_

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xtune/options.h"

namespace xtune {

// The element types of arrays, as HLO spells them (pred, s8, ... f64, and
// the 8-bit floats f8e4m3fn ... f8e4m3b11fnuz, one byte each: pass their
// codes with FromBytes, or doubles, which are rounded to the type).
enum class ElementType {
  kPred, kS8, kS32, kS64, kU8, kU32, kF16, kBF16, kF32, kF64, kS16, kU16,
  kU64, kF8E4M3FN, kF8E5M2, kF8E4M3FNUZ, kF8E5M2FNUZ, kF8E4M3B11FNUZ
};
const char* ElementTypeName(ElementType type);  // "f32", ...
int ElementTypeBytes(ElementType type);

// A dense array in logical row-major order. A typed array holds its
// elements exactly, as bytes of its element type (so s64 values beyond
// 2^53 survive); an array made from doubles is untyped and takes the
// parameter's type when passed to Run (exact for floats and for integers up
// to 2^53). Outputs are always typed.
class Array {
 public:
  Array() = default;
  // Untyped: `values` are converted to the parameter's element type.
  Array(std::vector<int64_t> dims, std::vector<double> values)
      : dims_(std::move(dims)), doubles_(std::move(values)) {}

  // A typed array of C++ values: T is bool (pred), int8_t, int32_t,
  // int64_t, uint8_t, uint32_t, float or double. For f16, bf16 and the
  // 8-bit floats use FromBytes with their bit patterns.
  template <typename T>
  static Array Of(std::vector<int64_t> dims, const std::vector<T>& values);
  // A typed array of raw little-endian elements (ElementTypeBytes each).
  static Array FromBytes(ElementType type, std::vector<int64_t> dims,
                         std::vector<uint8_t> bytes);

  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t element_count() const;
  bool typed() const { return typed_; }
  // The element type (kF64 for an untyped array).
  ElementType type() const { return typed_ ? type_ : ElementType::kF64; }
  // The raw elements of a typed array (empty for an untyped one).
  const std::vector<uint8_t>& bytes() const { return bytes_; }
  // The elements as doubles (exact for every type but s64 beyond 2^53).
  std::vector<double> values() const;
  // The elements as T, which must be the C++ type of type() (see Of);
  // InvalidArgument otherwise.
  template <typename T>
  absl::StatusOr<std::vector<T>> As() const;

 private:
  template <typename T>
  static bool TypeOf(ElementType* type);

  std::vector<int64_t> dims_;
  std::vector<double> doubles_;  // untyped arrays
  bool typed_ = false;
  ElementType type_ = ElementType::kF64;
  std::vector<uint8_t> bytes_;   // typed arrays
};

// What one compile did.
struct CompileStats {
  int fusions = 0;
  int cache_hits = 0;   // configs taken from the autotune cache
  int tuned = 0;        // fusions the cache missed, tuned now
  int defaults = 0;     // default configs (autotuning level 0, interpreter)
  std::string summary;  // the one-line summary the CLI prints
};

// An entry parameter: its name, element type and dimensions (tuple
// parameters, which Run does not take, have tuple = true and no dims).
struct ParameterShape {
  std::string name;
  ElementType type = ElementType::kF32;
  std::vector<int64_t> dims;
  bool tuple = false;
};

class Program {
 public:
  ~Program();
  const CompileStats& stats() const;
  // The entry computation's parameters, in order: what Run takes.
  std::vector<ParameterShape> parameters() const;
  // Runs on `args`, one per parameter of the entry computation. Returns one
  // typed Array per output (the elements of a tuple result, in order).
  // InvalidArgument for a wrong number of arguments, wrong dimensions or a
  // typed argument of the wrong element type.
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

// XLA_FLAGS (unknown flags there are warnings on stderr), then `flags`
// ("--xla_gpu_autotune_level=0", ...; they win), as options. The backend
// stays "cpu". InvalidArgument for a bad flag, or an unknown one in `flags`.
absl::StatusOr<CompilerOptions> CompilerOptionsFromFlags(
    const std::vector<std::string>& flags = {});

class Compiler {
 public:
  ~Compiler();
  // CompilerOptionsFromFlags(flags), then Create(options).
  static absl::StatusOr<std::unique_ptr<Compiler>> Create(
      const std::vector<std::string>& flags = {});
  // Makes the backend and opens the persistent cache. As in XLA the
  // autotune cache is per process: compilers with the same cache options
  // (paths compared resolved and absolute) share it — the file is loaded
  // once, every dump holds all their results. Errors: the backend's
  // (unknown name, unavailable: the reason), the load errors of the cache
  // file (naming it).
  static absl::StatusOr<std::unique_ptr<Compiler>> Create(
      const CompilerOptions& options);

  // Fuses, autotunes (cache first) and compiles; dumps the cache when
  // asked (cache.dump_to). Errors name the module.
  absl::StatusOr<std::unique_ptr<Program>> CompileText(
      absl::string_view hlo_text, absl::string_view name = "<module>");
  absl::StatusOr<std::unique_ptr<Program>> CompileFile(const std::string& path);

  // The in-memory autotune cache (loaded and tuned entries) as an
  // AutotuneResults file's bytes — textproto or binary — like XLA's
  // AutotunerUtil::SerializeAutotuneResults.
  absl::StatusOr<std::string> SerializeAutotuneResults(
      bool as_textproto = false) const;
  // Adds the entries of `data` (AutotuneResults, textproto or binary) to
  // the in-memory cache, like XLA's AutotunerUtil::LoadAutotuneResults.
  // All or nothing. Errors: DataLoss for bytes that do not parse,
  // FailedPrecondition for a version other than 3, InvalidArgument for an
  // invalid config or a key already present with a different result.
  absl::Status LoadAutotuneResults(absl::string_view data, bool as_textproto);

  const CompilerOptions& options() const;

 private:
  struct Impl;
  explicit Compiler(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// ---- Template definitions.

template <typename T>
bool Array::TypeOf(ElementType* type) {
  if constexpr (std::is_same_v<T, bool>) {
    *type = ElementType::kPred;
  } else if constexpr (std::is_same_v<T, int8_t>) {
    *type = ElementType::kS8;
  } else if constexpr (std::is_same_v<T, int32_t>) {
    *type = ElementType::kS32;
  } else if constexpr (std::is_same_v<T, int64_t>) {
    *type = ElementType::kS64;
  } else if constexpr (std::is_same_v<T, uint8_t>) {
    *type = ElementType::kU8;
  } else if constexpr (std::is_same_v<T, int16_t>) {
    *type = ElementType::kS16;
  } else if constexpr (std::is_same_v<T, uint16_t>) {
    *type = ElementType::kU16;
  } else if constexpr (std::is_same_v<T, uint32_t>) {
    *type = ElementType::kU32;
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    *type = ElementType::kU64;
  } else if constexpr (std::is_same_v<T, float>) {
    *type = ElementType::kF32;
  } else if constexpr (std::is_same_v<T, double>) {
    *type = ElementType::kF64;
  } else {
    return false;
  }
  return true;
}

template <typename T>
Array Array::Of(std::vector<int64_t> dims, const std::vector<T>& values) {
  static_assert(
      std::is_same_v<T, bool> || std::is_same_v<T, int8_t> ||
          std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t> ||
          std::is_same_v<T, uint8_t> || std::is_same_v<T, uint32_t> ||
          std::is_same_v<T, float> || std::is_same_v<T, double>,
      "Array::Of takes bool, int8_t, int32_t, int64_t, uint8_t, uint32_t, "
      "float or double (f16/bf16: FromBytes)");
  ElementType type = ElementType::kF64;
  bool known = TypeOf<T>(&type);
  Array a;
  a.dims_ = std::move(dims);
  a.typed_ = known;
  a.type_ = type;
  a.bytes_.resize(values.size() * ElementTypeBytes(type));
  for (size_t i = 0; i < values.size(); ++i) {
    if constexpr (std::is_same_v<T, bool>) {
      a.bytes_[i] = values[i] ? 1 : 0;
    } else {
      std::memcpy(a.bytes_.data() + i * sizeof(T), &values[i], sizeof(T));
    }
  }
  return a;
}

template <typename T>
absl::StatusOr<std::vector<T>> Array::As() const {
  ElementType want;
  if (!TypeOf<T>(&want) || !typed_ || want != type_) {
    return absl::InvalidArgumentError(
        std::string("Array::As: the array holds ") +
        ElementTypeName(type()) + (typed_ ? "" : " (untyped)"));
  }
  std::vector<T> out(static_cast<size_t>(element_count()));
  for (size_t i = 0; i < out.size(); ++i) {
    if constexpr (std::is_same_v<T, bool>) {
      out[i] = bytes_[i] != 0;
    } else {
      std::memcpy(&out[i], bytes_.data() + i * sizeof(T), sizeof(T));
    }
  }
  return out;
}

}  // namespace xtune

#endif  // XTUNE_INCLUDE_XTUNE_COMPILER_H_
