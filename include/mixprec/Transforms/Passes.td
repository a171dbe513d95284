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

def MixprecAutocast : Pass<"mixprec-autocast", "::mlir::ModuleOp"> {
  let summary = "Give every op FP16/BF16 or FP32 with the fewest casts";
  let description = [{
    Assigns a precision to every compute op of every function by its autocast
    category (ARCHITECTURE.md §1), after `precision`, the overrides and the
    pins:

    - `tensor_core` ops take `precision` inputs and accumulate in FP32; a
      contraction yields its accumulator's FP32 straight when that saves a
      cast, and `precision` otherwise;
    - `fp32` ops take FP32 inputs and produce FP32;
    - `follow` ops run in their input's precision, `promote` ops in 16 bits
      only when every input is 16-bit;
    - an op carrying `mixprec.precision = f16|bf16|f32` runs in that
      precision; `level=tensor-core-only` keeps every other op's types.

    Among all assignments that obey these rules it picks one with the fewest
    casts (a minimum cut: one cast per (value, type), shared by all users,
    placed right after the value's definition), and among those the most
    16-bit values. So follow and promote ops between tensor-core ops stay
    16-bit, casts sit only where precisions change, and none feeds another
    cast. Reads of one parameter are merged first, so a weight used by
    several tensor-core ops is cast once. Function signatures, model state,
    user casts and training ops keep their types; a second run changes
    nothing. Every decided op gets `mixprec.autocast = "<rule>"` (casts:
    `"cast: <reason>"`) for `--mixprec-precision-report`.

    ```mlir
    func.func @f(%x: tensor<8x16xf32>, %w1: tensor<16x16xf32>,
                 %w2: tensor<16x4xf32>) -> tensor<8x4xf32> {
      %h = mixprec.matmul %x, %w1 : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
      %a = mixprec.relu %h : tensor<8x16xf32>
      %y = mixprec.matmul %a, %w2 : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
      %p = mixprec.softmax %y {axis = 1 : i64} : tensor<8x4xf32>
      return %p : tensor<8x4xf32>
    }
    ```
    becomes, with `precision=f16` (rule attributes left out)
    ```mlir
      %x16 = mixprec.cast %x : tensor<8x16xf32> to tensor<8x16xf16>
      %w1_16 = mixprec.cast %w1 : tensor<16x16xf32> to tensor<16x16xf16>
      %w2_16 = mixprec.cast %w2 : tensor<16x4xf32> to tensor<16x4xf16>
      %h = mixprec.matmul %x16, %w1_16 : tensor<8x16xf16>, tensor<16x16xf16> -> tensor<8x16xf16>
      %a = mixprec.relu %h : tensor<8x16xf16>
      %y = mixprec.matmul %a, %w2_16 : tensor<8x16xf16>, tensor<16x4xf16> -> tensor<8x4xf32>
      %p = mixprec.softmax %y {axis = 1 : i64} : tensor<8x4xf32>
    ```
  }];
  let options = [
    Option<"precision", "precision", "std::string", /*default=*/"\"f16\"",
           "16-bit type of tensor-core ops: f16 or bf16">,
    Option<"level", "level", "std::string", /*default=*/"\"all\"",
           "all: every compute op; tensor-core-only: only tensor-core ops "
           "change">,
    ListOption<"tensorCoreOps", "tensor-core-ops", "std::string",
               "op kinds moved to the tensor_core category (e.g. add)">,
    ListOption<"fp32Ops", "fp32-ops", "std::string",
               "op kinds moved to the fp32 category">,
    ListOption<"promoteOps", "promote-ops", "std::string",
               "op kinds moved to the promote category">,
    ListOption<"followOps", "follow-ops", "std::string",
               "op kinds moved to the follow category">
  ];
}

def MixprecAutodiff : Pass<"mixprec-autodiff", "::mlir::ModuleOp"> {
  let summary = "Reverse-mode gradients and the SGD train step";
  let description = [{
    For each `mixprec.train_step @<step> forward @<loss>`, adds
    `@<step>_gradients` with the forward function's arguments, returning the
    loss and then the gradient of every parameter in declaration order (zeros
    for parameters the loss does not read), each in its parameter's type and
    marked with the result attribute `mixprec.gradient_of = @<parameter>`.
    The loss seed (a constant 1) carries `mixprec.loss_seed`, so loss
    scaling finds it.

    Adjoints run in their forward op's precision (the incoming gradient is
    cast to the op's result type; contractions multiply in their input type
    and accumulate in FP32); the adjoint of a cast is a cast back; a value
    used several times gets the sum of its gradients in FP32; broadcasts are
    undone by sums; dropout's adjoint applies the same Philox mask.
    Forward ops without an adjoint yet are reported with their location.

    With an SGD optimizer, `mixprec.train_step @<step>` is then replaced by
    `func.func @<step>(batch..., %lr: tensor<f32>) -> loss` (marked
    `mixprec.optimizer_step`): the gradient computation, then one
    `mixprec.sgd_update` per parameter (weight decay for rank >= 2 unless the
    optimizer or the parameter says otherwise), whose results are assigned
    to the parameter and, with momentum, to a new zero-initialized buffer
    `@<parameter>.momentum_buffer`. `--mixprec-expose-state` then makes it
    the functional step `(state..., batch..., lr) -> (loss, state'...)`.
    Adam and AdamW steps need the optimizer step count as state, which is
    not built yet: for them only the gradient function is added (with a
    warning).

    ```mlir
    mixprec.parameter @w : tensor<4x8xf32> = #mixprec.zeros
    func.func @loss(%x: tensor<2x8xf32>) -> tensor<f32> {
      %w = mixprec.read @w : tensor<4x8xf32>
      %y = mixprec.linear %x, %w : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
      %l = mixprec.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<2x4xf32>
      return %l : tensor<f32>
    }
    mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>
    ```
    gains
    ```mlir
    func.func @train_gradients(%x: tensor<2x8xf32>)
        -> (tensor<f32>, tensor<4x8xf32> {mixprec.gradient_of = @w})
    ```
  }];
}

def MixprecPrecisionReport
    : Pass<"mixprec-precision-report", "::mlir::ModuleOp"> {
  let summary = "Report the precision autocast chose for every op, and why";
  let description = [{
    Reads the `mixprec.autocast` rules left by `--mixprec-autocast` and
    prints a table (to stderr) with one row per decided op and per inserted
    cast: location, op, precision, rule. Totals: casts inserted (to 16 bits,
    to FP32), the share of FLOPs in 16-bit tensor-core ops, the bytes of
    activations (results of compute ops and their casts) if all were FP32
    against after autocast, and the bytes of the casts of arguments and
    parameters (working copies). FLOPs: 2*M*N*K for contractions (conv2d:
    2 * output elements * C_in/groups * KH * KW), none for data movement
    (reshape, transpose, broadcast, slice, concat, embedding, constant), one
    per element of its largest tensor for any other op (casts included).
    The IR is not changed.

    ```
    mixprec-opt model.mlir --mixprec-autocast=precision=bf16 \
        --mixprec-precision-report=json-file=report.json -o /dev/null
    ```
  }];
  let options = [
    Option<"jsonFile", "json-file", "std::string", /*default=*/"\"\"",
           "also write the report as JSON to this file">
  ];
}

#endif // MIXPREC_TRANSFORMS_PASSES_TD
