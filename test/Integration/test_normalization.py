"""Softmax, normalizations, reductions, losses and all_finite on the CPU
backend against PyTorch.

These are FP32-category ops (reduce_max follows its input): statistics and
sums are f32 whatever the input type, and a 16-bit result is rounded once
when it is stored (docs/design.md §4). The references compute in float64 on
the same (16-bit) input values; assert_close rounds them once to the result
type.
"""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

from harness import (TORCH_DTYPES, assert_close, module, op_function,
                     precompile, random, random_exact, random_positive, run,
                     tensor_type)

# Every test runs on the CPU library and on its CUDA build (simulated).
pytestmark = pytest.mark.usefixtures("backend")

FLOAT_TYPES = ["f32", "f16", "bf16"]
INF = float("inf")
NAN = float("nan")

# ---------------------------------------------------------------------------
# softmax and log_softmax
# ---------------------------------------------------------------------------

# Sizes larger than the CPU backend's tiles (about 8x32x16), divisible by
# none of them.
SOFTMAX_CASES = [(shape, axis, dtype)
                 for shape in [(37, 53), (3, 37, 29)]
                 for axis in range(len(shape)) for dtype in FLOAT_TYPES]
TORCH_SOFTMAX = {"softmax": torch.softmax, "log_softmax": torch.log_softmax}


def softmax_name(op, shape, axis, dtype):
    return "%s_r%d_a%d_%s" % (op, len(shape), axis, dtype)


def softmax_module(op):
    functions = []
    for shape, axis, dtype in SOFTMAX_CASES:
        t = tensor_type(shape, dtype)
        functions.append(op_function(
            softmax_name(op, shape, axis, dtype), [t], [t],
            "mixprec.%s %%a0 {axis = %d : i64} : %s" % (op, axis, t)))
    return module(functions)


SOFTMAX = {op: softmax_module(op) for op in TORCH_SOFTMAX}


def masked(x, axis, seed):
    """`x` with about a third of its entries -inf, but never a whole slice
    along `axis` (the first entry of each slice stays)."""
    generator = torch.Generator().manual_seed(seed)
    mask = torch.rand(x.shape, generator=generator) < 0.35
    mask.select(axis, 0).fill_(False)
    return x.masked_fill(mask, -INF)


@pytest.mark.parametrize("op", sorted(TORCH_SOFTMAX))
@pytest.mark.parametrize(
    "shape,axis,dtype", SOFTMAX_CASES,
    ids=["r%d-axis%d-%s" % (len(s), a, d) for s, a, d in SOFTMAX_CASES])
def test_softmax(op, shape, axis, dtype):
    name = softmax_name(op, shape, axis, dtype)
    plain = random(shape, dtype, 60, scale=3.0)
    inputs = [
        plain,
        # -inf entries: masked out, 0 in softmax and -inf in log_softmax.
        masked(plain, axis, 61),
        # Large logits: e^x overflows unless the maximum is subtracted.
        (random(shape, "f32", 62, scale=3.0) + 1000.0).to(TORCH_DTYPES[dtype]),
    ]
    for x in inputs:
        (y,) = run(SOFTMAX[op], name, [x])
        expected = TORCH_SOFTMAX[op](x.double(), axis)
        assert expected.isfinite().any()
        assert_close(y, expected, dtype)


# ---------------------------------------------------------------------------
# layer_norm
# ---------------------------------------------------------------------------

def spread_out(shape, axis, seed, mean_to_std=0.4, dims=None):
    """Random values whose standard deviation (0.75 to ~5) and mean (about
    `mean_to_std` standard deviations) differ per slice of the dims before
    `axis` (or per index of the dims in `dims`), so that statistics mixed up
    between slices show."""
    dims = range(axis) if dims is None else dims
    stat_shape = tuple(s if d in dims else 1 for d, s in enumerate(shape))
    spread = random_positive(stat_shape, "f32", seed) + 0.5
    offset = random(stat_shape, "f32", seed + 1) * spread * mean_to_std
    return random(shape, "f32", seed + 2) * spread + offset


# Means within about 0.4 standard deviations and at most ~1000 normalized
# values: the FP32 tolerance holds there; beyond, see the accuracy tests at
# the end of this file.
LAYER_NORM_SHAPE = (2, 13, 37)
# (axis, eps): the normalized dims are [axis, rank).
LAYER_NORM_AXES = [(2, 1e-5), (1, 1e-3), (0, 1e-5)]
LAYER_NORM_CASES = [(axis, eps, affine, dtype)
                    for axis, eps in LAYER_NORM_AXES
                    for affine in (True, False) for dtype in FLOAT_TYPES]


def layer_norm_name(axis, affine, dtype):
    return "layer_norm_a%d_%s_%s" % (axis, "affine" if affine else "plain",
                                     dtype)


def layer_norm_function(axis, eps, affine, dtype):
    t = tensor_type(LAYER_NORM_SHAPE, dtype)
    p = tensor_type(LAYER_NORM_SHAPE[axis:], dtype)
    attrs = "{axis = %d : i64, eps = %e : f64}" % (axis, eps)
    if affine:
        return op_function(layer_norm_name(axis, affine, dtype), [t, p, p],
                           [t], "mixprec.layer_norm %%a0 scale %%a1 bias %%a2 "
                           "%s : %s, %s, %s" % (attrs, t, p, p))
    return op_function(layer_norm_name(axis, affine, dtype), [t], [t],
                       "mixprec.layer_norm %%a0 %s : %s" % (attrs, t))


LAYER_NORM = module([layer_norm_function(*case) for case in LAYER_NORM_CASES])


@pytest.mark.parametrize(
    "axis,eps,affine,dtype", LAYER_NORM_CASES,
    ids=["axis%d-%s-%s" % (a, "affine" if f else "plain", d)
         for a, _, f, d in LAYER_NORM_CASES])
def test_layer_norm(axis, eps, affine, dtype):
    x = spread_out(LAYER_NORM_SHAPE, axis, 70).to(TORCH_DTYPES[dtype])
    normalized = LAYER_NORM_SHAPE[axis:]
    inputs = [x]
    weight = bias = None
    if affine:
        weight = random(normalized, dtype, 72)
        bias = random(normalized, dtype, 73)
        inputs += [weight, bias]
    (y,) = run(LAYER_NORM, layer_norm_name(axis, affine, dtype), inputs)
    expected = F.layer_norm(x.double(), normalized,
                            weight.double() if affine else None,
                            bias.double() if affine else None, eps=eps)
    assert_close(y, expected, dtype)


# ---------------------------------------------------------------------------
# batch_norm
# ---------------------------------------------------------------------------

# rank: (input shape, momentum, eps); rank 2 keeps the defaults.
BATCH_NORM_SHAPES = {2: ((53, 37), 0.1, 1e-5), 4: ((5, 7, 11, 13), 0.3, 1e-3)}
BATCH_NORM_CASES = [(rank, training, affine, dtype) for rank in (2, 4)
                    for training in (True, False) for affine in (True, False)
                    for dtype in FLOAT_TYPES]


def batch_norm_name(rank, training, affine, dtype):
    return "batch_norm_r%d_%s_%s_%s" % (
        rank, "train" if training else "eval",
        "affine" if affine else "plain", dtype)


def batch_norm_function(rank, training, affine, dtype):
    shape, momentum, eps = BATCH_NORM_SHAPES[rank]
    channels = shape[1]
    t = tensor_type(shape, dtype)
    s = tensor_type((channels,), "f32")
    p = tensor_type((channels,), dtype)
    attrs = []
    if not training:
        attrs.append("training = false")
    if rank == 4:  # rank 2 takes the default momentum and eps
        attrs += ["momentum = %e : f64" % momentum, "eps = %e : f64" % eps]
    attr_text = "{%s} " % ", ".join(attrs) if attrs else ""
    if affine:
        return op_function(
            batch_norm_name(rank, training, affine, dtype), [t, s, s, p, p],
            [t, s, s], "mixprec.batch_norm %%a0, %%a1, %%a2 scale %%a3 bias "
            "%%a4 %s: %s, %s, %s, %s" % (attr_text, t, s, p, p))
    return op_function(
        batch_norm_name(rank, training, affine, dtype), [t, s, s], [t, s, s],
        "mixprec.batch_norm %%a0, %%a1, %%a2 %s: %s, %s" % (attr_text, t, s))


BATCH_NORM = module([batch_norm_function(*case) for case in BATCH_NORM_CASES])


@pytest.mark.parametrize(
    "rank,training,affine,dtype", BATCH_NORM_CASES,
    ids=["rank%d-%s-%s-%s" % (r, "train" if t else "eval",
                              "affine" if a else "plain", d)
         for r, t, a, d in BATCH_NORM_CASES])
def test_batch_norm(rank, training, affine, dtype):
    shape, momentum, eps = BATCH_NORM_SHAPES[rank]
    channels = shape[1]
    x = spread_out(shape, None, 80, dims=(1,)).to(TORCH_DTYPES[dtype])
    running_mean = random((channels,), "f32", 83)
    running_var = random_positive((channels,), "f32", 84)
    inputs = [x, running_mean, running_var]
    weight = bias = None
    if affine:
        weight = random((channels,), dtype, 85)
        bias = random((channels,), dtype, 86)
        inputs += [weight, bias]
    y, mean_out, var_out = run(
        BATCH_NORM, batch_norm_name(rank, training, affine, dtype), inputs)

    # PyTorch updates the running statistics in place.
    expected_mean = running_mean.double().clone()
    expected_var = running_var.double().clone()
    expected = F.batch_norm(x.double(), expected_mean, expected_var,
                            weight.double() if affine else None,
                            bias.double() if affine else None,
                            training=training, momentum=momentum, eps=eps)
    assert_close(y, expected, dtype)
    if training:
        assert not torch.equal(expected_mean.float(), running_mean)
        assert_close(mean_out, expected_mean, "f32")
        assert_close(var_out, expected_var, "f32")
    else:
        assert torch.equal(mean_out, running_mean)
        assert torch.equal(var_out, running_var)


# ---------------------------------------------------------------------------
# reduce_sum, reduce_mean, reduce_max
# ---------------------------------------------------------------------------

REDUCE_SHAPE = (3, 37, 53)
REDUCE_DIMS = [(0,), (1,), (2,), (0, 2), (1, 2), (0, 1), (0, 1, 2)]
REDUCE_CASES = (
    [(dims, keepdim, "f32") for dims in REDUCE_DIMS
     for keepdim in (False, True)] +
    [(dims, keepdim, dtype) for dtype in ("f16", "bf16")
     for dims, keepdim in [((1,), False), ((0, 2), True),
                           ((0, 1, 2), False)]])
TORCH_REDUCE = {
    "reduce_sum": lambda x, dims, keepdim: x.sum(dims, keepdim=keepdim),
    "reduce_mean": lambda x, dims, keepdim: x.mean(dims, keepdim=keepdim),
    "reduce_max": lambda x, dims, keepdim: x.amax(dims, keepdim=keepdim),
}


def reduce_name(op, dims, keepdim, dtype):
    return "%s_d%s_%s_%s" % (op, "".join(map(str, dims)),
                             "keep" if keepdim else "drop", dtype)


def reduce_module(op):
    functions = []
    for dims, keepdim, dtype in REDUCE_CASES:
        shape = [1 if d in dims else s for d, s in enumerate(REDUCE_SHAPE)
                 if keepdim or d not in dims]
        t, r = tensor_type(REDUCE_SHAPE, dtype), tensor_type(shape, dtype)
        functions.append(op_function(
            reduce_name(op, dims, keepdim, dtype), [t], [r],
            "mixprec.%s %%a0 {dims = array<i64: %s>%s} : %s" % (
                op, ", ".join(map(str, dims)),
                ", keepdim" if keepdim else "", t)))
    return module(functions)


REDUCE = {op: reduce_module(op) for op in TORCH_REDUCE}


@pytest.mark.parametrize("op", sorted(TORCH_REDUCE))
@pytest.mark.parametrize(
    "dims,keepdim,dtype", REDUCE_CASES,
    ids=["dims%s-%s-%s" % ("".join(map(str, d)), "keep" if k else "drop", t)
         for d, k, t in REDUCE_CASES])
def test_reduce(op, dims, keepdim, dtype):
    # Positive values with full mantissas (sums meet the FP32 tolerance),
    # signed values whose sums are exact (cancellation) and negative values
    # (a maximum that starts from 0 rather than -inf shows).
    for x in (random_positive(REDUCE_SHAPE, dtype, 90),
              random_exact(REDUCE_SHAPE, dtype, 91),
              random(REDUCE_SHAPE, dtype, 92) - 5.0):
        (y,) = run(REDUCE[op], reduce_name(op, dims, keepdim, dtype), [x])
        expected = TORCH_REDUCE[op](x.double(), dims, keepdim)
        assert y.shape == expected.shape
        assert_close(y, expected, dtype)


@pytest.mark.parametrize("dtype", FLOAT_TYPES)
def test_reduce_max_propagates_nan_and_inf(dtype):
    x = random(REDUCE_SHAPE, "f32", 93) - 5.0
    x[0, 0, 0] = NAN
    x[1, 36, 52] = NAN
    x[2, 5, 7] = INF
    x[2, 6, :] = -INF  # a row of -inf reduces to -inf
    x = x.to(TORCH_DTYPES[dtype])
    cases = [c[:2] for c in REDUCE_CASES if c[2] == dtype and len(c[0]) < 3]
    assert ((0, 2), True) in cases
    for dims, keepdim in cases:
        (y,) = run(REDUCE["reduce_max"],
                   reduce_name("reduce_max", dims, keepdim, dtype), [x])
        expected = x.double().amax(dims, keepdim=keepdim)
        assert expected.isnan().any() and expected.isinf().any()
        assert torch.equal(y.float().isnan(), expected.isnan())
        assert_close(y, expected, dtype)


# ---------------------------------------------------------------------------
# softmax_cross_entropy and mse
# ---------------------------------------------------------------------------

BATCH, CLASSES = 53, 37
LOSS_CASES = [(labels, reduction, dtype) for labels in ("i32", "i64")
              for reduction in ("mean", "sum") for dtype in FLOAT_TYPES]
MSE_CASES = [(reduction, dtype) for reduction in ("mean", "sum")
             for dtype in FLOAT_TYPES]
MSE_SHAPE = (37, 53)


def cross_entropy_name(labels, reduction, dtype):
    return "cross_entropy_%s_%s_%s" % (labels, reduction, dtype)


def cross_entropy_function(labels, reduction, dtype):
    x = tensor_type((BATCH, CLASSES), dtype)
    y = tensor_type((BATCH,), labels)
    r = tensor_type((), dtype)
    return op_function(
        cross_entropy_name(labels, reduction, dtype), [x, y], [r],
        "mixprec.softmax_cross_entropy %%a0, %%a1 {reduction = #mixprec<"
        "reduction %s>} : %s, %s" % (reduction, x, y))


def mse_function(reduction, dtype):
    t = tensor_type(MSE_SHAPE, dtype)
    return op_function(
        "mse_%s_%s" % (reduction, dtype), [t, t], [tensor_type((), dtype)],
        "mixprec.mse %%a0, %%a1 {reduction = #mixprec<reduction %s>} : "
        "%s, %s" % (reduction, t, t))


LOSSES = module([cross_entropy_function(*case) for case in LOSS_CASES] +
                [mse_function(*case) for case in MSE_CASES])


@pytest.mark.parametrize(
    "labels,reduction,dtype", LOSS_CASES,
    ids=["-".join(case) for case in LOSS_CASES])
def test_softmax_cross_entropy(labels, reduction, dtype):
    logits = random((BATCH, CLASSES), dtype, 100, scale=3.0)
    generator = torch.Generator().manual_seed(101)
    targets = torch.randint(0, CLASSES, (BATCH,), generator=generator)
    targets[0], targets[-1] = 0, CLASSES - 1  # both ends of the classes
    targets = targets.to(TORCH_DTYPES[labels])
    for x in (logits, (logits.float() + 500.0).to(TORCH_DTYPES[dtype])):
        (loss,) = run(LOSSES, cross_entropy_name(labels, reduction, dtype),
                      [x, targets])
        expected = F.cross_entropy(x.double(), targets.long(),
                                   reduction=reduction)
        assert loss.shape == ()
        assert_close(loss, expected, dtype)


@pytest.mark.parametrize("reduction,dtype", MSE_CASES,
                         ids=["-".join(case) for case in MSE_CASES])
def test_mse(reduction, dtype):
    x = random(MSE_SHAPE, dtype, 110)
    target = random(MSE_SHAPE, dtype, 111)
    (loss,) = run(LOSSES, "mse_%s_%s" % (reduction, dtype), [x, target])
    expected = F.mse_loss(x.double(), target.double(), reduction=reduction)
    assert loss.shape == ()
    assert_close(loss, expected, dtype)


# ---------------------------------------------------------------------------
# all_finite
# ---------------------------------------------------------------------------

ALL_FINITE_INPUTS = [((37, 53), "f32"), ((29,), "f16"), ((3, 5, 7), "bf16")]
ALL_FINITE = module([
    op_function("all_finite3", [tensor_type(s, d) for s, d in
                                ALL_FINITE_INPUTS],
                ["tensor<i1>", "tensor<3xi1>"],
                "mixprec.all_finite %a0, %a1, %a2 : " + ", ".join(
                    tensor_type(s, d) for s, d in ALL_FINITE_INPUTS)),
    op_function("all_finite1", [tensor_type((37, 53), "f16")],
                ["tensor<i1>", "tensor<1xi1>"],
                "mixprec.all_finite %a0 : " + tensor_type((37, 53), "f16")),
])


def finite_inputs():
    tensors = [random(shape, dtype, 120 + i)
               for i, (shape, dtype) in enumerate(ALL_FINITE_INPUTS)]
    # The largest finite values and subnormals are finite.
    tensors[0][0, 0] = 3.4028234663852886e38
    tensors[0][36, 52] = 1e-45
    tensors[1][0] = 65504.0
    tensors[1][28] = -6e-8
    tensors[2][2, 4, 6] = -3.3895313892515355e38
    return tensors


# (input, index, value): one non-finite element per case, first, last or in
# the middle of an input.
NON_FINITE = [(0, (36, 52), INF), (0, (0, 0), NAN), (0, (17, 30), -INF),
              (1, (0,), NAN), (1, (28,), INF), (1, (13,), -INF),
              (2, (0, 0, 0), -INF), (2, (2, 4, 6), NAN), (2, (1, 2, 3), INF)]


def check_all_finite(function, inputs):
    result, each = run(ALL_FINITE, function, inputs)
    expected = [bool(t.float().isfinite().all()) for t in inputs]
    assert result.dtype == torch.bool and result.shape == ()
    assert bool(result) == all(expected)
    assert each.dtype == torch.bool and each.tolist() == expected


def test_all_finite_of_finite_inputs():
    inputs = finite_inputs()
    assert all(bool(t.isfinite().all()) for t in inputs)
    check_all_finite("all_finite3", inputs)


@pytest.mark.parametrize("which,index,value", NON_FINITE,
                         ids=["input%d-%s-%s" % (w, "x".join(map(str, i)), v)
                              for w, i, v in NON_FINITE])
def test_all_finite_detects(which, index, value):
    inputs = finite_inputs()
    inputs[which][index] = value
    check_all_finite("all_finite3", inputs)


def test_all_finite_f16_overflow():
    x = random((37, 53), "f16", 130)
    check_all_finite("all_finite1", [x])
    # 65520 rounds to +inf in f16: the overflow a loss scale must catch.
    x[20, 40] = torch.tensor(65520.0).half()
    assert x[20, 40].isinf()
    check_all_finite("all_finite1", [x])


# ---------------------------------------------------------------------------
# Accuracy of long f32 accumulations
# ---------------------------------------------------------------------------

LONG_SUM_SHAPE = (1024, 1024)
LONG_LAYER_NORM_SHAPE = (3, 37, 53)
ACCURACY = module([
    op_function("reduce_sum_long", [tensor_type(LONG_SUM_SHAPE, "f32")],
                ["tensor<f32>"], "mixprec.reduce_sum %%a0 {dims = array<i64: "
                "0, 1>} : %s" % tensor_type(LONG_SUM_SHAPE, "f32")),
    op_function("layer_norm_long", [tensor_type(LONG_LAYER_NORM_SHAPE, "f32")],
                [tensor_type(LONG_LAYER_NORM_SHAPE, "f32")],
                "mixprec.layer_norm %%a0 {axis = 1 : i64} : %s"
                % tensor_type(LONG_LAYER_NORM_SHAPE, "f32")),
])

# A long sum (a reduction, the mean and variance of layer_norm and
# batch_norm) is summed in chunks of at most 256 elements, then the chunks'
# sums in order, again in chunks when they are many (docs/design.md §4): its
# error bound grows with 256 per level of chunks (log256 of the element
# count), not with the count, as a single f32 accumulator's did (these
# three tests failed then).


def check_against_torch_f32(actual, expected, torch_f32):
    """The FP32 check of `actual`, after making sure that PyTorch's own f32
    computation `torch_f32` meets it (else the data, not mixprec, is at
    fault)."""
    try:
        assert_close(torch_f32, expected, "f32")
    except AssertionError as error:
        pytest.fail("PyTorch f32 misses the tolerance itself: %s" % error)
    assert_close(actual, expected, "f32")


def test_reduce_sum_long_accuracy():
    # 2^20 positive values (no cancellation): one f32 accumulator is off by
    # about 8e-5 relative here, PyTorch's (cascaded) f32 sum by about 1e-8.
    x = random_positive(LONG_SUM_SHAPE, "f32", 140)
    (y,) = run(ACCURACY, "reduce_sum_long", [x])
    check_against_torch_f32(y, x.double().sum(), x.sum())


def test_layer_norm_accuracy_with_large_mean():
    # Rows of 37 * 53 values whose mean is five standard deviations: the f32
    # mean of one accumulator is off by more than 1e-6 standard deviations.
    x = random(LONG_LAYER_NORM_SHAPE, "f32", 141) * 2.0 + 10.0
    (y,) = run(ACCURACY, "layer_norm_long", [x])
    normalized = LONG_LAYER_NORM_SHAPE[1:]
    check_against_torch_f32(y, F.layer_norm(x.double(), normalized),
                            F.layer_norm(x, normalized))


def test_batch_norm_accuracy_with_large_mean():
    # 715 values per channel whose mean is about five standard deviations
    # (activations after a ReLU or a bias look like this).
    shape, momentum, eps = BATCH_NORM_SHAPES[4]
    channels = shape[1]
    spread = (random_positive((channels,), "f32", 142) + 0.5).view(
        1, channels, 1, 1)
    x = (random(shape, "f32", 143) + 5.0) * spread
    running_mean = torch.zeros(channels)
    running_var = torch.ones(channels)
    y, _, _ = run(BATCH_NORM, batch_norm_name(4, True, False, "f32"),
                  [x, running_mean, running_var])
    expected = F.batch_norm(x.double(), running_mean.double(),
                            running_var.double(), training=True,
                            momentum=momentum, eps=eps)
    torch_f32 = F.batch_norm(x, running_mean.clone(), running_var.clone(),
                             training=True, momentum=momentum, eps=eps)
    check_against_torch_f32(y, expected, torch_f32)


# ---------------------------------------------------------------------------
# Rows in blocks of 16 lanes
# ---------------------------------------------------------------------------

# Rows that reduce in blocks of 16 lanes (--mixprec-reduce-across-lanes)
# read as 16x16 blocks transposed in registers
# (--mixprec-transpose-lane-blocks): 32 rows of 64, a multiple of 16 both
# ways, which the shapes above are not.
BLOCK_SHAPE = (32, 64)
BLOCK_LN_SHAPE = (2, 32, 64)
BLOCKS = module(
    [op_function("row_sums", [tensor_type(BLOCK_SHAPE, "f32")],
                 [tensor_type(BLOCK_SHAPE[:1], "f32")],
                 "mixprec.reduce_sum %%a0 {dims = array<i64: 1>} : %s"
                 % tensor_type(BLOCK_SHAPE, "f32"))] +
    [op_function("%s_%s" % (op, dtype), [tensor_type(BLOCK_SHAPE, dtype)],
                 [tensor_type(BLOCK_SHAPE, dtype)],
                 "mixprec.%s %%a0 {axis = 1 : i64} : %s"
                 % (op, tensor_type(BLOCK_SHAPE, dtype)))
     for op in TORCH_SOFTMAX for dtype in ("f32", "bf16")] +
    [op_function("layer_norm_%s" % dtype,
                 [tensor_type(BLOCK_LN_SHAPE, dtype)] +
                 [tensor_type(BLOCK_LN_SHAPE[2:], dtype)] * 2,
                 [tensor_type(BLOCK_LN_SHAPE, dtype)],
                 "mixprec.layer_norm %%a0 scale %%a1 bias %%a2 {axis = 2 : "
                 "i64, eps = 1.0e-05 : f64} : %s, %s, %s"
                 % (tensor_type(BLOCK_LN_SHAPE, dtype),
                    tensor_type(BLOCK_LN_SHAPE[2:], dtype),
                    tensor_type(BLOCK_LN_SHAPE[2:], dtype)))
     for dtype in ("f32", "bf16")])


def test_row_sums_in_blocks_add_each_row_in_order():
    # Values of mixed magnitudes: any other order (pairs, a tree) rounds
    # some of the 32 sums differently from one f32 accumulator that adds
    # the row's elements one after the other, which numpy's cumsum is.
    x = random(BLOCK_SHAPE, "f32", 150) * torch.exp(
        random(BLOCK_SHAPE, "f32", 151) * 4.0)
    (y,) = run(BLOCKS, "row_sums", [x])
    in_order = np.cumsum(x.numpy(), axis=1, dtype=np.float32)[:, -1]
    assert np.array_equal(y.numpy(), in_order)


@pytest.mark.parametrize("dtype", ["f32", "bf16"])
@pytest.mark.parametrize("op", sorted(TORCH_SOFTMAX))
def test_softmax_in_blocks(op, dtype):
    plain = random(BLOCK_SHAPE, dtype, 152, scale=3.0)
    for x in (plain, masked(plain, 1, 153)):
        (y,) = run(BLOCKS, "%s_%s" % (op, dtype), [x])
        assert_close(y, TORCH_SOFTMAX[op](x.double(), 1), dtype)


@pytest.mark.parametrize("dtype", ["f32", "bf16"])
def test_layer_norm_in_blocks(dtype):
    x = spread_out(BLOCK_LN_SHAPE, 2, 154).to(TORCH_DTYPES[dtype])
    weight = random(BLOCK_LN_SHAPE[2:], dtype, 157)
    bias = random(BLOCK_LN_SHAPE[2:], dtype, 158)
    (y,) = run(BLOCKS, "layer_norm_%s" % dtype, [x, weight, bias])
    expected = F.layer_norm(x.double(), BLOCK_LN_SHAPE[2:], weight.double(),
                            bias.double(), eps=1e-5)
    assert_close(y, expected, dtype)


@pytest.fixture(scope="module", autouse=True)
def _precompiled():
    """Compiles every module of this file concurrently before its tests."""
    precompile(list(SOFTMAX.values()) + [LAYER_NORM, BATCH_NORM] +
               list(REDUCE.values()) + [LOSSES, ALL_FINITE, ACCURACY, BLOCKS])
