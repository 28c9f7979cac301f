"""Decoding of constant literal text into storage-dtype arrays."""

import math
import re

import numpy as np

from .dtypes import _py_ints_to, is_float, round_float
from .errors import HloParseError


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
