"""nn.MultiheadAttention (self-attention) and the transformer encoder,
expanded from their configuration and weights: fx cannot trace their
forwards (they branch on fast paths)."""
import math

import torch
from torch import nn

from . import functions
from .emitter import Value
from .lowering import Unavailable, module_lowering
from .registry import FUNCTIONS, lowers_module


def _attention_mask(ctx, mask, length):
    """An additive [L, L] float mask from a constant bool or float mask."""
    if mask is None:
        return None
    if isinstance(mask, Value):
        raise ctx.unsupported("an attention mask that is not constant",
                              "attn_mask must be constant (a causal mask "
                              "built from shapes); a padding mask given with "
                              "the batch goes in key_padding_mask or "
                              "src_key_padding_mask")
    if mask.dim() != 2 or tuple(mask.shape) != (length, length):
        raise ctx.unsupported("an attention mask of shape %s" %
                              list(mask.shape), "it must be [L, L]")
    if mask.dtype == torch.bool:
        return torch.zeros(mask.shape).masked_fill(mask, float("-inf"))
    return mask.to(torch.float32)


def _padding_mask(ctx, mask, batch, length):
    """The [B, 1, 1, L] i1 value of a bool key padding mask ([B, L], true
    at the keys no query attends to), given with the batch or constant."""
    if mask is None:
        return None
    if isinstance(mask, Value):
        if mask.dtype != "i1":
            raise ctx.unsupported("a key padding mask of dtype %s" %
                                  mask.dtype, "it must be a bool tensor")
    elif mask.dtype != torch.bool:
        raise ctx.unsupported("a key padding mask of dtype %s" % mask.dtype,
                              "it must be a bool tensor")
    if tuple(mask.shape) != (batch, length):
        raise ctx.unsupported("a key padding mask of shape %s" %
                              list(mask.shape), "it must be [B, L]")
    return ctx.ops.reshape(ctx.value(mask), (batch, 1, 1, length))


def self_attention(ctx, m, x, mask, batch_first, padding=None):
    """The output of `m` (nn.MultiheadAttention) on x attending to
    itself; `padding`, a bool [B, L], masks keys out."""
    if not m._qkv_same_embed_dim or m.bias_k is not None or m.add_zero_attn:
        raise ctx.unsupported("nn.MultiheadAttention with kdim/vdim, "
                              "add_bias_kv or add_zero_attn")
    ops = ctx.ops
    if not batch_first:
        x = ops.transpose(x, (1, 0, 2))
    batch, length, width = x.shape
    heads = m.num_heads
    depth = width // heads
    qkv = ops.linear(x, ctx.state(m.in_proj_weight, "in_proj_weight"),
                     None if m.in_proj_bias is None else
                     ctx.state(m.in_proj_bias, "in_proj_bias"))

    def head(index):
        part = ops.slice(qkv, (0, 0, index * width), (batch, length, width))
        return ops.transpose(ops.reshape(part, (batch, length, heads, depth)),
                             (0, 2, 1, 3))

    q, k, v = head(0), head(1), head(2)
    scores = ops.matmul(q, k, transpose_rhs=True)
    scores = ops.binary("mul", scores,
                        ctx.value(1.0 / math.sqrt(depth), scores))
    additive = _attention_mask(ctx, mask, length)
    if additive is not None:
        scores = ops.binary("add", scores, ctx.value(additive, scores))
    # PyTorch adds -inf at the padded keys; a select gives the same scores.
    padded = _padding_mask(ctx, padding, batch, length)
    if padded is not None:
        scores = ops.where(padded, ctx.value(float("-inf"), scores), scores)
    probs = ops.softmax("softmax", scores, 3)
    probs = functions.dropout(ctx, probs, m.dropout, m.training)
    context = ops.transpose(ops.matmul(probs, v), (0, 2, 1, 3))
    context = ops.reshape(context, (batch, length, width))
    out = ops.linear(context, ctx.state(m.out_proj.weight, "out_proj.weight"),
                     None if m.out_proj.bias is None else
                     ctx.state(m.out_proj.bias, "out_proj.bias"))
    return out if batch_first else ops.transpose(out, (1, 0, 2))


@lowers_module(nn.MultiheadAttention)
def multihead_attention(ctx, query, key, value, key_padding_mask=None,
                        need_weights=True, attn_mask=None,
                        average_attn_weights=True):
    if not (query is key is value):
        raise ctx.unsupported("nn.MultiheadAttention other than "
                              "self-attention (query, key and value differ)")
    x = functions.float_operand(ctx, query)
    out = self_attention(ctx, ctx.module, x, attn_mask,
                         ctx.module.batch_first, key_padding_mask)
    return (out, Unavailable("the attention weights of "
                             "nn.MultiheadAttention (need_weights)"))


def _call(ctx, module, *args):
    """Lowers a submodule of the layer being expanded."""
    lowering = module_lowering(module)
    if lowering is None:
        raise ctx.unsupported("module %s" % type(module).__name__)
    return lowering(ctx.within(module), *args)


def _activation(ctx, layer, x):
    """The layer's activation: a module, or a function with a lowering
    (F.relu, F.gelu, torch.relu, F.silu, ...)."""
    activation = layer.activation
    if isinstance(activation, nn.Module):
        return _call(ctx, activation, x)
    lowering = FUNCTIONS.get(activation)
    if lowering is not None:
        return lowering(ctx, x)
    raise ctx.unsupported("the activation %r of nn.TransformerEncoderLayer"
                          % (activation,))


def encoder_layer(ctx, layer, x, mask, padding):
    def attention(h):
        out = self_attention(ctx, layer.self_attn, h, mask,
                             layer.self_attn.batch_first, padding)
        return _call(ctx, layer.dropout1, out)

    def feed_forward(h):
        h = _activation(ctx, layer, _call(ctx, layer.linear1, h))
        h = _call(ctx, layer.linear2, _call(ctx, layer.dropout, h))
        return _call(ctx, layer.dropout2, h)

    ops = ctx.ops
    if layer.norm_first:
        x = ops.binary("add", x, attention(_call(ctx, layer.norm1, x)))
        return ops.binary("add", x, feed_forward(_call(ctx, layer.norm2, x)))
    x = _call(ctx, layer.norm1, ops.binary("add", x, attention(x)))
    return _call(ctx, layer.norm2, ops.binary("add", x, feed_forward(x)))


@lowers_module(nn.TransformerEncoderLayer)
def transformer_encoder_layer(ctx, src, src_mask=None,
                              src_key_padding_mask=None):
    return encoder_layer(ctx, ctx.module, functions.float_operand(ctx, src),
                         src_mask, src_key_padding_mask)


@lowers_module(nn.TransformerEncoder)
def transformer_encoder(ctx, src, mask=None, src_key_padding_mask=None):
    x = functions.float_operand(ctx, src)
    for index, layer in enumerate(ctx.module.layers):
        x = encoder_layer(ctx.within(layer, "layers.%d" % index), layer, x,
                          mask, src_key_padding_mask)
    if ctx.module.norm is not None:
        x = _call(ctx, ctx.module.norm, x)
    return x
