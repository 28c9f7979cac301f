#include "runtime/executable.h"

#include <cstring>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "eval/evaluator.h"
#include "util/status_macros.h"
#include "util/thread_pool.h"

namespace xtune {

// A runtime value: an array buffer (physical layout of `shape`) or a tuple
// of values owned elsewhere.
struct Executable::Value {
  Shape shape;
  std::vector<uint8_t> storage;   // owned bytes (arrays)
  uint8_t* data = nullptr;        // the bytes in use: storage or an alias
  std::vector<Value*> elements;   // tuples
};

Executable::~Executable() = default;

namespace {

// Copies `v`'s bytes into a Literal of its shape.
Literal ToLiteral(const Executable::Value* v);

}  // namespace

absl::StatusOr<std::unique_ptr<Executable>> Executable::Create(
    std::unique_ptr<Module> fused, Backend* backend, const ConfigChooser& choose,
    const ExecutableOptions& options) {
  std::unique_ptr<Executable> exe(new Executable());
  exe->module_ = std::move(fused);
  exe->evaluator_options_.excess_precision = options.excess_precision;
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
  // Compile the kernels in parallel.
  std::vector<absl::Status> errors(exe->fusions_.size());
  {
    ThreadPool pool(options.compile_parallelism);
    pool.ParallelFor(static_cast<int64_t>(exe->fusions_.size()), 0,
                     [&](int64_t i) {
                       CompiledFusion& f = exe->fusions_[i];
                       absl::StatusOr<std::unique_ptr<Kernel>> k =
                           backend->Compile(*f.fusion, f.config);
                       if (k.ok()) {
                         f.kernel = std::move(*k);
                       } else if (k.status().code() ==
                                  absl::StatusCode::kUnimplemented) {
                         f.fallback_reason = std::string(k.status().message());
                       } else {
                         errors[i] = k.status();
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
  std::function<std::unique_ptr<Value>(const Shape&)> make =
      [&](const Shape& s) {
        auto v = std::make_unique<Value>();
        v->shape = s;
        if (s.IsArray()) {
          v->storage.assign(static_cast<size_t>(s.ByteSize()), 0);
          v->data = v->storage.data();
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
        v = make(inst->shape());
        const Literal& lit = inst->attrs().literal;
        if (inst->shape().IsTuple() || inst->attrs().literal_elided) {
          return absl::UnimplementedError(absl::StrCat(
              "constant '", inst->name(), "' cannot be materialized"));
        }
        std::memcpy(v->data, lit.bytes().data(), lit.bytes().size());
        break;
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
  return exe;
}

namespace {

Literal ToLiteral(const Executable::Value* v) {
  if (v->shape.IsTuple()) {
    std::vector<Literal> elements;
    for (const Executable::Value* e : v->elements) elements.push_back(ToLiteral(e));
    return Literal::Tuple(std::move(elements));
  }
  Literal lit(v->shape);
  std::memcpy(lit.bytes().data(), v->data, lit.bytes().size());
  return lit;
}

// Makes `v` hold `lit`'s values: by pointing at lit's bytes when the layouts
// agree and `alias` is allowed (arguments are only read), else by copying.
void CopyInto(const Literal& lit, Executable::Value* v, bool alias = false) {
  if (v->shape.IsTuple()) {
    for (size_t i = 0; i < v->elements.size(); ++i) {
      CopyInto(lit.elements()[i], v->elements[i], alias);
    }
    return;
  }
  if (alias && lit.shape().minor_to_major() == v->shape.minor_to_major()) {
    v->data = const_cast<uint8_t*>(lit.bytes().data());
    return;
  }
  v->data = v->storage.data();
  const Literal* src = &lit;
  Literal relaid;
  if (lit.shape().minor_to_major() != v->shape.minor_to_major()) {
    relaid = lit.Relayout(v->shape.minor_to_major());
    src = &relaid;
  }
  std::memcpy(v->data, src->bytes().data(), src->bytes().size());
}

}  // namespace

absl::StatusOr<Literal> Executable::Run(absl::Span<const Literal> arguments) {
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
    CopyInto(arg, value_of.at(p), /*alias=*/true);
  }
  size_t f = 0;
  for (const auto& owned : entry.instructions()) {
    const Instruction* inst = owned.get();
    if (inst->opcode() != Opcode::kFusion) continue;
    CompiledFusion& cf = fusions_[f++];
    Value* out = value_of.at(inst);
    if (cf.kernel != nullptr) {
      std::vector<const void*> inputs;
      for (const Instruction* op : inst->operands()) {
        inputs.push_back(value_of.at(op)->data);
      }
      XTUNE_RETURN_IF_ERROR(cf.kernel->Run(inputs, out->data));
      continue;
    }
    std::vector<Literal> args;
    for (const Instruction* op : inst->operands()) {
      args.push_back(ToLiteral(value_of.at(op)));
    }
    XTUNE_ASSIGN_OR_RETURN(
        Literal result,
        EvaluateComputation(*inst->called_computations()[0], args,
                            evaluator_options_));
    CopyInto(result, out);
  }
  return ToLiteral(value_of.at(entry.root()));
}

}  // namespace xtune
