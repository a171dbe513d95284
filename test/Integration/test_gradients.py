"""The backward ops on the CPU backend against torch.autograd.

Each op runs on 16-bit (or f32) inputs; the reference is PyTorch's backward
of the forward op in float64 on the same input values (autograd, or the
backward kernel that autograd calls where the op takes the forward output),
and assert_close rounds it once to the result type: mixprec computes in f32
and rounds once (docs/design.md §4).

The adjoints of --mixprec-autodiff that use maximum_grad, minimum_grad and
reduce_max_grad, and those of strided slices and eval-mode batch_norm, are
checked at the end in the style of test_autodiff.py: in FP32 against
autograd, with central differences where the function is differentiable.
So are the adjoints of silu, which builds on no backward op, abs and where,
in each float type.
"""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

from harness import (TOLERANCES, TORCH_DTYPES, assert_close, compile_mlir,
                     module, op_function, precompile, random, run,
                     tensor_type, to_numpy, to_torch)
from test_autodiff import check, gradient_module
from test_elementwise import mask_literal

# Every test runs on the CPU library and on its CUDA build (simulated).
pytestmark = pytest.mark.usefixtures("backend")

FLOAT_TYPES = ["f32", "f16", "bf16"]
SHAPE = (37, 53)  # larger than a tile and not divisible by it
NAN = float("nan")


def assert_close_sum(actual, expected, dtype, magnitude, terms):
    """assert_close for a result that is an f32 sum of `terms` products whose
    absolute values sum to `magnitude`: it also allows the error bound of the
    f32 sum, terms * 2^-24 * magnitude, which cancellation can reach."""
    rtol, atol = TOLERANCES[dtype]
    expected = expected.to(TORCH_DTYPES[dtype]).float()
    allowed = (rtol * expected.abs() + atol
               + terms * 2.0 ** -24 * magnitude.float())
    error = (actual.float() - expected).abs()
    assert (error <= allowed).all(), (
        "max error %g over the allowed bound at %s"
        % ((error - allowed).max(), (error - allowed).argmax()))


def autograd(fn, inputs, grad):
    """The gradients of `fn(*inputs)` (float64) with respect to `inputs` for
    the output gradient `grad`."""
    leaves = [x.detach().double().requires_grad_() for x in inputs]
    fn(*leaves).backward(grad.double())
    return [leaf.grad for leaf in leaves]


# ---------------------------------------------------------------------------
# relu_grad, gelu_grad
# ---------------------------------------------------------------------------

GELU_FORMS = {"erf": "none", "tanh": "tanh"}


def activation_name(op, dtype):
    return "%s_%s" % (op, dtype)


def activation_module():
    functions = []
    for dtype in FLOAT_TYPES:
        t = tensor_type(SHAPE, dtype)
        functions.append(op_function(
            activation_name("relu_grad", dtype), [t, t], [t],
            "mixprec.relu_grad %%a0, %%a1 : %s" % t))
        for form in GELU_FORMS:
            functions.append(op_function(
                activation_name("gelu_grad_" + form, dtype), [t, t], [t],
                "mixprec.gelu_grad %%a0, %%a1 {approximate = "
                "#mixprec<gelu_approximation %s>} : %s" % (form, t)))
    return module(functions)


ACTIVATIONS = activation_module()


@pytest.mark.parametrize("dtype", FLOAT_TYPES)
def test_relu_grad(dtype):
    x = random(SHAPE, dtype, 1)
    # Zeros get no gradient (PyTorch's threshold_backward: x <= 0); a NaN
    # input passes the gradient through.
    x[0, :7] = 0.0
    x[1, 0] = NAN
    g = random(SHAPE, dtype, 2)
    (dx,) = run(ACTIVATIONS, activation_name("relu_grad", dtype), [g, x])
    (expected,) = autograd(torch.relu, [x.masked_fill(x.isnan(), 1.0)], g)
    assert_close(dx, expected, dtype)
    assert (dx[0, :7] == 0).all()


@pytest.mark.parametrize("dtype", FLOAT_TYPES)
@pytest.mark.parametrize("form", sorted(GELU_FORMS))
def test_gelu_grad(form, dtype):
    x = random(SHAPE, dtype, 3, scale=3.0)
    g = random(SHAPE, dtype, 4)
    (dx,) = run(ACTIVATIONS, activation_name("gelu_grad_" + form, dtype),
                [g, x])
    (expected,) = autograd(
        lambda x: F.gelu(x, approximate=GELU_FORMS[form]), [x], g)
    assert_close(dx, expected, dtype)


# ---------------------------------------------------------------------------
# maximum_grad, minimum_grad
# ---------------------------------------------------------------------------

MIN_MAX = {"maximum_grad": torch.maximum, "minimum_grad": torch.minimum}
INF = float("inf")


def min_max_name(op, dtype):
    return "%s_%s" % (op, dtype)


def min_max_module():
    functions = []
    for op in MIN_MAX:
        for dtype in FLOAT_TYPES:
            t = tensor_type(SHAPE, dtype)
            functions.append(op_function(
                min_max_name(op, dtype), [t, t, t], [t, t],
                "mixprec.%s %%a0, %%a1, %%a2 : %s" % (op, t)))
    return module(functions)


MIN_MAX_MODULE = min_max_module()


@pytest.mark.parametrize("dtype", FLOAT_TYPES)
@pytest.mark.parametrize("op", sorted(MIN_MAX))
def test_min_max_grad(op, dtype):
    a = random(SHAPE, dtype, 30)
    b = random(SHAPE, dtype, 31)
    # Ties, where each operand gets half of the gradient (PyTorch's rule):
    # finite values, and infinities of one sign.
    b[:5] = a[:5]
    a[5, :3] = b[5, :3] = INF
    a[5, 3:6] = b[5, 3:6] = -INF
    a[6, 0], b[6, 0], a[6, 1], b[6, 1] = INF, -INF, -INF, INF
    # A NaN operand compares false both ways: both get the whole gradient.
    a[7, 0], b[7, 1] = NAN, NAN
    a[7, 2] = b[7, 2] = NAN
    g = random(SHAPE, dtype, 32)
    dlhs, drhs = run(MIN_MAX_MODULE, min_max_name(op, dtype), [g, a, b])
    expected = autograd(MIN_MAX[op], [a, b], g)
    assert_close(dlhs, expected[0], dtype)
    assert_close(drhs, expected[1], dtype)
    assert torch.equal(dlhs[:5], drhs[:5])
    assert torch.equal(dlhs[7, :3], g[7, :3])


# ---------------------------------------------------------------------------
# softmax_grad, log_softmax_grad
# ---------------------------------------------------------------------------

SOFTMAX_CASES = [(shape, axis, dtype)
                 for shape in [(37, 53), (3, 37, 29)]
                 for axis in range(len(shape)) for dtype in FLOAT_TYPES]
FORWARD = {"softmax_grad": torch.softmax,
           "log_softmax_grad": torch.log_softmax}


def softmax_name(op, shape, axis, dtype):
    return "%s_r%d_a%d_%s" % (op, len(shape), axis, dtype)


def softmax_module():
    functions = []
    for op in FORWARD:
        for shape, axis, dtype in SOFTMAX_CASES:
            t = tensor_type(shape, dtype)
            functions.append(op_function(
                softmax_name(op, shape, axis, dtype), [t, t], [t],
                "mixprec.%s %%a0, %%a1 {axis = %d : i64} : %s" % (op, axis, t)))
    return module(functions)


SOFTMAX = softmax_module()


@pytest.mark.parametrize("op", sorted(FORWARD))
@pytest.mark.parametrize(
    "shape,axis,dtype", SOFTMAX_CASES,
    ids=["r%d-axis%d-%s" % (len(s), a, d) for s, a, d in SOFTMAX_CASES])
def test_softmax_grad(op, shape, axis, dtype):
    x = random(shape, "f32", 5, scale=3.0)
    # The op takes the forward output as the program has it: rounded to the
    # op's type.
    y = FORWARD[op](x, axis).to(TORCH_DTYPES[dtype])
    g = random(shape, dtype, 6)
    (dx,) = run(SOFTMAX, softmax_name(op, shape, axis, dtype), [g, y])
    # The kernels autograd calls, on the same output values in float64.
    if op == "softmax_grad":
        expected = torch._softmax_backward_data(g.double(), y.double(), axis,
                                                torch.float64)
    else:
        expected = torch._log_softmax_backward_data(g.double(), y.double(),
                                                    axis, torch.float64)
    assert_close(dx, expected, dtype)


@pytest.mark.parametrize("op", sorted(FORWARD))
def test_softmax_grad_is_autograd(op):
    """With the exact forward output, the f32 gradient is autograd's."""
    shape, axis = (37, 53), 1
    x = random(shape, "f32", 7, scale=3.0)
    g = random(shape, "f32", 8)
    y = FORWARD[op](x.double(), axis).float()
    (dx,) = run(SOFTMAX, softmax_name(op, shape, axis, "f32"), [g, y])
    (expected,) = autograd(lambda x: FORWARD[op](x, axis), [x], g)
    torch.testing.assert_close(dx.double(), expected, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------
# layer_norm_grad
# ---------------------------------------------------------------------------

LAYER_NORM_SHAPE = (2, 13, 37)
LAYER_NORM_AXES = [(2, 1e-5), (1, 1e-3), (0, 1e-5)]
LAYER_NORM_CASES = [(axis, eps, dtype) for axis, eps in LAYER_NORM_AXES
                    for dtype in FLOAT_TYPES]


def layer_norm_name(axis, dtype):
    return "layer_norm_grad_a%d_%s" % (axis, dtype)


def layer_norm_module():
    functions = []
    for axis, eps, dtype in LAYER_NORM_CASES:
        t = tensor_type(LAYER_NORM_SHAPE, dtype)
        p = tensor_type(LAYER_NORM_SHAPE[axis:], dtype)
        functions.append(op_function(
            layer_norm_name(axis, dtype), [t, t, p], [t, p, p],
            "mixprec.layer_norm_grad %%a0, %%a1 scale %%a2 {axis = %d : i64, "
            "eps = %e : f64} : %s, %s" % (axis, eps, t, p)))
    return module(functions)


LAYER_NORM = layer_norm_module()


@pytest.mark.parametrize(
    "axis,eps,dtype", LAYER_NORM_CASES,
    ids=["axis%d-%s" % (a, d) for a, _, d in LAYER_NORM_CASES])
def test_layer_norm_grad(axis, eps, dtype):
    normalized = LAYER_NORM_SHAPE[axis:]
    # Mean and spread differ per row, so statistics mixed up between rows
    # show.
    rows = LAYER_NORM_SHAPE[:axis] + (1,) * len(normalized)
    x = (random(LAYER_NORM_SHAPE, "f32", 9) * (random(rows, "f32", 10).abs()
                                              + 0.75)
         + random(rows, "f32", 11)).to(TORCH_DTYPES[dtype])
    scale = random(normalized, dtype, 12)
    g = random(LAYER_NORM_SHAPE, dtype, 13)
    dx, dscale, dbias = run(LAYER_NORM, layer_norm_name(axis, dtype),
                            [g, x, scale])
    bias = torch.zeros(normalized)
    expected = autograd(
        lambda x, w, b: F.layer_norm(x, normalized, w, b, eps=eps),
        [x, scale, bias], g)
    assert_close(dx, expected[0], dtype)
    assert_close(dscale, expected[1], dtype)
    assert_close(dbias, expected[2], dtype)


# Rows whose reductions run in 16x16 blocks transposed in registers
# (--mixprec-transpose-lane-blocks): 32 rows of 64, multiples of 16, which
# the shapes above are not.
BLOCK_SHAPE = (32, 64)
BLOCKS = module(
    [op_function("softmax_grad_%s" % dtype,
                 [tensor_type(BLOCK_SHAPE, dtype)] * 2,
                 [tensor_type(BLOCK_SHAPE, dtype)],
                 "mixprec.softmax_grad %%a0, %%a1 {axis = 1 : i64} : %s"
                 % tensor_type(BLOCK_SHAPE, dtype))
     for dtype in ("f32", "bf16")] +
    [op_function("layer_norm_grad_%s" % dtype,
                 [tensor_type(BLOCK_SHAPE, dtype)] * 2 +
                 [tensor_type(BLOCK_SHAPE[1:], dtype)],
                 [tensor_type(BLOCK_SHAPE, dtype)] +
                 [tensor_type(BLOCK_SHAPE[1:], dtype)] * 2,
                 "mixprec.layer_norm_grad %%a0, %%a1 scale %%a2 {axis = 1 : "
                 "i64, eps = 1.0e-05 : f64} : %s, %s"
                 % (tensor_type(BLOCK_SHAPE, dtype),
                    tensor_type(BLOCK_SHAPE[1:], dtype)))
     for dtype in ("f32", "bf16")])


@pytest.mark.parametrize("dtype", ["f32", "bf16"])
def test_softmax_grad_in_blocks(dtype):
    y = torch.softmax(random(BLOCK_SHAPE, "f32", 14, scale=3.0), 1).to(
        TORCH_DTYPES[dtype])
    g = random(BLOCK_SHAPE, dtype, 15)
    (dx,) = run(BLOCKS, "softmax_grad_%s" % dtype, [g, y])
    expected = torch._softmax_backward_data(g.double(), y.double(), 1,
                                            torch.float64)
    assert_close(dx, expected, dtype)


@pytest.mark.parametrize("dtype", ["f32", "bf16"])
def test_layer_norm_grad_in_blocks(dtype):
    rows = (BLOCK_SHAPE[0], 1)
    x = (random(BLOCK_SHAPE, "f32", 16) * (random(rows, "f32", 17).abs()
                                          + 0.75)
         + random(rows, "f32", 18)).to(TORCH_DTYPES[dtype])
    scale = random(BLOCK_SHAPE[1:], dtype, 19)
    g = random(BLOCK_SHAPE, dtype, 20)
    dx, dscale, dbias = run(BLOCKS, "layer_norm_grad_%s" % dtype,
                            [g, x, scale])
    expected = autograd(
        lambda x, w, b: F.layer_norm(x, BLOCK_SHAPE[1:], w, b, eps=1e-5),
        [x, scale, torch.zeros(BLOCK_SHAPE[1:])], g)
    assert_close(dx, expected[0], dtype)
    assert_close(dscale, expected[1], dtype)
    assert_close(dbias, expected[2], dtype)


# ---------------------------------------------------------------------------
# softmax_cross_entropy_grad
# ---------------------------------------------------------------------------

CE_SHAPE = (67, 13)
CE_CASES = [(reduction, label_type, dtype)
            for reduction in ("mean", "sum")
            for label_type in ("i32", "i64") for dtype in FLOAT_TYPES]


def ce_name(reduction, label_type, dtype):
    return "ce_grad_%s_%s_%s" % (reduction, label_type, dtype)


def ce_module():
    functions = []
    for reduction, label_type, dtype in CE_CASES:
        t = tensor_type(CE_SHAPE, dtype)
        labels = tensor_type(CE_SHAPE[:1], label_type)
        functions.append(op_function(
            ce_name(reduction, label_type, dtype),
            [tensor_type((), dtype), t, labels], [t],
            "mixprec.softmax_cross_entropy_grad %%a0, %%a1, %%a2 {reduction = "
            "#mixprec<reduction %s>} : %s, %s" % (reduction, t, labels)))
    return module(functions)


CROSS_ENTROPY = ce_module()


@pytest.mark.parametrize(
    "reduction,label_type,dtype", CE_CASES,
    ids=["%s-%s-%s" % case for case in CE_CASES])
def test_softmax_cross_entropy_grad(reduction, label_type, dtype):
    logits = random(CE_SHAPE, dtype, 14, scale=3.0)
    # Large logits: e^x overflows unless the maximum is subtracted.
    logits[3] += 1000.0
    generator = torch.Generator().manual_seed(15)
    labels = torch.randint(0, CE_SHAPE[1], CE_SHAPE[:1], generator=generator)
    labels = labels.to(TORCH_DTYPES[label_type])
    g = torch.tensor(2.5).to(TORCH_DTYPES[dtype])
    (dlogits,) = run(CROSS_ENTROPY, ce_name(reduction, label_type, dtype),
                     [g, logits, labels])
    (expected,) = autograd(
        lambda x: F.cross_entropy(x, labels.long(), reduction=reduction),
        [logits], g)
    assert_close(dlogits, expected, dtype)


# ---------------------------------------------------------------------------
# embedding_grad
# ---------------------------------------------------------------------------

EMBEDDING_VOCAB = 11
EMBEDDING_CASES = [(index_shape, index_type, dtype)
                   for index_shape in [(37,), (3, 29)]
                   for index_type in ("i32", "i64") for dtype in FLOAT_TYPES]
EMBEDDING_DIM = 19


def embedding_name(index_shape, index_type, dtype):
    return "embedding_grad_r%d_%s_%s" % (len(index_shape), index_type, dtype)


def embedding_module():
    functions = []
    for index_shape, index_type, dtype in EMBEDDING_CASES:
        g = tensor_type(index_shape + (EMBEDDING_DIM,), dtype)
        indices = tensor_type(index_shape, index_type)
        functions.append(op_function(
            embedding_name(index_shape, index_type, dtype), [g, indices],
            [tensor_type((EMBEDDING_VOCAB, EMBEDDING_DIM), dtype)],
            "mixprec.embedding_grad %%a0, %%a1 {num_embeddings = %d : i64} "
            ": %s, %s" % (EMBEDDING_VOCAB, g, indices)))
    return module(functions)


EMBEDDING = embedding_module()


@pytest.mark.parametrize(
    "index_shape,index_type,dtype", EMBEDDING_CASES,
    ids=["r%d-%s-%s" % (len(s), i, d) for s, i, d in EMBEDDING_CASES])
def test_embedding_grad(index_shape, index_type, dtype):
    generator = torch.Generator().manual_seed(16)
    # Fewer rows than tokens: most rows sum several gradients; the last row
    # is never used and stays zero.
    indices = torch.randint(0, EMBEDDING_VOCAB - 1, index_shape,
                            generator=generator)
    g = random(index_shape + (EMBEDDING_DIM,), dtype, 17)
    (dtable,) = run(EMBEDDING, embedding_name(index_shape, index_type, dtype),
                    [g, indices.to(TORCH_DTYPES[index_type])])
    table = torch.zeros(EMBEDDING_VOCAB, EMBEDDING_DIM)
    (_, expected) = autograd(lambda i, t: F.embedding(i.long(), t),
                             [indices.float(), table], g)
    assert_close(dtable, expected, dtype)
    assert (dtable[-1] == 0).all()


@pytest.mark.parametrize("index_shape", [(37,), (3, 29)])
def test_embedding_grad_sums_each_row_in_index_order(index_shape):
    # The CPU adds each index's gradient row to its row (a scatter); the
    # bits are those of f32 sums over the indices in row-major order, from
    # zero, rounded once: the order of the dense reduction it replaced.
    generator = torch.Generator().manual_seed(18)
    indices = torch.randint(0, 3, index_shape, generator=generator)
    g = random(index_shape + (EMBEDDING_DIM,), "f32", 19)
    (dtable,) = run(EMBEDDING, embedding_name(index_shape, "i64", "f32"),
                    [g, indices])
    expected = np.zeros((EMBEDDING_VOCAB, EMBEDDING_DIM), np.float32)
    rows = g.numpy().reshape(-1, EMBEDDING_DIM)
    for index, row in zip(indices.reshape(-1).tolist(), rows):
        expected[index] = expected[index] + row  # float32, in order
    assert dtable.numpy().tobytes() == expected.tobytes()


# ---------------------------------------------------------------------------
# conv2d_grad_input, conv2d_grad_weight
# ---------------------------------------------------------------------------

# (input shape, weight shape, stride, padding, dilation, groups)
CONV_CASES = [
    ((2, 3, 9, 11), (5, 3, 3, 3), (1, 1), (0, 0), (1, 1), 1),
    ((2, 3, 9, 11), (5, 3, 3, 3), (2, 2), (1, 1), (1, 1), 1),
    # Rows and columns the last window does not reach get no gradient.
    ((2, 4, 10, 9), (6, 2, 3, 2), (2, 3), (1, 0), (1, 1), 2),
    ((1, 4, 11, 12), (4, 1, 3, 3), (1, 2), (2, 1), (2, 1), 4),
    # Padding larger than the dilated kernel reach.
    ((1, 2, 5, 5), (3, 2, 1, 1), (2, 2), (1, 1), (1, 1), 1),
    # At least 8 output channels per group and 8 window elements: the
    # CPU's im2col GEMMs.
    ((2, 3, 13, 15), (16, 3, 7, 7), (2, 2), (3, 3), (1, 1), 1),
    ((2, 8, 9, 11), (16, 8, 3, 3), (2, 2), (1, 1), (1, 1), 1),
    ((2, 16, 10, 9), (16, 8, 3, 2), (2, 3), (1, 0), (1, 1), 2),
    ((1, 8, 11, 12), (8, 8, 3, 3), (1, 2), (2, 1), (2, 1), 1),
]
CONV_TESTS = [(case, dtype) for case in range(len(CONV_CASES))
              for dtype in FLOAT_TYPES]


def conv_name(op, case, dtype):
    return "%s_%d_%s" % (op, case, dtype)


def conv_attrs(case):
    _, _, stride, padding, dilation, groups = CONV_CASES[case]
    return ("stride = array<i64: %d, %d>, padding = array<i64: %d, %d>, "
            "dilation = array<i64: %d, %d>, groups = %d : i64"
            % (stride + padding + dilation + (groups,)))


def conv_output_shape(case):
    x, w, stride, padding, dilation, _ = CONV_CASES[case]
    return (x[0], w[0]) + tuple(
        (x[2 + i] + 2 * padding[i] - dilation[i] * (w[2 + i] - 1) - 1)
        // stride[i] + 1 for i in range(2))


def conv_module():
    functions = []
    for case, dtype in CONV_TESTS:
        x, w = CONV_CASES[case][:2]
        g = tensor_type(conv_output_shape(case), dtype)
        xt, wt = tensor_type(x, dtype), tensor_type(w, dtype)
        functions.append(op_function(
            conv_name("conv2d_grad_input", case, dtype), [g, wt], [xt],
            "mixprec.conv2d_grad_input %%a0, %%a1 {%s, input_shape = "
            "array<i64: %s>} : %s, %s"
            % (conv_attrs(case), ", ".join(map(str, x)), g, wt)))
        functions.append(op_function(
            conv_name("conv2d_grad_weight", case, dtype), [g, xt], [wt],
            "mixprec.conv2d_grad_weight %%a0, %%a1 {%s, weight_shape = "
            "array<i64: %s>} : %s, %s"
            % (conv_attrs(case), ", ".join(map(str, w)), g, xt)))
    return module(functions)


CONV = conv_module()


@pytest.mark.parametrize("case,dtype", CONV_TESTS,
                         ids=["case%d-%s" % t for t in CONV_TESTS])
def test_conv2d_grads(case, dtype):
    xs, ws, stride, padding, dilation, groups = CONV_CASES[case]
    x = random(xs, dtype, 18)
    w = random(ws, dtype, 19)
    g = random(conv_output_shape(case), dtype, 20)
    (dx,) = run(CONV, conv_name("conv2d_grad_input", case, dtype), [g, w])
    (dw,) = run(CONV, conv_name("conv2d_grad_weight", case, dtype), [g, x])
    conv = lambda x, w: F.conv2d(x, w, stride=stride, padding=padding,
                                 dilation=dilation, groups=groups)
    expected = autograd(conv, [x, w], g)
    # The sums of |terms|: an f32 sum of n terms is within n * 2^-24 of them.
    magnitude = autograd(conv, [x.abs(), w.abs()], g.abs())
    out = conv_output_shape(case)
    terms = [ws[0] // groups * ws[2] * ws[3], out[0] * out[2] * out[3]]
    assert_close_sum(dx, expected[0], dtype, magnitude[0], terms[0])
    assert_close_sum(dw, expected[1], dtype, magnitude[1], terms[1])
    # The helpers autograd calls agree.
    torch.testing.assert_close(
        torch.nn.grad.conv2d_input(xs, w.double(), g.double(), stride,
                                   padding, dilation, groups), expected[0])


# ---------------------------------------------------------------------------
# max_pool2d_grad, avg_pool2d_grad
# ---------------------------------------------------------------------------

# (input shape, kernel, stride, padding)
POOL_CASES = [
    ((2, 3, 8, 8), (2, 2), (2, 2), (0, 0)),
    # Overlapping windows; padding; rows the last window does not reach.
    ((2, 3, 9, 10), (3, 3), (2, 2), (1, 1)),
    ((1, 2, 7, 11), (3, 2), (1, 3), (1, 1)),
]
POOL_OPS = {"max_pool2d_grad": F.max_pool2d, "avg_pool2d_grad": F.avg_pool2d}
POOL_TESTS = [(op, case, dtype) for op in sorted(POOL_OPS)
              for case in range(len(POOL_CASES)) for dtype in FLOAT_TYPES]


def pool_output_shape(case):
    x, kernel, stride, padding = POOL_CASES[case]
    return x[:2] + tuple((x[2 + i] + 2 * padding[i] - kernel[i])
                         // stride[i] + 1 for i in range(2))


def pool_name(op, case, dtype):
    return "%s_%d_%s" % (op, case, dtype)


def pool_module():
    functions = []
    for op, case, dtype in POOL_TESTS:
        x, kernel, stride, padding = POOL_CASES[case]
        g = tensor_type(pool_output_shape(case), dtype)
        xt = tensor_type(x, dtype)
        functions.append(op_function(
            pool_name(op, case, dtype), [g, xt], [xt],
            "mixprec.%s %%a0, %%a1 {kernel = array<i64: %d, %d>, stride = "
            "array<i64: %d, %d>, padding = array<i64: %d, %d>} : %s, %s"
            % ((op,) + kernel + stride + padding + (g, xt))))
    return module(functions)


POOL = pool_module()


@pytest.mark.parametrize("op,case,dtype", POOL_TESTS,
                         ids=["%s-case%d-%s" % t for t in POOL_TESTS])
def test_pool2d_grad(op, case, dtype):
    xs, kernel, stride, padding = POOL_CASES[case]
    # Few distinct values, so windows hold ties: the first maximal element
    # of the window takes the gradient. Negative values: padding must not
    # win.
    x = (torch.randint(-4, 2, xs, generator=torch.Generator().manual_seed(21))
         .to(TORCH_DTYPES[dtype]))
    g = random(pool_output_shape(case), dtype, 22)
    (dx,) = run(POOL, pool_name(op, case, dtype), [g, x])
    (expected,) = autograd(
        lambda x: POOL_OPS[op](x, kernel, stride, padding), [x], g)
    assert_close(dx, expected, dtype)


def test_max_pool2d_grad_nan():
    """A NaN is maximal, and the window's last NaN takes the gradient, as in
    PyTorch's CPU kernel."""
    case, dtype = 1, "f32"
    xs, kernel, stride, padding = POOL_CASES[case]
    x = random(xs, dtype, 23)
    x[0, 0, 2, 2] = NAN
    x[0, 0, 2, 3] = NAN
    x[1, 2, 0, 0] = NAN
    g = random(pool_output_shape(case), dtype, 24)
    (dx,) = run(POOL, pool_name("max_pool2d_grad", case, dtype), [g, x])
    leaf = x.clone().requires_grad_()
    F.max_pool2d(leaf, kernel, stride, padding).backward(g)
    torch.testing.assert_close(dx, leaf.grad, rtol=1e-6, atol=1e-6)


# ---------------------------------------------------------------------------
# batch_norm_grad
# ---------------------------------------------------------------------------

BATCH_NORM_CASES = [(shape, eps, dtype)
                    for shape, eps in [((37, 13), 1e-5), ((3, 5, 7, 9), 1e-3)]
                    for dtype in FLOAT_TYPES]


def batch_norm_name(shape, dtype):
    return "batch_norm_grad_r%d_%s" % (len(shape), dtype)


def batch_norm_module():
    functions = []
    for shape, eps, dtype in BATCH_NORM_CASES:
        t = tensor_type(shape, dtype)
        p = tensor_type(shape[1:2], dtype)
        functions.append(op_function(
            batch_norm_name(shape, dtype), [t, t, p], [t, p, p],
            "mixprec.batch_norm_grad %%a0, %%a1 scale %%a2 {eps = %e : f64} "
            ": %s, %s" % (eps, t, p)))
    return module(functions)


BATCH_NORM = batch_norm_module()


@pytest.mark.parametrize(
    "shape,eps,dtype", BATCH_NORM_CASES,
    ids=["r%d-%s" % (len(s), d) for s, _, d in BATCH_NORM_CASES])
def test_batch_norm_grad(shape, eps, dtype):
    channels = shape[1]
    # Mean and spread differ per channel, so statistics mixed up between
    # channels show.
    per_channel = (1, channels) + (1,) * (len(shape) - 2)
    x = (random(shape, "f32", 25) * (random(per_channel, "f32", 26).abs()
                                     + 0.75)
         + random(per_channel, "f32", 27)).to(TORCH_DTYPES[dtype])
    scale = random((channels,), dtype, 28)
    g = random(shape, dtype, 29)
    dx, dscale, dbias = run(BATCH_NORM, batch_norm_name(shape, dtype),
                            [g, x, scale])
    bias = torch.zeros(channels)
    expected = autograd(
        lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True,
                                     eps=eps), [x, scale, bias], g)
    assert_close(dx, expected[0], dtype)
    assert_close(dscale, expected[1], dtype)
    assert_close(dbias, expected[2], dtype)


# ---------------------------------------------------------------------------
# reduce_max_grad
# ---------------------------------------------------------------------------

# (shape, dims, keepdim)
REDUCE_MAX_CASES = [((37, 53), (1,), False), ((37, 53), (0,), True),
                    ((3, 37, 29), (0, 2), False), ((3, 37, 29), (1,), True),
                    ((37, 53), (0, 1), False)]
REDUCE_MAX_TESTS = [(case, dtype) for case in range(len(REDUCE_MAX_CASES))
                    for dtype in FLOAT_TYPES]


def reduce_max_name(case, dtype):
    return "reduce_max_grad_%d_%s" % (case, dtype)


def reduced_shape(case):
    shape, dims, keepdim = REDUCE_MAX_CASES[case]
    return tuple(1 if dim in dims else size for dim, size in enumerate(shape)
                 if keepdim or dim not in dims)


def reduce_max_module():
    functions = []
    for case, dtype in REDUCE_MAX_TESTS:
        shape, dims, keepdim = REDUCE_MAX_CASES[case]
        t = tensor_type(shape, dtype)
        r = tensor_type(reduced_shape(case), dtype)
        functions.append(op_function(
            reduce_max_name(case, dtype), [r, t, r], [t],
            "mixprec.reduce_max_grad %%a0, %%a1, %%a2 {dims = array<i64: %s>%s}"
            " : %s, %s" % (", ".join(map(str, dims)),
                           ", keepdim" if keepdim else "", r, t)))
    return module(functions)


REDUCE_MAX = reduce_max_module()


@pytest.mark.parametrize("case,dtype", REDUCE_MAX_TESTS,
                         ids=["case%d-%s" % t for t in REDUCE_MAX_TESTS])
def test_reduce_max_grad(case, dtype):
    shape, dims, keepdim = REDUCE_MAX_CASES[case]
    # Few distinct values, so most groups have tied maxima, which share the
    # gradient equally (torch.amax's rule); some are infinite.
    x = (torch.randint(-3, 3, shape, generator=torch.Generator()
                       .manual_seed(33)).to(TORCH_DTYPES[dtype]))
    x.view(-1)[-2:] = INF
    x.view(-1)[-5:-3] = -INF
    if len(dims) < len(shape):
        # A NaN maximum equals nothing: its group's gradient is NaN.
        x[(0,) * len(shape)] = NAN
    amax = lambda x: torch.amax(x, dims, keepdim)
    g = random(reduced_shape(case), dtype, 34)
    output = amax(x.double()).to(TORCH_DTYPES[dtype])
    (dx,) = run(REDUCE_MAX, reduce_max_name(case, dtype), [g, x, output])
    (expected,) = autograd(amax, [x], g)
    assert_close(dx, expected, dtype)


# ---------------------------------------------------------------------------
# Adjoints: --mixprec-autodiff against autograd in FP32 (test_autodiff.py)
# ---------------------------------------------------------------------------

S = [7, 13]


def check_ties(params, op, result_shape, reference, values):
    """test_autodiff.check on the given parameter values, which tie: the
    function is not differentiable there, so PyTorch's autograd is the only
    reference (rtol 1e-5, atol 1e-6)."""
    upstream = random(result_shape, "f32", 35)
    model = compile_mlir(gradient_module(params, op, result_shape),
                         ("--autodiff",))
    function = model.functions["train_gradients"]
    named = {name: value for (name, _), value in zip(params, values)}
    outputs = model.call("train_gradients",
                         [to_numpy(named.get(spec.name, upstream))
                          for spec in function.inputs])
    expected = autograd(lambda *xs: (reference(*xs) * upstream.double()).sum(),
                        values, torch.tensor(1.0))
    for (name, _), gradient, reference_gradient in zip(params, outputs[1:],
                                                       expected):
        np.testing.assert_allclose(gradient, reference_gradient.numpy(),
                                   rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_min_max_adjoint(name):
    t = tensor_type(S, "f32")
    check([("a", S), ("b", S)],
          "%%r = mixprec.%s %%a, %%b : %s, %s" % (name, t, t), S,
          getattr(torch, name))


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_min_max_adjoint_ties(name):
    # Every other row ties: each operand gets half of the gradient there.
    a = random(S, "f32", 36)
    b = random(S, "f32", 37)
    b[::2] = a[::2]
    t = tensor_type(S, "f32")
    check_ties([("a", S), ("b", S)],
               "%%r = mixprec.%s %%a, %%b : %s, %s" % (name, t, t), S,
               getattr(torch, name), [a, b])


# (shape, dims, keepdim)
REDUCE_MAX_ADJOINTS = [([5, 7, 3], (1,), False), ([5, 7, 3], (0, 2), True),
                       ([5, 7, 3], (0, 1, 2), True)]


def reduce_max_adjoint(case):
    shape, dims, keepdim = REDUCE_MAX_ADJOINTS[case]
    result = [1 if dim in dims else size for dim, size in enumerate(shape)
              if keepdim or dim not in dims]
    text = ("%%r = mixprec.reduce_max %%x {dims = array<i64: %s>%s} : %s"
            % (", ".join(map(str, dims)), ", keepdim" if keepdim else "",
               tensor_type(shape, "f32")))
    return shape, text, result, lambda x: torch.amax(x, dims, keepdim)


@pytest.mark.parametrize("case", range(len(REDUCE_MAX_ADJOINTS)))
def test_reduce_max_adjoint(case):
    shape, text, result, reference = reduce_max_adjoint(case)
    check([("x", shape)], text, result, reference)


@pytest.mark.parametrize("case", range(len(REDUCE_MAX_ADJOINTS)))
def test_reduce_max_adjoint_ties(case):
    # Few distinct values: tied maxima share their group's gradient equally
    # (torch.amax's rule).
    shape, text, result, reference = reduce_max_adjoint(case)
    x = torch.randint(-2, 2, shape, generator=torch.Generator()
                      .manual_seed(38)).float()
    check_ties([("x", shape)], text, result, reference, [x])


# (shape, offsets, sizes, strides): the spread gradient ends at the input's
# end or short of it, and a dim of one element ignores its stride.
STRIDED_SLICES = [([9, 11], [1, 2], [3, 4], [3, 2]),
                  ([4, 5, 6], [0, 1, 5], [2, 2, 1], [3, 3, 2]),
                  ([6, 8], [0, 1], [6, 2], [1, 4])]


@pytest.mark.parametrize("case", range(len(STRIDED_SLICES)))
def test_strided_slice_adjoint(case):
    shape, offsets, sizes, strides = STRIDED_SLICES[case]
    join = lambda values: ", ".join(map(str, values))
    index = tuple(slice(o, o + (n - 1) * s + 1, s)
                  for o, n, s in zip(offsets, sizes, strides))
    check([("x", shape)], "%%r = mixprec.slice %%x {offsets = array<i64: %s>, "
          "sizes = array<i64: %s>, strides = array<i64: %s>} : %s"
          % (join(offsets), join(sizes), join(strides),
             tensor_type(shape, "f32")), sizes, lambda x: x[index])


@pytest.mark.parametrize("shape", [[6, 4], [3, 4, 5, 5]])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_eval_adjoint(shape, affine):
    # The running statistics of a model are buffers: the batch.
    generator = torch.Generator().manual_seed(39)
    stats = [("mean", torch.randn(4, generator=generator)),
             ("var", torch.rand(4, generator=generator) + 0.5)]
    params = [("x", shape)] + ([("g", [4]), ("b", [4])] if affine else [])
    t, c = tensor_type(shape, "f32"), tensor_type([4], "f32")
    affine_text = " scale %g bias %b" if affine else ""
    affine_types = ", %s, %s" % (c, c) if affine else ""
    check(params, "%%r, %%rm, %%rv = mixprec.batch_norm %%x, %%mean, %%var%s "
          "{eps = 1.0e-03 : f64, training = false} : %s, %s%s"
          % (affine_text, t, c, affine_types), shape,
          lambda x, *rest: F.batch_norm(
              x, rest[-2].double(), rest[-1].double(),
              *(rest[:2] if affine else (None, None)),
              training=False, eps=1e-3),
          extra=stats)


def test_batch_norm_eval_statistics_adjoint():
    """The result depends on the running statistics too: their gradients,
    with var = v * v + 0.5 so that it stays positive (PyTorch does not
    differentiate them, so the reference is the formula)."""
    shape, c = [6, 4, 3, 3], tensor_type([4], "f32")
    t = tensor_type(shape, "f32")
    per_channel = lambda s: s.reshape(1, 4, 1, 1)

    def reference(x, g, b, mean, v):
        var = v * v + 0.5
        return ((x - per_channel(mean)) / torch.sqrt(per_channel(var) + 1e-5)
                * per_channel(g) + per_channel(b))

    check([("x", shape), ("g", [4]), ("b", [4]), ("mean", [4]), ("v", [4])],
          "%%half = mixprec.constant dense<5.0e-01> : %s\n"
          "  %%vv = mixprec.mul %%v, %%v : %s, %s\n"
          "  %%var = mixprec.add %%vv, %%half : %s, %s\n"
          "  %%r, %%rm, %%rv = mixprec.batch_norm %%x, %%mean, %%var scale %%g "
          "bias %%b {training = false} : %s, %s, %s, %s"
          % (c, c, c, c, c, t, c, c, c), shape, reference)


# ---------------------------------------------------------------------------
# The adjoints of silu and abs, in each float type
# ---------------------------------------------------------------------------


def unary_gradient_module(op, dtype, attrs=""):
    """@train_gradients returns the gradient of sum(op(x) * u) for a
    parameter x of `dtype`: op's adjoint gets u (times 1: exact) as its
    result gradient. `attrs` is the op's attribute dictionary, if any."""
    t, t32 = tensor_type(SHAPE, dtype), tensor_type(SHAPE, "f32")
    return "\n".join([
        "mixprec.parameter @x : %s = #mixprec.zeros" % t,
        "func.func @loss(%%u: %s) -> tensor<f32> {" % t,
        "  %%x = mixprec.read @x : %s" % t,
        "  %%y = mixprec.%s %%x %s: %s" % (op, attrs, t),
        "  %%m = mixprec.mul %%y, %%u : %s, %s" % (t, t),
        "  %%m32 = mixprec.cast %%m : %s to %s" % (t, t32),
        "  %%l = mixprec.reduce_sum %%m32 {dims = array<i64: 0, 1>} : %s" % t32,
        "  return %l : tensor<f32>",
        "}",
        "mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>"])


def compiled_unary_gradient(op, x, u, dtype, attrs=""):
    """The gradient of sum(op(x) * u) with respect to x, compiled."""
    model = compile_mlir(unary_gradient_module(op, dtype, attrs),
                         ("--autodiff",))
    function = model.functions["train_gradients"]
    named = {"x": x, "u": u}
    outputs = model.call("train_gradients",
                         [to_numpy(named[spec.name]) for spec in function.inputs])
    return to_torch(outputs[1], dtype)


@pytest.mark.parametrize("dtype", FLOAT_TYPES)
def test_silu_adjoint(dtype):
    # Computed in f32 and rounded once to `dtype`. The tails (e^-x overflows
    # to inf below about -88), zero and NaN.
    x = random(SHAPE, dtype, 40, scale=6.0)
    x[0, :4] = torch.tensor([0.0, -100.0, 100.0, NAN])
    u = random(SHAPE, dtype, 41)
    dx = compiled_unary_gradient("silu", x, u, dtype)
    (expected,) = autograd(F.silu, [x], u)
    assert_close(dx, expected, dtype)


@pytest.mark.parametrize("dtype", FLOAT_TYPES)
def test_abs_adjoint(dtype):
    # u * sign(x): 0 at +0 and -0 and for a NaN x (torch.sign), +-u at
    # +-inf, and NaN where an infinite u meets x = 0 (inf * 0).
    x = random(SHAPE, dtype, 42)
    x[0, :6] = torch.tensor([0.0, -0.0, NAN, INF, -INF, 0.0])
    u = random(SHAPE, dtype, 43)
    u[0, 5] = INF
    dx = compiled_unary_gradient("abs", x, u, dtype)
    (expected,) = autograd(torch.abs, [x], u)
    assert_close(dx, expected, dtype)


# ---------------------------------------------------------------------------
# where's adjoint, in each float type
# ---------------------------------------------------------------------------


def where_gradient_module(mask, dtype):
    """@train_gradients returns the gradients of sum(where(mask, x, y) * u)
    for parameters x and y of `dtype` and the constant `mask`."""
    t, t32 = tensor_type(SHAPE, dtype), tensor_type(SHAPE, "f32")
    c = tensor_type(SHAPE, "i1")
    return "\n".join([
        "mixprec.parameter @x : %s = #mixprec.zeros" % t,
        "mixprec.parameter @y : %s = #mixprec.zeros" % t,
        "func.func @loss(%%u: %s) -> tensor<f32> {" % t,
        "  %%c = mixprec.constant %s : %s" % (mask_literal(mask), c),
        "  %%x = mixprec.read @x : %s" % t,
        "  %%y = mixprec.read @y : %s" % t,
        "  %%w = mixprec.where %%c, %%x, %%y : %s, %s, %s" % (c, t, t),
        "  %%m = mixprec.mul %%w, %%u : %s, %s" % (t, t),
        "  %%m32 = mixprec.cast %%m : %s to %s" % (t, t32),
        "  %%l = mixprec.reduce_sum %%m32 {dims = array<i64: 0, 1>} : %s"
        % t32,
        "  return %l : tensor<f32>",
        "}",
        "mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>"])


@pytest.mark.parametrize("dtype", FLOAT_TYPES)
def test_where_adjoint(dtype):
    # u to the chosen value, 0 to the other: 0 also where the value not
    # chosen is inf or NaN, and where u is inf (never inf * 0 = NaN).
    mask = random(SHAPE, "f32", 44) > 0
    x, y = random(SHAPE, dtype, 45), random(SHAPE, dtype, 46)
    x[~mask] = INF
    y[mask] = NAN
    u = random(SHAPE, dtype, 47)
    u[0, :2] = INF
    mask[0, :2] = torch.tensor([True, False])
    model = compile_mlir(where_gradient_module(mask, dtype), ("--autodiff",))
    function = model.functions["train_gradients"]
    named = {"x": x, "y": y, "u": u}
    outputs = model.call("train_gradients", [to_numpy(named[spec.name])
                                             for spec in function.inputs])
    dx, dy = (to_torch(output, dtype) for output in outputs[1:3])
    expected = autograd(lambda x, y: torch.where(mask, x, y), [x, y], u)
    assert_close(dx, expected[0], dtype)
    assert_close(dy, expected[1], dtype)
    assert (dx[~mask] == 0).all() and (dy[mask] == 0).all()


CLAMP_BOUNDS = {"min": (-0.5, None), "max": (None, 0.75),
                "both": (-0.5, 0.75)}


@pytest.mark.parametrize("dtype", FLOAT_TYPES)
@pytest.mark.parametrize("bounds", sorted(CLAMP_BOUNDS))
def test_clamp_adjoint(bounds, dtype):
    # u where min <= x <= max, in full on a tie with a bound (maximum and
    # minimum split a tie), 0 elsewhere and for a NaN x; +-inf x are outside
    # the finite bounds, and an infinite u outside gives 0 (a select).
    low, high = CLAMP_BOUNDS[bounds]
    x = random(SHAPE, dtype, 44)
    x[0, :7] = torch.tensor([-0.5, 0.75, NAN, INF, -INF, 0.0, -0.75])
    u = random(SHAPE, dtype, 45)
    u[0, 6] = INF
    attrs = "{%s} " % ", ".join(
        "%s = %s : f64" % (name, bound)
        for name, bound in (("min", low), ("max", high)) if bound is not None)
    dx = compiled_unary_gradient("clamp", x, u, dtype, attrs)
    (expected,) = autograd(lambda v: torch.clamp(v, low, high), [x], u)
    assert_close(dx, expected, dtype)
    # The ties pass the whole gradient, not half of it.
    on_bound = [i for i, bound in ((0, low), (1, high)) if bound is not None]
    assert torch.equal(dx[0, on_bound].float(), u[0, on_bound].float())


@pytest.mark.parametrize("dtype", FLOAT_TYPES)
def test_strict_clamp_adjoint_is_hardtanh(dtype):
    # strict: u where min < x < max (PyTorch's vectorized
    # hardtanh_backward), 0 on a tie, for a NaN x and outside, an infinite
    # u outside included (a select).
    x = random(SHAPE, dtype, 46)
    x[0, :7] = torch.tensor([-0.5, 0.75, NAN, INF, -INF, 0.0, -0.75])
    u = random(SHAPE, dtype, 47)
    u[0, 6] = INF
    dx = compiled_unary_gradient(
        "clamp", x, u, dtype, "{min = -0.5 : f64, max = 0.75 : f64, strict} ")
    (expected,) = autograd(lambda v: F.hardtanh(v, -0.5, 0.75), [x], u)
    assert_close(dx, expected, dtype)
    assert (dx[0, :3] == 0).all()


@pytest.fixture(scope="module", autouse=True)
def _precompiled():
    """Compiles every module of this file concurrently before its tests."""
    precompile([ACTIVATIONS, MIN_MAX_MODULE, SOFTMAX, LAYER_NORM,
                CROSS_ENTROPY, EMBEDDING, CONV, POOL, BATCH_NORM, REDUCE_MAX,
                BLOCKS])
