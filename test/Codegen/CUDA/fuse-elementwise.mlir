// RUN: mixprec-opt %s --mixprec-fuse-elementwise -split-input-file | FileCheck %s

#id = affine_map<(i, j) -> (i, j)>

// A chain of elementwise ops becomes one op; the f16 rounding of the first
// link stays inside the fused body.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[Y]] : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[E:.*]] = math.exp %[[A]] : f32
// CHECK: %[[H:.*]] = arith.truncf %[[E]] : f32 to f16
// CHECK: %[[W:.*]] = arith.extf %[[H]] : f16 to f32
// CHECK: %[[M:.*]] = arith.mulf %[[W]], %[[B]] : f32
// CHECK: linalg.yield %[[M]] : f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @chain(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e0 = tensor.empty() : tensor<4x8xf16>
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = math.exp %a : f32
    %r = arith.truncf %t : f32 to f16
    linalg.yield %r : f16
  } -> tensor<4x8xf16>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %m = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %y : tensor<4x8xf16>, tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%a: f16, %b: f32, %o: f32):
    %w = arith.extf %a : f16 to f32
    %r = arith.mulf %w, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %m : tensor<4x8xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>
#lhs = affine_map<(i, j, k) -> (i, k)>
#rhs = affine_map<(i, j, k) -> (k, j)>
#out = affine_map<(i, j, k) -> (i, j)>

// A producer with two users is computed once; a contraction keeps its
// multiply-accumulate body (the tensor-core kernels match it).
// CHECK-LABEL: func.func @left_alone
// CHECK: %[[P:.*]] = linalg.generic
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} ins(%[[P]] :
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} ins(%[[P]] :
// CHECK: arith.mulf
// CHECK: %[[Q:.*]] = linalg.generic
// CHECK: arith.negf
// CHECK: linalg.generic {{.*}} ins(%[[Q]], %{{.*}} : tensor<4x8xf16>, tensor<8x8xf16>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.extf
// CHECK-NEXT: arith.extf
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.addf
func.func @left_alone(%x: tensor<4x8xf32>, %h: tensor<4x8xf16>, %w: tensor<8x8xf16>, %acc: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %s2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.mulf %a, %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %eh = tensor.empty() : tensor<4x8xf16>
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<4x8xf16>) outs(%eh : tensor<4x8xf16>) {
  ^bb0(%a: f16, %o: f16):
    %t = arith.negf %a : f16
    linalg.yield %t : f16
  } -> tensor<4x8xf16>
  %c = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%q, %w : tensor<4x8xf16>, tensor<8x8xf16>) outs(%acc : tensor<4x8xf32>) {
  ^bb0(%a: f16, %b: f16, %o: f32):
    %wa = arith.extf %a : f16 to f32
    %wb = arith.extf %b : f16 to f32
    %t = arith.mulf %wa, %wb : f32
    %u = arith.addf %o, %t : f32
    linalg.yield %u : f32
  } -> tensor<4x8xf32>
  return %s, %s2, %c : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
