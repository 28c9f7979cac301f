#include "fusion/precision.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "ir/clone.h"

namespace xtune {

bool MayExceedPrecision(const Instruction& inst) {
  DType t = inst.shape().IsTuple() ? DType::kPred : inst.shape().dtype();
  if (t != DType::kF16 && t != DType::kBF16) return false;
  switch (inst.opcode()) {
    case Opcode::kDot:
      return true;
    case Opcode::kConvert:
    case Opcode::kBitcastConvert:
    case Opcode::kSelect:
    case Opcode::kClamp:
    case Opcode::kMaximum:
    case Opcode::kMinimum:
    case Opcode::kNegate:
    case Opcode::kAbs:
    case Opcode::kSign:
    case Opcode::kCopy:
      return false;
    default:
      return IsElementwise(inst.opcode());
  }
}

namespace {

class Rounder {
 public:
  explicit Rounder(const Computation& entry)
      : module_(std::make_unique<Module>("no_excess_precision")) {
    module_->set_entry(Copy(&entry));
  }
  std::unique_ptr<Module> Release() { return std::move(module_); }

 private:
  Computation* Copy(const Computation* src) {
    auto it = copies_.find(src);
    if (it != copies_.end()) return it->second;
    auto copy = std::make_unique<Computation>(src->name());
    copy->set_location(src->location());
    absl::flat_hash_map<const Instruction*, Instruction*> mapped;
    for (const auto& inst : src->instructions()) {
      std::vector<Instruction*> operands;
      for (const Instruction* op : inst->operands()) {
        operands.push_back(mapped.at(op));
      }
      Instruction* value = copy->AddInstruction(CloneInstruction(
          *inst, inst->name(), operands,
          [this](const Computation* c) { return Copy(c); }));
      if (MayExceedPrecision(*inst)) {
        Shape wide = inst->shape();
        wide.set_dtype(DType::kF32);
        auto up = std::make_unique<Instruction>(
            absl::StrCat(inst->name(), ".wide"), Opcode::kConvert, wide);
        up->set_location(inst->location());
        up->AppendOperand(value);
        Instruction* up_raw = copy->AddInstruction(std::move(up));
        auto down = std::make_unique<Instruction>(
            absl::StrCat(inst->name(), ".round"), Opcode::kConvert,
            inst->shape());
        down->set_location(inst->location());
        down->AppendOperand(up_raw);
        value = copy->AddInstruction(std::move(down));
      }
      mapped[inst.get()] = value;
    }
    std::vector<Instruction*> params;
    for (const Instruction* p : src->parameters()) params.push_back(mapped.at(p));
    copy->set_parameters(std::move(params));
    copy->set_root(mapped.at(src->root()));
    Computation* raw = module_->AddComputation(std::move(copy));
    copies_[src] = raw;
    return raw;
  }

  std::unique_ptr<Module> module_;
  absl::flat_hash_map<const Computation*, Computation*> copies_;
};

}  // namespace

std::unique_ptr<Module> RoundEveryLowPrecisionResult(
    const Computation& computation) {
  return Rounder(computation).Release();
}

}  // namespace xtune
