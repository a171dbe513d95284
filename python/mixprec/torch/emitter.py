"""Writing `mixprec` dialect text: SSA values with their types, one op per
line, in the ops' own assembly formats."""
from dataclasses import dataclass

import numpy as np
import torch

# torch dtypes the dialect has, by their MLIR spelling.
MLIR_TYPES = {torch.float32: "f32", torch.float16: "f16",
              torch.bfloat16: "bf16", torch.int32: "i32",
              torch.int64: "i64", torch.bool: "i1"}
FLOAT_TYPES = ("f32", "f16", "bf16")
TORCH_TYPES = {name: dtype for dtype, name in MLIR_TYPES.items()}


@dataclass(frozen=True)
class Value:
    """An SSA value of the function being written."""
    name: str
    shape: tuple
    dtype: str

    @property
    def type(self):
        return tensor_type(self.shape, self.dtype)

    @property
    def is_float(self):
        return self.dtype in FLOAT_TYPES


def tensor_type(shape, dtype):
    return "tensor<%s%s>" % ("".join("%dx" % d for d in shape), dtype)


def i64_array(values):
    return "array<i64%s>" % "".join(
        (": " if i == 0 else ", ") + str(int(v)) for i, v in enumerate(values))


def symbol(name):
    """A symbol reference; quoted, as module paths contain dots."""
    return '@"%s"' % name


def float_text(value):
    """A float literal MLIR parses back to the same value."""
    value = float(value)
    if np.isnan(value):
        return "0x7FC00000"
    if np.isinf(value):
        return "0x7F800000" if value > 0 else "0xFF800000"
    mantissa, e, exponent = repr(value).partition("e")
    if "." not in mantissa:
        mantissa += ".0"  # MLIR's float literals need the point: 1.0e-05
    return mantissa + e + exponent


# NaN, inf and -inf of each float type: MLIR reads a hex float literal as
# the bits of the element type.
_NONFINITE_BITS = {"f32": ("0x7FC00000", "0x7F800000", "0xFF800000"),
                   "f16": ("0x7E00", "0x7C00", "0xFC00"),
                   "bf16": ("0x7FC0", "0x7F80", "0xFF80")}


def _element_text(value, dtype):
    """A float literal of element type `dtype`."""
    value = float(value)
    if np.isfinite(value):
        return float_text(value)
    nan, inf, negative_inf = _NONFINITE_BITS[dtype]
    return nan if np.isnan(value) else inf if value > 0 else negative_inf


def _bool_lists(values):
    if isinstance(values, list):
        return "[%s]" % ", ".join(_bool_lists(v) for v in values)
    return "true" if values else "false"


def dense(tensor, dtype):
    """The `dense<...>` literal of a tensor: a splat when all elements are
    equal, else its raw little-endian bytes (exact, and short to parse); a
    mask (i1) as nested lists of true/false, the form MLIR prints it in."""
    flat = tensor.reshape(-1)
    if flat.numel() > 0 and bool((flat == flat[0]).all()):
        first = flat[0].item()
        if dtype == "i1":
            return "dense<%s>" % ("true" if first else "false")
        if dtype in FLOAT_TYPES:
            return "dense<%s>" % _element_text(first, dtype)
        return "dense<%d>" % int(first)
    if dtype == "i1":
        return "dense<%s>" % _bool_lists(tensor.tolist())
    if dtype == "bf16":
        raw = tensor.contiguous().view(torch.int16).numpy().tobytes()
    else:
        raw = tensor.contiguous().numpy().tobytes()
    return 'dense<"0x%s">' % raw.hex().upper()


class FunctionWriter:
    """The body of one `func.func`: values are numbered in order; a
    parameter or buffer is read once per function."""

    def __init__(self, name):
        self.name = name
        self.arguments = []
        self.lines = []
        self._count = 0
        self._reads = {}

    @property
    def reads(self):
        """The parameters and buffers the function reads, in order."""
        return list(self._reads)

    def fresh(self, shape, dtype):
        self._count += 1
        return Value("%%v%d" % self._count, tuple(shape), dtype)

    def argument(self, name, shape, dtype):
        value = Value("%" + name, tuple(shape), dtype)
        self.arguments.append(value)
        return value

    def op(self, text, shape, dtype):
        """Writes `%result = <text>` and returns the result."""
        result = self.fresh(shape, dtype)
        self.lines.append("%s = %s" % (result.name, text))
        return result

    def statement(self, text):
        self.lines.append(text)

    def read(self, state, shape, dtype):
        if state not in self._reads:
            self._reads[state] = self.op(
                "mixprec.read %s : %s" % (symbol(state),
                                          tensor_type(shape, dtype)),
                shape, dtype)
        return self._reads[state]

    def text(self, results):
        arguments = ", ".join("%s: %s" % (a.name, a.type)
                              for a in self.arguments)
        types = ", ".join(r.type for r in results)
        body = "".join("    %s\n" % line for line in self.lines)
        return ("  func.func @%s(%s) -> (%s) {\n%s    return %s : %s\n  }\n" % (
            self.name, arguments, types, body,
            ", ".join(r.name for r in results), types))


class Ops:
    """The dialect's ops over a FunctionWriter, each in its own format.
    Operands are Values; results take the shapes the caller gives (the
    importer knows every result's shape from running the module)."""

    def __init__(self, writer):
        self.w = writer

    # State and constants.
    def read(self, state, shape, dtype):
        return self.w.read(state, shape, dtype)

    def assign(self, state, value):
        self.w.statement("mixprec.assign %s, %s : %s" % (
            symbol(state), value.name, value.type))

    def constant(self, tensor, dtype):
        shape = tuple(tensor.shape)
        return self.w.op("mixprec.constant %s : %s" % (
            dense(tensor, dtype), tensor_type(shape, dtype)), shape, dtype)

    def scalar(self, number, dtype="f32"):
        return self.constant(torch.tensor(float(number)), dtype)

    def rng_state(self):
        return self.w.op("mixprec.rng_state", (2,), "i64")

    # Shapes.
    def broadcast(self, x, shape):
        return self._reshaping("broadcast", x, shape)

    def reshape(self, x, shape):
        return self._reshaping("reshape", x, shape)

    def _reshaping(self, name, x, shape):
        """`mixprec.<name> x : type -> result type`, or x for its shape."""
        shape = tuple(shape)
        if x.shape == shape:
            return x
        return self.w.op("mixprec.%s %s : %s -> %s" % (
            name, x.name, x.type, tensor_type(shape, x.dtype)), shape,
            x.dtype)

    def transpose(self, x, permutation):
        permutation = tuple(permutation)
        if permutation == tuple(range(len(permutation))):
            return x
        shape = tuple(x.shape[p] for p in permutation)
        return self.w.op("mixprec.transpose %s {permutation = %s} : %s" % (
            x.name, i64_array(permutation), x.type), shape, x.dtype)

    def slice(self, x, offsets, sizes, strides=None):
        if tuple(sizes) == x.shape and not any(offsets):
            return x
        attrs = "offsets = %s, sizes = %s" % (i64_array(offsets),
                                             i64_array(sizes))
        if strides is not None and any(s != 1 for s in strides):
            attrs += ", strides = %s" % i64_array(strides)
        return self.w.op("mixprec.slice %s {%s} : %s" % (
            x.name, attrs, x.type), sizes, x.dtype)

    def concat(self, inputs, axis, shape):
        return self.w.op("mixprec.concat %s {axis = %d : i64} : %s" % (
            ", ".join(v.name for v in inputs), axis,
            ", ".join(v.type for v in inputs)), shape,
            _widest(v.dtype for v in inputs))

    def cast(self, x, dtype):
        if x.dtype == dtype:
            return x
        return self.w.op("mixprec.cast %s : %s to %s" % (
            x.name, x.type, tensor_type(x.shape, dtype)), x.shape, dtype)

    # Elementwise.
    def unary(self, name, x, attrs=""):
        return self.w.op("mixprec.%s %s%s : %s" % (
            name, x.name, " {%s}" % attrs if attrs else "", x.type),
            x.shape, x.dtype)

    def logical_not(self, x):
        return self.unary("logical_not", x)

    def clamp(self, x, min=None, max=None, strict=False):
        """mixprec.clamp with the number bounds given (at least one);
        `strict`: the gradient stops at a tie with a bound (hardtanh's)."""
        attrs = ["%s = %s : f64" % (name, float_text(bound))
                 for name, bound in (("min", min), ("max", max))
                 if bound is not None]
        return self.unary("clamp", x, ", ".join(attrs + ["strict"] * strict))

    def binary(self, name, lhs, rhs):
        """An elementwise binary op; operands broadcast numpy-style."""
        shape = tuple(torch.broadcast_shapes(lhs.shape, rhs.shape))
        lhs, rhs = self.broadcast(lhs, shape), self.broadcast(rhs, shape)
        return self.w.op("mixprec.%s %s, %s : %s, %s" % (
            name, lhs.name, rhs.name, lhs.type, rhs.type), shape,
            _widest((lhs.dtype, rhs.dtype)))

    def where(self, condition, x, y):
        """`x` where the i1 `condition` holds, else `y`; the three broadcast
        numpy-style (a mask is written once, not once per row)."""
        shape = tuple(torch.broadcast_shapes(condition.shape, x.shape,
                                             y.shape))
        condition, x, y = (self.broadcast(v, shape) for v in (condition, x, y))
        return self.w.op("mixprec.where %s, %s, %s : %s, %s, %s" % (
            condition.name, x.name, y.name, condition.type, x.type, y.type),
            shape, _widest((x.dtype, y.dtype)))

    def softmax(self, name, x, axis):
        return self.w.op("mixprec.%s %s {axis = %d : i64} : %s" % (
            name, x.name, axis, x.type), x.shape, x.dtype)

    def reduce(self, name, x, dims, keepdim=False):
        dims = sorted(d % len(x.shape) for d in dims)
        shape = tuple(1 if i in dims else d for i, d in enumerate(x.shape)
                      if keepdim or i not in dims)
        return self.w.op("mixprec.%s %s {dims = %s%s} : %s" % (
            name, x.name, i64_array(dims), ", keepdim" if keepdim else "",
            x.type), shape, x.dtype)

    # Contractions.
    def matmul(self, lhs, rhs, transpose_rhs=False):
        name = "batch_matmul" if len(lhs.shape) > 2 else "matmul"
        rows = lhs.shape[-2]
        columns = rhs.shape[-2] if transpose_rhs else rhs.shape[-1]
        shape = lhs.shape[:-2] + (rows, columns)
        return self.w.op("mixprec.%s %s, %s%s : %s, %s -> %s" % (
            name, lhs.name, rhs.name, " {transpose_rhs}" if transpose_rhs
            else "", lhs.type, rhs.type, tensor_type(shape, lhs.dtype)),
            shape, lhs.dtype)

    def linear(self, x, weight, bias):
        shape = x.shape[:-1] + (weight.shape[0],)
        operands = [x, weight] + ([bias] if bias is not None else [])
        return self.w.op("mixprec.linear %s : %s -> %s" % (
            ", ".join(v.name for v in operands),
            ", ".join(v.type for v in operands),
            tensor_type(shape, x.dtype)), shape, x.dtype)

    def conv2d(self, x, weight, bias, shape, attrs):
        operands = [x, weight] + ([bias] if bias is not None else [])
        return self.w.op("mixprec.conv2d %s {%s} : %s -> %s" % (
            ", ".join(v.name for v in operands), attrs,
            ", ".join(v.type for v in operands),
            tensor_type(shape, x.dtype)), shape, x.dtype)

    def pool2d(self, name, x, kernel, stride, padding, shape):
        return self.w.op(
            "mixprec.%s %s {kernel = %s, stride = %s, padding = %s} : %s" % (
                name, x.name, i64_array(kernel), i64_array(stride),
                i64_array(padding), x.type), shape, x.dtype)

    # Normalization, lookup, randomness.
    def layer_norm(self, x, scale, bias, axis, eps):
        operands = ""
        types = ""
        if scale is not None:
            operands = " scale %s bias %s" % (scale.name, bias.name)
            types = ", %s, %s" % (scale.type, bias.type)
        return self.w.op(
            "mixprec.layer_norm %s%s {axis = %d : i64, eps = %s : f64} : "
            "%s%s" % (x.name, operands, axis, float_text(eps), x.type, types),
            x.shape, x.dtype)

    def batch_norm(self, x, mean, var, scale, bias, eps, momentum, training):
        """(result, running mean, running variance)."""
        affine = ""
        types = ""
        if scale is not None:
            affine = " scale %s bias %s" % (scale.name, bias.name)
            types = ", %s, %s" % (scale.type, bias.type)
        results = [self.w.fresh(x.shape, x.dtype),
                   self.w.fresh(mean.shape, "f32"),
                   self.w.fresh(var.shape, "f32")]
        self.w.statement(
            "%s = mixprec.batch_norm %s, %s, %s%s {eps = %s : f64, momentum = "
            "%s : f64, training = %s} : %s, %s%s" % (
                ", ".join(r.name for r in results), x.name, mean.name,
                var.name, affine, float_text(eps), float_text(momentum),
                "true" if training else "false", x.type, mean.type, types))
        return results

    def embedding(self, table, indices):
        shape = indices.shape + table.shape[1:]
        return self.w.op("mixprec.embedding %s, %s : %s, %s" % (
            table.name, indices.name, table.type, indices.type), shape,
            table.dtype)

    def dropout(self, x, rng, p, stream):
        return self.w.op(
            "mixprec.dropout %s, %s {p = %s : f64, stream = %d : i64} : %s"
            % (x.name, rng.name, float_text(p), stream, x.type), x.shape,
            x.dtype)

    # Losses.
    def softmax_cross_entropy(self, logits, labels, reduction, ignore_index):
        attrs = ["reduction = #mixprec<reduction %s>" % reduction]
        if ignore_index is not None:
            attrs.append("ignore_index = %d : i64" % ignore_index)
        return self.w.op(
            "mixprec.softmax_cross_entropy %s, %s {%s} : %s, %s" % (
                logits.name, labels.name, ", ".join(attrs), logits.type,
                labels.type), (), logits.dtype)

    def mse(self, prediction, target, reduction):
        return self.w.op(
            "mixprec.mse %s, %s {reduction = #mixprec<reduction %s>} : %s, %s"
            % (prediction.name, target.name, reduction, prediction.type,
               target.type), (), prediction.dtype)


def _widest(dtypes):
    dtypes = set(dtypes)
    if "f32" in dtypes or {"f16", "bf16"} <= dtypes:
        return "f32"
    return dtypes.pop()
