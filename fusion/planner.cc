#include "fusion/planner.h"

#include <algorithm>
#include <functional>

#include "absl/container/flat_hash_map.h"

#include "fusion/conv_as_dot.h"
#include "fusion/definition_order.h"

namespace xtune {
namespace {

bool IsEntryOnly(Opcode op) {
  return op == Opcode::kParameter || op == Opcode::kTuple ||
         op == Opcode::kGetTupleElement || op == Opcode::kFusion ||
         op == Opcode::kConstant || op == Opcode::kWhile ||
         op == Opcode::kConditional;
}

bool IsCheapToDuplicate(const Instruction& i) {
  return i.opcode() == Opcode::kConstant || i.opcode() == Opcode::kIota ||
         i.opcode() == Opcode::kBroadcast;
}

bool IsGemmProducer(Opcode op) {
  return op == Opcode::kConvert || op == Opcode::kBitcast ||
         op == Opcode::kReshape || op == Opcode::kTranspose ||
         op == Opcode::kBroadcast || op == Opcode::kCopy;
}

class Planner {
 public:
  explicit Planner(const Computation& flat) : flat_(flat) {
    int p = 0;
    for (const auto& i : flat.instructions()) pos_[i.get()] = p++;
  }

  std::vector<FusionGroup> Run() {
    for (const auto& owned : flat_.instructions()) {
      if (owned->opcode() == Opcode::kDot && !Owned(owned.get())) {
        PlanGemm(owned.get(), FusionKind::kGemm);
      }
    }
    for (const auto& owned : flat_.instructions()) {
      if (ConvolutionIsImplicitGemm(*owned) && !Owned(owned.get())) {
        PlanGemm(owned.get(), FusionKind::kConv);
      }
    }
    for (const auto& owned : flat_.instructions()) {
      if (owned->opcode() == Opcode::kReduce && !Owned(owned.get())) {
        if (owned->shape().IsTuple()) {
          PlanPerOutput(owned.get(), FusionKind::kReduction);
        } else {
          PlanReduction(owned.get());
        }
      }
    }
    for (const auto& owned : flat_.instructions()) {
      if (owned->opcode() == Opcode::kScatter && !Owned(owned.get())) {
        PlanScatter(owned.get());
      }
    }
    for (const auto& owned : flat_.instructions()) {
      const Opcode op = owned->opcode();
      if ((op == Opcode::kSort || op == Opcode::kTopK) &&
          !Owned(owned.get())) {
        PlanSort(owned.get());
      }
    }
    PlanLoops();
    // Definition order of roots keeps the entry topologically sorted.
    std::vector<uint32_t> root_pos;
    root_pos.reserve(groups_.size());
    for (const FusionGroup& g : groups_) root_pos.push_back(pos_.at(g.root()));
    std::vector<FusionGroup> ordered;
    ordered.reserve(groups_.size());
    for (uint32_t k : OrderByKey(root_pos)) ordered.push_back(std::move(groups_[k]));
    return ordered;
  }

 private:
  // A group under construction.
  struct Draft {
    explicit Draft(FusionKind k) : kind(k) {}
    FusionKind kind;
    std::vector<const Instruction*> added;  // exclusive members, in order
    absl::flat_hash_set<const Instruction*> members;
    absl::flat_hash_set<const Instruction*> duplicated;
    bool Has(const Instruction* i) const {
      return members.contains(i) || duplicated.contains(i);
    }
  };

  bool Owned(const Instruction* i) const { return owner_.contains(i); }

  // Whether `x` is computed (transitively) from any exclusive member of d.
  bool DependsOn(const Instruction* x, const Draft& d) {
    int first = INT32_MAX;
    for (const Instruction* m : d.added) first = std::min(first, pos_[m]);
    std::vector<const Instruction*> stack = {x};
    absl::flat_hash_set<const Instruction*> seen;
    while (!stack.empty()) {
      const Instruction* i = stack.back();
      stack.pop_back();
      if (pos_[i] < first || !seen.insert(i).second) continue;
      if (d.members.contains(i)) return true;
      for (const Instruction* op : i->operands()) stack.push_back(op);
    }
    return false;
  }

  // An operand of a new member that is not a member: fine when it does not
  // depend on the group (it becomes a fusion parameter), or when it is a
  // cheap instruction whose own operands qualify (it is copied in).
  bool AcceptExternal(const Instruction* x, Draft& d,
                      std::vector<const Instruction*>* to_duplicate) {
    if (d.Has(x)) return true;
    if (IsCheapToDuplicate(*x) && x->opcode() != Opcode::kConstant) {
      for (const Instruction* op : x->operands()) {
        if (!AcceptExternal(op, d, to_duplicate)) return false;
      }
      to_duplicate->push_back(x);
      return true;
    }
    if (x->opcode() == Opcode::kConstant) {
      to_duplicate->push_back(x);
      return true;
    }
    return !DependsOn(x, d);
  }

  // Adds `u` as an exclusive member if all its other operands are accepted.
  bool TryAdd(const Instruction* u, Draft& d) {
    std::vector<const Instruction*> dup;
    for (const Instruction* op : u->operands()) {
      if (d.members.contains(op)) continue;
      if (!AcceptExternal(op, d, &dup)) return false;
    }
    for (const Instruction* x : dup) d.duplicated.insert(x);
    d.added.push_back(u);
    d.members.insert(u);
    return true;
  }

  // Members with a user outside the group, or the computation root.
  std::vector<const Instruction*> Outputs(const Draft& d) const {
    std::vector<const Instruction*> outs;
    for (const Instruction* m : d.added) {
      bool external = m == flat_.root();
      for (const Instruction* u : m->users()) {
        if (!d.members.contains(u)) external = true;
      }
      if (external) outs.push_back(m);
    }
    return outs;
  }

  // Drops the latest members until one output remains (never `core`).
  void TrimToSingleOutput(Draft& d, const Instruction* core) {
    while (Outputs(d).size() > 1 && d.added.back() != core) {
      d.members.erase(d.added.back());
      d.added.pop_back();
    }
    // Duplicates no member uses any more are dropped.
    absl::flat_hash_set<const Instruction*> needed;
    std::function<void(const Instruction*)> mark = [&](const Instruction* i) {
      for (const Instruction* op : i->operands()) {
        if (d.duplicated.contains(op) && needed.insert(op).second) mark(op);
      }
    };
    for (const Instruction* m : d.added) mark(m);
    d.duplicated = needed;
  }

  void Commit(Draft& d) {
    FusionGroup g;
    g.kind = d.kind;
    g.members = d.added;
    SortByPosition(g.members, pos_);
    g.duplicated = d.duplicated;
    for (const Instruction* m : g.members) owner_[m] = groups_.size();
    groups_.push_back(std::move(g));
  }

  // Grows `d` with consumers of its members accepted by `allowed`, in
  // definition order, until nothing more can be added.
  void GrowConsumers(Draft& d,
                     const std::function<bool(const Instruction*)>& allowed) {
    bool changed = true;
    while (changed) {
      changed = false;
      for (const auto& owned : flat_.instructions()) {
        const Instruction* u = owned.get();
        if (d.members.contains(u) || Owned(u) || IsEntryOnly(u->opcode())) {
          continue;
        }
        bool uses_member = false;
        for (const Instruction* op : u->operands()) {
          uses_member |= d.members.contains(op);
        }
        if (uses_member && allowed(u) && TryAdd(u, d)) changed = true;
      }
    }
  }

  // A gemm or conv fusion around `dot` (a dot or a convolution).
  void PlanGemm(const Instruction* dot, FusionKind kind) {
    Draft d{kind};
    d.added.push_back(dot);
    d.members.insert(dot);
    // Operand producers: chains of cheap single-user ops, and scalings by a
    // broadcast scalar (XLA's scaled-FP8 pattern: convert, multiply by a
    // broadcast scale, dot), which the loaders apply per element.
    auto single_use = [&](const Instruction* o, const Instruction* consumer) {
      return !Owned(o) && o->users().size() == 1 && o->users()[0] == consumer &&
             o != flat_.root();
    };
    for (const Instruction* o : dot->operands()) {
      const Instruction* consumer = dot;
      while (single_use(o, consumer)) {
        const Instruction* next = nullptr;
        const Instruction* scale = nullptr;
        if (IsGemmProducer(o->opcode())) {
          next = o->operand(0);
        } else if (o->opcode() == Opcode::kMultiply) {
          for (int s = 0; s < 2 && scale == nullptr; ++s) {
            const Instruction* b = o->operand(s);
            if (b->opcode() == Opcode::kBroadcast && b->operand(0)->shape().IsArray() &&
                b->operand(0)->shape().rank() == 0 && single_use(b, o) &&
                o->operand(1 - s) != b) {
              scale = b;
              next = o->operand(1 - s);
            }
          }
        }
        if (next == nullptr) break;
        d.added.push_back(o);
        d.members.insert(o);
        if (scale != nullptr) {
          d.added.push_back(scale);
          d.members.insert(scale);
        }
        consumer = o;
        o = next;
      }
    }
    // Epilogue: elementwise ops over the dot's result.
    const std::vector<int64_t>& dims = dot->shape().dims();
    GrowConsumers(d, [&](const Instruction* u) {
      return IsElementwise(u->opcode()) && u->shape().IsArray() &&
             u->shape().dims() == dims;
    });
    TrimToSingleOutput(d, dot);
    Commit(d);
  }

  // Reduce `r` reduces its (default-layout) input's minor dimensions.
  static bool IsRowReduce(const Instruction* r) {
    const Shape& in = r->operand(0)->shape();
    if (!in.HasDefaultLayout()) return false;
    std::vector<int64_t> dims = r->attrs().dimensions;
    std::sort(dims.begin(), dims.end());
    if (dims.empty()) return false;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] != in.rank() - static_cast<int64_t>(dims.size()) +
                         static_cast<int64_t>(i)) {
        return false;
      }
    }
    return true;
  }

  void PlanReduction(const Instruction* r) {
    Draft d{FusionKind::kReduction};
    d.added.push_back(r);
    d.members.insert(r);
    int64_t n = r->operand_count() / 2;
    for (int64_t i = n; i < 2 * n; ++i) {
      std::vector<const Instruction*> dup;
      if (AcceptExternal(r->operand(i), d, &dup)) {
        for (const Instruction* x : dup) d.duplicated.insert(x);
      }
    }
    // Producers: elementwise ops over the reduced input, used only here.
    const std::vector<int64_t>& in_dims = r->operand(0)->shape().dims();
    AddProducers(d, r, in_dims, n);
    if (n == 1 && IsRowReduce(r)) GrowRowEpilogue(d, r);
    TrimToSingleOutput(d, r);
    Commit(d);
  }

  // Pulls single-user elementwise producers of the first `count` operands of
  // `consumer` (and theirs, recursively) into d.
  void AddProducers(Draft& d, const Instruction* consumer,
                    const std::vector<int64_t>& dims, int64_t count) {
    std::vector<const Instruction*> stack;
    for (int64_t i = 0; i < count; ++i) stack.push_back(consumer->operand(i));
    while (!stack.empty()) {
      const Instruction* p = stack.back();
      stack.pop_back();
      if (d.Has(p) || Owned(p) || !IsElementwise(p->opcode()) ||
          p->shape().dims() != dims || p == flat_.root()) {
        continue;
      }
      bool all_users_inside = true;
      for (const Instruction* u : p->users()) {
        all_users_inside &= d.members.contains(u);
      }
      if (!all_users_inside) continue;
      d.added.push_back(p);
      d.members.insert(p);
      for (const Instruction* op : p->operands()) stack.push_back(op);
    }
  }

  // A scatter with its updates' elementwise producers and its operands'
  // cheap producers (a broadcast zero, as JAX's scatter-add gradients
  // start from).
  void PlanScatter(const Instruction* s) {
    Draft d{FusionKind::kScatter};
    d.added.push_back(s);
    d.members.insert(s);
    const int64_t n = s->operand_count() / 2;
    for (int64_t i = 0; i < n; ++i) {
      std::vector<const Instruction*> dup;
      const Instruction* x = s->operand(i);
      if (IsCheapToDuplicate(*x) && AcceptExternal(x, d, &dup)) {
        for (const Instruction* c : dup) d.duplicated.insert(c);
      }
    }
    std::vector<const Instruction*> stack;
    for (int64_t i = n + 1; i < 2 * n + 1; ++i) stack.push_back(s->operand(i));
    const std::vector<int64_t>& dims = s->operand(n + 1)->shape().dims();
    while (!stack.empty()) {
      const Instruction* p = stack.back();
      stack.pop_back();
      if (d.Has(p) || Owned(p) || !IsElementwise(p->opcode()) ||
          p->shape().dims() != dims || p == flat_.root()) {
        continue;
      }
      bool all_users_inside = true;
      for (const Instruction* u : p->users()) {
        all_users_inside &= d.members.contains(u);
      }
      if (!all_users_inside) continue;
      d.added.push_back(p);
      d.members.insert(p);
      for (const Instruction* op : p->operands()) {
        std::vector<const Instruction*> dup;
        if (IsCheapToDuplicate(*op) && !d.Has(op) &&
            AcceptExternal(op, d, &dup)) {
          for (const Instruction* c : dup) d.duplicated.insert(c);
        }
        stack.push_back(op);
      }
    }
    Commit(d);
  }

  // A sort (or topk) with its operands' cheap producers. One of a single
  // array is the fusion's root; one with a tuple result gets a fusion per
  // get-tuple-element using it (PlanPerOutput: the sort is repeated per
  // output used; its other users, if any, keep it whole).
  void PlanSort(const Instruction* s) {
    auto pull_operands = [&](Draft& d) {
      for (const Instruction* x : s->operands()) {
        std::vector<const Instruction*> dup;
        if (IsCheapToDuplicate(*x) && AcceptExternal(x, d, &dup)) {
          for (const Instruction* c : dup) d.duplicated.insert(c);
        }
      }
    };
    if (s->shape().IsArray()) {
      Draft d{FusionKind::kSort};
      d.added.push_back(s);
      d.members.insert(s);
      pull_operands(d);
      Commit(d);
      return;
    }
    PlanPerOutput(s, FusionKind::kSort);
  }

  // An instruction of several outputs (a variadic sort or reduce, a topk)
  // used through get-tuple-elements: a fusion per one used, rooted at it,
  // with a copy of `s` and the cheap producers of its operands.
  void PlanPerOutput(const Instruction* s, FusionKind kind) {
    for (const Instruction* u : s->users()) {
      if (u->opcode() != Opcode::kGetTupleElement || Owned(u)) continue;
      Draft d{kind};
      d.duplicated.insert(s);
      d.added.push_back(u);
      d.members.insert(u);
      for (const Instruction* x : s->operands()) {
        std::vector<const Instruction*> dup;
        if (IsCheapToDuplicate(*x) && AcceptExternal(x, d, &dup)) {
          for (const Instruction* c : dup) d.duplicated.insert(c);
        }
      }
      Commit(d);
    }
  }

  // Softmax / layer-norm style epilogues of a row reduction.
  void GrowRowEpilogue(Draft& d, const Instruction* r) {
    const Shape& in = r->operand(0)->shape();
    const std::vector<int64_t>& full = in.dims();
    const std::vector<int64_t>& row = r->shape().dims();
    int64_t rows = r->shape().ElementCount();
    int64_t kept = static_cast<int64_t>(row.size());
    std::vector<int64_t> row_positions;  // broadcast dims ROW -> FULL
    for (int64_t i = 0; i < kept; ++i) row_positions.push_back(i);
    auto is_full = [&](const Shape& s) {
      return s.IsArray() && s.dims() == full && s.HasDefaultLayout();
    };
    auto is_row = [&](const Shape& s) {
      return s.IsArray() && s.ElementCount() == rows && !is_full(s) &&
             s.HasDefaultLayout();
    };
    GrowConsumers(d, [&](const Instruction* u) {
      const Shape& s = u->shape();
      switch (u->opcode()) {
        case Opcode::kBroadcast:
          return is_full(s) && u->attrs().dimensions == row_positions &&
                 u->operand(0)->shape().dims() == row;
        case Opcode::kReshape:
        case Opcode::kBitcast:
          return is_row(s) && is_row(u->operand(0)->shape());
        case Opcode::kReduce: {
          std::vector<int64_t> dims = u->attrs().dimensions;
          std::vector<int64_t> want = r->attrs().dimensions;
          std::sort(dims.begin(), dims.end());
          std::sort(want.begin(), want.end());
          return u->operand_count() == 2 && dims == want &&
                 is_full(u->operand(0)->shape());
        }
        default:
          if (!IsElementwise(u->opcode())) return false;
          if (is_full(s)) {
            for (const Instruction* op : u->operands()) {
              if (!is_full(op->shape())) return false;
            }
            return true;
          }
          if (is_row(s)) {
            for (const Instruction* op : u->operands()) {
              if (op->shape().dims() != s.dims()) return false;
            }
            return true;
          }
          return false;
      }
    });
  }

  // The remaining computation, as maximal single-output loop fusions.
  void PlanLoops() {
    // Which un-owned instructions must exist on their own: used by the
    // entry (tuples, existing fusions, the root) or by a group that does not
    // copy them.
    absl::flat_hash_map<const Instruction*, std::vector<size_t>> dup_in;
    for (size_t g = 0; g < groups_.size(); ++g) {
      for (const Instruction* x : groups_[g].duplicated) dup_in[x].push_back(g);
    }
    auto needed_alone = [&](const Instruction* x) {
      if (x == flat_.root()) return true;
      for (const Instruction* u : x->users()) {
        auto it = owner_.find(u);
        if (it == owner_.end()) return true;  // entry-level or loop member
        const std::vector<size_t>& dups = dup_in[x];
        if (std::find(dups.begin(), dups.end(), it->second) == dups.end()) {
          return true;
        }
      }
      return false;
    };
    const auto& insts = flat_.instructions();
    for (auto it = insts.rbegin(); it != insts.rend(); ++it) {
      const Instruction* u = it->get();
      if (Owned(u) || IsEntryOnly(u->opcode()) || !needed_alone(u)) continue;
      Draft d{FusionKind::kLoop};
      d.added.push_back(u);
      d.members.insert(u);
      std::vector<const Instruction*> stack(u->operands().begin(),
                                            u->operands().end());
      while (!stack.empty()) {
        const Instruction* p = stack.back();
        stack.pop_back();
        if (d.Has(p) || Owned(p) || p == flat_.root()) continue;
        if (p->opcode() == Opcode::kConstant) {
          d.duplicated.insert(p);
          continue;
        }
        if (IsEntryOnly(p->opcode()) || p->opcode() == Opcode::kDot ||
            p->opcode() == Opcode::kReduce ||
            p->opcode() == Opcode::kScatter || p->opcode() == Opcode::kSort ||
            p->opcode() == Opcode::kTopK) {
          continue;
        }
        bool all_users_inside = true;
        for (const Instruction* user : p->users()) {
          all_users_inside &= d.members.contains(user);
        }
        if (all_users_inside) {
          d.added.push_back(p);
          d.members.insert(p);
        } else if (IsCheapToDuplicate(*p)) {
          d.duplicated.insert(p);
        } else {
          continue;
        }
        for (const Instruction* op : p->operands()) stack.push_back(op);
      }
      // What this group copies in need not exist alone for it (a broadcast
      // that all its users duplicate); its operands are then needed alone.
      for (const Instruction* x : d.duplicated) dup_in[x].push_back(groups_.size());
      Commit(d);
    }
  }

  const Computation& flat_;
  Positions pos_;
  absl::flat_hash_map<const Instruction*, size_t> owner_;
  std::vector<FusionGroup> groups_;
};

}  // namespace

std::vector<FusionGroup> PlanFusions(const Computation& flat) {
  return Planner(flat).Run();
}

}  // namespace xtune
