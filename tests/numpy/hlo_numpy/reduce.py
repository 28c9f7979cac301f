"""reduce: the evaluator's handling of (variadic) reductions.

Reductions whose to_apply is add/multiply of f32/f64 sum in float64; all
other reductions, and every f16/bf16 add/multiply reduction, combine the
elements one at a time in row-major order of the reduced dimensions,
rounding after each step as XLA's evaluator does.  ReduceMixin is mixed
into the evaluator: it uses the evaluator's comp(), run(), _dtype_of() and
strict flag.
"""

import numpy as np

from .attrs import _int_list
from .dtypes import is_float, round_float, wrap_int
from .errors import EvaluationError

_SIMPLE_REDUCERS = {"add", "multiply", "maximum", "minimum", "and", "or",
                    "xor"}


class ReduceMixin(object):
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
            self.strict = False
            res = self.run(comp, accs + step)
            leaves = res if isinstance(res, list) else [res]
            if all(isinstance(l, np.ndarray) and l.shape == kept_shape
                   for l in leaves):
                return res
        except (EvaluationError, ValueError, IndexError):
            pass
        finally:
            self.strict = True
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
