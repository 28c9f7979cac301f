#include "eval/dot.h"

#include <algorithm>

#include "ir/dot_precision.h"

namespace xtune {
namespace {

// Lays `x` out as [batch, free, contracting] (lhs) or [batch, contracting,
// free] (rhs) in row-major order, converted to T. Returns the index map
// applied through `put(dst, src)`.
template <typename T>
std::vector<T> Arrange(const Tensor& x, const std::vector<int64_t>& batch,
                       const std::vector<int64_t>& contracting,
                       bool contracting_last, int64_t* free_size) {
  const std::vector<int64_t>& dims = x.shape.dims();
  std::vector<int64_t> free;
  for (int64_t d = 0; d < x.shape.rank(); ++d) {
    if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
        std::find(contracting.begin(), contracting.end(), d) ==
            contracting.end()) {
      free.push_back(d);
    }
  }
  std::vector<int64_t> order = batch;  // new dimension order
  if (contracting_last) {
    order.insert(order.end(), free.begin(), free.end());
    order.insert(order.end(), contracting.begin(), contracting.end());
  } else {
    order.insert(order.end(), contracting.begin(), contracting.end());
    order.insert(order.end(), free.begin(), free.end());
  }
  *free_size = 1;
  for (int64_t d : free) *free_size *= dims[d];
  std::vector<int64_t> strides = RowMajorStrides(dims);
  std::vector<int64_t> new_dims;
  for (int64_t d : order) new_dims.push_back(dims[d]);
  int64_t n = x.size();
  std::vector<T> out(n);
  std::vector<int64_t> idx(order.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t s = 0;
    for (size_t i = 0; i < order.size(); ++i) s += idx[i] * strides[order[i]];
    out[k] = x.is_float() ? static_cast<T>(x.f[s]) : static_cast<T>(x.i[s]);
    for (int64_t i = static_cast<int64_t>(order.size()) - 1; i >= 0; --i) {
      if (++idx[i] < new_dims[i]) break;
      idx[i] = 0;
    }
  }
  return out;
}

template <typename T>
std::vector<T> Multiply(const std::vector<T>& a, const std::vector<T>& b,
                        int64_t batch, int64_t m, int64_t k, int64_t n) {
  std::vector<T> c(batch * m * n, T(0));
  for (int64_t bi = 0; bi < batch; ++bi) {
    const T* ab = a.data() + bi * m * k;
    const T* bb = b.data() + bi * k * n;
    T* cb = c.data() + bi * m * n;
    for (int64_t i = 0; i < m; ++i) {
      T* crow = cb + i * n;
      for (int64_t p = 0; p < k; ++p) {
        T av = ab[i * k + p];
        const T* brow = bb + p * n;
        for (int64_t j = 0; j < n; ++j) crow[j] += av * brow[j];
      }
    }
  }
  return c;
}

template <typename T>
Tensor DotIn(const Tensor& lhs, const Tensor& rhs, const DotDimensions& dims,
             const Shape& out) {
  int64_t m, n;
  std::vector<T> a = Arrange<T>(lhs, dims.lhs_batch, dims.lhs_contracting,
                                /*contracting_last=*/true, &m);
  std::vector<T> b = Arrange<T>(rhs, dims.rhs_batch, dims.rhs_contracting,
                                /*contracting_last=*/false, &n);
  int64_t batch = 1, k = 1;
  for (int64_t d : dims.lhs_batch) batch *= lhs.shape.dim(d);
  for (int64_t d : dims.lhs_contracting) k *= lhs.shape.dim(d);
  std::vector<T> c = Multiply(a, b, batch, m, k, n);
  Tensor r(Shape(out.dtype(), out.dims()));
  for (size_t i = 0; i < c.size(); ++i) {
    if (r.is_float()) {
      r.f[i] = RoundToType(static_cast<double>(c[i]), out.dtype());
    } else {
      r.i[i] = WrapToType(static_cast<int64_t>(c[i]), out.dtype());
    }
  }
  return r;
}

}  // namespace

Tensor Tf32(const Tensor& t) {
  Tensor r = t;
  for (double& v : r.f) v = RoundToTf32(static_cast<float>(v));
  return r;
}

Tensor EvalDot(const Tensor& lhs, const Tensor& rhs, const DotDimensions& dims,
               const Shape& out) {
  DType lt = lhs.shape.dtype(), rt = rhs.shape.dtype(), ot = out.dtype();
  if (lt == DType::kF64 || rt == DType::kF64 || ot == DType::kF64) {
    return DotIn<double>(lhs, rhs, dims, out);
  }
  if (IsFloat(lt) || IsFloat(rt) || IsFloat(ot)) {
    return DotIn<float>(lhs, rhs, dims, out);
  }
  // Integer products wrap like the hardware: multiply in uint64.
  return DotIn<uint64_t>(lhs, rhs, dims, out);
}

}  // namespace xtune
