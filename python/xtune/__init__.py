"""xtune from Python: compile an HLO module with persistent autotuning and
run it on NumPy arrays.

    import numpy as np, xtune
    prog = xtune.compile("model.hlo", backend="cpu",
                         xla_flags="--xla_gpu_load_autotune_results_from=c.textproto")
    outs = prog.run(np.ones((32, 64), np.float32), ...)   # a list of arrays
    prog.verify()                                          # True, or raises
    prog.stats["tuned"]

HLO text (what jax.jit(f).lower(...).compiler_ir("hlo").as_hlo_text() gives)
or a module file's path both work. bf16 and 8-bit float values cross as
float32, as the CLI writes them. Errors raise xtune.Error (a RuntimeError)
carrying xtune's message. See docs/python.md.
"""
import os
import shlex

import numpy as np

# An installed package (PREFIX/lib/pythonX.Y/site-packages/xtune) finds the
# worker programs in PREFIX/libexec/xtune.
_prefix = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
for _name, _var in (("xtune_cpu_worker", "XTUNE_CPU_WORKER"), ("xtune_gpu_worker", "XTUNE_GPU_WORKER")):
    _path = os.path.join(_prefix, "libexec", "xtune", _name)
    if os.access(_path, os.X_OK):
        os.environ.setdefault(_var, _path)

from . import _xtune  # noqa: E402
from . import cache  # noqa: E402,F401

Error = _xtune.Error

# xtune's element type names and the NumPy dtypes arrays have in Python.
_DTYPES = {
    "pred": np.bool_, "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    "f16": np.float16, "f32": np.float32, "f64": np.float64,
}
# Passed and returned as float32 (NumPy has no such types).
_THROUGH_F32 = {"bf16", "f8e4m3fn", "f8e5m2", "f8e4m3fnuz", "f8e5m2fnuz", "f8e4m3b11fnuz"}


def _is_path(hlo):
    return "\n" not in hlo and "HloModule" not in hlo and (
        os.path.exists(hlo) or hlo.endswith((".hlo", ".pb", ".txt")))


class Program:
    """A compiled module: parameter_shapes, run(*arrays), verify(), stats."""

    def __init__(self, native):
        self._native = native
        self._params = native.parameters()

    @property
    def parameter_shapes(self):
        """[(dims tuple, dtype)] per entry parameter; dtype is a NumPy dtype
        (float32 for bf16 and the 8-bit floats), or the string "tuple"."""
        out = []
        for _, t, dims in self._params:
            if t == "tuple":
                out.append(((), "tuple"))
            else:
                out.append((tuple(dims), np.dtype(np.float32 if t in _THROUGH_F32 else _DTYPES[t])))
        return out

    @property
    def stats(self):
        """The compile's counts: fusions, cache_hits, tuned, defaults, summary."""
        return self._native.stats()

    def run(self, *arrays):
        """Runs on one array per parameter (converted to its dtype when they
        differ; shapes must match); returns a list of NumPy arrays, one per
        output (a tuple result flattened in order)."""
        if len(arrays) != len(self._params):
            raise Error(f"INVALID_ARGUMENT: got {len(arrays)} arrays, the module has "
                        f"{len(self._params)} parameters")
        args = []
        for i, (a, (name, t, dims)) in enumerate(zip(arrays, self._params)):
            if t == "tuple":
                raise Error(f"INVALID_ARGUMENT: parameter {i} ({name}) is a tuple")
            a = np.asarray(a)
            if tuple(a.shape) != tuple(dims):
                raise Error(f"INVALID_ARGUMENT: argument {i} has shape {a.shape}, parameter "
                            f"{name} is {t}{list(dims)}")
            if t in _THROUGH_F32:
                args.append(("f32-as-double", list(dims),
                             np.ascontiguousarray(a, dtype=np.float32).tobytes()))
            else:
                args.append((t, list(dims), np.ascontiguousarray(a, dtype=_DTYPES[t]).tobytes()))
        outs = []
        for t, dims, data in self._native.run(args):
            outs.append(np.frombuffer(data, dtype=_DTYPES[t]).reshape(dims).copy())
        return outs

    def verify(self, seed=0):
        """Runs on xtune's deterministic random inputs and compares every
        output with the reference interpreter; True, or raises Error."""
        return self._native.verify(seed)


def compile(hlo, backend="cpu", xla_flags=""):  # noqa: A001 (the verb users expect)
    """Compiles HLO text or a module file for `backend` ("cpu", "interpreter",
    "cuda", "cuda_emulator"), with XLA's flags (a string, as in XLA_FLAGS,
    after which it is read) for tuning and the autotune cache."""
    flags = shlex.split(xla_flags) if isinstance(xla_flags, str) else list(xla_flags)
    return Program(_xtune.compile(hlo, _is_path(hlo), backend, flags))
