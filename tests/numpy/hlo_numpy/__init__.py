"""An independent NumPy reference for the HLO text subset xtune handles.

Parses an HLO text module and evaluates its entry computation with NumPy,
following XLA's semantics.  It shares no code with xtune: it exists so that
a test can check `xtune run --backend=interpreter` against a second,
separately written implementation.

Values are NumPy arrays in *logical* row-major order (layouts matter only to
`bitcast`), held in a storage dtype per HLO element type:

    pred -> bool    s8/s16/s32/s64 -> int8/int16/int32/int64
    u8/u16/u32/u64 -> uint8/uint16/uint32/uint64
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

Modules of the package:
    errors         HloParseError, EvaluationError
    dtypes         element types, storage dtypes, rounding and wrapping
    shape          Shape
    ir             Instruction, Computation, Module
    parser         the text parser (parse_module, parse_module_file)
    attrs          decoding of attribute values
    literal        decoding of constant literals
    elementwise    unary, binary, compare, convert
    data_movement  bitcast, bitcast_convert, broadcast, pad, iota
    dot            dot
    reduce         reduce (mixed into the evaluator)
    evaluator      the driver (evaluate, evaluate_computation, flatten)
"""

# The public API.  check_module.py and test_hlo_numpy.py use names beyond
# __all__ (unary, binary, pad, dot, ...), so every public name of the
# package is re-exported here.
from .data_movement import (bitcast, bitcast_convert, broadcast,
                            from_physical, iota, pad, physical_order)
from .dot import dot
from .dtypes import (FLOAT_TYPES, INT_TYPES, is_float, is_unsigned,
                     round_bf16, round_float, storage_dtype, to_storage,
                     wrap_int)
from .elementwise import binary, compare, convert, unary
from .errors import EvaluationError, HloParseError
from .evaluator import evaluate, evaluate_computation, flatten
from .ir import Computation, Instruction, Module
from .literal import parse_literal
from .parser import parse_module, parse_module_file, strip_comments
from .shape import Shape

__all__ = [
    "Shape", "Instruction", "Computation", "Module", "HloParseError",
    "parse_module", "parse_module_file", "evaluate", "evaluate_computation",
    "flatten", "storage_dtype", "round_bf16", "to_storage", "FLOAT_TYPES",
    "INT_TYPES",
]
