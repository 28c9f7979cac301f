#include "eval/sort.h"

#include <algorithm>

#include "eval/elementwise.h"
#include "util/status_macros.h"

namespace xtune {

absl::StatusOr<std::vector<int64_t>> StableSortOrder(
    int64_t n, absl::FunctionRef<absl::StatusOr<bool>(int64_t, int64_t)> less) {
  std::vector<int64_t> a(n), b(n);
  for (int64_t i = 0; i < n; ++i) a[i] = i;
  for (int64_t width = 1; width < n; width *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * width) {
      const int64_t mid = std::min(lo + width, n);
      const int64_t hi = std::min(lo + 2 * width, n);
      int64_t l = lo, r = mid, o = lo;
      while (l < mid && r < hi) {
        XTUNE_ASSIGN_OR_RETURN(bool right_first, less(a[r], a[l]));
        b[o++] = right_first ? a[r++] : a[l++];
      }
      while (l < mid) b[o++] = a[l++];
      while (r < hi) b[o++] = a[r++];
    }
    std::swap(a, b);
  }
  return a;
}

namespace {

// Calls fn(base, stride) for every slice along `dim` of `dims` (row-major):
// the slice's elements are base + j * stride, j in [0, dims[dim]).
template <typename Fn>
absl::Status ForEachSlice(const std::vector<int64_t>& dims, int64_t dim,
                          Fn fn) {
  int64_t inner = 1;
  for (size_t d = dim + 1; d < dims.size(); ++d) inner *= dims[d];
  int64_t outer = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= dims[d];
  const int64_t n = dims[dim];
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      XTUNE_RETURN_IF_ERROR(fn(o * n * inner + in, inner));
    }
  }
  return absl::OkStatus();
}

void CopyElement(const Tensor& src, int64_t from, Tensor& dst, int64_t to) {
  if (src.is_float()) {
    dst.f[to] = src.f[from];
  } else {
    dst.i[to] = src.i[from];
  }
}

}  // namespace

absl::StatusOr<Tensor> EvalSort(const std::vector<const Tensor*>& operands,
                                int64_t dim, const Computation& comparator,
                                const Shape& out, const ComputationRunner& run) {
  const size_t m = operands.size();
  std::vector<Tensor> results;
  for (const Tensor* x : operands) results.emplace_back(x->shape);
  const std::vector<int64_t>& dims = operands[0]->shape.dims();
  const int64_t n = dims[dim];
  std::vector<Tensor> args(2 * m);
  std::vector<const Tensor*> arg_ptrs(2 * m);
  XTUNE_RETURN_IF_ERROR(ForEachSlice(
      dims, dim, [&](int64_t base, int64_t stride) -> absl::Status {
        auto less = [&](int64_t a, int64_t b) -> absl::StatusOr<bool> {
          for (size_t v = 0; v < m; ++v) {
            args[2 * v] = ScalarOf(*operands[v], base + a * stride);
            args[2 * v + 1] = ScalarOf(*operands[v], base + b * stride);
          }
          for (size_t k = 0; k < args.size(); ++k) arg_ptrs[k] = &args[k];
          XTUNE_ASSIGN_OR_RETURN(Tensor r, run(comparator, arg_ptrs));
          return r.i[0] != 0;
        };
        XTUNE_ASSIGN_OR_RETURN(std::vector<int64_t> order,
                               StableSortOrder(n, less));
        for (size_t v = 0; v < m; ++v) {
          for (int64_t j = 0; j < n; ++j) {
            CopyElement(*operands[v], base + order[j] * stride, results[v],
                        base + j * stride);
          }
        }
        return absl::OkStatus();
      }));
  if (m == 1) return std::move(results[0]);
  Tensor t;
  t.shape = out;
  t.tuple = std::move(results);
  return t;
}

Tensor EvalTopK(const Tensor& x, int64_t k, bool largest, const Shape& out) {
  Tensor values(out.tuple_shapes()[0]);
  Tensor indices(out.tuple_shapes()[1]);
  const std::vector<int64_t>& dims = x.shape.dims();
  const int64_t n = dims.back();
  const int64_t rows = n == 0 ? 0 : x.size() / n;
  auto key_less = [&](int64_t a, int64_t b) {
    if (x.is_float()) {
      return TotalOrderKey(x.f[a]) < TotalOrderKey(x.f[b]);
    }
    if (x.shape.dtype() == DType::kU64) {
      return static_cast<uint64_t>(x.i[a]) < static_cast<uint64_t>(x.i[b]);
    }
    return x.i[a] < x.i[b];
  };
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t base = r * n;
    auto less = [&](int64_t a, int64_t b) -> absl::StatusOr<bool> {
      return largest ? key_less(base + b, base + a)
                     : key_less(base + a, base + b);
    };
    std::vector<int64_t> order = *StableSortOrder(n, less);
    for (int64_t j = 0; j < k; ++j) {
      CopyElement(x, base + order[j], values, r * k + j);
      indices.i[r * k + j] = order[j];
    }
  }
  Tensor t;
  t.shape = out;
  t.tuple.push_back(std::move(values));
  t.tuple.push_back(std::move(indices));
  return t;
}

}  // namespace xtune
