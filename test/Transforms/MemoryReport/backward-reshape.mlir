// RUN: mixprec-opt %s --mixprec-autodiff --mixprec-memory-report -o /dev/null 2>&1 | FileCheck %s

// The weight gradient of a 3-D linear reshapes h = relu(x) to 4x3. That
// reshape depends on no loss seed, yet it is backward: it only feeds the
// gradient's matmul. So h is a saved activation. Worked out by hand on the
// step after --mixprec-autodiff (plain SGD):
//   parameters: w 2x3 f32 24 (1); gradients: dL/dw 24 (1); optimizer
//     state: train.step_count i64 8 (1); persistent 32
//   saved activations: h 2x2x3 f32 = 48 (1); x is an argument, and the
//     linear's result only feeds the loss
//   peak (ops counted from 0): at the reshape of h (op 8) live are lr 4,
//     h 48, loss 4, the reshaped seed broadcast 4x2 f32 32 and the
//     reshaped h 4x3 f32 48 = 136 (x, 48, died at op 1); with the
//     persistent state 168.

// CHECK:      memory report for @train
// CHECK-NEXT: category           tensors         bytes
// CHECK-NEXT: parameters               1            24
// CHECK-NEXT: working copies           0             0
// CHECK-NEXT: gradients                1            24
// CHECK-NEXT: optimizer state          1             8
// CHECK-NEXT: buffers                  0             0
// CHECK-NEXT: saved activations        1            48
// CHECK-NEXT: persistent state: 32 bytes
// CHECK-NEXT: peak: 168 bytes (persistent state + 136 live at {{.*}}backward-reshape.mlir:[[# @LINE + 6]]:8 mixprec.reshape)

mixprec.parameter @w : tensor<2x3xf32> = #mixprec.kaiming_uniform<seed = 1>
func.func @loss(%x: tensor<2x2x3xf32>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<2x3xf32>
  %h = mixprec.relu %x : tensor<2x2x3xf32>
  %y = mixprec.linear %h, %w : tensor<2x2x3xf32>, tensor<2x3xf32> -> tensor<2x2x2xf32>
  %l = mixprec.reduce_sum %y {dims = array<i64: 0, 1, 2>} : tensor<2x2x2xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>
