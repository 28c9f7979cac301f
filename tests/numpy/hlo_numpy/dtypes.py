"""HLO element types: their NumPy storage dtypes, rounding of float results
(bf16/f16 emulation through f32) and two's-complement wrapping of integer
results."""

import numpy as np

from .fp8 import FP8_TYPES, round_fp8

FLOAT_TYPES = ("f16", "bf16", "f32", "f64") + FP8_TYPES
INT_TYPES = {
    "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
}
_STORAGE = dict(INT_TYPES)
_STORAGE.update({"pred": np.bool_, "f16": np.float16, "bf16": np.float32,
                 "f32": np.float32, "f64": np.float64})
for _t in FP8_TYPES:
    _STORAGE[_t] = np.float32  # values exact in f32
_BYTE_SIZE = {"pred": 1, "s8": 1, "u8": 1, "f16": 2, "bf16": 2, "s16": 2,
              "u16": 2, "s32": 4,
              "u32": 4, "f32": 4, "s64": 8, "u64": 8, "f64": 8}


_BYTE_SIZE.update({t: 1 for t in FP8_TYPES})


def byte_size(dt):
    return _BYTE_SIZE[dt]


def storage_dtype(dt):
    """The NumPy dtype holding values of HLO element type `dt`."""
    try:
        return np.dtype(_STORAGE[dt])
    except KeyError:
        raise NotImplementedError("element type %r is not supported" % dt)


def is_float(dt):
    return dt in FLOAT_TYPES


def is_unsigned(dt):
    return dt in ("u8", "u16", "u32", "u64")


# ---------------------------------------------------------------------------
# Rounding and wrapping.
# ---------------------------------------------------------------------------

def round_bf16(x):
    """Rounds float32 values to bf16 (nearest even on the bit pattern), as a
    float32 array.  NaNs stay NaN (quieted), infinities stay infinite."""
    a = np.ascontiguousarray(np.asarray(x, dtype=np.float32))
    bits = a.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    nan = (bits | 0x400000) & 0xFFFF0000
    out = np.where(np.isnan(a), nan, rounded).astype(np.uint32)
    return out.view(np.float32).reshape(a.shape)


def round_float(v, dt):
    """Rounds float64 results of a computation to float type `dt` the way
    XLA does for an op computed in f32 (f64 stays f64)."""
    v = np.asarray(v, dtype=np.float64)
    if dt == "f64":
        return v.copy()
    with np.errstate(over="ignore", invalid="ignore"):
        f = v.astype(np.float32)
        if dt == "f32":
            return f
        if dt == "f16":
            return f.astype(np.float16)
    if dt == "bf16":
        return round_bf16(f)
    if dt in FP8_TYPES:
        return round_fp8(f.astype(np.float64), dt)  # computed in f32, as XLA
    raise ValueError(dt)


def wrap_int(v, dt):
    """Wraps int64 values to integer type `dt` (two's complement); pred
    becomes v != 0."""
    v = np.asarray(v)
    if dt == "pred":
        return v != 0
    return v.astype(np.int64).astype(_STORAGE[dt])


def _py_ints_to(values, dt):
    out = []
    for v in values:
        if dt == "pred":
            out.append(1 if v else 0)
            continue
        bits = _BYTE_SIZE[dt] * 8
        v &= (1 << bits) - 1
        if not is_unsigned(dt) and v >= 1 << (bits - 1):
            v -= 1 << bits
        out.append(v)
    if dt == "pred":
        return np.array(out, dtype=np.bool_)
    return np.array(out, dtype=_STORAGE[dt])


def to_storage(x, dt):
    """Converts an arbitrary NumPy array to the storage of `dt` (floats are
    rounded to the type, integers wrapped)."""
    x = np.asarray(x)
    if dt == "pred":
        return x != 0
    if is_float(dt):
        if dt == "f16" and x.dtype == np.float16:
            return x.copy()
        return round_float(x.astype(np.float64), dt)
    return wrap_int(x.astype(np.int64), dt)
