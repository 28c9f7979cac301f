"""rng-bit-generator as XLA computes it (xla/hlo/builder/lib/prng.cc and
its expander), written independently of xtune: ThreeFry-2x32 (20 rounds)
and Philox-4x32 (10 rounds) on Python integers, element by element."""

import numpy as np

M32 = 0xFFFFFFFF
M64 = (1 << 64) - 1


def threefry2x32(x0, x1, k0, k1):
    rot = (13, 15, 26, 6, 17, 29, 16, 24)
    ks = (k0, k1, 0x1BD11BDA ^ k0 ^ k1)
    x0, x1 = (x0 + ks[0]) & M32, (x1 + ks[1]) & M32
    for g in range(5):
        for r in range(4):
            x0 = (x0 + x1) & M32
            d = rot[(g % 2) * 4 + r]
            x1 = (((x1 << d) | (x1 >> (32 - d))) & M32) ^ x0
        x0 = (x0 + ks[(g + 1) % 3]) & M32
        x1 = (x1 + ks[(g + 2) % 3] + g + 1) & M32
    return x0, x1


def philox4x32(x, k0, k1):
    x = list(x)
    for _ in range(10):
        p0 = x[0] * 0xD2511F53
        p1 = x[2] * 0xCD9E8D57
        x = [(p1 >> 32) ^ x[1] ^ k0, p1 & M32, (p0 >> 32) ^ x[3] ^ k1,
             p0 & M32]
        k0 = (k0 + 0x9E3779B9) & M32
        k1 = (k1 + 0xBB67AE85) & M32
    return x


def rng_bit_generator(state, algorithm, dims, width):
    """Returns (new state as uint64 array, bits as Python ints, row-major)."""
    s = [int(v) for v in np.asarray(state, dtype=np.uint64)]
    key = s[0]
    k0, k1 = key & M32, key >> 32
    n = int(np.prod(dims)) if dims else 1
    new = list(s)
    bits = []
    if algorithm == "rng_three_fry":
        if width == 64:
            for e in range(n):
                c = (s[1] + e) & M64
                r0, r1 = threefry2x32(c & M32, c >> 32, k0, k1)
                bits.append(r0 | r1 << 32)
            new[1] = (s[1] + n) & M64
        elif not dims:
            c = s[1]
            bits.append(threefry2x32(c & M32, c >> 32, k0, k1)[0])
            new[1] = (s[1] + 1) & M64
        else:
            split = next((i for i, d in enumerate(dims) if d % 2 == 0), None)
            if split is None:
                split = max(range(len(dims)), key=lambda i: (dims[i], -i))
            half = list(dims)
            half[split] = (dims[split] + 1) // 2
            for idx in np.ndindex(*dims):
                h = list(idx)
                h[split] //= 2
                lin = int(np.ravel_multi_index(h, half))
                c = (s[1] + lin) & M64
                bits.append(threefry2x32(c & M32, c >> 32, k0, k1)
                            [idx[split] % 2])
            new[1] = (s[1] + int(np.prod(half))) & M64
    else:  # rng_philox, rng_default
        low = s[1]
        high = s[2] if len(s) >= 3 else s[0]
        words = 2 * n if width == 64 else n
        blocks = (words + 3) // 4

        def block(v):
            lo = (low + v) & M64
            hi = (high + (1 if lo < low else 0)) & M64
            return philox4x32([lo & M32, lo >> 32, hi & M32, hi >> 32],
                              k0, k1)
        for e in range(n):
            if width == 64:
                b = block(e // 2)
                w = (e % 2) * 2
                bits.append(b[w] | b[w + 1] << 32)
            else:
                bits.append(block(e // 4)[e % 4])
        lo = (low + blocks) & M64
        new[1] = lo
        if len(s) >= 3:
            new[2] = (high + (1 if lo < low else 0)) & M64
    return np.array(new, dtype=np.uint64), bits
