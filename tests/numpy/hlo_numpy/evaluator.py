"""The evaluator driver: runs a computation's instructions in post-order,
dispatching each opcode to its implementation and checking every result
against its declared shape."""

import functools
import re

import numpy as np

from .attrs import _comp_name, _int_list, _padding_attr, _slice_attr
from .indexing import (dynamic_slice, dynamic_update_slice, gather,
                       scatter)
from .data_movement import bitcast, bitcast_convert, broadcast, iota, pad
from .dot import dot
from .library_call import library_call
from .dtypes import (byte_size, is_float, storage_dtype, to_storage,
                     wrap_int)
from .elementwise import (_UNARY_FLOAT, _total_order_key, binary, compare,
                          reduce_precision, unary)
from .errors import EvaluationError
from .literal import parse_literal
from .reduce import ReduceMixin
from .rng import rng_bit_generator

_ELEMENTWISE_UNARY = set(_UNARY_FLOAT) | {
    "round-nearest-afz", "sign", "erf", "not", "is-finite", "convert",
    "popcnt", "count-leading-zeros"}
_ELEMENTWISE_BINARY = {"add", "subtract", "multiply", "divide", "remainder",
                       "maximum", "minimum", "power", "atan2", "and", "or",
                       "xor"}


def flatten(value):
    """The leaves of a (nested) tuple value, in order."""
    if isinstance(value, list):
        out = []
        for v in value:
            out.extend(flatten(v))
        return out
    return [value]


class _Evaluator(ReduceMixin):
    def __init__(self, module):
        self.module = module
        # Check every result against its declared shape.  Off while a
        # scalar to_apply runs on whole arrays (see _apply).
        self.strict = True

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
                    value = self.instruction(ins, [env[o] for o in
                                                   ins.operands], args)
                    # An async start holds the operation's result, not the
                    # (operands, result, context) tuple it declares.
                    if self.strict and not ins.opcode.endswith(
                            ("-start", "-update")):
                        self._check_shape(ins, value)
                    env[name] = value
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
        # XLA's async pairs, run synchronously: the start is the operation
        # (async-start a call of `calls=`); updates and dones pass it on.
        if op.endswith(("-update", "-done")):
            return ops[0]
        if op == "async-start":
            return self.run(self.comp(a["calls"]), ops)
        if op.endswith("-start"):
            op = op[:-len("-start")]
        if op == "after-all":
            return []  # a token: no data
        if op == "add-dependency":
            return ops[0]
        if op == "rng-bit-generator":
            out = shape.elements[1]
            width = 8 * byte_size(out.dtype)
            new, bits = rng_bit_generator(
                ops[0], a.get("algorithm", "rng_default"), list(out.dims),
                64 if width == 64 else 32)
            mask = (1 << width) - 1
            raw = np.array([b & mask for b in bits],
                           dtype=np.dtype("u%d" % (width // 8)))
            return [new, raw.view(storage_dtype(out.dtype))
                    .reshape(out.dims)]
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
            # min(max(x, lo), hi) with NaN-propagating max/min: a NaN in x,
            # lo or hi gives NaN (XLA's emitters; StableHLO's spec).
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
        if op == "reduce-precision":
            return reduce_precision(ops[0], ins.shape.dtype,
                                    int(a["exponent_bits"]),
                                    int(a["mantissa_bits"]))
        if op == "map":
            return self.map(ins, ops)
        if op == "tuple":
            return list(ops)
        if op == "get-tuple-element":
            return ops[0][int(a["index"])]
        if op in ("all-reduce", "all-gather", "reduce-scatter", "all-to-all"):
            # One replica: each group holds one participant.
            return ops[0] if len(ops) == 1 else list(ops)
        if op in ("replica-id", "partition-id"):
            return np.zeros((), np.uint32)
        if op == "collective-permute":
            # Replica 0 keeps its data only when it sends to itself;
            # a target without a source gets zeros.
            pairs = re.findall(r"\{\s*(\d+)\s*,\s*(\d+)\s*\}",
                               a.get("source_target_pairs", ""))
            if ("0", "0") in pairs:
                return ops[0] if len(ops) == 1 else list(ops)
            if len(ops) == 1:
                return np.zeros_like(ops[0])
            return [np.zeros_like(o) for o in ops]
        if op == "while":
            cond = self.comp(a["condition"])
            body = self.comp(a["body"])
            state = ops[0]
            while bool(np.asarray(self.run(cond, [state]))):
                state = self.run(body, [state])
            return state
        if op == "conditional":
            if "branch_computations" in a:
                names = [n for n in a["branch_computations"].strip()
                         .strip("{}").split(",") if n.strip()]
                i = int(np.asarray(ops[0]))
                if i < 0 or i >= len(names):
                    i = len(names) - 1  # XLA: out of range runs the last
            else:
                names = [a["true_computation"], a["false_computation"]]
                i = 0 if bool(np.asarray(ops[0])) else 1
            return self.run(self.comp(names[i]), [ops[i + 1]])
        if op == "opt-barrier":
            return ops[0]
        if op == "custom-call":
            return library_call(ins, ops, [odt(k) for k in range(len(ops))])
        if op == "sort":
            return self.sort(ins, ops)
        if op == "topk":
            return self.topk(ins, ops[0], odt(0))
        if op == "dynamic-slice":
            return dynamic_slice(ops[0], [int(v) for v in ops[1:]],
                                 _int_list(a["dynamic_slice_sizes"]))
        if op == "dynamic-update-slice":
            return dynamic_update_slice(ops[0], ops[1],
                                        [int(v) for v in ops[2:]])
        if op == "gather":
            return gather(ops[0], ops[1], shape.dims,
                          _int_list(a["offset_dims"]),
                          _int_list(a["collapsed_slice_dims"]),
                          _int_list(a["start_index_map"]),
                          _int_list(a.get("operand_batching_dims", "{}")),
                          _int_list(a.get("start_indices_batching_dims", "{}")),
                          int(a["index_vector_dim"]),
                          _int_list(a["slice_sizes"]))
        if op == "scatter":
            n = len(ops) // 2
            comp = self.comp(a["to_apply"])

            def combine(cur, upd):
                r = self.run(comp, [np.asarray(v) for v in cur + upd])
                return [np.asarray(v) for v in (r if n > 1 else [r])]

            out = scatter(ops[:n], ops[n], ops[n + 1:],
                          _int_list(a["update_window_dims"]),
                          _int_list(a["inserted_window_dims"]),
                          _int_list(a["scatter_dims_to_operand_dims"]),
                          _int_list(a.get("input_batching_dims", "{}")),
                          _int_list(a.get("scatter_indices_batching_dims",
                                          "{}")),
                          int(a["index_vector_dim"]), combine)
            return out[0] if n == 1 else out
        raise NotImplementedError("opcode %r is not supported" % op)

    def _check_shape(self, ins, value):
        if ins.shape.dtype == "token":
            return  # a token holds no data (an empty list)
        # Tokens inside tuples are empty lists, which flatten to nothing.
        want = [w for w in ins.shape.leaves() if w.dtype != "token"]
        got = flatten(value)
        if ins.shape.is_tuple != isinstance(value, list) or \
                len(want) != len(got):
            raise EvaluationError("%s: result structure does not match %r" %
                                  (ins.name, ins.shape))
        for w, g in zip(want, got):
            if tuple(g.shape) != w.dims or g.dtype != storage_dtype(w.dtype):
                raise EvaluationError(
                    "%s (%s): reference computed %s%s, declared %r" %
                    (ins.name, ins.opcode, g.dtype, list(g.shape), w))

    def _check(self, ins, value):
        want = storage_dtype(ins.shape.dtype)
        if value.dtype != want:
            value = value.astype(want)
        return value

    def _shape_of(self, ins, i):
        # The producer's declared shape (its layout is what bitcast needs).
        return ins.operand_shapes[i]

    def map(self, ins, ops):
        # to_apply on every element, operands in row-major order.
        comp = self.comp(ins.attrs["to_apply"])
        out = np.empty(ins.shape.dims, dtype=storage_dtype(ins.shape.dtype))
        for idx in np.ndindex(*ins.shape.dims):
            out[idx] = self.run(comp, [np.asarray(o[idx]) for o in ops])
        return out

    def sort(self, ins, ops):
        # Python's sorted() is stable: for a strict weak order its result
        # is the one stable order, computed here by another algorithm than
        # xtune's merge sorts.
        dim = _int_list(ins.attrs["dimensions"])[0]
        comp = self.comp(ins.attrs["to_apply"])
        moved = [np.moveaxis(o, dim, -1) for o in ops]
        outs = [m.copy() for m in moved]
        n = moved[0].shape[-1]
        for idx in np.ndindex(*moved[0].shape[:-1]):
            lines = [m[idx] for m in moved]

            def before(a, b):
                args = []
                for line in lines:
                    args += [np.asarray(line[a]), np.asarray(line[b])]
                return bool(np.asarray(self.run(comp, args)))

            def cmp(a, b):
                if before(a, b):
                    return -1
                return 1 if before(b, a) else 0
            order = sorted(range(n), key=functools.cmp_to_key(cmp))
            for o, line in zip(outs, lines):
                o[idx] = line[order]
        outs = [np.ascontiguousarray(np.moveaxis(o, -1, dim)) for o in outs]
        return outs[0] if len(outs) == 1 else outs

    def topk(self, ins, x, dt):
        k = int(ins.attrs["k"])
        largest = ins.attrs.get("largest", "true") == "true"
        keys = _total_order_key(x, dt) if is_float(dt) else x.astype(np.int64)
        # A stable sort on the key (negated for largest: ties keep the
        # lower index first).
        order = np.argsort(-keys if largest else keys, axis=-1, kind="stable")
        order = order[..., :k]
        values = np.take_along_axis(x, order, axis=-1)
        return [np.ascontiguousarray(values),
                np.ascontiguousarray(order.astype(np.int32))]

    def _dtype_of(self, ins, i):
        return ins.operand_shapes[i].dtype


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
