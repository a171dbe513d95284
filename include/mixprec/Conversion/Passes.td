//===- Passes.td - conversions out of mixprec ---------------*- tablegen -*-===//

#ifndef MIXPREC_CONVERSION_PASSES_TD
#define MIXPREC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertMixprecToLinalg : Pass<"convert-mixprec-to-linalg",
                                  "::mlir::ModuleOp"> {
  let summary = "Lower mixprec compute ops to linalg, arith, math and tensor";
  let description = [{
    Every compute and training op of the dialect becomes linalg (named or
    generic) ops on tensors with arith/math bodies, keeping the 16-bit
    semantics of docs/design.md §4: a 16-bit op computes in f32 and rounds
    once, to its result type; contractions widen 16-bit inputs inside the
    contraction and accumulate in f32; casts round to nearest even.

    Model state (`parameter`, `buffer`, `read`, `assign`, `rng_state`,
    `train_step`) is not lowered here: the train-step passes turn it into
    function arguments and results first (`--mixprec-expose-state`).

    ```mlir
    %z = mixprec.add %x, %y : tensor<4x8xf16>, tensor<4x8xf16>
    ```
    becomes
    ```mlir
    %e = tensor.empty() : tensor<4x8xf16>
    %z = linalg.generic {...} ins(%x, %y : tensor<4x8xf16>, tensor<4x8xf16>)
                              outs(%e : tensor<4x8xf16>) {
    ^bb0(%a: f16, %b: f16, %out: f16):
      %af = arith.extf %a : f16 to f32
      %bf = arith.extf %b : f16 to f32
      %s = arith.addf %af, %bf : f32
      %r = arith.truncf %s : f32 to f16
      linalg.yield %r : f16
    } -> tensor<4x8xf16>
    ```
  }];
  let options = [
    Option<"scatterEmbeddingGradients", "scatter-embedding-gradients", "bool",
           /*default=*/"false",
           "Lower embedding_grad to a loop over the indices that adds each "
           "gradient row to the row its index names (the CPU's form, the "
           "same bits), instead of one dense reduction over the table (the "
           "GPU's: parallel over the table)">,
    Option<"convolutionsAsGemms", "convolutions-as-gemms", "bool",
           /*default=*/"false",
           "Lower conv2d and its gradients to an im2col copy and one "
           "contraction per group whose loops chain in memory (the CPU's "
           "form, for the runtime's GEMMs), instead of one loop nest over "
           "the windows (the GPU's); depthwise and narrow groups keep the "
           "loop nest">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // MIXPREC_CONVERSION_PASSES_TD
