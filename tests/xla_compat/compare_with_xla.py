#!/usr/bin/env python3
"""Runs XLA's own optimized modules through xtune on XLA's inputs and compares
xtune's outputs with the outputs XLA computed for them (both written by
collect_xla_gpu_dumps.py on a GPU: MODE/io/PROGRAM/{in,out}_K.npy beside
MODE/*.jit_PROGRAM.*after_optimizations.txt).

usage: compare_with_xla.py XTUNE DUMPROOT BACKEND WORKDIR [--level=N]

One line a program and output: the largest difference relative to the
largest magnitude of XLA's output; FAIL above 2% (two bf16 steps; the same
tolerance as --verify), or above one step of an 8-bit float output's format
at its largest value (2^-3 for e4m3, 2^-2 for e5m2: the two sides' inputs to
that last rounding differ, XLA:GPU's FP8 cuBLASLt gemm accumulating with
less precision than f32). Exit status 1 when one fails or none ran. Needs
NumPy."""
import glob
import os
import re
import subprocess
import sys

import numpy as np

TOLERANCE = 0.02
FP8_STEP = {"f8e4m3fn": 2.0**-3, "f8e4m3fnuz": 2.0**-3, "f8e4m3b11fnuz": 2.0**-3,
            "f8e5m2": 2.0**-2, "f8e5m2fnuz": 2.0**-2}


def output_types(module_path):
    """Element types of the entry's outputs, in order (from the module's
    entry_computation_layout)."""
    with open(module_path) as f:
        header = f.readline()
    m = re.search(r"->(.*)\}", header)
    return re.findall(r"([a-z0-9]+)\[", m.group(1)) if m else []


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    opts = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--"))
    if len(args) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    xtune, root, backend, work = args
    level = opts.get("level", "0")
    compared = failures = 0
    for mode in sorted(os.listdir(root)):
        for io in sorted(glob.glob(os.path.join(root, mode, "io", "*"))):
            program = os.path.basename(io)
            modules = glob.glob(os.path.join(root, mode,
                                             "*.jit_%s.*after_optimizations.txt" % program))
            if len(modules) != 1:
                print("SKIP %s/%s: %d optimized modules" % (mode, program, len(modules)))
                continue
            inputs = sorted(glob.glob(os.path.join(io, "in_*.npy")),
                            key=lambda p: int(p.rsplit("_", 1)[1][:-4]))
            out_dir = os.path.join(work, mode, program)
            os.makedirs(out_dir, exist_ok=True)
            r = subprocess.run([xtune, "run", modules[0], "--backend=" + backend,
                                "--xla_gpu_autotune_level=" + level, "--output_dir=" + out_dir]
                               + ["--input=" + p for p in inputs],
                               capture_output=True, text=True, timeout=300)
            if r.returncode != 0:
                failures += 1
                lines = [l for l in r.stderr.splitlines() if l.startswith("xtune")]
                print("FAIL %s/%s: exit %d: %s" % (mode, program, r.returncode,
                                                    (lines or ["?"])[-1][:300]))
                continue
            types = output_types(modules[0])
            for ref_path in sorted(glob.glob(os.path.join(io, "out_*.npy"))):
                name = os.path.basename(ref_path)
                k = int(name[4:-4])
                tolerance = max(TOLERANCE, FP8_STEP.get(types[k] if k < len(types) else "", 0))
                ref = np.load(ref_path).astype(np.float64)
                got = np.load(os.path.join(out_dir, name)).astype(np.float64)
                compared += 1
                if got.shape != ref.shape:
                    failures += 1
                    print("FAIL %s/%s %s: shape %s, XLA's %s" % (mode, program, name,
                                                                  got.shape, ref.shape))
                    continue
                scale = max(float(np.max(np.abs(ref))) if ref.size else 0.0, 1e-30)
                diff = float(np.max(np.abs(got - ref))) if ref.size else 0.0
                rel = diff / scale
                same_nan = bool(np.array_equal(np.isnan(got), np.isnan(ref)))
                ok = rel <= tolerance and same_nan
                failures += not ok
                print("%s %s/%s %s: max |xtune - XLA| %.3g, relative to max |XLA| %.3g%s"
                      % ("PASS" if ok else "FAIL", mode, program, name, diff, rel,
                         "" if same_nan else ", NaNs differ"))
    print("%d outputs compared with XLA's, %d failed" % (compared, failures))
    return 1 if failures or compared == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
