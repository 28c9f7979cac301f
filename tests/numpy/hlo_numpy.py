"""An independent NumPy reference for the HLO text subset xtune handles.

Parses an HLO text module and evaluates its entry computation with NumPy,
following XLA's semantics.  It shares no code with xtune: it exists so that
a test can check `xtune run --backend=interpreter` against a second,
separately written implementation.

Values are NumPy arrays in *logical* row-major order (layouts matter only to
`bitcast`), held in a storage dtype per HLO element type:

    pred -> bool    s8/s32/s64 -> int8/int32/int64   u8/u32 -> uint8/uint32
    f16 -> float16  f32 -> float32  f64 -> float64
    bf16 -> float32 whose values are all exactly representable in bf16

Tuples are Python lists of values.

Numerics: float element-wise ops are computed in float64 and rounded to
float32 first, then to the element type (for + - * / sqrt this is exactly
"compute in f32 and round", since the double rounding is innocuous; for
transcendentals it is at least as accurate).  Integers wrap.  Dots
accumulate in float64 (int64 for integers) and round to the result type.
Reductions whose to_apply is add/multiply of f32/f64 sum in float64; all
other reductions, and every f16/bf16 add/multiply reduction, combine the
elements one at a time in row-major order of the reduced dimensions,
rounding after each step as XLA's evaluator does.

Usage:
    module = parse_module(text)
    result = evaluate(module, [arg0, arg1, ...])   # storage-dtype arrays
    leaves = flatten(result)
"""

import math
import re

import numpy as np

__all__ = [
    "Shape", "Instruction", "Computation", "Module", "HloParseError",
    "parse_module", "parse_module_file", "evaluate", "evaluate_computation",
    "flatten", "storage_dtype", "round_bf16", "to_storage", "FLOAT_TYPES",
    "INT_TYPES",
]

FLOAT_TYPES = ("f16", "bf16", "f32", "f64")
INT_TYPES = {
    "s8": np.int8, "s32": np.int32, "s64": np.int64,
    "u8": np.uint8, "u32": np.uint32,
}
_STORAGE = dict(INT_TYPES)
_STORAGE.update({"pred": np.bool_, "f16": np.float16, "bf16": np.float32,
                 "f32": np.float32, "f64": np.float64})
_BYTE_SIZE = {"pred": 1, "s8": 1, "u8": 1, "f16": 2, "bf16": 2, "s32": 4,
              "u32": 4, "f32": 4, "s64": 8, "f64": 8}


def storage_dtype(dt):
    """The NumPy dtype holding values of HLO element type `dt`."""
    try:
        return np.dtype(_STORAGE[dt])
    except KeyError:
        raise NotImplementedError("element type %r is not supported" % dt)


def is_float(dt):
    return dt in FLOAT_TYPES


def is_unsigned(dt):
    return dt in ("u8", "u32")


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
    f = v.astype(np.float32)
    if dt == "f32":
        return f
    if dt == "f16":
        return f.astype(np.float16)
    if dt == "bf16":
        return round_bf16(f)
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


# ---------------------------------------------------------------------------
# Shapes.
# ---------------------------------------------------------------------------

class Shape(object):
    """An array shape (dtype, dims, minor_to_major or None for the default)
    or a tuple shape (dtype 'tuple', elements)."""

    def __init__(self, dtype, dims=(), layout=None, elements=None):
        self.dtype = dtype
        self.dims = tuple(dims)
        self.layout = None if layout is None else tuple(layout)
        self.elements = list(elements or [])

    @property
    def is_tuple(self):
        return self.dtype == "tuple"

    @property
    def rank(self):
        return len(self.dims)

    def minor_to_major(self):
        if self.layout is None or len(self.layout) != len(self.dims):
            return tuple(range(len(self.dims) - 1, -1, -1))
        return self.layout

    def leaves(self):
        if not self.is_tuple:
            return [self]
        out = []
        for e in self.elements:
            out.extend(e.leaves())
        return out

    def __repr__(self):
        if self.is_tuple:
            return "(" + ", ".join(repr(e) for e in self.elements) + ")"
        s = "%s[%s]" % (self.dtype, ",".join(str(d) for d in self.dims))
        if self.layout is not None:
            s += "{%s}" % ",".join(str(d) for d in self.layout)
        return s


# ---------------------------------------------------------------------------
# Parser.
# ---------------------------------------------------------------------------

class HloParseError(Exception):
    pass


class Instruction(object):
    def __init__(self, name, shape, opcode, operands, attrs, is_root, raw):
        self.name = name
        self.shape = shape
        self.opcode = opcode
        self.operands = operands     # operand names
        self.attrs = attrs           # name -> raw value text
        self.is_root = is_root
        self.raw = raw               # constant literal text / parameter number

    def __repr__(self):
        return "%s = %r %s(%s)" % (self.name, self.shape, self.opcode,
                                   ", ".join(self.operands))


class Computation(object):
    def __init__(self, name, is_entry, instructions):
        self.name = name
        self.is_entry = is_entry
        self.instructions = instructions
        self.by_name = {}
        for ins in instructions:
            if ins.name in self.by_name:
                raise HloParseError("duplicate instruction %r in %r" %
                                    (ins.name, name))
            self.by_name[ins.name] = ins
        roots = [i for i in instructions if i.is_root]
        if len(roots) > 1:
            raise HloParseError("computation %r has several ROOTs" % name)
        if not instructions:
            raise HloParseError("computation %r is empty" % name)
        self.root = roots[0] if roots else instructions[-1]
        self.parameters = {}
        for ins in instructions:
            if ins.opcode == "parameter":
                self.parameters[int(ins.raw)] = ins

    def parameter_shapes(self):
        return [self.parameters[k].shape for k in sorted(self.parameters)]


class Module(object):
    def __init__(self, name, attrs, computations):
        self.name = name
        self.attrs = attrs
        self.computations = {}
        for c in computations:
            if c.name in self.computations:
                raise HloParseError("duplicate computation %r" % c.name)
            self.computations[c.name] = c
        entries = [c for c in computations if c.is_entry]
        if len(entries) > 1:
            raise HloParseError("several ENTRY computations")
        if not computations:
            raise HloParseError("module has no computations")
        self.entry = entries[0] if entries else computations[-1]


_NAME_RE = re.compile(r"%?([A-Za-z0-9_.\-$]+)")
_WORD_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")
_DTYPE_RE = re.compile(r"(pred|s4|s8|s16|s32|s64|u4|u8|u16|u32|u64|f16|bf16|"
                       r"f32|f64|c64|c128|token|f8[a-z0-9]*)(?=\[)")
_LAYOUT_RE = re.compile(r"\{\s*([0-9,\s]*)(:[^{}]*)?\}")


def strip_comments(text):
    """Replaces // and /* */ comments with spaces (keeping newlines),
    leaving string literals alone."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise HloParseError("unterminated /* comment")
            out.append("".join(ch if ch == "\n" else " "
                               for ch in text[i:j + 2]))
            i = j + 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


class _Parser(object):
    def __init__(self, text):
        self.t = strip_comments(text)
        self.p = 0

    # -- low level --------------------------------------------------------
    def error(self, msg):
        line = self.t.count("\n", 0, self.p) + 1
        col = self.p - (self.t.rfind("\n", 0, self.p) + 1) + 1
        snippet = self.t[self.p:self.p + 40].split("\n")[0]
        raise HloParseError("%d:%d: %s (at %r)" % (line, col, msg, snippet))

    def ws(self):
        n = len(self.t)
        while self.p < n and self.t[self.p].isspace():
            self.p += 1

    def at_end(self):
        self.ws()
        return self.p >= len(self.t)

    def peek(self, s):
        return self.t.startswith(s, self.p)

    def expect(self, s):
        self.ws()
        if not self.peek(s):
            self.error("expected %r" % s)
        self.p += len(s)

    def match(self, regex):
        m = regex.match(self.t, self.p)
        if not m:
            return None
        self.p = m.end()
        return m

    def keyword(self, word):
        """Consumes `word` if it is the next whole word."""
        self.ws()
        if self.peek(word):
            end = self.p + len(word)
            if end >= len(self.t) or not (self.t[end].isalnum() or
                                          self.t[end] in "_.-%"):
                self.p = end
                return True
        return False

    def name(self):
        self.ws()
        m = self.match(_NAME_RE)
        if not m:
            self.error("expected a name")
        return m.group(1)

    def balanced(self, open_ch, close_ch):
        """Returns the text between the bracket at the cursor and its match
        (strings skipped) and moves past the closing bracket."""
        if not self.peek(open_ch):
            self.error("expected %r" % open_ch)
        depth = 0
        start = self.p
        n = len(self.t)
        i = self.p
        while i < n:
            c = self.t[i]
            if c == '"':
                i += 1
                while i < n and self.t[i] != '"':
                    i += 2 if self.t[i] == "\\" else 1
            elif c in "({[":
                depth += 1
            elif c in ")}]":
                depth -= 1
                if depth == 0:
                    if c != close_ch:
                        self.error("mismatched brackets")
                    self.p = i + 1
                    return self.t[start + 1:i]
            i += 1
        self.error("unbalanced %r" % open_ch)

    def raw_value(self):
        """An attribute value: everything up to a top-level ',', whitespace
        or unmatched closing bracket."""
        self.ws()
        start = self.p
        depth = 0
        n = len(self.t)
        i = self.p
        while i < n:
            c = self.t[i]
            if c == '"':
                i += 1
                while i < n and self.t[i] != '"':
                    i += 2 if self.t[i] == "\\" else 1
            elif c in "({[":
                depth += 1
            elif c in ")}]":
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and (c == "," or c.isspace()):
                break
            i += 1
        self.p = i
        return self.t[start:i]

    def attributes(self):
        attrs = {}
        while True:
            self.ws()
            if not self.peek(","):
                return attrs
            self.p += 1
            self.ws()
            m = self.match(_WORD_RE)
            if not m:
                self.error("expected an attribute name")
            self.expect("=")
            attrs[m.group(0)] = self.raw_value()

    # -- shapes -----------------------------------------------------------
    def shape(self):
        self.ws()
        if self.peek("("):
            self.p += 1
            elements = []
            self.ws()
            if self.peek(")"):
                self.p += 1
                return Shape("tuple", elements=[])
            while True:
                elements.append(self.shape())
                self.ws()
                if self.peek(","):
                    self.p += 1
                    continue
                self.expect(")")
                return Shape("tuple", elements=elements)
        m = self.match(_DTYPE_RE)
        if not m:
            self.error("expected a shape")
        dtype = m.group(1)
        body = self.balanced("[", "]")
        dims = []
        for d in body.split(","):
            d = d.strip()
            if not d:
                continue
            d = d.lstrip("<=").strip()
            if d == "?":
                self.error("unbounded dynamic dimensions are not supported")
            dims.append(int(d))
        layout = None
        if self.peek("{"):
            lm = _LAYOUT_RE.match(self.t, self.p)
            if lm:
                self.p = lm.end()
                layout = [int(x) for x in lm.group(1).replace(" ", "")
                          .split(",") if x.strip()]
                if len(layout) != len(dims):
                    layout = None
        return Shape(dtype, dims, layout)

    def operand_list(self):
        self.expect("(")
        names = []
        self.ws()
        if self.peek(")"):
            self.p += 1
            return names
        while True:
            self.ws()
            if self.peek("(") or _DTYPE_RE.match(self.t, self.p):
                self.shape()
            names.append(self.name())
            self.ws()
            if self.peek(","):
                self.p += 1
                continue
            self.expect(")")
            return names

    # -- structure --------------------------------------------------------
    def instruction(self):
        start = self.p
        is_root = self.keyword("ROOT")
        name = self.name()
        self.expect("=")
        shape = self.shape()
        self.ws()
        m = self.match(re.compile(r"[a-z][a-z0-9\-]*"))
        if not m:
            self.error("expected an opcode")
        opcode = m.group(0)
        self.ws()
        raw = None
        operands = []
        if opcode == "constant":
            raw = self.balanced("(", ")")
        elif opcode == "parameter":
            raw = self.balanced("(", ")").strip()
            if not re.match(r"^\d+$", raw):
                self.p = start
                self.error("bad parameter number")
        else:
            operands = self.operand_list()
        attrs = self.attributes()
        return Instruction(name, shape, opcode, operands, attrs, is_root, raw)

    def computation(self):
        is_entry = self.keyword("ENTRY")
        name = self.name()
        self.ws()
        if self.peek("("):
            self.balanced("(", ")")
            self.ws()
        if self.peek("->"):
            self.p += 2
            self.shape()
            self.ws()
        # Computation attributes such as execution_thread=... are skipped.
        self.attributes()
        self.expect("{")
        instructions = []
        while True:
            self.ws()
            if self.peek("}"):
                self.p += 1
                break
            if self.p >= len(self.t):
                self.error("unterminated computation %r" % name)
            instructions.append(self.instruction())
        return Computation(name, is_entry, instructions)

    def module(self):
        if not self.keyword("HloModule"):
            self.error("expected HloModule")
        name = self.name()
        attrs = self.attributes()
        comps = []
        while not self.at_end():
            comps.append(self.computation())
        return Module(name, attrs, comps)


def parse_module(text):
    return _Parser(text).module()


def parse_module_file(path):
    with open(path) as f:
        return parse_module(f.read())


# ---------------------------------------------------------------------------
# Attribute decoding.
# ---------------------------------------------------------------------------

def _int_list(v):
    v = v.strip()
    if v.startswith("{") and v.endswith("}"):
        v = v[1:-1]
    return [int(x) for x in v.split(",") if x.strip()]


def _slice_attr(v):
    out = []
    for m in re.finditer(r"\[\s*(-?\d+)\s*:\s*(-?\d+)\s*(?::\s*(-?\d+)\s*)?\]",
                         v):
        out.append((int(m.group(1)), int(m.group(2)),
                    int(m.group(3)) if m.group(3) else 1))
    return out


def _padding_attr(v):
    out = []
    for part in v.strip().split("x"):
        nums = [int(x) for x in part.split("_")]
        if len(nums) == 2:
            nums.append(0)
        if len(nums) != 3:
            raise HloParseError("bad padding %r" % v)
        out.append(tuple(nums))
    return out


def _comp_name(v):
    return v.strip().lstrip("%")


_LITERAL_TOKEN = re.compile(
    r"-?nan(?:\([^)]*\))?|[-+]?inf|true|false|0x[0-9a-fA-F]+|"
    r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def parse_literal(raw, shape):
    if shape.is_tuple:
        raise NotImplementedError("tuple constants are not supported")
    if "..." in raw:
        raise NotImplementedError("elided constant {...}")
    tokens = _LITERAL_TOKEN.findall(raw)
    count = int(np.prod(shape.dims, dtype=np.int64))
    if len(tokens) != count:
        raise HloParseError("constant %r has %d values, shape %r needs %d" %
                            (raw, len(tokens), shape, count))
    dt = shape.dtype
    if is_float(dt):
        vals = []
        for t in tokens:
            if "nan" in t:
                vals.append(-math.nan if t.startswith("-") else math.nan)
            elif t in ("true", "false"):
                vals.append(1.0 if t == "true" else 0.0)
            else:
                vals.append(float(t))
        arr = round_float(np.array(vals, dtype=np.float64), dt)
    else:
        vals = []
        for t in tokens:
            if t in ("true", "false"):
                vals.append(1 if t == "true" else 0)
            elif t.startswith("0x"):
                vals.append(int(t, 16))
            else:
                vals.append(int(float(t)) if re.search(r"[.eE]", t)
                            else int(t))
        arr = _py_ints_to(vals, dt)
    return arr.reshape(shape.dims)


# ---------------------------------------------------------------------------
# Element-wise operations.
# ---------------------------------------------------------------------------

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


def _to_bytes(x, dt):
    x = np.ascontiguousarray(x)
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


# ---------------------------------------------------------------------------
# Data movement.
# ---------------------------------------------------------------------------

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


# ---------------------------------------------------------------------------
# The evaluator.
# ---------------------------------------------------------------------------

_ELEMENTWISE_UNARY = set(_UNARY_FLOAT) | {
    "round-nearest-afz", "sign", "erf", "not", "is-finite", "convert"}
_ELEMENTWISE_BINARY = {"add", "subtract", "multiply", "divide", "remainder",
                       "maximum", "minimum", "power", "atan2", "and", "or",
                       "xor"}
_SIMPLE_REDUCERS = {"add", "multiply", "maximum", "minimum", "and", "or",
                    "xor"}


class EvaluationError(Exception):
    pass


def flatten(value):
    """The leaves of a (nested) tuple value, in order."""
    if isinstance(value, list):
        out = []
        for v in value:
            out.extend(flatten(v))
        return out
    return [value]


class _Evaluator(object):
    def __init__(self, module):
        self.module = module

    def comp(self, name):
        try:
            return self.module.computations[_comp_name(name)]
        except KeyError:
            raise EvaluationError("unknown computation %r" % name)

    def run(self, comp, args):
        params = comp.parameters
        if len(args) != len(params):
            raise EvaluationError("%s takes %d arguments, got %d" %
                                  (comp.name, len(params), len(args)))
        env = {}
        # Iterative post-order from the root: evaluates only what it needs.
        stack = [(comp.root.name, False)]
        while stack:
            name, ready = stack.pop()
            if name in env:
                continue
            ins = comp.by_name.get(name)
            if ins is None:
                raise EvaluationError("%s: unknown operand %r" %
                                      (comp.name, name))
            if ready:
                try:
                    env[name] = self.instruction(ins, [env[o] for o in
                                                       ins.operands], args)
                except (EvaluationError, NotImplementedError):
                    raise
                except Exception as e:
                    raise EvaluationError("%s/%s (%s): %s: %s" % (
                        comp.name, ins.name, ins.opcode, type(e).__name__, e))
                continue
            stack.append((name, True))
            for o in reversed(ins.operands):
                if o not in env:
                    stack.append((o, False))
        return env[comp.root.name]

    def instruction(self, ins, ops, args):
        op = ins.opcode
        shape = ins.shape
        a = ins.attrs
        dt = shape.dtype

        def odt(i):
            return self._dtype_of(ins, i)

        if op == "parameter":
            return args[int(ins.raw)]
        if op == "constant":
            return parse_literal(ins.raw, shape)
        if op == "iota":
            return iota(shape, int(a.get("iota_dimension", "0")))
        if op in _ELEMENTWISE_UNARY and len(ops) == 1:
            return self._check(ins, unary(op, ops[0], odt(0), dt))
        if op in _ELEMENTWISE_BINARY:
            return self._check(ins, binary(op, ops[0], ops[1], dt))
        if op == "compare":
            return compare(ops[0], ops[1], odt(0), a["direction"],
                           a.get("type", ""))
        if op == "select":
            return np.where(ops[0], ops[1], ops[2]).astype(storage_dtype(dt))
        if op == "clamp":
            lo, x, hi = ops
            if is_float(dt):
                return np.minimum(np.maximum(x, lo), hi).astype(
                    storage_dtype(dt))
            r = np.minimum(np.maximum(x.astype(np.int64), lo.astype(np.int64)),
                           hi.astype(np.int64))
            return wrap_int(r, dt)
        if op == "bitcast-convert":
            return bitcast_convert(ops[0], odt(0), shape)
        if op == "broadcast":
            return broadcast(ops[0], shape.dims, _int_list(a.get("dimensions",
                                                                 "{}")))
        if op == "reshape":
            return np.ascontiguousarray(ops[0]).reshape(shape.dims)
        if op == "bitcast":
            return bitcast(ops[0], self._shape_of(ins, 0), shape)
        if op == "transpose":
            return np.ascontiguousarray(
                np.transpose(ops[0], _int_list(a["dimensions"])))
        if op == "copy":
            return ops[0].copy()
        if op == "slice":
            sl = tuple(slice(s, e, st) for s, e, st in _slice_attr(a["slice"]))
            return np.ascontiguousarray(ops[0][sl])
        if op == "concatenate":
            return np.concatenate(ops, axis=_int_list(a["dimensions"])[0])
        if op == "pad":
            return pad(ops[0], ops[1], _padding_attr(a["padding"]))
        if op == "reverse":
            dims = _int_list(a["dimensions"])
            return np.ascontiguousarray(np.flip(ops[0], axis=dims)) \
                if dims else ops[0].copy()
        if op == "dot":
            return dot(ops[0], ops[1], odt(0), odt(1), shape,
                       _int_list(a.get("lhs_batch_dims", "{}")),
                       _int_list(a.get("lhs_contracting_dims", "{}")),
                       _int_list(a.get("rhs_batch_dims", "{}")),
                       _int_list(a.get("rhs_contracting_dims", "{}")))
        if op == "reduce":
            return self.reduce(ins, ops)
        if op == "fusion":
            return self.run(self.comp(a["calls"]), ops)
        if op == "call":
            return self.run(self.comp(a.get("to_apply", a.get("calls"))), ops)
        if op == "tuple":
            return list(ops)
        if op == "get-tuple-element":
            return ops[0][int(a["index"])]
        if op == "all-reduce":
            return ops[0] if len(ops) == 1 else list(ops)
        raise NotImplementedError("opcode %r is not supported" % op)

    def _check(self, ins, value):
        want = storage_dtype(ins.shape.dtype)
        if value.dtype != want:
            value = value.astype(want)
        return value

    def _shape_of(self, ins, i):
        # The producer's declared shape (its layout is what bitcast needs).
        return ins.operand_shapes[i]

    def _dtype_of(self, ins, i):
        return ins.operand_shapes[i].dtype

    # -- reduce -----------------------------------------------------------
    def reduce(self, ins, ops):
        n = len(ops) // 2
        inputs, inits = ops[:n], ops[n:]
        dims = _int_list(ins.attrs["dimensions"])
        comp = self.comp(ins.attrs["to_apply"])
        x0 = inputs[0]
        kept = [d for d in range(x0.ndim) if d not in dims]
        kept_shape = tuple(x0.shape[d] for d in kept)
        R = int(np.prod([x0.shape[d] for d in dims], dtype=np.int64))
        xs = [np.ascontiguousarray(np.transpose(x, kept + dims))
              .reshape(kept_shape + (R,)) for x in inputs]
        dts = [self._dtype_of(ins, i) for i in range(n)]
        simple = self._simple_reducer(comp) if n == 1 else None
        if simple is not None and R > 0:
            dt = dts[0]
            x = xs[0]
            init = inits[0]
            if simple in ("maximum", "minimum", "and", "or", "xor") or \
                    not is_float(dt) or dt in ("f32", "f64"):
                return self._fast_reduce(simple, x, init, dt)
        accs = [np.broadcast_to(v, kept_shape).copy() for v in inits]
        for r in range(R):
            step = [x[..., r] for x in xs]
            res = self._apply(comp, accs, step, kept_shape)
            accs = res if n > 1 else [res]
        return accs[0] if n == 1 else accs

    def _apply(self, comp, accs, step, kept_shape):
        """Runs the scalar computation `comp` on whole arrays at once; if
        that fails or gives the wrong shape, element by element."""
        try:
            res = self.run(comp, accs + step)
            leaves = res if isinstance(res, list) else [res]
            if all(isinstance(l, np.ndarray) and l.shape == kept_shape
                   for l in leaves):
                return res
        except (EvaluationError, ValueError, IndexError):
            pass
        n = len(accs)
        outs = [np.empty(kept_shape, dtype=a.dtype) for a in accs]
        for idx in np.ndindex(*kept_shape):
            res = self.run(comp, [np.asarray(a[idx]) for a in accs] +
                           [np.asarray(s[idx]) for s in step])
            leaves = res if isinstance(res, list) else [res]
            for k in range(n):
                outs[k][idx] = leaves[k]
        return outs if isinstance(res, list) else outs[0]

    def _simple_reducer(self, comp):
        if len(comp.instructions) != 3 or len(comp.parameters) != 2:
            return None
        root = comp.root
        if root.opcode not in _SIMPLE_REDUCERS:
            return None
        p = {comp.parameters[0].name, comp.parameters[1].name}
        if len(root.operands) == 2 and set(root.operands) == p:
            return root.opcode
        return None

    def _fast_reduce(self, op, x, init, dt):
        if dt == "pred":
            fn = {"and": np.logical_and, "multiply": np.logical_and,
                  "minimum": np.logical_and, "or": np.logical_or,
                  "add": np.logical_or, "maximum": np.logical_or,
                  "xor": np.logical_xor}[op]
            return fn(fn.reduce(x, axis=-1), init)
        if is_float(dt):
            v = x.astype(np.float64)
            i = np.float64(init)
            if op == "add":
                r = np.sum(v, axis=-1) + i
            elif op == "multiply":
                r = np.prod(v, axis=-1) * i
            elif op == "maximum":
                r = np.maximum(np.max(v, axis=-1), i)
            elif op == "minimum":
                r = np.minimum(np.min(v, axis=-1), i)
            else:
                raise NotImplementedError("%s reduce on %s" % (op, dt))
            return round_float(r, dt)
        v = x.astype(np.int64)
        i = np.int64(init)
        fn = {"add": np.add, "multiply": np.multiply, "maximum": np.maximum,
              "minimum": np.minimum, "and": np.bitwise_and,
              "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
        return wrap_int(fn(fn.reduce(v, axis=-1), i), dt)


def _bind_producers(module):
    """Gives every instruction direct access to its operands' shapes."""
    for comp in module.computations.values():
        for ins in comp.instructions:
            shapes = []
            for o in ins.operands:
                if o not in comp.by_name:
                    raise EvaluationError("%s/%s: unknown operand %r" %
                                          (comp.name, ins.name, o))
                shapes.append(comp.by_name[o].shape)
            ins.operand_shapes = shapes


def evaluate_computation(module, comp, args):
    _bind_producers(module)
    ev = _Evaluator(module)
    with np.errstate(all="ignore"):
        return ev.run(comp, [np.asarray(a) for a in args])


def evaluate(module, args):
    """Evaluates the entry computation on `args` (storage-dtype arrays in
    logical order, one per parameter number)."""
    shapes = module.entry.parameter_shapes()
    fixed = []
    for k, (a, s) in enumerate(zip(args, shapes)):
        a = np.asarray(a)
        if s.is_tuple:
            raise NotImplementedError("tuple parameters are not supported")
        if tuple(a.shape) != s.dims:
            raise EvaluationError("argument %d has shape %r, parameter is %r"
                                  % (k, a.shape, s))
        fixed.append(to_storage(a, s.dtype) if a.dtype !=
                     storage_dtype(s.dtype) or s.dtype == "bf16" else a)
    return evaluate_computation(module, module.entry, fixed)
