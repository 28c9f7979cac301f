#include "fusion/hlo_builder.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "ir/literal.h"

namespace xtune {

HloBuilder::HloBuilder(Computation* computation, std::string prefix,
                       SourceLocation location)
    : computation_(computation),
      prefix_(std::move(prefix)),
      location_(location) {}

Instruction* HloBuilder::Append(Opcode op, const Shape& shape,
                                const std::vector<Instruction*>& operands) {
  std::string name;
  do {
    name = absl::StrCat(prefix_, count_++);
  } while (computation_->FindInstruction(name) != nullptr);
  auto inst = std::make_unique<Instruction>(name, op, shape);
  inst->set_location(location_);
  for (Instruction* o : operands) inst->AppendOperand(o);
  return computation_->AddInstruction(std::move(inst));
}

Instruction* HloBuilder::Constant(DType t, int64_t v) {
  Shape s(t, {});
  Literal value(s);
  value.SetInt(0, v);
  Instruction* c = Append(Opcode::kConstant, s, {});
  c->mutable_attrs()->literal = std::move(value);
  return c;
}

Instruction* HloBuilder::FloatConstant(DType t, double v) {
  Shape s(t, {});
  Literal value(s);
  value.SetDouble(0, v);
  Instruction* c = Append(Opcode::kConstant, s, {});
  c->mutable_attrs()->literal = std::move(value);
  return c;
}

Instruction* HloBuilder::Broadcast(Instruction* x,
                                   const std::vector<int64_t>& dims,
                                   const std::vector<int64_t>& dimensions) {
  Instruction* b =
      Append(Opcode::kBroadcast, Shape(x->shape().dtype(), dims), {x});
  b->mutable_attrs()->dimensions = dimensions;
  return b;
}

Instruction* HloBuilder::Unary(Opcode op, Instruction* x) {
  return Append(op, Shape(x->shape().dtype(), x->shape().dims()), {x});
}

Instruction* HloBuilder::Dot(Instruction* a, Instruction* b,
                             const DotDimensions& d, const Shape& out) {
  Instruction* dot = Append(Opcode::kDot, out, {a, b});
  dot->mutable_attrs()->dot = d;
  return dot;
}

Instruction* HloBuilder::Iota(DType t, const std::vector<int64_t>& dims,
                              int64_t dimension) {
  Instruction* i = Append(Opcode::kIota, Shape(t, dims), {});
  i->mutable_attrs()->iota_dimension = dimension;
  return i;
}

Instruction* HloBuilder::Splat(Instruction* x,
                               const std::vector<int64_t>& dims) {
  if (dims.empty()) return x;
  return Append(Opcode::kBroadcast, Shape(x->shape().dtype(), dims), {x});
}

Instruction* HloBuilder::Binary(Opcode op, Instruction* a, Instruction* b) {
  if (a->shape().rank() == 0 && b->shape().rank() > 0) {
    a = Splat(a, b->shape().dims());
  } else if (b->shape().rank() == 0 && a->shape().rank() > 0) {
    b = Splat(b, a->shape().dims());
  }
  return Append(op, Shape(a->shape().dtype(), a->shape().dims()), {a, b});
}

Instruction* HloBuilder::Compare(Instruction* a, Instruction* b,
                                 ComparisonDirection direction) {
  if (a->shape().rank() == 0 && b->shape().rank() > 0) {
    a = Splat(a, b->shape().dims());
  } else if (b->shape().rank() == 0 && a->shape().rank() > 0) {
    b = Splat(b, a->shape().dims());
  }
  Instruction* c =
      Append(Opcode::kCompare, Shape(DType::kPred, a->shape().dims()), {a, b});
  c->mutable_attrs()->direction = direction;
  return c;
}

Instruction* HloBuilder::Select(Instruction* p, Instruction* a,
                                Instruction* b) {
  return Append(Opcode::kSelect, Shape(a->shape().dtype(), a->shape().dims()),
                {p, a, b});
}

Instruction* HloBuilder::Convert(Instruction* x, DType t) {
  if (x->shape().dtype() == t) return x;
  return Append(Opcode::kConvert, Shape(t, x->shape().dims()), {x});
}

Instruction* HloBuilder::Bitcast(Instruction* x, DType t) {
  if (x->shape().dtype() == t) return x;
  return Append(Opcode::kBitcastConvert, Shape(t, x->shape().dims()), {x});
}

Instruction* HloBuilder::StridedSlice(Instruction* x, const std::vector<SliceDimension>& slice) {
  std::vector<int64_t> dims;
  bool whole = true;
  for (size_t d = 0; d < slice.size(); ++d) {
    const SliceDimension& s = slice[d];
    dims.push_back((s.limit - s.start + s.stride - 1) / s.stride);
    whole = whole && s.start == 0 && s.stride == 1 && s.limit == x->shape().dim(d);
  }
  if (whole) return x;
  Instruction* s = Append(Opcode::kSlice, Shape(x->shape().dtype(), dims), {x});
  s->mutable_attrs()->slice = slice;
  return s;
}

Instruction* HloBuilder::Pad(Instruction* x, Instruction* value,
                             const std::vector<PaddingDimension>& padding) {
  std::vector<int64_t> dims;
  bool none = true;
  for (size_t d = 0; d < padding.size(); ++d) {
    const PaddingDimension& p = padding[d];
    const int64_t n = x->shape().dim(d);
    dims.push_back(n + p.low + p.high + std::max<int64_t>(0, n - 1) * p.interior);
    none = none && p.low == 0 && p.high == 0 && p.interior == 0;
  }
  if (none) return x;
  Instruction* p = Append(Opcode::kPad, Shape(x->shape().dtype(), dims), {x, value});
  p->mutable_attrs()->padding = padding;
  return p;
}

Instruction* HloBuilder::Reverse(Instruction* x, const std::vector<int64_t>& dims) {
  if (dims.empty()) return x;
  Instruction* r = Append(Opcode::kReverse, x->shape(), {x});
  r->mutable_attrs()->dimensions = dims;
  return r;
}

Instruction* HloBuilder::Transpose(Instruction* x, const std::vector<int64_t>& perm) {
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == static_cast<int64_t>(i);
  if (identity) return x;
  std::vector<int64_t> dims;
  for (int64_t p : perm) dims.push_back(x->shape().dim(p));
  Instruction* t = Append(Opcode::kTranspose, Shape(x->shape().dtype(), dims), {x});
  t->mutable_attrs()->dimensions = perm;
  return t;
}

Instruction* HloBuilder::Convolution(Instruction* lhs, Instruction* rhs,
                                     const InstructionAttrs& attrs, const Shape& out) {
  Instruction* c = Append(Opcode::kConvolution, out, {lhs, rhs});
  InstructionAttrs* a = c->mutable_attrs();
  a->window = attrs.window;
  a->conv = attrs.conv;
  a->feature_group_count = attrs.feature_group_count;
  a->batch_group_count = attrs.batch_group_count;
  return c;
}

Instruction* HloBuilder::Reshape(Instruction* x,
                                 const std::vector<int64_t>& dims) {
  if (x->shape().dims() == dims) return x;
  return Append(Opcode::kReshape, Shape(x->shape().dtype(), dims), {x});
}

Instruction* HloBuilder::Slice(Instruction* x, int64_t dim, int64_t start,
                               int64_t limit) {
  std::vector<int64_t> dims = x->shape().dims();
  std::vector<SliceDimension> slice;
  for (size_t d = 0; d < dims.size(); ++d) {
    slice.push_back(static_cast<int64_t>(d) == dim
                        ? SliceDimension{start, limit, 1}
                        : SliceDimension{0, dims[d], 1});
  }
  if (start == 0 && limit == dims[dim]) return x;
  dims[dim] = limit - start;
  Instruction* s = Append(Opcode::kSlice, Shape(x->shape().dtype(), dims), {x});
  s->mutable_attrs()->slice = std::move(slice);
  return s;
}

Instruction* HloBuilder::Concatenate(const std::vector<Instruction*>& xs,
                                     int64_t dim) {
  if (xs.size() == 1) return xs[0];
  std::vector<int64_t> dims = xs[0]->shape().dims();
  dims[dim] = 0;
  for (Instruction* x : xs) dims[dim] += x->shape().dim(dim);
  Instruction* c =
      Append(Opcode::kConcatenate, Shape(xs[0]->shape().dtype(), dims), xs);
  c->mutable_attrs()->dimensions = {dim};
  return c;
}

Instruction* HloBuilder::Tuple(const std::vector<Instruction*>& xs) {
  std::vector<Shape> shapes;
  for (Instruction* x : xs) shapes.push_back(x->shape());
  return Append(Opcode::kTuple, Shape::Tuple(std::move(shapes)), xs);
}

Instruction* HloBuilder::Reduce(Instruction* x, Instruction* init,
                               const std::vector<int64_t>& dims, Computation* reducer) {
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < x->shape().rank(); ++d) {
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) kept.push_back(x->shape().dim(d));
  }
  Instruction* r = Append(Opcode::kReduce, Shape(x->shape().dtype(), kept), {x, init});
  r->mutable_attrs()->dimensions = dims;
  r->AppendCalledComputation(reducer);
  return r;
}

}  // namespace xtune
