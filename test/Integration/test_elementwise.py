"""Elementwise ops, casts and constants on the CPU backend against PyTorch."""
import pytest
import torch

from harness import assert_close, random, run, tensor_type

# Every test runs on the CPU library and on its CUDA build (simulated).
pytestmark = pytest.mark.usefixtures("backend")

SHAPE = (37, 53)  # larger than a tile and not divisible by it
FLOAT_TYPES = ["f32", "f16", "bf16"]

BINARY = {
    "add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div,
    "maximum": torch.maximum, "minimum": torch.minimum,
}
UNARY = {
    "neg": torch.neg, "abs": torch.abs, "exp": torch.exp, "tanh": torch.tanh,
    "sigmoid": torch.sigmoid, "relu": torch.relu,
    "gelu": torch.nn.functional.gelu, "silu": torch.nn.functional.silu,
}


def unary_module(op, dtype, attrs=""):
    t = tensor_type(SHAPE, dtype)
    return """
func.func @f(%%x: %s) -> %s {
  %%y = mixprec.%s %%x %s: %s
  return %%y : %s
}""" % (t, t, op, attrs, t, t)


def binary_module(op, lhs, rhs, result):
    a, b, r = (tensor_type(SHAPE, d) for d in (lhs, rhs, result))
    return """
func.func @f(%%x: %s, %%y: %s) -> %s {
  %%z = mixprec.%s %%x, %%y : %s, %s
  return %%z : %s
}""" % (a, b, r, op, a, b, r)


@pytest.mark.parametrize("dtype", FLOAT_TYPES)
@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary(op, dtype):
    x, y = random(SHAPE, dtype, 1), random(SHAPE, dtype, 2)
    (z,) = run(binary_module(op, dtype, dtype, dtype), "f", [x, y])
    assert_close(z, BINARY[op](x.float(), y.float()), dtype)


def test_pow():
    x = random(SHAPE, "f32", 1).abs() + 0.1
    y = random(SHAPE, "f32", 2)
    (z,) = run(binary_module("pow", "f32", "f32", "f32"), "f", [x, y])
    assert_close(z, torch.pow(x, y), "f32")


@pytest.mark.parametrize("lhs,rhs,result", [("f16", "f32", "f32"),
                                            ("bf16", "f32", "f32"),
                                            ("f16", "bf16", "f32")])
def test_mixed_operands_promote(lhs, rhs, result):
    x, y = random(SHAPE, lhs, 3), random(SHAPE, rhs, 4)
    (z,) = run(binary_module("add", lhs, rhs, result), "f", [x, y])
    assert_close(z, x.float() + y.float(), result)


@pytest.mark.parametrize("dtype", FLOAT_TYPES)
@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary(op, dtype):
    x = random(SHAPE, dtype, 5)
    (y,) = run(unary_module(op, dtype), "f", [x])
    assert_close(y, UNARY[op](x.float()), dtype)


@pytest.mark.parametrize("dtype", FLOAT_TYPES)
@pytest.mark.parametrize("op,fn", [("log", torch.log), ("sqrt", torch.sqrt),
                                   ("rsqrt", torch.rsqrt)])
def test_unary_positive_domain(op, fn, dtype):
    x = (random(SHAPE, "f32", 6).abs() + 0.01).to(
        {"f32": torch.float32, "f16": torch.float16,
         "bf16": torch.bfloat16}[dtype])
    (y,) = run(unary_module(op, dtype), "f", [x])
    assert_close(y, fn(x.float()), dtype)


@pytest.mark.parametrize("dtype", FLOAT_TYPES)
def test_gelu_tanh(dtype):
    x = random(SHAPE, dtype, 7)
    attrs = "{approximate = #mixprec<gelu_approximation tanh>} "
    (y,) = run(unary_module("gelu", dtype, attrs), "f", [x])
    assert_close(y, torch.nn.functional.gelu(x.float(), approximate="tanh"),
                 dtype)


def test_nan_and_inf_propagate():
    x = torch.tensor([[float("nan"), float("inf"), -float("inf"), 1.0]])
    t = tensor_type((1, 4), "f32")
    text = """
func.func @f(%%x: %s) -> (%s, %s) {
  %%r = mixprec.relu %%x : %s
  %%m = mixprec.maximum %%x, %%x : %s, %s
  return %%r, %%m : %s, %s
}""" % ((t,) * 8)
    relu, maximum = run(text, "f", [x])
    assert_close(relu, torch.relu(x), "f32")
    assert_close(maximum, torch.maximum(x, x), "f32")


@pytest.mark.parametrize("dtype", FLOAT_TYPES)
@pytest.mark.parametrize("low,high", [(-0.5, 0.75), (0.0, None),
                                      (None, 0.1), (-1e6, 1e6)])
def test_clamp(low, high, dtype):
    # Ties on the bounds, NaN (stays NaN, as torch.clamp) and +-inf; a bound
    # 0.1 that f16 and bf16 round, and bounds beyond f16's range.
    x = random(SHAPE, dtype, 8, scale=2.0)
    x[0, :6] = torch.tensor([-0.5, 0.75, float("nan"), float("inf"),
                             -float("inf"), 0.0])
    attrs = "{%s} " % ", ".join(
        "%s = %r : f64" % (name, bound)
        for name, bound in (("min", low), ("max", high)) if bound is not None)
    (y,) = run(unary_module("clamp", dtype, attrs), "f", [x])
    assert_close(y, torch.clamp(x.float(), low, high), dtype)
    assert torch.isnan(y[0, 2])


def mask_literal(mask):
    """The dense<...> text of a bool tensor: nested lists of true/false."""
    def nested(rows):
        if rows.dim() == 0:
            return "true" if bool(rows) else "false"
        return "[%s]" % ", ".join(nested(row) for row in rows)
    return "dense<%s>" % nested(mask)


def where_module(mask, values, result):
    """@arg(%c, %x, %y) selects by its i1 argument; @constant(%x, %y) by the
    constant `mask`, between %x and %y and between %x and a splat f32 -inf."""
    shape = tuple(mask.shape)
    c, x, y, r, f = (tensor_type(shape, d)
                     for d in ("i1",) + tuple(values) + (result, "f32"))
    return """
func.func @arg(%c: {c}, %x: {x}, %y: {y}) -> {r} {{
  %z = mixprec.where %c, %x, %y : {c}, {x}, {y}
  return %z : {r}
}}
func.func @constant(%x: {x}, %y: {y}) -> ({r}, {f}) {{
  %c = mixprec.constant {mask} : {c}
  %z = mixprec.where %c, %x, %y : {c}, {x}, {y}
  %inf = mixprec.constant dense<0xFF800000> : {f}
  %filled = mixprec.where %c, %x, %inf : {c}, {x}, {f}
  return %z, %filled : {r}, {f}
}}""".format(c=c, x=x, y=y, r=r, f=f, mask=mask_literal(mask))


@pytest.mark.parametrize("values,result", [
    (("f32", "f32"), "f32"), (("f16", "f16"), "f16"),
    (("bf16", "bf16"), "bf16"), (("f16", "f32"), "f32"),
    (("bf16", "f16"), "f32")])
def test_where(values, result):
    # The element not chosen never enters: infinities and NaN on the other
    # side stay out of the result (x * c + y * (1 - c) would give NaN), and
    # a -inf fill gives -inf where the mask is false.
    mask = random(SHAPE, "f32", 9) > 0
    x, y = random(SHAPE, values[0], 10), random(SHAPE, values[1], 11)
    x[~mask] = float("inf")
    y[mask] = float("nan")
    x[0, :3], y[0, :3] = float("-inf"), float("inf")
    mask[0, :3] = torch.tensor([True, False, True])
    (z,) = run(where_module(mask, values, result), "arg", [mask, x, y])
    expected = torch.where(mask, x.float(), y.float())
    assert_close(z, expected, result)
    assert not z.float().isnan().any()
    z, filled = run(where_module(mask, values, result), "constant", [x, y])
    assert_close(z, expected, result)
    assert_close(filled, torch.where(mask, x.float(), float("-inf")), "f32")
    assert (filled[~mask] == float("-inf")).all()


@pytest.mark.parametrize("source,target", [
    ("f32", "f16"), ("f32", "bf16"), ("f16", "f32"), ("bf16", "f32"),
    ("f16", "bf16"), ("bf16", "f16")])
def test_cast_rounds_to_nearest_even(source, target):
    # Values around the 16-bit rounding boundaries, overflow and NaN.
    x = torch.cat([random((1000,), "f32", 8) * 1000,
                   torch.tensor([65504.0, 65520.0, 1e6, -1e6, float("nan"),
                                 float("inf"), 6e-8, 1e-40, 0.0, -0.0])])
    x = x.to({"f32": torch.float32, "f16": torch.float16,
              "bf16": torch.bfloat16}[source])
    a, b = tensor_type(x.shape, source), tensor_type(x.shape, target)
    text = """
func.func @f(%%x: %s) -> %s {
  %%y = mixprec.cast %%x : %s to %s
  return %%y : %s
}""" % (a, b, a, b, b)
    (y,) = run(text, "f", [x])
    expected = x.float().to({"f32": torch.float32, "f16": torch.float16,
                             "bf16": torch.bfloat16}[target])
    # Bit-exact: a cast rounds once, to nearest even.
    assert torch.equal(y.float().isnan(), expected.float().isnan())
    finite = ~expected.float().isnan()
    assert torch.equal(y.float()[finite], expected.float()[finite])


def test_cast_integer_to_float():
    labels = torch.arange(-50, 50, dtype=torch.int32).reshape(10, 10)
    text = """
func.func @f(%x: tensor<10x10xi32>) -> tensor<10x10xf32> {
  %y = mixprec.cast %x : tensor<10x10xi32> to tensor<10x10xf32>
  return %y : tensor<10x10xf32>
}"""
    (y,) = run(text, "f", [labels])
    assert torch.equal(y, labels.float())


def test_logical_not_and_a_mask_as_float():
    # A padding mask negated, returned as it is and as 0 and 1.
    mask = random(SHAPE, "f32", 12) > 0
    m, f = tensor_type(SHAPE, "i1"), tensor_type(SHAPE, "f32")
    text = """
func.func @f(%m: {m}) -> ({m}, {f}) {{
  %keep = mixprec.logical_not %m : {m}
  %k = mixprec.cast %keep : {m} to {f}
  return %keep, %k : {m}, {f}
}}""".format(m=m, f=f)
    keep, k = run(text, "f", [mask])
    assert torch.equal(keep, ~mask)
    assert torch.equal(k, (~mask).float())


def test_constant():
    text = """
func.func @f() -> tensor<2x3xf16> {
  %c = mixprec.constant dense<[[1.0, 2.5, -3.0], [0.1, 65504.0, 7.0]]> : tensor<2x3xf16>
  return %c : tensor<2x3xf16>
}"""
    (c,) = run(text, "f", [])
    expected = torch.tensor([[1.0, 2.5, -3.0], [0.1, 65504.0, 7.0]]).half()
    assert torch.equal(c, expected)
