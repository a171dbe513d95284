"""MLIR text of types and attributes, for the tests and the random model
generator (which runs without torch and the mixprec package, so this module
imports neither)."""


def tensor_type(shape, dtype="f32"):
    """`tensor<2x3xf32>`; `tensor<f32>` for the shape ()."""
    return "tensor<%s%s>" % ("".join("%dx" % d for d in shape), dtype)


def i64_array(values):
    """`array<i64: 1, 2>`."""
    return "array<i64: %s>" % ", ".join(str(v) for v in values)
