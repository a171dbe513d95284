"""The backward ops on the CPU backend against torch.autograd.

Each op runs on 16-bit (or f32) inputs; the reference is PyTorch's backward
of the forward op in float64 on the same input values (autograd, or the
backward kernel that autograd calls where the op takes the forward output),
and assert_close rounds it once to the result type: mixprec computes in f32
and rounds once (ARCHITECTURE.md §4).
"""
import pytest
import torch
import torch.nn.functional as F

from harness import (TORCH_DTYPES, assert_close, module, op_function,
                     precompile, random, run, tensor_type)

FLOAT_TYPES = ["f32", "f16", "bf16"]
SHAPE = (37, 53)  # larger than a tile and not divisible by it
NAN = float("nan")


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


@pytest.fixture(scope="module", autouse=True)
def _precompiled():
    """Compiles every module of this file concurrently before its tests."""
    precompile([ACTIVATIONS, SOFTMAX, LAYER_NORM, CROSS_ENTROPY])
