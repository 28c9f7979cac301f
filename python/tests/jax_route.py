"""The JAX route of docs/python.md, for real: JAX lowers programs to HLO
text, xtune compiles and runs it, and the outputs match JAX's own (XLA:CPU).
Run by python/tests/run_jax.sh with a python that imports jax."""
import sys

import jax
import jax.numpy as jnp
import numpy as np

import xtune


def check(name, f, *args, rtol=1e-4, atol=1e-4):
    hlo = jax.jit(f).lower(*args).compiler_ir("hlo").as_hlo_text()
    prog = xtune.compile(hlo, xla_flags="--xla_gpu_autotune_level=2")
    got = prog.run(*[np.asarray(a, dtype=np.float32) for a in args])
    want = jax.jit(f)(*args)
    want = [want] if not isinstance(want, (tuple, list)) else list(want)
    assert len(got) == len(want), (name, len(got), len(want))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, np.asarray(w, dtype=np.float32), rtol=rtol, atol=atol,
                                   err_msg=name)
    print(f"PASS {name}: {prog.stats['summary']}")


def main():
    key = jax.random.PRNGKey(0)
    k1, k2, k3 = jax.random.split(key, 3)
    x = jax.random.normal(k1, (32, 64))
    w = jax.random.normal(k2, (64, 16))
    b = jax.random.normal(k3, (16,))
    check("mlp", lambda x, w, b: jax.nn.gelu(x @ w + b), x, w, b)
    check("softmax", lambda x: jax.nn.softmax(x, axis=-1), x)
    img = jax.random.normal(k1, (2, 8, 8, 16))
    ker = jax.random.normal(k2, (3, 3, 16, 8))
    conv = lambda i, k: jax.nn.relu(jax.lax.conv_general_dilated(  # noqa: E731
        i, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")))
    check("conv", conv, img, ker, rtol=1e-3, atol=1e-3)
    xb = x.astype(jnp.bfloat16)
    check("bf16", lambda a: (a * a).sum(axis=1), xb, rtol=2e-2, atol=2e-1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
