// RUN: mixprec-opt %s -split-input-file --mixprec-autodiff -verify-diagnostics

mixprec.parameter @w : tensor<4xf32> = #mixprec.zeros
func.func @loss(%x: tensor<8x4xf32>, %var: tensor<4xf32>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<4xf32>
  // In training mode only the result has an adjoint, not the running
  // statistics, the only output the loss reads here.
  // expected-error @+1 {{mixprec-autodiff: no adjoint for 'mixprec.batch_norm' yet}}
  %y, %m, %v = mixprec.batch_norm %x, %w, %var : tensor<8x4xf32>, tensor<4xf32>
  %l = mixprec.reduce_sum %m {dims = array<i64: 0>} : tensor<4xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>

// -----

mixprec.parameter @w : tensor<4xf32> = #mixprec.zeros
func.func private @loss(%x: tensor<4xf32>) -> tensor<f32>
// expected-error @+1 {{mixprec-autodiff: the forward function must be defined, with one block}}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>

// -----

mixprec.parameter @w : tensor<4xf32> = #mixprec.zeros
func.func @loss(%x: tensor<4xf32>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<4xf32>
  %l = mixprec.reduce_sum %w {dims = array<i64: 0>} : tensor<4xf32>
  return %l : tensor<f32>
}
func.func @train_gradients() {
  return
}
// expected-error @+1 {{mixprec-autodiff: '@train_gradients' exists already}}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>

// -----

mixprec.parameter @w : tensor<4xf32> = #mixprec.zeros
func.func @loss(%x: tensor<f32>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<4xf32>
  %l = mixprec.reduce_sum %w {dims = array<i64: 0>} : tensor<4xf32>
  %y = mixprec.mul %l, %x : tensor<f32>, tensor<f32>
  return %y : tensor<f32>
}
// expected-error @+1 {{mixprec-autodiff: gradient accumulation needs a batch dim on every input of the forward}}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<> {accumulation_steps = 4 : i64}

// -----

mixprec.parameter @w : tensor<4xf32> = #mixprec.zeros
mixprec.buffer @train.w.momentum_buffer : tensor<4xf32> = #mixprec.zeros
func.func @loss(%x: tensor<4xf32>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<4xf32>
  %l = mixprec.reduce_sum %w {dims = array<i64: 0>} : tensor<4xf32>
  return %l : tensor<f32>
}
// expected-error @+1 {{mixprec-autodiff: '@train.w.momentum_buffer' exists already}}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<momentum = 0.9>

// -----

// A train step needs a parameter to update (PyTorch's optimizers refuse an
// empty parameter list too).
func.func @loss(%x: tensor<4xf32>) -> tensor<f32> {
  %l = mixprec.reduce_sum %x {dims = array<i64: 0>} : tensor<4xf32>
  return %l : tensor<f32>
}
// expected-error @+1 {{mixprec-autodiff: train step @train has no trainable parameter to update: the module declares no mixprec.parameter}}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>

// -----

// Parameters exist, but the loss reads none of them.
mixprec.parameter @w : tensor<4xf32> = #mixprec.zeros
func.func @loss(%x: tensor<4xf32>) -> tensor<f32> {
  // expected-note @+1 {{the loss}}
  %l = mixprec.reduce_sum %x {dims = array<i64: 0>} : tensor<4xf32>
  return %l : tensor<f32>
}
// expected-error @+1 {{mixprec-autodiff: train step @train has no trainable parameter to update: no mixprec.parameter gets a gradient from its loss}}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>

// -----

// The forward reads the parameter, but the loss does not use it.
mixprec.parameter @w : tensor<4xf32> = #mixprec.zeros
func.func @loss(%x: tensor<4xf32>) -> (tensor<f32>) {
  %w = mixprec.read @w : tensor<4xf32>
  // expected-note @+1 {{the loss}}
  %l = mixprec.reduce_sum %x {dims = array<i64: 0>} : tensor<4xf32>
  return %l : tensor<f32>
}
// expected-error @+1 {{mixprec-autodiff: train step @train has no trainable parameter to update: no mixprec.parameter gets a gradient from its loss}}
mixprec.train_step @train forward @loss optimizer #mixprec.adam<>

// -----

// An op without AdjointOpInterface on the loss's path: a backward op has no
// adjoint of its own (no second-order gradients).
mixprec.parameter @w : tensor<4xf32> = #mixprec.zeros
func.func @loss(%x: tensor<4xf32>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<4xf32>
  // expected-error @+1 {{mixprec-autodiff: no adjoint for 'mixprec.relu_grad' yet}}
  %g = mixprec.relu_grad %x, %w : tensor<4xf32>
  %l = mixprec.reduce_sum %g {dims = array<i64: 0>} : tensor<4xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>

// -----

// The sweep does not enter regions.
mixprec.parameter @w : tensor<4xf32> = #mixprec.zeros
func.func @loss(%x: tensor<4xf32>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<4xf32>
  // expected-error @+1 {{mixprec-autodiff: ops with regions are not differentiated}}
  %r = scf.execute_region -> tensor<4xf32> {
    scf.yield %w : tensor<4xf32>
  }
  %l = mixprec.reduce_sum %r {dims = array<i64: 0>} : tensor<4xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>
