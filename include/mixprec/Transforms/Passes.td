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

def MixprecCheckIndices : Pass<"mixprec-check-indices", "::mlir::ModuleOp"> {
  let summary = "Check data-dependent indices at run time, reported to the caller";
  let description = [{
    Runs after `--mixprec-expose-state`. In every public function, each op
    with the `IndexedAccessOpInterface` (class labels, token ids) gets a
    `mixprec.index_check` of its indices; the checks are chained in program
    order (ops with the same indices and bound share one), and the last report
    becomes a hidden last result marked `mixprec.index_report`. The function
    carries `mixprec.index_checks`, one dictionary per check (op, location,
    noun, bound, the indices' shape), which mixprec-compile puts in the model's tables: a call
    whose report names a check fails with `MIXPREC_INVALID_ARGUMENT` and a
    message with the op, its location, the position and the value. A function
    that already has `mixprec.index_check` ops is left alone.

    ```mlir
    func.func @loss(%logits: tensor<4x10xf32>, %labels: tensor<4xi32>) -> tensor<f32> {
      %l = mixprec.softmax_cross_entropy %logits, %labels : tensor<4x10xf32>, tensor<4xi32>
      return %l : tensor<f32>
    }
    ```
    becomes
    ```mlir
    func.func @loss(%logits: tensor<4x10xf32>, %labels: tensor<4xi32>)
        -> (tensor<f32>, tensor<3xi64> {mixprec.index_report})
        attributes {mixprec.index_checks = [{bound = 10 : i64, location = "...",
                    noun = "label", op = "softmax_cross_entropy",
                    shape = array<i64: 4>} ]} {
      %l = mixprec.softmax_cross_entropy %logits, %labels : tensor<4x10xf32>, tensor<4xi32>
      %r = mixprec.index_check %labels {bound = 10 : i64, check = 0 : i64} : tensor<4xi32>
      return %l, %r : tensor<f32>, tensor<3xi64>
    }
    ```
  }];
}

def MixprecGuardStateUpdates
    : Pass<"mixprec-guard-state-updates", "::mlir::func::FuncOp"> {
  let summary = "Keep the state as it was when a call's indices fail";
  let description = [{
    Runs after `--mixprec-check-indices`. The compiled code writes each new
    state value over the old one (docs/design.md §12), so a call whose
    index check fails must leave the state as it was by itself: nothing
    else holds the old values. In a function with an index report, the
    chain of `mixprec.index_check` moves to where its indices are known
    (before anything that updates state), and each result that is the new
    value of a state argument (the argument's `mixprec.abi_name`) becomes
    `mixprec.select` of `mixprec.indices_valid` of the report between the
    new and the old value, right where the new value is computed. An
    optimizer's write that loss scaling already guards
    (`select %finite, %updated, %old`) takes both conditions in its one
    select. A function with `mixprec.indices_valid` already is left alone.

    ```mlir
    %w2 = mixprec.select %finite, %updated, %w : tensor<4xf32>
    ...
    %r = mixprec.index_check %labels {bound = 10 : i64, check = 0 : i64} : tensor<8xi32>
    return %loss, %w2, %r : ...
    ```
    becomes
    ```mlir
    %r = mixprec.index_check %labels {bound = 10 : i64, check = 0 : i64} : tensor<8xi32>
    %valid = mixprec.indices_valid %r
    ...
    %both = mixprec.select %valid, %finite, %false : tensor<i1>
    %w2 = mixprec.select %both, %updated, %w : tensor<4xf32>
    return %loss, %w2, %r : ...
    ```
  }];
}

def MixprecScheduleStateUpdates
    : Pass<"mixprec-schedule-state-updates", "::mlir::ModuleOp"> {
  let summary = "Update each piece of state as soon as its new value is known";
  let description = [{
    Runs on each optimizer step (`mixprec.optimizer_step`) after
    `--mixprec-amp`, before `--mixprec-rematerialize`. The ops that exist
    only to compute new state values (every user an assign or such an op:
    an optimizer's update of one parameter, its reads of the state, the step
    counter, loss scaling's selects) move up to right after the values they
    need, the ops among them that need only arguments, constants and state
    right before their first user, and each `mixprec.assign` to right after
    its value, every earlier read or assign of its state, and the last use
    of a value read from it before (the compiled code writes the new value
    over the old one: docs/design.md §12). A parameter's gradient then dies
    at its update rather than living, with every other one, to the end of
    the backward. Only the order changes; what each op computes does not.
    Nothing moves above an op with effects other than reading or assigning
    state, and nothing moves down.

    ```mlir
    %dw1 = mixprec.matmul ...        // the last gradient of @w1
    %dw0 = mixprec.matmul ...        // ... the rest of the backward
    %w1 = mixprec.read @w1 : tensor<4xf32>
    %n1 = mixprec.sgd_update %w1, %dw1, %lr : ...
    mixprec.assign @w1, %n1 : tensor<4xf32>
    ```
    becomes
    ```mlir
    %dw1 = mixprec.matmul ...
    %w1 = mixprec.read @w1 : tensor<4xf32>
    %n1 = mixprec.sgd_update %w1, %dw1, %lr : ...
    mixprec.assign @w1, %n1 : tensor<4xf32>
    %dw0 = mixprec.matmul ...
    ```
  }];
}

def MixprecSinkToFirstUse
    : Pass<"mixprec-sink-to-first-use", "::mlir::ModuleOp"> {
  let summary = "Compute each value of a train step right before it is read";
  let description = [{
    Runs on each optimizer step (`mixprec.optimizer_step`), around
    `--mixprec-rematerialize`. An op without effects moves down to right
    before the first op that reads its result when its results take more
    bytes than the operands that are not read there or later anyway
    (arguments, constants, and state until it is assigned, always are):
    fewer bytes are live in between. A value the step returns stays: it is
    written into its caller's buffer, held for the whole call. The
    reverse sweep emits an op's adjoints together; a gradient that is read
    only after another adjoint's work (the softmax's, after the gradient of
    the values it weights) is then computed after that work, not held
    through it. Only the order changes; what each op computes does not.

    ```mlir
    %dp = mixprec.batch_matmul %dout, %v {transpose_rhs} : ...
    %dv = mixprec.batch_matmul %p, %dout {transpose_lhs} : ...
    %ds = mixprec.softmax_grad %dp, %s {axis = 3 : i64} : ...
    ```
    becomes
    ```mlir
    %dv = mixprec.batch_matmul %p, %dout {transpose_lhs} : ...
    %dp = mixprec.batch_matmul %dout, %v {transpose_rhs} : ...
    %ds = mixprec.softmax_grad %dp, %s {axis = 3 : i64} : ...
    ```
  }];
}

def MixprecRematerialize
    : Pass<"mixprec-rematerialize", "::mlir::ModuleOp"> {
  let summary = "Recompute forward values in the backward instead of keeping "
                "them";
  let description = [{
    Runs on each optimizer step (`mixprec.optimizer_step`) after
    `--mixprec-autodiff` and the rest of `--mixprec-amp` (mixprec-compile
    runs it after them). A value the forward computes and the backward reads
    stays live from one to the other; recomputed in the backward, from
    operands that are live there anyway, it is freed in between. The
    forward is what the returned loss depends on, the backward what depends
    on the loss seed (`mixprec.loss_seed`). The op is cloned right before its
    first reader in the backward, and the backward reads the clone; the
    original goes when the forward does not read it. The clone is the same
    op on the same operands and computes the same bits (a dropout the same
    mask: its draws are keyed by the RNG state and its stream). It carries
    `mixprec.recomputed`, so that CSE does not merge it back.

    - Always: a splat constant becomes a scalar broadcast where each op
      reads it; a per-element op (a cast, an elementwise op, a broadcast,
      reshape or transpose) of arguments, constants and state reads is
      repeated for each later reader, unless the state is assigned before
      it; a forward value the backward reads is recomputed from values
      live there anyway when it is a cast of them (the 16-bit working
      copies of the weights, cast again from the FP32 masters; the 16-bit
      copy of an FP32 softmax, cast again from the softmax its gradient
      keeps), or an FP32 value that kept 16-bit values determine, through
      at most 8 ops and no contraction whose product is smaller than its
      operands (attention's FP32 scores and softmax, from the 16-bit
      queries and keys): AMP keeps each saved value once, in the
      precision the forward computed it in.
    - With `budget` (bytes; 0: none), while the estimated peak of the step
      exceeds it: of the values live across the peak whose forward readers
      are all before it, the one whose recomputation (a chain of up to 64
      forward ops from values live there) lowers the peak at the fewest
      operations per byte (`getRecomputeFlops` of
      `AdjointOpInterface`: a multiply-add per step of a contraction, an
      operation per element otherwise). The estimate counts every tensor an
      op of the step computes from its definition to its last use in
      program order, not the state and batch, which do not change;
      `mixprec-compile --memory-budget` checks the budget against the plan
      the code uses and runs this pass with a tighter one when it must.
      Within a run of recomputed ops, an op that repeats an earlier one on
      the same values (the projection shared by attention's recomputed q,
      k and v) reads the earlier one's result instead.
    - With `report`, each recomputation goes to stderr: the op, its
      location, its bytes and operations.

    ```mlir
    %w16 = mixprec.cast %w : tensor<8x4xf32> to tensor<8x4xf16>
    %y = mixprec.linear %x, %w16 : ...          // forward
    ...
    %dx = mixprec.matmul %dy, %w16 : ...        // backward
    ```
    becomes
    ```mlir
    %w16 = mixprec.cast %w : tensor<8x4xf32> to tensor<8x4xf16>
    %y = mixprec.linear %x, %w16 : ...
    ...
    %w16b = mixprec.cast %w {mixprec.recomputed} : tensor<8x4xf32> to tensor<8x4xf16>
    %dx = mixprec.matmul %dy, %w16b : ...
    ```
  }];
  let options = [
    Option<"budget", "budget", "int64_t", /*default=*/"0",
           "Bytes the step's temporaries may take at once, as estimated (0: "
           "no budget)">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Print each recomputation on stderr">,
  ];
}

def MixprecAutocast : Pass<"mixprec-autocast", "::mlir::ModuleOp"> {
  let summary = "Give every op FP16/BF16 or FP32 with the fewest casts";
  let description = [{
    Assigns a precision to every compute op of every function by its autocast
    category (docs/design.md §1), after `precision`, the overrides and the
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
    Option<"precision", "precision", "::mixprec::AutocastPrecision",
           /*default=*/"::mixprec::AutocastPrecision::F16",
           "16-bit type of tensor-core ops", [{::llvm::cl::values(
             clEnumValN(::mixprec::AutocastPrecision::F16, "f16", "IEEE half"),
             clEnumValN(::mixprec::AutocastPrecision::BF16, "bf16",
                        "bfloat16"))}]>,
    Option<"level", "level", "::mixprec::AutocastLevel",
           /*default=*/"::mixprec::AutocastLevel::All",
           "which ops change precision", [{::llvm::cl::values(
             clEnumValN(::mixprec::AutocastLevel::All, "all",
                        "every compute op"),
             clEnumValN(::mixprec::AutocastLevel::TensorCoreOnly,
                        "tensor-core-only", "only tensor-core ops"))}]>,
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
  let summary = "Reverse-mode gradients and the optimizer's train step";
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
    A forward op without an adjoint is reported with its location.

    `mixprec.train_step @<step>` is then replaced by
    `func.func @<step>(batch..., %lr: tensor<f32>) -> loss` (marked
    `mixprec.optimizer_step`): the gradient computation (once per
    micro-batch with `accumulation_steps`, averaged in FP32), the increment
    of the step count (buffer `@<step>.step_count : tensor<i64>`), then one
    `mixprec.sgd_update` or `mixprec.adam_update` per parameter (weight
    decay for rank >= 2 unless the optimizer or the parameter says
    otherwise), whose results are assigned to the parameter and to new
    zero-initialized f32 moment buffers of the step
    (`@<step>.<parameter>.momentum_buffer`, `@<step>.<parameter>.exp_avg`,
    `@<step>.<parameter>.exp_avg_sq`).
    `--mixprec-expose-state` then makes it the functional step
    `(state..., batch..., lr) -> (loss, state'...)`.

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

def MixprecMasterWeights : Pass<"mixprec-master-weights", "::mlir::ModuleOp"> {
  let summary = "Storage types of parameters: FP32 masters, or pure 16-bit";
  let description = [{
    Runs after `--mixprec-autodiff`, on the optimizer-step functions.

    `mode=fp32` (the default): every parameter is stored in FP32. A
    parameter declared 16-bit becomes FP32 and its reads are cast to the
    declared type once per function (the working copy); every gradient
    reaches its optimizer update in FP32, and the update writes the FP32
    master. Optimizer state is FP32 in both modes.

    `mode=none` (Apex O3, to show the lost-update problem): a parameter
    whose every read is cast to one 16-bit type (its working copy after
    autocast) is stored in that type: the read yields it directly, and the
    update takes a gradient of that type and rounds the new value to it.

    ```mlir
    mixprec.parameter @w : tensor<4x8xf32> = #mixprec.zeros
    func.func @train(%x: tensor<2x8xf16>, %lr: tensor<f32>) -> tensor<f32>
        attributes {mixprec.optimizer_step} {
      %w = mixprec.read @w : tensor<4x8xf32>
      %w16 = mixprec.cast %w : tensor<4x8xf32> to tensor<4x8xf16>
      ...
      %new = mixprec.sgd_update %w, %g, %lr {optimizer = #mixprec.sgd<>} : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
      mixprec.assign @w, %new : tensor<4x8xf32>
    }
    ```
    becomes with `mode=none`
    ```mlir
    mixprec.parameter @w : tensor<4x8xf16> = #mixprec.zeros
      %w16 = mixprec.read @w : tensor<4x8xf16>
      %g16 = mixprec.cast %g : tensor<4x8xf32> to tensor<4x8xf16>
      %new = mixprec.sgd_update %w16, %g16, %lr {optimizer = #mixprec.sgd<>} : (tensor<4x8xf16>, tensor<4x8xf16>, tensor<f32>) -> tensor<4x8xf16>
    ```
  }];
  let options = [
    Option<"mode", "mode", "::mixprec::MasterWeightsMode",
           /*default=*/"::mixprec::MasterWeightsMode::FP32",
           "storage of the parameters", [{::llvm::cl::values(
             clEnumValN(::mixprec::MasterWeightsMode::FP32, "fp32",
                        "FP32 master copies"),
             clEnumValN(::mixprec::MasterWeightsMode::None, "none",
                        "pure 16-bit parameters"))}]>,
  ];
}

def MixprecLossScaling : Pass<"mixprec-loss-scaling", "::mlir::ModuleOp"> {
  let summary = "Loss scaling, the all-finite check and the conditional update";
  let description = [{
    Runs after `--mixprec-autodiff` (and `--mixprec-master-weights`), on
    every optimizer-step function `@<step>`:
    - the loss seed (`mixprec.loss_seed`) is multiplied by the scale;
    - every gradient entering an optimizer update is unscaled in FP32
      (multiplied by the FP32 reciprocal of the scale, as PyTorch's
      GradScaler);
    - one `mixprec.all_finite` covers all unscaled gradients;
    - with `max-grad-norm > 0` the unscaled gradients are clipped to that
      global L2 norm (PyTorch's `clip_grad_norm_`);
    - every value an optimizer update, or the step count's increment,
      assigns is selected against the old one: a step with a non-finite
      gradient leaves parameters, moments and the step count bit-identical;
    - the buffers `@<step>.skipped : tensor<i1>`, `@<step>.skipped_steps :
      tensor<i64>` and `@<step>.finite_gradients : tensor<Nxi1>` (one flag
      per parameter, in declaration order) record what happened.

    `mode=dynamic` keeps `(scale, tracker, hysteresis)` in the buffers
    `@<step>.loss_scale`, `@<step>.loss_scale_tracker` and
    `@<step>.loss_scale_hysteresis` and updates them with
    `mixprec.loss_scale_update` (docs/design.md §1); `mode=static` keeps the
    scale at `init-scale`; `mode=none` only clips (when `max-grad-norm` is set).

    ```mlir
    %seed = mixprec.constant {mixprec.loss_seed} dense<1.0> : tensor<f32>
    ...
    %new = mixprec.sgd_update %w, %g, %lr {optimizer = #mixprec.sgd<>} : ...
    mixprec.assign @w, %new : tensor<4x8xf32>
    ```
    becomes
    ```mlir
    %s = mixprec.read @train.loss_scale : tensor<f32>
    %seed = mixprec.mul %seed1, %s : tensor<f32>, tensor<f32>
    ...
    %g32 = mixprec.mul %g, %inverse_scale : ...
    %ok, %each = mixprec.all_finite %g32, ... : ...
    %new = mixprec.sgd_update %w, %g32, %lr {optimizer = #mixprec.sgd<>} : ...
    %kept = mixprec.select %ok, %new, %w : tensor<4x8xf32>
    mixprec.assign @w, %kept : tensor<4x8xf32>
    %s2, %t2, %h2 = mixprec.loss_scale_update %s, %t, %h, %ok {...}
    ```
  }];
  let options = [
    Option<"mode", "mode", "::mixprec::LossScalingMode",
           /*default=*/"::mixprec::LossScalingMode::Dynamic",
           "how the loss scale evolves", [{::llvm::cl::values(
             clEnumValN(::mixprec::LossScalingMode::Dynamic, "dynamic",
                        "the scale grows and backs off"),
             clEnumValN(::mixprec::LossScalingMode::Static, "static",
                        "the scale stays at init-scale"),
             clEnumValN(::mixprec::LossScalingMode::None, "none",
                        "no scaling; only max-grad-norm clips"))}]>,
    Option<"initScale", "init-scale", "double", /*default=*/"65536.0",
           "initial (or static) loss scale">,
    Option<"growthFactor", "growth-factor", "double", /*default=*/"2.0",
           "scale multiplier after growth-interval clean steps">,
    Option<"backoffFactor", "backoff-factor", "double", /*default=*/"0.5",
           "scale multiplier on overflow">,
    Option<"growthInterval", "growth-interval", "int64_t", /*default=*/"2000",
           "clean steps before the scale grows">,
    Option<"hysteresis", "hysteresis", "int64_t", /*default=*/"1",
           "overflows tolerated before the scale backs off">,
    Option<"minScale", "min-scale", "double", /*default=*/"1.0",
           "the scale never backs off below this">,
    Option<"maxScale", "max-scale", "double", /*default=*/"16777216.0",
           "the scale never grows above this (2^24, as Apex)">,
    Option<"maxGradNorm", "max-grad-norm", "double", /*default=*/"0.0",
           "clip unscaled gradients to this global L2 norm (0: no clipping)">,
  ];
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
