"""The 8-bit float types (ml_dtypes' formats, which XLA parses), from their
definitions: every code's value is tabulated, and rounding picks the nearest
table value (ties to the even code), so nothing here shares xtune's
arithmetic. Values are held in float32 (all are exact there).

Overflow follows ml_dtypes' (XLA's) non-saturating conversion: infinity for
f8e5m2, NaN for the formats without infinities; the fnuz formats have no -0
(0x80 is their NaN). NaN codes keep their sign where the format has one."""

import math

import numpy as np

# name: (exponent bits, mantissa bits, bias, kind)
FORMATS = {
    "f8e4m3fn": (4, 3, 7, "fn"),
    "f8e5m2": (5, 2, 15, "ieee"),
    "f8e4m3fnuz": (4, 3, 8, "fnuz"),
    "f8e5m2fnuz": (5, 2, 16, "fnuz"),
    "f8e4m3b11fnuz": (4, 3, 11, "fnuz"),
}
FP8_TYPES = tuple(FORMATS)
_TABLES = {}


def mantissa_bits(dt):
    return FORMATS[dt][1]


def _value(code, eb, mb, bias, kind):
    top = (1 << eb) - 1
    sign = -1.0 if code & 0x80 else 1.0
    e = (code >> mb) & top
    m = code & ((1 << mb) - 1)
    nan = math.copysign(float("nan"), sign)  # NaN codes keep their sign
    if kind == "fnuz" and code == 0x80:
        return float("nan")
    if kind == "fn" and e == top and m == (1 << mb) - 1:
        return nan
    if kind == "ieee" and e == top:
        return sign * float("inf") if m == 0 else nan
    if e == 0:
        return sign * m * 2.0 ** (1 - bias - mb)
    return sign * (1 + m / 2.0 ** mb) * 2.0 ** (e - bias)


def table(dt):
    """(values of codes 0..255, sorted finite non-negative values, their
    codes)."""
    if dt not in _TABLES:
        eb, mb, bias, kind = FORMATS[dt]
        values = np.array([_value(c, eb, mb, bias, kind) for c in range(256)])
        pos = [(v, c) for c, v in enumerate(values)
               if np.isfinite(v) and c < 0x80]
        pos.sort()
        _TABLES[dt] = (values, np.array([v for v, _ in pos]),
                       np.array([c for _, c in pos]))
    return _TABLES[dt]


def encode(x, dt):
    """Codes (uint8) of float64 values `x`, rounded to nearest, ties to the
    even code."""
    eb, mb, bias, kind = FORMATS[dt]
    values, pos, codes = table(dt)
    x = np.asarray(x, dtype=np.float64)
    a = np.abs(x)
    top_step = pos[-1] - pos[-2]
    # A virtual value one step above the largest stands for overflow; its
    # code (the next after the largest) decides ties at the top.
    ext = np.append(pos, pos[-1] + top_step)
    ext_codes = np.append(codes, codes[-1] + 1)
    finite = np.where(np.isfinite(a), a, 0.0)
    hi = np.clip(np.searchsorted(ext, finite), 1, len(ext) - 1)
    lo = hi - 1
    d_lo = finite - ext[lo]
    d_hi = ext[hi] - finite
    take_hi = (d_hi < d_lo) | ((d_hi == d_lo) & (ext_codes[hi] % 2 == 0))
    idx = np.where(finite >= ext[-1], len(ext) - 1, np.where(take_hi, hi, lo))
    code = ext_codes[idx].astype(np.int64)
    overflow = (idx == len(ext) - 1) | np.isinf(a)
    inf_code = ((1 << eb) - 1) << mb
    # NaN codes as ml_dtypes writes them: fnuz's one (0x80); fn's all ones;
    # the IEEE format's quiet NaN (top mantissa bit). fn and IEEE keep the
    # sign; overflow gives NaN (inf for the IEEE format) with the sign too.
    nan_code = {"fnuz": 0x80, "fn": 0x7F,
                "ieee": inf_code | (1 << (mb - 1))}[kind]
    negative = np.signbit(x)
    nan = np.isnan(x) | (overflow & (kind != "ieee"))
    code = np.where(overflow, inf_code, code)
    code = np.where(nan, nan_code, code)
    zero = code == 0
    sign = negative & ~(nan & (kind == "fnuz")) & ~(zero & (kind == "fnuz"))
    code = np.where(sign, code | 0x80, code)
    return code.astype(np.uint8)


def decode(codes, dt):
    values, _, _ = table(dt)
    return values[np.asarray(codes, dtype=np.int64)].astype(np.float32)


def round_fp8(x, dt):
    """float64 values rounded to `dt`, as float32."""
    return decode(encode(x, dt), dt)
