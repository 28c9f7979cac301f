// The public API (include/xtune/compiler.h) over compiler/compile.h.
#include <map>

#include "absl/strings/str_cat.h"
#include "util/mutex.h"
#include "cache/results_file.h"
#include "codegen/codegen_version.h"
#include "compiler/compile.h"
#include "eval/evaluator.h"
#include "ir/parser.h"
#include "runtime/compare.h"
#include "runtime/random_inputs.h"
#include "util/file.h"
#include "util/status_macros.h"
#include "xtune/compiler.h"

namespace xtune {

struct Program::Impl {
  std::shared_ptr<Backend> backend;  // outlives the executable
  std::unique_ptr<Module> module;    // the module as given (for the reference)
  CompiledModule compiled;
  CompileStats stats;
  bool excess_precision = true;  // --xla_allow_excess_precision
  bool tf32_dots = false;        // Backend::Tf32Dots
};

struct Compiler::Impl {
  CompilerOptions options;
  XlaFlags flags;  // options.autotune and options.cache, for compile.h
  std::shared_ptr<AutotuneCacheSession> session;
  // One backend for every compile of this Compiler (and for the executables
  // they make: Programs share it).
  std::shared_ptr<Backend> backend;
  Mutex compile_mu;  // one compile at a time on the backend
};

namespace {

// Like XLA's, the autotune cache is per process: every Compiler with the
// same cache options shares one session (the file is loaded once, and each
// dump holds what all of them tuned).
absl::StatusOr<std::shared_ptr<AutotuneCacheSession>> SharedSession(
    const PersistentCacheOptions& o) {
  static Mutex mu(absl::kConstInit);
  static auto* sessions =
      new std::map<std::string, std::shared_ptr<AutotuneCacheSession>>();
  // "a.pb" and "./a.pb" are one session (one file, one dump).
  XTUNE_ASSIGN_OR_RETURN(std::string id, SessionKey(o));
  MutexLock lock(&mu);
  auto it = sessions->find(id);
  if (it != sessions->end()) return it->second;
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<AutotuneCacheSession> session,
                         AutotuneCacheSession::Open(o, kCodegenVersion));
  std::shared_ptr<AutotuneCacheSession> shared = std::move(session);
  (*sessions)[id] = shared;
  return shared;
}

constexpr struct {
  ElementType type;
  DType dtype;
} kTypes[] = {
    {ElementType::kPred, DType::kPred}, {ElementType::kS8, DType::kS8},
    {ElementType::kS32, DType::kS32},   {ElementType::kS64, DType::kS64},
    {ElementType::kU8, DType::kU8},     {ElementType::kU32, DType::kU32},
    {ElementType::kF16, DType::kF16},   {ElementType::kBF16, DType::kBF16},
    {ElementType::kF32, DType::kF32},   {ElementType::kF64, DType::kF64},
    {ElementType::kS16, DType::kS16},   {ElementType::kU16, DType::kU16},
    {ElementType::kU64, DType::kU64},
    {ElementType::kF8E4M3FN, DType::kF8E4M3FN},
    {ElementType::kF8E5M2, DType::kF8E5M2},
    {ElementType::kF8E4M3FNUZ, DType::kF8E4M3FNUZ},
    {ElementType::kF8E5M2FNUZ, DType::kF8E5M2FNUZ},
    {ElementType::kF8E4M3B11FNUZ, DType::kF8E4M3B11FNUZ},
};

DType DTypeOf(ElementType t) {
  for (const auto& e : kTypes) {
    if (e.type == t) return e.dtype;
  }
  return DType::kF64;
}

ElementType ElementTypeOf(DType t) {
  for (const auto& e : kTypes) {
    if (e.dtype == t) return e.type;
  }
  return ElementType::kF64;
}

void Flatten(const Literal& l, std::vector<Array>* out) {
  if (l.IsTuple()) {
    for (const Literal& e : l.elements()) Flatten(e, out);
    return;
  }
  // Logical row-major order, whatever the layout.
  Literal row_major = l.shape().HasDefaultLayout()
                          ? l
                          : l.Relayout(DefaultLayout(l.shape().rank()));
  out->push_back(Array::FromBytes(
      ElementTypeOf(l.shape().dtype()), l.shape().dims(),
      std::vector<uint8_t>(row_major.bytes().begin(), row_major.bytes().end())));
}

}  // namespace

const char* ElementTypeName(ElementType type) {
  return DTypeName(DTypeOf(type)).data();  // static, NUL-terminated
}

int ElementTypeBytes(ElementType type) {
  return static_cast<int>(DTypeByteSize(DTypeOf(type)));
}

Array Array::FromBytes(ElementType type, std::vector<int64_t> dims,
                       std::vector<uint8_t> bytes) {
  Array a;
  a.dims_ = std::move(dims);
  a.typed_ = true;
  a.type_ = type;
  a.bytes_ = std::move(bytes);
  return a;
}

int64_t Array::element_count() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

std::vector<double> Array::values() const {
  if (!typed_) return doubles_;
  Literal l(Shape(DTypeOf(type_), dims_));
  if (static_cast<int64_t>(bytes_.size()) != l.shape().ByteSize()) return {};
  std::memcpy(l.bytes().data(), bytes_.data(), bytes_.size());
  std::vector<double> out(static_cast<size_t>(l.element_count()));
  for (int64_t i = 0; i < l.element_count(); ++i) out[i] = l.GetDouble(i);
  return out;
}

Program::Program(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Program::~Program() = default;
const CompileStats& Program::stats() const { return impl_->stats; }

std::vector<ParameterShape> Program::parameters() const {
  std::vector<ParameterShape> out;
  for (const Instruction* p : impl_->module->entry()->parameters()) {
    ParameterShape s;
    s.name = p->name();
    s.tuple = p->shape().IsTuple();
    if (!s.tuple) {
      s.type = ElementTypeOf(p->shape().dtype());
      s.dims = p->shape().dims();
    }
    out.push_back(std::move(s));
  }
  return out;
}

absl::StatusOr<std::vector<Array>> Program::Run(
    const std::vector<Array>& args) {
  const Computation& entry = *impl_->module->entry();
  if (static_cast<int64_t>(args.size()) != entry.parameter_count()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "got ", args.size(), " arguments, the entry computation has ",
        entry.parameter_count(), " parameters"));
  }
  std::vector<Literal> literals;
  for (size_t i = 0; i < args.size(); ++i) {
    const Shape& shape = entry.parameter(i)->shape();
    if (shape.IsTuple()) {
      return absl::InvalidArgumentError(
          "tuple parameters are not supported by the API");
    }
    const Array& a = args[i];
    if (a.dims() != shape.dims() ||
        a.element_count() != shape.ElementCount() ||
        (!a.typed() &&
         static_cast<int64_t>(a.values().size()) != shape.ElementCount())) {
      return absl::InvalidArgumentError(
          absl::StrCat("argument ", i, " does not match parameter shape ",
                       shape.ToString(false)));
    }
    // Filled in logical row-major order, then laid out as the parameter.
    Literal row_major(Shape(shape.dtype(), shape.dims()));
    if (a.typed()) {
      if (DTypeOf(a.type()) != shape.dtype()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "argument ", i, " holds ", ElementTypeName(a.type()),
            " but the parameter is ", shape.ToString(false)));
      }
      if (static_cast<int64_t>(a.bytes().size()) != shape.ByteSize()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "argument ", i, " has ", a.bytes().size(), " bytes, expected ",
            shape.ByteSize()));
      }
      std::memcpy(row_major.bytes().data(), a.bytes().data(), a.bytes().size());
    } else {
      std::vector<double> v = a.values();
      for (int64_t j = 0; j < shape.ElementCount(); ++j) {
        row_major.SetDouble(j, v[j]);
      }
    }
    literals.push_back(shape.HasDefaultLayout()
                           ? std::move(row_major)
                           : row_major.Relayout(shape.minor_to_major()));
  }
  XTUNE_ASSIGN_OR_RETURN(Literal result,
                         impl_->compiled.executable->Run(literals));
  std::vector<Array> out;
  Flatten(result, &out);
  return out;
}

absl::Status Program::RunAndVerify(uint64_t seed) {
  std::vector<Literal> inputs = RandomArguments(*impl_->module, seed);
  XTUNE_ASSIGN_OR_RETURN(Literal actual,
                         impl_->compiled.executable->Run(inputs));
  // Like with like (excess precision): the fused module, whose fusion
  // outputs are rounded to their type as the kernels store them.
  EvaluatorOptions eval_options;
  eval_options.excess_precision = impl_->excess_precision;
  eval_options.tf32_dots = impl_->tf32_dots;
  XTUNE_ASSIGN_OR_RETURN(
      Literal expected,
      Evaluate(eval_options.excess_precision
                   ? impl_->compiled.executable->module()
                   : *impl_->module,
               inputs, eval_options));
  return CompareLiterals(expected, actual, "the compiled module's output",
                         VerifyTolerance(*impl_->module, impl_->tf32_dots));
}

absl::StatusOr<CompilerOptions> CompilerOptionsFromFlags(
    const std::vector<std::string>& flags) {
  XlaFlags xla;
  XTUNE_RETURN_IF_ERROR(ApplyXlaFlagsFromEnvironment(&xla));
  XTUNE_RETURN_IF_ERROR(ApplyXlaFlagArgs(flags, &xla));
  CompilerOptions options;
  options.autotune = xla.autotune;
  options.cache = xla.cache;
  return options;
}

Compiler::Compiler(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Compiler::~Compiler() = default;

absl::StatusOr<std::unique_ptr<Compiler>> Compiler::Create(
    const std::vector<std::string>& flags) {
  XTUNE_ASSIGN_OR_RETURN(CompilerOptions options,
                         CompilerOptionsFromFlags(flags));
  return Create(options);
}

absl::StatusOr<std::unique_ptr<Compiler>> Compiler::Create(
    const CompilerOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->flags.autotune = options.autotune;
  impl->flags.cache = options.cache;
  XTUNE_ASSIGN_OR_RETURN(impl->backend,
                         CreateBackendFor(options.backend, impl->flags));
  XTUNE_ASSIGN_OR_RETURN(impl->session, SharedSession(impl->flags.cache));
  return std::unique_ptr<Compiler>(new Compiler(std::move(impl)));
}

const CompilerOptions& Compiler::options() const { return impl_->options; }

absl::StatusOr<std::unique_ptr<Program>> Compiler::CompileText(
    absl::string_view hlo_text, absl::string_view name) {
  auto impl = std::make_unique<Program::Impl>();
  XTUNE_ASSIGN_OR_RETURN(impl->module, ParseModule(hlo_text, name));
  impl->backend = impl_->backend;
  {
    MutexLock lock(&impl_->compile_mu);
    XTUNE_ASSIGN_OR_RETURN(
        impl->compiled, CompileModule(*impl->module, impl_->backend.get(),
                                      impl_->flags, {}, impl_->session.get()));
  }
  impl->excess_precision = impl_->backend->ExcessPrecision();
  impl->tf32_dots = impl_->backend->Tf32Dots();
  const TuningStats& s = impl->compiled.tuning.stats;
  impl->stats.fusions = s.fusions;
  impl->stats.cache_hits = s.cache_hits;
  impl->stats.tuned = s.tuned;
  impl->stats.defaults = s.defaults;
  impl->stats.summary = absl::StrCat(
      s.ToString(), impl->compiled.cache_summary.empty() ? "" : "; ",
      impl->compiled.cache_summary);
  return std::unique_ptr<Program>(new Program(std::move(impl)));
}

absl::StatusOr<std::unique_ptr<Program>> Compiler::CompileFile(
    const std::string& path) {
  XTUNE_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return CompileText(text, path);
}

absl::StatusOr<std::string> Compiler::SerializeAutotuneResults(
    bool as_textproto) const {
  return xtune::SerializeAutotuneResults(impl_->session->memory().Dump(),
                                         as_textproto);
}

absl::Status Compiler::LoadAutotuneResults(absl::string_view data,
                                           bool as_textproto) {
  XTUNE_ASSIGN_OR_RETURN(
      xla::AutotuneResults results,
      ParseAutotuneResults(data, as_textproto, "<autotune results>"));
  return impl_->session->memory()
      .Load(results, "<autotune results>", kCodegenVersion)
      .status();
}

}  // namespace xtune
