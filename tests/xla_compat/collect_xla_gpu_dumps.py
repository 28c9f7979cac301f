#!/usr/bin/env python3
"""Collects what XLA itself writes on a GPU, for xtune's compatibility work:
for a set of small JAX programs (gemms with epilogues, scaled FP8 gemms,
convolutions, pooling and its gradient, a training step), XLA's dumps
(`--xla_dump_to`: the module before and after optimization, as text and as
HloModuleProto/HloProto binaries) and XLA's autotune results
(`--xla_gpu_dump_autotune_results_to`), once with XLA's default flags and
once with Triton gemms off (so the gemms become cuBLAS custom-calls).

usage: collect_xla_gpu_dumps.py OUTDIR [--child MODE DUMPDIR]

Writes OUTDIR/default/ and OUTDIR/cublas/ (each a dump folder holding
autotune_results.textproto, and io/PROGRAM/{in,out}_K.npy: the inputs and
XLA:GPU's outputs of the gemm programs, bf16 and 8-bit floats as float32)
and prints each program's status.
Run by scripts/gpu_check.sh when JAX sees a GPU; each mode runs in its own
process because XLA reads XLA_FLAGS once. Needs JAX with a GPU; exits 1
without."""
import os
import subprocess
import sys
import time


def programs():
    import jax
    import jax.numpy as jnp

    key = jax.random.PRNGKey(0)

    def u(shape, dt, lo=-1.0, hi=1.0):
        return jax.random.uniform(key, shape, jnp.float32, lo, hi).astype(dt)

    bf, f16, f32 = jnp.bfloat16, jnp.float16, jnp.float32
    e4, e5 = jnp.float8_e4m3fn, jnp.float8_e5m2

    def mm_bf16(a, b):
        return a @ b

    def mm_f32_bias_relu(x, w, b):
        return jax.nn.relu(x @ w + b)

    def mm_bf16_bias_gelu(x, w, b):
        return jax.nn.gelu(x @ w + b, approximate=True)

    def mm_f16_batched(a, b):
        return jnp.einsum("bmk,bkn->bmn", a, b)

    def fp8_scaled_f32(a, b, sa, sb):
        # XLA's scaled-FP8 pattern: convert, multiply by a broadcast scale, dot.
        return jax.lax.dot_general(a.astype(f32) * sa, b.astype(f32) * sb,
                                   (((1,), (1,)), ((), ())))

    def fp8_scaled_bf16(a, b, sa, sb):
        return jax.lax.dot_general(a.astype(bf) * sa.astype(bf),
                                   b.astype(bf) * sb.astype(bf),
                                   (((1,), (1,)), ((), ())))

    def fp8_delayed(a, b, sa, sb, sd):
        # Delayed scaling: the output scaled, clamped and stored in FP8, and
        # its amax.
        d = jax.lax.dot_general(a.astype(f32) * sa, b.astype(f32) * sb,
                                (((1,), (1,)), ((), ())))
        amax = jnp.max(jnp.abs(d))
        q = jnp.clip(d / sd, -448.0, 448.0).astype(e4)
        return q, amax

    def fp8_e4m3_e5m2(a, g, sa, sg):
        return jax.lax.dot_general(a.astype(bf) * sa.astype(bf),
                                   g.astype(bf) * sg.astype(bf),
                                   (((1,), (1,)), ((), ())))

    def conv_nhwc_bf16(x, w):
        return jax.lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                            dimension_numbers=("NHWC", "HWIO", "NHWC"))

    def conv_nchw_f32_strided(x, w):
        return jax.lax.conv_general_dilated(x, w, (2, 2), ((1, 1), (1, 1)),
                                            dimension_numbers=("NCHW", "OIHW", "NCHW"))

    def conv_depthwise(x, w):
        return jax.lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                            dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                            feature_group_count=x.shape[-1])

    def conv_bias_relu(x, w, b):
        y = jax.lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                         dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return jax.nn.relu(y + b)

    def conv_grads(x, w):
        def loss(x, w):
            y = jax.lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                             dimension_numbers=("NHWC", "HWIO", "NHWC"))
            return jnp.sum(y * y)
        return jax.grad(loss, argnums=(0, 1))(x, w)

    def maxpool_and_grad(x):
        def pool(x):
            return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 3, 3, 1),
                                         (1, 2, 2, 1), "SAME")
        y, vjp = jax.vjp(pool, x)
        return y, vjp(jnp.ones_like(y))[0]

    def avgpool(x):
        return jax.lax.reduce_window(x, 0.0, jax.lax.add, (1, 2, 2, 1), (1, 2, 2, 1),
                                     "VALID") / 4.0

    def mlp_train_step(w1, w2, x, y):
        def loss(w1, w2):
            h = jax.nn.gelu(x @ w1)
            logits = (h @ w2).astype(f32)
            return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, axis=-1))
        g1, g2 = jax.grad(loss, argnums=(0, 1))(w1, w2)
        return w1 - (0.01 * g1).astype(w1.dtype), w2 - (0.01 * g2).astype(w2.dtype)

    def layer_norm_softmax(x, g):
        m = jnp.mean(x, axis=-1, keepdims=True)
        v = jnp.mean((x - m) ** 2, axis=-1, keepdims=True)
        y = (x - m) * jax.lax.rsqrt(v + 1e-5) * g
        return jax.nn.softmax(y, axis=-1)

    s = lambda v: jnp.asarray(v, f32)
    yield mm_bf16, [u((512, 1024), bf), u((1024, 768), bf)]
    yield mm_f32_bias_relu, [u((256, 512), f32), u((512, 1024), f32), u((1024,), f32)]
    yield mm_bf16_bias_gelu, [u((256, 512), bf), u((512, 1024), bf), u((1024,), bf)]
    yield mm_f16_batched, [u((4, 256, 512), f16), u((4, 512, 256), f16)]
    a8, b8 = u((256, 512), e4, -8, 8), u((768, 512), e4, -8, 8)
    yield fp8_scaled_f32, [a8, b8, s(0.5), s(2.0)]
    yield fp8_scaled_bf16, [a8, b8, s(0.5), s(2.0)]
    yield fp8_delayed, [a8, b8, s(0.5), s(2.0), s(4.0)]
    yield fp8_e4m3_e5m2, [a8, u((768, 512), e5, -8, 8), s(1.0), s(0.25)]
    yield conv_nhwc_bf16, [u((8, 32, 32, 64), bf), u((3, 3, 64, 64), bf)]
    yield conv_nchw_f32_strided, [u((4, 32, 28, 28), f32), u((64, 32, 3, 3), f32)]
    yield conv_depthwise, [u((4, 28, 28, 64), f32), u((3, 3, 1, 64), f32)]
    yield conv_bias_relu, [u((8, 16, 16, 32), f16), u((3, 3, 32, 64), f16), u((64,), f16)]
    yield conv_grads, [u((4, 16, 16, 32), f32), u((3, 3, 32, 32), f32)]
    yield maxpool_and_grad, [u((4, 32, 32, 16), f32)]
    yield avgpool, [u((4, 32, 32, 16), f32)]
    yield mlp_train_step, [u((256, 512), bf), u((512, 64), bf), u((128, 256), bf),
                           jax.nn.one_hot(jnp.arange(128) % 64, 64)]
    yield layer_norm_softmax, [u((512, 1024), f32), u((1024,), f32)]


def child(dump):
    import jax
    gpus = [d for d in jax.devices() if d.platform == "gpu"]
    if not gpus:
        print("collect_xla_gpu_dumps: JAX sees no GPU", file=sys.stderr)
        return 1
    import numpy as np
    import jax.numpy as jnp

    def npy(x):  # bf16 and 8-bit floats as float32 (exact), others as they are
        x = np.asarray(x)
        if x.dtype.kind == "V" or x.dtype.name in ("bfloat16",) or "float8" in x.dtype.name:
            x = np.asarray(jnp.asarray(x).astype(jnp.float32))
        return x

    failures = 0
    for fn, args in programs():
        t = time.perf_counter()
        try:
            out = jax.jit(fn)(*[jax.device_put(a, gpus[0]) for a in args])
            jax.block_until_ready(out)
            print(f"{fn.__name__}: ok in {time.perf_counter() - t:.1f} s", flush=True)
            if fn.__name__.startswith(("mm_", "fp8_", "mlp_", "layer_")):
                # XLA:GPU's outputs for these inputs: a reference for xtune
                # running XLA's optimized module (xtune run --input=...).
                io = os.path.join(dump, "io", fn.__name__)
                os.makedirs(io, exist_ok=True)
                for k, a in enumerate(args):
                    np.save(os.path.join(io, f"in_{k}.npy"), npy(a))
                for k, o in enumerate(jax.tree_util.tree_leaves(out)):
                    np.save(os.path.join(io, f"out_{k}.npy"), npy(o))
        except Exception as e:  # one program's failure is a line, not the end
            failures += 1
            print(f"{fn.__name__}: FAILED: {type(e).__name__}: {str(e)[:300]}", flush=True)
    print(f"device: {gpus[0].device_kind}; jax {jax.__version__}")
    return 0 if failures == 0 else 2


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        return child(sys.argv[3])
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 1
    out = sys.argv[1]
    rc = 0
    for mode, extra in (("default", ""), ("cublas", " --xla_gpu_enable_triton_gemm=false")):
        dump = os.path.join(out, mode)
        os.makedirs(dump, exist_ok=True)
        env = dict(os.environ)
        env["XLA_FLAGS"] = (f"--xla_dump_to={dump} --xla_dump_hlo_as_text "
                            f"--xla_dump_hlo_as_proto "
                            f"--xla_gpu_dump_autotune_results_to={dump}/autotune_results.textproto"
                            + extra)
        print(f"== {mode}: XLA_FLAGS={env['XLA_FLAGS']}", flush=True)
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", mode, dump],
                           env=env)
        rc = rc or r.returncode
    return rc


if __name__ == "__main__":
    sys.exit(main())
