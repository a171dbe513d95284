"""--mixprec-autodiff on the CPU backend: every adjoint it has against
PyTorch autograd in FP32 (rtol 1e-5, atol 1e-6), with central finite
differences of the compiled loss as a second check, and the digits MLP's
parameter gradients.

Each case is a module whose parameters are the op's float operands; the loss
is sum(op(params) * u) for a random upstream gradient u passed as the batch
(or the op itself for losses), so every element of the adjoint is checked.
The gradient function `@train_gradients` returns the loss, then each
parameter's gradient.
"""
import pathlib

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import reference_models
from harness import compile_mlir, tensor_type, to_numpy

# Every test runs on the CPU library and on its CUDA build (simulated).
pytestmark = pytest.mark.usefixtures("backend")

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def gradient_module(params, op, result_shape, extra_args=(), is_loss=False):
    """`params`: [(name, shape)]; `op`: the op's text with %<name> operands
    producing %r; `extra_args`: [(name, type)] batch arguments besides u."""
    lines = ["mixprec.parameter @%s : %s = #mixprec.zeros"
             % (name, tensor_type(shape)) for name, shape in params]
    args = [("%%%s: %s" % (name, type_)) for name, type_ in extra_args]
    if not is_loss:
        args.insert(0, "%%u: %s" % tensor_type(result_shape))
    lines.append("func.func @loss(%s) -> tensor<f32> {" % ", ".join(args))
    for name, shape in params:
        lines.append("  %%%s = mixprec.read @%s : %s"
                     % (name, name, tensor_type(shape)))
    lines.append("  " + op)
    if is_loss:
        lines.append("  return %r : tensor<f32>")
    else:
        rank = len(result_shape)
        lines.append("  %%m = mixprec.mul %%r, %%u : %s, %s"
                     % (tensor_type(result_shape), tensor_type(result_shape)))
        lines.append("  %%l = mixprec.reduce_sum %%m {dims = array<i64: %s>} "
                     ": %s" % (", ".join(map(str, range(rank))),
                               tensor_type(result_shape)))
        lines.append("  return %l : tensor<f32>")
    lines.append("}")
    lines.append("mixprec.train_step @train forward @loss optimizer "
                 "#mixprec.sgd<>")
    return "\n".join(lines)


def check(params, op, result_shape, reference, extra=None, is_loss=False,
          positive=False, seed=0, differences=True):
    """Compiles the gradient module, compares loss and gradients with
    autograd on `reference(*params, *extra)`, and (with `differences`) a
    directional derivative with central differences of the reference."""
    generator = torch.Generator().manual_seed(seed)
    extra = extra or []
    values = []
    for _, shape in params:
        value = torch.randn(shape, generator=generator)
        values.append(value.abs() + 0.5 if positive else value)
    upstream = torch.randn(result_shape, generator=generator)
    extra_args = [(name, tensor_type(list(v.shape),
                                     "i32" if v.dtype == torch.int32 else "f32"))
                  for name, v in extra]
    text = gradient_module(params, op, result_shape, extra_args, is_loss)
    model = compile_mlir(text, ("--autodiff",))
    function = model.functions["train_gradients"]

    named = {name: v for (name, _), v in zip(params, values)}
    named.update({name: v for name, v in extra})
    if not is_loss:
        named["u"] = upstream

    # Every input by its source name: the parameters, then u (unless the
    # op is the loss) and `extra`.
    def inputs(overrides=None):
        merged = dict(named, **(overrides or {}))
        return [to_numpy(merged[spec.name]) for spec in function.inputs]

    outputs = model.call("train_gradients", inputs())
    leaves = [v.clone().double().requires_grad_() for v in values]
    result = reference(*leaves, *[v for _, v in extra])
    loss = result if is_loss else (result * upstream.double()).sum()
    loss.backward()
    # The loss is an f32 sum of many products that may cancel: it is checked
    # against the size of its terms; the gradients are what is under test.
    terms = result.detach().abs() if is_loss else \
        (result.detach() * upstream.double()).abs()
    np.testing.assert_allclose(outputs[0], loss.item(), rtol=1e-5,
                               atol=1e-6 * max(float(terms.sum()), 1.0))
    for (name, _), leaf, gradient in zip(params, leaves, outputs[1:]):
        np.testing.assert_allclose(gradient, leaf.grad.numpy(), rtol=1e-5,
                                   atol=1e-6, err_msg=name)

    if not differences:
        return
    # Central differences of the float64 reference along a random
    # direction, against the compiled gradients: a check that does not rely
    # on autograd.
    direction = [torch.randn(v.shape, generator=generator).double()
                 for v in values]
    eps = 1e-6

    def reference_loss(sign):
        shifted = [v.double() + sign * eps * d
                   for v, d in zip(values, direction)]
        result = reference(*shifted, *[v for _, v in extra])
        return float(result if is_loss else (result * upstream.double()).sum())

    numeric = (reference_loss(1) - reference_loss(-1)) / (2 * eps)
    analytic = sum(float((torch.from_numpy(np.array(g)).double() * d).sum())
                   for g, d in zip(outputs[1:], direction))
    assert abs(numeric - analytic) <= 1e-4 * max(1.0, abs(numeric)), \
        (numeric, analytic)


M, K, N = 19, 23, 37
S = [7, 13]

UNARY = {
    "neg": (torch.neg, False), "abs": (torch.abs, False),
    "exp": (torch.exp, False),
    "log": (torch.log, True), "sqrt": (torch.sqrt, True),
    "rsqrt": (torch.rsqrt, True), "tanh": (torch.tanh, False),
    "sigmoid": (torch.sigmoid, False), "relu": (F.relu, False),
    "silu": (F.silu, False),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_adjoint(name):
    fn, positive = UNARY[name]
    check([("x", S)], "%%r = mixprec.%s %%x : %s" % (name, tensor_type(S)), S,
          fn, positive=positive)


@pytest.mark.parametrize("approximate", ["erf", "tanh"])
def test_gelu_adjoint(approximate):
    check([("x", S)], "%%r = mixprec.gelu %%x {approximate = "
          "#mixprec<gelu_approximation %s>} : %s" % (approximate,
                                                     tensor_type(S)), S,
          lambda x: F.gelu(x, approximate="none" if approximate == "erf"
                           else "tanh"))


BINARY = {"add": torch.add, "sub": torch.sub, "mul": torch.mul,
          "div": torch.div}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_adjoint(name):
    t = tensor_type(S)
    check([("a", S), ("b", S)],
          "%%r = mixprec.%s %%a, %%b : %s, %s" % (name, t, t), S,
          BINARY[name], positive=name == "div")


def test_pow_adjoint():
    t = tensor_type(S)
    check([("a", S), ("b", S)], "%%r = mixprec.pow %%a, %%b : %s, %s" % (t, t),
          S, torch.pow, positive=True)


def test_slice_adjoint():
    shape = [9, 11]
    check([("x", shape)], "%%r = mixprec.slice %%x {offsets = array<i64: 2, 3>"
          ", sizes = array<i64: 5, 6>} : %s" % tensor_type(shape), [5, 6],
          lambda x: x[2:7, 3:9])


def test_fan_out_sums_gradients():
    # x is used three times: the three contributions are summed.
    t = tensor_type(S)
    check([("x", S)], "%%p = mixprec.mul %%x, %%x : %s, %s\n"
          "  %%r = mixprec.add %%p, %%x : %s, %s" % (t, t, t, t), S,
          lambda x: x * x + x)


@pytest.mark.parametrize("transposes", [(False, False), (True, False),
                                        (False, True), (True, True)])
def test_matmul_adjoint(transposes):
    tl, tr = transposes
    lhs = [K, M] if tl else [M, K]
    rhs = [N, K] if tr else [K, N]
    flags = [f for f, on in (("transpose_lhs", tl), ("transpose_rhs", tr))
             if on]
    attrs = "{%s} " % ", ".join(flags) if flags else ""
    check([("a", lhs), ("b", rhs)],
          "%%r = mixprec.matmul %%a, %%b %s: %s, %s -> %s"
          % (attrs, tensor_type(lhs), tensor_type(rhs), tensor_type([M, N])),
          [M, N], lambda a, b: (a.t() if tl else a) @ (b.t() if tr else b))


def test_batch_matmul_adjoint():
    check([("a", [3, M, K]), ("b", [3, N, K])],
          "%%r = mixprec.batch_matmul %%a, %%b {transpose_rhs} : %s, %s -> %s"
          % (tensor_type([3, M, K]), tensor_type([3, N, K]),
             tensor_type([3, M, N])), [3, M, N],
          lambda a, b: a @ b.transpose(-1, -2))


@pytest.mark.parametrize("bias", [True, False])
def test_linear_adjoint(bias):
    params = [("x", [2, M, K]), ("w", [N, K])] + ([("b", [N])] if bias else [])
    operands = "%x, %w" + (", %b" if bias else "")
    types = ", ".join(tensor_type(s) for _, s in params)
    check(params, "%%r = mixprec.linear %s : %s -> %s"
          % (operands, types, tensor_type([2, M, N])), [2, M, N],
          lambda x, w, b=None: F.linear(x, w, b))


def test_shape_adjoints():
    t = tensor_type([4, 6, 5])
    check([("x", [4, 6, 5])],
          "%%t = mixprec.transpose %%x {permutation = array<i64: 2, 0, 1>} "
          ": %s\n  %%r = mixprec.reshape %%t : %s -> %s"
          % (t, tensor_type([5, 4, 6]), tensor_type([20, 6])), [20, 6],
          lambda x: x.permute(2, 0, 1).reshape(20, 6))


def test_broadcast_adjoint():
    check([("x", [6, 1])], "%%r = mixprec.broadcast %%x : %s -> %s"
          % (tensor_type([6, 1]), tensor_type([3, 6, 5])), [3, 6, 5],
          lambda x: x.expand(3, 6, 5))


def test_concat_adjoint():
    check([("a", [4, 3]), ("b", [4, 5])],
          "%%r = mixprec.concat %%a, %%b {axis = 1 : i64} : %s, %s"
          % (tensor_type([4, 3]), tensor_type([4, 5])), [4, 8],
          lambda a, b: torch.cat([a, b], 1))


@pytest.mark.parametrize("name", ["reduce_sum", "reduce_mean"])
@pytest.mark.parametrize("keepdim", [False, True])
def test_reduction_adjoint(name, keepdim):
    shape = [5, 7, 3]
    result = [5, 1, 3] if keepdim else [5, 3]
    check([("x", shape)], "%%r = mixprec.%s %%x {dims = array<i64: 1>%s} : %s"
          % (name, ", keepdim" if keepdim else "", tensor_type(shape)),
          result, lambda x: (x.sum if name == "reduce_sum" else x.mean)(
              1, keepdim=keepdim))


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_adjoint(name):
    fn = F.softmax if name == "softmax" else F.log_softmax
    check([("x", [M, N])], "%%r = mixprec.%s %%x {axis = 1 : i64} : %s"
          % (name, tensor_type([M, N])), [M, N], lambda x: fn(x, 1))


@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_adjoint(affine):
    shape = [3, 5, 40]
    params = [("x", shape)] + ([("g", [40]), ("b", [40])] if affine else [])
    text = ("%%r = mixprec.layer_norm %%x scale %%g bias %%b {axis = 2 : i64} "
            ": %s, %s, %s" % (tensor_type(shape), tensor_type([40]),
                              tensor_type([40])) if affine else
            "%%r = mixprec.layer_norm %%x {axis = 2 : i64} : %s"
            % tensor_type(shape))
    check(params, text, shape,
          lambda x, g=None, b=None: F.layer_norm(x, [40], g, b, 1e-5))


def test_mse_adjoint():
    check([("x", S), ("t", S)], "%%r = mixprec.mse %%x, %%t : %s, %s"
          % (tensor_type(S), tensor_type(S)), [], F.mse_loss, is_loss=True)


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_softmax_cross_entropy_adjoint(reduction):
    labels = torch.randint(0, 10, (M,), generator=torch.Generator()
                           .manual_seed(3), dtype=torch.int32)
    check([("x", [M, 10])],
          "%%r = mixprec.softmax_cross_entropy %%x, %%labels {reduction = "
          "#mixprec<reduction %s>} : %s, tensor<%dxi32>"
          % (reduction, tensor_type([M, 10]), M), [],
          lambda x, y: F.cross_entropy(x, y.long(), reduction=reduction),
          extra=[("labels", labels)], is_loss=True)


def test_cast_adjoint_is_a_cast_back():
    # x -> f16 -> relu -> f32: the gradient is cast to f16 for the relu's
    # adjoint and back to f32 for the parameter.
    t32, t16 = tensor_type(S), tensor_type(S, "f16")
    check([("x", S)], "%%h = mixprec.cast %%x : %s to %s\n"
          "  %%a = mixprec.relu %%h : %s\n"
          "  %%r = mixprec.cast %%a : %s to %s" % (t32, t16, t16, t16, t32),
          S, lambda x: F.relu(x.half().double()),
          # Rounding to f16 is a step function: no finite differences.
          differences=False)


# The batch inputs of each example's loss, by their source names.
EXAMPLE_BATCH = {"mlp": ("x", "labels"), "cnn": ("x", "labels"),
                 "transformer": ("tokens", "labels")}


def example_inputs(name, function, generator):
    """Weights and batch for an example model's gradient function."""
    values = {}
    for spec in function.inputs:
        shape = tuple(spec.shape)
        if spec.name == "rng_state":
            values[spec.name] = torch.tensor([1234, 5], dtype=torch.int64)
        elif spec.name.endswith("running_var"):
            values[spec.name] = torch.rand(shape, generator=generator) + 0.5
        elif spec.numpy_dtype == np.int32:
            high = {"mlp": 10, "cnn": 10}.get(name, 100 if len(shape) == 2
                                               else 4)
            values[spec.name] = torch.randint(0, high, shape,
                                              generator=generator,
                                              dtype=torch.int32)
        elif spec.name in EXAMPLE_BATCH[name]:
            values[spec.name] = torch.rand(shape, generator=generator)
        else:
            values[spec.name] = torch.randn(shape, generator=generator) * 0.3
    return values


def reference_loss(name, w, values):
    batch = tuple(values[arg] for arg in EXAMPLE_BATCH[name])
    if name == "mlp":
        return reference_models.mlp_loss(w, *batch)
    if name == "cnn":
        running = {k: v.clone().double() for k, v in values.items()
                   if "running" in k}
        return reference_models.cnn_loss(w, batch[0].double(), batch[1],
                                         running)
    return reference_models.transformer_loss(w, *batch, 1234, 5)


@pytest.mark.parametrize("name", ["mlp", "cnn", "transformer"])
def test_example_gradients_match_autograd(name):
    text = (EXAMPLES / (name + ".mlir")).read_text()
    model = compile_mlir(text, ("--autodiff",))
    function = model.functions["train_gradients"]
    values = example_inputs(name, function, torch.Generator().manual_seed(5))
    outputs = model.call("train_gradients",
                         [to_numpy(values[s.name]) for s in function.inputs])
    parameters = [spec.name for spec in function.inputs
                  if spec.name not in EXAMPLE_BATCH[name] + ("rng_state",)
                  and "running" not in spec.name]
    leaves = {k: values[k].clone().double().requires_grad_()
              for k in parameters}
    first = EXAMPLE_BATCH[name][0]
    batch = dict(values, **{first: values[first].double()
                            if values[first].is_floating_point()
                            else values[first]})
    loss = reference_loss(name, leaves, batch)
    loss.backward()
    np.testing.assert_allclose(outputs[0], loss.item(), rtol=1e-5, atol=1e-6)
    gradients = dict(zip(parameters, outputs[1:]))
    for parameter in parameters:
        np.testing.assert_allclose(gradients[parameter],
                                   leaves[parameter].grad.numpy(),
                                   rtol=1e-5, atol=1e-6, err_msg=parameter)


@pytest.mark.parametrize("stride, padding, bias", [(1, 1, False),
                                                   (2, 0, True)])
def test_conv2d_adjoint(stride, padding, bias):
    x, w = [2, 3, 9, 11], [5, 3, 3, 3]
    out = [2, 5, (9 + 2 * padding - 3) // stride + 1,
           (11 + 2 * padding - 3) // stride + 1]
    params = [("x", x), ("w", w)] + ([("b", [5])] if bias else [])
    operands = "%x, %w" + (", %b" if bias else "")
    types = ", ".join(tensor_type(s) for _, s in params)
    check(params, "%%r = mixprec.conv2d %s {stride = array<i64: %d, %d>, "
          "padding = array<i64: %d, %d>} : %s -> %s"
          % (operands, stride, stride, padding, padding, types,
             tensor_type(out)), out,
          lambda x, w, b=None: F.conv2d(x, w, b, stride, padding))


def test_embedding_adjoint():
    # Repeated tokens: their rows' gradients add up.
    tokens = torch.tensor([[1, 4, 1], [0, 4, 4]], dtype=torch.int32)
    check([("table", [6, 5])], "%%r = mixprec.embedding %%table, %%tokens : "
          "%s, tensor<2x3xi32>" % tensor_type([6, 5]), [2, 3, 5],
          lambda table, t: F.embedding(t.long(), table),
          extra=[("tokens", tokens)])


@pytest.mark.parametrize("name", ["max_pool2d", "avg_pool2d"])
def test_pool_adjoint(name):
    shape, out = [2, 3, 9, 9], [2, 3, 4, 4]
    fn = F.max_pool2d if name == "max_pool2d" else F.avg_pool2d
    check([("x", shape)], "%%r = mixprec.%s %%x {kernel = array<i64: 3, 3>, "
          "stride = array<i64: 2, 2>} : %s" % (name, tensor_type(shape)), out,
          lambda x: fn(x, 3, 2))


def test_batch_norm_adjoint():
    shape = [6, 4, 5, 5]
    stats = [("mean", torch.zeros(4)), ("var", torch.ones(4))]
    check([("x", shape), ("g", [4]), ("b", [4])],
          "%%r, %%rm, %%rv = mixprec.batch_norm %%x, %%mean, %%var scale %%g "
          "bias %%b : %s, %s, %s, %s" % (tensor_type(shape), tensor_type([4]),
                                        tensor_type([4]), tensor_type([4])),
          shape,
          lambda x, g, b, mean, var: F.batch_norm(
              x, mean.clone().double(), var.clone().double(), g, b,
              training=True),
          extra=stats)
