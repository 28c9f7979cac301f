"""Real JAX programs whose HLO xtune must run: each returns (name, function,
example arguments). Their lowered HLO (jax.jit(f).lower(...)) is what JAX
hands XLA, and XLA:CPU's outputs are the reference (check_models.py)."""

import numpy as np


def models():
    import jax
    import jax.numpy as jnp

    rng = np.random.default_rng(0)

    def f32(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    vocab, dim, seq, hidden = 64, 32, 12, 64

    # A transformer block's decode step: token and position embeddings
    # (gather, dynamic-slice), a KV cache written at the step
    # (dynamic-update-slice), causal attention over the cache, an MLP.
    def decode_step(tok_emb, pos_emb, wq, wk, wv, wo, w1, w2, k_cache,
                    v_cache, ids, step):
        x = tok_emb[ids] + jax.lax.dynamic_slice(
            pos_emb, (step, 0), (ids.shape[0], dim))
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        h = (x - mu) * jax.lax.rsqrt(var + 1e-5)
        q, k, v = h @ wq, h @ wk, h @ wv
        k_cache = jax.lax.dynamic_update_slice(k_cache, k, (step, 0))
        v_cache = jax.lax.dynamic_update_slice(v_cache, v, (step, 0))
        scores = q @ k_cache.T / np.sqrt(dim).astype(np.float32)
        pos = jnp.arange(k_cache.shape[0])
        scores = jnp.where(pos[None, :] <= step + jnp.arange(ids.shape[0])[:, None],
                           scores, -1e9)
        att = jax.nn.softmax(scores, axis=-1) @ v_cache
        x = x + att @ wo
        x = x + jax.nn.gelu(x @ w1) @ w2
        return x, k_cache, v_cache

    cache = 32
    decode_args = (f32(vocab, dim), f32(cache, dim), f32(dim, dim) * 0.2,
                   f32(dim, dim) * 0.2, f32(dim, dim) * 0.2,
                   f32(dim, dim) * 0.2, f32(dim, hidden) * 0.2,
                   f32(hidden, dim) * 0.2, np.zeros((cache, dim), np.float32),
                   np.zeros((cache, dim), np.float32),
                   rng.integers(0, vocab, (4,)).astype(np.int32),
                   np.int32(5))

    # A training step of an embedding model with Adam: the gradient of an
    # embedding lookup is a scatter-add of the rows' gradients.
    def train_step(table, w, b, m_t, v_t, m_w, v_w, ids, labels):
        def loss_fn(table, w, b):
            x = table[ids].mean(axis=1)
            logits = x @ w + b
            logp = jax.nn.log_softmax(logits)
            return -jnp.take_along_axis(logp, labels[:, None], axis=1).mean()

        loss, (g_t, g_w, g_b) = jax.value_and_grad(loss_fn, argnums=(0, 1, 2))(
            table, w, b)
        lr, b1, b2 = 1e-2, 0.9, 0.999
        m_t = b1 * m_t + (1 - b1) * g_t
        v_t = b2 * v_t + (1 - b2) * g_t * g_t
        m_w = b1 * m_w + (1 - b1) * g_w
        v_w = b2 * v_w + (1 - b2) * g_w * g_w
        table = table - lr * m_t / (jnp.sqrt(v_t) + 1e-8)
        w = w - lr * m_w / (jnp.sqrt(v_w) + 1e-8)
        return loss, table, w, b - lr * g_b, m_t, v_t

    classes = 10
    train_args = (f32(vocab, dim), f32(dim, classes) * 0.1,
                  np.zeros((classes,), np.float32),
                  np.zeros((vocab, dim), np.float32),
                  np.zeros((vocab, dim), np.float32),
                  np.zeros((dim, classes), np.float32),
                  np.zeros((dim, classes), np.float32),
                  rng.integers(0, vocab, (8, 5)).astype(np.int32),
                  rng.integers(0, classes, (8,)).astype(np.int32))

    # Sliding windows and a row update by dynamic offsets, with indices
    # partly out of range (clamped).
    def windows(x, starts, row):
        win = jax.vmap(lambda s: jax.lax.dynamic_slice(x, (s, 0), (3, x.shape[1])))(starts)
        return win.sum(axis=1), jax.lax.dynamic_update_slice(x, row[None, :], (starts[0], 0))

    window_args = (f32(16, 8), np.array([-2, 3, 15, 7], np.int32), f32(8))

    # A scan over stacked layers (a `while` whose body slices its layer's
    # weights with dynamic-slice and writes each layer's activations with
    # dynamic-update-slice), then a branch on the result (`conditional`).
    layers = 4

    def scan_layers(x, w, b, scale):
        def layer(h, wb):
            wl, bl = wb
            h = jax.nn.gelu(h @ wl + bl)
            return h, h.sum(axis=-1)

        h, sums = jax.lax.scan(layer, x, (w, b))
        h = jax.lax.cond(sums[-1].mean() > 0, lambda v: v * scale,
                         lambda v: v - scale, h)
        total = jax.lax.fori_loop(0, 3, lambda i, acc: acc + i * acc, h.sum())
        return h, sums, total

    scan_args = (f32(8, dim), f32(layers, dim, dim) * 0.2, f32(layers, dim),
                 np.float32(1.5))

    # Top-k sampling from a language model head: logits over the
    # vocabulary, lax.top_k (XLA's `topk`), a softmax over the k best, a
    # Gumbel-max draw with the noise passed in, and a full argsort of the
    # logits (`sort` of the logits with an iota).
    def topk_sampling(h, emb, noise):
        logits = h @ emb.T
        vals, idx = jax.lax.top_k(logits, 8)
        probs = jax.nn.softmax(vals, axis=-1)
        pick = jnp.argmax(jnp.log(probs) + noise, axis=-1)
        token = jnp.take_along_axis(idx, pick[:, None], axis=1)[:, 0]
        ranks = jnp.argsort(-logits, axis=-1)
        return token, probs, ranks[:, :16], jnp.sort(logits, axis=-1)[:, -4:]

    topk_args = (f32(4, dim), f32(vocab, dim),
                 rng.gumbel(size=(4, 8)).astype(np.float32))

    # A model-parallel MLP written with shard_map on a mesh of one device:
    # column- and row-parallel matmuls joined by psum (all-reduce), then an
    # all_gather, a ppermute, a psum_scatter and axis_index (partition-id),
    # as a tensor-parallel step emits them.
    def model_parallel(x, w1, w2):
        from jax.sharding import Mesh, PartitionSpec as P
        mesh = Mesh(np.array(jax.devices()[:1]), ("x",))

        def shard(x, w1, w2):
            h = jax.nn.relu(x @ w1)
            y = jax.lax.psum(h @ w2, "x")
            g = jax.lax.all_gather(y, "x", tiled=True)
            p = jax.lax.ppermute(g, "x", [(0, 0)])
            s = jax.lax.psum_scatter(p, "x", scatter_dimension=0, tiled=True)
            return s + jax.lax.axis_index("x").astype(s.dtype)

        return jax.shard_map(shard, mesh=mesh,
                             in_specs=(P(), P(None, "x"), P("x", None)),
                             out_specs=P(), check_vma=False)(x, w1, w2)

    mp_args = (f32(8, dim), f32(dim, hidden) * 0.2, f32(hidden, dim) * 0.2)

    # Low-precision simulation and integer bit tricks as quantization and
    # hashing code writes them: lax.reduce_precision to e5m2/e4m3 ranges
    # on f32, f16 and bf16 (NaN, inf, -0 and subnormals included), clz and
    # popcnt on s32 and u8.
    def bit_ops(x, h, b, i):
        lax = jax.lax
        r1 = lax.reduce_precision(x, exponent_bits=5, mantissa_bits=2)
        r2 = lax.reduce_precision(x, exponent_bits=4, mantissa_bits=3)
        r3 = lax.reduce_precision(h, exponent_bits=4, mantissa_bits=3)
        r4 = lax.reduce_precision(b, exponent_bits=5, mantissa_bits=0)
        q = lax.population_count(i.astype(jnp.uint8))
        # 16-bit integers: wrapping arithmetic, shifts, division and
        # saturating converts from floats.
        s16 = i.astype(jnp.int16)
        u16 = i.astype(jnp.uint16)
        w = (s16 * 3 + 7) // (s16 % 5 + 1) + (s16 >> 3)
        v = (u16 * u16) ^ (u16 >> 4) + jnp.sort(u16, axis=-1)
        sat = (x * 1e4).astype(jnp.int16)
        return (r1 + r2, r3, r4, lax.clz(i) + lax.population_count(i),
                lax.clz(q), w, v, sat, lax.clz(u16) + lax.population_count(s16))

    bx = (f32(4, 8) * np.logspace(-8, 8, 8)).astype(np.float32)
    bx[0, :4] = [np.nan, np.inf, -0.0, 1e-40]
    bi = rng.integers(-2**31, 2**31, (4, 8)).astype(np.int32)
    bi[0, :2] = [0, -1]
    bit_args = (bx, f32(4, 8).astype(np.float16),
                (f32(4, 8) * 1e3).astype(jnp.bfloat16), bi)

    # 64-bit unsigned arithmetic as hashing and counter-based RNG code
    # writes it under jax_enable_x64: values past 2^63 divided, ordered,
    # shifted, sorted, clamped and converted to and from floats
    # (saturating). Runs with x64 enabled (fn.x64).
    def u64_ops(a, b, x):
        return (a // b, a % b, jnp.maximum(a, b), a > b, a.astype(jnp.float32),
                (x * 1e19).astype(jnp.uint64), a >> 7, jnp.sort(a),
                a * b + (a << 3), jnp.clip(a, b, a + b),
                a.astype(jnp.float64), jnp.abs(a.astype(jnp.int64)),
                jnp.argmax(a), jnp.min(a), (a ^ (a >> 33)) * np.uint64(
                    0xff51afd7ed558ccd))

    u64_ops.x64 = True
    u64_args = (np.array([2**64 - 1, 2**63, 5, 0, 12345678901234567890, 77],
                         dtype=np.uint64),
                np.array([3, 2**63 + 1, 0, 7, 2**40, 2**64 - 2],
                         dtype=np.uint64),
                np.array([0.5, 1.5, -1, 2.0, 0.1, np.nan], np.float32))

    # Dropout and noise with JAX's "rbg" keys (XLA's rng-bit-generator) and
    # the generator itself with each algorithm, shape and width: the bits
    # must be XLA's, bit for bit.
    def rbg_dropout(x, key_data):
        lax = jax.lax
        key = jax.random.wrap_key_data(key_data, impl="rbg")
        k1, k2 = jax.random.split(key)
        keep = jax.random.bernoulli(k1, 0.9, x.shape)
        noisy = jnp.where(keep, x / 0.9, 0.0) + 0.01 * jax.random.normal(
            k2, x.shape)
        outs = [noisy, jax.random.randint(k2, (5,), -3, 1000)]
        A = lax.RandomAlgorithm
        for shape, dt, alg in [((3, 5), jnp.uint32, A.RNG_THREE_FRY),
                               ((7,), jnp.uint32, A.RNG_PHILOX),
                               ((2, 3), jnp.uint8, A.RNG_DEFAULT),
                               ((3,), jnp.uint64, A.RNG_THREE_FRY),
                               ((5,), jnp.uint64, A.RNG_PHILOX),
                               ((3, 5, 7), jnp.uint16, A.RNG_THREE_FRY),
                               ((), jnp.uint32, A.RNG_THREE_FRY),
                               ((1, 4, 3), jnp.uint32, A.RNG_THREE_FRY)]:
            outs += list(lax.rng_bit_generator(key_data, shape, dtype=dt,
                                               algorithm=alg))
        return outs

    rbg_dropout.x64 = True  # u64 outputs
    rbg_args = (f32(8, 16),
                np.array([0xffffffff, 0xfffffffe, 3, 0xffffffff], np.uint32))

    # A recurrent cell scanned over a sequence, its hidden states stacked
    # (lax.scan's ys: a dynamic-update-slice of the loop's state each
    # step, done in place when nothing else reads the stack).
    def scan_stack(h0, w, xs):
        def cell(h, x):
            h = jnp.tanh(h @ w + x)
            return h, h

        h, ys = jax.lax.scan(cell, h0, xs)
        return h, ys

    stack_args = (f32(8, 128), f32(128, 128) * 0.1, f32(128, 8, 128))

    # Per-tensor scaled FP8 as FP8 training recipes write it: activations
    # and weights quantized to e4m3fn, the product in f32 rescaled, its
    # amax, a gradient-like output in e5m2, and out-of-range values (NaN in
    # e4m3fn, infinity in e5m2: XLA's non-saturating converts).
    def fp8_matmul(x, w, x_scale, w_scale):
        e4, e5 = jnp.float8_e4m3fn, jnp.float8_e5m2
        xq = (x / x_scale).astype(e4)
        wq = (w / w_scale).astype(e4)
        y = jnp.dot(xq.astype(jnp.float32), wq.astype(jnp.float32),
                    preferred_element_type=jnp.float32) * (x_scale * w_scale)
        amax = jnp.max(jnp.abs(y))
        g = (y / amax * 70000.0).astype(e5)
        over = (x * 300.0).astype(e4)
        fnuz = (x * 100.0).astype(jnp.float8_e4m3fnuz)
        return y, amax, g, xq, over, fnuz, (xq.astype(jnp.bfloat16) * 2).astype(e5)

    fp8_args = (f32(16, 64), f32(64, 32) * 0.5, np.float32(0.05),
                np.float32(0.02))

    # A ResNet-style block and its training gradients (NHWC): 3x3 convs
    # (one strided), bias, ReLU, a residual, max pooling with padding and
    # average pooling; the gradient has the transposed convolutions (lhs
    # dilation, reversed kernels, kernels as outputs) and max pooling's
    # select-and-scatter.
    def resnet_block(x, w1, b1, w2, w3):
        def forward(x, w1, b1, w2, w3):
            dn = ("NHWC", "HWIO", "NHWC")
            h = jax.lax.conv_general_dilated(x, w1, (1, 1), "SAME", dimension_numbers=dn)
            h = jax.nn.relu(h + b1)
            h = jax.lax.conv_general_dilated(h, w2, (1, 1), "SAME", dimension_numbers=dn) + x
            h = jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 3, 3, 1), (1, 2, 2, 1),
                                      ((0, 0), (0, 1), (0, 1), (0, 0)))
            h = jax.lax.conv_general_dilated(h, w3, (2, 2), ((1, 1), (1, 1)),
                                             dimension_numbers=dn)
            pooled = jax.lax.reduce_window(h, 0.0, jax.lax.add, (1, 2, 2, 1),
                                           (1, 2, 2, 1), "VALID") / 4.0
            return jnp.sum(pooled * pooled), pooled

        (loss, pooled), grads = jax.value_and_grad(forward, argnums=(0, 1, 2, 3, 4),
                                                   has_aux=True)(x, w1, b1, w2, w3)
        return (loss, pooled) + grads

    resnet_args = (f32(2, 12, 12, 4), f32(3, 3, 4, 4) * 0.3, f32(4) * 0.1,
                   f32(3, 3, 4, 4) * 0.3, f32(3, 3, 4, 8) * 0.3)

    # Depthwise and grouped convolutions in NCHW with a dilated kernel, a
    # 1-D transposed convolution (lhs dilation) and a 3-D one, with the
    # depthwise gradient (its kernel gradient has batch_group_count).
    def grouped_convs(x, wd, wg, s, k1, v, k3):
        def depthwise(x, wd):
            return jax.lax.conv_general_dilated(
                x, wd, (1, 1), ((2, 2), (2, 2)), rhs_dilation=(2, 2),
                dimension_numbers=("NCHW", "OIHW", "NCHW"), feature_group_count=6)

        y, vjp = jax.vjp(depthwise, x, wd)
        gx, gw = vjp(jnp.tanh(y))
        grouped = jax.lax.conv_general_dilated(
            x, wg, (2, 1), ((1, 0), (0, 1)), dimension_numbers=("NCHW", "OIHW", "NCHW"),
            feature_group_count=3)
        up = jax.lax.conv_transpose(s, k1, (2,), "SAME", dimension_numbers=("NWC", "WIO", "NWC"))
        vol = jax.lax.conv_general_dilated(v, k3, (1, 2, 1), "VALID",
                                           dimension_numbers=("NCDHW", "OIDHW", "NCDHW"))
        return y, gx, gw, grouped, up, vol

    grouped_args = (f32(2, 6, 9, 9), f32(6, 1, 3, 3), f32(6, 2, 2, 3), f32(2, 7, 3),
                    f32(3, 3, 5) * 0.5, f32(1, 2, 4, 6, 5), f32(3, 2, 2, 3, 2))

    return [("bit_ops", bit_ops, bit_args),
            ("resnet_block", resnet_block, resnet_args),
            ("grouped_convs", grouped_convs, grouped_args),
            ("fp8_matmul", fp8_matmul, fp8_args),
            ("rbg_dropout", rbg_dropout, rbg_args),
            ("u64_ops", u64_ops, u64_args),
            ("decode_step", decode_step, decode_args),
            ("model_parallel", model_parallel, mp_args),
            ("topk_sampling", topk_sampling, topk_args),
            ("scan_layers", scan_layers, scan_args),
            ("scan_stack", scan_stack, stack_args),
            ("train_step", train_step, train_args),
            ("windows", windows, window_args)]
