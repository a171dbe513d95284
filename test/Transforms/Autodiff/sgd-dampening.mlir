// RUN: mixprec-opt %s -split-input-file --mixprec-autodiff | FileCheck %s

// SGD with momentum and dampening: PyTorch's first step sets the momentum
// buffer to the undamped gradient, so each update takes the step count after
// this step, the one increment of the step (with gradient accumulation too).

mixprec.parameter @w : tensor<4x3xf32> = #mixprec.kaiming_uniform<seed = 1>
mixprec.parameter @b : tensor<4xf32> = #mixprec.zeros
func.func @loss(%x: tensor<2x3xf32>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<4x3xf32>
  %b = mixprec.read @b : tensor<4xf32>
  %y = mixprec.linear %x, %w, %b : tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %l = mixprec.reduce_mean %y {dims = array<i64: 0, 1>} : tensor<2x4xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<momentum = 0.9, dampening = 0.5, weight_decay = 1.0e-4>

// CHECK-LABEL: func.func @train(
// CHECK-SAME:    %{{[^:]+}}: tensor<2x3xf32>, [[LR:%[^:]+]]: tensor<f32>) -> tensor<f32> attributes {mixprec.optimizer_step} {
// CHECK:         [[COUNT:%.+]] = mixprec.read @train.step_count : tensor<i64>
// CHECK-NEXT:    [[NEXT:%.+]] = mixprec.increment [[COUNT]] : tensor<i64>
// CHECK-NEXT:    mixprec.assign @train.step_count, [[NEXT]] : tensor<i64>
// CHECK-NEXT:    [[W:%.+]] = mixprec.read @w : tensor<4x3xf32>
// CHECK-NEXT:    [[MW:%.+]] = mixprec.read @train.w.momentum_buffer : tensor<4x3xf32>
// CHECK-NEXT:    [[NW:%[^,]+]], [[NMW:%.+]] = mixprec.sgd_update [[W]], {{%[^,]+}}, [[LR]], [[MW]] step [[NEXT]] {optimizer = #mixprec.sgd<momentum = 9.000000e-01, dampening = 5.000000e-01, weight_decay = 1.000000e-04>} : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>, tensor<4x3xf32>, tensor<i64>) -> (tensor<4x3xf32>, tensor<4x3xf32>)
// CHECK-NEXT:    mixprec.assign @w, [[NW]] : tensor<4x3xf32>
// CHECK-NEXT:    mixprec.assign @train.w.momentum_buffer, [[NMW]] : tensor<4x3xf32>
// CHECK-NEXT:    [[B:%.+]] = mixprec.read @b : tensor<4xf32>
// CHECK-NEXT:    [[MB:%.+]] = mixprec.read @train.b.momentum_buffer : tensor<4xf32>
// CHECK-NEXT:    [[NB:%[^,]+]], [[NMB:%.+]] = mixprec.sgd_update [[B]], {{%[^,]+}}, [[LR]], [[MB]] step [[NEXT]] {optimizer = #mixprec.sgd<momentum = 9.000000e-01, dampening = 5.000000e-01>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<i64>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT:    mixprec.assign @b, [[NB]] : tensor<4xf32>
// CHECK-NEXT:    mixprec.assign @train.b.momentum_buffer, [[NMB]] : tensor<4xf32>
// CHECK-NEXT:    return

// -----

// Two micro-batches share one update, so the step count still advances once
// per step.

mixprec.parameter @w : tensor<4x3xf32> = #mixprec.kaiming_uniform<seed = 1>
func.func @loss(%x: tensor<2x3xf32>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<4x3xf32>
  %y = mixprec.matmul %x, %w {transpose_rhs} : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<2x4xf32>
  %l = mixprec.reduce_mean %y {dims = array<i64: 0, 1>} : tensor<2x4xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<momentum = 0.9, dampening = 0.5> {accumulation_steps = 2}

// CHECK-LABEL: func.func @train(
// CHECK-SAME:    %{{[^:]+}}: tensor<4x3xf32>, [[LR:%[^:]+]]: tensor<f32>) -> tensor<f32> attributes {mixprec.optimizer_step} {
// CHECK:         [[GRAD:%.+]] = mixprec.mul {{%[^,]+}}, {{%[^ ]+}} : tensor<4x3xf32>, tensor<4x3xf32>
// CHECK-NEXT:    [[COUNT:%.+]] = mixprec.read @train.step_count : tensor<i64>
// CHECK-NEXT:    [[NEXT:%.+]] = mixprec.increment [[COUNT]] : tensor<i64>
// CHECK-NEXT:    mixprec.assign @train.step_count, [[NEXT]] : tensor<i64>
// CHECK-NOT:     mixprec.increment
// CHECK:         mixprec.sgd_update {{%[^,]+}}, [[GRAD]], [[LR]], {{%[^ ]+}} step [[NEXT]] {optimizer = #mixprec.sgd<momentum = 9.000000e-01, dampening = 5.000000e-01>}
// CHECK-NOT:     mixprec.increment
// CHECK:         return
