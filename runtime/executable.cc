#include "runtime/executable.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "eval/control_flow.h"
#include "eval/evaluator.h"
#include "fusion/fusion_pass.h"
#include "fusion/in_place.h"
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

// A computation's compiled form: the value of each instruction, the
// instructions that do work (fusions, whiles, conditionals) in order, and
// the frames of each control-flow instruction's computations.
struct Executable::Frame {
  const Computation* computation = nullptr;
  absl::flat_hash_map<const Instruction*, Value*> value_of;
  std::vector<const Instruction*> steps;
  absl::flat_hash_map<const Instruction*, std::vector<Frame*>> callees;
};

Executable::~Executable() {
  for (const auto& v : values_) {
    if (v->owned.opaque != nullptr) backend_->Free(v->owned);
  }
}

namespace {

// Copies `v`'s bytes into a Literal of its shape.
absl::StatusOr<Literal> ToLiteral(Backend& backend, const Executable::Value* v);

// The array leaves of a value, in order.
void Leaves(Executable::Value* v, std::vector<Executable::Value*>* out);

// Whether `leaf` is `v` or one of its (nested) elements.
bool HasLeaf(const Executable::Value* v, const Executable::Value* leaf) {
  if (v == leaf) return true;
  for (const Executable::Value* e : v->elements) {
    if (HasLeaf(e, leaf)) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Executable>> Executable::Create(
    std::unique_ptr<Module> fused, Backend* backend, const ConfigChooser& choose,
    const ExecutableOptions& options) {
  std::unique_ptr<Executable> exe(new Executable());
  exe->module_ = std::move(fused);
  exe->backend_ = backend;
  exe->evaluator_options_.excess_precision = options.excess_precision;
  exe->evaluator_options_.tf32_dots = options.tf32_dots;
  for (const Instruction* inst : FusionsOf(*exe->module_)) {
    exe->fusion_index_[inst] = exe->fusions_.size();
    CompiledFusion f;
    f.fusion = inst;
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
  // Frames: every computation's values, allocated once.
  absl::Status allocation;
  XTUNE_ASSIGN_OR_RETURN(
      Frame * entry_frame,
      exe->BuildFrame(*exe->module_->entry(), nullptr, &allocation));
  (void)entry_frame;
  XTUNE_RETURN_IF_ERROR(allocation);
  return exe;
}

absl::StatusOr<Executable::Frame*> Executable::BuildFrame(
    const Computation& c, Value* param, absl::Status* allocation) {
  const auto key = std::make_pair(&c, static_cast<const Value*>(param));
  if (auto it = frame_of_.find(key); it != frame_of_.end()) return it->second;
  frames_.push_back(std::make_unique<Frame>());
  Frame* frame = frames_.back().get();
  frame_of_[key] = frame;
  frame->computation = &c;
  absl::flat_hash_map<const Instruction*, Value*>& value_of = frame->value_of;
  auto make = [&](const Shape& s) {
    auto v = std::make_unique<Value>();
    v->shape = s;
    if (s.IsArray()) {
      absl::StatusOr<DeviceBuffer> b = backend_->Allocate(s.ByteSize());
      if (b.ok()) {
        v->owned = v->buffer = *b;
      } else if (allocation->ok()) {
        *allocation = b.status();
      }
    }
    return v;
  };
  // Tuple-shaped values own one buffer per leaf.
  std::function<std::unique_ptr<Value>(const Shape&)> tuple_of =
      [&](const Shape& s) -> std::unique_ptr<Value> {
    if (s.IsArray()) return make(s);
    auto t = std::make_unique<Value>();
    t->shape = s;
    for (const Shape& e : s.tuple_shapes()) {
      values_.push_back(tuple_of(e));
      t->elements.push_back(values_.back().get());
    }
    return t;
  };
  // Values whose buffers this frame owns and rewrites on every run: the
  // results of its fusions and control flow, and its parameter unless it is
  // the entry's (the caller's arguments) or borrowed (a condition's).
  absl::flat_hash_set<const Value*> donatable;
  const bool own_parameter = param == nullptr && &c != module_->entry();
  for (const auto& owned : c.instructions()) {
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
        values_.push_back(make(inst->shape()));
        Value* constant = values_.back().get();
        value_of[inst] = constant;
        if (constant->buffer.opaque != nullptr) {
          XTUNE_RETURN_IF_ERROR(
              backend_->CopyToDevice(lit.bytes().data(), constant->buffer));
        }
        continue;
      }
      case Opcode::kParameter:
        if (param != nullptr) {
          value_of[inst] = param;
          continue;
        }
        v = tuple_of(inst->shape());
        break;
      case Opcode::kFusion:
        v = tuple_of(inst->shape());
        frame->steps.push_back(inst);
        break;
      case Opcode::kWhile: {
        XTUNE_ASSIGN_OR_RETURN(
            Frame * body,
            BuildFrame(*inst->called_computations()[1], nullptr, allocation));
        Value* state = body->value_of.at(body->computation->parameter(0));
        XTUNE_ASSIGN_OR_RETURN(
            Frame * cond,
            BuildFrame(*inst->called_computations()[0], state, allocation));
        frame->callees[inst] = {cond, body};
        v = tuple_of(inst->shape());
        frame->steps.push_back(inst);
        break;
      }
      case Opcode::kConditional: {
        std::vector<Frame*> branches;
        for (const Computation* b : inst->called_computations()) {
          XTUNE_ASSIGN_OR_RETURN(Frame * f, BuildFrame(*b, nullptr, allocation));
          branches.push_back(f);
        }
        frame->callees[inst] = std::move(branches);
        v = tuple_of(inst->shape());
        frame->steps.push_back(inst);
        break;
      }
      default:
        return absl::InternalError(absl::StrCat(
            "unexpected '", OpcodeName(inst->opcode()), "' in computation '",
            c.name(), "' of a fused module"));
    }
    if (inst->opcode() != Opcode::kTuple &&
        (inst->opcode() != Opcode::kParameter || own_parameter)) {
      std::vector<Value*> leaves;
      Leaves(v.get(), &leaves);
      donatable.insert(leaves.begin(), leaves.end());
    }
    value_of[inst] = v.get();
    values_.push_back(std::move(v));
  }
  ShareInPlaceBuffers(*frame, donatable);
  return frame;
}

void Executable::ShareInPlaceBuffers(
    Frame& frame, absl::flat_hash_set<const Value*>& donatable) {
  const auto& insts = frame.computation->instructions();
  const Value* root = frame.value_of.at(frame.computation->root());
  for (size_t s = 0; s < insts.size(); ++s) {
    const Instruction* inst = insts[s].get();
    if (inst->opcode() != Opcode::kFusion) continue;
    const std::optional<int64_t> k = InPlaceOperand(*inst);
    if (!k.has_value()) continue;
    const Value* x = frame.value_of.at(inst->operand(*k));
    if (!donatable.contains(x) || HasLeaf(root, x)) continue;
    // Nothing that runs later reads x: not this fusion's other operands,
    // not a later instruction (tuples and get-tuple-elements only name
    // values; their readers are checked), not the root.
    bool read = false;
    for (int64_t i = 0; i < inst->operand_count() && !read; ++i) {
      read = i != *k && HasLeaf(frame.value_of.at(inst->operand(i)), x);
    }
    for (size_t t = s + 1; t < insts.size() && !read; ++t) {
      const Instruction* later = insts[t].get();
      if (later->opcode() == Opcode::kTuple ||
          later->opcode() == Opcode::kGetTupleElement) {
        continue;
      }
      for (const Instruction* op : later->operands()) {
        if (HasLeaf(frame.value_of.at(op), x)) read = true;
      }
    }
    if (read) continue;
    Value* out = frame.value_of.at(inst);
    if (out->owned.opaque != nullptr) backend_->Free(out->owned);
    out->owned = DeviceBuffer{};
    out->buffer = x->buffer;
    ++in_place_fusions_;
  }
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
  if (v->owned.opaque != nullptr) v->buffer = v->owned;  // else in place
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
  Frame& entry = *frames_.front();
  const Computation& c = *entry.computation;
  if (static_cast<int64_t>(arguments.size()) != c.parameter_count()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the module takes ", c.parameter_count(), " arguments, got ",
        arguments.size()));
  }
  for (const Instruction* p : c.parameters()) {
    const Literal& arg = arguments[p->attrs().parameter_number];
    if (!arg.shape().Compatible(p->shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "argument ", p->attrs().parameter_number, " has shape ",
          arg.shape().ToString(false), " but the parameter is ",
          p->shape().ToString(false)));
    }
    XTUNE_RETURN_IF_ERROR(
        CopyInto(*backend_, arg, entry.value_of.at(p), /*alias=*/true));
  }
  XTUNE_RETURN_IF_ERROR(RunFrame(entry, probe));
  return ToLiteral(*backend_, entry.value_of.at(c.root()));
}

absl::Status Executable::RunFrame(Frame& frame, RunProbe* probe) {
  for (const Instruction* inst : frame.steps) {
    switch (inst->opcode()) {
      case Opcode::kFusion:
        XTUNE_RETURN_IF_ERROR(RunFusion(inst, frame, probe));
        break;
      case Opcode::kWhile:
        XTUNE_RETURN_IF_ERROR(RunWhile(inst, frame, probe));
        break;
      case Opcode::kConditional:
        XTUNE_RETURN_IF_ERROR(RunConditional(inst, frame, probe));
        break;
      default:
        break;
    }
  }
  return absl::OkStatus();
}

absl::Status Executable::RunFusion(const Instruction* inst, Frame& frame,
                                   RunProbe* probe) {
  const size_t index = fusion_index_.at(inst);
  CompiledFusion& cf = fusions_[index];
  Value* out = frame.value_of.at(inst);
  if (cf.kernel != nullptr) {
    absl::InlinedVector<DeviceBuffer, 8> inputs;  // no heap per run
    for (const Instruction* op : inst->operands()) {
      inputs.push_back(frame.value_of.at(op)->buffer);
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
    if (!timed) return kernel->Run(inputs, out->buffer);
    const auto start = std::chrono::steady_clock::now();
    absl::Status ran = kernel->Run(inputs, out->buffer);
    probe->seconds[index] += std::chrono::duration<double>(
                                 std::chrono::steady_clock::now() - start)
                                 .count();
    return ran;
  }
  std::vector<Literal> args;
  for (const Instruction* op : inst->operands()) {
    XTUNE_ASSIGN_OR_RETURN(Literal arg,
                           ToLiteral(*backend_, frame.value_of.at(op)));
    args.push_back(std::move(arg));
  }
  XTUNE_ASSIGN_OR_RETURN(
      Literal result,
      EvaluateComputation(*inst->called_computations()[0], args,
                          evaluator_options_));
  return CopyInto(*backend_, result, out);
}

absl::Status Executable::CopyValue(const Value* src, Value* dst) {
  if (src == dst) return absl::OkStatus();
  if (dst->shape.IsTuple()) {
    for (size_t i = 0; i < dst->elements.size(); ++i) {
      XTUNE_RETURN_IF_ERROR(CopyValue(src->elements[i], dst->elements[i]));
    }
    return absl::OkStatus();
  }
  if (dst->owned.opaque != nullptr) dst->buffer = dst->owned;
  return backend_->CopyBuffer(src->buffer, dst->buffer);
}

absl::Status Executable::RunWhile(const Instruction* inst, Frame& frame,
                                  RunProbe* probe) {
  Frame& cond = *frame.callees.at(inst)[0];
  Frame& body = *frame.callees.at(inst)[1];
  Value* state = body.value_of.at(body.computation->parameter(0));
  Value* result = frame.value_of.at(inst);
  XTUNE_RETURN_IF_ERROR(CopyValue(frame.value_of.at(inst->operand(0)), state));
  std::vector<Value*> params, roots, staging;
  Leaves(state, &params);
  Leaves(body.value_of.at(body.computation->root()), &roots);
  Leaves(result, &staging);
  const Value* predicate = cond.value_of.at(cond.computation->root());
  while (true) {
    XTUNE_RETURN_IF_ERROR(RunFrame(cond, probe));
    uint8_t go = 0;
    XTUNE_RETURN_IF_ERROR(backend_->CopyFromDevice(
        DeviceBuffer{predicate->buffer.opaque, 1}, &go));
    if (go == 0) break;
    XTUNE_RETURN_IF_ERROR(RunFrame(body, probe));
    // The body's result becomes the state. A result leaf that is another
    // state leaf (a permutation) goes through the while's own buffer first,
    // so that no leaf is overwritten before it is read.
    std::vector<size_t> staged;
    for (size_t i = 0; i < params.size(); ++i) {
      if (roots[i]->buffer.opaque == params[i]->buffer.opaque) continue;
      for (const Value* p : params) {
        if (roots[i]->buffer.opaque == p->buffer.opaque) {
          XTUNE_RETURN_IF_ERROR(
              backend_->CopyBuffer(roots[i]->buffer, staging[i]->owned));
          staged.push_back(i);
          break;
        }
      }
    }
    for (size_t i = 0; i < params.size(); ++i) {
      if (roots[i]->buffer.opaque == params[i]->buffer.opaque ||
          std::find(staged.begin(), staged.end(), i) != staged.end()) {
        continue;
      }
      XTUNE_RETURN_IF_ERROR(
          backend_->CopyBuffer(roots[i]->buffer, params[i]->buffer));
    }
    for (size_t i : staged) {
      XTUNE_RETURN_IF_ERROR(
          backend_->CopyBuffer(staging[i]->owned, params[i]->buffer));
    }
  }
  return CopyValue(state, result);
}

absl::Status Executable::RunConditional(const Instruction* inst, Frame& frame,
                                        RunProbe* probe) {
  const Value* selector = frame.value_of.at(inst->operand(0));
  const bool is_pred = selector->shape.dtype() == DType::kPred;
  int64_t value = 0;
  if (is_pred) {
    uint8_t b = 0;
    XTUNE_RETURN_IF_ERROR(backend_->CopyFromDevice(
        DeviceBuffer{selector->buffer.opaque, 1}, &b));
    value = b;
  } else {
    int32_t i = 0;
    XTUNE_RETURN_IF_ERROR(backend_->CopyFromDevice(
        DeviceBuffer{selector->buffer.opaque, 4}, &i));
    value = i;
  }
  const std::vector<Frame*>& branches = frame.callees.at(inst);
  const int64_t b = ConditionalBranch(is_pred, value,
                                      static_cast<int64_t>(branches.size()));
  Frame& branch = *branches[b];
  XTUNE_RETURN_IF_ERROR(
      CopyValue(frame.value_of.at(inst->operand(b + 1)),
                branch.value_of.at(branch.computation->parameter(0))));
  XTUNE_RETURN_IF_ERROR(RunFrame(branch, probe));
  return CopyValue(branch.value_of.at(branch.computation->root()),
                   frame.value_of.at(inst));
}

namespace {

void Leaves(Executable::Value* v, std::vector<Executable::Value*>* out) {
  if (v->shape.IsTuple()) {
    for (Executable::Value* e : v->elements) Leaves(e, out);
  } else {
    out->push_back(v);
  }
}

}  // namespace

}  // namespace xtune
