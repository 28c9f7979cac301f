#include "codegen/cpu/reduction_analysis.h"

#include <algorithm>
#include <functional>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace xtune::cpu {

std::optional<SimpleReduction> AsSimpleReduction(const Instruction& reduce) {
  if (reduce.operand_count() != 2) return std::nullopt;
  DType t = reduce.shape().dtype();
  if (t != DType::kF32 && t != DType::kF16 && t != DType::kBF16) {
    return std::nullopt;
  }
  if (reduce.operand(0)->shape().dtype() != t) return std::nullopt;
  const Computation& c = *reduce.called_computations()[0];
  const Instruction* root = c.root();
  if (root->operand_count() != 2) return std::nullopt;
  bool params = (root->operand(0) == c.parameter(0) &&
                 root->operand(1) == c.parameter(1)) ||
                (root->operand(0) == c.parameter(1) &&
                 root->operand(1) == c.parameter(0));
  if (!params) return std::nullopt;
  switch (root->opcode()) {
    case Opcode::kAdd: return SimpleReduction{Opcode::kAdd, "0.0f"};
    case Opcode::kMultiply: return SimpleReduction{Opcode::kMultiply, "1.0f"};
    case Opcode::kMaximum:
      return SimpleReduction{Opcode::kMaximum, "(-__builtin_inff())"};
    case Opcode::kMinimum:
      return SimpleReduction{Opcode::kMinimum, "__builtin_inff()"};
    default: return std::nullopt;
  }
}

namespace {

// Reduces that `x` depends on (not looking past other reduces).
void ReducesUnder(const Instruction* x,
                  absl::flat_hash_set<const Instruction*>* found) {
  std::vector<const Instruction*> stack(x->operands().begin(),
                                        x->operands().end());
  absl::flat_hash_set<const Instruction*> seen;
  while (!stack.empty()) {
    const Instruction* i = stack.back();
    stack.pop_back();
    if (!seen.insert(i).second) continue;
    if (i->opcode() == Opcode::kReduce) {
      found->insert(i);
      continue;
    }
    for (const Instruction* op : i->operands()) stack.push_back(op);
  }
}

}  // namespace

absl::StatusOr<RowFusion> AnalyzeRowFusion(const Computation& fused) {
  RowFusion f;
  std::vector<const Instruction*> reduces;
  for (const auto& i : fused.instructions()) {
    if (i->opcode() == Opcode::kReduce) reduces.push_back(i.get());
  }
  if (reduces.empty()) return absl::InvalidArgumentError("no reduce");
  const Shape& in = reduces[0]->operand(0)->shape();
  f.full_dims = in.dims();
  int64_t rank = in.rank();
  std::vector<int64_t> reduced = reduces[0]->attrs().dimensions;
  std::sort(reduced.begin(), reduced.end());
  f.kept = rank - static_cast<int64_t>(reduced.size());
  for (size_t i = 0; i < reduced.size(); ++i) {
    if (reduced[i] != f.kept + static_cast<int64_t>(i)) {
      return absl::InvalidArgumentError("not a reduction of minor dimensions");
    }
  }
  for (const Instruction* r : reduces) {
    std::vector<int64_t> dims = r->attrs().dimensions;
    std::sort(dims.begin(), dims.end());
    if (r->operand_count() != 2 || dims != reduced ||
        r->operand(0)->shape().dims() != f.full_dims ||
        !r->operand(0)->shape().HasDefaultLayout() ||
        r->shape().IsTuple()) {
      return absl::InvalidArgumentError("reduces of different shapes");
    }
  }
  f.rows = 1;
  for (int64_t d = 0; d < f.kept; ++d) f.rows *= f.full_dims[d];
  f.columns = 1;
  for (int64_t d = f.kept; d < rank; ++d) f.columns *= f.full_dims[d];
  const Shape& root = fused.root()->shape();
  if (root.IsTuple() || !root.HasDefaultLayout()) {
    return absl::InvalidArgumentError("unsupported root");
  }
  if (root.dims() == f.full_dims) {
    f.root_is_full = true;
  } else if (root.ElementCount() != f.rows) {
    return absl::InvalidArgumentError("root is neither per element nor per row");
  }
  // Pass of each reduce: one more than the latest reduce it needs.
  absl::flat_hash_map<const Instruction*, int> pass;
  std::function<int(const Instruction*)> pass_of = [&](const Instruction* r) {
    auto it = pass.find(r);
    if (it != pass.end()) return it->second;
    absl::flat_hash_set<const Instruction*> deps;
    ReducesUnder(r, &deps);
    int p = 0;
    for (const Instruction* d : deps) p = std::max(p, pass_of(d) + 1);
    pass[r] = p;
    return p;
  };
  int passes = 0;
  for (const Instruction* r : reduces) passes = std::max(passes, pass_of(r) + 1);
  f.passes.resize(passes);
  f.row_values.resize(passes);
  for (const Instruction* r : reduces) f.passes[pass_of(r)].push_back(r);
  // Per-row values computed from reduce results: everything not over the
  // full dims that depends on a reduce, except the reduces themselves.
  for (const auto& owned : fused.instructions()) {
    const Instruction* i = owned.get();
    if (i->opcode() == Opcode::kReduce || i->shape().IsTuple() ||
        i->shape().dims() == f.full_dims) {
      continue;
    }
    absl::flat_hash_set<const Instruction*> deps;
    ReducesUnder(i, &deps);
    if (deps.empty()) continue;
    if (i->shape().ElementCount() != f.rows) {
      return absl::InvalidArgumentError(absl::StrCat(
          "'", i->name(), "' is neither per element nor per row"));
    }
    int p = 0;
    for (const Instruction* d : deps) p = std::max(p, pass_of(d));
    f.row_values[p].push_back(i);
  }
  return f;
}

absl::StatusOr<const Instruction*> AnalyzeColumnFusion(const Computation& fused) {
  const Instruction* r = fused.root();
  if (r->opcode() != Opcode::kReduce || r->operand_count() != 2 ||
      r->shape().IsTuple()) {
    return absl::InvalidArgumentError("root is not a single reduce");
  }
  const Shape& in = r->operand(0)->shape();
  if (!in.HasDefaultLayout() || in.rank() < 2) {
    return absl::InvalidArgumentError("not a column reduction");
  }
  std::vector<int64_t> dims = r->attrs().dimensions;
  std::sort(dims.begin(), dims.end());
  if (static_cast<int64_t>(dims.size()) != in.rank() - 1) {
    return absl::InvalidArgumentError("not a column reduction");
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] != static_cast<int64_t>(i)) {
      return absl::InvalidArgumentError("not a column reduction");
    }
  }
  for (const auto& i : fused.instructions()) {
    if (i->opcode() == Opcode::kReduce && i.get() != r) {
      return absl::InvalidArgumentError("several reduces");
    }
  }
  return r;
}

}  // namespace xtune::cpu
