"""dot: general batched contraction, accumulated in float64 (int64 for
integers) and rounded to the result type."""

import numpy as np

from .dtypes import is_float, round_float, wrap_int
from .elementwise import convert


def dot(lhs, rhs, lhs_dt, rhs_dt, out_shape, lb, lc, rb, rc):
    lfree = [d for d in range(lhs.ndim) if d not in lb and d not in lc]
    rfree = [d for d in range(rhs.ndim) if d not in rb and d not in rc]
    if [lhs.shape[d] for d in lb] != [rhs.shape[d] for d in rb] or \
            [lhs.shape[d] for d in lc] != [rhs.shape[d] for d in rc]:
        raise ValueError("dot: mismatched batch/contracting sizes")
    B = int(np.prod([lhs.shape[d] for d in lb], dtype=np.int64))
    K = int(np.prod([lhs.shape[d] for d in lc], dtype=np.int64))
    M = int(np.prod([lhs.shape[d] for d in lfree], dtype=np.int64))
    N = int(np.prod([rhs.shape[d] for d in rfree], dtype=np.int64))
    floaty = is_float(out_shape.dtype) or is_float(lhs_dt) or is_float(rhs_dt)
    acc = np.float64 if floaty else np.int64
    L = np.transpose(lhs, lb + lfree + lc).astype(acc).reshape(B, M, K)
    R = np.transpose(rhs, rb + rc + rfree).astype(acc).reshape(B, K, N)
    out = np.matmul(L, R)
    dims = ([lhs.shape[d] for d in lb] + [lhs.shape[d] for d in lfree] +
            [rhs.shape[d] for d in rfree])
    out = out.reshape(dims)
    if is_float(out_shape.dtype):
        return round_float(out, out_shape.dtype)
    if floaty:
        return convert(out, "f64", out_shape.dtype)
    return wrap_int(out, out_shape.dtype)
