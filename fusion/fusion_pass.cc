#include "fusion/fusion_pass.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "fusion/conv_as_dot.h"
#include "fusion/definition_order.h"
#include "fusion/flatten.h"
#include "fusion/planner.h"
#include "ir/clone.h"
#include "ir/conv_call.h"
#include "ir/library_call.h"

namespace xtune {
namespace {

constexpr char kGemmBackendConfig[] =
    R"({"fusion_backend_config":{"kind":"__triton_gemm"}})";

class ModuleBuilder {
 public:
  ModuleBuilder(const Module& src, std::unique_ptr<Module> out)
      : src_(src), out_(std::move(out)) {}

  // The copy of `c` (a computation of the source module) in the output,
  // made on first use so that only what is referenced is copied. A
  // computation with `call`s (a reducer or comparator calling another) is
  // copied flattened, its calls inlined, so kernels can generate it.
  Computation* Copy(const Computation* c) {
    auto it = copies_.find(c);
    if (it != copies_.end()) return it->second;
    const Computation* source = c;
    for (const auto& inst : c->instructions()) {
      if (inst->opcode() == Opcode::kCall) {
        source = FlattenComputation(*c, &inlined_);
        break;
      }
    }
    Computation* copy = CopyComputation(
        *source, out_.get(), UniqueComputationName(c->name()),
        [this](const Computation* callee) { return Copy(callee); });
    copies_[c] = copy;
    return copy;
  }

  // Builds the fused computation of `g` and returns it with the external
  // values it needs, in parameter order.
  std::pair<Computation*, std::vector<const Instruction*>> BuildFused(
      const FusionGroup& g, const std::string& name,
      const absl::flat_hash_map<const Instruction*, int>& pos) {
    std::vector<const Instruction*> insts(g.members.begin(), g.members.end());
    insts.insert(insts.end(), g.duplicated.begin(), g.duplicated.end());
    SortByPosition(insts, pos);
    absl::flat_hash_set<const Instruction*> inside(insts.begin(), insts.end());
    absl::flat_hash_set<std::string> names;
    for (const Instruction* i : insts) names.insert(i->name());
    auto fused = std::make_unique<Computation>(UniqueComputationName(name));
    absl::flat_hash_map<const Instruction*, Instruction*> mapped;
    std::vector<const Instruction*> externals;
    std::vector<Instruction*> params;
    auto value_of = [&](const Instruction* x) -> Instruction* {
      auto it = mapped.find(x);
      if (it != mapped.end()) return it->second;
      std::string pname = absl::StrCat("param_", externals.size());
      while (names.contains(pname)) pname += "_";
      auto p = std::make_unique<Instruction>(pname, Opcode::kParameter,
                                             x->shape());
      p->mutable_attrs()->parameter_number =
          static_cast<int64_t>(externals.size());
      Instruction* added = fused->AddInstruction(std::move(p));
      externals.push_back(x);
      params.push_back(added);
      mapped[x] = added;
      return added;
    };
    for (const Instruction* i : insts) {
      std::vector<Instruction*> operands;
      for (const Instruction* op : i->operands()) {
        operands.push_back(inside.contains(op) ? mapped.at(op) : value_of(op));
      }
      mapped[i] = fused->AddInstruction(CloneInstruction(
          *i, i->name(), operands,
          [this](const Computation* c) { return Copy(c); }));
    }
    fused->set_parameters(std::move(params));
    fused->set_root(mapped.at(g.root()));
    return {out_->AddComputation(std::move(fused)), externals};
  }

  Module* out() { return out_.get(); }
  std::unique_ptr<Module> Release() { return std::move(out_); }
  std::string UniqueName(const std::string& base) {
    return UniqueComputationName(base);
  }

 private:
  std::string UniqueComputationName(const std::string& base) {
    // Suffixes continue from the last one given for `base`, so naming n
    // fusions stays linear.
    std::string name = base;
    int& n = next_suffix_[base];
    while (out_->FindComputation(name) != nullptr || taken_.contains(name)) {
      name = absl::StrCat(base, ".", ++n);
    }
    taken_.insert(name);
    return name;
  }

  const Module& src_;
  std::unique_ptr<Module> out_;
  absl::flat_hash_map<const Computation*, Computation*> copies_;
  // Flattened copies of computations with calls; Copy() copies from them.
  Module inlined_{"inlined"};
  absl::flat_hash_set<std::string> taken_;
  absl::flat_hash_map<std::string, int> next_suffix_;
};

const char* KindAttr(FusionKind k) {
  switch (k) {
    case FusionKind::kGemm:
      return "kCustom";
    case FusionKind::kReduction:
    case FusionKind::kScatter:
    case FusionKind::kSort:
      return "kInput";
    case FusionKind::kLoop:
      return "kLoop";
    case FusionKind::kConv:
      return "kOutput";
  }
  return "kLoop";
}

}  // namespace

absl::string_view FusionKindName(FusionKind kind) {
  switch (kind) {
    case FusionKind::kGemm:
      return "gemm";
    case FusionKind::kReduction:
      return "reduction";
    case FusionKind::kLoop:
      return "loop";
    case FusionKind::kScatter:
      return "scatter";
    case FusionKind::kSort:
      return "sort";
    case FusionKind::kConv:
      return "conv";
  }
  return "loop";
}

FusionKind ClassifyFusion(const Instruction& fusion) {
  bool has_reduce = false, has_scatter = false, has_sort = false, has_conv = false;
  for (const auto& i : fusion.called_computations()[0]->instructions()) {
    if (i->opcode() == Opcode::kDot) return FusionKind::kGemm;
    has_conv |= ConvolutionIsImplicitGemm(*i);
    has_reduce |= i->opcode() == Opcode::kReduce;
    has_scatter |= i->opcode() == Opcode::kScatter;
    has_sort |= i->opcode() == Opcode::kSort || i->opcode() == Opcode::kTopK;
  }
  if (has_conv) return FusionKind::kConv;
  if (has_scatter) return FusionKind::kScatter;
  if (has_sort) return FusionKind::kSort;
  return has_reduce ? FusionKind::kReduction : FusionKind::kLoop;
}

bool IsConvolutionFusion(const Instruction& fusion) {
  if (ClassifyFusion(fusion) == FusionKind::kConv) return true;
  std::optional<LibraryFusion> call = LibraryFusionOf(fusion);
  return call.has_value() && IsConvCallTarget(call->target);
}

namespace {

// Fuses computations with a shared builder and fusion counters, so names
// stay unique across the module; the bodies, conditions and branches of
// control flow are fused like the entry, once each.
class ComputationFuser {
 public:
  explicit ComputationFuser(ModuleBuilder* builder) : builder_(builder) {}

  // The fused form of `src` (a computation of the source module), added to
  // the output module.
  Computation* Fuse(const Computation& src) {
    auto done = fused_.find(&src);
    if (done != fused_.end()) return done->second;
    Module scratch("scratch");
    const Computation* flat = FlattenComputation(src, &scratch);
    std::vector<FusionGroup> groups = PlanFusions(*flat);

    absl::flat_hash_map<const Instruction*, int> pos;
    int p = 0;
    for (const auto& i : flat->instructions()) pos[i.get()] = p++;
    absl::flat_hash_map<const Instruction*, const FusionGroup*> root_of;
    absl::flat_hash_set<const Instruction*> owned;
    for (const FusionGroup& g : groups) {
      root_of[g.root()] = &g;
      owned.insert(g.members.begin(), g.members.end());
    }

    // In definition order; dead instructions are dropped after.
    auto entry = std::make_unique<Computation>(src.name());
    absl::flat_hash_map<const Instruction*, Instruction*> value;
    std::vector<Instruction*> params(flat->parameter_count());
    for (const auto& owned_inst : flat->instructions()) {
      const Instruction* i = owned_inst.get();
      auto g = root_of.find(i);
      if (g != root_of.end()) {
        FusionKind kind = g->second->kind;
        int n = counts_[kind]++;
        std::string suffix = n == 0 ? "" : absl::StrCat(".", n);
        std::string kind_name(FusionKindName(kind));
        if (kind == FusionKind::kReduction) kind_name = "reduce";
        auto [fused, externals] = builder_->BuildFused(
            *g->second, absl::StrCat("fused_", kind_name), pos);
        auto fusion = std::make_unique<Instruction>(
            absl::StrCat(kind_name, "_fusion", suffix), Opcode::kFusion,
            i->shape());
        fusion->set_location(i->location());
        fusion->mutable_attrs()->fusion_kind = KindAttr(kind);
        if (kind == FusionKind::kGemm) {
          fusion->mutable_attrs()->backend_config = kGemmBackendConfig;
        }
        for (const Instruction* x : externals) {
          fusion->AppendOperand(value.at(x));
        }
        fusion->AppendCalledComputation(fused);
        value[i] = entry->AddInstruction(std::move(fusion));
        continue;
      }
      if (owned.contains(i)) continue;
      switch (i->opcode()) {
        case Opcode::kParameter:
        case Opcode::kConstant:
        case Opcode::kTuple:
        case Opcode::kGetTupleElement:
        case Opcode::kFusion:
        case Opcode::kWhile:
        case Opcode::kConditional: {
          std::vector<Instruction*> operands;
          for (const Instruction* op : i->operands()) {
            operands.push_back(value.at(op));
          }
          const bool control = i->opcode() == Opcode::kWhile ||
                               i->opcode() == Opcode::kConditional;
          Instruction* copy = entry->AddInstruction(CloneInstruction(
              *i, i->name(), operands,
              [this, control](const Computation* c) {
                return control ? Fuse(*c) : builder_->Copy(c);
              }));
          value[i] = copy;
          if (i->opcode() == Opcode::kParameter) {
            params[i->attrs().parameter_number] = copy;
          }
          break;
        }
        default:
          break;  // copied into the fusions that use it
      }
    }
    // Keep what the root uses, and the parameters.
    Instruction* root = value.at(flat->root());
    absl::flat_hash_set<const Instruction*> live;
    std::vector<const Instruction*> stack = {root};
    while (!stack.empty()) {
      const Instruction* i = stack.back();
      stack.pop_back();
      if (!live.insert(i).second) continue;
      for (const Instruction* op : i->operands()) stack.push_back(op);
    }
    auto final_entry = std::make_unique<Computation>(
        builder_->UniqueName(src.name()));
    absl::flat_hash_map<const Instruction*, Instruction*> kept;
    std::vector<Instruction*> final_params(params.size());
    for (const auto& owned_inst : entry->instructions()) {
      const Instruction* i = owned_inst.get();
      if (!live.contains(i) && i->opcode() != Opcode::kParameter) continue;
      std::vector<Instruction*> operands;
      for (const Instruction* op : i->operands()) {
        operands.push_back(kept.at(op));
      }
      Instruction* copy = final_entry->AddInstruction(CloneInstruction(
          *i, i->name(), operands,
          [](const Computation* c) { return const_cast<Computation*>(c); }));
      kept[i] = copy;
      if (i->opcode() == Opcode::kParameter) {
        final_params[i->attrs().parameter_number] = copy;
      }
    }
    final_entry->set_parameters(std::move(final_params));
    final_entry->set_root(kept.at(root));
    Computation* added = builder_->out()->AddComputation(std::move(final_entry));
    fused_[&src] = added;
    return added;
  }

 private:
  ModuleBuilder* builder_;
  absl::flat_hash_map<FusionKind, int> counts_;
  absl::flat_hash_map<const Computation*, Computation*> fused_;
};

void CollectFusions(const Computation& c,
                    absl::flat_hash_set<const Computation*>* seen,
                    std::vector<const Instruction*>* out) {
  if (!seen->insert(&c).second) return;
  for (const auto& inst : c.instructions()) {
    if (inst->opcode() == Opcode::kFusion) {
      out->push_back(inst.get());
    } else if (inst->opcode() == Opcode::kWhile ||
               inst->opcode() == Opcode::kConditional) {
      for (const Computation* callee : inst->called_computations()) {
        CollectFusions(*callee, seen, out);
      }
    }
  }
}

}  // namespace

std::vector<const Instruction*> FusionsOf(const Module& fused) {
  std::vector<const Instruction*> out;
  absl::flat_hash_set<const Computation*> seen;
  if (fused.entry() != nullptr) CollectFusions(*fused.entry(), &seen, &out);
  return out;
}

const Instruction* FindFusion(const Module& fused, absl::string_view name) {
  for (const Instruction* f : FusionsOf(fused)) {
    if (f->name() == name) return f;
  }
  return nullptr;
}

absl::StatusOr<std::unique_ptr<Module>> FuseModule(const Module& module) {
  if (module.entry() == nullptr) {
    return absl::InvalidArgumentError("the module has no entry computation");
  }
  auto out = std::make_unique<Module>(module.name());
  *out->mutable_attributes() = module.attributes();
  out->set_source_name(module.source_name());
  ModuleBuilder builder(module, std::move(out));
  ComputationFuser fuser(&builder);
  Computation* entry = fuser.Fuse(*module.entry());
  builder.out()->set_entry(entry);
  return builder.Release();
}

}  // namespace xtune
