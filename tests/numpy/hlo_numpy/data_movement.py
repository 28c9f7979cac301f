"""Data movement: layouts and bitcasts (including bitcast-convert's byte
reinterpretation), broadcast, pad and iota."""

import numpy as np

from .fp8 import FP8_TYPES, decode, encode
from .dtypes import _STORAGE, is_float, round_float, wrap_int


def _to_bytes(x, dt):
    x = np.ascontiguousarray(x)
    if dt in FP8_TYPES:
        return encode(x, dt).reshape(-1)
    if dt == "bf16":
        raw = (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    elif dt == "pred":
        raw = x.astype(np.uint8)
    else:
        raw = x.astype(_STORAGE[dt])
    return np.ascontiguousarray(raw).astype(raw.dtype.newbyteorder("<")) \
        .view(np.uint8).reshape(-1)


def _from_bytes(raw, dt):
    raw = np.ascontiguousarray(raw, dtype=np.uint8)
    if dt in FP8_TYPES:
        return decode(raw, dt)
    if dt == "bf16":
        u = raw.view("<u2").astype(np.uint32) << 16
        return u.astype(np.uint32).view(np.float32)
    if dt == "pred":
        return raw != 0
    return raw.view(np.dtype(_STORAGE[dt]).newbyteorder("<")) \
        .astype(_STORAGE[dt])


def bitcast_convert(x, dt_in, out_shape):
    raw = _to_bytes(x, dt_in)
    return _from_bytes(raw, out_shape.dtype).reshape(out_shape.dims)


def physical_order(x, shape):
    """The elements of logical array `x` in the memory order of `shape`'s
    layout, as a flat array."""
    major_to_minor = list(reversed(shape.minor_to_major()))
    return np.ascontiguousarray(np.transpose(x, major_to_minor)).reshape(-1)


def from_physical(flat, shape):
    major_to_minor = list(reversed(shape.minor_to_major()))
    phys_dims = [shape.dims[d] for d in major_to_minor]
    arr = flat.reshape(phys_dims)
    return np.ascontiguousarray(np.transpose(arr, np.argsort(major_to_minor)))


def bitcast(x, in_shape, out_shape):
    flat = physical_order(x, in_shape)
    if in_shape.dtype != out_shape.dtype:
        flat = _from_bytes(_to_bytes(flat, in_shape.dtype), out_shape.dtype)
    if flat.size != int(np.prod(out_shape.dims, dtype=np.int64)):
        raise ValueError("bitcast changes the element count")
    return from_physical(flat, out_shape)


def broadcast(x, out_dims, dims):
    if x.ndim != len(dims):
        raise ValueError("broadcast: operand rank %d, dimensions %r" %
                         (x.ndim, dims))
    order = list(np.argsort(dims)) if dims else []
    xt = np.transpose(x, order) if order else x
    shape = [1] * len(out_dims)
    for i in order:
        shape[dims[i]] = x.shape[i]
    return np.ascontiguousarray(
        np.broadcast_to(xt.reshape(shape), tuple(out_dims)))


def pad(x, value, padding):
    sl = []
    src = []
    out_dims = []
    for n, (lo, hi, interior) in zip(x.shape, padding):
        inner = n + max(n - 1, 0) * interior
        out_dims.append(max(lo, 0) + inner + max(hi, 0))
        src.append(slice(max(lo, 0), max(lo, 0) + inner, interior + 1))
        total = max(lo, 0) + inner + max(hi, 0)
        sl.append(slice(max(-lo, 0), total - max(-hi, 0)))
    out = np.full(out_dims, value, dtype=x.dtype)
    out[tuple(src)] = x
    return np.ascontiguousarray(out[tuple(sl)])


def iota(shape, dim):
    n = shape.dims[dim]
    v = np.arange(n, dtype=np.int64)
    bshape = [1] * shape.rank
    bshape[dim] = n
    v = np.broadcast_to(v.reshape(bshape), shape.dims)
    if is_float(shape.dtype):
        return round_float(v.astype(np.float64), shape.dtype)
    return wrap_int(v, shape.dtype)
