// RUN: mixprec-opt %s -split-input-file --mixprec-autodiff --mixprec-loss-scaling -verify-diagnostics

// Every option the pass rejects, with the pass's name and the value given,
// at the module's location.
// RUN: not mixprec-opt %s -split-input-file --mixprec-autodiff --mixprec-loss-scaling=mode=weird 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not mixprec-opt %s -split-input-file --mixprec-autodiff --mixprec-loss-scaling=init-scale=0 2>&1 | FileCheck %s --check-prefix=INIT0
// RUN: not mixprec-opt %s -split-input-file --mixprec-autodiff --mixprec-loss-scaling=init-scale=-2 2>&1 | FileCheck %s --check-prefix=INITNEG
// RUN: not mixprec-opt %s -split-input-file --mixprec-autodiff --mixprec-loss-scaling=init-scale=inf 2>&1 | FileCheck %s --check-prefix=INITINF
// RUN: not mixprec-opt %s -split-input-file --mixprec-autodiff --mixprec-loss-scaling="min-scale=8 max-scale=4" 2>&1 | FileCheck %s --check-prefix=MINMAX
// RUN: not mixprec-opt %s -split-input-file --mixprec-autodiff --mixprec-loss-scaling=min-scale=0 2>&1 | FileCheck %s --check-prefix=MIN0
// RUN: not mixprec-opt %s -split-input-file --mixprec-autodiff --mixprec-loss-scaling=growth-factor=1 2>&1 | FileCheck %s --check-prefix=GROWTH
// RUN: not mixprec-opt %s -split-input-file --mixprec-autodiff --mixprec-loss-scaling=backoff-factor=1 2>&1 | FileCheck %s --check-prefix=BACKOFF1
// RUN: not mixprec-opt %s -split-input-file --mixprec-autodiff --mixprec-loss-scaling=backoff-factor=0 2>&1 | FileCheck %s --check-prefix=BACKOFF0
// RUN: not mixprec-opt %s -split-input-file --mixprec-autodiff --mixprec-loss-scaling=growth-interval=0 2>&1 | FileCheck %s --check-prefix=INTERVAL
// RUN: not mixprec-opt %s -split-input-file --mixprec-autodiff --mixprec-loss-scaling=hysteresis=0 2>&1 | FileCheck %s --check-prefix=HYST
// The tracker and the hysteresis count are i32 buffers.
// RUN: not mixprec-opt %s -split-input-file --mixprec-autodiff --mixprec-loss-scaling=growth-interval=2147483648 2>&1 | FileCheck %s --check-prefix=INTERVALMAX
// RUN: not mixprec-opt %s -split-input-file --mixprec-autodiff --mixprec-loss-scaling=max-grad-norm=-1 2>&1 | FileCheck %s --check-prefix=NORM
// Options are checked in every mode, none included.
// RUN: not mixprec-opt %s -split-input-file --mixprec-autodiff --mixprec-loss-scaling="mode=none growth-interval=0" 2>&1 | FileCheck %s --check-prefix=INTERVAL

// MODE:     mixprec-opt: for the --mode option: 'weird' is not one of dynamic, static, none{{$}}
// INIT0:    invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: mixprec-loss-scaling: init-scale must be finite and > 0, got 0.000000e+00
// INITNEG:  invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: mixprec-loss-scaling: init-scale must be finite and > 0, got -2.000000e+00
// INITINF:  invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: mixprec-loss-scaling: init-scale must be finite and > 0, got INF
// MINMAX:   invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: mixprec-loss-scaling: need 0 < min-scale <= max-scale < inf, got 8.000000e+00 and 4.000000e+00
// MIN0:     invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: mixprec-loss-scaling: need 0 < min-scale <= max-scale < inf, got 0.000000e+00 and 1.677722e+07
// GROWTH:   invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: mixprec-loss-scaling: growth-factor must be finite and > 1, got 1.000000e+00
// BACKOFF1: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: mixprec-loss-scaling: backoff-factor must be in (0, 1), got 1.000000e+00
// BACKOFF0: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: mixprec-loss-scaling: backoff-factor must be in (0, 1), got 0.000000e+00
// INTERVAL: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: mixprec-loss-scaling: growth-interval must be in [1, 2^31), got 0{{$}}
// HYST:     invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: mixprec-loss-scaling: hysteresis must be in [1, 2^31), got 0{{$}}
// INTERVALMAX: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: mixprec-loss-scaling: growth-interval must be in [1, 2^31), got 2147483648
// NORM:     invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: mixprec-loss-scaling: max-grad-norm must be finite and >= 0, got -1.000000e+00

// A clash in static mode (which declares no scaler state but the report
// buffers), and a second run of the pass (its own buffers are taken).
// RUN: not mixprec-opt %s -split-input-file --mixprec-autodiff --mixprec-loss-scaling=mode=static 2>&1 | FileCheck %s --check-prefix=STATIC
// RUN: not mixprec-opt %s -split-input-file --mixprec-autodiff --mixprec-loss-scaling --mixprec-loss-scaling 2>&1 | FileCheck %s --check-prefix=TWICE

// An optimizer step without a loss seed: not autodiff's output.
// expected-error @+2 {{mixprec-loss-scaling: @train has no loss seed (a mixprec.constant marked mixprec.loss_seed); run --mixprec-autodiff first}}
mixprec.parameter @w : tensor<4xf32> = #mixprec.zeros
func.func @train(%g: tensor<4xf32>, %lr: tensor<f32>) -> tensor<f32> attributes {mixprec.optimizer_step} {
  %w = mixprec.read @w : tensor<4xf32>
  %new = mixprec.sgd_update %w, %g, %lr {optimizer = #mixprec.sgd<>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  mixprec.assign @w, %new : tensor<4xf32>
  return %lr : tensor<f32>
}
// STATIC: invalid.mlir:[[@LINE-6]]:1: error: mixprec-loss-scaling: @train has no loss seed (a mixprec.constant marked mixprec.loss_seed); run --mixprec-autodiff first
// TWICE:  invalid.mlir:[[@LINE-7]]:1: error: mixprec-loss-scaling: @train has no loss seed (a mixprec.constant marked mixprec.loss_seed); run --mixprec-autodiff first

// -----

// A seed but no optimizer update: the step has no parameter to update.
mixprec.parameter @w : tensor<4xf32> = #mixprec.zeros
// expected-error @+1 {{mixprec-loss-scaling: @train has no trainable parameter to update: it has no mixprec.sgd_update or mixprec.adam_update}}
func.func @train(%x: tensor<4xf32>) -> tensor<f32> attributes {mixprec.optimizer_step} {
  %seed = mixprec.constant {mixprec.loss_seed} dense<1.0> : tensor<f32>
  return %seed : tensor<f32>
}

// -----

// The model already declares the scale buffer the pass would declare. The
// step autodiff builds carries its forward function's location.
mixprec.parameter @w : tensor<4xf32> = #mixprec.zeros
mixprec.buffer @train.loss_scale : tensor<f32> = #mixprec.ones
// expected-error @+1 {{mixprec-loss-scaling: '@train.loss_scale' exists already}}
func.func @loss(%x: tensor<4xf32>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<4xf32>
  %y = mixprec.mul %x, %w : tensor<4xf32>, tensor<4xf32>
  %l = mixprec.reduce_sum %y {dims = array<i64: 0>} : tensor<4xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>

// -----

// The report buffers are declared in every mode that changes the step.
mixprec.parameter @w : tensor<4xf32> = #mixprec.zeros
mixprec.buffer @train.skipped_steps : tensor<i64> = #mixprec.zeros
// expected-error @+1 {{mixprec-loss-scaling: '@train.skipped_steps' exists already}}
func.func @loss(%x: tensor<4xf32>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<4xf32>
  %y = mixprec.mul %x, %w : tensor<4xf32>, tensor<4xf32>
  %l = mixprec.reduce_sum %y {dims = array<i64: 0>} : tensor<4xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>
// STATIC: invalid.mlir:[[@LINE-7]]:1: error: mixprec-loss-scaling: '@train.skipped_steps' exists already

// -----

// A second run of the pass finds the buffers the first one declared.
mixprec.parameter @w : tensor<4xf32> = #mixprec.zeros
func.func @loss(%x: tensor<4xf32>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<4xf32>
  %y = mixprec.mul %x, %w : tensor<4xf32>, tensor<4xf32>
  %l = mixprec.reduce_sum %y {dims = array<i64: 0>} : tensor<4xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>
// TWICE: invalid.mlir:[[@LINE-7]]:1: error: mixprec-loss-scaling: '@train.loss_scale' exists already

// -----

// The step count is found by its role, whatever its name: written before the
// last gradient, it could not be kept on an overflowing step.
mixprec.parameter @w : tensor<4xf32> = #mixprec.zeros
mixprec.buffer @steps_taken : tensor<i64> = #mixprec.zeros role step_count
func.func @train(%x: tensor<4xf32>, %lr: tensor<f32>) -> tensor<f32> attributes {mixprec.optimizer_step} {
  %seed = mixprec.constant {mixprec.loss_seed} dense<1.0> : tensor<f32>
  %n = mixprec.read @steps_taken : tensor<i64>
  %next = mixprec.increment %n : tensor<i64>
  // expected-error @+1 {{mixprec-loss-scaling: this optimizer write comes before the last gradient of @train}}
  mixprec.assign @steps_taken, %next : tensor<i64>
  %w = mixprec.read @w : tensor<4xf32>
  %g = mixprec.mul %x, %x : tensor<4xf32>, tensor<4xf32>
  %new = mixprec.sgd_update %w, %g, %lr {optimizer = #mixprec.sgd<>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  mixprec.assign @w, %new : tensor<4xf32>
  return %seed : tensor<f32>
}
