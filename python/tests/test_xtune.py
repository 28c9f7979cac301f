"""The xtune Python module (python/xtune) with NumPy only: compile, run,
verify, stats, errors, the GIL, and the cache functions."""
import os
import threading

import numpy as np
import pytest

import xtune

SOURCE = os.environ.get("XTUNE_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))

DENSE = """HloModule dense
ENTRY e {
  x = f32[8,16] parameter(0)
  w = f32[16,4] parameter(1)
  b = f32[4] parameter(2)
  d = f32[8,4] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[8,4] broadcast(b), dimensions={1}
  s = f32[8,4] add(d, bb)
  z = f32[] constant(0)
  zb = f32[8,4] broadcast(z), dimensions={}
  r = f32[8,4] maximum(s, zb)
  n = s32[8,4] convert(r)
  ROOT t = (f32[8,4], s32[8,4]) tuple(r, n)
}
"""

BF16 = """HloModule half
ENTRY e {
  x = bf16[3,5] parameter(0)
  ROOT y = bf16[3,5] multiply(x, x)
}
"""


def level0(**kw):
    return dict(xla_flags="--xla_gpu_autotune_level=0", **kw)


def test_runs_numpy_arrays_and_matches_numpy():
    prog = xtune.compile(DENSE, **level0())
    assert prog.parameter_shapes == [((8, 16), np.float32), ((16, 4), np.float32),
                                     ((4,), np.float32)]
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((8, 16)), rng.standard_normal((16, 4))
    b = rng.standard_normal(4).astype(np.float32)
    r, n = prog.run(x, w, b)  # float64 inputs are converted to f32
    want = np.maximum(x.astype(np.float32) @ w.astype(np.float32) + b, 0)
    assert r.dtype == np.float32 and r.shape == (8, 4)
    np.testing.assert_allclose(r, want, rtol=1e-5, atol=1e-5)
    assert n.dtype == np.int32
    np.testing.assert_array_equal(n, want.astype(np.int32))
    assert prog.verify() is True
    stats = prog.stats
    assert stats["fusions"] >= 1 and stats["defaults"] == stats["fusions"]
    assert "fusions" in stats["summary"]


def test_bf16_crosses_as_float32():
    prog = xtune.compile(BF16, **level0())
    assert prog.parameter_shapes == [((3, 5), np.float32)]
    x = np.linspace(-2, 2, 15, dtype=np.float32).reshape(3, 5)
    (y,) = prog.run(x)
    assert y.dtype == np.float32
    # Rounded to bf16 (8 significant bits) on the way in and out.
    np.testing.assert_allclose(y, x * x, rtol=1e-2)


def test_module_files_and_backends(tmp_path):
    path = tmp_path / "dense.hlo"
    path.write_text(DENSE)
    prog = xtune.compile(str(path), backend="interpreter")
    assert len(prog.run(np.ones((8, 16)), np.ones((16, 4)), np.zeros(4))) == 2
    emulated = xtune.compile(os.path.join(SOURCE, "examples", "mlp.hlo"),
                             backend="cuda_emulator", xla_flags="--xla_gpu_autotune_level=0")
    assert emulated.verify()


def test_errors_carry_xtunes_message():
    with pytest.raises(xtune.Error, match="INVALID_ARGUMENT"):
        xtune.compile("HloModule m\nENTRY e {\n  ROOT x = f32[2] bogus()\n}\n")
    with pytest.raises(xtune.Error, match="xla_gpu_autotune_level"):
        xtune.compile(DENSE, xla_flags="--xla_gpu_autotune_level=banana")
    with pytest.raises(xtune.Error, match="not_a_backend"):
        xtune.compile(DENSE, backend="not_a_backend")
    prog = xtune.compile(DENSE, **level0())
    with pytest.raises(xtune.Error, match="shape"):
        prog.run(np.ones((2, 2)), np.ones((16, 4)), np.zeros(4))
    with pytest.raises(xtune.Error, match="3 parameters"):
        prog.run(np.ones((8, 16)))
    assert isinstance(xtune.Error("x"), RuntimeError)


def test_the_gil_is_released_while_compiling():
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(1)

    t = threading.Thread(target=count)
    t.start()
    try:
        # A tuned compile: candidates are compiled and timed (about a second).
        xtune.compile(DENSE, xla_flags="--xla_gpu_autotune_level=2")
    finally:
        done.set()
        t.join()
    assert len(ticks) > 1000


def test_cache_functions(tmp_path):
    cache = tmp_path / "c.textproto"
    prog = xtune.compile(DENSE, xla_flags=f"--xla_gpu_autotune_level=2 "
                                          f"--xla_gpu_dump_autotune_results_to={cache}")
    assert prog.stats["tuned"] >= 1
    assert "entries" in xtune.cache.stats(str(cache))
    assert "config" in xtune.cache.show(str(cache))
    assert "0 added, 0 removed" in xtune.cache.diff(str(cache), str(cache))
    binary = tmp_path / "c.pb"
    xtune.cache.convert(str(cache), str(binary))
    assert binary.stat().st_size > 0
    module = tmp_path / "dense.hlo"
    module.write_text(DENSE)
    assert "hit" in xtune.cache.explain(str(module), str(cache))
    again = xtune.compile(DENSE, xla_flags=f"--xla_gpu_load_autotune_results_from={binary}")
    assert again.stats["tuned"] == 0 and again.stats["cache_hits"] >= 1
    with pytest.raises(xtune.Error, match="missing.textproto"):
        xtune.cache.stats(str(tmp_path / "missing.textproto"))
