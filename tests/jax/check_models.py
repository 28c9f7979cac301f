#!/usr/bin/env python3
"""Checks xtune against XLA:CPU on real JAX programs (models.py).

For each model: lower it with jax.jit(f, keep_unused=True), write its HLO
text and its inputs (.npy), run XLA:CPU (JAX) for the reference outputs,
then `xtune run MODULE --input=... --output_dir=...` on each backend and
compare every output (floats: |a - b| <= atol + rtol * |b|; integers and
pred exactly).

usage: check_models.py XTUNE WORKDIR [--backends cpu,interpreter,...]
                       [--bench N] [--deviceless TARGET]
With --deviceless TARGET (default h200; empty for none), also compiles each
model for that GPU without one (`xtune compile --backend=cuda
--xtune_gpu_target=TARGET`) and checks that every fusion got a cubin.
With --bench N, also prints one JSON line per model: xtune's cpu-backend
median run time over N runs (`xtune run --benchmark=N`, tuned with the
cache written by the check) against XLA:CPU's: the median over N calls of
the jitted function in this process (inputs on the device) less JAX's
dispatch from Python (the median call of a jitted function of the same
arguments that computes nothing), and their ratio.
Exits 0 when every output matches, 1 otherwise.
"""

import argparse
import contextlib
import json
import os
import re
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import models  # noqa: E402


def x64_context(jax):
    """64-bit types on (a model marked fn.x64 = True), across JAX versions."""
    if hasattr(jax, "enable_x64"):
        return jax.enable_x64(True)
    from jax.experimental import enable_x64
    return enable_x64()


def compare(name, got, want, rtol=2e-4, atol=2e-4):
    if got.shape != want.shape:
        return f"{name}: shape {got.shape}, XLA gives {want.shape}"
    if want.dtype.kind in "biu":
        bad = np.flatnonzero(got.astype(np.int64) != want.astype(np.int64))
    else:
        g = got.astype(np.float64)
        w = want.astype(np.float64)
        with np.errstate(invalid="ignore"):
            close = (g == w) | (np.abs(g - w) <= atol + rtol * np.abs(w))
        bad = np.flatnonzero(~close & ~(np.isnan(g) & np.isnan(w)))
    if bad.size:
        i = bad[0]
        return (f"{name}: {bad.size} of {want.size} elements differ, first at "
                f"{np.unravel_index(i, want.shape)}: {got.flat[i]} vs XLA "
                f"{want.flat[i]}")
    return None


def check_deviceless(xtune, module, target, kernels):
    """A deviceless compile for `target`: every fusion of the module gets a
    cubin in `kernels` (cuBLASLt gemms, run by the library, get none; cuDNN
    convolutions one per pack and one for the epilogue). An
    error message, or None."""
    import shutil
    shutil.rmtree(kernels, ignore_errors=True)
    r = subprocess.run([xtune, "compile", module, "--backend=cuda",
                        "--xtune_gpu_target=" + target,
                        "--xtune_dump_kernels_to=" + kernels],
                       capture_output=True, text=True)
    if r.returncode != 0:
        required = os.environ.get("XTUNE_REQUIRE_NVRTC", "0") not in ("", "0")
        if not required and re.search(r"(?i)nvrtc", r.stderr) and re.search(
                r"(?i)not found|unavailable|no such file|cannot (open|load)",
                r.stderr):
            print("SKIP deviceless compile: NVRTC is missing here:",
                  r.stderr.strip()[-300:])
            return None
        return f"exit {r.returncode}: {r.stderr.strip()[-2000:]}"
    # The compile's table: fusion, kind, shape, config, ...
    fusions = {}
    for line in (r.stdout + r.stderr).splitlines():
        cols = line.split()
        if len(cols) >= 4 and re.match(r"^[a-z_]+:", cols[3]) and \
                cols[0] != "fusion":
            fusions[cols[0]] = cols[3]
    if not fusions:
        return "no fusion table in the output: " + r.stderr[-500:]
    cubins = os.listdir(kernels) if os.path.isdir(kernels) else []
    def wanted(f, config):
        if config.startswith("cuda_cublaslt"):
            return []
        if config.startswith("cuda_cudnn"):  # cuDNN between its packs
            return [f + s + ".cubin" for s in (".pack_x", ".pack_w", ".epilogue")]
        return [f + ".cubin"]
    missing = [f for f, config in fusions.items()
               if any(c not in cubins for c in wanted(f, config))]
    if missing:
        return f"no cubin for {', '.join(sorted(missing))}"
    return None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("xtune")
    p.add_argument("workdir")
    p.add_argument("--backends", default="interpreter,cpu,cuda_emulator")
    p.add_argument("--bench", type=int, default=0)
    p.add_argument("--only", default="")
    p.add_argument("--deviceless", default="h200",
                   help="GPU target of a deviceless `xtune compile "
                        "--backend=cuda` that must write a cubin for every "
                        "fusion; empty: none")
    a = p.parse_args()

    import jax

    failures = []
    for name, fn, args in models.models():
        if a.only and name not in a.only.split(","):
            continue
        with contextlib.ExitStack() as scope:
            if getattr(fn, "x64", False):
                scope.enter_context(x64_context(jax))
            d = os.path.join(a.workdir, name)
            os.makedirs(d, exist_ok=True)
            jitted = jax.jit(fn, keep_unused=True)
            module = os.path.join(d, name + ".hlo")
            with open(module, "w") as f:
                f.write(jitted.lower(*args).compiler_ir("hlo").as_hlo_text())
            # The CUDA backends multiply f32 dots of default precision in TF32,
            # as XLA:GPU does; their module asks for full f32 precision so that
            # they compare with XLA:CPU as tightly as the others.
            exact = os.path.join(d, name + ".f32_dots.hlo")
            with jax.default_matmul_precision("float32"):
                with open(exact, "w") as f:
                    f.write(jax.jit(fn, keep_unused=True).lower(*args)
                            .compiler_ir("hlo").as_hlo_text())
            inputs = []
            for i, x in enumerate(args):
                path = os.path.join(d, f"in_{i}.npy")
                np.save(path, np.asarray(x))
                inputs.append("--input=" + path)
            want = [np.asarray(x) for x in jax.tree_util.tree_leaves(jitted(*args))]
            cache = os.path.join(d, "autotune_cache.textproto")
            for backend in a.backends.split(","):
                out = os.path.join(d, "out_" + backend)
                os.makedirs(out, exist_ok=True)
                cmd = [a.xtune, "run",
                       exact if backend.startswith("cuda") else module,
                       "--backend=" + backend,
                       "--output_dir=" + out] + inputs
                if backend == "cpu":
                    cmd.append("--xla_gpu_dump_autotune_results_to=" + cache)
                r = subprocess.run(cmd, capture_output=True, text=True)
                if r.returncode != 0:
                    failures.append(f"{name} on {backend}: exit {r.returncode}: "
                                    f"{r.stderr.strip()[-2000:]}")
                    print("FAIL", name, backend)
                    continue
                errors = []
                for k, w in enumerate(want):
                    path = os.path.join(out, f"out_{k}.npy")
                    if not os.path.exists(path):
                        errors.append(f"out_{k}.npy missing")
                        continue
                    e = compare(f"out_{k}", np.load(path), w)
                    if e:
                        errors.append(e)
                if errors:
                    failures.append(f"{name} on {backend}: " + "; ".join(errors))
                    print("FAIL", name, backend)
                else:
                    print("PASS", name, backend, f"({len(want)} outputs)")
            if a.deviceless:
                error = check_deviceless(a.xtune, exact, a.deviceless,
                                         os.path.join(d, "kernels"))
                if error:
                    failures.append(f"{name} deviceless {a.deviceless}: {error}")
                    print("FAIL", name, "deviceless", a.deviceless)
                else:
                    print("PASS", name, "deviceless", a.deviceless)
            if a.bench and "cpu" in a.backends.split(","):
                r = subprocess.run(
                    [a.xtune, "run", module, "--backend=cpu",
                     f"--benchmark={a.bench}",
                     "--xla_gpu_load_autotune_results_from=" + cache] + inputs,
                    capture_output=True, text=True)
                m = re.search(r"median ([0-9.]+) ms", r.stdout + r.stderr)
                if not m:
                    failures.append(f"{name}: no benchmark line: {r.stderr[-500:]}")
                    continue
                xtune_ms = float(m.group(1))
                # XLA:CPU with its inputs already on the device; a call also
                # pays JAX's dispatch from Python, which xtune's figure (the
                # executable's run, inputs on the device) does not: measured
                # as a jitted function of the same arguments that computes
                # nothing, and subtracted.
                dev_args = jax.device_put(args)

                def median_call_ms(f):
                    jax.block_until_ready(f(*dev_args))
                    times = []
                    for _ in range(a.bench):
                        t = time.perf_counter()
                        jax.block_until_ready(f(*dev_args))
                        times.append((time.perf_counter() - t) * 1e3)
                    return sorted(times)[len(times) // 2]

                xla_ms = median_call_ms(jitted)
                floor_ms = median_call_ms(
                    jax.jit(lambda *xs: xs[0], keep_unused=True))
                net_ms = max(xla_ms - floor_ms, 1e-4)
                print(json.dumps({"bench": "jax_models", "model": name,
                                  "xtune_cpu_ms": xtune_ms,
                                  "xla_cpu_call_ms": round(xla_ms, 4),
                                  "jax_dispatch_ms": round(floor_ms, 4),
                                  "xla_cpu_ms": round(net_ms, 4),
                                  "ratio": round(xtune_ms / net_ms, 3)}))
    for f in failures:
        print("FAILED:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
