"""Shape ops (transpose, reshape, broadcast, slice, concat, embedding) and
dropout on the CPU backend against PyTorch and python/mixprec/philox.py.

The shape ops only move data (concat also widens 16-bit inputs to the
result type, which is exact), so their results must equal the references
bit for bit. Dropout's mask is Philox4x32-10 (docs/design.md §3) and must
equal `mixprec.philox.dropout_mask`; kept values are multiplied by
float32(1 / (1 - p)) in f32 and rounded once (`mixprec.philox.dropout`).
"""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

from mixprec.philox import dropout as philox_dropout
from mixprec.philox import dropout_mask

from harness import (TORCH_DTYPES, assert_close, module, op_function,
                     precompile, random, run, tensor_type)

# Every test runs on the CPU library and on its CUDA build (simulated).
pytestmark = pytest.mark.usefixtures("backend")

SHAPE = (37, 53)  # larger than a tile and not divisible by it
FLOAT_TYPES = ["f32", "f16", "bf16"]
BITS = {torch.float32: torch.int32, torch.float16: torch.int16,
        torch.bfloat16: torch.int16}


def values(shape, dtype, seed):
    """Random values of `dtype` (floats: normal; i1: random bits; integers:
    in [-1000, 1000))."""
    if dtype in FLOAT_TYPES:
        return random(shape, dtype, seed)
    generator = torch.Generator().manual_seed(seed)
    if dtype == "i1":
        return torch.randint(0, 2, shape, generator=generator).bool()
    return torch.randint(-1000, 1000, shape, generator=generator).to(
        TORCH_DTYPES[dtype])


def assert_identical(actual, expected):
    """Same dtype, shape and bits (NaNs only where expected has them)."""
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    if actual.dtype in BITS:
        nan = expected.isnan()
        assert torch.equal(actual.isnan(), nan)
        actual, expected = (t.masked_fill(nan, 0).view(BITS[t.dtype])
                            for t in (actual, expected))
    assert torch.equal(actual, expected)


# ---------------------------------------------------------------------------
# transpose
# ---------------------------------------------------------------------------

# name: (input shape, permutation)
TRANSPOSE_CONFIGS = {
    "r2": (SHAPE, (1, 0)),
    "r3": ((5, 37, 53), (2, 0, 1)),
    "r4": ((3, 1, 37, 19), (0, 2, 1, 3)),
}
TRANSPOSE_CASES = ([(config, dtype) for config in sorted(TRANSPOSE_CONFIGS)
                    for dtype in FLOAT_TYPES] +
                   [("r2", "i32"), ("r3", "i64"), ("r2", "i1")])


def transpose_function(config, dtype):
    shape, permutation = TRANSPOSE_CONFIGS[config]
    a = tensor_type(shape, dtype)
    r = tensor_type(tuple(shape[p] for p in permutation), dtype)
    return op_function(
        "transpose_%s_%s" % (config, dtype), [a], [r],
        "mixprec.transpose %%a0 {permutation = array<i64: %s>} : %s" % (
            ", ".join(map(str, permutation)), a))


TRANSPOSE = module([transpose_function(*case) for case in TRANSPOSE_CASES])


@pytest.mark.parametrize("config,dtype", TRANSPOSE_CASES,
                         ids=["%s-%s" % case for case in TRANSPOSE_CASES])
def test_transpose(config, dtype):
    shape, permutation = TRANSPOSE_CONFIGS[config]
    x = values(shape, dtype, 1)
    (y,) = run(TRANSPOSE, "transpose_%s_%s" % (config, dtype), [x])
    assert_identical(y, x.permute(*permutation).contiguous())


# ---------------------------------------------------------------------------
# reshape
# ---------------------------------------------------------------------------

def retype_function(op, config, shapes, dtype):
    """`@<op>_<config>_<dtype>`: the op `mixprec.<op> %a0 : A -> R` (reshape,
    broadcast) from `shapes` = (input shape, result shape)."""
    source, target = shapes
    a, r = tensor_type(source, dtype), tensor_type(target, dtype)
    return op_function("%s_%s_%s" % (op, config, dtype), [a], [r],
                       "mixprec.%s %%a0 : %s -> %s" % (op, a, r))


# name: (input shape, result shape)
RESHAPE_CONFIGS = {
    "flatten": (SHAPE, (37 * 53,)),
    "unflatten": ((37 * 53,), SHAPE),
    "regroup": (SHAPE, (53, 37)),  # neither a collapse nor an expansion
    "collapse": ((3, 37, 53), (111, 53)),
    "expand": ((111, 53), (3, 37, 53)),
    "unit_dims": (SHAPE, (1, 37, 1, 53, 1)),
    "mixed": ((6, 37, 53), (2, 3, 53, 37)),
}
RESHAPE_CASES = ([(config, dtype) for config in sorted(RESHAPE_CONFIGS)
                  for dtype in FLOAT_TYPES] +
                 [("regroup", "i64"), ("mixed", "i32"), ("expand", "i1")])


def reshape_function(config, dtype):
    return retype_function("reshape", config, RESHAPE_CONFIGS[config], dtype)


def reshape_through_0d_function(dtype):
    """1x1 -> 0-d -> 1x1x1: both directions of the 0-d reshape (a 0-d
    result is returned too)."""
    a, s, r = (tensor_type(shape, dtype) for shape in ((1, 1), (), (1, 1, 1)))
    return """
func.func @reshape_0d_%s(%%a0: %s) -> (%s, %s) {
  %%s = mixprec.reshape %%a0 : %s -> %s
  %%r = mixprec.reshape %%s : %s -> %s
  return %%s, %%r : %s, %s
}""" % (dtype, a, s, r, a, s, s, r, s, r)


RESHAPE = module([reshape_function(*case) for case in RESHAPE_CASES] +
                 [reshape_through_0d_function(dtype)
                  for dtype in FLOAT_TYPES])


@pytest.mark.parametrize("config,dtype", RESHAPE_CASES,
                         ids=["%s-%s" % case for case in RESHAPE_CASES])
def test_reshape(config, dtype):
    source, target = RESHAPE_CONFIGS[config]
    x = values(source, dtype, 2)
    (y,) = run(RESHAPE, "reshape_%s_%s" % (config, dtype), [x])
    assert_identical(y, x.reshape(target))


@pytest.mark.parametrize("dtype", FLOAT_TYPES)
def test_reshape_0d(dtype):
    x = torch.tensor([[-2.25]]).to(TORCH_DTYPES[dtype])
    scalar, cube = run(RESHAPE, "reshape_0d_%s" % dtype, [x])
    assert_identical(scalar, x.reshape(()))
    assert_identical(cube, x.reshape(1, 1, 1))


# ---------------------------------------------------------------------------
# broadcast
# ---------------------------------------------------------------------------

# name: (input shape, result shape)
BROADCAST_CONFIGS = {
    "row": ((53,), SHAPE),
    "column": ((37, 1), SHAPE),
    "leading": (SHAPE, (3, 37, 53)),
    "middle": ((5, 1, 53), (5, 37, 53)),
    "both": ((37, 1), (4, 37, 53)),
    "scalar_like": ((1,), (3, 37, 53)),
    "identity": (SHAPE, SHAPE),
}
BROADCAST_CASES = ([(config, dtype) for config in sorted(BROADCAST_CONFIGS)
                    for dtype in FLOAT_TYPES] +
                   [("column", "i1"), ("middle", "i64"), ("both", "i32")])


def broadcast_function(config, dtype):
    return retype_function("broadcast", config, BROADCAST_CONFIGS[config],
                           dtype)


BROADCAST = module([broadcast_function(*case) for case in BROADCAST_CASES])


@pytest.mark.parametrize("config,dtype", BROADCAST_CASES,
                         ids=["%s-%s" % case for case in BROADCAST_CASES])
def test_broadcast(config, dtype):
    source, target = BROADCAST_CONFIGS[config]
    x = values(source, dtype, 3)
    (y,) = run(BROADCAST, "broadcast_%s_%s" % (config, dtype), [x])
    assert_identical(y, x.expand(target).contiguous())


# ---------------------------------------------------------------------------
# slice
# ---------------------------------------------------------------------------

# name: (input shape, offsets, sizes, strides or None)
SLICE_CONFIGS = {
    "strided": (SHAPE, (1, 2), (12, 17), (3, 3)),
    "mixed_strides": (SHAPE, (0, 4), (37, 7), (1, 7)),
    "unit_strides": (SHAPE, (5, 7), (30, 40), None),
    "last_row": (SHAPE, (36, 0), (1, 53), None),
    "r3_strided": ((5, 37, 53), (1, 0, 3), (2, 37, 10), (2, 1, 5)),
    "to_end": (SHAPE, (2, 1), (12, 13), (3, 4)),  # ends at 35 and 49
}
SLICE_CASES = ([(config, dtype) for config in sorted(SLICE_CONFIGS)
                for dtype in FLOAT_TYPES] +
               [("strided", "i32"), ("r3_strided", "i64"), ("strided", "i1")])


def slice_function(config, dtype):
    shape, offsets, sizes, strides = SLICE_CONFIGS[config]
    a, r = tensor_type(shape, dtype), tensor_type(sizes, dtype)
    attrs = ["offsets = array<i64: %s>" % ", ".join(map(str, offsets)),
             "sizes = array<i64: %s>" % ", ".join(map(str, sizes))]
    if strides:
        attrs.append("strides = array<i64: %s>" % ", ".join(map(str, strides)))
    return op_function("slice_%s_%s" % (config, dtype), [a], [r],
                       "mixprec.slice %%a0 {%s} : %s" % (", ".join(attrs), a))


SLICE = module([slice_function(*case) for case in SLICE_CASES])


@pytest.mark.parametrize("config,dtype", SLICE_CASES,
                         ids=["%s-%s" % case for case in SLICE_CASES])
def test_slice(config, dtype):
    shape, offsets, sizes, strides = SLICE_CONFIGS[config]
    strides = strides or (1,) * len(shape)
    x = values(shape, dtype, 4)
    (y,) = run(SLICE, "slice_%s_%s" % (config, dtype), [x])
    index = tuple(slice(o, o + (n - 1) * s + 1, s)
                  for o, n, s in zip(offsets, sizes, strides))
    assert_identical(y, x[index].contiguous())


# ---------------------------------------------------------------------------
# concat
# ---------------------------------------------------------------------------

# name: (input shapes and types, axis, result type); the result type of
# mixed float inputs is the widest (f32 when f16 meets bf16).
CONCAT_CONFIGS = {
    "f32_axis1": ([((37, 20), "f32"), ((37, 33), "f32")], 1, "f32"),
    "f16_axis0": ([((20, 53), "f16"), ((17, 53), "f16")], 0, "f16"),
    "bf16_three": ([((37, 8), "bf16"), ((37, 1), "bf16"), ((37, 44), "bf16")],
                   1, "bf16"),
    "f16_f32": ([((20, 53), "f16"), ((17, 53), "f32")], 0, "f32"),
    "f32_bf16": ([((37, 30), "f32"), ((37, 23), "bf16")], 1, "f32"),
    "f16_bf16": ([((37, 8), "f16"), ((37, 45), "bf16")], 1, "f32"),
    "f16_bf16_f16": ([((37, 8), "f16"), ((37, 3), "bf16"),
                      ((37, 42), "f16")], 1, "f32"),
    "r3_axis2_i64": ([((2, 37, 20), "i64"), ((2, 37, 33), "i64")], 2, "i64"),
    "r3_axis1_i1": ([((2, 17, 53), "i1"), ((2, 20, 53), "i1")], 1, "i1"),
}


def concat_function(config):
    inputs, axis, result = CONCAT_CONFIGS[config]
    types = [tensor_type(shape, dtype) for shape, dtype in inputs]
    shape = list(inputs[0][0])
    shape[axis] = sum(s[axis] for s, _ in inputs)
    r = tensor_type(shape, result)
    operands = ", ".join("%%a%d" % i for i in range(len(inputs)))
    return op_function(
        "concat_" + config, types, [r],
        "mixprec.concat %s {axis = %d : i64} : %s" % (operands, axis,
                                                      ", ".join(types)))


CONCAT = module([concat_function(config) for config in sorted(CONCAT_CONFIGS)])


@pytest.mark.parametrize("config", sorted(CONCAT_CONFIGS))
def test_concat(config):
    inputs, axis, result = CONCAT_CONFIGS[config]
    xs = [values(shape, dtype, 5 + i)
          for i, (shape, dtype) in enumerate(inputs)]
    (y,) = run(CONCAT, "concat_" + config, xs)
    # Widening f16/bf16 to f32 is exact.
    expected = torch.cat([x.to(TORCH_DTYPES[result]) for x in xs], axis)
    assert_identical(y, expected)


# ---------------------------------------------------------------------------
# embedding
# ---------------------------------------------------------------------------

VOCAB, DIM = 97, 53
# name: indices shape
EMBEDDING_INDICES = {"r1": (37,), "r2": (37, 5), "r3": (2, 3, 7)}
EMBEDDING_CASES = [(config, table, index)
                   for config in sorted(EMBEDDING_INDICES)
                   for table in FLOAT_TYPES for index in ("i32", "i64")]


def embedding_name(config, table, index):
    return "embedding_%s_%s_%s" % (config, table, index)


def embedding_function(config, table, index):
    t = tensor_type((VOCAB, DIM), table)
    i = tensor_type(EMBEDDING_INDICES[config], index)
    r = tensor_type(EMBEDDING_INDICES[config] + (DIM,), table)
    return op_function(embedding_name(config, table, index), [t, i], [r],
                       "mixprec.embedding %%a0, %%a1 : %s, %s" % (t, i))


EMBEDDING = module([embedding_function(*case) for case in EMBEDDING_CASES])


@pytest.mark.parametrize("config,table,index", EMBEDDING_CASES,
                         ids=["%s-%s-%s" % case for case in EMBEDDING_CASES])
def test_embedding(config, table, index):
    weights = random((VOCAB, DIM), table, 6)
    generator = torch.Generator().manual_seed(7)
    indices = torch.randint(0, VOCAB, EMBEDDING_INDICES[config],
                            generator=generator)
    flat = indices.view(-1)
    flat[0], flat[-1] = 0, VOCAB - 1  # both ends of the table
    indices = indices.to(TORCH_DTYPES[index])
    (y,) = run(EMBEDDING, embedding_name(config, table, index),
               [weights, indices])
    assert_identical(y, F.embedding(indices.long(), weights))


# ---------------------------------------------------------------------------
# dropout
# ---------------------------------------------------------------------------

BIG = (317, 331)  # 104927 elements: keep rates within 1% of 1 - p
# name: (shape, type, p, stream, training)
DROPOUT_CONFIGS = {
    "p03_s5": (BIG, "f32", 0.3, 5, True),
    "p05_s0": (BIG, "f32", 0.5, 0, True),
    "p05_s1": (BIG, "f32", 0.5, 1, True),
    "p01_s4e9": (BIG, "f32", 0.1, 4000000000, True),  # above 2^31
    "p09_s2p32": (BIG, "f32", 0.9, 2 ** 32 + 7, True),  # above 2^32
    "f16_r3": ((7, 37, 53), "f16", 0.25, 3, True),
    "bf16": (SHAPE, "bf16", 0.4, 2, True),
    "eval_f32": (SHAPE, "f32", 0.5, 0, False),
    "eval_f16": (SHAPE, "f16", 0.5, 0, False),
    "eval_bf16": (SHAPE, "bf16", 0.5, 0, False),
}
RNG_TYPE = tensor_type((2,), "i64")
# (seed, offset): a negative seed, offsets beyond 2^32 and 2^63 - 1.
RNG_STATES = [(0x123456789ABCDEF0, 17), (-7, 2 ** 33 + 3), (42, 0),
              (2 ** 63 - 1, 2 ** 40 + 12345), (-(2 ** 63), 2 ** 63 - 1)]
BIG_CASES = [(config, state) for config in ("p03_s5", "p05_s0", "p01_s4e9",
                                            "p09_s2p32")
             for state in RNG_STATES[:3]] + [("p05_s1", RNG_STATES[3]),
                                              ("p03_s5", RNG_STATES[4])]


def dropout_function(config):
    shape, dtype, p, stream, training = DROPOUT_CONFIGS[config]
    t = tensor_type(shape, dtype)
    return op_function(
        "dropout_" + config, [t, RNG_TYPE], [t],
        "mixprec.dropout %%a0, %%a1 {p = %r : f64, stream = %d : i64, "
        "training = %s} : %s" % (p, stream, "true" if training else "false",
                                  t))


DROPOUT = module([dropout_function(config)
                  for config in sorted(DROPOUT_CONFIGS)])


def run_dropout(config, x, state):
    rng = torch.tensor(state, dtype=torch.int64)
    (y,) = run(DROPOUT, "dropout_" + config, [x, rng])
    return y


@pytest.mark.parametrize("config,state", BIG_CASES,
                         ids=["%s-seed%d-offset%d" % (c, *s)
                              for c, s in BIG_CASES])
def test_dropout(config, state):
    shape, _, p, stream, _ = DROPOUT_CONFIGS[config]
    seed, offset = state
    x = random(shape, "f32", 8)
    y = run_dropout(config, x, state)
    mask = dropout_mask(shape, seed, offset, stream, p)
    # The mask, bit for bit (x has no zeros, so the kept entries are y != 0).
    assert (x != 0).all()
    kept = (y != 0).numpy()
    assert kept.sum() == mask.sum()
    assert np.array_equal(kept, mask)
    # Keep rate within 1% of 1 - p.
    assert abs(kept.mean() - (1 - p)) < 0.01
    # Kept values are x * float32(1 / (1 - p)), dropped ones 0: exactly
    # mixprec.philox.dropout, and close to PyTorch's x * mask / (1 - p).
    expected = philox_dropout(x.numpy(), seed, offset, stream, p)
    assert_identical(y, torch.from_numpy(expected))
    scale = np.float32(1.0 / (1.0 - p))
    assert np.array_equal(y.numpy()[mask], x.numpy()[mask] * scale)
    assert_close(y, x * torch.from_numpy(mask) / (1 - p), "f32")


def test_dropout_f16_special_values():
    shape, _, p, stream, _ = DROPOUT_CONFIGS["f16_r3"]
    x = random(shape, "f16", 9)
    x.view(-1)[:6] = torch.tensor([float("inf"), -float("inf"), float("nan"),
                                   -1.0, 0.0, 65504.0]).half()
    seed, offset = -123456789, 2 ** 35 + 1
    y = run_dropout("f16_r3", x, (seed, offset))
    # Dropped Inf gives NaN, dropped negatives -0 (x * 0 as in PyTorch);
    # 65504 * 4/3 overflows to Inf when kept.
    with np.errstate(over="ignore"):
        expected = philox_dropout(x.numpy(), seed, offset, stream, p)
    assert_identical(y, torch.from_numpy(expected))
    ordinary = np.isfinite(x.numpy()) & (x.numpy() != 0)
    mask = dropout_mask(shape, seed, offset, stream, p)
    assert np.array_equal((y.numpy() != 0)[ordinary], mask[ordinary])


def test_dropout_bf16():
    shape, _, p, stream, _ = DROPOUT_CONFIGS["bf16"]
    x = random(shape, "bf16", 10)
    seed, offset = 1, 2
    y = run_dropout("bf16", x, (seed, offset))
    mask = dropout_mask(shape, seed, offset, stream, p)
    # numpy has no bf16: philox.dropout's rule (f32 product, one rounding).
    factor = torch.from_numpy(
        np.where(mask, np.float32(1.0 / (1.0 - p)), np.float32(0.0)))
    assert_identical(y, (x.float() * factor).bfloat16())


@pytest.mark.parametrize("dtype", FLOAT_TYPES)
def test_dropout_eval_is_identity(dtype):
    x = random(SHAPE, dtype, 11)
    y = run_dropout("eval_" + dtype, x, (42, 7))
    assert_identical(y, x)


def test_dropout_streams_differ():
    x = random(BIG, "f32", 12)
    seed, offset = 42, 0
    masks = []
    for config in ("p05_s0", "p05_s1"):
        y = run_dropout(config, x, (seed, offset))
        masks.append((y != 0).numpy())
        assert np.array_equal(masks[-1], dropout_mask(
            BIG, seed, offset, DROPOUT_CONFIGS[config][3], 0.5))
    # Independent masks with p = 0.5 disagree on about half of the entries.
    assert abs((masks[0] != masks[1]).mean() - 0.5) < 0.01


def test_dropout_state_changes_mask():
    """The same op with another seed, or another offset, draws another
    mask."""
    x = random(BIG, "f32", 13)
    base = (run_dropout("p05_s0", x, (42, 0)) != 0).numpy()
    for state in [(43, 0), (42, 1), (42 + 2 ** 32, 0)]:
        other = (run_dropout("p05_s0", x, state) != 0).numpy()
        assert np.array_equal(other, dropout_mask(BIG, *state, 0, 0.5))
        assert abs((base != other).mean() - 0.5) < 0.01


@pytest.fixture(scope="module", autouse=True)
def _precompiled():
    """Compiles every module of this file concurrently before its tests."""
    precompile([TRANSPOSE, RESHAPE, BROADCAST, SLICE, CONCAT, EMBEDDING,
                DROPOUT])
