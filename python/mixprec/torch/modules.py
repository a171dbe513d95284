"""Lowerings of torch.nn's layers, activations and pooling (fx keeps every
torch.nn module as one call)."""
from torch import nn

from . import functions
from .emitter import i64_array
from .registry import lowers_module


def _pair(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value, value)


def _optional_state(ctx, tensor, what):
    return None if tensor is None else ctx.state(tensor, what)


@lowers_module(nn.Linear)
def linear(ctx, input):
    m = ctx.module
    return ctx.ops.linear(functions.float_operand(ctx, input),
                          ctx.state(m.weight, "weight"),
                          _optional_state(ctx, m.bias, "bias"))


@lowers_module(nn.Conv2d)
def conv2d(ctx, input):
    m = ctx.module
    if m.padding_mode != "zeros":
        raise ctx.unsupported("nn.Conv2d with padding_mode=%r" %
                              m.padding_mode)
    if isinstance(m.padding, str):
        raise ctx.unsupported("nn.Conv2d with padding=%r" % m.padding,
                              "give the padding as numbers")
    attrs = ("stride = %s, padding = %s, dilation = %s, groups = %d : i64" % (
        _array(m.stride), _array(m.padding), _array(m.dilation), m.groups))
    return ctx.ops.conv2d(functions.float_operand(ctx, input),
                          ctx.state(m.weight, "weight"),
                          _optional_state(ctx, m.bias, "bias"), ctx.shape(),
                          attrs)


def _array(values):
    return i64_array(_pair(values))


@lowers_module(nn.BatchNorm1d, nn.BatchNorm2d)
def batch_norm(ctx, input):
    m = ctx.module
    name = type(m).__name__
    if not m.track_running_stats or m.momentum is None:
        raise ctx.unsupported(
            "nn.%s without running statistics or with momentum=None" % name,
            "track_running_stats=True and a number for momentum")
    x = functions.float_operand(ctx, input)
    ops = ctx.ops
    # [N, C, L] runs as [N, C, L, 1].
    inner = ops.reshape(x, x.shape + (1,)) if len(x.shape) == 3 else x
    mean = ctx.state(m.running_mean, "running_mean")
    var = ctx.state(m.running_var, "running_var")
    scale = _optional_state(ctx, m.weight, "weight")
    bias = _optional_state(ctx, m.bias, "bias")
    training = ctx.training and m.training
    result, new_mean, new_var = ops.batch_norm(
        inner, mean, var, scale, bias, m.eps, m.momentum, training)
    if training:
        lowering = ctx.lowering
        lowering.update_buffer(m.running_mean, new_mean, ctx)
        lowering.update_buffer(m.running_var, new_var, ctx)
        count = ctx.state(m.num_batches_tracked, "num_batches_tracked")
        lowering.update_buffer(m.num_batches_tracked,
                               ops.unary("increment", count), ctx)
    return ops.reshape(result, x.shape)


@lowers_module(nn.LayerNorm)
def layer_norm(ctx, input):
    m = ctx.module
    x = functions.float_operand(ctx, input)
    axis = len(x.shape) - len(m.normalized_shape)
    if m.elementwise_affine:
        return ctx.ops.layer_norm(x, ctx.state(m.weight, "weight"),
                                  ctx.state(m.bias, "bias"), axis, m.eps)
    return ctx.ops.layer_norm(x, None, None, axis, m.eps)


@lowers_module(nn.Embedding)
def embedding(ctx, input):
    m = ctx.module
    for argument in ("padding_idx", "max_norm", "scale_grad_by_freq",
                     "sparse"):
        value = getattr(m, argument)
        if value is not None and value is not False:  # padding_idx=0 too
            raise ctx.unsupported("nn.Embedding with %s=%r" % (argument,
                                                                value))
    indices = ctx.value(input)
    if indices.dtype not in ("i32", "i64"):
        raise ctx.unsupported("nn.Embedding of %s indices" % indices.dtype)
    return ctx.ops.embedding(ctx.state(m.weight, "weight"), indices)


@lowers_module(nn.Dropout)
def dropout(ctx, input):
    return functions.dropout(ctx, input, ctx.module.p, ctx.module.training)


def _activation(module_type, name):
    lowers_module(module_type)(
        lambda ctx, input: ctx.ops.unary(name, functions.float_operand(ctx, input)))


_activation(nn.ReLU, "relu")
_activation(nn.Tanh, "tanh")
_activation(nn.Sigmoid, "sigmoid")
_activation(nn.SiLU, "silu")


@lowers_module(nn.GELU)
def gelu(ctx, input):
    return functions.gelu(ctx, input, ctx.module.approximate)


@lowers_module(nn.Softmax)
def softmax(ctx, input):
    return functions.softmax(ctx, input, ctx.module.dim)


@lowers_module(nn.LogSoftmax)
def log_softmax(ctx, input):
    return functions.log_softmax(ctx, input, ctx.module.dim)


@lowers_module(nn.Identity)
def identity(ctx, input, *args, **kwargs):
    return ctx.value(input)


@lowers_module(nn.Flatten, nn.Unflatten)
def flatten(ctx, input):
    return ctx.ops.reshape(ctx.value(input), ctx.shape())


def _pool(ctx, name, input, kernel, stride, padding):
    x = functions.float_operand(ctx, input)
    stride = kernel if stride is None else stride
    return ctx.ops.pool2d(name, x, _pair(kernel), _pair(stride),
                          _pair(padding), ctx.shape())


@lowers_module(nn.MaxPool2d)
def max_pool2d(ctx, input):
    m = ctx.module
    if m.ceil_mode or m.return_indices or _pair(m.dilation) != (1, 1):
        raise ctx.unsupported("nn.MaxPool2d with ceil_mode, return_indices "
                              "or dilation")
    return _pool(ctx, "max_pool2d", input, m.kernel_size, m.stride, m.padding)


@lowers_module(nn.AvgPool2d)
def avg_pool2d(ctx, input):
    m = ctx.module
    if (m.ceil_mode or not m.count_include_pad or
            m.divisor_override is not None):
        raise ctx.unsupported("nn.AvgPool2d with ceil_mode, "
                              "count_include_pad=False or divisor_override")
    return _pool(ctx, "avg_pool2d", input, m.kernel_size, m.stride, m.padding)


@lowers_module(nn.AdaptiveAvgPool2d)
def adaptive_avg_pool2d(ctx, input):
    if _pair(ctx.module.output_size) != (1, 1):
        raise ctx.unsupported(
            "nn.AdaptiveAvgPool2d(%r)" % (ctx.module.output_size,),
            "only output size 1 (global average pooling)")
    x = functions.float_operand(ctx, input)
    return ctx.ops.reduce("reduce_mean", x, [len(x.shape) - 2,
                                             len(x.shape) - 1], keepdim=True)
