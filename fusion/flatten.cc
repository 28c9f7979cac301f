#include "fusion/flatten.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/clone.h"
#include "fusion/conv_as_dot.h"
#include "fusion/hlo_builder.h"
#include "fusion/library_call_expander.h"
#include "ir/library_call.h"
#include "fusion/rng_expander.h"
#include "ir/collectives.h"

namespace xtune {
namespace {

class Flattener {
 public:
  Flattener(Computation* out, Module* module) : out_(out), module_(module) {}

  // Copies `c` into out_ with its parameters bound to `args`; returns the
  // value of its root.
  Instruction* Inline(const Computation& c, const std::vector<Instruction*>& args,
                      const std::string& prefix) {
    absl::flat_hash_map<const Instruction*, Instruction*> value;
    for (const auto& owned : c.instructions()) {
      const Instruction* inst = owned.get();
      std::vector<Instruction*> operands;
      for (const Instruction* op : inst->operands()) operands.push_back(value[op]);
      switch (inst->opcode()) {
        case Opcode::kParameter:
          if (!args.empty()) {
            value[inst] = args[inst->attrs().parameter_number];
            continue;
          }
          break;
        case Opcode::kCall:
          value[inst] = Inline(*inst->called_computations()[0], operands,
                               absl::StrCat(prefix, inst->name(), "."));
          continue;
        case Opcode::kConvolution:
          if (ConvolutionAsDotPays(operands[0]->shape(), operands[1]->shape(),
                                   inst->attrs(), inst->shape())) {
            HloBuilder b(out_, absl::StrCat(prefix, inst->name(), "."), inst->location());
            value[inst] = BuildConvolution(b, operands[0], operands[1], inst->attrs(),
                                           inst->shape());
            continue;
          }
          break;
        case Opcode::kMap:
          value[inst] = InlineMap(*inst, operands, prefix);
          continue;
        case Opcode::kRngBitGenerator: {
          HloBuilder b(out_, absl::StrCat(prefix, inst->name(), "."),
                       inst->location());
          absl::StatusOr<Instruction*> expanded =
              ExpandRngBitGenerator(*inst, operands[0], b);
          if (!expanded.ok()) break;  // the verifier reports it
          value[inst] = *expanded;
          continue;
        }
        case Opcode::kBitcastConvert:
          if (IsWideningOrNarrowingBitcast(*inst)) {
            HloBuilder b(out_, absl::StrCat(prefix, inst->name(), "."),
                         inst->location());
            value[inst] = ExpandWidthBitcast(*inst, operands[0], b);
            continue;
          }
          break;
        case Opcode::kCustomCall: {
          if (IsAnnotationCustomCall(*inst)) {
            value[inst] = operands[0];
            continue;
          }
          absl::StatusOr<Instruction*> expanded = ExpandLibraryCall(
              *inst, operands, prefix, out_, module_);
          if (!expanded.ok()) break;  // the verifier reports it
          value[inst] = *expanded;
          continue;
        }
        case Opcode::kAfterAll:
          // A token orders side effects; xtune runs none: an empty tuple.
          value[inst] = Add(*inst, prefix, {}, /*as_tuple=*/true);
          continue;
        case Opcode::kAddDependency:
        case Opcode::kOptimizationBarrier:
          // Kernels run one after another: nothing moves across it.
          value[inst] = operands[0];
          continue;
        case Opcode::kReplicaId:
        case Opcode::kPartitionId:
          value[inst] = AddZeros(*inst, prefix);
          continue;
        case Opcode::kCollectivePermute:
          // Several operands permute together: a tuple of them.
          value[inst] = !PermuteKeepsReplicaZero(*inst) ? AddZeros(*inst, prefix)
                        : operands.size() == 1
                            ? operands[0]
                            : Add(*inst, prefix, operands, /*as_tuple=*/true);
          continue;
        case Opcode::kAllGather:
        case Opcode::kReduceScatter:
        case Opcode::kAllToAll:
        case Opcode::kAllReduce:
          // One replica (ir/collectives.h): the identity.
          if (operands.size() == 1) {
            value[inst] = operands[0];
          } else {
            value[inst] = Add(*inst, prefix, operands, /*as_tuple=*/true);
          }
          continue;
        case Opcode::kGetTupleElement:
          // Of a tuple built here (a split sort, a collective of several
          // operands): the element itself.
          if (operands[0]->opcode() == Opcode::kTuple) {
            value[inst] = operands[0]->operand(inst->attrs().tuple_index);
            continue;
          }
          break;
        default:
          break;
      }
      value[inst] = Add(*inst, prefix, operands, false);
      if (inst->shape().IsTuple() &&
          (inst->opcode() == Opcode::kSort || inst->opcode() == Opcode::kTopK ||
           inst->opcode() == Opcode::kReduce) &&
          UsedWhole(*inst, c)) {
        // The kernels write one output each (a fusion per element used):
        // a tuple used whole is rebuilt from its elements.
        value[inst] = SplitTuple(value[inst]);
      }
    }
    return value[c.root()];
  }

 private:
  Instruction* Add(const Instruction& inst, const std::string& prefix,
                   const std::vector<Instruction*>& operands, bool as_tuple) {
    std::string name = prefix + inst.name();
    while (out_->FindInstruction(name) != nullptr) name += "_";
    std::unique_ptr<Instruction> copy;
    if (as_tuple) {
      copy = std::make_unique<Instruction>(name, Opcode::kTuple, inst.shape());
      copy->set_location(inst.location());
      for (Instruction* op : operands) copy->AppendOperand(op);
    } else {
      copy = CloneInstruction(inst, name, operands,
                              [](const Computation* c) {
                                return const_cast<Computation*>(c);
                              });
    }
    return out_->AddInstruction(std::move(copy));
  }

  // map(operands), to_apply=f: f's instructions (scalar elementwise ops
  // and constants, as shape inference checked) on whole arrays of the
  // map's shape, its constants broadcast.
  Instruction* InlineMap(const Instruction& map,
                         const std::vector<Instruction*>& operands,
                         const std::string& prefix) {
    const Computation& f = *map.called_computations()[0];
    const std::string inner = absl::StrCat(prefix, map.name(), ".");
    absl::flat_hash_map<const Instruction*, Instruction*> v;
    for (const auto& owned : f.instructions()) {
      const Instruction* i = owned.get();
      Shape s = map.shape();
      s.set_dtype(i->shape().dtype());
      if (i->opcode() == Opcode::kParameter) {
        v[i] = operands[i->attrs().parameter_number];
        continue;
      }
      std::vector<Instruction*> ops;
      for (const Instruction* o : i->operands()) ops.push_back(v[o]);
      Instruction* scalar = Add(*i, inner, ops, false);
      if (i->opcode() == Opcode::kConstant) {
        if (s.rank() == 0) {
          v[i] = scalar;
          continue;
        }
        auto b = std::make_unique<Instruction>(
            Unique(absl::StrCat(inner, i->name(), ".bcast")),
            Opcode::kBroadcast, s);
        b->set_location(map.location());
        b->AppendOperand(scalar);
        v[i] = out_->AddInstruction(std::move(b));
        continue;
      }
      *scalar->mutable_shape() = s;
      v[i] = scalar;
    }
    return v[f.root()];
  }

  // Whether `inst` is used other than through get-tuple-elements.
  static bool UsedWhole(const Instruction& inst, const Computation& c) {
    if (&inst == c.root()) return true;
    for (const Instruction* u : inst.users()) {
      if (u->opcode() != Opcode::kGetTupleElement) return true;
    }
    return false;
  }

  // tuple(get-tuple-element(v, 0), ...) of tuple-shaped `v`.
  Instruction* SplitTuple(Instruction* v) {
    std::vector<Instruction*> elements;
    for (size_t i = 0; i < v->shape().tuple_shapes().size(); ++i) {
      auto g = std::make_unique<Instruction>(
          Unique(absl::StrCat(v->name(), ".", i)), Opcode::kGetTupleElement,
          v->shape().tuple_shapes()[i]);
      g->set_location(v->location());
      g->mutable_attrs()->tuple_index = static_cast<int64_t>(i);
      g->AppendOperand(v);
      elements.push_back(out_->AddInstruction(std::move(g)));
    }
    auto t = std::make_unique<Instruction>(Unique(v->name() + ".tuple"),
                                           Opcode::kTuple, v->shape());
    t->set_location(v->location());
    for (Instruction* e : elements) t->AppendOperand(e);
    return out_->AddInstruction(std::move(t));
  }

  // Zeros of inst's (array) shape: a constant, broadcast when not scalar.
  // Zeros of inst's (array) shape, or of each element of its tuple shape.
  Instruction* AddZeros(const Instruction& inst, const std::string& prefix) {
    if (!inst.shape().IsTuple()) return AddZeros(inst, inst.shape(), prefix);
    std::vector<Instruction*> elements;
    for (const Shape& s : inst.shape().tuple_shapes()) {
      elements.push_back(AddZeros(inst, s, prefix));
    }
    return Add(inst, prefix, elements, /*as_tuple=*/true);
  }

  Instruction* AddZeros(const Instruction& inst, const Shape& s,
                        const std::string& prefix) {
    auto zero = std::make_unique<Instruction>(
        Unique(prefix + inst.name() + ".zero"), Opcode::kConstant,
        Shape(s.dtype(), {}));
    zero->mutable_attrs()->literal = Literal(Shape(s.dtype(), {}));
    zero->set_location(inst.location());
    Instruction* z = out_->AddInstruction(std::move(zero));
    if (s.rank() == 0) return z;
    auto b = std::make_unique<Instruction>(Unique(prefix + inst.name()),
                                           Opcode::kBroadcast, s);
    b->set_location(inst.location());
    b->AppendOperand(z);
    return out_->AddInstruction(std::move(b));
  }

  std::string Unique(std::string name) {
    while (out_->FindInstruction(name) != nullptr) name += "_";
    return name;
  }

  Computation* out_;
  Module* module_;  // where expanded library calls' computations go
};

}  // namespace

Computation* FlattenEntry(const Module& src, Module* scratch) {
  return FlattenComputation(*src.entry(), scratch);
}

Computation* FlattenComputation(const Computation& src, Module* scratch) {
  // First pass: inline everything into a temporary computation.
  auto full = std::make_unique<Computation>(src.name());
  Flattener flattener(full.get(), scratch);
  Instruction* root = flattener.Inline(src, {}, "");
  // Second pass: keep what the root uses, and every parameter.
  absl::flat_hash_set<const Instruction*> live;
  std::vector<const Instruction*> stack = {root};
  while (!stack.empty()) {
    const Instruction* i = stack.back();
    stack.pop_back();
    if (!live.insert(i).second) continue;
    for (const Instruction* op : i->operands()) stack.push_back(op);
  }
  auto flat = std::make_unique<Computation>(src.name());
  absl::flat_hash_map<const Instruction*, Instruction*> mapped;
  std::vector<Instruction*> params(src.parameter_count(), nullptr);
  for (const auto& owned : full->instructions()) {
    const Instruction* inst = owned.get();
    if (!live.contains(inst) && inst->opcode() != Opcode::kParameter) continue;
    std::vector<Instruction*> operands;
    for (const Instruction* op : inst->operands()) operands.push_back(mapped[op]);
    Instruction* copy = flat->AddInstruction(CloneInstruction(
        *inst, inst->name(), operands,
        [](const Computation* c) { return const_cast<Computation*>(c); }));
    mapped[inst] = copy;
    if (inst->opcode() == Opcode::kParameter) {
      params[inst->attrs().parameter_number] = copy;
    }
  }
  flat->set_parameters(std::move(params));
  flat->set_root(mapped[root]);
  return scratch->AddComputation(std::move(flat));
}

}  // namespace xtune
