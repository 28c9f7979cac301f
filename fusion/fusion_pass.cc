#include "fusion/fusion_pass.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "fusion/flatten.h"
#include "fusion/planner.h"
#include "ir/clone.h"

namespace xtune {
namespace {

constexpr char kGemmBackendConfig[] =
    R"({"fusion_backend_config":{"kind":"__triton_gemm"}})";

class ModuleBuilder {
 public:
  ModuleBuilder(const Module& src, std::unique_ptr<Module> out)
      : src_(src), out_(std::move(out)) {}

  // The copy of `c` (a computation of the source module) in the output,
  // made on first use so that only what is referenced is copied.
  Computation* Copy(const Computation* c) {
    auto it = copies_.find(c);
    if (it != copies_.end()) return it->second;
    Computation* copy = CopyComputation(
        *c, out_.get(), UniqueComputationName(c->name()),
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
    std::sort(insts.begin(), insts.end(),
              [&](const Instruction* a, const Instruction* b) {
                return pos.at(a) < pos.at(b);
              });
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
  absl::flat_hash_set<std::string> taken_;
  absl::flat_hash_map<std::string, int> next_suffix_;
};

const char* KindAttr(FusionKind k) {
  switch (k) {
    case FusionKind::kGemm:
      return "kCustom";
    case FusionKind::kReduction:
    case FusionKind::kScatter:
      return "kInput";
    case FusionKind::kLoop:
      return "kLoop";
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
  }
  return "loop";
}

FusionKind ClassifyFusion(const Instruction& fusion) {
  bool has_reduce = false, has_scatter = false;
  for (const auto& i : fusion.called_computations()[0]->instructions()) {
    if (i->opcode() == Opcode::kDot) return FusionKind::kGemm;
    has_reduce |= i->opcode() == Opcode::kReduce;
    has_scatter |= i->opcode() == Opcode::kScatter;
  }
  if (has_scatter) return FusionKind::kScatter;
  return has_reduce ? FusionKind::kReduction : FusionKind::kLoop;
}

absl::StatusOr<std::unique_ptr<Module>> FuseModule(const Module& module) {
  if (module.entry() == nullptr) {
    return absl::InvalidArgumentError("the module has no entry computation");
  }
  Module scratch("scratch");
  const Computation* flat = FlattenEntry(module, &scratch);
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

  auto out = std::make_unique<Module>(module.name());
  *out->mutable_attributes() = module.attributes();
  out->set_source_name(module.source_name());
  ModuleBuilder builder(module, std::move(out));

  // The entry, in definition order; dead instructions are dropped after.
  auto entry = std::make_unique<Computation>(module.entry()->name());
  absl::flat_hash_map<const Instruction*, Instruction*> value;
  absl::flat_hash_map<FusionKind, int> counts;
  std::vector<Instruction*> params(flat->parameter_count());
  for (const auto& owned_inst : flat->instructions()) {
    const Instruction* i = owned_inst.get();
    auto g = root_of.find(i);
    if (g != root_of.end()) {
      FusionKind kind = g->second->kind;
      int n = counts[kind]++;
      std::string suffix = n == 0 ? "" : absl::StrCat(".", n);
      std::string kind_name(FusionKindName(kind));
      if (kind == FusionKind::kReduction) kind_name = "reduce";
      auto [fused, externals] = builder.BuildFused(
          *g->second, absl::StrCat("fused_", kind_name), pos);
      auto fusion = std::make_unique<Instruction>(
          absl::StrCat(kind_name, "_fusion", suffix), Opcode::kFusion,
          i->shape());
      fusion->set_location(i->location());
      fusion->mutable_attrs()->fusion_kind = KindAttr(kind);
      if (kind == FusionKind::kGemm) {
        fusion->mutable_attrs()->backend_config = kGemmBackendConfig;
      }
      for (const Instruction* x : externals) fusion->AppendOperand(value.at(x));
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
      case Opcode::kFusion: {
        std::vector<Instruction*> operands;
        for (const Instruction* op : i->operands()) operands.push_back(value.at(op));
        Instruction* copy = entry->AddInstruction(CloneInstruction(
            *i, i->name(), operands,
            [&builder](const Computation* c) { return builder.Copy(c); }));
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
  auto final_entry = std::make_unique<Computation>(module.entry()->name());
  absl::flat_hash_map<const Instruction*, Instruction*> kept;
  std::vector<Instruction*> final_params(params.size());
  for (const auto& owned_inst : entry->instructions()) {
    const Instruction* i = owned_inst.get();
    if (!live.contains(i) && i->opcode() != Opcode::kParameter) continue;
    std::vector<Instruction*> operands;
    for (const Instruction* op : i->operands()) operands.push_back(kept.at(op));
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
  Module* out_module = builder.out();
  out_module->set_entry(out_module->AddComputation(std::move(final_entry)));
  return builder.Release();
}

}  // namespace xtune
