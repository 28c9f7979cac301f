// The public API (include/xtune/compiler.h) over compiler/compile.h.
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
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
  std::unique_ptr<Module> module;  // the module as given (for the reference)
  CompiledModule compiled;
  CompileStats stats;
  bool excess_precision = true;  // --xla_allow_excess_precision
};

struct Compiler::Impl {
  XlaFlags flags;
  std::shared_ptr<AutotuneCacheSession> session;
  // One backend for every compile of this Compiler (and the executables
  // they make: Programs share it).
  std::shared_ptr<Backend> backend;
  absl::Mutex compile_mu;  // one compile at a time on the backend
};

namespace {

// Like XLA's, the autotune cache is per process: every Compiler with the
// same cache flags shares one session (the file is loaded once, and each
// dump holds what all of them tuned).
absl::StatusOr<std::shared_ptr<AutotuneCacheSession>> SharedSession(
    const PersistentCacheOptions& o) {
  static absl::Mutex mu(absl::kConstInit);
  static auto* sessions =
      new std::map<std::string, std::shared_ptr<AutotuneCacheSession>>();
  // "a.pb" and "./a.pb" are one session (one file, one dump).
  XTUNE_ASSIGN_OR_RETURN(std::string id, SessionKey(o));
  absl::MutexLock lock(&mu);
  auto it = sessions->find(id);
  if (it != sessions->end()) return it->second;
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<AutotuneCacheSession> session,
                         AutotuneCacheSession::Open(o, kCodegenVersion));
  std::shared_ptr<AutotuneCacheSession> shared = std::move(session);
  (*sessions)[id] = shared;
  return shared;
}

}  // namespace

Program::Program(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Program::~Program() = default;
const CompileStats& Program::stats() const { return impl_->stats; }

namespace {

void Flatten(const Literal& l, std::vector<Array>* out) {
  if (l.IsTuple()) {
    for (const Literal& e : l.elements()) Flatten(e, out);
    return;
  }
  Array a;
  a.dims = l.shape().dims();
  a.values.resize(l.element_count());
  for (int64_t i = 0; i < l.element_count(); ++i) a.values[i] = l.GetDouble(i);
  out->push_back(std::move(a));
}

}  // namespace

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
    if (static_cast<int64_t>(args[i].values.size()) != shape.ElementCount() ||
        args[i].dims != shape.dims()) {
      return absl::InvalidArgumentError(
          absl::StrCat("argument ", i, " does not match parameter shape ",
                       shape.ToString(false)));
    }
    Literal l(shape);
    for (int64_t j = 0; j < shape.ElementCount(); ++j)
      l.SetDouble(j, args[i].values[j]);
    literals.push_back(std::move(l));
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
  EvaluatorOptions eval_options;  // like with like (excess precision)
  eval_options.excess_precision = impl_->excess_precision;
  XTUNE_ASSIGN_OR_RETURN(Literal expected,
                         Evaluate(*impl_->module, inputs, eval_options));
  return CompareLiterals(expected, actual, "the compiled module's output");
}

Compiler::Compiler(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Compiler::~Compiler() = default;

absl::StatusOr<std::unique_ptr<Compiler>> Compiler::Create(
    const std::vector<std::string>& flags) {
  auto impl = std::make_unique<Impl>();
  XTUNE_RETURN_IF_ERROR(ApplyXlaFlagsFromEnvironment(&impl->flags));
  XTUNE_RETURN_IF_ERROR(ApplyXlaFlagArgs(flags, &impl->flags));
  XTUNE_ASSIGN_OR_RETURN(impl->session, SharedSession(impl->flags.cache));
  XTUNE_ASSIGN_OR_RETURN(impl->backend, CreateBackendFor("cpu", impl->flags));
  return std::unique_ptr<Compiler>(new Compiler(std::move(impl)));
}

absl::StatusOr<std::unique_ptr<Program>> Compiler::CompileText(
    absl::string_view hlo_text, absl::string_view name) {
  auto impl = std::make_unique<Program::Impl>();
  XTUNE_ASSIGN_OR_RETURN(impl->module, ParseModule(hlo_text, name));
  impl->backend = impl_->backend;
  {
    absl::MutexLock lock(&impl_->compile_mu);
    XTUNE_ASSIGN_OR_RETURN(
        impl->compiled, CompileModule(*impl->module, impl_->backend.get(),
                                      impl_->flags, {}, impl_->session.get()));
  }
  impl->excess_precision = impl_->flags.autotune.excess_precision;
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

}  // namespace xtune
