//===- MixprecGradientOps.td - the ops of reverse sweeps --*- tablegen -*-===//
//
// Included by MixprecOps.td, whose base classes and type constraints these
// ops use.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_DIALECT_MIXPREC_IR_MIXPRECGRADIENTOPS_TD
#define MIXPREC_DIALECT_MIXPREC_IR_MIXPRECGRADIENTOPS_TD

//===----------------------------------------------------------------------===//
// Backward ops
//===----------------------------------------------------------------------===//

// The gradients that --mixprec-autodiff emits. Each takes the gradient of its
// forward op's result (`grad`) and has its forward op's category; every float
// operand and result has one element type, the precision of the pair.

def Mixprec_ReluGradOp : Mixprec_Op<"relu_grad", Mixprec_FollowCategory, [
    Pure, AllTypesMatch<["grad", "input", "result"]>]> {
  let summary = "gradient of relu: grad where input > 0, else 0";
  let description = [{
    PyTorch's `threshold_backward(grad, input, 0)`: `input <= 0 ? 0 : grad`,
    so a NaN input passes the gradient through.

    ```mlir
    %dx = mixprec.relu_grad %g, %x : tensor<16x256xf16>
    ```
  }];
  let arguments = (ins Mixprec_FloatTensor:$grad, Mixprec_FloatTensor:$input);
  let results = (outs Mixprec_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $input attr-dict `:` type($result)";
}

def Mixprec_GeluGradOp : Mixprec_Op<"gelu_grad", Mixprec_FollowCategory, [
    Pure, AllTypesMatch<["grad", "input", "result"]>]> {
  let summary = "gradient of gelu with respect to its input";
  let description = [{
    `grad * gelu'(input)` for the same `approximate` form as `mixprec.gelu`
    (PyTorch's `gelu_backward`).

    ```mlir
    %dx = mixprec.gelu_grad %g, %x {approximate = #mixprec<gelu_approximation tanh>} : tensor<16x256xf16>
    ```
  }];
  let arguments = (ins Mixprec_FloatTensor:$grad, Mixprec_FloatTensor:$input,
      DefaultValuedAttr<Mixprec_GeluApproximationAttr,
                        "::mixprec::GeluApproximation::Erf">:$approximate);
  let results = (outs Mixprec_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $input attr-dict `:` type($result)";
}

class Mixprec_MinMaxGradOp<string mnemonic, string what, string wins>
    : Mixprec_Op<mnemonic, Mixprec_PromoteCategory, [
        Pure, AllTypesMatch<["grad", "lhs", "rhs", "dlhs", "drhs"]>]> {
  let summary = "gradients of " # what # " with respect to both operands";
  let description = [{
    PyTorch's rule: an operand gets `grad` where it is }] # wins # [{ and 0
    where the other operand is; where they are equal each gets `grad / 2`.
    A NaN compares false both ways, so both operands get `grad` there.
    `lhs` and `rhs` are the forward op's operands in the result type.

    ```mlir
    %dlhs, %drhs = mixprec.}] # mnemonic # [{ %g, %a, %b : tensor<4x8xf16>
    ```
  }];
  let arguments = (ins Mixprec_FloatTensor:$grad, Mixprec_FloatTensor:$lhs,
                       Mixprec_FloatTensor:$rhs);
  let results = (outs Mixprec_FloatTensor:$dlhs, Mixprec_FloatTensor:$drhs);
  let assemblyFormat = "$grad `,` $lhs `,` $rhs attr-dict `:` type($grad)";
}

def Mixprec_MaximumGradOp : Mixprec_MinMaxGradOp<"maximum_grad", "maximum",
                                                 "the larger">;
def Mixprec_MinimumGradOp : Mixprec_MinMaxGradOp<"minimum_grad", "minimum",
                                                 "the smaller">;

def Mixprec_ReduceMaxGradOp : Mixprec_Op<"reduce_max_grad",
    Mixprec_FollowCategory, [Pure, AllTypesMatch<["grad", "output"]>,
                             AllTypesMatch<["input", "result"]>]> {
  let summary = "gradient of reduce_max with respect to its input";
  let description = [{
    PyTorch's `amax` backward: the elements equal to their group's maximum
    `output` share the group's `grad` equally, `(grad / count) * (x ==
    max)`; the others get 0. A NaN maximum equals nothing, so its group's
    gradient is NaN, as in PyTorch. `dims` and `keepdim` are the forward
    op's; `grad` and `output` have its result type.

    ```mlir
    %dx = mixprec.reduce_max_grad %g, %x, %m {dims = array<i64: 1>} : tensor<8xf32>, tensor<8x16xf32>
    ```
  }];
  let arguments = (ins Mixprec_FloatTensor:$grad, Mixprec_FloatTensor:$input,
                       Mixprec_FloatTensor:$output, DenseI64ArrayAttr:$dims,
                       UnitAttr:$keepdim);
  let results = (outs Mixprec_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $input `,` $output attr-dict `:` type($grad) `,` type($input)
  }];
  let hasVerifier = 1;
}

class Mixprec_SoftmaxLikeGradOp<string mnemonic, string what>
    : Mixprec_Op<mnemonic, Mixprec_FP32Category, [
        Pure, AllTypesMatch<["grad", "output", "result"]>]> {
  let summary = "gradient of " # what # " from its output";
  let arguments = (ins Mixprec_FloatTensor:$grad, Mixprec_FloatTensor:$output,
                       I64Attr:$axis);
  let results = (outs Mixprec_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $output attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Mixprec_SoftmaxGradOp : Mixprec_SoftmaxLikeGradOp<"softmax_grad",
                                                      "softmax"> {
  let description = [{
    `output` is the softmax `y`: `y * (grad - sum(grad * y))`, the sum along
    `axis` in f32.

    ```mlir
    %dx = mixprec.softmax_grad %g, %y {axis = 1 : i64} : tensor<8x16xf32>
    ```
  }];
}

def Mixprec_LogSoftmaxGradOp : Mixprec_SoftmaxLikeGradOp<"log_softmax_grad",
                                                         "log_softmax"> {
  let description = [{
    `output` is the log-softmax `y`: `grad - e^y * sum(grad)`, the sum along
    `axis` in f32.

    ```mlir
    %dx = mixprec.log_softmax_grad %g, %y {axis = 1 : i64} : tensor<8x16xf32>
    ```
  }];
}

def Mixprec_LayerNormGradOp : Mixprec_Op<"layer_norm_grad",
    Mixprec_FP32Category, [Pure, AllTypesMatch<["grad", "input", "dx"]>,
                           AllTypesMatch<["scale", "dscale", "dbias"]>]> {
  let summary = "gradients of layer_norm: input, scale and bias";
  let description = [{
    PyTorch's `native_layer_norm_backward` over dims `[axis, rank)`, with the
    mean and 1/std recomputed from `input` in f32. `scale` is required: the
    gradient of a layer_norm without scale and bias takes a scale of ones and
    ignores `dscale` and `dbias`.

    ```mlir
    %dx, %dscale, %dbias = mixprec.layer_norm_grad %g, %x scale %s {axis = 2 : i64} : tensor<8x16x64xf32>, tensor<64xf32>
    ```
  }];
  let arguments = (ins Mixprec_FloatTensor:$grad, Mixprec_FloatTensor:$input,
                       Mixprec_FloatTensor:$scale, I64Attr:$axis,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$eps);
  let results = (outs Mixprec_FloatTensor:$dx, Mixprec_FloatTensor:$dscale,
                      Mixprec_FloatTensor:$dbias);
  let assemblyFormat = [{
    $grad `,` $input `scale` $scale attr-dict `:` type($input) `,` type($scale)
  }];
  let hasVerifier = 1;
}

def Mixprec_SoftmaxCrossEntropyGradOp : Mixprec_Op<
    "softmax_cross_entropy_grad", Mixprec_FP32Category, [
    Pure, AllTypesMatch<["logits", "result"]>,
    TypesMatchWith<"grad is a 0-d tensor of the logits' element type",
                   "logits", "grad",
                   "::mlir::RankedTensorType::get({}, "
                   "::llvm::cast<::mlir::ShapedType>($_self)"
                   ".getElementType())">]> {
  let summary = "gradient of softmax_cross_entropy with respect to the logits";
  let description = [{
    `grad * (softmax(logits) - one_hot(labels)) / N` for `mean`, without the
    `/ N` for `sum`; `grad` is the 0-d gradient of the loss. With
    `ignore_index`, the rows of that label are zero and `N` counts the others.

    ```mlir
    %dlogits = mixprec.softmax_cross_entropy_grad %g, %logits, %labels : tensor<64x10xf32>, tensor<64xi32>
    ```
  }];
  let arguments = (ins Mixprec_FloatTensor:$grad,
                       Mixprec_FloatTensor:$logits,
                       Mixprec_IndexTensor:$labels,
                       DefaultValuedAttr<Mixprec_ReductionAttr,
                                         "::mixprec::Reduction::Mean">:$reduction,
                       OptionalAttr<I64Attr>:$ignore_index);
  let results = (outs Mixprec_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $logits `,` $labels attr-dict `:` type($logits) `,`
    type($labels)
  }];
  let hasVerifier = 1;
}

def Mixprec_EmbeddingGradOp : Mixprec_Op<"embedding_grad",
    Mixprec_FollowCategory, [Pure, Mixprec_InferTypeOpAdaptor]> {
  let summary = "gradient of embedding with respect to its table";
  let description = [{
    `grad` is `indices.shape + [dim]`; the result is a zero
    `[num_embeddings, dim]` table of grad's element type into which the rows
    of `grad` are summed (in f32, rounded once) at their indices. An index
    outside `[0, num_embeddings)` fails the compiled call, as for the
    forward op; the lowering alone adds it nowhere.

    ```mlir
    %dtable = mixprec.embedding_grad %g, %tokens {num_embeddings = 100 : i64} : tensor<8x16x64xf16>, tensor<8x16xi32>
    ```
  }];
  let arguments = (ins Mixprec_FloatTensor:$grad,
                       Mixprec_IndexTensor:$indices, I64Attr:$num_embeddings);
  let results = (outs Mixprec_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $indices attr-dict `:` type($grad) `,` type($indices)
  }];
}

class Mixprec_Conv2DGradOp<string mnemonic>
    : Mixprec_Op<mnemonic, Mixprec_FollowCategory,
                 [Pure, Mixprec_InferTypeOpAdaptor]> {
  let results = (outs Mixprec_FloatTensor:$result);
  let hasVerifier = 1;
}

def Mixprec_Conv2DGradInputOp : Mixprec_Conv2DGradOp<"conv2d_grad_input"> {
  let summary = "gradient of conv2d with respect to its input";
  let description = [{
    `grad` is the gradient of the conv2d result, `weight` its OIHW weight,
    of one element type; the result is `input_shape` (NCHW) in that type.
    `stride`, `padding`, `dilation` and `groups` are the forward conv2d's;
    the sums run in f32 and the result is rounded once.

    ```mlir
    %dx = mixprec.conv2d_grad_input %g, %w {input_shape = array<i64: 32, 1, 8, 8>, padding = array<i64: 1, 1>} : tensor<32x8x8x8xf16>, tensor<8x1x3x3xf16>
    ```
  }];
  let arguments = (ins Mixprec_FloatTensor:$grad, Mixprec_FloatTensor:$weight,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$stride,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$padding,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilation,
                       DefaultValuedAttr<I64Attr, "1">:$groups,
                       DenseI64ArrayAttr:$input_shape);
  let assemblyFormat = [{
    $grad `,` $weight attr-dict `:` type($grad) `,` type($weight)
  }];
}

def Mixprec_Conv2DGradWeightOp : Mixprec_Conv2DGradOp<"conv2d_grad_weight"> {
  let summary = "gradient of conv2d with respect to its weight";
  let description = [{
    `grad` is the gradient of the conv2d result, `input` its NCHW input, of
    one element type; the result is `weight_shape` (`[out, in / groups, kh,
    kw]`) in that type. `stride`, `padding`, `dilation` and `groups` are the
    forward conv2d's; the sums run in f32 and the result is rounded once.

    ```mlir
    %dw = mixprec.conv2d_grad_weight %g, %x {padding = array<i64: 1, 1>, weight_shape = array<i64: 8, 1, 3, 3>} : tensor<32x8x8x8xf16>, tensor<32x1x8x8xf16>
    ```
  }];
  let arguments = (ins Mixprec_FloatTensor:$grad, Mixprec_FloatTensor:$input,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$stride,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$padding,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilation,
                       DefaultValuedAttr<I64Attr, "1">:$groups,
                       DenseI64ArrayAttr:$weight_shape);
  let assemblyFormat = [{
    $grad `,` $input attr-dict `:` type($grad) `,` type($input)
  }];
}

class Mixprec_Pool2DGradOp<string mnemonic, string what>
    : Mixprec_Op<mnemonic, Mixprec_FollowCategory, [
        Pure, AllTypesMatch<["input", "result"]>,
        AllElementTypesMatch<["grad", "input"]>]> {
  let summary = "gradient of " # what # " with respect to its input";
  let arguments = (ins Mixprec_FloatTensor:$grad, Mixprec_FloatTensor:$input,
                       DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$stride,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$padding);
  let results = (outs Mixprec_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $input attr-dict `:` type($grad) `,` type($input)
  }];
  let hasVerifier = 1;
}

def Mixprec_MaxPool2DGradOp : Mixprec_Pool2DGradOp<"max_pool2d_grad",
                                                   "max_pool2d"> {
  let description = [{
    Each window's gradient goes to the window's first maximal element in
    row-major window order (a NaN is maximal, and the window's last NaN
    wins; padding never wins), summed over overlapping windows in f32 and
    rounded once, as PyTorch's `max_pool2d_with_indices_backward`. `kernel`,
    `stride` and `padding` are the forward op's.

    ```mlir
    %dx = mixprec.max_pool2d_grad %g, %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<32x8x4x4xf32>, tensor<32x8x8x8xf32>
    ```
  }];
}

def Mixprec_AvgPool2DGradOp : Mixprec_Pool2DGradOp<"avg_pool2d_grad",
                                                   "avg_pool2d"> {
  let description = [{
    Each window's gradient divided by `kernel_h * kernel_w` (padded elements
    count, PyTorch's count_include_pad=True) is summed into every input
    element of the window, in f32, rounded once. `input` only gives the
    shape.

    ```mlir
    %dx = mixprec.avg_pool2d_grad %g, %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<32x8x4x4xf32>, tensor<32x8x8x8xf32>
    ```
  }];
}

def Mixprec_BatchNormGradOp : Mixprec_Op<"batch_norm_grad",
    Mixprec_FP32Category, [Pure, AllTypesMatch<["grad", "input", "dx"]>,
                           AllTypesMatch<["scale", "dscale", "dbias"]>]> {
  let summary = "gradients of training-mode batch_norm: input, scale, bias";
  let description = [{
    PyTorch's `native_batch_norm_backward` in training mode: `input` is
    `[N, C]` or `[N, C, H, W]`, the batch mean and 1/std per channel are
    recomputed from `input` in f32 (biased variance). `scale` (`[C]`) is
    required: the gradient of a batch_norm without scale and bias takes a
    scale of ones and ignores `dscale` and `dbias`.

    ```mlir
    %dx, %dscale, %dbias = mixprec.batch_norm_grad %g, %x scale %s : tensor<32x8x8x8xf32>, tensor<8xf32>
    ```
  }];
  let arguments = (ins Mixprec_FloatTensor:$grad, Mixprec_FloatTensor:$input,
                       Mixprec_FloatTensor:$scale,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$eps);
  let results = (outs Mixprec_FloatTensor:$dx, Mixprec_FloatTensor:$dscale,
                      Mixprec_FloatTensor:$dbias);
  let assemblyFormat = [{
    $grad `,` $input `scale` $scale attr-dict `:` type($input) `,` type($scale)
  }];
  let hasVerifier = 1;
}

#endif // MIXPREC_DIALECT_MIXPREC_IR_MIXPRECGRADIENTOPS_TD
