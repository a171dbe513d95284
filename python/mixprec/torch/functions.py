"""Lowerings of torch functions and Tensor methods: arithmetic, math,
reductions, normalization and shape manipulation."""
import math
import operator

import numpy as np
import torch
import torch.nn.functional as F

from .emitter import MLIR_TYPES, TORCH_TYPES, Value
from .lowering import Unavailable
from .registry import lowers


def float_operand(ctx, x, like=None, what="operand"):
    value = ctx.value(x, like)
    if not value.is_float:
        raise ctx.unsupported("arithmetic on a %s tensor" % value.dtype,
                              "the %s must be a float tensor" % what)
    return value


def _operands(ctx, a, b):
    """Two float operands; a bool mask among them is promoted to the other's
    float type, as PyTorch promotes it."""
    values = [v for v in (a, b) if isinstance(v, Value)]
    floats = [v for v in values if v.is_float]
    like = floats[0] if floats else values[0] if values else None

    def operand(x):
        if isinstance(x, Value) and x.dtype == "i1":
            return ctx.ops.cast(x, like.dtype if like.is_float else "f32")
        return float_operand(ctx, x, like)
    return operand(a), operand(b)


def _axis(dim, rank):
    return dim % rank if rank else 0


# Arithmetic.
@lowers(operator.add, operator.iadd, torch.add, "add")
def add(ctx, input, other, alpha=1):
    if alpha != 1:
        other = mul(ctx, other, alpha)
    return ctx.ops.binary("add", *_operands(ctx, input, other))


@lowers(operator.sub, operator.isub, torch.sub, "sub")
def sub(ctx, input, other, alpha=1):
    if alpha != 1:
        other = mul(ctx, other, alpha)
    return ctx.ops.binary("sub", *_operands(ctx, input, other))


@lowers(torch.rsub)
def rsub(ctx, input, other, alpha=1):
    return sub(ctx, other, mul(ctx, input, alpha) if alpha != 1 else input)


@lowers(operator.mul, operator.imul, torch.mul, "mul")
def mul(ctx, input, other):
    return ctx.ops.binary("mul", *_operands(ctx, input, other))


@lowers(operator.truediv, operator.itruediv, torch.div, torch.true_divide,
        "div", "true_divide")
def div(ctx, input, other, rounding_mode=None):
    if rounding_mode is not None:
        raise ctx.unsupported("division with rounding_mode=%r" % rounding_mode)
    return ctx.ops.binary("div", *_operands(ctx, input, other))


@lowers(operator.neg, torch.neg, "neg")
def neg(ctx, input):
    return ctx.ops.unary("neg", float_operand(ctx, input))


@lowers(operator.pow, torch.pow, "pow")
def power(ctx, input, exponent):
    if (isinstance(input, Value) and isinstance(exponent, (int, float))
            and exponent == 2):
        return ctx.ops.binary("mul", input, input)  # exact, as PyTorch's
    return ctx.ops.binary("pow", *_operands(ctx, input, exponent))


def _unary(name, *targets):
    def lower(ctx, input):
        return ctx.ops.unary(name, float_operand(ctx, input))
    lowers(*targets)(lower)


_unary("exp", torch.exp, "exp")
_unary("log", torch.log, "log")
_unary("sqrt", torch.sqrt, "sqrt")
_unary("rsqrt", torch.rsqrt, "rsqrt")
_unary("abs", torch.abs, "abs")
_unary("tanh", torch.tanh, F.tanh, "tanh")
_unary("sigmoid", torch.sigmoid, F.sigmoid, "sigmoid")


@lowers(F.relu, torch.relu, "relu")
def relu(ctx, input, inplace=False):
    return ctx.ops.unary("relu", float_operand(ctx, input))


@lowers(F.silu)
def silu(ctx, input, inplace=False):
    return ctx.ops.unary("silu", float_operand(ctx, input))


@lowers(F.hardtanh)
def hardtanh(ctx, input, min_val=-1.0, max_val=1.0, inplace=False,
             what="F.hardtanh"):
    """mixprec.clamp whose gradient stops at the bounds, as PyTorch's
    hardtanh_backward (x <= min or x >= max: 0)."""
    if not (_finite_number(min_val) and _finite_number(max_val)
            and min_val <= max_val):
        raise ctx.unsupported("%s(min_val=%r, max_val=%r)" % (
            what, min_val, max_val), "finite bounds with min_val <= max_val")
    return ctx.ops.clamp(float_operand(ctx, input), min_val, max_val,
                         strict=True)


@lowers(F.relu6)
def relu6(ctx, input, inplace=False):
    return hardtanh(ctx, input, 0.0, 6.0, what="F.relu6")


@lowers(F.hardsigmoid)
def hardsigmoid(ctx, input, inplace=False):
    """min(max(x + 3, 0), 6) / 6, as PyTorch computes it; the gradient is
    grad / 6 for -3 < x < 3 and 0 elsewhere."""
    x = float_operand(ctx, input)
    shifted = ctx.ops.binary("add", x, ctx.ops.scalar(3.0, x.dtype))
    limited = ctx.ops.clamp(shifted, 0.0, 6.0, strict=True)
    return ctx.ops.binary("div", limited, ctx.ops.scalar(6.0, x.dtype))


@lowers(F.hardswish)
def hardswish(ctx, input, inplace=False):
    """x * min(max(x + 3, 0), 6) / 6, as PyTorch computes it. Its gradient
    is this product's: 0 below -3, x / 3 + 0.5 from -3 up to 3, 1 from 3 on
    -- the ties as PyTorch's vectorized hardswish_backward takes them (its
    scalar loop, for a tensor's last few elements, gives 1.5 at x = 3), so
    the max(., 0) passes its tie and the min(., 6) stops it."""
    x = float_operand(ctx, input)
    shifted = ctx.ops.binary("add", x, ctx.ops.scalar(3.0, x.dtype))
    limited = ctx.ops.clamp(ctx.ops.clamp(shifted, min=0.0), max=6.0,
                            strict=True)
    product = ctx.ops.binary("mul", x, limited)
    return ctx.ops.binary("div", product, ctx.ops.scalar(6.0, x.dtype))


@lowers(F.softplus)
def softplus(ctx, input, beta=1, threshold=20):
    """log(1 + e^(beta x)) / beta as max(z, 0) + log(1 + e^-|z|), z = beta
    x. PyTorch returns x above the threshold; from z = 16 on this rounds to
    z too (e^-z is lost beside 1), so a threshold of 16 or more is exact
    there. Below z = -16 it gives 0 where PyTorch's log1p gives e^z
    (< 1.2e-7). Its gradient is sigmoid(z), PyTorch's."""
    if not (_finite_number(beta) and beta > 0 and _finite_number(threshold)
            and threshold >= 16):
        raise ctx.unsupported("F.softplus(beta=%r, threshold=%r)" % (
            beta, threshold), "a finite beta > 0 and a threshold of at "
            "least 16 (PyTorch's default is 20)")
    ops = ctx.ops
    x = float_operand(ctx, input)
    z = x if beta == 1 else ops.binary("mul", x, ops.scalar(beta, x.dtype))
    tail = ops.unary("log", ops.binary(
        "add", ops.scalar(1.0, x.dtype),
        ops.unary("exp", ops.unary("neg", ops.unary("abs", z)))))
    # max(z, 0) as (z + |z|) / 2: the same values, and at z = 0 the
    # gradient 1/2 that makes the whole sigmoid(0) (a clamp passes 1 at
    # its bound).
    positive = ops.binary("mul", ops.binary("add", z, ops.unary("abs", z)),
                          ops.scalar(0.5, x.dtype))
    result = ops.binary("add", positive, tail)
    return result if beta == 1 else ops.binary(
        "div", result, ops.scalar(beta, x.dtype))


@lowers(F.mish)
def mish(ctx, input, inplace=False):
    """x tanh(softplus(x)), as PyTorch defines it."""
    x = float_operand(ctx, input)
    return ctx.ops.binary("mul", x, ctx.ops.unary("tanh",
                                                  softplus(ctx, x)))


@lowers(F.prelu, torch.prelu)
def prelu(ctx, input, weight):
    """max(x, 0) + a min(x, 0), a per channel (dim 1) or one for all: x
    above 0, a x below, as PyTorch's prelu; at x = 0 the gradient is a's
    (the max stops there, the min passes)."""
    ops = ctx.ops
    x = float_operand(ctx, input)
    a = float_operand(ctx, weight, x)
    if a.shape != (1,):
        if len(x.shape) < 2 or a.shape != (x.shape[1],):
            raise ctx.unsupported("F.prelu with a weight of shape %s" %
                                  list(a.shape), "one value, or one per "
                                  "channel (dim 1)")
        a = ops.reshape(a, (1, x.shape[1]) + (1,) * (len(x.shape) - 2))
    return ops.binary("add", ops.clamp(x, min=0.0, strict=True),
                      ops.binary("mul", a, ops.clamp(x, max=0.0)))


@lowers(F.group_norm)
def group_norm(ctx, input, num_groups, weight=None, bias=None, eps=1e-5):
    """mixprec.layer_norm over each sample's group of channels (and their
    positions), then the per-channel weight and bias."""
    ops = ctx.ops
    x = float_operand(ctx, input)
    batch, channels = x.shape[:2]
    if channels % num_groups:
        raise ctx.unsupported("group_norm of %d channels in %d groups" % (
            channels, num_groups), "the groups must divide the channels")
    grouped = ops.reshape(x, (batch, num_groups,
                              math.prod(x.shape) // (batch * num_groups)))
    y = ops.reshape(ops.layer_norm(grouped, None, None, 2, eps), x.shape)
    per_channel = (1, channels) + (1,) * (len(x.shape) - 2)
    if weight is not None:
        y = ops.binary("mul", y, ops.reshape(float_operand(ctx, weight, y),
                                             per_channel))
    if bias is not None:
        y = ops.binary("add", y, ops.reshape(float_operand(ctx, bias, y),
                                             per_channel))
    return y


def _source_scale(input_size, output_size, scale_factor, align_corners):
    """PyTorch's area_pixel_compute_scale for one axis."""
    if align_corners:
        return (input_size - 1) / (output_size - 1) if output_size > 1 else 0.0
    return 1.0 / scale_factor if scale_factor else input_size / output_size


def _interpolation_matrix(mode, input_size, output_size, scale_factor,
                          align_corners):
    """[output, input]: the weights of each output position on the
    inputs, as PyTorch's upsample_nearest2d and upsample_bilinear2d
    compute them."""
    matrix = torch.zeros(output_size, input_size)
    scale = _source_scale(input_size, output_size, scale_factor,
                          align_corners)
    for out in range(output_size):
        if mode == "nearest":
            source = min(int(math.floor(out * np.float32(scale))),
                         input_size - 1)
            matrix[out, source] = 1.0
            continue
        if align_corners:
            source = scale * out
        else:
            source = max(scale * (out + 0.5) - 0.5, 0.0)
        low = int(source)
        high = low + (1 if low < input_size - 1 else 0)
        weight = source - low
        matrix[out, low] += 1.0 - weight
        matrix[out, high] += weight
    return matrix


@lowers(F.interpolate, F.upsample)
def interpolate(ctx, input, size=None, scale_factor=None, mode="nearest",
                align_corners=None, recompute_scale_factor=None,
                antialias=False):
    """nearest and bilinear on [N, C, H, W]. nearest by an integer factor
    repeats each element (broadcasts); otherwise each spatial axis is a
    product with the constant matrix of PyTorch's weights (one per output
    position in nearest, two in bilinear), W first, then H, as PyTorch
    groups the sums."""
    ops = ctx.ops
    x = float_operand(ctx, input)
    if mode not in ("nearest", "bilinear") or antialias or len(x.shape) != 4:
        raise ctx.unsupported("F.interpolate(mode=%r%s) on a rank-%d input" %
                              (mode, ", antialias=True" if antialias else "",
                               len(x.shape)), "nearest or bilinear, on "
                              "[N, C, H, W]")
    out_shape = ctx.shape()
    factors = scale_factor if isinstance(scale_factor, (tuple, list)) else (
        scale_factor, scale_factor)
    if recompute_scale_factor:
        factors = (None, None)
    batch, channels, height, width = x.shape
    # A repeat where PyTorch's index is out // factor: an integer factor
    # given or implied (not scale_factor=3.05 on 10 rows, which PyTorch
    # indexes by 1 / 3.05).
    if mode == "nearest" and all(
            o % i == 0 and (f is None or f == o // i)
            for o, i, f in zip(out_shape[2:], x.shape[2:], factors)):
        h, w = out_shape[2] // height, out_shape[3] // width
        spread = ops.broadcast(
            ops.reshape(x, (batch, channels, height, 1, width, 1)),
            (batch, channels, height, h, width, w))
        return ops.reshape(spread, out_shape)
    corners = bool(align_corners) and mode == "bilinear"
    along_w = _interpolation_matrix(mode, width, out_shape[3], factors[1],
                                    corners)
    along_h = _interpolation_matrix(mode, height, out_shape[2], factors[0],
                                    corners)
    dtype = TORCH_TYPES[x.dtype]
    y = ops.linear(x, ctx.value(along_w.to(dtype)), None)
    y = ops.linear(ops.transpose(y, (0, 1, 3, 2)),
                   ctx.value(along_h.to(dtype)), None)
    return ops.transpose(y, (0, 1, 3, 2))


@lowers(F.gelu)
def gelu(ctx, input, approximate="none"):
    if approximate == "tanh":
        return ctx.ops.unary("gelu", float_operand(ctx, input),
                             "approximate = #mixprec<gelu_approximation tanh>")
    if approximate != "none":
        raise ctx.unsupported("F.gelu with approximate=%r" % approximate)
    return ctx.ops.unary("gelu", float_operand(ctx, input))


@lowers(torch.maximum, "maximum")
def maximum(ctx, input, other):
    return ctx.ops.binary("maximum", *_operands(ctx, input, other))


@lowers(torch.minimum, "minimum")
def minimum(ctx, input, other):
    return ctx.ops.binary("minimum", *_operands(ctx, input, other))


def _finite_number(bound):
    return (isinstance(bound, (int, float)) and not isinstance(bound, bool)
            and math.isfinite(bound))


@lowers(torch.clamp, torch.clip, "clamp", "clip")
def clamp(ctx, input, min=None, max=None):
    """Number bounds lower to mixprec.clamp, whose gradient passes in full at
    a tie with a bound, as PyTorch's; tensor bounds (and infinite numbers or
    min > max, which mixprec.clamp refuses) to maximum/minimum."""
    result = float_operand(ctx, input)
    numbers = {name: bound for name, bound in (("min", min), ("max", max))
               if _finite_number(bound)}
    if len(numbers) == 2 and min > max:
        numbers = {}
    if min is not None and "min" not in numbers:
        result = maximum(ctx, result, min)
    if numbers:
        # A number min precedes a tensor max, and a tensor min a number max.
        result = ctx.ops.clamp(result, **numbers)
    if max is not None and "max" not in numbers:
        result = minimum(ctx, result, max)
    return result


@lowers(torch.clamp_min, "clamp_min")
def clamp_min(ctx, input, min):
    return clamp(ctx, input, min=min)


@lowers(torch.clamp_max, "clamp_max")
def clamp_max(ctx, input, max):
    return clamp(ctx, input, max=max)


# Reductions.
def _dims(dim, rank):
    # PyTorch 1.13 reduces every dim for dim=[] as for dim=None.
    if dim is None or (isinstance(dim, (tuple, list)) and not dim):
        return list(range(rank))
    dims = [dim] if isinstance(dim, int) else list(dim)
    return [_axis(d, rank) for d in dims]


def _reduce(ctx, name, input, dim, keepdim, dtype):
    x = float_operand(ctx, input)
    if dtype is not None and MLIR_TYPES.get(dtype) != x.dtype:
        raise ctx.unsupported("a reduction with dtype=%s" % dtype)
    return ctx.ops.reduce(name, x, _dims(dim, len(x.shape)), keepdim)


@lowers(torch.sum, "sum")
def reduce_sum(ctx, input, dim=None, keepdim=False, dtype=None):
    return _reduce(ctx, "reduce_sum", input, dim, keepdim, dtype)


@lowers(torch.mean, "mean")
def reduce_mean(ctx, input, dim=None, keepdim=False, dtype=None):
    return _reduce(ctx, "reduce_mean", input, dim, keepdim, dtype)


@lowers(torch.amax, "amax")
def amax(ctx, input, dim=(), keepdim=False):
    return _reduce(ctx, "reduce_max", input, dim if dim != () else None,
                   keepdim, None)


class _ValuesAndIndices(tuple):
    """torch.max(x, dim)'s result: `.values` (and [0]); its indices are
    not computed."""

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]


@lowers(torch.max, "max")
def max_or_maximum(ctx, input, dim=None, keepdim=False):
    if isinstance(dim, (Value, torch.Tensor)):
        return maximum(ctx, input, dim)
    values = _reduce(ctx, "reduce_max", input, dim, keepdim, None)
    if dim is None:
        return values
    return _ValuesAndIndices((values, Unavailable(
        "the indices of torch.max (argmax)")))


@lowers(torch.min, "min")
def min_or_minimum(ctx, input, dim=None, keepdim=False):
    if isinstance(dim, (Value, torch.Tensor)):
        return minimum(ctx, input, dim)
    # min(x) = -max(-x), exactly.
    negated = neg(ctx, input)
    values = neg(ctx, _reduce(ctx, "reduce_max", negated, dim, keepdim,
                              None))
    if dim is None:
        return values
    return _ValuesAndIndices((values, Unavailable(
        "the indices of torch.min (argmin)")))


@lowers(getattr)
def get_attribute(ctx, obj, name):
    if isinstance(obj, _ValuesAndIndices) and name in ("values", "indices"):
        return getattr(obj, name)
    if isinstance(obj, Value) and name == "T":
        return ctx.ops.transpose(obj, reversed(range(len(obj.shape))))
    raise ctx.unsupported("the attribute '%s'" % name)


# Normalization. F.softmax's third parameter is _stacklevel, torch.softmax's
# and Tensor.softmax's is dtype.
def _softmax_lowerings(name, functional, function):
    """Registers the lowerings of F.<name> and of torch.<name> /
    Tensor.<name>; returns the latter."""
    def lower_functional(ctx, input, dim=None, _stacklevel=3, dtype=None):
        return _softmax(ctx, name, input, dim, dtype)

    def lower(ctx, input, dim, dtype=None):
        return _softmax(ctx, name, input, dim, dtype)

    lowers(functional)(lower_functional)
    lowers(function, name)(lower)
    return lower


softmax = _softmax_lowerings("softmax", F.softmax, torch.softmax)
log_softmax = _softmax_lowerings("log_softmax", F.log_softmax,
                                 torch.log_softmax)


def _softmax(ctx, name, input, dim, dtype):
    if dim is None:
        raise ctx.unsupported("%s without dim" % name)
    x = float_operand(ctx, input)
    if dtype is not None and MLIR_TYPES.get(dtype) != x.dtype:
        raise ctx.unsupported("%s with dtype=%s" % (name, dtype),
                              "convert the input instead (x.float())")
    return ctx.ops.softmax(name, x, _axis(dim, len(x.shape)))


@lowers(F.layer_norm)
def layer_norm(ctx, input, normalized_shape, weight=None, bias=None,
               eps=1e-5):
    x = float_operand(ctx, input)
    axis = len(x.shape) - len(tuple(normalized_shape))
    scale = bias_value = None
    if weight is not None or bias is not None:
        shape = tuple(x.shape[axis:])
        scale = ctx.value(weight if weight is not None else torch.ones(shape))
        bias_value = ctx.value(bias if bias is not None else
                               torch.zeros(shape))
    return ctx.ops.layer_norm(x, scale, bias_value, axis, eps)


@lowers(F.dropout, torch.dropout, "dropout")
def dropout(ctx, input, p=0.5, training=True, inplace=False):
    x = float_operand(ctx, input)
    if not (training and ctx.training) or p == 0:
        return x
    if p == 1:  # PyTorch's x * 0: zeros (NaN where x is not finite)
        return ctx.ops.binary("mul", x, ctx.value(0.0, x))
    return ctx.ops.dropout(x, ctx.rng(), p, ctx.dropout_stream())


def stochastic_depth(ctx, input, p, mode, training=True):
    """torchvision.ops.stochastic_depth: the identity in eval mode or at
    p = 0; else `input` times a noise of 0 or 1 / (1 - p), one draw per
    sample ("row") or one for the batch ("batch"), as PyTorch computes it.
    The noise is dropout's (Philox) on ones of that shape: the same draws
    on every backend."""
    if not (isinstance(p, (int, float)) and 0 <= p <= 1):
        raise ctx.unsupported("stochastic_depth with p = %r" % (p,),
                              "a probability from 0 to 1")
    if mode not in ("row", "batch"):
        raise ctx.unsupported("stochastic_depth with mode %r" % (mode,),
                              'mode "row" or "batch"')
    x = float_operand(ctx, input)
    if not (training and ctx.training) or p == 0:
        return x
    shape = [x.shape[0] if mode == "row" else 1] + [1] * (len(x.shape) - 1)
    # At p = 1 dropout gives zeros: x * 0, as PyTorch.
    noise = dropout(ctx, ctx.ops.constant(torch.ones(shape), x.dtype), p)
    return ctx.ops.binary("mul", x, noise)


try:
    import torchvision.ops
    lowers(torchvision.ops.stochastic_depth)(stochastic_depth)
except ImportError:  # torchvision is optional
    pass


@lowers(F.linear)
def linear(ctx, input, weight, bias=None):
    x = float_operand(ctx, input)
    return ctx.ops.linear(x, ctx.value(weight), None if bias is None
                          else ctx.value(bias))


# Matrix products.
@lowers(operator.matmul, torch.matmul, torch.bmm, torch.mm, "matmul", "bmm",
        "mm")
def matmul(ctx, input, other):
    lhs, rhs = _operands(ctx, input, other)
    if len(lhs.shape) < 2 or len(rhs.shape) < 2:
        raise ctx.unsupported("a matrix product of a 1-d tensor",
                              "reshape the vector to a matrix")
    if len(rhs.shape) == 2 and len(lhs.shape) > 2:
        # [..., k] @ [k, n]: one matrix product over the flattened rows.
        rows = ctx.ops.reshape(lhs, (math.prod(lhs.shape[:-1]),
                                     lhs.shape[-1]))
        return ctx.ops.reshape(ctx.ops.matmul(rows, rhs), ctx.shape())
    batch = tuple(torch.broadcast_shapes(lhs.shape[:-2], rhs.shape[:-2]))
    lhs = ctx.ops.broadcast(lhs, batch + lhs.shape[-2:])
    rhs = ctx.ops.broadcast(rhs, batch + rhs.shape[-2:])
    return ctx.ops.matmul(lhs, rhs)


@lowers(torch.einsum)
def einsum(ctx, equation, *operands):
    """A product of two tensors written as an einsum (attention's
    "bhid,bhjd->bhij"): each operand transposed to (batch, its own, summed)
    letters and flattened to a matrix per batch index, one matrix product,
    and the result put in the output's order. Letters are single letters
    (spaces between them allowed); one operand, `...`, a letter twice in
    one operand, one summed away in a single operand, or one whose sizes
    differ between the operands (a broadcast) are refused."""
    if len(operands) == 1 and isinstance(operands[0], (tuple, list)):
        operands = tuple(operands[0])
    terms = equation.replace(" ", "")
    if "..." in terms or "->" not in terms or len(operands) != 2:
        raise ctx.unsupported(
            "torch.einsum(%r) with %d operands" % (equation, len(operands)),
            "give two operands and the output's letters after '->', "
            "without '...'")
    inputs, output = terms.split("->")
    lhs_letters, rhs_letters = inputs.split(",")
    for letters in (lhs_letters, rhs_letters, output):
        if len(set(letters)) != len(letters):
            raise ctx.unsupported("torch.einsum(%r)" % equation,
                                  "a letter repeated in one term (a "
                                  "diagonal) is not supported")
    if set(output) - set(lhs_letters + rhs_letters) or (
            set(lhs_letters) ^ set(rhs_letters)) - set(output):
        raise ctx.unsupported("torch.einsum(%r)" % equation,
                              "a letter summed in one operand alone is not "
                              "supported: sum it first")
    lhs, rhs = _operands(ctx, *operands)
    size = dict(zip(lhs_letters, lhs.shape))
    for letter, extent in zip(rhs_letters, rhs.shape):
        if size.setdefault(letter, extent) != extent:
            raise ctx.unsupported(
                "torch.einsum(%r) with %s of sizes %d and %d" % (
                    equation, letter, size[letter], extent),
                "a letter's size-1 dimension broadcast against another "
                "size is not supported: expand the operand first")
    batch = [c for c in output if c in lhs_letters and c in rhs_letters]
    own_lhs = [c for c in output if c not in rhs_letters]
    own_rhs = [c for c in output if c not in lhs_letters]
    summed = [c for c in lhs_letters if c not in output]

    def arranged(x, letters, order):
        return ctx.ops.transpose(x, [letters.index(c) for c in order])

    lhs = arranged(lhs, lhs_letters, batch + own_lhs + summed)
    rhs = arranged(rhs, rhs_letters, batch + summed + own_rhs)
    batch_shape = tuple(size[c] for c in batch)
    rows = math.prod(size[c] for c in own_lhs)
    columns = math.prod(size[c] for c in own_rhs)
    depth = math.prod(size[c] for c in summed)
    product = ctx.ops.matmul(
        ctx.ops.reshape(lhs, batch_shape + (rows, depth)),
        ctx.ops.reshape(rhs, batch_shape + (depth, columns)))
    produced = batch + own_lhs + own_rhs
    product = ctx.ops.reshape(product, [size[c] for c in produced])
    return ctx.ops.transpose(product, [produced.index(c) for c in output])


# Shapes.
def _to_example_shape(ctx, input):
    return ctx.ops.reshape(ctx.value(input), ctx.shape())


for _name in ("reshape", "view", "flatten", "unsqueeze", "squeeze",
              "view_as", "reshape_as"):
    lowers(_name)(lambda ctx, input, *args, **kwargs:
                  _to_example_shape(ctx, input))
lowers(torch.reshape, torch.flatten, torch.unsqueeze, torch.squeeze)(
    lambda ctx, input, *args, **kwargs: _to_example_shape(ctx, input))


@lowers("contiguous")
def contiguous(ctx, input, memory_format=torch.contiguous_format):
    return input


@lowers("expand", "expand_as", "broadcast_to", torch.broadcast_to)
def expand(ctx, input, *sizes):
    return ctx.ops.broadcast(ctx.value(input), ctx.shape())


@lowers("permute", torch.permute)
def permute(ctx, input, *dims):
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = dims[0]
    x = ctx.value(input)
    return ctx.ops.transpose(x, [_axis(d, len(x.shape)) for d in dims])


@lowers("transpose", torch.transpose, "swapaxes", torch.swapaxes)
def transpose(ctx, input, dim0, dim1):
    x = ctx.value(input)
    order = list(range(len(x.shape)))
    a, b = _axis(dim0, len(order)), _axis(dim1, len(order))
    order[a], order[b] = order[b], order[a]
    return ctx.ops.transpose(x, order)


@lowers("t", torch.t)
def t(ctx, input):
    return transpose(ctx, input, 0, -1)


@lowers("float", "type_as", "to")
def convert(ctx, input, *args, **kwargs):
    x = ctx.value(input)
    dtype = MLIR_TYPES.get(ctx.example.dtype)
    if dtype is None or dtype == "i1":
        raise ctx.unsupported("a conversion to %s" % ctx.example.dtype)
    return ctx.ops.cast(x, dtype)


@lowers(torch.cat, torch.concat)
def cat(ctx, tensors, dim=0):
    values = [ctx.value(t) for t in tensors]
    return ctx.ops.concat(values, _axis(dim, len(values[0].shape)),
                          ctx.shape())


@lowers(torch.stack)
def stack(ctx, tensors, dim=0):
    values = [ctx.value(t) for t in tensors]
    axis = _axis(dim, len(values[0].shape) + 1)
    expanded = [ctx.ops.reshape(v, v.shape[:axis] + (1,) + v.shape[axis:])
                for v in values]
    return ctx.ops.concat(expanded, axis, ctx.shape())


@lowers("chunk", torch.chunk)
def chunk(ctx, input, chunks, dim=0):
    return _pieces(ctx, input, dim)


@lowers("split", torch.split)
def split(ctx, input, split_size_or_sections=None, dim=0, split_size=None):
    # Tensor.split names its sizes split_size, torch.split
    # split_size_or_sections; the example results give the pieces' sizes.
    return _pieces(ctx, input, dim)


@lowers("unbind", torch.unbind)
def unbind(ctx, input, dim=0):
    return _pieces(ctx, input, dim)


def _pieces(ctx, input, dim):
    """The results of chunk, split or unbind along `dim`, shaped as the
    example's."""
    x = ctx.value(input)
    axis = _axis(dim, len(x.shape))
    pieces, offset = [], 0
    for example in ctx.example:
        size = example.shape[axis] if example.dim() == len(x.shape) else 1
        offsets = [0] * len(x.shape)
        offsets[axis] = offset
        sizes = list(x.shape)
        sizes[axis] = size
        piece = ctx.ops.slice(x, offsets, sizes)
        pieces.append(ctx.ops.reshape(piece, tuple(example.shape)))
        offset += size
    return tuple(pieces)


@lowers(operator.getitem)
def getitem(ctx, container, index):
    if not isinstance(container, Value):
        return container[index]  # a tuple of results
    return _index(ctx, container, index)


def _index(ctx, x, index):
    """Basic indexing: integers, slices with positive steps, None and
    Ellipsis; and the rows of `x` an integer tensor picks (a relative
    position bias table indexed by a constant index buffer), a gather."""
    if _is_integer_tensor(index):
        return _gather_rows(ctx, x, index)
    items = list(index) if isinstance(index, tuple) else [index]
    if any(isinstance(i, (Value, torch.Tensor, list)) for i in items):
        raise ctx.unsupported("indexing with a tensor or list",
                              "only integers, slices, None and ... index")
    explicit = len([i for i in items if i is not None and i is not ...])
    if ... in items:
        at = items.index(...)
        items[at:at + 1] = [slice(None)] * (len(x.shape) - explicit)
    else:
        items += [slice(None)] * (len(x.shape) - explicit)
    offsets, sizes, strides = [], [], []
    dim = 0
    for item in items:
        if item is None:
            continue
        extent = x.shape[dim]
        if isinstance(item, int):
            offsets.append(item % extent)
            sizes.append(1)
            strides.append(1)
        else:
            start, stop, step = item.indices(extent)
            if step <= 0:
                raise ctx.unsupported("a slice with step %d" % step)
            offsets.append(start)
            sizes.append(max(0, (stop - start + step - 1) // step))
            strides.append(step)
        dim += 1
    return ctx.ops.reshape(ctx.ops.slice(x, offsets, sizes, strides),
                           ctx.shape())


def _is_integer_tensor(index):
    """An index tensor of integers (a uint8 one is a mask to PyTorch)."""
    if isinstance(index, Value):
        return index.dtype in ("i32", "i64")
    return isinstance(index, torch.Tensor) and index.dtype in (
        torch.int8, torch.int16, torch.int32, torch.int64)


def _gather_rows(ctx, x, index):
    """x[index]: the rows of x at `index` (mixprec.embedding), negative
    indices of a constant counted from the end as PyTorch counts them; an
    index outside the rows stops the step with an index error."""
    if not x.is_float:
        raise ctx.unsupported("indexing a %s tensor with a tensor" % x.dtype,
                              "only float tensors are gathered from")
    if isinstance(index, torch.Tensor):
        index = ctx.value(torch.remainder(index, x.shape[0]).to(torch.int64))
    # Each row a row of the table, whatever the rank.
    table = ctx.ops.reshape(x, (x.shape[0], math.prod(x.shape[1:])))
    return ctx.ops.reshape(ctx.ops.embedding(table, index), ctx.shape())


# Tensors made from another's shape and dtype only: constants of the step.
@lowers(torch.zeros_like, torch.ones_like, torch.full_like, "new_zeros",
        "new_ones", "new_full")
def constant_like(ctx, input, *args, **kwargs):
    return ctx.example


# Masks: constant ones (built from shapes, such as a causal mask) and bool
# tensors of the batch; comparing tensors is not computed.
_COMPARISONS = {operator.lt: "operator <", operator.le: "operator <=",
                operator.gt: "operator >", operator.ge: "operator >=",
                operator.eq: "operator ==", operator.ne: "operator !=",
                torch.lt: "torch.lt", torch.le: "torch.le",
                torch.gt: "torch.gt", torch.ge: "torch.ge",
                torch.eq: "torch.eq", torch.ne: "torch.ne"}


@lowers(*_COMPARISONS, "lt", "le", "gt", "ge", "eq", "ne")
def comparison(ctx, input, other):
    """A comparison of data is not computed: using its mask raises."""
    target = ctx.node.target
    return Unavailable(
        "a mask computed from the data (%s)" % _COMPARISONS.get(
            target, "Tensor.%s" % target),
        "masks and conditions are not computed from the inputs or "
        "parameters (a bool mask given with the batch, or a constant one "
        "such as a causal mask built from shapes, is supported)")


def _mask(ctx, mask, what):
    """The i1 value of `mask`: a bool tensor of the batch (or computed from
    one), or a constant."""
    if isinstance(mask, Value):
        if mask.dtype != "i1":
            raise ctx.unsupported("%s with a mask of dtype %s" % (
                what, mask.dtype), "the mask must be a bool tensor")
        return mask
    return ctx.value(torch.as_tensor(mask).to(torch.bool))


@lowers(operator.invert, torch.logical_not, "logical_not")
def logical_not(ctx, input):
    x = ctx.value(input)
    if x.dtype != "i1":
        raise ctx.unsupported("~ or logical_not on a %s tensor" % x.dtype,
                              "it negates bool masks")
    return ctx.ops.logical_not(x)


@lowers("masked_fill", torch.masked_fill)
def masked_fill(ctx, input, mask, value):
    x = float_operand(ctx, input)
    mask = _mask(ctx, mask, "masked_fill")
    if isinstance(value, (Value, torch.Tensor)):
        if isinstance(value, Value) or value.dim() != 0:
            raise ctx.unsupported("masked_fill with a tensor value")
        value = value.item()
    # A select, not arithmetic: x's inf or NaN under the mask (an earlier
    # masked_fill with -inf) does not reach the result (inf * 0 = NaN).
    return ctx.ops.where(mask, ctx.value(float(value), x), x)


@lowers(torch.where)
def where(ctx, condition, input=None, other=None):
    if input is None:
        raise ctx.unsupported("torch.where(condition) (nonzero indices)")
    condition = _mask(ctx, condition, "torch.where")
    # A select: the value not chosen, inf or NaN, does not reach the result.
    return ctx.ops.where(condition, *_operands(ctx, input, other))
