"""Element-wise operations: unary, binary, compare and convert, with XLA's
numerics (floats computed in float64 and rounded through f32, integers
wrapped, integer division by zero/-1 as XLA defines it)."""

import math

import numpy as np

from .dtypes import is_float, round_bf16, round_float, storage_dtype, wrap_int


_UNARY_FLOAT = {
    "negate": np.negative,
    "abs": np.abs,
    "exponential": np.exp,
    "exponential-minus-one": np.expm1,
    "log": np.log,
    "log-plus-one": np.log1p,
    "tanh": np.tanh,
    "logistic": lambda x: 1.0 / (1.0 + np.exp(-x)),
    "sqrt": np.sqrt,
    "rsqrt": lambda x: 1.0 / np.sqrt(x),
    "cbrt": np.cbrt,
    "floor": np.floor,
    "ceil": np.ceil,
    "round-nearest-even": np.rint,
    "cosine": np.cos,
    "sine": np.sin,
    "tan": np.tan,
}

_erf_vec = np.vectorize(math.erf, otypes=[np.float64])


def _round_afz(x):
    t = np.trunc(x)
    frac = np.abs(x - t)
    return np.where(frac >= 0.5, t + np.copysign(1.0, x), t)


def _sign_float(x):
    return np.where(np.isnan(x) | (x == 0), x, np.copysign(1.0, x))


def unary(op, x, dt_in, dt_out):
    if op == "is-finite":
        return np.isfinite(x.astype(np.float64))
    if op == "convert":
        return convert(x, dt_in, dt_out)
    if dt_in == "pred":
        if op == "not":
            return np.logical_not(x)
        if op in ("abs", "negate", "sign"):
            return x.copy()
        raise NotImplementedError("%s on pred" % op)
    if is_float(dt_in):
        v = x.astype(np.float64)
        if op in _UNARY_FLOAT:
            r = _UNARY_FLOAT[op](v)
        elif op == "round-nearest-afz":
            r = _round_afz(v)
        elif op == "sign":
            r = _sign_float(v)
        elif op == "erf":
            r = _erf_vec(v) if v.size else v
        else:
            raise NotImplementedError("%s on %s" % (op, dt_in))
        return round_float(r, dt_in)
    v = x.astype(np.int64)
    if op == "negate":
        r = -v
    elif op == "abs":
        r = np.abs(v)
    elif op == "sign":
        r = np.sign(v)
    elif op == "not":
        r = ~v
    elif op in ("popcnt", "count-leading-zeros"):
        bits = np.dtype(storage_dtype(dt_in)).itemsize * 8
        u = v.astype(np.uint64) & np.uint64((1 << bits) - 1 if bits < 64
                                            else 0xFFFFFFFFFFFFFFFF)
        ones = np.zeros(v.shape, np.int64)
        length = np.zeros(v.shape, np.int64)
        for b in range(bits):
            bit = (u >> np.uint64(b)) & np.uint64(1)
            ones += bit.astype(np.int64)
            length = np.where(bit != 0, b + 1, length)
        r = ones if op == "popcnt" else bits - length
    else:
        raise NotImplementedError("%s on %s" % (op, dt_in))
    return wrap_int(r, dt_in)


# (total bits, exponent bits, mantissa bits, unsigned view) of each float.
_FLOAT_FORMATS = {"f16": (16, 5, 10), "bf16": (16, 8, 7), "f32": (32, 8, 23),
                  "f64": (64, 11, 52)}


def reduce_precision(x, dt, ebits, mbits):
    """XLA's reduce-precision on the bits of dt's own format."""
    if dt not in _FLOAT_FORMATS:
        raise NotImplementedError("reduce-precision on " + dt)
    n, se, sm = _FLOAT_FORMATS[dt]
    x = round_float(x.astype(np.float64), dt)
    if dt == "bf16":
        u = (x.astype(np.float32).view(np.uint32) >> np.uint32(16)).astype(
            np.uint64)
    elif dt == "f16":
        u = x.astype(np.float16).view(np.uint16).astype(np.uint64)
    elif dt == "f32":
        u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    else:
        u = x.astype(np.float64).view(np.uint64)
    u = u.copy()
    U = np.uint64
    full = (1 << n) - 1
    sign = 1 << (n - 1)
    exp_mask = ((1 << se) - 1) << sm
    nan = (u & U(sign - 1)) > U(exp_mask)
    r = u.copy()
    if mbits < sm:
        last = 1 << (sm - mbits)
        bias = U((last >> 1) - 1) + ((r & U(last)) >> U(sm - mbits))
        r = ((r + bias) & U(full & ~(last - 1))) & U(full)
    if ebits < se:
        b = (1 << (se - 1)) - 1
        red = (1 << (ebits - 1)) - 1
        e = r & U(exp_mask)
        zero = r & U(sign)
        r = np.where(e > U((b + red) << sm), zero | U(exp_mask), r)
        r = np.where(e <= U((b - red) << sm), zero, r)
    r = np.where(nan, u if mbits > 0 else U(exp_mask), r)
    if dt == "bf16":
        return (r.astype(np.uint32) << np.uint32(16)).view(np.float32)
    if dt == "f16":
        return r.astype(np.uint16).view(np.float16)
    if dt == "f32":
        return r.astype(np.uint32).view(np.float32)
    return r.view(np.float64)


def _int_divrem(a, b, dt, want_div):
    zero = b == 0
    minus1 = b == -1
    safe = np.where(zero | minus1, 1, b)
    r = np.fmod(a, safe)
    if want_div:
        q = (a - r) // safe
        q = np.where(minus1, -a, q)
        return np.where(zero, -1, q)       # -1 wraps to the unsigned max
    r = np.where(minus1, 0, r)
    return np.where(zero, a, r)


def _int_pow(base, exp):
    """Integer power by squaring, wrapping.  A negative exponent gives
    base == 1 ? 1 : 0, as XLA's evaluator and CPU/GPU emitters do (note:
    StableHLO's reference interpreter instead gives (-1)^n = +-1 there)."""
    acc = np.ones_like(base)
    b = base.copy()
    e = exp.view(np.uint64).copy()
    for _ in range(64):
        acc = np.where((e & 1) == 1, acc * b, acc)
        b = b * b
        e = e >> np.uint64(1)
    return np.where(exp >= 0, acc, np.where(base == 1, 1, 0))


def binary(op, a, b, dt):
    if dt == "pred":
        a = a.astype(np.bool_)
        b = b.astype(np.bool_)
        if op in ("and", "multiply", "minimum"):
            return np.logical_and(a, b)
        if op in ("or", "add", "maximum"):
            return np.logical_or(a, b)
        if op == "xor":
            return np.logical_xor(a, b)
        raise NotImplementedError("%s on pred" % op)
    if is_float(dt):
        x = a.astype(np.float64)
        y = b.astype(np.float64)
        if op == "add":
            r = x + y
        elif op == "subtract":
            r = x - y
        elif op == "multiply":
            r = x * y
        elif op == "divide":
            r = x / y
        elif op == "remainder":
            r = np.fmod(x, y)
        elif op == "maximum":
            r = np.maximum(x, y)
        elif op == "minimum":
            r = np.minimum(x, y)
        elif op == "power":
            r = np.power(x, y)
        elif op == "atan2":
            r = np.arctan2(x, y)
        else:
            raise NotImplementedError("%s on %s" % (op, dt))
        return round_float(r, dt)
    x = a.astype(np.int64)
    y = b.astype(np.int64)
    if op == "add":
        r = x + y
    elif op == "subtract":
        r = x - y
    elif op == "multiply":
        r = x * y
    elif op == "divide":
        r = _int_divrem(x, y, dt, True)
    elif op == "remainder":
        r = _int_divrem(x, y, dt, False)
    elif op == "maximum":
        r = np.maximum(x, y)
    elif op == "minimum":
        r = np.minimum(x, y)
    elif op == "and":
        r = x & y
    elif op == "or":
        r = x | y
    elif op == "xor":
        r = x ^ y
    elif op == "power":
        r = _int_pow(x, y)
    else:
        raise NotImplementedError("%s on %s" % (op, dt))
    return wrap_int(r, dt)


def _total_order_key(x, dt):
    x = np.ascontiguousarray(x)
    if dt == "f16":
        k = x.view(np.int16).astype(np.int64)
        flip = 0x7FFF
    elif dt in ("f32", "bf16"):
        k = x.astype(np.float32).view(np.int32).astype(np.int64)
        flip = 0x7FFFFFFF
    else:
        k = x.view(np.int64)
        flip = 0x7FFFFFFFFFFFFFFF
    return np.where(k < 0, k ^ flip, k)


def compare(a, b, dt, direction, ctype):
    if is_float(dt) and ctype == "TOTALORDER":
        x, y = _total_order_key(a, dt), _total_order_key(b, dt)
    elif is_float(dt):
        x, y = a.astype(np.float64), b.astype(np.float64)
    else:
        x, y = a.astype(np.int64), b.astype(np.int64)
    fn = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less,
          "LE": np.less_equal, "GT": np.greater, "GE": np.greater_equal}
    if direction not in fn:
        raise NotImplementedError("compare direction %r" % direction)
    return fn[direction](x, y)


_INT_RANGE = {
    "s8": (-2 ** 7, 2 ** 7 - 1), "s32": (-2 ** 31, 2 ** 31 - 1),
    "s64": (-2 ** 63, 2 ** 63 - 1), "u8": (0, 2 ** 8 - 1),
    "u32": (0, 2 ** 32 - 1), "s16": (-2 ** 15, 2 ** 15 - 1),
    "u16": (0, 2 ** 16 - 1), "u64": (0, 2 ** 64 - 1),
}


def convert(x, dt_in, dt_out):
    if dt_out == "pred":
        return x != 0
    if dt_in == "pred":
        x = x.astype(np.int64)
        dt_in = "s64"
    if is_float(dt_in) and is_float(dt_out):
        if dt_in == dt_out:
            return x.copy()
        v = x.astype(np.float64)
        if dt_out == "f16":
            return v.astype(np.float16)       # one rounding, as LLVM's fptrunc
        return round_float(v, dt_out)         # bf16 goes through f32, as XLA
    if is_float(dt_in):
        lo, hi = _INT_RANGE[dt_out]
        v = np.trunc(x.astype(np.float64))
        nan = np.isnan(v)
        over = v >= float(hi)       # float(2**63-1) == 2**63
        under = v <= float(lo)
        safe = np.where(nan | over | under, 0.0, v).astype(np.int64)
        r = np.where(over, hi, np.where(under, lo, np.where(nan, 0, safe)))
        return wrap_int(r.astype(np.int64), dt_out)
    if is_float(dt_out):
        v = x.astype(np.int64)
        if dt_out == "f64":
            return v.astype(np.float64)
        f = v.astype(np.float32)              # one rounding to f32
        if dt_out == "f32":
            return f
        if dt_out == "f16":
            return v.astype(np.float64).astype(np.float16)
        return round_float(f.astype(np.float64), dt_out)  # via f32
    return wrap_int(x.astype(np.int64), dt_out)
