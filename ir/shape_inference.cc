#include "ir/shape_inference.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/computation.h"
#include "ir/rng.h"
#include "ir/library_call.h"
#include "ir/shape_inference_internal.h"
#include "util/status_macros.h"

namespace xtune {
namespace {

absl::Status Invalid(std::string message) {
  return absl::InvalidArgumentError(std::move(message));
}

std::string Dims(const std::vector<int64_t>& v) {
  return absl::StrCat("{", absl::StrJoin(v, ","), "}");
}

absl::Status ExpectOperands(const Instruction& inst, int64_t n) {
  if (inst.operand_count() != n) {
    return Invalid(absl::StrCat(OpcodeName(inst.opcode()), " takes ", n,
                                " operand", n == 1 ? "" : "s", ", got ",
                                inst.operand_count()));
  }
  return absl::OkStatus();
}

absl::Status ExpectArrays(const Instruction& inst) {
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    if (inst.operand(i)->shape().IsTuple()) {
      return Invalid(absl::StrCat("operand ", i, " of ",
                                  OpcodeName(inst.opcode()),
                                  " must be an array, not a tuple"));
    }
  }
  return absl::OkStatus();
}

bool IsFloatOnlyUnary(Opcode op) {
  switch (op) {
    case Opcode::kExp:
    case Opcode::kExpm1:
    case Opcode::kLog:
    case Opcode::kLog1p:
    case Opcode::kTanh:
    case Opcode::kTan:
    case Opcode::kLogistic:
    case Opcode::kSqrt:
    case Opcode::kRsqrt:
    case Opcode::kCbrt:
    case Opcode::kFloor:
    case Opcode::kCeil:
    case Opcode::kRoundNearestEven:
    case Opcode::kRoundNearestAfz:
    case Opcode::kCos:
    case Opcode::kSin:
    case Opcode::kErf:
    case Opcode::kIsFinite:
    case Opcode::kReducePrecision:
      return true;
    default:
      return false;
  }
}

absl::StatusOr<Shape> InferUnary(const Instruction& inst) {
  XTUNE_RETURN_IF_ERROR(ExpectOperands(inst, 1));
  XTUNE_RETURN_IF_ERROR(ExpectArrays(inst));
  const Shape& in = inst.operand(0)->shape();
  Opcode op = inst.opcode();
  DType t = in.dtype();
  if (IsFloatOnlyUnary(op) && !IsFloat(t)) {
    return Invalid(absl::StrCat(OpcodeName(op),
                                " needs a floating-point operand, got ",
                                in.ToString(false)));
  }
  if ((op == Opcode::kClz || op == Opcode::kPopcnt) && !IsInteger(t)) {
    return Invalid(absl::StrCat(OpcodeName(op),
                                " needs an integer operand, got ",
                                in.ToString(false)));
  }
  if (op == Opcode::kReducePrecision) {
    const InstructionAttrs& a = inst.attrs();
    if (a.exponent_bits < 1 || a.exponent_bits > 62 || a.mantissa_bits < 0 ||
        a.mantissa_bits > 62) {
      return Invalid(absl::StrCat(
          "reduce-precision needs exponent_bits >= 1 and mantissa_bits >= 0, "
          "got exponent_bits=", a.exponent_bits,
          " mantissa_bits=", a.mantissa_bits));
    }
  }
  if (op == Opcode::kNot && IsFloat(t)) {
    return Invalid(absl::StrCat("not needs a pred or integer operand, got ",
                                in.ToString(false)));
  }
  if ((op == Opcode::kNegate || op == Opcode::kAbs || op == Opcode::kSign) &&
      t == DType::kPred) {
    return Invalid(absl::StrCat(OpcodeName(op), " is not defined on pred"));
  }
  DType out = t;
  if (op == Opcode::kIsFinite) out = DType::kPred;
  if (op == Opcode::kConvert) out = inst.shape().dtype();
  if (out == DType::kTuple) return Invalid("convert to a tuple shape");
  return Shape(out, in.dims());
}

absl::StatusOr<Shape> InferBinary(const Instruction& inst) {
  XTUNE_RETURN_IF_ERROR(ExpectOperands(inst, 2));
  XTUNE_RETURN_IF_ERROR(ExpectArrays(inst));
  const Shape& a = inst.operand(0)->shape();
  const Shape& b = inst.operand(1)->shape();
  Opcode op = inst.opcode();
  if (!a.Compatible(b)) {
    return Invalid(absl::StrCat(OpcodeName(op),
                                " needs operands of the same shape, got ",
                                a.ToString(false), " and ", b.ToString(false)));
  }
  DType t = a.dtype();
  bool bitwise = op == Opcode::kAnd || op == Opcode::kOr || op == Opcode::kXor;
  bool shift = op == Opcode::kShiftLeft || op == Opcode::kShiftRightLogical ||
               op == Opcode::kShiftRightArithmetic;
  if (bitwise && IsFloat(t)) {
    return Invalid(absl::StrCat(OpcodeName(op),
                                " needs pred or integer operands, got ",
                                a.ToString(false)));
  }
  if (shift && !IsInteger(t)) {
    return Invalid(absl::StrCat(OpcodeName(op), " needs integer operands"));
  }
  if (op == Opcode::kAtan2 && !IsFloat(t)) {
    return Invalid("atan2 needs floating-point operands");
  }
  if (!bitwise && t == DType::kPred &&
      op != Opcode::kMaximum && op != Opcode::kMinimum) {
    return Invalid(absl::StrCat(OpcodeName(op), " is not defined on pred"));
  }
  return Shape(t, a.dims());
}

absl::StatusOr<Shape> InferDot(const Instruction& inst) {
  XTUNE_RETURN_IF_ERROR(ExpectOperands(inst, 2));
  XTUNE_RETURN_IF_ERROR(RefusePackedNibbles(inst));
  XTUNE_RETURN_IF_ERROR(ExpectArrays(inst));
  const Shape& lhs = inst.operand(0)->shape();
  const Shape& rhs = inst.operand(1)->shape();
  const DotDimensions& d = inst.attrs().dot;
  if (lhs.dtype() == DType::kPred || rhs.dtype() == DType::kPred) {
    return Invalid("dot is not defined on pred");
  }
  std::vector<int64_t> lhs_all = d.lhs_batch;
  lhs_all.insert(lhs_all.end(), d.lhs_contracting.begin(),
                 d.lhs_contracting.end());
  std::vector<int64_t> rhs_all = d.rhs_batch;
  rhs_all.insert(rhs_all.end(), d.rhs_contracting.begin(),
                 d.rhs_contracting.end());
  XTUNE_RETURN_IF_ERROR(
      CheckDims(lhs_all, lhs.rank(), "lhs batch + contracting dimensions"));
  XTUNE_RETURN_IF_ERROR(
      CheckDims(rhs_all, rhs.rank(), "rhs batch + contracting dimensions"));
  if (d.lhs_batch.size() != d.rhs_batch.size()) {
    return Invalid("dot needs as many lhs as rhs batch dimensions");
  }
  if (d.lhs_contracting.size() != d.rhs_contracting.size()) {
    return Invalid("dot needs as many lhs as rhs contracting dimensions");
  }
  for (size_t i = 0; i < d.lhs_batch.size(); ++i) {
    if (lhs.dim(d.lhs_batch[i]) != rhs.dim(d.rhs_batch[i])) {
      return Invalid(absl::StrCat(
          "dot batch dimension ", i, " has size ", lhs.dim(d.lhs_batch[i]),
          " on the lhs but ", rhs.dim(d.rhs_batch[i]), " on the rhs"));
    }
  }
  for (size_t i = 0; i < d.lhs_contracting.size(); ++i) {
    if (lhs.dim(d.lhs_contracting[i]) != rhs.dim(d.rhs_contracting[i])) {
      return Invalid(absl::StrCat("dot contracting dimension ", i,
                                  " has size ",
                                  lhs.dim(d.lhs_contracting[i]),
                                  " on the lhs but ",
                                  rhs.dim(d.rhs_contracting[i]),
                                  " on the rhs"));
    }
  }
  std::vector<int64_t> dims;
  for (int64_t b : d.lhs_batch) dims.push_back(lhs.dim(b));
  for (int64_t i = 0; i < lhs.rank(); ++i) {
    if (std::find(lhs_all.begin(), lhs_all.end(), i) == lhs_all.end()) {
      dims.push_back(lhs.dim(i));
    }
  }
  for (int64_t i = 0; i < rhs.rank(); ++i) {
    if (std::find(rhs_all.begin(), rhs_all.end(), i) == rhs_all.end()) {
      dims.push_back(rhs.dim(i));
    }
  }
  DType out = inst.shape().dtype();
  if (out == DType::kTuple || out == DType::kPred) {
    return Invalid("dot must produce a numeric array");
  }
  return Shape(out, dims);
}

absl::StatusOr<Shape> InferReduce(const Instruction& inst) {
  XTUNE_RETURN_IF_ERROR(ExpectArrays(inst));
  int64_t n = inst.operand_count() / 2;
  if (n == 0 || inst.operand_count() % 2 != 0) {
    return Invalid("reduce takes N inputs followed by N initial values");
  }
  const Shape& first = inst.operand(0)->shape();
  std::vector<DType> acc_types, input_types;
  for (int64_t i = 0; i < n; ++i) {
    const Shape& in = inst.operand(i)->shape();
    const Shape& init = inst.operand(n + i)->shape();
    if (in.dims() != first.dims()) {
      return Invalid("reduce inputs must all have the same dimensions");
    }
    if (init.rank() != 0) {
      return Invalid(absl::StrCat("reduce initial value ", i,
                                  " must be a scalar, got ",
                                  init.ToString(false)));
    }
    acc_types.push_back(init.dtype());
    input_types.push_back(in.dtype());
  }
  XTUNE_RETURN_IF_ERROR(CheckDims(inst.attrs().dimensions, first.rank(),
                                  "reduce dimensions"));
  std::vector<DType> params = acc_types;
  params.insert(params.end(), input_types.begin(), input_types.end());
  XTUNE_RETURN_IF_ERROR(CheckScalarComputation(inst.called_computations()[0],
                                               params, acc_types, "reduce"));
  std::vector<int64_t> dims;
  const std::vector<int64_t>& rd = inst.attrs().dimensions;
  for (int64_t i = 0; i < first.rank(); ++i) {
    if (std::find(rd.begin(), rd.end(), i) == rd.end()) {
      dims.push_back(first.dim(i));
    }
  }
  if (n == 1) return Shape(acc_types[0], dims);
  std::vector<Shape> elems;
  for (DType t : acc_types) elems.emplace_back(t, dims);
  return Shape::Tuple(std::move(elems));
}

absl::StatusOr<Shape> InferCall(const Instruction& inst) {
  const Computation* callee = inst.called_computations()[0];
  if (callee->parameter_count() != inst.operand_count()) {
    return Invalid(absl::StrCat(OpcodeName(inst.opcode()), " passes ",
                                inst.operand_count(), " operands to '",
                                callee->name(), "', which takes ",
                                callee->parameter_count()));
  }
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    if (!inst.operand(i)->shape().Compatible(callee->parameter(i)->shape())) {
      return Invalid(absl::StrCat(
          "operand ", i, " is ", inst.operand(i)->shape().ToString(false),
          " but parameter ", i, " of '", callee->name(), "' is ",
          callee->parameter(i)->shape().ToString(false)));
    }
  }
  return callee->root()->shape();
}

absl::StatusOr<Shape> InferBitcastConvert(const Instruction& inst) {
  XTUNE_RETURN_IF_ERROR(ExpectOperands(inst, 1));
  XTUNE_RETURN_IF_ERROR(ExpectArrays(inst));
  const Shape& in = inst.operand(0)->shape();
  const Shape& out = inst.shape();
  if (out.IsTuple()) return Invalid("bitcast-convert to a tuple");
  int64_t in_size = DTypeByteSize(in.dtype());
  int64_t out_size = DTypeByteSize(out.dtype());
  std::vector<int64_t> dims = in.dims();
  if (in_size == out_size) return Shape(out.dtype(), dims);
  if (in_size > out_size) {
    if (in_size % out_size != 0) return Invalid("incompatible bit widths");
    dims.push_back(in_size / out_size);
    return Shape(out.dtype(), dims);
  }
  if (out_size % in_size != 0 || dims.empty() ||
      dims.back() != out_size / in_size) {
    return Invalid(absl::StrCat(
        "bitcast-convert from ", in.ToString(false), " to ",
        DTypeName(out.dtype()), " needs a last dimension of ",
        out_size / in_size));
  }
  dims.pop_back();
  return Shape(out.dtype(), dims);
}

absl::StatusOr<Shape> InferShapeOp(const Instruction& inst) {
  const Shape& declared = inst.shape();
  const InstructionAttrs& a = inst.attrs();
  switch (inst.opcode()) {
    case Opcode::kBroadcast: {
      XTUNE_RETURN_IF_ERROR(ExpectOperands(inst, 1));
      XTUNE_RETURN_IF_ERROR(ExpectArrays(inst));
      const Shape& in = inst.operand(0)->shape();
      if (declared.IsTuple()) return Invalid("broadcast to a tuple");
      if (static_cast<int64_t>(a.dimensions.size()) != in.rank()) {
        return Invalid(absl::StrCat("broadcast dimensions ", Dims(a.dimensions),
                                    " must have one entry per operand "
                                    "dimension (rank ", in.rank(), ")"));
      }
      XTUNE_RETURN_IF_ERROR(
          CheckDims(a.dimensions, declared.rank(), "broadcast dimensions"));
      for (int64_t i = 0; i < in.rank(); ++i) {
        if (declared.dim(a.dimensions[i]) != in.dim(i)) {
          return Invalid(absl::StrCat(
              "broadcast maps operand dimension ", i, " (size ", in.dim(i),
              ") to result dimension ", a.dimensions[i], " of size ",
              declared.dim(a.dimensions[i])));
        }
      }
      return Shape(in.dtype(), declared.dims());
    }
    case Opcode::kReshape: {
      XTUNE_RETURN_IF_ERROR(ExpectOperands(inst, 1));
      XTUNE_RETURN_IF_ERROR(ExpectArrays(inst));
      const Shape& in = inst.operand(0)->shape();
      if (declared.IsTuple() || in.ElementCount() != declared.ElementCount()) {
        return Invalid(absl::StrCat("reshape cannot change the element count: ",
                                    in.ToString(false), " to ",
                                    declared.ToString(false)));
      }
      return Shape(in.dtype(), declared.dims());
    }
    case Opcode::kBitcast: {
      XTUNE_RETURN_IF_ERROR(ExpectOperands(inst, 1));
      XTUNE_RETURN_IF_ERROR(ExpectArrays(inst));
      const Shape& in = inst.operand(0)->shape();
      if (declared.IsTuple() || in.ByteSize() != declared.ByteSize()) {
        return Invalid(absl::StrCat("bitcast must keep the size in bytes: ",
                                    in.ToString(false), " to ",
                                    declared.ToString(false)));
      }
      return Shape(declared.dtype(), declared.dims());
    }
    case Opcode::kTranspose: {
      XTUNE_RETURN_IF_ERROR(ExpectOperands(inst, 1));
      XTUNE_RETURN_IF_ERROR(ExpectArrays(inst));
      const Shape& in = inst.operand(0)->shape();
      if (static_cast<int64_t>(a.dimensions.size()) != in.rank()) {
        return Invalid("transpose dimensions must be a permutation of the "
                       "operand's dimensions");
      }
      XTUNE_RETURN_IF_ERROR(
          CheckDims(a.dimensions, in.rank(), "transpose dimensions"));
      std::vector<int64_t> dims;
      for (int64_t d : a.dimensions) dims.push_back(in.dim(d));
      return Shape(in.dtype(), dims);
    }
    case Opcode::kSlice: {
      XTUNE_RETURN_IF_ERROR(ExpectOperands(inst, 1));
      XTUNE_RETURN_IF_ERROR(ExpectArrays(inst));
      const Shape& in = inst.operand(0)->shape();
      if (static_cast<int64_t>(a.slice.size()) != in.rank()) {
        return Invalid(absl::StrCat("slice has ", a.slice.size(),
                                    " ranges for an operand of rank ",
                                    in.rank()));
      }
      std::vector<int64_t> dims;
      for (int64_t i = 0; i < in.rank(); ++i) {
        const SliceDimension& s = a.slice[i];
        if (s.start < 0 || s.start > s.limit || s.limit > in.dim(i) ||
            s.stride < 1) {
          return Invalid(absl::StrCat("slice range [", s.start, ":", s.limit,
                                      ":", s.stride, "] is invalid for "
                                      "dimension ", i, " of size ",
                                      in.dim(i)));
        }
        dims.push_back((s.limit - s.start + s.stride - 1) / s.stride);
      }
      return Shape(in.dtype(), dims);
    }
    case Opcode::kConcatenate: {
      XTUNE_RETURN_IF_ERROR(ExpectArrays(inst));
      if (inst.operand_count() < 1) return Invalid("concatenate needs operands");
      if (a.dimensions.size() != 1) {
        return Invalid("concatenate needs exactly one dimension");
      }
      const Shape& first = inst.operand(0)->shape();
      int64_t cd = a.dimensions[0];
      if (cd < 0 || cd >= first.rank()) {
        return Invalid(absl::StrCat("concatenate dimension ", cd,
                                    " out of range for rank ", first.rank()));
      }
      std::vector<int64_t> dims = first.dims();
      dims[cd] = 0;
      for (const Instruction* op : inst.operands()) {
        const Shape& s = op->shape();
        if (s.dtype() != first.dtype() || s.rank() != first.rank()) {
          return Invalid("concatenate operands must have the same element "
                         "type and rank");
        }
        for (int64_t i = 0; i < s.rank(); ++i) {
          if (i != cd && s.dim(i) != first.dim(i)) {
            return Invalid(absl::StrCat(
                "concatenate operands differ in dimension ", i,
                " (not the concatenated one): ", first.ToString(false),
                " vs ", s.ToString(false)));
          }
        }
        dims[cd] += s.dim(cd);
      }
      return Shape(first.dtype(), dims);
    }
    case Opcode::kPad: {
      XTUNE_RETURN_IF_ERROR(ExpectOperands(inst, 2));
      XTUNE_RETURN_IF_ERROR(ExpectArrays(inst));
      const Shape& in = inst.operand(0)->shape();
      const Shape& value = inst.operand(1)->shape();
      if (value.rank() != 0 || value.dtype() != in.dtype()) {
        return Invalid("pad's padding value must be a scalar of the operand's "
                       "element type");
      }
      if (static_cast<int64_t>(a.padding.size()) != in.rank()) {
        return Invalid(absl::StrCat("padding has ", a.padding.size(),
                                    " dimensions for an operand of rank ",
                                    in.rank()));
      }
      std::vector<int64_t> dims;
      for (int64_t i = 0; i < in.rank(); ++i) {
        const PaddingDimension& p = a.padding[i];
        if (p.interior < 0) return Invalid("interior padding must be >= 0");
        int64_t d = in.dim(i);
        int64_t size = p.low + p.high + d + std::max<int64_t>(d - 1, 0) *
                                               p.interior;
        if (size < 0) {
          return Invalid(absl::StrCat("padding makes dimension ", i,
                                      " negative"));
        }
        dims.push_back(size);
      }
      return Shape(in.dtype(), dims);
    }
    case Opcode::kReverse: {
      XTUNE_RETURN_IF_ERROR(ExpectOperands(inst, 1));
      XTUNE_RETURN_IF_ERROR(ExpectArrays(inst));
      const Shape& in = inst.operand(0)->shape();
      XTUNE_RETURN_IF_ERROR(
          CheckDims(a.dimensions, in.rank(), "reverse dimensions"));
      return Shape(in.dtype(), in.dims());
    }
    default:
      return Invalid("not a shape operation");
  }
}

}  // namespace

// Dimension numbers must be distinct and in [0, rank).
absl::Status CheckDims(const std::vector<int64_t>& dims, int64_t rank,
                       absl::string_view what) {
  std::vector<bool> seen(rank, false);
  for (int64_t d : dims) {
    if (d < 0 || d >= rank) {
      return Invalid(absl::StrCat(what, " ", Dims(dims),
                                  " names a dimension out of range for rank ",
                                  rank));
    }
    if (seen[d]) {
      return Invalid(absl::StrCat(what, " ", Dims(dims), " repeats dimension ",
                                  d));
    }
    seen[d] = true;
  }
  return absl::OkStatus();
}

// Checks `c` takes `params` scalars of the given types and returns a scalar
// (or tuple of scalars) of `results`.
absl::Status CheckScalarComputation(const Computation* c,
                                    const std::vector<DType>& params,
                                    const std::vector<DType>& results,
                                    absl::string_view role) {
  if (c->parameter_count() != static_cast<int64_t>(params.size())) {
    return Invalid(absl::StrCat(role, " computation '", c->name(), "' takes ",
                                c->parameter_count(), " parameters, expected ",
                                params.size()));
  }
  for (size_t i = 0; i < params.size(); ++i) {
    const Shape& s = c->parameter(i)->shape();
    if (!s.Compatible(Shape(params[i], {}))) {
      return Invalid(absl::StrCat(role, " computation '", c->name(),
                                  "' parameter ", i, " is ", s.ToString(false),
                                  ", expected ", DTypeName(params[i]), "[]"));
    }
  }
  const Shape& r = c->root()->shape();
  Shape expected;
  if (results.size() == 1) {
    expected = Shape(results[0], {});
  } else {
    std::vector<Shape> elems;
    for (DType t : results) elems.emplace_back(t, std::vector<int64_t>{});
    expected = Shape::Tuple(std::move(elems));
  }
  if (!r.Compatible(expected)) {
    return Invalid(absl::StrCat(role, " computation '", c->name(),
                                "' returns ", r.ToString(false), ", expected ",
                                expected.ToString(false)));
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> InferShape(const Instruction& inst) {
  const Shape& declared = inst.shape();
  const InstructionAttrs& a = inst.attrs();
  for (const Computation* c : inst.called_computations()) {
    if (c == nullptr) return Invalid("unresolved called computation");
  }
  Opcode op = inst.opcode();
  bool needs_callee = op == Opcode::kReduce || op == Opcode::kFusion ||
                      op == Opcode::kCall || op == Opcode::kAllReduce ||
                      op == Opcode::kReduceScatter ||
                      op == Opcode::kScatter || op == Opcode::kSort ||
                      op == Opcode::kMap;
  if (needs_callee && inst.called_computations().size() != 1) {
    return Invalid(absl::StrCat(OpcodeName(op),
                                " must call exactly one computation"));
  }
  if (IsUnaryElementwise(op)) return InferUnary(inst);
  if (IsBinaryElementwise(op)) return InferBinary(inst);
  switch (op) {
    case Opcode::kParameter:
    case Opcode::kConstant:
      return declared;
    case Opcode::kIota:
      XTUNE_RETURN_IF_ERROR(ExpectOperands(inst, 0));
      if (declared.IsTuple() || declared.rank() == 0) {
        return Invalid("iota must produce an array of rank >= 1");
      }
      if (a.iota_dimension < 0 || a.iota_dimension >= declared.rank()) {
        return Invalid(absl::StrCat("iota_dimension ", a.iota_dimension,
                                    " out of range for rank ",
                                    declared.rank()));
      }
      if (declared.dtype() == DType::kPred) return Invalid("iota of pred");
      return declared;
    case Opcode::kBitcastConvert:
      return InferBitcastConvert(inst);
    case Opcode::kBroadcast:
    case Opcode::kReshape:
    case Opcode::kBitcast:
    case Opcode::kTranspose:
    case Opcode::kSlice:
    case Opcode::kConcatenate:
    case Opcode::kPad:
    case Opcode::kReverse:
      return InferShapeOp(inst);
    case Opcode::kDot:
      return InferDot(inst);
    case Opcode::kReduce:
      return InferReduce(inst);
    case Opcode::kSelect: {
      XTUNE_RETURN_IF_ERROR(ExpectOperands(inst, 3));
      XTUNE_RETURN_IF_ERROR(ExpectArrays(inst));
      const Shape& pred = inst.operand(0)->shape();
      const Shape& t = inst.operand(1)->shape();
      const Shape& f = inst.operand(2)->shape();
      if (pred.dtype() != DType::kPred) {
        return Invalid("select's first operand must be pred");
      }
      if (!t.Compatible(f)) {
        return Invalid(absl::StrCat("select's branches differ: ",
                                    t.ToString(false), " vs ",
                                    f.ToString(false)));
      }
      if (pred.rank() != 0 && pred.dims() != t.dims()) {
        return Invalid("select's predicate must be a scalar or match the "
                       "branches' dimensions");
      }
      return Shape(t.dtype(), t.dims());
    }
    case Opcode::kClamp: {
      XTUNE_RETURN_IF_ERROR(ExpectOperands(inst, 3));
      XTUNE_RETURN_IF_ERROR(ExpectArrays(inst));
      const Shape& lo = inst.operand(0)->shape();
      const Shape& x = inst.operand(1)->shape();
      const Shape& hi = inst.operand(2)->shape();
      for (const Shape* s : {&lo, &hi}) {
        if (s->dtype() != x.dtype() || (s->rank() != 0 && s->dims() != x.dims())) {
          return Invalid("clamp's bounds must be scalars or match the operand, "
                         "with the same element type");
        }
      }
      if (x.dtype() == DType::kPred) return Invalid("clamp of pred");
      return Shape(x.dtype(), x.dims());
    }
    case Opcode::kCompare: {
      XTUNE_RETURN_IF_ERROR(ExpectOperands(inst, 2));
      XTUNE_RETURN_IF_ERROR(ExpectArrays(inst));
      const Shape& l = inst.operand(0)->shape();
      const Shape& r = inst.operand(1)->shape();
      if (!l.Compatible(r)) {
        return Invalid(absl::StrCat("compare needs operands of the same "
                                    "shape, got ", l.ToString(false), " and ",
                                    r.ToString(false)));
      }
      return Shape(DType::kPred, l.dims());
    }
    case Opcode::kFusion:
    case Opcode::kCall:
      return InferCall(inst);
    case Opcode::kTuple: {
      std::vector<Shape> elems;
      for (const Instruction* o : inst.operands()) elems.push_back(o->shape());
      return Shape::Tuple(std::move(elems));
    }
    case Opcode::kGetTupleElement: {
      XTUNE_RETURN_IF_ERROR(ExpectOperands(inst, 1));
      const Shape& t = inst.operand(0)->shape();
      if (!t.IsTuple()) return Invalid("get-tuple-element of a non-tuple");
      if (a.tuple_index < 0 ||
          a.tuple_index >= static_cast<int64_t>(t.tuple_shapes().size())) {
        return Invalid(absl::StrCat("index ", a.tuple_index,
                                    " out of range for a tuple of ",
                                    t.tuple_shapes().size()));
      }
      return t.tuple_shapes()[a.tuple_index];
    }
    case Opcode::kDynamicSlice:
      return InferDynamicSlice(inst);
    case Opcode::kDynamicUpdateSlice:
      return InferDynamicUpdateSlice(inst);
    case Opcode::kGather:
      return InferGather(inst);
    case Opcode::kScatter:
      return InferScatter(inst);
    case Opcode::kAllGather:
    case Opcode::kReduceScatter:
    case Opcode::kAllToAll:
    case Opcode::kCollectivePermute:
    case Opcode::kReplicaId:
    case Opcode::kPartitionId:
      return InferCollective(inst);
    case Opcode::kSort:
      return InferSort(inst);
    case Opcode::kMap:
      return InferMap(inst);
    case Opcode::kTopK:
      return InferTopK(inst);
    case Opcode::kWhile:
      return InferWhile(inst);
    case Opcode::kConditional:
      return InferConditional(inst);
    case Opcode::kOptimizationBarrier:
      return InferOptimizationBarrier(inst);
    case Opcode::kRngBitGenerator:
      return InferRngBitGenerator(inst);
    case Opcode::kCustomCall: {
      if (IsAnnotationCustomCall(inst)) {
        if (!declared.Compatible(inst.operand(0)->shape())) {
          return Invalid(absl::StrCat("an annotation custom-call returns its operand's shape ",
                                      inst.operand(0)->shape().ToString(false)));
        }
        return declared;
      }
      if (IsConvCall(inst)) return InferConvCall(inst);
      // Library calls (ir/library_call.h): the declared shape, checked.
      absl::StatusOr<GemmCall> call = ReadGemmCall(inst);
      if (!call.ok()) return call.status();
      return declared;
    }
    case Opcode::kAfterAll:
      // As XLA's verifier: any operands (they only order), a token out.
      return Shape::Token();
    case Opcode::kAddDependency:
      // add-dependency(value, token): the value, ordered after the token.
      XTUNE_RETURN_IF_ERROR(ExpectOperands(inst, 2));
      if (!inst.operand(1)->shape().IsToken()) {
        return Invalid(absl::StrCat("add-dependency's second operand must be "
                                    "a token, got ",
                                    inst.operand(1)->shape().ToString(false)));
      }
      return inst.operand(0)->shape();
    case Opcode::kCopy:
      XTUNE_RETURN_IF_ERROR(ExpectOperands(inst, 1));
      return inst.operand(0)->shape();
    case Opcode::kAllReduce: {
      XTUNE_RETURN_IF_ERROR(ExpectArrays(inst));
      return InferAllReduce(inst);
    }
    case Opcode::kConvolution:
    case Opcode::kReduceWindow:
    case Opcode::kSelectAndScatter:
      return InferWindowed(inst);
    default:
      break;
  }
  return absl::UnimplementedError(
      absl::StrCat("no shape inference for ", OpcodeName(op)));
}

}  // namespace xtune
