#!/usr/bin/env python3
"""XLA's figures for the gemms of bench/gpu_gemm.cc.

Times each computation jitted by JAX on the first GPU (XLA tunes it with its
own autotuner), median over 10 batches of 5 runs after 3 warm-ups, each
batch blocked until ready, and prints one JSON line per case with the same
names, so scripts/gpu_check.sh can put XLA's time beside xtune's and
cuBLASLt's. Needs JAX with a GPU; exits 1 without.
"""
import json
import statistics
import sys
import time

try:
    import jax
    import jax.numpy as jnp
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"gpu_gemm_jax: JAX is not importable: {e}", file=sys.stderr)
    sys.exit(1)


def gelu(x):
    c = jnp.asarray(0.7978846, x.dtype)
    k = jnp.asarray(0.044715, x.dtype)
    return x * jnp.asarray(0.5, x.dtype) * (jnp.tanh((x + x * x * x * k) * c) + 1)


def cases():
    key = jax.random.PRNGKey(0)
    u = lambda shape, dt: jax.random.uniform(key, shape, jnp.float32, -1, 1).astype(dt)
    bf, f16 = jnp.bfloat16, jnp.float16
    yield "bf16_4096", (4096, 4096, 4096), lambda a, b: a @ b, [u((4096, 4096), bf), u((4096, 4096), bf)]
    yield "bf16_8192", (8192, 8192, 8192), lambda a, b: a @ b, [u((8192, 8192), bf), u((8192, 8192), bf)]
    yield "bf16_128x4096x4096", (128, 4096, 4096), lambda a, b: a @ b, [u((128, 4096), bf), u((4096, 4096), bf)]
    q = jax.random.randint(key, (4096, 4096), -128, 127, jnp.int8)
    yield "f16_x_s8_4096", (4096, 4096, 4096), lambda a, q: a @ q.astype(f16), [u((4096, 4096), f16), q]
    yield ("bf16_4096_bias_gelu", (4096, 4096, 4096), lambda a, b, c: gelu(a @ b + c),
           [u((4096, 4096), bf), u((4096, 4096), bf), u((4096,), bf)])
    e4 = jnp.float8_e4m3fn
    yield ("f8e4m3_scaled_4096", (4096, 4096, 4096),
           lambda a, b, sa, sb: jax.lax.dot_general(a.astype(bf) * sa, b.astype(bf) * sb,
                                                    (((1,), (1,)), ((), ()))),
           [u((4096, 4096), e4), u((4096, 4096), e4), jnp.asarray(0.5, bf), jnp.asarray(2.0, bf)])
    f32 = jnp.float32
    yield ("f8e4m3_scaled_f32_4096", (4096, 4096, 4096),
           lambda a, b, sa, sb: jax.lax.dot_general(a.astype(f32) * sa, b.astype(f32) * sb,
                                                    (((1,), (1,)), ((), ()))),
           [u((4096, 4096), e4), u((4096, 4096), e4), jnp.asarray(0.5, f32),
            jnp.asarray(2.0, f32)])


def main():
    gpus = [d for d in jax.devices() if d.platform == "gpu"]
    if not gpus:
        print("gpu_gemm_jax: JAX sees no GPU", file=sys.stderr)
        return 1
    only = sys.argv[1] if len(sys.argv) > 1 else None
    for name, (m, n, k), fn, args in cases():
        if only and name != only:
            continue
        args = [jax.device_put(a, gpus[0]) for a in args]
        f = jax.jit(fn)
        f(*args).block_until_ready()
        for _ in range(3):
            f(*args).block_until_ready()
        times = []
        for _ in range(10):
            t = time.perf_counter()
            for _ in range(5):
                out = f(*args)
            out.block_until_ready()
            times.append((time.perf_counter() - t) / 5)
        s = statistics.median(times)
        print(json.dumps({"bench": "gpu_gemm_jax", "fusion": name, "xla_seconds": s,
                          "xla_tflops": round(2 * m * n * k / s / 1e12, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
