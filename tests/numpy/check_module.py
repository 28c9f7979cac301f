#!/usr/bin/python3
"""Checks `xtune run --backend=interpreter` against the NumPy reference.

usage: check_module.py XTUNE_BINARY MODULE.hlo WORKDIR [--seed N]
                       [--show N] [--timeout SECONDS]

Generates one input per entry parameter with NumPy (floats uniform in
[-1, 1], bf16 ones rounded to bf16; signed integers in [-4, 4], unsigned in
[0, 8], pred 0/1), writes them as WORKDIR/p<i>.npy (bf16 as float32 holding
bf16-exact values, f16 as float16), runs

    XTUNE_BINARY run MODULE --backend=interpreter --input=WORKDIR/p0.npy ...
        --output_dir=WORKDIR/out

evaluates the module with the hlo_numpy package on the same inputs and
compares every output (out_<k>.npy, one per leaf of the result) with XLA's
rule: an element mismatches iff |a - b| / (max(|a|, |b|) + 1) > tol,
tol = 1e-3 for f32/f64, 2e-2 for f16/bf16 and one mantissa step (2^-3,
2^-2) for the 8-bit floats (written as float32 like bf16), exact for integers and pred;
NaN must meet NaN and infinities must be equal.

Exit status: 0 when every output matches, 1 otherwise (including when xtune
fails or its outputs are missing or have the wrong shape or type).
"""

import argparse
import os
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hlo_numpy as H  # noqa: E402

TOLERANCE = {"f32": 1e-3, "f64": 1e-3, "f16": 2e-2, "bf16": 2e-2}
# 8-bit floats: one step of the mantissa (a rounding flip after f32 work).
TOLERANCE.update({t: 2.0 ** -H.fp8.mantissa_bits(t) for t in H.fp8.FP8_TYPES})

# What xtune writes for each element type.
NPY_DTYPE = {"pred": np.bool_, "s8": np.int8, "s32": np.int32,
             "s64": np.int64, "u8": np.uint8, "u32": np.uint32,
             "s16": np.int16, "u16": np.uint16, "u64": np.uint64,
             "f16": np.float16, "bf16": np.float32, "f32": np.float32,
             "f64": np.float64}
NPY_DTYPE.update({t: np.float32 for t in H.fp8.FP8_TYPES})  # as bf16


def make_input(rng, shape):
    dt = shape.dtype
    if shape.is_tuple:
        raise NotImplementedError("tuple-shaped entry parameters")
    if H.is_float(dt):
        return H.to_storage(rng.uniform(-1.0, 1.0, size=shape.dims), dt)
    if dt == "pred":
        return rng.integers(0, 2, size=shape.dims).astype(np.bool_)
    if H.is_unsigned(dt):
        return rng.integers(0, 9, size=shape.dims).astype(NPY_DTYPE[dt])
    return rng.integers(-4, 5, size=shape.dims).astype(NPY_DTYPE[dt])


def compare(name, shape, got, want, show):
    """Returns (ok, message)."""
    dt = shape.dtype
    want_npy = np.dtype(NPY_DTYPE[dt])
    if got.dtype != want_npy:
        return False, "%s: xtune wrote dtype %s, expected %s for %r" % (
            name, got.dtype, want_npy, shape)
    if tuple(got.shape) != tuple(shape.dims):
        return False, "%s: xtune wrote shape %s, expected %r" % (
            name, got.shape, shape)
    if not H.is_float(dt):
        bad = got != want
        nbad = int(np.count_nonzero(bad))
        msg = "%s %r: %s (exact)" % (name, shape,
                                     "ok" if nbad == 0 else
                                     "%d of %d elements differ" %
                                     (nbad, got.size))
        return nbad == 0, msg + _examples(bad, got, want, show)
    tol = TOLERANCE[dt]
    a = got.astype(np.float64)
    b = want.astype(np.float64)
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    inf = (np.isinf(a) | np.isinf(b)) & ~nan_a & ~nan_b
    finite = ~(nan_a | nan_b | inf)
    rel = np.zeros(a.shape)
    with np.errstate(all="ignore"):
        rel[finite] = np.abs(a[finite] - b[finite]) / (
            np.maximum(np.abs(a[finite]), np.abs(b[finite])) + 1.0)
    bad = (nan_a != nan_b) | (inf & (a != b)) | (rel > tol)
    nbad = int(np.count_nonzero(bad))
    max_rel = float(rel.max()) if rel.size else 0.0
    msg = "%s %r: max rel error %.3g (tol %g)%s" % (
        name, shape, max_rel, tol,
        "" if nbad == 0 else ", %d of %d elements mismatch" % (nbad, a.size))
    nnan = int(np.count_nonzero(nan_b))
    ninf = int(np.count_nonzero(np.isinf(b)))
    if nnan or ninf:
        msg += " [reference has %d NaN, %d inf]" % (nnan, ninf)
    return nbad == 0, msg + _examples(bad, got, want, show)


def _examples(bad, got, want, show):
    if not bad.any() or show <= 0:
        return ""
    lines = []
    for idx in list(zip(*np.nonzero(bad)))[:show]:
        idx = tuple(int(i) for i in idx)
        lines.append("\n    at %s: xtune %r, reference %r" % (
            list(idx), got[idx].item(), want[idx].item()))
    return "".join(lines)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("xtune")
    ap.add_argument("module")
    ap.add_argument("workdir")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--show", type=int, default=5,
                    help="mismatching elements to print per output")
    ap.add_argument("--timeout", type=float, default=600)
    args = ap.parse_args(argv)
    label = os.path.basename(args.module)

    try:
        module = H.parse_module_file(args.module)
    except Exception as e:  # noqa: BLE001
        print("FAIL %s: reference cannot parse the module: %s" % (label, e))
        return 1

    os.makedirs(args.workdir, exist_ok=True)
    out_dir = os.path.join(args.workdir, "out")
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)

    rng = np.random.default_rng(args.seed)
    inputs, files = [], []
    try:
        for k, shape in enumerate(module.entry.parameter_shapes()):
            x = make_input(rng, shape)
            path = os.path.join(args.workdir, "p%d.npy" % k)
            np.save(path, x.astype(NPY_DTYPE[shape.dtype]))
            inputs.append(x)
            files.append(path)
    except Exception as e:  # noqa: BLE001
        print("FAIL %s: cannot make inputs: %s" % (label, e))
        return 1

    cmd = [args.xtune, "run", args.module, "--backend=interpreter"]
    cmd += ["--input=%s" % f for f in files]
    cmd += ["--output_dir=%s" % out_dir]
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True,
                              timeout=args.timeout)
    except subprocess.TimeoutExpired:
        print("FAIL %s: xtune timed out after %gs: %s" % (
            label, args.timeout, " ".join(cmd)))
        return 1
    except OSError as e:
        print("FAIL %s: cannot run xtune: %s" % (label, e))
        return 1
    if proc.returncode != 0:
        print("FAIL %s: xtune exited with %d: %s\n%s%s" % (
            label, proc.returncode, " ".join(cmd), proc.stdout, proc.stderr))
        return 1

    try:
        result = H.evaluate(module, inputs)
    except Exception as e:  # noqa: BLE001
        print("FAIL %s: reference cannot evaluate the module: %s: %s" % (
            label, type(e).__name__, e))
        return 1
    leaves = H.flatten(result)
    shapes = module.entry.root.shape.leaves()
    if len(leaves) != len(shapes):
        print("FAIL %s: reference produced %d outputs for root shape %r" % (
            label, len(leaves), module.entry.root.shape))
        return 1

    written = sorted(f for f in os.listdir(out_dir) if f.endswith(".npy"))
    expected = ["out_%d.npy" % k for k in range(len(shapes))]
    ok = True
    lines = []
    if sorted(written) != sorted(expected):
        lines.append("  FAIL xtune wrote %s, expected %s" % (written, expected))
        ok = False
    for k, (shape, want) in enumerate(zip(shapes, leaves)):
        path = os.path.join(out_dir, "out_%d.npy" % k)
        if not os.path.exists(path):
            lines.append("  FAIL out_%d: missing" % k)
            ok = False
            continue
        got = np.load(path)
        good, msg = compare("out_%d" % k, shape, got, want, args.show)
        lines.append("  %s %s" % ("ok  " if good else "FAIL", msg))
        ok = ok and good
    print("%s %s (seed %d)" % ("PASS" if ok else "FAIL", label, args.seed))
    for line in lines:
        print(line)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
