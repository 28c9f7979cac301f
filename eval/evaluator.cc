#include "eval/evaluator.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "eval/dot.h"
#include "eval/library_call.h"
#include "ir/library_call.h"
#include "eval/elementwise.h"
#include "eval/indexing.h"
#include "eval/control_flow.h"
#include "eval/reduce.h"
#include "eval/rng.h"
#include "eval/shape_ops.h"
#include "eval/sort.h"
#include "eval/window.h"
#include "eval/tensor.h"
#include "ir/collectives.h"
#include "ir/dot_precision.h"
#include "ir/module.h"
#include "util/status_macros.h"

namespace xtune {
namespace {

bool IsLowFloat(DType t) {
  return t == DType::kF16 || t == DType::kBF16 || IsFp8(t);
}

// `s` with f16/bf16 widened to f32 (arrays; tuples element by element).
Shape Widened(const Shape& s) {
  if (s.IsTuple()) {
    std::vector<Shape> elements;
    for (const Shape& e : s.tuple_shapes()) elements.push_back(Widened(e));
    return Shape::Tuple(std::move(elements));
  }
  Shape w = s;
  if (IsLowFloat(w.dtype())) w.set_dtype(DType::kF32);
  return w;
}

// Relabels f16/bf16 values as f32 (their values are exact in f32), so later
// ops compute and round in f32.
void Widen(Tensor* t) {
  for (Tensor& e : t->tuple) Widen(&e);
  if (!t->shape.IsTuple() && IsLowFloat(t->shape.dtype())) {
    t->shape.set_dtype(DType::kF32);
  }
}

// Rounds a widened value back to `declared` (a store, or an op that needs
// the bits of its element type).
void Narrow(Tensor* t, const Shape& declared) {
  if (declared.IsTuple()) {
    for (size_t k = 0; k < t->tuple.size(); ++k) {
      Narrow(&t->tuple[k], declared.tuple_shapes()[k]);
    }
    return;
  }
  if (IsLowFloat(declared.dtype()) && t->shape.dtype() != declared.dtype()) {
    t->shape.set_dtype(declared.dtype());
    for (double& v : t->f) v = RoundToType(v, declared.dtype());
  }
}

int64_t WorkingBytes(const Shape& s) {
  if (s.IsTuple()) {
    int64_t total = 0;
    for (const Shape& e : s.tuple_shapes()) total += WorkingBytes(e);
    return total;
  }
  return s.ElementCount() * 8;
}

class Evaluator {
 public:
  explicit Evaluator(const EvaluatorOptions& options) : options_(options) {}

  absl::StatusOr<Tensor> Run(const Computation& c,
                             const std::vector<const Tensor*>& args) {
    const auto& instructions = c.instructions();
    size_t n = instructions.size();
    absl::flat_hash_map<const Instruction*, size_t> position;
    for (size_t p = 0; p < n; ++p) position[instructions[p].get()] = p;
    // Free each value after its last use, keeping the root.
    std::vector<size_t> last_use(n, 0);
    for (size_t p = 0; p < n; ++p) {
      for (const Instruction* op : instructions[p]->operands()) {
        size_t& lu = last_use[position[op]];
        lu = std::max(lu, p);
      }
    }
    std::vector<Tensor> values(n);
    for (size_t p = 0; p < n; ++p) {
      const Instruction& inst = *instructions[p];
      std::vector<const Tensor*> operands;
      for (const Instruction* op : inst.operands()) {
        operands.push_back(&values[position[op]]);
      }
      absl::StatusOr<Tensor> value = EvalInstruction(inst, operands, args);
      if (!value.ok()) return Annotate(inst, value.status());
      if (options_.excess_precision) {
        // A fusion's (or library call's) output is stored, so rounded to
        // its type first.
        if (inst.opcode() == Opcode::kFusion ||
            inst.opcode() == Opcode::kCustomCall) {
          Narrow(&*value, inst.shape());
        }
        Widen(&*value);
      }
      values[p] = std::move(*value);
      for (const Instruction* op : inst.operands()) {
        size_t q = position[op];
        if (last_use[q] == p && op != c.root()) values[q] = Tensor();
      }
    }
    return std::move(values[position[c.root()]]);
  }

 private:
  // Prefixes errors from an instruction with where it is, once.
  absl::Status Annotate(const Instruction& inst, const absl::Status& s) {
    if (absl::StrContains(s.message(), "instruction '")) return s;
    const Computation* c = inst.parent();
    std::string where =
        c && c->parent() && !c->parent()->source_name().empty()
            ? c->parent()->source_name()
            : "<module>";
    return absl::Status(
        s.code(), absl::StrCat(where, ":", inst.location().line, ":",
                               inst.location().column, ": instruction '",
                               inst.name(), "' (", OpcodeName(inst.opcode()),
                               "): ", s.message()));
  }

  absl::StatusOr<Tensor> EvalInstruction(const Instruction& inst,
                                         const std::vector<const Tensor*>& ops,
                                         const std::vector<const Tensor*>& args) {
    if (int64_t bytes = WorkingBytes(inst.shape());
        bytes > options_.max_value_bytes) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "the value ", inst.shape().ToString(false), " needs ", bytes,
          " bytes, over the evaluator's limit of ", options_.max_value_bytes));
    }
    const InstructionAttrs& a = inst.attrs();
    Opcode op = inst.opcode();
    // With excess precision every op but the rounding points computes its
    // f16/bf16 result as f32.
    bool rounds = op == Opcode::kConvert || op == Opcode::kIota ||
                  op == Opcode::kReducePrecision ||
                  op == Opcode::kBitcastConvert || op == Opcode::kParameter ||
                  op == Opcode::kConstant || op == Opcode::kFusion ||
                  op == Opcode::kCustomCall;
    const Shape out = options_.excess_precision && !rounds
                          ? Widened(inst.shape())
                          : inst.shape();
    if (op == Opcode::kReducePrecision) {
      Tensor r(out);
      for (int64_t k = 0; k < r.size(); ++k) {
        r.f[k] = ReducePrecision(ops[0]->f[k], out.dtype(),
                                 static_cast<int>(a.exponent_bits),
                                 static_cast<int>(a.mantissa_bits));
      }
      return r;
    }
    if (IsUnaryElementwise(op)) return EvalUnary(op, *ops[0], out.dtype());
    if (IsBinaryElementwise(op)) return EvalBinary(op, *ops[0], *ops[1]);
    switch (op) {
      case Opcode::kParameter:
        return *args[a.parameter_number];
      case Opcode::kConstant:
        if (a.literal_elided) {
          return absl::UnimplementedError(
              "the constant's value is elided ({...}) and cannot be "
              "evaluated");
        }
        return FromLiteral(a.literal);
      case Opcode::kIota:
        return EvalIota(out, a.iota_dimension);
      case Opcode::kBitcastConvert:
        // The bits of the operand's own element type.
        if (options_.excess_precision) {
          Tensor bits = *ops[0];
          Narrow(&bits, inst.operand(0)->shape());
          return EvalBitcastConvert(bits, out);
        }
        return EvalBitcastConvert(*ops[0], out);
      case Opcode::kBroadcast:
        return EvalBroadcast(*ops[0], out, a.dimensions);
      case Opcode::kReshape:
        return EvalReshape(*ops[0], out);
      case Opcode::kBitcast:
        if (inst.shape().IsArray() && inst.operand(0)->shape().IsArray() &&
            inst.shape().dtype() != inst.operand(0)->shape().dtype()) {
          // A type-changing bitcast reads the bits of the operand's own
          // type (a kept-f32 f16 value is rounded back first), as
          // bitcast-convert does.
          Tensor bits = *ops[0];
          if (options_.excess_precision) Narrow(&bits, inst.operand(0)->shape());
          return EvalBitcast(bits, inst.operand(0)->shape(), inst.shape());
        }
        return EvalBitcast(*ops[0],
                           options_.excess_precision
                               ? Widened(inst.operand(0)->shape())
                               : inst.operand(0)->shape(),
                           out);
      case Opcode::kTranspose:
        return EvalTranspose(*ops[0], out, a.dimensions);
      case Opcode::kSlice:
        return EvalSlice(*ops[0], out, a.slice);
      case Opcode::kConcatenate:
        return EvalConcatenate(ops, out, a.dimensions[0]);
      case Opcode::kPad:
        return EvalPad(*ops[0], *ops[1], out, a.padding);
      case Opcode::kReverse:
        return EvalReverse(*ops[0], a.dimensions);
      case Opcode::kDot: {
        // A dot reads its operands in their own type (tensor cores, packed
        // tiles, XLA's materialized operands): a kept-f32 f16/bf16 operand
        // is rounded first, as every gemm kernel rounds it.
        const Tensor* x = ops[0];
        const Tensor* y = ops[1];
        Tensor narrow_x, narrow_y;  // copies only when a rounding is due
        if (options_.excess_precision) {
          if (x->shape.dtype() != inst.operand(0)->shape().dtype()) {
            narrow_x = *x;
            Narrow(&narrow_x, inst.operand(0)->shape());
            x = &narrow_x;
          }
          if (y->shape.dtype() != inst.operand(1)->shape().dtype()) {
            narrow_y = *y;
            Narrow(&narrow_y, inst.operand(1)->shape());
            y = &narrow_y;
          }
        }
        if (options_.tf32_dots && DotAllowsTf32(inst)) {
          return EvalDot(Tf32(*x), Tf32(*y), a.dot, out);
        }
        return EvalDot(*x, *y, a.dot, out);
      }
      case Opcode::kConvolution: {
        // As a dot: operands read in their own type.
        Tensor x = *ops[0], y = *ops[1];
        if (options_.excess_precision) {
          Narrow(&x, inst.operand(0)->shape());
          Narrow(&y, inst.operand(1)->shape());
        }
        return EvalConvolution(x, y, a, out);
      }
      case Opcode::kReduceWindow: {
        size_t half = ops.size() / 2;
        return EvalReduceWindow(std::vector<const Tensor*>(ops.begin(), ops.begin() + half),
                                std::vector<const Tensor*>(ops.begin() + half, ops.end()),
                                a.window, *inst.called_computations()[0], out, Runner());
      }
      case Opcode::kSelectAndScatter:
        return EvalSelectAndScatter(*ops[0], *ops[1], *ops[2], a.window,
                                    *inst.called_computations()[0],
                                    *inst.called_computations()[1], Runner());
      case Opcode::kReduce: {
        size_t half = ops.size() / 2;
        std::vector<const Tensor*> inputs(ops.begin(), ops.begin() + half);
        std::vector<const Tensor*> inits(ops.begin() + half, ops.end());
        return EvalReduce(inputs, inits, a.dimensions,
                          *inst.called_computations()[0], out,
                          [this](const Computation& c,
                                 const std::vector<const Tensor*>& args) {
                            return Run(c, args);
                          });
      }
      case Opcode::kSelect:
        return EvalSelect(*ops[0], *ops[1], *ops[2]);
      case Opcode::kClamp:
        return EvalClamp(*ops[0], *ops[1], *ops[2]);
      case Opcode::kCompare:
        return EvalCompare(a.direction, a.comparison_type, *ops[0], *ops[1]);
      case Opcode::kFusion:
      case Opcode::kCall:
        return Run(*inst.called_computations()[0], ops);
      case Opcode::kTuple: {
        Tensor t;
        t.shape = out;
        for (const Tensor* o : ops) t.tuple.push_back(*o);
        return t;
      }
      case Opcode::kGetTupleElement:
        return ops[0]->tuple[a.tuple_index];
      case Opcode::kCopy:
        return *ops[0];
      case Opcode::kDynamicSlice:
        return EvalDynamicSlice(
            *ops[0], std::vector<const Tensor*>(ops.begin() + 1, ops.end()),
            out);
      case Opcode::kDynamicUpdateSlice:
        return EvalDynamicUpdateSlice(
            *ops[0], *ops[1],
            std::vector<const Tensor*>(ops.begin() + 2, ops.end()));
      case Opcode::kWhile:
        return EvalWhile(inst, *ops[0], Runner());
      case Opcode::kConditional:
        return EvalConditional(inst, ops, Runner());
      case Opcode::kOptimizationBarrier:
      case Opcode::kAddDependency:
        return *ops[0];
      case Opcode::kRngBitGenerator:
        return EvalRngBitGenerator(inst, *ops[0]);
      case Opcode::kCustomCall:
        if (IsAnnotationCustomCall(inst)) return *ops[0];
        return EvalLibraryCall(inst, ops, out, options_.tf32_dots);
      case Opcode::kAfterAll: {
        Tensor t;  // a token: an empty tuple
        t.shape = out;
        return t;
      }
      case Opcode::kGather:
        return EvalGather(*ops[0], *ops[1], MakeGatherPlan(inst), out);
      case Opcode::kScatter: {
        size_t n = ops.size() / 2;
        return EvalScatter(
            std::vector<const Tensor*>(ops.begin(), ops.begin() + n), *ops[n],
            std::vector<const Tensor*>(ops.begin() + n + 1, ops.end()),
            MakeScatterPlan(inst), *inst.called_computations()[0], out,
            [this](const Computation& c,
                   const std::vector<const Tensor*>& args) {
              return Run(c, args);
            });
      }
      case Opcode::kSort:
        return EvalSort(ops, inst.attrs().dimensions[0],
                        *inst.called_computations()[0], out,
                        [this](const Computation& c,
                               const std::vector<const Tensor*>& args) {
                          return Run(c, args);
                        });
      case Opcode::kMap: {
        // The computation on every element, operands in row-major order.
        Tensor result(out);
        std::vector<Tensor> args(ops.size());
        std::vector<const Tensor*> arg_ptrs(ops.size());
        for (int64_t k = 0; k < result.size(); ++k) {
          for (size_t a = 0; a < ops.size(); ++a) {
            args[a] = ScalarOf(*ops[a], k);
            arg_ptrs[a] = &args[a];
          }
          XTUNE_ASSIGN_OR_RETURN(Tensor v,
                                 Run(*inst.called_computations()[0], arg_ptrs));
          Store(result, k, v);
        }
        return result;
      }
      case Opcode::kTopK:
        return EvalTopK(*ops[0], inst.attrs().k, inst.attrs().largest, out);
      case Opcode::kReplicaId:
      case Opcode::kPartitionId:
        return Tensor(out);  // one device: id 0 (ir/collectives.h)
      case Opcode::kCollectivePermute:
        if (!PermuteKeepsReplicaZero(inst)) {
          return Tensor(out);  // nobody sends to replica 0: zeros
        }
        if (ops.size() == 1) return *ops[0];
        {
          Tensor t;  // several operands permute together
          t.shape = out;
          for (const Tensor* o : ops) t.tuple.push_back(*o);
          return t;
        }
      case Opcode::kAllGather:
      case Opcode::kReduceScatter:
      case Opcode::kAllToAll:
      case Opcode::kAllReduce: {
        // One replica: the identity.
        if (ops.size() == 1) return *ops[0];
        Tensor t;
        t.shape = out;
        for (const Tensor* o : ops) t.tuple.push_back(*o);
        return t;
      }
      default:
        break;
    }
    return absl::UnimplementedError(
        absl::StrCat("the evaluator does not implement ", OpcodeName(op)));
  }

  ComputationRunner Runner() {
    return [this](const Computation& c,
                  const std::vector<const Tensor*>& args) {
      return Run(c, args);
    };
  }

  EvaluatorOptions options_;
};

}  // namespace

absl::StatusOr<Literal> EvaluateComputation(const Computation& computation,
                                            absl::Span<const Literal> arguments,
                                            const EvaluatorOptions& options) {
  if (static_cast<int64_t>(arguments.size()) != computation.parameter_count()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "computation '", computation.name(), "' takes ",
        computation.parameter_count(), " arguments, got ", arguments.size()));
  }
  std::vector<Tensor> args;
  for (size_t i = 0; i < arguments.size(); ++i) {
    const Shape& expected = computation.parameter(i)->shape();
    if (!arguments[i].shape().Compatible(expected)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "argument ", i, " has shape ", arguments[i].shape().ToString(false),
          " but parameter ", i, " ('", computation.parameter(i)->name(),
          "') is ", expected.ToString(false)));
    }
    args.push_back(FromLiteral(arguments[i]));
  }
  std::vector<const Tensor*> arg_ptrs;
  for (const Tensor& t : args) arg_ptrs.push_back(&t);
  Evaluator evaluator(options);
  XTUNE_ASSIGN_OR_RETURN(Tensor result, evaluator.Run(computation, arg_ptrs));
  return ToLiteral(result, computation.root()->shape());
}

absl::StatusOr<Literal> Evaluate(const Module& module,
                                 absl::Span<const Literal> arguments,
                                 const EvaluatorOptions& options) {
  if (module.entry() == nullptr) {
    return absl::InvalidArgumentError("the module has no entry computation");
  }
  return EvaluateComputation(*module.entry(), arguments, options);
}

}  // namespace xtune
