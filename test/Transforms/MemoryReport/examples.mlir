// RUN: mixprec-opt %mixprec_src_root/examples/mlp.mlir --mixprec-autodiff --mixprec-memory-report=json-file=%t.fp32.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=FP32
// RUN: mixprec-opt %mixprec_src_root/examples/mlp.mlir --mixprec-amp=precision=f16 --mixprec-memory-report=json-file=%t.f16.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=F16
// RUN: %python %S/Inputs/compare.py %t.fp32.json %t.f16.json

// The MLP example (64 -> 128 -> 10, batch 64, SGD with momentum), in FP32
// and after --mixprec-amp=precision=f16. Worked out by hand:
//   parameters, FP32 in both (the masters): 128x64 + 128 + 10x128 + 10 =
//     9610 floats = 38440 bytes (4); gradients the same, FP32 in both.
//   optimizer state: four momentum buffers 38440 + the step count 8 =
//     38448 (5); after AMP + loss_scale 4, tracker 4, hysteresis 4,
//     skipped 1, skipped_steps 8, finite_gradients 4xi1 4 = 38473 (11).
//   working copies after AMP: the four parameters in f16, 19220 bytes.
//   saved activations: FP32 h = linear1 and a = relu(h), 64x128 f32 32768
//     each, and the logits 64x10 f32 2560: 68096 (3). AMP: h and a in f16
//     16384 each, the FP32 logits 2560, and the f16 copy of x 64x64 8192
//     (the first weight gradient's operand; in FP32 x is the argument
//     itself): 43520 (4).
//   peak FP32, in the backward at the second weight gradient (the matmul
//     of dL/dlogits and a): x 16384, lr 4, h 32768, a 32768, loss 4,
//     dL/dlogits 2560, dL/da 32768, dL/dw2 5120 = 122376; + persistent
//     76888 = 199264.
//   peak AMP, at the first update (no in-place reuse): lr 4, two i1
//     constants 2, loss 4, the FP32 unscaled gradients 32768 + 512 + 5120
//     + 40, the all-finite flags 1 + 4, the new step count 8, the new w1
//     and its momentum 65536 = 103999; + persistent 76913 = 180912.
// The script checks the comparison itself: AMP saves fewer activation
// bytes, and parameters and gradients are the same.

// FP32:      memory report for @train
// FP32-NEXT: category           tensors         bytes
// FP32-NEXT: parameters               4         38440
// FP32-NEXT: working copies           0             0
// FP32-NEXT: gradients                4         38440
// FP32-NEXT: optimizer state          5         38448
// FP32-NEXT: buffers                  0             0
// FP32-NEXT: saved activations        3         68096
// FP32-NEXT: persistent state: 76888 bytes
// FP32-NEXT: peak: 199264 bytes (persistent state + 122376 live at {{.*}}mlp.mlir:{{[0-9]+}}:{{[0-9]+}} mixprec.matmul)

// F16:      memory report for @train
// F16-NEXT: category           tensors         bytes
// F16-NEXT: parameters               4         38440
// F16-NEXT: working copies           4         19220
// F16-NEXT: gradients                4         38440
// F16-NEXT: optimizer state         11         38473
// F16-NEXT: buffers                  0             0
// F16-NEXT: saved activations        4         43520
// F16-NEXT: persistent state: 76913 bytes
// F16-NEXT: peak: 180912 bytes (persistent state + 103999 live at {{.*}}mlp.mlir:{{[0-9]+}}:{{[0-9]+}} mixprec.sgd_update)
