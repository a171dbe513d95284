// RUN: mixprec-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(mixprec-tile-and-vectorize{tile-m=8 tile-n=32 tile-k=1 library-contractions=true}))" | FileCheck %s

// With library-contractions, a GEMM is left untiled for the runtime.
// CHECK-LABEL: func.func @gemm(
// CHECK:         linalg.matmul
// CHECK-NOT:     vector.contract
func.func @gemm(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %acc: tensor<64x48xf32>) -> tensor<64x48xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%acc : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %r : tensor<64x48xf32>
}

// -----

// A batched dot product (a softmax's gradient: no m or n loop) becomes
// register tiles: the runtime would make one GEMM call per output.
// CHECK-LABEL: func.func @batched_dot(
// CHECK-NOT:     linalg.generic
// CHECK:         scf.for
// CHECK:         vector.contract
#rows = affine_map<(b, k) -> (b, k)>
#row = affine_map<(b, k) -> (b)>
func.func @batched_dot(%y: tensor<96x256xf32>, %dy: tensor<96x256xf32>, %acc: tensor<96xf32>) -> tensor<96xf32> {
  %r = linalg.generic {indexing_maps = [#rows, #rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%y, %dy : tensor<96x256xf32>, tensor<96x256xf32>) outs(%acc : tensor<96xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<96xf32>
  return %r : tensor<96xf32>
}
