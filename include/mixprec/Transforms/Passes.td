//===- Passes.td - mixprec to mixprec transformations -------*- tablegen -*-===//

#ifndef MIXPREC_TRANSFORMS_PASSES_TD
#define MIXPREC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def MixprecExposeState : Pass<"mixprec-expose-state", "::mlir::ModuleOp"> {
  let summary = "Turn model state into function arguments and results";
  let description = [{
    Makes every public function pure: each parameter or buffer it reads
    becomes an argument (in declaration order, before the function's own
    arguments), `mixprec.rng_state` becomes an argument after them, and each
    buffer it assigns becomes a result after its own results. The new
    arguments and results carry `mixprec.abi_name` with the state's name,
    which the compiled model's ABI reports. The declarations (`parameter`,
    `buffer`, `train_step`) are removed: the train step, if wanted, must have
    been expanded before.

    ```mlir
    mixprec.parameter @w : tensor<4x8xf32> = #mixprec.zeros
    func.func @f(%x: tensor<2x8xf32>) -> tensor<2x4xf32> {
      %w = mixprec.read @w : tensor<4x8xf32>
      %y = mixprec.linear %x, %w : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
      return %y : tensor<2x4xf32>
    }
    ```
    becomes
    ```mlir
    func.func @f(%w: tensor<4x8xf32> {mixprec.abi_name = "w"},
                 %x: tensor<2x8xf32>) -> tensor<2x4xf32> { ... }
    ```
    Functions that use state may not be called from other functions.
  }];
}

#endif // MIXPREC_TRANSFORMS_PASSES_TD
