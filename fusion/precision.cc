#include "fusion/precision.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "ir/clone.h"

namespace xtune {

bool MayExceedPrecision(const Instruction& inst) {
  if (inst.shape().IsTuple()) return false;
  DType t = inst.shape().dtype();
  if (t != DType::kF16 && t != DType::kBF16 && !IsFp8(t)) return false;
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

// `f16 convert(f32 convert(value))`, added to `c`: one rounding in every
// generator.
Instruction* RoundToOwnType(Computation* c, Instruction* value) {
  Shape wide = value->shape();
  wide.set_dtype(DType::kF32);
  auto up = std::make_unique<Instruction>(absl::StrCat(value->name(), ".wide"),
                                          Opcode::kConvert, wide);
  up->set_location(value->location());
  up->AppendOperand(value);
  Instruction* up_raw = c->AddInstruction(std::move(up));
  auto down = std::make_unique<Instruction>(
      absl::StrCat(value->name(), ".round"), Opcode::kConvert, value->shape());
  down->set_location(value->location());
  down->AppendOperand(up_raw);
  return c->AddInstruction(std::move(down));
}

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
    Computation* copy = CopyComputation(
        *src, module_.get(), src->name(),
        [this](const Computation* c) { return Copy(c); },
        [](Computation* c, Instruction* clone) {
          return MayExceedPrecision(*clone) ? RoundToOwnType(c, clone) : clone;
        });
    copies_[src] = copy;
    return copy;
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
