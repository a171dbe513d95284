// RUN: mixprec-opt %s --mixprec-autodiff --mixprec-memory-report=json-file=%t.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=FP32
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: mixprec-opt %s --mixprec-amp=precision=f16 --mixprec-memory-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=AMP

// One linear layer, batch 4, 3 -> 2, SGD with momentum. Worked out by hand
// on the printed IR of each pipeline (bytes: f32 4, f16 2, i64 8, i32 4,
// i1 1).
//
// After --mixprec-autodiff (FP32):
//   parameters: w 2x3 f32 24 + b 2 f32 8 = 32 (2)
//   working copies: none
//   gradients: dL/dw 2x3 f32 24 + dL/db 2 f32 8 = 32 (2)
//   optimizer state: train.w.momentum_buffer 24 + train.b.momentum_buffer 8 +
//     train.step_count i64 8 = 40 (3); buffers: none; persistent 72
//   saved activations: the logits y 4x2 f32 = 32, used by the loss's
//     gradient (x is an argument, w and b are state reads)
//   peak (ops counted from 0): at the loss's gradient (op 5) live are
//     x 48, labels 16, lr 4, y 32, loss 4, seed 4, dL/dy 4x2 f32 32 = 140;
//     with the persistent state 212. (The first update, op 13, reaches 96: lr 4,
//     loss 4, dL/db 8, new step count 8, dL/dw 24, new w and momentum 48.)
//
// FP32:      memory report for @train
// FP32-NEXT: category           tensors         bytes
// FP32-NEXT: parameters               2            32
// FP32-NEXT: working copies           0             0
// FP32-NEXT: gradients                2            32
// FP32-NEXT: optimizer state          3            40
// FP32-NEXT: buffers                  0             0
// FP32-NEXT: saved activations        1            32
// FP32-NEXT: persistent state: 72 bytes
// FP32-NEXT: peak: 212 bytes (persistent state + 140 live at {{.*}}linear.mlir:[[# @LINE + 72]]:8 mixprec.softmax_cross_entropy_grad)

// JSON:      "steps": [
// JSON-NEXT:   {
// JSON-NEXT:     "buffers": {
// JSON-NEXT:       "bytes": 0,
// JSON-NEXT:       "tensors": 0
// JSON-NEXT:     },
// JSON-NEXT:     "function": "train",
// JSON-NEXT:     "gradients": {
// JSON-NEXT:       "bytes": 32,
// JSON-NEXT:       "tensors": 2
// JSON-NEXT:     },
// JSON-NEXT:     "optimizer_state": {
// JSON-NEXT:       "bytes": 40,
// JSON-NEXT:       "tensors": 3
// JSON-NEXT:     },
// JSON-NEXT:     "parameters": {
// JSON-NEXT:       "bytes": 32,
// JSON-NEXT:       "tensors": 2
// JSON-NEXT:     },
// JSON-NEXT:     "peak_bytes": 212,
// JSON-NEXT:     "peak_live_bytes": 140,
// JSON-NEXT:     "peak_location": "{{.*}}linear.mlir:[[# @LINE + 49]]:8",
// JSON-NEXT:     "peak_op": "mixprec.softmax_cross_entropy_grad",
// JSON-NEXT:     "persistent_bytes": 72,
// JSON-NEXT:     "saved_activations": {
// JSON-NEXT:       "bytes": 32,
// JSON-NEXT:       "tensors": 1
// JSON-NEXT:     },
// JSON-NEXT:     "working_copies": {
// JSON-NEXT:       "bytes": 0,
// JSON-NEXT:       "tensors": 0
// JSON-NEXT:     }
// JSON-NEXT:   }
// JSON-NEXT: ]

// After --mixprec-amp=precision=f16 (autocast, autodiff, FP32 masters,
// dynamic loss scaling, CSE and canonicalization, which hoists the loss
// seed to the top of the step):
//   parameters: 32 (2), the FP32 masters
//   working copies: w 2x3 f16 12 + b 2 f16 4 = 16 (2)
//   gradients: the unscaled FP32 gradients, 24 + 8 = 32 (2)
//   optimizer state: the 40 above + loss_scale f32 4 + loss_scale_tracker
//     i32 4 + loss_scale_hysteresis i32 4 + skipped i1 1 + skipped_steps
//     i64 8 + finite_gradients 2xi1 2 = 63 (9); persistent 32 + 63 = 95
//   saved activations: the f16 copy of x 4x3 24 (the weight gradient's
//     operand) + the FP32 logits 32 = 56 (2)
//   peak: at the loss's gradient (op 14; x died at its cast, op 6)
//     live are labels 16, lr 4, the two i1 constants (hoisted for the
//     skipped flag) 1 + 1, seed 4, the f16 x 24, logits 32, loss 4, scaled
//     seed 4, dL/dy 32 = 122; with the persistent state 217. (The first
//     update reaches 101: lr 4, constants 2, loss 4, the all-finite flags
//     1 + 2, new step count 8, dL/dw 24, dL/db 8, new w and momentum 48.)
//
// AMP:      memory report for @train
// AMP-NEXT: category           tensors         bytes
// AMP-NEXT: parameters               2            32
// AMP-NEXT: working copies           2            16
// AMP-NEXT: gradients                2            32
// AMP-NEXT: optimizer state          9            63
// AMP-NEXT: buffers                  0             0
// AMP-NEXT: saved activations        2            56
// AMP-NEXT: persistent state: 95 bytes
// AMP-NEXT: peak: 217 bytes (persistent state + 122 live at {{.*}}linear.mlir:[[# @LINE + 8]]:8 mixprec.softmax_cross_entropy_grad)

mixprec.parameter @w : tensor<2x3xf32> = #mixprec.kaiming_uniform<seed = 1>
mixprec.parameter @b : tensor<2xf32> = #mixprec.zeros
func.func @loss(%x: tensor<4x3xf32>, %t: tensor<4xi32>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<2x3xf32>
  %b = mixprec.read @b : tensor<2xf32>
  %y = mixprec.linear %x, %w, %b : tensor<4x3xf32>, tensor<2x3xf32>, tensor<2xf32> -> tensor<4x2xf32>
  %l = mixprec.softmax_cross_entropy %y, %t : tensor<4x2xf32>, tensor<4xi32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<momentum = 0.9>
