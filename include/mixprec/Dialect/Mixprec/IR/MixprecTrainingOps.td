//===- MixprecTrainingOps.td - steps, loss scaling, updates -*- tablegen -*-===//
//
// Included by MixprecOps.td, whose base classes and type constraints these
// ops use.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_DIALECT_MIXPREC_IR_MIXPRECTRAININGOPS_TD
#define MIXPREC_DIALECT_MIXPREC_IR_MIXPRECTRAININGOPS_TD

//===----------------------------------------------------------------------===//
// Training
//===----------------------------------------------------------------------===//

def Mixprec_TrainStepOp : Mixprec_Op<"train_step", Mixprec_FP32Category, [
    Mixprec_KeepsTypes, Symbol, HasParent<"::mlir::ModuleOp">,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "declares a training step: forward loss function + optimizer";
  let description = [{
    `forward` names a `func.func` whose arguments are the batch and whose
    single result is the 0-d float loss; it reads parameters and buffers
    through `mixprec.read`. The training pipeline turns this op into
    `@<name>(state..., batch..., lr) -> (loss, state'..., ...)`.
    `accumulation_steps` micro-batches share one update.

    ```mlir
    mixprec.train_step @train forward @loss optimizer #mixprec.sgd<momentum = 0.9>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, FlatSymbolRefAttr:$forward,
                       Mixprec_OptimizerAttrInterface:$optimizer,
                       DefaultValuedAttr<I64Attr, "1">:$accumulation_steps);
  let assemblyFormat = [{
    $sym_name `forward` $forward `optimizer` $optimizer attr-dict
  }];
  let hasVerifier = 1;
}

def Mixprec_AllFiniteOp : Mixprec_Op<"all_finite", Mixprec_FP32Category, [
    Mixprec_KeepsTypes, Pure, Mixprec_InferTypeOpAdaptor]> {
  let summary = "true iff no element of any input is Inf or NaN";
  let description = [{
    The one fused check of dynamic loss scaling over every gradient. `result`
    says whether every input is finite; `each` says it per input, so a
    skipped step can name the gradients that overflowed.

    ```mlir
    %ok, %each = mixprec.all_finite %g0, %g1 : tensor<128x64xf16>, tensor<128xf32>
    ```
  }];
  let arguments = (ins Variadic<Mixprec_FloatTensor>:$inputs);
  let results = (outs Mixprec_I1Scalar:$result,
                      1DTensorOf<[I1]>:$each);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs)";
  let hasVerifier = 1;
}

def Mixprec_IndexCheckOp : Mixprec_Op<"index_check", Mixprec_FP32Category, [
    Mixprec_KeepsTypes, Pure]> {
  let summary = "the first index outside [0, bound), reported to the caller";
  let description = [{
    `--mixprec-check-indices` chains one per indexing op of a function and
    returns the last report as a hidden result, which the compiled call turns
    into `MIXPREC_INVALID_ARGUMENT` with the op, position and value.

    The report is `[check, position, value]`. The result is `previous` (or
    `[-1, 0, 0]` without it) when `previous` already records a failure
    (`check >= 0`) or when every index is in `[0, bound)` or equals
    `skipped`; otherwise it is `[check, p, indices[p]]` for the first
    row-major position `p` of an index outside the range.

    ```mlir
    %r0 = mixprec.index_check %labels {bound = 10 : i64, check = 0 : i64} : tensor<64xi32>
    %r1 = mixprec.index_check %tokens, %r0 {bound = 1000 : i64, check = 1 : i64} : tensor<8x16xi64>
    ```
  }];
  let arguments = (ins Mixprec_IndexTensor:$indices,
                       Optional<Mixprec_IndexReport>:$previous,
                       ConfinedAttr<I64Attr, [IntMinValue<0>]>:$bound,
                       ConfinedAttr<I64Attr, [IntMinValue<0>]>:$check,
                       OptionalAttr<I64Attr>:$skipped);
  let results = (outs Mixprec_IndexReport:$report);
  let assemblyFormat = [{
    $indices (`,` $previous^)? attr-dict `:` type($indices)
  }];
}

def Mixprec_IndicesValidOp : Mixprec_Op<"indices_valid", Mixprec_FP32Category, [
    Mixprec_KeepsTypes, Pure]> {
  let summary = "whether an index report names no index outside its range";
  let description = [{
    True when `report`, the result of a chain of `mixprec.index_check`,
    records no failure (its check is -1). `--mixprec-guard-state-updates`
    selects each new state value against the old one on it, so that a call
    whose indices fail leaves the state it updates in place as it was.

    ```mlir
    %valid = mixprec.indices_valid %report
    %w2 = mixprec.select %valid, %updated, %w : tensor<128x64xf32>
    ```
  }];
  let arguments = (ins Mixprec_IndexReport:$report);
  let results = (outs Mixprec_I1Scalar:$valid);
  let assemblyFormat = "$report attr-dict";
}

def Mixprec_SelectOp : Mixprec_Op<"select", Mixprec_FP32Category, [
    Mixprec_KeepsTypes, Pure,
    AllTypesMatch<["true_value", "false_value", "result"]>]> {
  let summary = "one of two tensors, by a scalar condition";
  let description = [{
    `true_value` where `condition` holds, else `false_value`: the
    conditional update of a train step whose gradients may overflow.

    ```mlir
    %w2 = mixprec.select %ok, %updated, %w : tensor<128x64xf32>
    ```
  }];
  let arguments = (ins Mixprec_I1Scalar:$condition,
                       Mixprec_StateTensor:$true_value,
                       Mixprec_StateTensor:$false_value);
  let results = (outs Mixprec_StateTensor:$result);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:` type($result)
  }];
}

def Mixprec_LossScaleUpdateOp : Mixprec_Op<"loss_scale_update",
    Mixprec_FP32Category, [Pure, Mixprec_KeepsTypes]> {
  let summary = "the dynamic loss-scale rule of docs/design.md §1";
  let description = [{
    Given the state `(scale, tracker, hysteresis_left)` and whether this
    step's gradients were all finite, returns the next state:
    on overflow `tracker = 0` and either `hysteresis_left -= 1` or
    `scale = max(scale * backoff_factor, min_scale)`; on a clean step
    `tracker += 1`, and at `growth_interval` the scale grows by
    `growth_factor` (capped at `max_scale`, kept if not finite), `tracker`
    resets and `hysteresis_left = hysteresis`. The parameters follow the
    rule `--mixprec-loss-scaling` checks its options with
    (`verifyLossScaleParameters`); `growth_interval` and `hysteresis` are
    below 2^31, as the counters are i32.

    ```mlir
    %s2, %t2, %h2 = mixprec.loss_scale_update %s, %t, %h, %ok {growth_interval = 2000 : i64}
    ```
  }];
  let arguments = (ins Mixprec_F32Scalar:$scale, Mixprec_I32Scalar:$tracker,
                       Mixprec_I32Scalar:$hysteresis_left,
                       Mixprec_I1Scalar:$finite,
                       DefaultValuedAttr<F64Attr, "2.0">:$growth_factor,
                       DefaultValuedAttr<F64Attr, "0.5">:$backoff_factor,
                       DefaultValuedAttr<I64Attr, "2000">:$growth_interval,
                       DefaultValuedAttr<I64Attr, "1">:$hysteresis,
                       DefaultValuedAttr<F64Attr, "1.0">:$min_scale,
                       DefaultValuedAttr<F64Attr, "16777216.0">:$max_scale);
  let results = (outs Mixprec_F32Scalar:$scale_out,
                      Mixprec_I32Scalar:$tracker_out,
                      Mixprec_I32Scalar:$hysteresis_left_out);
  let assemblyFormat = [{
    $scale `,` $tracker `,` $hysteresis_left `,` $finite attr-dict
  }];
  let hasVerifier = 1;
}

// An update op carries its optimizer attribute, whose verifier is the one
// check of the hyper-parameters; the op checks its operands against it.
class Mixprec_OptimizerUpdateOp<string mnemonic, list<Trait> traits = []>
    : Mixprec_Op<mnemonic, Mixprec_FP32Category,
                 !listconcat([Mixprec_KeepsTypes, Pure,
                              DeclareOpInterfaceMethods<
                                  Mixprec_OptimizerUpdateOpInterface,
                                  ["getMoments", "getMomentsOut"]>],
                             traits)> {
  let hasVerifier = 1;
}

def Mixprec_SGDUpdateOp : Mixprec_OptimizerUpdateOp<"sgd_update", [
    AttrSizedOperandSegments]> {
  let summary = "one SGD step on one parameter";
  let description = [{
    PyTorch's SGD with the hyper-parameters of `optimizer`:
    `g' = grad + weight_decay * param`; with momentum
    `buf = momentum * buf + (1 - dampening) * g'`, except on the first step,
    where `buf = g'` (undamped), and the step is `g' + momentum * buf`
    (nesterov) or `buf`; `param - lr * step`. The momentum buffer (f32, zero
    at the start) is given iff `momentum > 0`. `step` is the optimizer step
    count after this step (>= 1; the first step is 1), given iff there is a
    momentum buffer and `dampening != 0`: with `dampening = 0` the zero
    buffer gives the first step already. `weight_decay` is this parameter's
    (the train step gives 0 to the parameters it does not decay), so
    `decay_norm_and_bias` must be false.

    ```mlir
    %w2, %b2 = mixprec.sgd_update %w, %g, %lr, %buf {optimizer = #mixprec.sgd<momentum = 0.9>} : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>, tensor<128x64xf32>) -> (tensor<128x64xf32>, tensor<128x64xf32>)
    %w3, %b3 = mixprec.sgd_update %w, %g, %lr, %buf step %count {optimizer = #mixprec.sgd<momentum = 0.9, dampening = 0.5>} : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>, tensor<128x64xf32>, tensor<i64>) -> (tensor<128x64xf32>, tensor<128x64xf32>)
    ```
  }];
  let arguments = (ins Mixprec_FloatTensor:$param, Mixprec_FloatTensor:$grad,
                       Mixprec_F32Scalar:$lr,
                       Optional<Mixprec_F32Tensor>:$momentum_buffer,
                       Optional<Mixprec_I64Scalar>:$step,
                       Mixprec_SGDAttr:$optimizer);
  let results = (outs Mixprec_FloatTensor:$param_out,
                      Optional<Mixprec_F32Tensor>:$momentum_buffer_out);
  let assemblyFormat = [{
    $param `,` $grad `,` $lr (`,` $momentum_buffer^)? (`step` $step^)?
    attr-dict `:` functional-type(operands, results)
  }];
}

def Mixprec_IncrementOp : Mixprec_Op<"increment", Mixprec_FP32Category, [
    Mixprec_KeepsTypes, Pure, SameOperandsAndResultType]> {
  let summary = "adds one to an integer counter";
  let description = [{
    Advances a 0-d integer counter, such as the optimizer's step count,
    inside the train step (wrapping at the type's maximum).

    ```mlir
    %next = mixprec.increment %count : tensor<i64>
    ```
  }];
  let arguments = (ins AnyTypeOf<[Mixprec_I32Scalar, Mixprec_I64Scalar]>:$input);
  let results = (outs AnyTypeOf<[Mixprec_I32Scalar, Mixprec_I64Scalar]>:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Mixprec_AdamUpdateOp : Mixprec_OptimizerUpdateOp<"adam_update", [
    AllTypesMatch<["param", "param_out"]>,
    AllTypesMatch<["exp_avg", "exp_avg_sq", "exp_avg_out", "exp_avg_sq_out"]>]> {
  let summary = "one Adam/AdamW step on one parameter, with bias correction";
  let description = [{
    `step` is the optimizer step count after this step (>= 1). With
    `#mixprec.adamw` (decoupled) `param *= 1 - lr * weight_decay`; with
    `#mixprec.adam` `weight_decay * param` is added to the gradient. The
    moments are f32. `weight_decay` is this parameter's, so
    `decay_norm_and_bias` must be false.

    ```mlir
    %w2, %m2, %v2 = mixprec.adam_update %w, %g, %m, %v, %lr, %step {optimizer = #mixprec.adamw<>} : tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>
    ```
  }];
  let arguments = (ins Mixprec_FloatTensor:$param, Mixprec_FloatTensor:$grad,
                       Mixprec_F32Tensor:$exp_avg, Mixprec_F32Tensor:$exp_avg_sq,
                       Mixprec_F32Scalar:$lr, Mixprec_I64Scalar:$step,
                       Mixprec_AdamFamilyAttrInterface:$optimizer);
  let results = (outs Mixprec_FloatTensor:$param_out,
                      Mixprec_F32Tensor:$exp_avg_out,
                      Mixprec_F32Tensor:$exp_avg_sq_out);
  let assemblyFormat = [{
    $param `,` $grad `,` $exp_avg `,` $exp_avg_sq `,` $lr `,` $step attr-dict
    `:` type($param) `,` type($grad) `,` type($exp_avg)
  }];
}

#endif // MIXPREC_DIALECT_MIXPREC_IR_MIXPRECTRAININGOPS_TD
