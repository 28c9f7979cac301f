#include "eval/shape_ops.h"

#include <cstring>

namespace xtune {
namespace {

// Calls fn(index, linear) for every multi-index of `dims` in row-major order.
template <typename Fn>
void ForEachIndex(const std::vector<int64_t>& dims, Fn fn) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  if (n == 0) return;
  std::vector<int64_t> idx(dims.size(), 0);
  for (int64_t linear = 0; linear < n; ++linear) {
    fn(idx, linear);
    for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
      if (++idx[d] < dims[d]) break;
      idx[d] = 0;
    }
  }
}

// out[k] = x[src[k]], or `fill` (element 0) where src[k] < 0.
Tensor Gather(const Tensor& x, const Shape& out_shape,
              const std::vector<int64_t>& src, const Tensor* fill = nullptr) {
  Tensor out(Shape(x.shape.dtype(), out_shape.dims()));
  int64_t n = out.size();
  if (out.is_float()) {
    for (int64_t k = 0; k < n; ++k) {
      out.f[k] = src[k] >= 0 ? x.f[src[k]] : fill->f[0];
    }
  } else {
    for (int64_t k = 0; k < n; ++k) {
      out.i[k] = src[k] >= 0 ? x.i[src[k]] : fill->i[0];
    }
  }
  return out;
}

}  // namespace

Tensor EvalIota(const Shape& out, int64_t iota_dimension) {
  Tensor r(Shape(out.dtype(), out.dims()));
  ForEachIndex(out.dims(), [&](const std::vector<int64_t>& idx, int64_t k) {
    int64_t v = idx[iota_dimension];
    if (r.is_float()) {
      r.f[k] = RoundToType(static_cast<double>(v), out.dtype());
    } else {
      r.i[k] = WrapToType(v, out.dtype());
    }
  });
  return r;
}

Tensor EvalBroadcast(const Tensor& x, const Shape& out,
                     const std::vector<int64_t>& dimensions) {
  std::vector<int64_t> in_strides = RowMajorStrides(x.shape.dims());
  std::vector<int64_t> src(out.ElementCount());
  ForEachIndex(out.dims(), [&](const std::vector<int64_t>& idx, int64_t k) {
    int64_t s = 0;
    for (size_t i = 0; i < dimensions.size(); ++i) {
      s += idx[dimensions[i]] * in_strides[i];
    }
    src[k] = s;
  });
  return Gather(x, out, src);
}

Tensor EvalReshape(const Tensor& x, const Shape& out) {
  Tensor r = x;
  r.shape = Shape(x.shape.dtype(), out.dims());
  return r;
}

Tensor EvalBitcast(const Tensor& x, const Shape& x_shape, const Shape& out) {
  Literal in = ToLiteral(x, x_shape);
  Literal reinterpreted(out);
  std::memcpy(reinterpreted.bytes().data(), in.bytes().data(),
              std::min(in.bytes().size(), reinterpreted.bytes().size()));
  return FromLiteral(reinterpreted);
}

Tensor EvalTranspose(const Tensor& x, const Shape& out,
                     const std::vector<int64_t>& permutation) {
  // out index i maps to input index j with j[permutation[d]] = i[d].
  std::vector<int64_t> in_strides = RowMajorStrides(x.shape.dims());
  std::vector<int64_t> src(out.ElementCount());
  ForEachIndex(out.dims(), [&](const std::vector<int64_t>& idx, int64_t k) {
    int64_t s = 0;
    for (size_t d = 0; d < permutation.size(); ++d) {
      s += idx[d] * in_strides[permutation[d]];
    }
    src[k] = s;
  });
  return Gather(x, out, src);
}

Tensor EvalSlice(const Tensor& x, const Shape& out,
                 const std::vector<SliceDimension>& slice) {
  std::vector<int64_t> in_strides = RowMajorStrides(x.shape.dims());
  std::vector<int64_t> src(out.ElementCount());
  ForEachIndex(out.dims(), [&](const std::vector<int64_t>& idx, int64_t k) {
    int64_t s = 0;
    for (size_t d = 0; d < slice.size(); ++d) {
      s += (slice[d].start + idx[d] * slice[d].stride) * in_strides[d];
    }
    src[k] = s;
  });
  return Gather(x, out, src);
}

Tensor EvalConcatenate(const std::vector<const Tensor*>& xs, const Shape& out,
                       int64_t dimension) {
  Tensor r(Shape(xs[0]->shape.dtype(), out.dims()));
  // Which operand and offset each position along `dimension` comes from.
  std::vector<int64_t> which, offset;
  for (size_t o = 0; o < xs.size(); ++o) {
    for (int64_t p = 0; p < xs[o]->shape.dim(dimension); ++p) {
      which.push_back(static_cast<int64_t>(o));
      offset.push_back(p);
    }
  }
  std::vector<std::vector<int64_t>> strides;
  for (const Tensor* x : xs) strides.push_back(RowMajorStrides(x->shape.dims()));
  ForEachIndex(out.dims(), [&](const std::vector<int64_t>& idx, int64_t k) {
    int64_t o = which[idx[dimension]];
    int64_t s = 0;
    for (size_t d = 0; d < idx.size(); ++d) {
      int64_t i = static_cast<int64_t>(d) == dimension ? offset[idx[d]] : idx[d];
      s += i * strides[o][d];
    }
    if (r.is_float()) {
      r.f[k] = xs[o]->f[s];
    } else {
      r.i[k] = xs[o]->i[s];
    }
  });
  return r;
}

Tensor EvalPad(const Tensor& x, const Tensor& value, const Shape& out,
               const std::vector<PaddingDimension>& padding) {
  std::vector<int64_t> in_strides = RowMajorStrides(x.shape.dims());
  std::vector<int64_t> src(out.ElementCount());
  ForEachIndex(out.dims(), [&](const std::vector<int64_t>& idx, int64_t k) {
    int64_t s = 0;
    for (size_t d = 0; d < padding.size(); ++d) {
      // Position relative to the first element; elements sit every
      // (interior + 1) positions.
      int64_t rel = idx[d] - padding[d].low;
      int64_t step = padding[d].interior + 1;
      if (rel < 0 || rel % step != 0 || rel / step >= x.shape.dim(d)) {
        src[k] = -1;
        return;
      }
      s += (rel / step) * in_strides[d];
    }
    src[k] = s;
  });
  return Gather(x, out, src, &value);
}

Tensor EvalReverse(const Tensor& x, const std::vector<int64_t>& dimensions) {
  const std::vector<int64_t>& dims = x.shape.dims();
  std::vector<bool> reversed(dims.size(), false);
  for (int64_t d : dimensions) reversed[d] = true;
  std::vector<int64_t> strides = RowMajorStrides(dims);
  std::vector<int64_t> src(x.size());
  ForEachIndex(dims, [&](const std::vector<int64_t>& idx, int64_t k) {
    int64_t s = 0;
    for (size_t d = 0; d < dims.size(); ++d) {
      s += (reversed[d] ? dims[d] - 1 - idx[d] : idx[d]) * strides[d];
    }
    src[k] = s;
  });
  return Gather(x, x.shape, src);
}

}  // namespace xtune
