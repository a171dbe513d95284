// RUN: mixprec-opt %s --mixprec-autodiff --mixprec-memory-report -o /dev/null 2>&1 | FileCheck %s

// Adam's two moments are optimizer state, found through the update's
// operands; the step's own buffer @step.step_count through its role.
// @stats.seen has a '.' in its name but no role: it is model state (a
// running statistic the forward assigns), so it counts as a buffer. Worked out by
// hand on the step after --mixprec-autodiff:
//   parameters: w 2x3 f32 = 24 (1); working copies: none
//   gradients: dL/dw 2x3 f32 = 24 (1)
//   optimizer state: step.w.exp_avg 24 + step.w.exp_avg_sq 24 + step.step_count
//     i64 8 = 56 (3)
//   buffers: stats.seen 3 f32 = 12 (1); persistent 24 + 56 + 12 = 92
//   saved activations: the logits 4x2 f32 = 32 (1). The column sums and
//     the new statistic do not feed the loss, so they are not forward
//     values the backward keeps.
//   peak (ops counted from 0): at the loss's gradient (op 8) live are
//     x 48, labels 16, lr 4, the new statistic 12 (assigned: live to the
//     end), logits 32, loss 4, seed 4, dL/dy 32 = 152; with the
//     persistent state 244. (The update, op 16, reaches 124: lr 4,
//     statistic 12, loss 4, dL/dw 24, new step count 8, new w and moments
//     72.)

// CHECK:      memory report for @step
// CHECK-NEXT: category           tensors         bytes
// CHECK-NEXT: parameters               1            24
// CHECK-NEXT: working copies           0             0
// CHECK-NEXT: gradients                1            24
// CHECK-NEXT: optimizer state          3            56
// CHECK-NEXT: buffers                  1            12
// CHECK-NEXT: saved activations        1            32
// CHECK-NEXT: persistent state: 92 bytes
// CHECK-NEXT: peak: 244 bytes (persistent state + 152 live at {{.*}}adam-buffers.mlir:[[# @LINE + 11]]:8 mixprec.softmax_cross_entropy_grad)

mixprec.parameter @w : tensor<2x3xf32> = #mixprec.kaiming_uniform<seed = 1>
mixprec.buffer @stats.seen : tensor<3xf32> = #mixprec.zeros
func.func @loss(%x: tensor<4x3xf32>, %t: tensor<4xi32>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<2x3xf32>
  %s = mixprec.read @stats.seen : tensor<3xf32>
  %r = mixprec.reduce_sum %x {dims = array<i64: 0>} : tensor<4x3xf32>
  %n = mixprec.add %s, %r : tensor<3xf32>, tensor<3xf32>
  mixprec.assign @stats.seen, %n : tensor<3xf32>
  %y = mixprec.matmul %x, %w {transpose_rhs} : tensor<4x3xf32>, tensor<2x3xf32> -> tensor<4x2xf32>
  %l = mixprec.softmax_cross_entropy %y, %t : tensor<4x2xf32>, tensor<4xi32>
  return %l : tensor<f32>
}
mixprec.train_step @step forward @loss optimizer #mixprec.adam<>
