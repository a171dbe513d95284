"""MLIR text of types and attributes, for the tests and the random model
generator (which runs without torch and the mixprec package, so this module
imports neither)."""


def tensor_type(shape, dtype="f32"):
    """`tensor<2x3xf32>`; `tensor<f32>` for the shape ()."""
    return "tensor<%s%s>" % ("".join("%dx" % d for d in shape), dtype)


def i64_array(values):
    """`array<i64: 1, 2>`."""
    return "array<i64: %s>" % ", ".join(str(v) for v in values)


def linear_sum_model(optimizer, initializer="#mixprec.ones"):
    """`loss = sum(x w)` for x: [1, 4], w: [4, 1], trained by `optimizer`
    (an attribute's text). Under f16 autocast the matmul runs in f16, so a
    batch value above 65504 overflows (Inf once cast) and every gradient of
    w is Inf or NaN."""
    return """
mixprec.parameter @w : tensor<4x1xf32> = %s
func.func @loss(%%x: tensor<1x4xf32>) -> tensor<f32> {
  %%w = mixprec.read @w : tensor<4x1xf32>
  %%y = mixprec.matmul %%x, %%w : tensor<1x4xf32>, tensor<4x1xf32> -> tensor<1x1xf32>
  %%l = mixprec.reduce_sum %%y {dims = array<i64: 0, 1>} : tensor<1x1xf32>
  return %%l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer %s
""" % (initializer, optimizer)
