#!/usr/bin/env python3
"""XLA's figures for the computations of bench/gpu_loop_reduction.cc.

Times each computation jitted by JAX on the first GPU (median over 15 batches
of 10 runs after 5 warm-ups, each batch blocked until ready) and prints one JSON line
per computation with the same fusion names and byte counts, so
scripts/gpu_check.sh can put XLA's bandwidth beside xtune's. Needs JAX
with a GPU; exits 1 without.
"""
import json
import statistics
import sys
import time

try:
    import jax
    import jax.numpy as jnp
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"gpu_loop_reduction_jax: JAX is not importable: {e}", file=sys.stderr)
    sys.exit(1)


def cases():
    k = jax.random.PRNGKey(0)
    f32 = lambda *s: jax.random.uniform(k, s, jnp.float32, -1, 1)
    bf16 = lambda *s: f32(*s).astype(jnp.bfloat16)
    yield ("add_mul_f32_16M", lambda a, b: (a + b) * a,
           [f32(16777216), f32(16777216)])
    yield ("scale_bias_relu_bf16_32M",
           lambda x, b: jnp.maximum(x * jnp.bfloat16(1.5) + b, jnp.bfloat16(0)),
           [bf16(8192, 4096), bf16(4096)])
    yield ("row_sum_f32_32768x4096", lambda a: a.sum(axis=1), [f32(32768, 4096)])
    yield ("softmax_f32_16384x4096", lambda a: jax.nn.softmax(a, axis=1),
           [f32(16384, 4096)])
    yield ("column_sum_f32_4096x32768", lambda a: a.sum(axis=0),
           [f32(4096, 32768)])


def main():
    gpus = [d for d in jax.devices() if d.platform == "gpu"]
    if not gpus:
        print("gpu_loop_reduction_jax: JAX sees no GPU", file=sys.stderr)
        return 1
    only = sys.argv[1] if len(sys.argv) > 1 else None
    for name, fn, args in cases():
        if only and name != only:
            continue
        args = [jax.device_put(a, gpus[0]) for a in args]
        f = jax.jit(fn)
        out = f(*args)
        out.block_until_ready()
        nbytes = sum(a.nbytes for a in args) + out.nbytes
        for _ in range(5):
            f(*args).block_until_ready()
        # Batches of 10 dispatches, blocked once: the host's dispatch
        # overlaps the device's work, as in a real program.
        times = []
        for _ in range(15):
            t = time.perf_counter()
            for _ in range(10):
                out = f(*args)
            out.block_until_ready()
            times.append((time.perf_counter() - t) / 10)
        s = statistics.median(times)
        print(json.dumps({"bench": "gpu_loop_reduction_jax", "fusion": name,
                          "bytes": nbytes, "xla_seconds": s,
                          "xla_gbps": round(nbytes / s / 1e9, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
