#!/usr/bin/python3
"""Random *valid* mixprec models.

`generate(seed)` returns a model (MLIR text and the description of its
inputs) drawn by `random.Random(seed)` alone, so a seed always gives the same
model. A model has a train step (SGD, Adam or AdamW with random
hyper-parameters, gradient accumulation), a forward loss function and two
eval-mode functions (`@predict`, per-row logits; `@eval_loss`). Its network
chains random blocks over flat, sequence and image activations with odd
shapes (1, primes, sizes that are no multiple of a tile, now and then past
one), and uses every forward op of the dialect between them: contractions
(with transposes, groups, strides, dilations), elementwise ops kept finite
by construction, normalizations (batch-norm running statistics assigned as
buffers), pooling, embeddings, dropout, reductions, slices, concatenation,
casts to f16 and bf16, precision pins, parameter initializers and
weight-decay overrides. The loss is cross-entropy against class labels
and/or a mean-squared error.

    random_models.py SEED    # prints the model of SEED

random_model_pipelines.py runs models through every pipeline;
docs/random-models.md describes both.
"""
import math
import random
import re
import sys

from mlir_text import i64_array, tensor_type

ODD_SIZES = (1, 2, 3, 5, 7, 11, 13, 17)
# Past one tile of the CUDA tensor-core GEMM (64 x 64 x 32) and of the CPU's
# register tiles, by an odd remainder.
WIDE_SIZES = (33, 65, 67, 97)
FLOATS = ("f16", "bf16")


def num_elements(shape):
    return math.prod(shape)


class Value:
    """An SSA value of a function body: its name, shape and element type."""

    def __init__(self, name, shape, dtype):
        self.name, self.shape, self.dtype = name, tuple(shape), dtype

    @property
    def type(self):
        return tensor_type(self.shape, self.dtype)

    @property
    def rank(self):
        return len(self.shape)

    def __str__(self):
        return self.name


class Function:
    """One func.func under construction. `training` selects the forward's
    ops (dropout and batch norm in training mode, running statistics
    assigned) or the eval functions' (the same network, eval mode)."""

    def __init__(self, model, name, training):
        self.model, self.name, self.training = model, name, training
        self.args, self.lines, self.counter = [], [], 0
        self.reads, self.rng = {}, None

    def arg(self, name, shape, dtype, kind, high=None):
        value = Value("%" + name, shape, dtype)
        self.args.append((value, {"shape": list(shape), "dtype": dtype,
                                  "kind": kind, "high": high}))
        return value

    def fresh(self):
        self.counter += 1
        return "%%v%d" % self.counter

    def emit(self, text, shape, dtype):
        """Appends `%vN = text` and returns %vN."""
        value = Value(self.fresh(), shape, dtype)
        self.lines.append("%s = %s" % (value.name, text))
        return value

    def emit_multi(self, text, results):
        names = [self.fresh() for _ in results]
        self.lines.append("%s = %s" % (", ".join(names), text))
        return [Value(n, s, d) for n, (s, d) in zip(names, results)]

    def read(self, symbol):
        """The state `symbol` read once per function."""
        if symbol not in self.reads:
            shape, dtype = self.model.state[symbol]
            self.reads[symbol] = self.emit(
                "mixprec.read @%s : %s" % (symbol, tensor_type(shape, dtype)),
                shape, dtype)
        return self.reads[symbol]

    def rng_state(self):
        if self.rng is None:
            self.rng = self.emit("mixprec.rng_state", (2,), "i64")
        return self.rng

    def text(self, results):
        signature = ", ".join("%s: %s" % (v.name, v.type)
                              for v, _ in self.args)
        result_types = ", ".join(v.type for v in results)
        body = "\n".join("    " + line for line in self.lines)
        return ("  func.func @%s(%s) -> (%s) {\n%s\n    return %s : %s\n  }"
                % (self.name, signature, result_types, body,
                   ", ".join(v.name for v in results), result_types))


def attr_dict(attrs):
    return " {%s}" % ", ".join(attrs) if attrs else ""


class Network:
    """Draws the network's blocks. The forward and the eval functions call
    it with equal random generators, so they build the same network over
    the same parameters; only `fn.training` differs, and it never changes
    what is drawn."""

    def __init__(self, model, fn, rng):
        self.model, self.fn, self.rng = model, fn, rng
        self.streams = 0

    # Random choices that never depend on the function's mode.
    def size(self, choices=ODD_SIZES):
        """A dim from `choices`; for a layer's width, now and then a wide
        one."""
        if choices is ODD_SIZES and self.chance(0.08):
            return self.rng.choice(WIDE_SIZES)
        return self.rng.choice(choices)

    def chance(self, p):
        return self.rng.random() < p

    def pin(self, attrs):
        """A precision pin on a compute op, now and then."""
        if self.chance(0.08):
            attrs.append("mixprec.precision = %s"
                         % self.rng.choice(("f32", "f16", "bf16")))
        return attrs

    # Parameters.
    def param(self, name, shape, kind="weight", dtype="f32"):
        return self.fn.read(self.model.declare_parameter(name, shape, kind,
                                                         self.rng, dtype))

    # Elementwise helpers.
    def constant(self, value, like):
        """`value` in `like`'s shape and type, splat or broadcast."""
        if self.chance(0.5) or not like.shape:
            return self.fn.emit("mixprec.constant dense<%r> : %s"
                                % (value, like.type), like.shape, like.dtype)
        scalar = self.fn.emit("mixprec.constant dense<%r> : %s"
                              % (value, tensor_type((), like.dtype)),
                              (), like.dtype)
        return self.broadcast(scalar, like.shape)

    def splat(self, value, like):
        return self.fn.emit("mixprec.constant dense<%r> : %s"
                            % (value, like.type), like.shape, like.dtype)

    def broadcast(self, value, shape):
        return self.fn.emit("mixprec.broadcast %s : %s -> %s"
                            % (value, value.type,
                               tensor_type(shape, value.dtype)),
                            shape, value.dtype)

    def binary(self, op, lhs, rhs, pin=True):
        dtype = wider(lhs.dtype, rhs.dtype)
        attrs = self.pin([]) if pin else []
        return self.fn.emit("mixprec.%s %s, %s%s : %s, %s"
                            % (op, lhs, rhs, attr_dict(attrs), lhs.type,
                               rhs.type), lhs.shape, dtype)

    def unary(self, op, x, attrs=()):
        attrs = self.pin(list(attrs))
        return self.fn.emit("mixprec.%s %s%s : %s" % (op, x, attr_dict(attrs),
                                                     x.type), x.shape, x.dtype)

    def positive(self, x):
        """x * x + 1: >= 1 and finite for the activations drawn here."""
        return self.binary("add", self.binary("mul", x, x),
                           self.constant(1.0, x))

    def activation(self, x):
        """A shape-preserving elementwise function of x, finite for finite
        x of moderate size."""
        choice = self.rng.randrange(16)
        if choice == 0:
            return self.unary("relu", x)
        if choice == 1:
            return self.unary("tanh", x)
        if choice == 2:
            return self.unary("sigmoid", x)
        if choice == 3:
            return self.unary("gelu", x, ["approximate = #mixprec<gelu_"
                                          "approximation %s>"
                                          % self.rng.choice(("erf", "tanh"))])
        if choice == 4:
            return self.unary("neg", x)
        if choice == 5:
            return self.unary("exp", self.unary("tanh", x))
        if choice == 6:
            return self.unary("log", self.positive(x))
        if choice == 7:
            return self.unary("sqrt", self.positive(x))
        if choice == 8:
            return self.unary("rsqrt", self.positive(x))
        if choice == 9:
            base = self.binary("add", self.unary("sigmoid", x),
                               self.constant(0.5, x))
            return self.binary("pow", base,
                               self.constant(self.rng.choice((2.0, 0.5, 1.5)),
                                             x))
        if choice == 10:
            return self.binary("div", x, self.positive(x))
        if choice == 11:
            other = self.unary("tanh", x)
            return self.binary(self.rng.choice(("maximum", "minimum")), x,
                               other)
        if choice == 12:
            return self.binary("sub", x, self.binary("mul", x,
                                                     self.constant(0.5, x)))
        if choice == 13:
            return self.low_precision(x)
        if choice == 14:
            return self.dropout(x)
        return self.binary("add", x, self.unary("relu", x))

    def cast(self, x, dtype):
        return self.fn.emit("mixprec.cast %s : %s to %s"
                            % (x, x.type, tensor_type(x.shape, dtype)),
                            x.shape, dtype)

    def low_precision(self, x):
        """A detour through 16-bit user casts: a follow op in f16 or bf16,
        or f16 meeting bf16 (an f32 result), then back to x's type."""
        low = self.cast(x, self.rng.choice(FLOATS))
        if self.chance(0.5):
            other = self.cast(x, "bf16" if low.dtype == "f16" else "f16")
            mixed = self.binary(self.rng.choice(("add", "mul", "maximum")),
                                low, other)
            return mixed if mixed.dtype == x.dtype else self.cast(mixed,
                                                                  x.dtype)
        return self.cast(self.unary(self.rng.choice(("relu", "tanh",
                                                     "sigmoid")), low),
                         x.dtype)

    def dropout(self, x):
        p = self.rng.choice((0.0, 0.1, 0.25, 0.5))
        stream = self.streams
        self.streams += 1
        attrs = ["p = %r : f64" % p, "stream = %d : i64" % stream]
        # Drawn in every function, so that all draw alike.
        train_mode = self.rng.random() < 0.9
        if not (self.fn.training and train_mode):
            attrs.append("training = false")
        return self.fn.emit("mixprec.dropout %s, %s%s : %s"
                            % (x, self.fn.rng_state(), attr_dict(attrs),
                               x.type), x.shape, x.dtype)

    # Contractions.
    def linear(self, x, out_dim, name):
        """x [..., D] -> [..., out_dim]; sometimes on 16-bit operands with
        an f32 result."""
        in_dim = x.shape[-1]
        weight = self.param(name + "_w", (out_dim, in_dim))
        bias = self.param(name + "_b", (out_dim,), "bias") \
            if self.chance(0.7) else None
        shape = x.shape[:-1] + (out_dim,)
        if self.chance(0.15):
            low = self.rng.choice(FLOATS)
            x, weight = self.cast(x, low), self.cast(weight, low)
            bias = None
        operands = [x, weight] + ([bias] if bias is not None else [])
        return self.fn.emit("mixprec.linear %s%s : %s -> %s"
                            % (", ".join(str(o) for o in operands),
                               attr_dict(self.pin([])),
                               ", ".join(o.type for o in operands),
                               tensor_type(shape, "f32")), shape, "f32")

    def matmul(self, x, out_dim, name):
        """[B, D] x W -> [B, E], W stored [D, E] or [E, D] (transpose_rhs),
        or computed as (W^T x^T)^T with transpose_lhs."""
        batch, in_dim = x.shape
        form = self.rng.randrange(3)
        attrs = []
        if form == 0:
            w = self.param(name + "_w", (in_dim, out_dim))
            return self.fn.emit("mixprec.matmul %s, %s%s : %s, %s -> %s"
                                % (x, w, attr_dict(self.pin(attrs)), x.type,
                                   w.type, tensor_type((batch, out_dim),
                                                       "f32")),
                                (batch, out_dim), "f32")
        if form == 1:
            w = self.param(name + "_w", (out_dim, in_dim))
            return self.fn.emit("mixprec.matmul %s, %s%s : %s, %s -> %s"
                                % (x, w, attr_dict(self.pin(
                                    ["transpose_rhs"])), x.type, w.type,
                                   tensor_type((batch, out_dim), "f32")),
                                (batch, out_dim), "f32")
        # (x W)^T = W^T x^T: lhs W [D, E] transposed, rhs x^T [D, B].
        w = self.param(name + "_w", (in_dim, out_dim))
        xt = self.transpose(x, (1, 0))
        product = self.fn.emit(
            "mixprec.matmul %s, %s%s : %s, %s -> %s"
            % (w, xt, attr_dict(self.pin(["transpose_lhs"])), w.type, xt.type,
               tensor_type((out_dim, batch), "f32")), (out_dim, batch), "f32")
        return self.transpose(product, (1, 0))

    def transpose(self, x, permutation):
        shape = tuple(x.shape[p] for p in permutation)
        return self.fn.emit("mixprec.transpose %s {permutation = %s} : %s"
                            % (x, i64_array(permutation), x.type), shape,
                            x.dtype)

    def reshape(self, x, shape):
        return self.fn.emit("mixprec.reshape %s : %s -> %s"
                            % (x, x.type, tensor_type(shape, x.dtype)),
                            shape, x.dtype)

    def reduce(self, op, x, dims, keepdim=False, pin=True):
        shape = tuple(1 if i in dims else d for i, d in enumerate(x.shape)
                      if keepdim or i not in dims)
        attrs = ["dims = %s" % i64_array(dims)] + (["keepdim"] if keepdim
                                                   else [])
        if pin:
            self.pin(attrs)
        return self.fn.emit("mixprec.%s %s%s : %s"
                            % (op, x, attr_dict(attrs), x.type),
                            shape, x.dtype)

    # Normalizations.
    def layer_norm(self, x, axis, name):
        attrs = ["axis = %d : i64" % axis]
        if self.chance(0.3):
            attrs.append("eps = %r : f64" % self.rng.choice((1e-3, 1e-6)))
        self.pin(attrs)
        if self.chance(0.7):
            scale = self.param(name + "_g", x.shape[axis:], "ones")
            bias = self.param(name + "_b", x.shape[axis:], "zeros")
            return self.fn.emit(
                "mixprec.layer_norm %s scale %s bias %s%s : %s, %s, %s"
                % (x, scale, bias, attr_dict(attrs), x.type, scale.type,
                   bias.type), x.shape, x.dtype)
        return self.fn.emit("mixprec.layer_norm %s%s : %s"
                            % (x, attr_dict(attrs), x.type), x.shape, x.dtype)

    def batch_norm(self, x, name):
        """Per-channel (dim 1) batch norm. Training mode in the forward,
        where a batch has more than one value per channel; its running
        statistics are assigned back."""
        channels = x.shape[1]
        per_channel = num_elements(x.shape) // channels
        stats = (channels,)
        mean = self.fn.read(self.model.declare_buffer(name + "_mean", stats,
                                                      "#mixprec.zeros"))
        var = self.fn.read(self.model.declare_buffer(name + "_var", stats,
                                                     "#mixprec.ones"))
        affine = self.chance(0.7)
        momentum = self.rng.choice((0.1, 0.0, 1.0, 0.01))
        training = (self.rng.random() < 0.85 and self.fn.training and
                    per_channel > 1)
        attrs = ["momentum = %r : f64" % momentum,
                 "training = %s" % ("true" if training else "false")]
        types = [x.type, mean.type]
        text = "mixprec.batch_norm %s, %s, %s" % (x, mean, var)
        if affine:
            scale = self.param(name + "_g", stats, "ones")
            bias = self.param(name + "_b", stats, "zeros")
            text += " scale %s bias %s" % (scale, bias)
            types += [scale.type, bias.type]
        y, new_mean, new_var = self.fn.emit_multi(
            "%s%s : %s" % (text, attr_dict(self.pin(attrs)),
                           ", ".join(types)),
            [(x.shape, x.dtype), (stats, "f32"), (stats, "f32")])
        if training:
            self.fn.lines.append("mixprec.assign @b_%s_mean, %s : %s"
                                 % (name, new_mean, new_mean.type))
            self.fn.lines.append("mixprec.assign @b_%s_var, %s : %s"
                                 % (name, new_var, new_var.type))
        return y

    # Blocks over flat activations [B, D].
    def flat_block(self, x, index):
        name = "f%d" % index
        choice = self.rng.randrange(12)
        width = self.size()
        if choice == 0:
            return self.activation(self.linear(x, width, name))
        if choice == 1:
            return self.activation(self.matmul(x, width, name))
        if choice == 2:
            return self.layer_norm(x, 1, name)
        if choice == 3:
            return self.batch_norm(x, name)
        if choice == 4:
            # Two branches joined along the features.
            left = self.linear(x, width, name + "l")
            right = self.activation(self.linear(x, self.size(), name + "r"))
            return self.fn.emit("mixprec.concat %s, %s%s : %s, %s"
                                % (left, right,
                                   attr_dict(self.pin(["axis = 1 : i64"])),
                                   left.type, right.type),
                                (x.shape[0], left.shape[1] + right.shape[1]),
                                wider(left.dtype, right.dtype))
        if choice == 5:
            return self.slice_features(x)
        if choice == 6:
            op = self.rng.choice(("softmax", "log_softmax"))
            return self.unary(op, x, ["axis = 1 : i64"])
        if choice == 7:
            # A bias broadcast over the batch: [D] or [1, D], sometimes a
            # 16-bit parameter (the sum is f32).
            shape = self.rng.choice(((x.shape[1],), (1, x.shape[1])))
            dtype = self.rng.choice(("f32", "f32", "f32", "f16", "bf16"))
            bias = self.param(name + "_shift", shape, "bias", dtype)
            return self.binary("add", x, self.broadcast(bias, x.shape))
        if choice == 8:
            return self.normalize_rows(x)
        if choice == 9:
            return self.split_features(x, name)
        if choice == 10:
            return self.ema_buffer(x, name)
        return self.binary("add", x, self.activation(x))

    def slice_features(self, x):
        """A strided window of the features."""
        features = x.shape[1]
        offset = self.rng.randrange(features)
        stride = self.rng.choice((1, 2, 3))
        count = self.rng.randint(1, (features - 1 - offset) // stride + 1)
        attrs = ["offsets = %s" % i64_array((0, offset)),
                 "sizes = %s" % i64_array((x.shape[0], count))]
        if stride != 1 or self.chance(0.3):
            attrs.append("strides = %s" % i64_array((1, stride)))
        return self.fn.emit("mixprec.slice %s%s : %s"
                            % (x, attr_dict(attrs), x.type),
                            (x.shape[0], count), x.dtype)

    def normalize_rows(self, x):
        """x / sum(|x|-ish + 1) per row: reduce_sum with keepdim, broadcast
        back."""
        positive = self.positive(x)
        op = self.rng.choice(("reduce_sum", "reduce_mean", "reduce_max"))
        total = self.reduce(op, positive, (1,), keepdim=True)
        return self.binary("div", x, self.broadcast(total, x.shape))

    def split_features(self, x, name):
        """[B, D] -> [B, P, Q] (a factorization of D, 1 x D for a prime),
        softmax or a reduction over one of the new dims, back to [B, D]."""
        batch, features = x.shape
        factors = [f for f in range(1, features + 1) if features % f == 0]
        p = self.rng.choice(factors)
        split = self.reshape(x, (batch, p, features // p))
        if self.chance(0.5):
            mixed = self.unary("softmax", split,
                               ["axis = %d : i64" % self.rng.choice((1, 2))])
        else:
            peak = self.reduce("reduce_max", split, (2,), keepdim=True)
            mixed = self.binary("sub", split, self.broadcast(peak,
                                                             split.shape))
        return self.reshape(mixed, x.shape)

    def ema_buffer(self, x, name):
        """A buffer that tracks the batch mean of x (assigned in the
        forward, read by every function); x passes on. Draws nothing in the
        forward's extra ops, so every function draws alike."""
        features = (x.shape[1],)
        symbol = self.model.declare_buffer(name + "_ema", features,
                                           "#mixprec.zeros")
        state = self.fn.read(symbol)
        if self.fn.training:
            mean = self.reduce("reduce_mean", x, (0,), pin=False)
            decayed = self.binary("mul", state, self.splat(0.9, state),
                                  pin=False)
            update = self.binary("add", decayed,
                                 self.binary("mul", mean,
                                             self.splat(0.1, mean),
                                             pin=False), pin=False)
            self.fn.lines.append("mixprec.assign @%s, %s : %s"
                                 % (symbol, update, update.type))
        return self.binary("add", x, self.broadcast(
            self.binary("mul", state, self.constant(0.01, state)), x.shape))

    # Blocks over sequences [B, T, D].
    def seq_block(self, x, index):
        name = "s%d" % index
        choice = self.rng.randrange(6)
        if choice == 0:
            return self.layer_norm(x, self.rng.choice((1, 2)), name)
        if choice == 1:
            return self.activation(self.linear(x, self.size(), name))
        if choice == 2:
            return self.attention(x, name)
        if choice == 3:
            # Feature mixing: [B, D, D] = x^T x over time, then x @ that.
            gram = self.fn.emit(
                "mixprec.batch_matmul %s, %s%s : %s, %s -> %s"
                % (x, x, attr_dict(self.pin(["transpose_lhs"])), x.type,
                   x.type, tensor_type((x.shape[0], x.shape[2], x.shape[2]),
                                       "f32")),
                (x.shape[0], x.shape[2], x.shape[2]), "f32")
            gram = self.unary("softmax", gram, ["axis = 2 : i64"])
            return self.fn.emit("mixprec.batch_matmul %s, %s : %s, %s -> %s"
                                % (x, gram, x.type, gram.type, x.type),
                                x.shape, "f32")
        if choice == 4:
            return self.dropout(self.unary("gelu", x))
        return self.binary("add", x, self.activation(x))

    def attention(self, x, name):
        """Multi-head self-attention with a residual connection."""
        batch, steps, width = x.shape
        heads = self.rng.choice((1, 2, 3))
        head_dim = self.size((1, 2, 3, 5))
        inner = heads * head_dim
        split = (batch, steps, heads, head_dim)
        per_head = (batch, heads, steps, head_dim)
        qkv = []
        for part in "qkv":
            projected = self.linear(x, inner, name + part)
            qkv.append(self.transpose(self.reshape(projected, split),
                                      (0, 2, 1, 3)))
        scores_shape = (batch, heads, steps, steps)
        scores = self.fn.emit(
            "mixprec.batch_matmul %s, %s%s : %s, %s -> %s"
            % (qkv[0], qkv[1], attr_dict(self.pin(["transpose_rhs"])),
               qkv[0].type, qkv[1].type, tensor_type(scores_shape, "f32")),
            scores_shape, "f32")
        scaled = self.binary("mul", scores, self.constant(
            1 / math.sqrt(head_dim), scores))
        probs = self.dropout(self.unary("softmax", scaled,
                                        ["axis = 3 : i64"]))
        context = self.fn.emit("mixprec.batch_matmul %s, %s : %s, %s -> %s"
                               % (probs, qkv[2], probs.type, qkv[2].type,
                                  tensor_type(per_head, "f32")),
                               per_head, "f32")
        merged = self.reshape(self.transpose(context, (0, 2, 1, 3)),
                              (batch, steps, inner))
        return self.binary("add", x, self.linear(merged, width, name + "o"))

    def index_shuffle(self, tokens):
        """Integer data movement on [B, T] token ids: the sequence reversed
        through a transpose and strided slice, or doubled by a concat."""
        choice = self.rng.randrange(3)
        batch, steps = tokens.shape
        if choice == 0:
            both = self.fn.emit("mixprec.concat %s, %s {axis = 1 : i64} : "
                                "%s, %s" % (tokens, tokens, tokens.type,
                                            tokens.type),
                                (batch, 2 * steps), tokens.dtype)
            return self.fn.emit(
                "mixprec.slice %s {offsets = %s, sizes = %s, strides = %s}"
                " : %s" % (both, i64_array((0, 1)), i64_array((batch, steps)),
                           i64_array((1, 1)), both.type),
                (batch, steps), tokens.dtype)
        if choice == 1:
            swapped = self.transpose(tokens, (1, 0))
            return self.transpose(swapped, (1, 0))
        return tokens

    def seq_to_flat(self, x):
        batch, steps, width = x.shape
        choice = self.rng.randrange(4)
        if choice == 0:
            op = self.rng.choice(("reduce_sum", "reduce_mean", "reduce_max"))
            return self.reduce(op, x, (1,))
        if choice == 1:
            return self.reshape(x, (batch, steps * width))
        if choice == 2:
            first = self.fn.emit(
                "mixprec.slice %s {offsets = %s, sizes = %s} : %s"
                % (x, i64_array((0, steps - 1, 0)),
                   i64_array((batch, 1, width)), x.type),
                (batch, 1, width), x.dtype)
            return self.reshape(first, (batch, width))
        pooled = self.reduce("reduce_mean", x, (1,), keepdim=True)
        return self.reshape(pooled, (batch, width))

    # Blocks over images [B, C, H, W].
    def image_block(self, x, index):
        name = "c%d" % index
        choice = self.rng.randrange(6)
        if choice == 5:
            return self.layer_norm(x, self.rng.randint(1, 3), name)
        if choice <= 1:
            return self.conv(x, name)
        if choice == 2:
            return self.batch_norm(x, name)
        if choice == 3:
            return self.pool(x)
        return self.activation(x)

    def conv(self, x, name):
        batch, channels, height, width = x.shape
        groups = self.rng.choice([g for g in (1, 2, 3) if channels % g == 0])
        out_channels = groups * self.size((1, 2, 3, 5))
        kernel = (self.rng.randint(1, min(3, height)),
                  self.rng.randint(1, min(3, width)))
        stride = (self.rng.choice((1, 2)), self.rng.choice((1, 2)))
        padding = (self.rng.randint(0, 1), self.rng.randint(0, 1))
        dilation = [1, 1]
        for i, size in enumerate((height, width)):
            if kernel[i] > 1 and size + 2 * padding[i] >= 2 * kernel[i] - 1 \
                    and self.chance(0.25):
                dilation[i] = 2
        out = tuple((size + 2 * p - d * (k - 1) - 1) // s + 1
                    for size, p, d, k, s in zip((height, width), padding,
                                                dilation, kernel, stride))
        weight = self.param(name + "_w", (out_channels, channels // groups)
                            + kernel)
        operands = [x, weight]
        if self.chance(0.5):
            operands.append(self.param(name + "_b", (out_channels,), "bias"))
        attrs = []
        for key, values, default in (("stride", stride, (1, 1)),
                                     ("padding", padding, (0, 0)),
                                     ("dilation", tuple(dilation), (1, 1))):
            if values != default or self.chance(0.2):
                attrs.append("%s = %s" % (key, i64_array(values)))
        if groups != 1:
            attrs.append("groups = %d : i64" % groups)
        shape = (batch, out_channels) + out
        return self.fn.emit("mixprec.conv2d %s%s : %s -> %s"
                            % (", ".join(str(o) for o in operands),
                               attr_dict(self.pin(attrs)),
                               ", ".join(o.type for o in operands),
                               tensor_type(shape, "f32")), shape, "f32")

    def pool(self, x):
        batch, channels, height, width = x.shape
        kernel = (self.rng.randint(1, min(3, height)),
                  self.rng.randint(1, min(3, width)))
        stride = (self.rng.randint(1, 3), self.rng.randint(1, 3))
        padding = tuple(self.rng.randint(0, k // 2) for k in kernel)
        out = tuple((size + 2 * p - k) // s + 1 for size, p, k, s in
                    zip((height, width), padding, kernel, stride))
        attrs = ["kernel = %s" % i64_array(kernel),
                 "stride = %s" % i64_array(stride)]
        if padding != (0, 0) or self.chance(0.2):
            attrs.append("padding = %s" % i64_array(padding))
        op = self.rng.choice(("max_pool2d", "avg_pool2d"))
        return self.fn.emit("mixprec.%s %s%s : %s"
                            % (op, x, attr_dict(self.pin(attrs)), x.type),
                            (batch, channels) + out, x.dtype)

    def image_to_flat(self, x):
        batch, channels, height, width = x.shape
        choice = self.rng.randrange(3)
        if choice == 0:
            return self.reshape(x, (batch, channels * height * width))
        if choice == 1:
            return self.reduce("reduce_mean", x, (2, 3))
        pooled = self.fn.emit(
            "mixprec.avg_pool2d %s {kernel = %s, stride = %s} : %s"
            % (x, i64_array((height, width)), i64_array((1, 1)), x.type),
            (batch, channels, 1, 1), x.dtype)
        return self.reshape(pooled, (batch, channels))

    def image_to_seq(self, x):
        batch, channels, height, width = x.shape
        flat = self.reshape(x, (batch, channels, height * width))
        return self.transpose(flat, (0, 2, 1))


def wider(a, b):
    if a == b:
        return a
    return "f32"


INITIALIZERS = ("normal", "uniform", "xavier_uniform", "xavier_normal",
                "kaiming_uniform", "kaiming_normal", "constant")


class Model:
    """The module under construction: state declarations, functions, the
    train step, and the description of every function's inputs."""

    def __init__(self, seed):
        self.seed = seed
        self.state, self.declarations = {}, []
        self.init_seeds = 0

    def declare_parameter(self, name, shape, kind, rng, dtype="f32"):
        """Declares `p_<name>` the first time (the eval functions find it
        declared); its initializer is drawn from `rng` either way, so both
        passes draw alike."""
        symbol = "p_" + name
        shape = tuple(shape)
        init = self.initializer(shape, kind, rng)
        decay = rng.choice((None, None, None, "true", "false"))
        if symbol not in self.state:
            self.state[symbol] = (shape, dtype)
            suffix = " {weight_decay = %s}" % decay if decay else ""
            self.declarations.append("  mixprec.parameter @%s : %s = %s%s"
                                     % (symbol, tensor_type(shape, dtype),
                                        init, suffix))
        return symbol

    def declare_buffer(self, name, shape, init):
        symbol = "b_" + name
        if symbol not in self.state:
            self.state[symbol] = (tuple(shape), "f32")
            self.declarations.append("  mixprec.buffer @%s : %s = %s"
                                     % (symbol, tensor_type(shape, "f32"),
                                        init))
        return symbol

    def initializer(self, shape, kind, rng):
        self.init_seeds += 1
        seed = self.init_seeds
        if kind == "ones":
            return rng.choice(("#mixprec.ones", "#mixprec.constant<1.0>"))
        if kind == "zeros":
            return rng.choice(("#mixprec.zeros", "#mixprec.constant<0.0>"))
        fan_in = num_elements(shape[1:]) if len(shape) > 1 else shape[0]
        bound = 1 / math.sqrt(fan_in)
        if kind == "bias" or len(shape) < 2:
            return "#mixprec.uniform<low = %r, high = %r, seed = %d>" % (
                -bound, bound, seed)
        choice = rng.choice(INITIALIZERS)
        if choice == "normal":
            return "#mixprec.normal<mean = 0.0, std = %r, seed = %d>" % (
                bound, seed)
        if choice == "uniform":
            return "#mixprec.uniform<low = %r, high = %r, seed = %d>" % (
                -bound, bound, seed)
        if choice == "constant":
            return "#mixprec.constant<%r>" % (bound / 2)
        if choice.startswith("xavier"):
            return "#mixprec.%s<gain = %r, seed = %d>" % (
                choice, rng.choice((1.0, 0.5)), seed)
        return "#mixprec.%s<a = %r, seed = %d>" % (
            choice, rng.choice((math.sqrt(5), 0.0, 1.0)), seed)


def optimizer(rng):
    kind = rng.choice(("sgd", "adam", "adamw"))
    fields = []
    if kind == "sgd":
        momentum = rng.choice((0.0, 0.9, 0.5))
        if momentum:
            fields.append("momentum = %r" % momentum)
            if rng.random() < 0.4:
                fields.append("nesterov = true")
            elif rng.random() < 0.4:
                fields.append("dampening = 0.1")
    else:
        if rng.random() < 0.5:
            fields.append("beta1 = %r" % rng.choice((0.8, 0.9, 0.0)))
        if rng.random() < 0.5:
            fields.append("beta2 = %r" % rng.choice((0.95, 0.999)))
        if rng.random() < 0.3:
            fields.append("eps = %r" % rng.choice((1e-6, 1e-8)))
    if rng.random() < 0.5:
        fields.append("weight_decay = %r" % rng.choice((0.0, 1e-4, 0.01)))
    if rng.random() < 0.2:
        fields.append("decay_norm_and_bias = true")
    return "#mixprec.%s<%s>" % (kind, ", ".join(fields))


class GeneratedModel:
    def __init__(self, seed, text, spec):
        self.seed, self.text, self.spec = seed, text, spec


def _network(model, fn, rng, sizes):
    """Builds the network in `fn` from its inputs; returns the logits
    [B, classes] and, for a regression head, the predictions [B, K]."""
    net = Network(model, fn, rng)
    batch = sizes["batch"]
    form = sizes["form"]
    if form == "flat":
        h = fn.arg("x", (batch, sizes["features"]), "f32", "normal")
    elif form == "tokens":
        tokens = fn.arg("tokens", (batch, sizes["steps"]), sizes["index"],
                        "index", sizes["vocab"])
        tokens = net.index_shuffle(tokens)
        table = net.param("embed", (sizes["vocab"], sizes["width"]), "weight")
        h = fn.emit("mixprec.embedding %s, %s : %s, %s"
                    % (table, tokens, table.type, tokens.type),
                    tokens.shape + (sizes["width"],), "f32")
        if rng.random() < 0.5:
            position = net.param("position", (sizes["steps"], sizes["width"]))
            h = net.binary("add", h, net.broadcast(position, h.shape))
    elif form == "sequence":
        h = fn.arg("x", (batch, sizes["steps"], sizes["width"]), "f32",
                   "normal")
    else:
        h = fn.arg("x", (batch, sizes["channels"], sizes["height"],
                         sizes["width"]), "f32", "normal")
    for index in range(sizes["blocks"]):
        if h.rank == 4:
            if rng.random() < 0.2:
                h = net.image_to_flat(h) if rng.random() < 0.6 \
                    else net.image_to_seq(h)
            else:
                h = net.image_block(h, index)
        elif h.rank == 3:
            if rng.random() < 0.2:
                h = net.seq_to_flat(h)
            else:
                h = net.seq_block(h, index)
        else:
            h = net.flat_block(h, index)
        if h.dtype != "f32":
            h = net.cast(h, "f32")
    if h.rank == 4:
        h = net.image_to_flat(h)
    elif h.rank == 3:
        h = net.seq_to_flat(h)
    logits = net.linear(h, sizes["classes"], "head")
    regression = None
    if sizes["regression"]:
        regression = net.linear(net.activation(h), sizes["targets"], "reg")
        if regression.dtype != "f32":
            regression = net.cast(regression, "f32")
    penalty = None
    if sizes["penalty"]:
        square = net.binary("mul", h, h, pin=False)
        penalty = net.reduce("reduce_mean", square, tuple(range(h.rank)))
    return net, logits, regression, penalty


def generate(seed):
    """The random valid model of `seed`."""
    rng = random.Random(seed)
    sizes = {
        "batch": rng.choice((1, 2, 3, 4, 5, 7, 8, 17)),
        "form": rng.choice(("flat", "tokens", "sequence", "image")),
        "features": rng.choice(ODD_SIZES + (19, 33, 65)),
        "steps": rng.choice((1, 2, 3, 5, 7)),
        "width": rng.choice((1, 2, 3, 4, 5, 7, 9)),
        "vocab": rng.choice((1, 2, 5, 13, 31)),
        "index": rng.choice(("i32", "i64")),
        "channels": rng.choice((1, 2, 3, 4, 6)),
        "height": rng.choice((1, 2, 3, 5, 7, 8)),
        "blocks": rng.randint(1, 5),
        "classes": rng.choice((1, 2, 3, 7, 10, 17)),
        "loss": rng.choice(("ce", "ce", "mse", "both")),
        "reduction": rng.choice(("mean", "mean", "sum")),
        "regression": False,
        "targets": rng.choice((1, 3, 4)),
        "penalty": rng.random() < 0.3,
        "accumulation": rng.choice((1, 1, 1, 2, 3)),
    }
    if sizes["form"] == "image":
        sizes["width"] = rng.choice((1, 2, 3, 5, 7, 8))
    sizes["regression"] = sizes["loss"] == "both"
    net_seed = rng.getrandbits(32)
    model = Model(seed)

    forward = Function(model, "loss", training=True)
    net, logits, regression, penalty = _network(
        model, forward, random.Random(net_seed), sizes)
    loss = _loss(net, forward, logits, regression, penalty, sizes)

    evaluation = Function(model, "eval_loss", training=False)
    net_e, logits_e, regression_e, penalty_e = _network(
        model, evaluation, random.Random(net_seed), sizes)
    eval_loss = _loss(net_e, evaluation, logits_e, regression_e, penalty_e,
                      sizes)

    predict = Function(model, "predict", training=False)
    _, predicted, _, _ = _network(model, predict, random.Random(net_seed),
                                  sizes)

    step = "mixprec.train_step @train forward @loss optimizer %s" % (
        optimizer(rng))
    if sizes["accumulation"] > 1:
        step += " {accumulation_steps = %d : i64}" % sizes["accumulation"]
    # Python writes 1e-08 where MLIR wants a mantissa with a dot.
    text = "// Random model, seed %d (test/Integration/random_models.py)\n" \
        % seed + "module {\n%s\n\n%s\n\n%s\n\n%s\n\n  %s\n}\n" % (
            "\n".join(model.declarations), forward.text([loss]),
            evaluation.text([eval_loss]), predict.text([predicted]), step)
    text = re.sub(r"(?<![\w.])(\d+)e([-+]?\d+)", r"\1.0e\2", text)
    spec = {
        "step": "train",
        "accumulation": sizes["accumulation"],
        "functions": {fn.name: [a for _, a in fn.args]
                      for fn in (forward, evaluation, predict)},
    }
    return GeneratedModel(seed, text, spec)


def _loss(net, fn, logits, regression, penalty, sizes):
    batch = sizes["batch"]
    reduction = ""
    if sizes["reduction"] == "sum":
        reduction = " {reduction = #mixprec<reduction sum>}"
    terms = []
    if sizes["loss"] in ("ce", "both"):
        labels = fn.arg("labels", (batch,), sizes["index"], "index",
                        sizes["classes"])
        terms.append(fn.emit("mixprec.softmax_cross_entropy %s, %s%s : %s, %s"
                             % (logits, labels, reduction, logits.type,
                                labels.type), (), "f32"))
    if sizes["loss"] == "mse":
        target = fn.arg("target", logits.shape, "f32", "normal")
        terms.append(fn.emit("mixprec.mse %s, %s%s : %s, %s"
                             % (logits, target, reduction, logits.type,
                                target.type), (), "f32"))
    if regression is not None:
        target = fn.arg("target", regression.shape, "f32", "normal")
        terms.append(fn.emit("mixprec.mse %s, %s : %s, %s"
                             % (regression, target, regression.type,
                                target.type), (), "f32"))
    if penalty is not None:
        terms.append(net.binary("mul", penalty,
                                net.constant(1e-3, penalty), pin=False))
    loss = terms[0]
    for term in terms[1:]:
        loss = net.binary("add", loss, term, pin=False)
    return loss


if __name__ == "__main__":
    if len(sys.argv) != 2 or not sys.argv[1].isdigit():
        sys.exit("usage: random_models.py SEED")
    sys.stdout.write(generate(int(sys.argv[1])).text)
