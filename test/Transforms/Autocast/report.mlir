// RUN: mixprec-opt %s --mixprec-autocast --mixprec-precision-report=json-file=%t.json -o %t.mlir 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: mixprec-opt %s --mixprec-precision-report 2>&1 >/dev/null | FileCheck %s --check-prefix=BEFORE

// The report lists every op autocast decided and every cast it inserted,
// with location, precision and rule, and totals worked out by hand here:
//   FLOPs: matmul 2*8*16*16 = 4096, relu 8*16 = 128, matmul 2*8*4*16 =
//   1024, softmax 8*4 = 32, casts 8*16 + 16*16 + 16*4 = 448: 5728 in all,
//   5120 in 16-bit matmuls (89.4%).
//   Activations if all FP32: 4 * (128 + 128 + 32 + 32) = 1280 bytes; after
//   autocast h and a are f16: 2 * 256 + 4 * 64 = 768 bytes (60.0%); the
//   casts of the three arguments: 2 * 448 = 896 bytes.

// CHECK:      precision report
// CHECK-NEXT: location                 op               precision   rule
// CHECK-NEXT: {{.*}}report.mlir:32:14  mixprec.cast     f32 -> f16  cast: for mixprec.matmul (tensor_core)
// CHECK-NEXT: {{.*}}report.mlir:32:36  mixprec.cast     f32 -> f16  cast: for mixprec.matmul (tensor_core)
// CHECK-NEXT: {{.*}}report.mlir:32:60  mixprec.cast     f32 -> f16  cast: for mixprec.matmul (tensor_core)
// CHECK-NEXT: {{.*}}report.mlir:33:8   mixprec.matmul   f16         tensor_core
// CHECK-NEXT: {{.*}}report.mlir:34:8   mixprec.relu     f16         propagated (follow)
// CHECK-NEXT: {{.*}}report.mlir:35:8   mixprec.matmul   f16 -> f32  tensor_core
// CHECK-NEXT: {{.*}}report.mlir:36:8   mixprec.softmax  f32         fp32
// CHECK-NEXT: casts inserted: 3 (3 to 16-bit, 0 to f32)
// CHECK-NEXT: FLOPs in 16-bit tensor-core ops: 5120 of 5728 (89.4%)
// CHECK-NEXT: activation bytes: 1280 all f32, 768 after autocast (60.0%)
// CHECK-NEXT: casts of arguments and parameters (working copies): 896 bytes

// Before autocast nothing is decided: no rows, every FLOP in FP32.
// BEFORE:      casts inserted: 0 (0 to 16-bit, 0 to f32)
// BEFORE-NEXT: FLOPs in 16-bit tensor-core ops: 0 of 5280 (0.0%)
// BEFORE-NEXT: activation bytes: 1280 all f32, 1280 after autocast (100.0%)
func.func @f(%x: tensor<8x16xf32>, %w1: tensor<16x16xf32>, %w2: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %h = mixprec.matmul %x, %w1 : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %a = mixprec.relu %h : tensor<8x16xf32>
  %y = mixprec.matmul %a, %w2 : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %p = mixprec.softmax %y {axis = 1 : i64} : tensor<8x4xf32>
  return %p : tensor<8x4xf32>
}

// JSON:      "activation_bytes": 768,
// JSON-NEXT: "activation_bytes_f32": 1280,
// JSON-NEXT: "casts_to_16bit": 3,
// JSON-NEXT: "casts_to_f32": 0,
// JSON-NEXT: "flops": 5728,
// JSON-NEXT: "flops_16bit_tensor_core": 5120,
// JSON-NEXT: "ops": [
// JSON-NEXT:   {
// JSON-NEXT:     "location": "{{.*}}report.mlir:32:14",
// JSON-NEXT:     "op": "mixprec.cast",
// JSON-NEXT:     "precision": "f32 -> f16",
// JSON-NEXT:     "rule": "cast: for mixprec.matmul (tensor_core)"
// JSON-NEXT:   },
// JSON:          "op": "mixprec.softmax",
// JSON-NEXT:     "precision": "f32",
// JSON-NEXT:     "rule": "fp32"
// JSON-NEXT:   }
// JSON-NEXT: ],
// JSON-NEXT: "working_copy_bytes": 896
