// RUN: mixprec-opt %s -split-input-file --mixprec-autodiff | FileCheck %s
// RUN: mixprec-opt %s -split-input-file --mixprec-autodiff --mixprec-expose-state | FileCheck %s --check-prefix=STATE

// AdamW: the step count is incremented once and feeds every adam_update;
// each parameter gets two f32 moment buffers; weight decay only on the
// rank-2 weight.

mixprec.parameter @w : tensor<4x3xf32> = #mixprec.kaiming_uniform<seed = 1>
mixprec.parameter @b : tensor<4xf32> = #mixprec.zeros
func.func @loss(%x: tensor<2x3xf32>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<4x3xf32>
  %b = mixprec.read @b : tensor<4xf32>
  %y = mixprec.linear %x, %w, %b : tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %l = mixprec.reduce_mean %y {dims = array<i64: 0, 1>} : tensor<2x4xf32>
  return %l : tensor<f32>
}
mixprec.train_step @step forward @loss optimizer #mixprec.adamw<beta2 = 0.5>

// CHECK-LABEL: func.func @step(
// CHECK-SAME:    %{{[^:]+}}: tensor<2x3xf32>, [[LR:%[^:]+]]: tensor<f32>) -> tensor<f32> attributes {mixprec.optimizer_step}
// CHECK:         [[COUNT:%.+]] = mixprec.read @step.step_count : tensor<i64>
// CHECK-NEXT:    [[NEXT:%.+]] = mixprec.increment [[COUNT]] : tensor<i64>
// CHECK-NEXT:    mixprec.assign @step.step_count, [[NEXT]] : tensor<i64>
// CHECK-NEXT:    [[W:%.+]] = mixprec.read @w : tensor<4x3xf32>
// CHECK-NEXT:    [[M:%.+]] = mixprec.read @step.w.exp_avg : tensor<4x3xf32>
// CHECK-NEXT:    [[V:%.+]] = mixprec.read @step.w.exp_avg_sq : tensor<4x3xf32>
// CHECK-NEXT:    [[W2:%[^,]+]], [[M2:%[^,]+]], [[V2:%[^ ]+]] = mixprec.adam_update [[W]], %{{[^,]+}}, [[M]], [[V]], [[LR]], [[NEXT]] {optimizer = #mixprec.adamw<beta2 = 5.000000e-01>} :
// CHECK-NEXT:    mixprec.assign @w, [[W2]]
// CHECK-NEXT:    mixprec.assign @step.w.exp_avg, [[M2]]
// CHECK-NEXT:    mixprec.assign @step.w.exp_avg_sq, [[V2]]
// CHECK:         mixprec.adam_update {{.*}}, [[LR]], [[NEXT]] {optimizer = #mixprec.adamw<beta2 = 5.000000e-01, weight_decay = 0.000000e+00>} : tensor<4xf32>
// CHECK:         return
// CHECK-DAG:   mixprec.buffer @step.step_count : tensor<i64> = #mixprec.zeros role step_count{{$}}
// CHECK-DAG:   mixprec.buffer @step.w.exp_avg : tensor<4x3xf32> = #mixprec.zeros role moment{{$}}
// CHECK-DAG:   mixprec.buffer @step.w.exp_avg_sq : tensor<4x3xf32> = #mixprec.zeros role moment{{$}}
// CHECK-DAG:   mixprec.buffer @step.b.exp_avg : tensor<4xf32> = #mixprec.zeros role moment{{$}}
// CHECK-DAG:   mixprec.buffer @step.b.exp_avg_sq : tensor<4xf32> = #mixprec.zeros role moment{{$}}

// After expose-state the step is functional: state in, loss and state out,
// in declaration order (parameters, then the buffers autodiff declared).
// STATE-LABEL: func.func @step(
// STATE-SAME:    tensor<4x3xf32> {mixprec.abi_name = "w"}, %{{[^:]+}}: tensor<4xf32> {mixprec.abi_name = "b"}, %{{[^:]+}}: tensor<i64> {mixprec.abi_name = "step.step_count"}, %{{[^:]+}}: tensor<4x3xf32> {mixprec.abi_name = "step.w.exp_avg"}, %{{[^:]+}}: tensor<4x3xf32> {mixprec.abi_name = "step.w.exp_avg_sq"}, %{{[^:]+}}: tensor<4xf32> {mixprec.abi_name = "step.b.exp_avg"}, %{{[^:]+}}: tensor<4xf32> {mixprec.abi_name = "step.b.exp_avg_sq"}, %{{[^:]+}}: tensor<2x3xf32> {mixprec.abi_name = "arg0"}, %{{[^:]+}}: tensor<f32> {mixprec.abi_name = "arg1"})
// STATE-SAME:    -> (tensor<f32>, tensor<4x3xf32> {mixprec.abi_name = "w"}, tensor<4xf32> {mixprec.abi_name = "b"}, tensor<i64> {mixprec.abi_name = "step.step_count"}, tensor<4x3xf32> {mixprec.abi_name = "step.w.exp_avg"}, tensor<4x3xf32> {mixprec.abi_name = "step.w.exp_avg_sq"}, tensor<4xf32> {mixprec.abi_name = "step.b.exp_avg"}, tensor<4xf32> {mixprec.abi_name = "step.b.exp_avg_sq"})
// STATE-NOT:   mixprec.read
// STATE-NOT:   mixprec.assign

// -----

// Adam (coupled decay) when asked for on every parameter: the bias's update
// carries the decay, not the step's rule that chose it.
mixprec.parameter @b : tensor<4xf32> = #mixprec.zeros
func.func @loss(%x: tensor<4xf32>) -> tensor<f32> {
  %b = mixprec.read @b : tensor<4xf32>
  %y = mixprec.mul %x, %b : tensor<4xf32>, tensor<4xf32>
  %l = mixprec.reduce_sum %y {dims = array<i64: 0>} : tensor<4xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.adam<weight_decay = 0.1, decay_norm_and_bias = true>

// CHECK-LABEL: func.func @train(
// CHECK:         mixprec.adam_update {{.*}} {optimizer = #mixprec.adam<weight_decay = 1.000000e-01>} : tensor<4xf32>
// CHECK-NOT:     decay_norm_and_bias

// -----

// Argument attributes of the forward survive: the learning rate is added
// through the function, with an empty attribute dictionary.
mixprec.parameter @b : tensor<4xf32> = #mixprec.zeros
func.func @loss(%x: tensor<4xf32> {mixprec.abi_name = "features"}) -> tensor<f32> {
  %b = mixprec.read @b : tensor<4xf32>
  %y = mixprec.mul %x, %b : tensor<4xf32>, tensor<4xf32>
  %l = mixprec.reduce_sum %y {dims = array<i64: 0>} : tensor<4xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.adam<>

// CHECK-LABEL: func.func @train(
// CHECK-SAME:    %{{[^:]+}}: tensor<4xf32> {mixprec.abi_name = "features"}, %{{[^:]+}}: tensor<f32>) -> tensor<f32>
