"""nn.LSTM and nn.GRU, unrolled over the sequence's steps (its length is
static) from their configuration and weights, with PyTorch's gate order
and formulas (aten/src/ATen/native/RNN.cpp's LSTMCell and GRUCell): each
layer's input projection runs on all steps at once, the recurrent one step
by step; dropout between layers as nn.LSTM applies it in training."""
from torch import nn

from . import functions
from .emitter import Value
from .registry import lowers_module


def _check(ctx, module, x):
    if not isinstance(x, Value):
        raise ctx.unsupported("%s on a %s" % (type(module).__name__,
                                              type(x).__name__),
                              "give it the padded batch as one tensor "
                              "(a PackedSequence's steps depend on the data)")
    if getattr(module, "proj_size", 0):
        raise ctx.unsupported("nn.LSTM with proj_size")
    if len(x.shape) != 3:
        raise ctx.unsupported("%s on an input of rank %d" % (
            type(module).__name__, len(x.shape)), "it must be batched "
            "(rank 3)")


def _weights(ctx, module, layer, suffix):
    """(weight_ih, weight_hh, bias_ih, bias_hh) of one layer and
    direction."""
    def state(kind):
        name = "%s_l%d%s" % (kind, layer, suffix)
        tensor = getattr(module, name, None)
        return None if tensor is None else ctx.state(tensor, name)
    return (state("weight_ih"), state("weight_hh"), state("bias_ih"),
            state("bias_hh"))


def _step(ctx, pre, t, batch):
    """Step t of the projected inputs [B, L, G] as [B, G]."""
    gates = pre.shape[2]
    return ctx.ops.reshape(ctx.ops.slice(pre, (0, t, 0), (batch, 1, gates)),
                           (batch, gates))


def _gate(ctx, gates, index, hidden):
    batch = gates.shape[0]
    return ctx.ops.slice(gates, (0, index * hidden), (batch, hidden))


def _lstm_cell(ctx, x, h, c, weight_hh, bias_hh, hidden):
    ops = ctx.ops
    gates = ops.binary("add", ops.linear(h, weight_hh, bias_hh), x)
    i = ops.unary("sigmoid", _gate(ctx, gates, 0, hidden))
    f = ops.unary("sigmoid", _gate(ctx, gates, 1, hidden))
    g = ops.unary("tanh", _gate(ctx, gates, 2, hidden))
    o = ops.unary("sigmoid", _gate(ctx, gates, 3, hidden))
    c = ops.binary("add", ops.binary("mul", f, c), ops.binary("mul", i, g))
    return ops.binary("mul", o, ops.unary("tanh", c)), c


def _gru_cell(ctx, x, h, c, weight_hh, bias_hh, hidden):
    ops = ctx.ops
    recurrent = ops.linear(h, weight_hh, bias_hh)
    r = ops.unary("sigmoid", ops.binary("add", _gate(ctx, x, 0, hidden),
                                        _gate(ctx, recurrent, 0, hidden)))
    z = ops.unary("sigmoid", ops.binary("add", _gate(ctx, x, 1, hidden),
                                        _gate(ctx, recurrent, 1, hidden)))
    n = ops.unary("tanh", ops.binary(
        "add", _gate(ctx, x, 2, hidden),
        ops.binary("mul", r, _gate(ctx, recurrent, 2, hidden))))
    # PyTorch's form: n + z * (h - n).
    return ops.binary("add", n, ops.binary(
        "mul", z, ops.binary("sub", h, n))), None


def _initial(ctx, state, index, batch, hidden, like):
    """Row `index` of an initial state [layers * directions, B, H], or
    zeros."""
    if state is None:
        return ctx.ops.broadcast(ctx.value(0.0, like), (batch, hidden))
    state = functions.float_operand(ctx, state)
    return ctx.ops.reshape(ctx.ops.slice(state, (index, 0, 0),
                                         (1, batch, hidden)), (batch, hidden))


def _run(ctx, cell, x, h0, c0):
    """The module's output [B, L, directions * H] (batch first) and its
    final states, each [layers * directions, B, H] (c for the LSTM)."""
    module, ops = ctx.module, ctx.ops
    batch, length, _ = x.shape
    hidden = module.hidden_size
    directions = 2 if module.bidirectional else 1
    finals_h, finals_c = [], []
    for layer in range(module.num_layers):
        if layer > 0:
            x = functions.dropout(ctx, x, module.dropout, module.training)
        outputs = []
        for direction in range(directions):
            weight_ih, weight_hh, bias_ih, bias_hh = _weights(
                ctx, module, layer, "_reverse" if direction else "")
            pre = ops.linear(x, weight_ih, bias_ih)
            index = layer * directions + direction
            h = _initial(ctx, h0, index, batch, hidden, pre)
            c = None if cell is _gru_cell else _initial(ctx, c0, index, batch,
                                                        hidden, pre)
            steps = [None] * length
            order = range(length - 1, -1, -1) if direction else range(length)
            for t in order:
                h, c = cell(ctx, _step(ctx, pre, t, batch), h, c, weight_hh,
                            bias_hh, hidden)
                steps[t] = ops.reshape(h, (batch, 1, hidden))
            outputs.append(ops.concat(steps, 1, (batch, length, hidden)))
            finals_h.append(ops.reshape(h, (1, batch, hidden)))
            if c is not None:
                finals_c.append(ops.reshape(c, (1, batch, hidden)))
        x = outputs[0] if directions == 1 else ops.concat(
            outputs, 2, (batch, length, directions * hidden))
    count = module.num_layers * directions

    def stacked(finals):
        return ops.concat(finals, 0, (count, batch, hidden))
    return x, stacked(finals_h), stacked(finals_c) if finals_c else None


def _batch_first(ctx, x):
    return x if ctx.module.batch_first else ctx.ops.transpose(x, (1, 0, 2))


@lowers_module(nn.LSTM)
def lstm(ctx, input, hx=None):
    _check(ctx, ctx.module, input)
    x = _batch_first(ctx, functions.float_operand(ctx, input))
    h0, c0 = hx if hx is not None else (None, None)
    out, h, c = _run(ctx, _lstm_cell, x, h0, c0)
    return _batch_first(ctx, out), (h, c)


@lowers_module(nn.GRU)
def gru(ctx, input, hx=None):
    _check(ctx, ctx.module, input)
    x = _batch_first(ctx, functions.float_operand(ctx, input))
    out, h, _ = _run(ctx, _gru_cell, x, hx, None)
    return _batch_first(ctx, out), h
