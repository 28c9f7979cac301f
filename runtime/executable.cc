#include "runtime/executable.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "eval/evaluator.h"
#include "util/status_macros.h"
#include "util/thread_pool.h"

namespace xtune {

// A runtime value: an array buffer of the backend (physical layout of
// `shape`) or a tuple of values owned elsewhere.
struct Executable::Value {
  Shape shape;
  DeviceBuffer owned;            // allocated by the backend (arrays)
  DeviceBuffer buffer;           // the buffer in use: owned or an alias
  std::vector<Value*> elements;  // tuples
};

Executable::~Executable() {
  for (const auto& v : values_) {
    if (v->owned.opaque != nullptr) backend_->Free(v->owned);
  }
}

namespace {

// Copies `v`'s bytes into a Literal of its shape.
absl::StatusOr<Literal> ToLiteral(Backend& backend, const Executable::Value* v);

}  // namespace

absl::StatusOr<std::unique_ptr<Executable>> Executable::Create(
    std::unique_ptr<Module> fused, Backend* backend, const ConfigChooser& choose,
    const ExecutableOptions& options) {
  std::unique_ptr<Executable> exe(new Executable());
  exe->module_ = std::move(fused);
  exe->backend_ = backend;
  exe->evaluator_options_.excess_precision = options.excess_precision;
  exe->evaluator_options_.tf32_dots = options.tf32_dots;
  const Computation& entry = *exe->module_->entry();
  for (const auto& inst : entry.instructions()) {
    if (inst->opcode() != Opcode::kFusion) continue;
    CompiledFusion f;
    f.fusion = inst.get();
    absl::StatusOr<KernelConfig> config = choose(*inst);
    if (!config.ok()) {
      return absl::Status(config.status().code(),
                          absl::StrCat("fusion '", inst->name(),
                                       "': ", config.status().message()));
    }
    f.config = *config;
    exe->fusions_.push_back(std::move(f));
  }
  // Compile the kernels in parallel: one at a time per thread, or, for a
  // backend that builds kernels together, in one part per thread (every
  // thread-th fusion, so the large and the small ones spread evenly).
  std::vector<absl::Status> errors(exe->fusions_.size());
  {
    ThreadPool pool(options.compile_parallelism);
    const size_t parts =
        backend->CompilesTogether()
            ? std::min(exe->fusions_.size(), static_cast<size_t>(pool.size()) + 1)
            : exe->fusions_.size();
    pool.ParallelFor(static_cast<int64_t>(parts), 0, [&](int64_t p) {
      std::vector<size_t> members;
      std::vector<Backend::KernelRequest> requests;
      for (size_t i = p; i < exe->fusions_.size(); i += parts) {
        members.push_back(i);
        requests.push_back({exe->fusions_[i].fusion, exe->fusions_[i].config});
      }
      std::vector<absl::StatusOr<std::unique_ptr<Kernel>>> kernels =
          backend->CompileKernels(requests);
      for (size_t m = 0; m < members.size(); ++m) {
        CompiledFusion& f = exe->fusions_[members[m]];
        absl::StatusOr<std::unique_ptr<Kernel>> k =
            m < kernels.size() ? std::move(kernels[m])
                               : absl::InternalError(
                                     "the backend compiled fewer kernels than asked");
        if (k.ok()) {
          f.kernel = std::move(*k);
        } else if (k.status().code() == absl::StatusCode::kUnimplemented) {
          f.fallback_reason = std::string(k.status().message());
        } else {
          errors[members[m]] = k.status();
        }
      }
    });
  }
  for (size_t i = 0; i < errors.size(); ++i) {
    if (!errors[i].ok()) {
      return absl::Status(errors[i].code(),
                          absl::StrCat("fusion '", exe->fusions_[i].fusion->name(),
                                       "' with ", exe->fusions_[i].config.ToString(),
                                       ": ", errors[i].message()));
    }
  }
  // Values: allocate every array buffer once.
  absl::flat_hash_map<const Instruction*, Value*>& value_of = exe->value_of_;
  absl::Status allocation;
  std::function<std::unique_ptr<Value>(const Shape&)> make =
      [&](const Shape& s) {
        auto v = std::make_unique<Value>();
        v->shape = s;
        if (s.IsArray()) {
          absl::StatusOr<DeviceBuffer> b = backend->Allocate(s.ByteSize());
          if (b.ok()) {
            v->owned = v->buffer = *b;
          } else if (allocation.ok()) {
            allocation = b.status();
          }
        }
        return v;
      };
  for (const auto& owned : entry.instructions()) {
    const Instruction* inst = owned.get();
    std::unique_ptr<Value> v;
    switch (inst->opcode()) {
      case Opcode::kTuple:
        v = std::make_unique<Value>();
        v->shape = inst->shape();
        for (const Instruction* op : inst->operands()) {
          v->elements.push_back(value_of.at(op));
        }
        break;
      case Opcode::kGetTupleElement:
        value_of[inst] = value_of.at(inst->operand(0))->elements.at(
            inst->attrs().tuple_index);
        continue;
      case Opcode::kConstant: {
        const Literal& lit = inst->attrs().literal;
        if (inst->shape().IsTuple() || inst->attrs().literal_elided) {
          return absl::UnimplementedError(absl::StrCat(
              "constant '", inst->name(), "' cannot be materialized"));
        }
        // Owned by the executable before anything can fail, so that its
        // buffer is freed on every path.
        exe->values_.push_back(make(inst->shape()));
        Value* c = exe->values_.back().get();
        value_of[inst] = c;
        if (c->buffer.opaque != nullptr) {
          XTUNE_RETURN_IF_ERROR(
              backend->CopyToDevice(lit.bytes().data(), c->buffer));
        }
        continue;
      }
      case Opcode::kParameter:
      case Opcode::kFusion:
        if (inst->shape().IsTuple()) {
          // Tuple-shaped fusion results (evaluator fallback) and tuple
          // parameters own one buffer per leaf.
          std::function<std::unique_ptr<Value>(const Shape&)> tuple_of =
              [&](const Shape& s) -> std::unique_ptr<Value> {
            if (s.IsArray()) return make(s);
            auto t = std::make_unique<Value>();
            t->shape = s;
            for (const Shape& e : s.tuple_shapes()) {
              exe->values_.push_back(tuple_of(e));
              t->elements.push_back(exe->values_.back().get());
            }
            return t;
          };
          v = tuple_of(inst->shape());
        } else {
          v = make(inst->shape());
        }
        break;
      default:
        return absl::InternalError(absl::StrCat(
            "unexpected '", OpcodeName(inst->opcode()),
            "' in a fused entry computation"));
    }
    value_of[inst] = v.get();
    exe->values_.push_back(std::move(v));
  }
  XTUNE_RETURN_IF_ERROR(allocation);
  return exe;
}

namespace {

absl::StatusOr<Literal> ToLiteral(Backend& backend,
                                  const Executable::Value* v) {
  if (v->shape.IsTuple()) {
    std::vector<Literal> elements;
    for (const Executable::Value* e : v->elements) {
      XTUNE_ASSIGN_OR_RETURN(Literal l, ToLiteral(backend, e));
      elements.push_back(std::move(l));
    }
    return Literal::Tuple(std::move(elements));
  }
  Literal lit(v->shape);
  XTUNE_RETURN_IF_ERROR(backend.CopyFromDevice(v->buffer, lit.bytes().data()));
  return lit;
}

// Makes `v` hold `lit`'s values: by reading lit's bytes in place when the
// layouts agree, `alias` is allowed (arguments are only read) and the
// backend can (host memory), else by copying into v's own buffer.
absl::Status CopyInto(Backend& backend, const Literal& lit,
                      Executable::Value* v, bool alias = false) {
  if (v->shape.IsTuple()) {
    for (size_t i = 0; i < v->elements.size(); ++i) {
      XTUNE_RETURN_IF_ERROR(
          CopyInto(backend, lit.elements()[i], v->elements[i], alias));
    }
    return absl::OkStatus();
  }
  if (alias && lit.shape().minor_to_major() == v->shape.minor_to_major()) {
    if (std::optional<DeviceBuffer> in_place =
            backend.HostAlias(lit.bytes().data(), lit.bytes().size())) {
      v->buffer = *in_place;
      return absl::OkStatus();
    }
  }
  v->buffer = v->owned;
  const Literal* src = &lit;
  Literal relaid;
  if (lit.shape().minor_to_major() != v->shape.minor_to_major()) {
    relaid = lit.Relayout(v->shape.minor_to_major());
    src = &relaid;
  }
  return backend.CopyToDevice(src->bytes().data(), v->buffer);
}

}  // namespace

absl::StatusOr<Literal> Executable::Run(absl::Span<const Literal> arguments) {
  return Run(arguments, nullptr);
}

absl::StatusOr<Literal> Executable::Run(absl::Span<const Literal> arguments,
                                        RunProbe* probe) {
  if (probe != nullptr) probe->seconds.assign(fusions_.size(), 0.0);
  const Computation& entry = *module_->entry();
  if (static_cast<int64_t>(arguments.size()) != entry.parameter_count()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the module takes ", entry.parameter_count(), " arguments, got ",
        arguments.size()));
  }
  const absl::flat_hash_map<const Instruction*, Value*>& value_of = value_of_;
  for (const Instruction* p : entry.parameters()) {
    const Literal& arg = arguments[p->attrs().parameter_number];
    if (!arg.shape().Compatible(p->shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "argument ", p->attrs().parameter_number, " has shape ",
          arg.shape().ToString(false), " but the parameter is ",
          p->shape().ToString(false)));
    }
    XTUNE_RETURN_IF_ERROR(
        CopyInto(*backend_, arg, value_of.at(p), /*alias=*/true));
  }
  size_t f = 0;
  for (const auto& owned : entry.instructions()) {
    const Instruction* inst = owned.get();
    if (inst->opcode() != Opcode::kFusion) continue;
    const size_t index = f++;
    CompiledFusion& cf = fusions_[index];
    Value* out = value_of.at(inst);
    if (cf.kernel != nullptr) {
      absl::InlinedVector<DeviceBuffer, 8> inputs;  // no heap per run
      for (const Instruction* op : inst->operands()) {
        inputs.push_back(value_of.at(op)->buffer);
      }
      Kernel* kernel = cf.kernel.get();
      bool timed = false;
      if (probe != nullptr) {
        if (index < probe->substitute.size() &&
            probe->substitute[index] != nullptr) {
          kernel = probe->substitute[index];
        }
        timed = index < probe->timed.size() && probe->timed[index];
      }
      if (!timed) {
        XTUNE_RETURN_IF_ERROR(kernel->Run(inputs, out->buffer));
        continue;
      }
      const auto start = std::chrono::steady_clock::now();
      absl::Status ran = kernel->Run(inputs, out->buffer);
      probe->seconds[index] = std::chrono::duration<double>(
                                  std::chrono::steady_clock::now() - start)
                                  .count();
      XTUNE_RETURN_IF_ERROR(ran);
      continue;
    }
    std::vector<Literal> args;
    for (const Instruction* op : inst->operands()) {
      XTUNE_ASSIGN_OR_RETURN(Literal arg, ToLiteral(*backend_, value_of.at(op)));
      args.push_back(std::move(arg));
    }
    XTUNE_ASSIGN_OR_RETURN(
        Literal result,
        EvaluateComputation(*inst->called_computations()[0], args,
                            evaluator_options_));
    XTUNE_RETURN_IF_ERROR(CopyInto(*backend_, result, out));
  }
  return ToLiteral(*backend_, value_of.at(entry.root()));
}

}  // namespace xtune
