"""Element-wise operations: unary, binary, compare and convert, with XLA's
numerics (floats computed in float64 and rounded through f32, integers
wrapped, integer division by zero/-1 as XLA defines it)."""

import math

import numpy as np

from .dtypes import is_float, round_bf16, round_float, wrap_int


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
    else:
        raise NotImplementedError("%s on %s" % (op, dt_in))
    return wrap_int(r, dt_in)


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
    "u32": (0, 2 ** 32 - 1),
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
        return round_bf16(f)
    return wrap_int(x.astype(np.int64), dt_out)
