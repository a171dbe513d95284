// RUN: mixprec-opt %s --mixprec-autodiff | FileCheck %s
// RUN: mixprec-opt %s --mixprec-amp --mixprec-expose-state | FileCheck %s --check-prefix=STATE

// Two train steps over the same parameter (pretraining with SGD, then
// fine-tuning with Adam): both update @w, and each keeps its own optimizer
// state, named after the step as its step count is, like two PyTorch
// optimizers over the same parameters.

// CHECK-LABEL: func.func @pretrain(
// CHECK:         mixprec.assign @pretrain.step_count
// CHECK-NEXT:    [[W:%.+]] = mixprec.read @w : tensor<4x3xf32>
// CHECK-NEXT:    [[B:%.+]] = mixprec.read @pretrain.w.momentum_buffer : tensor<4x3xf32>
// CHECK-NEXT:    [[NW:%.+]], [[NB:%.+]] = mixprec.sgd_update [[W]], {{%[^,]+}}, {{%[^,]+}}, [[B]]
// CHECK-NEXT:    mixprec.assign @w, [[NW]]
// CHECK-NEXT:    mixprec.assign @pretrain.w.momentum_buffer, [[NB]]
// CHECK:       mixprec.buffer @pretrain.step_count : tensor<i64> = #mixprec.zeros
// CHECK-NEXT:  mixprec.buffer @pretrain.w.momentum_buffer : tensor<4x3xf32> = #mixprec.zeros
// CHECK-LABEL: func.func @finetune(
// CHECK:         mixprec.assign @finetune.step_count
// CHECK-NEXT:    [[W:%.+]] = mixprec.read @w : tensor<4x3xf32>
// CHECK-NEXT:    [[M:%.+]] = mixprec.read @finetune.w.exp_avg : tensor<4x3xf32>
// CHECK-NEXT:    [[V:%.+]] = mixprec.read @finetune.w.exp_avg_sq : tensor<4x3xf32>
// CHECK-NEXT:    [[NW:%.+]], [[NM:%.+]], [[NV:%.+]] = mixprec.adam_update [[W]], {{%[^,]+}}, [[M]], [[V]]
// CHECK-NEXT:    mixprec.assign @w, [[NW]]
// CHECK-NEXT:    mixprec.assign @finetune.w.exp_avg, [[NM]]
// CHECK-NEXT:    mixprec.assign @finetune.w.exp_avg_sq, [[NV]]
// CHECK:       mixprec.buffer @finetune.step_count : tensor<i64> = #mixprec.zeros
// CHECK-NEXT:  mixprec.buffer @finetune.w.exp_avg : tensor<4x3xf32> = #mixprec.zeros
// CHECK-NEXT:  mixprec.buffer @finetune.w.exp_avg_sq : tensor<4x3xf32> = #mixprec.zeros

// In the model ABI each step's state is the shared parameter and its own
// buffers.
// STATE-LABEL: func.func @pretrain(
// STATE-SAME:    {mixprec.abi_name = "w"}, %{{[^:]+}}: tensor<i64> {mixprec.abi_name = "pretrain.step_count"}, %{{[^:]+}}: tensor<4x3xf32> {mixprec.abi_name = "pretrain.w.momentum_buffer"}, %{{[^:]+}}: tensor<f32> {mixprec.abi_name = "pretrain.loss_scale"}
// STATE-NOT:     "finetune.
// STATE-LABEL: func.func @finetune(
// STATE-SAME:    {mixprec.abi_name = "w"}, %{{[^:]+}}: tensor<i64> {mixprec.abi_name = "finetune.step_count"}, %{{[^:]+}}: tensor<4x3xf32> {mixprec.abi_name = "finetune.w.exp_avg"}, %{{[^:]+}}: tensor<4x3xf32> {mixprec.abi_name = "finetune.w.exp_avg_sq"}, %{{[^:]+}}: tensor<f32> {mixprec.abi_name = "finetune.loss_scale"}
// STATE-NOT:     "pretrain.

mixprec.parameter @w : tensor<4x3xf32> = #mixprec.zeros
func.func @loss(%x: tensor<2x3xf32>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<4x3xf32>
  %y = mixprec.linear %x, %w : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<2x4xf32>
  %l = mixprec.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<2x4xf32>
  return %l : tensor<f32>
}
mixprec.train_step @pretrain forward @loss optimizer #mixprec.sgd<momentum = 0.9>
mixprec.train_step @finetune forward @loss optimizer #mixprec.adam<>
