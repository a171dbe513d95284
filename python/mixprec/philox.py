"""Reference Philox4x32-10 and the dropout mask of `mixprec.dropout`.

This is the numpy twin of the generator that `--convert-mixprec-to-linalg`
emits for `mixprec.dropout` (lib/Conversion/MixprecToLinalg/ShapeLowering.cpp);
tests compare compiled masks against it bit for bit.

Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3",
SC 2011; the Random123 reference): a 4 x u32 counter and a 2 x u32 key, ten
rounds, the key bumped by (W0, W1) between rounds:

    (lo0, hi0) = M0 * c0,  (lo1, hi1) = M1 * c2        (64-bit products)
    c = (hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0)

Dropout layout (the contract every backend implements):

    key     k0 = seed & 0xffffffff,    k1 = seed >> 32        (seed = rng[0])
    counter c0 = i & 0xffffffff,       c1 = i >> 32           (i = row-major
                                                               linear element
                                                               index)
            c2 = stream & 0xffffffff   (the op's `stream` attribute)
            c3 = offset & 0xffffffff   (offset = rng[1])
    r       = output word 0
    keep    iff r >= p * 2^32   (i.e. r >= ceil(p * 2^32); uniform r / 2^32 >= p)
    y       = x * (keep ? float32(1 / (1 - p)) : 0)   in f32, rounded once to
                                                       x's type

The seed and offset are the two i64 words of the RNG state, read as their
two's-complement 64-bit patterns.
"""

import math

import numpy as np

M0 = 0xD2511F53
M1 = 0xCD9E8D57
W0 = 0x9E3779B9
W1 = 0xBB67AE85
_MASK = np.uint64(0xFFFFFFFF)
_SHIFT = np.uint64(32)


def _u32(value):
    """`value` (int or array) as uint64 holding its low 32 bits."""
    if isinstance(value, (int, np.integer)):
        return np.uint64(int(value) & 0xFFFFFFFF)
    return np.asarray(value).astype(np.uint64) & _MASK


def philox4x32_10(counter, key):
    """Philox4x32-10 of `counter` (4 words) under `key` (2 words).

    Each word is an int or an integer array (arrays broadcast against each
    other); only its low 32 bits are used. Returns a uint32 array of shape
    `(4,) + broadcast shape`: the four output words.

    >>> [hex(int(w)) for w in philox4x32_10((0, 0, 0, 0), (0, 0))]
    ['0x6627e8d5', '0xe169c58d', '0xbc57ac4c', '0x9b00dbd8']
    """
    c0, c1, c2, c3 = (_u32(word) for word in counter)
    k0, k1 = (_u32(word) for word in key)
    m0, m1 = np.uint64(M0), np.uint64(M1)
    w0, w1 = np.uint64(W0), np.uint64(W1)
    for round_index in range(10):
        if round_index:
            k0 = (k0 + w0) & _MASK
            k1 = (k1 + w1) & _MASK
        # Both factors are below 2^32: the products fit in uint64.
        p0 = c0 * m0
        p1 = c2 * m1
        hi0, lo0 = p0 >> _SHIFT, p0 & _MASK
        hi1, lo1 = p1 >> _SHIFT, p1 & _MASK
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
    return np.stack(np.broadcast_arrays(c0, c1, c2, c3)).astype(np.uint32)


def keep_threshold(p):
    """The smallest u32 `r` that keeps an element: ceil(p * 2^32).

    2^32 (nothing kept) when p is within 2^-32 of 1.
    """
    if not 0.0 <= p < 1.0:
        raise ValueError(f"p must be in [0, 1), got {p}")
    return math.ceil(p * 2.0**32)  # exact: p * 2^32 only shifts the exponent


def dropout_mask(shape, seed, offset, stream, p):
    """Boolean keep-mask of `mixprec.dropout` over a row-major `shape`.

    `seed` and `offset` are the two words of the op's `rng` operand
    (tensor<2xi64>; negative values are taken as their 64-bit patterns);
    `stream` the op's attribute; `p` the drop probability.
    """
    shape = tuple(int(d) for d in shape)
    count = math.prod(shape)
    index = np.arange(count, dtype=np.uint64)
    seed = int(seed) & 0xFFFFFFFFFFFFFFFF
    words = philox4x32_10(
        (index & _MASK, index >> _SHIFT, stream, offset),
        (seed & 0xFFFFFFFF, seed >> 32),
    )
    r = words[0].astype(np.uint64)
    return (r >= np.uint64(keep_threshold(p))).reshape(shape)


def dropout(x, seed, offset, stream, p, training=True):
    """Reference result of `mixprec.dropout` on a numpy array `x`.

    Kept elements are multiplied by float32(1 / (1 - p)) in f32 and dropped
    ones by 0 (so a dropped Inf/NaN gives NaN, a dropped negative -0, as
    PyTorch's `x * mask * scale`); the f32 product is rounded once to x's
    dtype. With `training=False` or `p == 0` it returns `x` unchanged.
    """
    x = np.asarray(x)
    if not training or p == 0.0:
        return x.copy()
    mask = dropout_mask(x.shape, seed, offset, stream, p)
    scale = np.float32(1.0 / (1.0 - p))
    factor = np.where(mask, scale, np.float32(0.0)).astype(np.float32)
    with np.errstate(invalid="ignore"):
        return (x.astype(np.float32) * factor).astype(x.dtype)


if __name__ == "__main__":
    # Random123 known-answer vectors (tests/kat_vectors, philox4x32 10).
    vectors = [
        ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
        ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2,
         (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
        ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
         (0xA4093822, 0x299F31D0),
         (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
    ]
    for counter, key, expected in vectors:
        got = tuple(int(w) for w in philox4x32_10(counter, key))
        assert got == expected, (counter, key, [hex(w) for w in got])
    mask = dropout_mask((1000, 100), seed=1234, offset=7, stream=3, p=0.25)
    print("known-answer vectors pass; keep rate", mask.mean())
