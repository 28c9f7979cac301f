#!/usr/bin/env python3
"""XLA's figures for the convolution layers of bench/conv_vs_openblas.cc.

Times each case's convolution jitted by JAX on its default backend (the CPU,
or the GPU where JAX has one; inputs already on the device), median over 15
calls after 3 warm-ups, each blocked until ready, and prints one JSON line
per case with the same names ("xla_cpu_ms" or "xla_gpu_ms"), so a run of
both benchmarks puts XLA's time beside xtune's and OpenBLAS's.
--write-hlo=DIR also writes each case's module as JAX lowers it
(DIR/NAME.hlo), for xtune to compile and tune (scripts/gpu_check.sh does on
a GPU). Needs JAX (pip install jax); exits 1 without.

usage: conv_jax.py [--quick] [--only=NAME] [--write-hlo=DIR]
"""
import json
import os
import statistics
import sys
import time

try:
    import jax
    import jax.numpy as jnp
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"conv_jax: JAX is not importable: {e}", file=sys.stderr)
    sys.exit(1)


def cases(quick):
    s = 4 if quick else 1
    # name, nchw, bf16, n, h, w, c, o, k, stride, groups (conv_vs_openblas.cc)
    return [
        ("resnet3x3_nhwc_f32_b1", False, False, 1, 56 // s, 56 // s, 64, 64, 3, 1, 1),
        ("resnet3x3_nhwc_f32_b32", False, False, 32, 7, 7, 128, 128, 3, 1, 1),
        ("pointwise1x1_nhwc_f32_b1", False, False, 1, 28 // s, 28 // s, 128, 512, 1, 1, 1),
        ("strided3x3_nchw_f32_b1", True, False, 1, 56 // s, 56 // s, 64, 128, 3, 2, 1),
        ("depthwise3x3_nhwc_f32_b1", False, False, 1, 56 // s, 56 // s, 128, 128, 3, 1, 128),
        ("resnet3x3_nhwc_bf16_b1", False, True, 1, 28 // s, 28 // s, 128, 128, 3, 1, 1),
        ("resnet3x3_nchw_bf16_b32", True, True, 32, 14 // s, 14 // s, 64, 64, 3, 1, 1),
    ]


def main():
    quick = "--quick" in sys.argv[1:]
    only = next((a[7:] for a in sys.argv[1:] if a.startswith("--only=")), None)
    hlo_dir = next((a[12:] for a in sys.argv[1:] if a.startswith("--write-hlo=")), None)
    if hlo_dir:
        os.makedirs(hlo_dir, exist_ok=True)
    backend = jax.default_backend()
    key = jax.random.PRNGKey(0)
    for name, nchw, bf16, n, h, w, c, o, k, stride, groups in cases(quick):
        if only and name != only:
            continue
        t = jnp.bfloat16 if bf16 else jnp.float32
        x_shape = (n, c, h, w) if nchw else (n, h, w, c)
        w_shape = (o, c // groups, k, k) if nchw else (k, k, c // groups, o)
        dn = ("NCHW", "OIHW", "NCHW") if nchw else ("NHWC", "HWIO", "NHWC")
        x = jax.random.uniform(key, x_shape, jnp.float32, -1, 1).astype(t)
        wt = jax.random.uniform(key, w_shape, jnp.float32, -1, 1).astype(t)
        pad = k // 2
        f = jax.jit(lambda x, wt: jax.lax.conv_general_dilated(
            x, wt, (stride, stride), ((pad, pad), (pad, pad)), dimension_numbers=dn,
            feature_group_count=groups))
        if hlo_dir:
            with open(os.path.join(hlo_dir, name + ".hlo"), "w") as out:
                out.write(f.lower(x, wt).as_text(dialect="hlo"))
        for _ in range(3):
            f(x, wt).block_until_ready()
        times = []
        for _ in range(15):
            start = time.perf_counter()
            f(x, wt).block_until_ready()
            times.append(time.perf_counter() - start)
        print(json.dumps({"case": name,
                          f"xla_{backend}_ms": round(1e3 * statistics.median(times), 3)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
