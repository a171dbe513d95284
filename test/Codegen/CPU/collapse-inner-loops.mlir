// RUN: mixprec-opt %s -split-input-file --mixprec-collapse-inner-loops | FileCheck %s

#id = affine_map<(o, i, h, w) -> (o, i, h, w)>

// An SGD update of 3x3 convolution weights: every map is the identity, so
// the four loops become one over the 64*32*9 contiguous elements, the same
// body on collapsed views. The weights, read and written in place, are one
// view (so the outlined nest takes one pointer, not two that LLVM must
// check for overlap).
// CHECK-DAG: #[[$ID1:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @update_3x3_weights
// CHECK-SAME: (%[[W:[^:]+]]: memref<64x32x3x3xf32>, %[[G:[^:]+]]: memref<64x32x3x3xf32>, %[[LR:[^:]+]]: f32)
// CHECK: %[[CW:.+]] = memref.collapse_shape %[[W]] {{\[}}[0, 1, 2, 3]] : memref<64x32x3x3xf32> into memref<18432xf32>
// CHECK: %[[CG:.+]] = memref.collapse_shape %[[G]] {{\[}}[0, 1, 2, 3]] : memref<64x32x3x3xf32> into memref<18432xf32>
// CHECK-NOT: memref.collapse_shape
// CHECK: linalg.generic {indexing_maps = [#[[$ID1]], #[[$ID1]], #[[$ID1]]], iterator_types = ["parallel"]}
// CHECK-SAME: ins(%[[CW]], %[[CG]] : memref<18432xf32>, memref<18432xf32>) outs(%[[CW]] : memref<18432xf32>)
// CHECK-NEXT: ^bb0(%[[A:[^:]+]]: f32, %[[B:[^:]+]]: f32,
// CHECK-NEXT: %[[S:.+]] = arith.mulf %[[LR]], %[[B]] : f32
// CHECK-NEXT: %[[N:.+]] = arith.subf %[[A]], %[[S]] : f32
// CHECK-NEXT: linalg.yield %[[N]] : f32
func.func @update_3x3_weights(%w: memref<64x32x3x3xf32>, %g: memref<64x32x3x3xf32>, %lr: f32) {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%w, %g : memref<64x32x3x3xf32>, memref<64x32x3x3xf32>) outs(%w : memref<64x32x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.mulf %lr, %b : f32
    %n = arith.subf %a, %s : f32
    linalg.yield %n : f32
  }
  return
}

// -----

#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#channel = affine_map<(n, c, h, w) -> (c)>
#scalar = affine_map<(n, c, h, w) -> ()>

// A per-channel scale and a scalar in a buffer: the channel map stops the
// run at the channel loop, so only the spatial loops collapse; the scale
// and the scalar are read as they were.
// CHECK-DAG: #[[$ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$CHANNEL:.+]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-DAG: #[[$SCALAR:.+]] = affine_map<(d0, d1, d2) -> ()>
// CHECK-LABEL: func.func @per_channel_scale
// CHECK-SAME: (%[[X:[^:]+]]: memref<8x64x4x4xf32>, %[[S:[^:]+]]: memref<64xf32>, %[[B:[^:]+]]: memref<f32>, %[[Y:[^:]+]]: memref<8x64x4x4xf32>)
// CHECK: %[[CX:.+]] = memref.collapse_shape %[[X]] {{\[}}[0], [1], [2, 3]] : memref<8x64x4x4xf32> into memref<8x64x16xf32>
// CHECK: %[[CY:.+]] = memref.collapse_shape %[[Y]] {{\[}}[0], [1], [2, 3]] : memref<8x64x4x4xf32> into memref<8x64x16xf32>
// CHECK: linalg.generic {indexing_maps = [#[[$ID3]], #[[$CHANNEL]], #[[$SCALAR]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[CX]], %[[S]], %[[B]] : memref<8x64x16xf32>, memref<64xf32>, memref<f32>) outs(%[[CY]] : memref<8x64x16xf32>)
func.func @per_channel_scale(%x: memref<8x64x4x4xf32>, %s: memref<64xf32>, %bias: memref<f32>, %y: memref<8x64x4x4xf32>) {
  linalg.generic {indexing_maps = [#id, #channel, #scalar, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %s, %bias : memref<8x64x4x4xf32>, memref<64xf32>, memref<f32>) outs(%y : memref<8x64x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %t = arith.mulf %a, %b : f32
    %u = arith.addf %t, %c : f32
    linalg.yield %u : f32
  }
  return
}

// -----

#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#transposed = affine_map<(n, c, h, w) -> (n, c, w, h)>
#window = affine_map<(n, c, h, w) -> (n, c, h + w)>
#rows = affine_map<(n, c, h, w) -> (n, c, h)>
#hw_first = affine_map<(n, c, h, w) -> (h, w, n, c)>

// Left alone: a transpose (the inner loops read in another order), a
// window (not a projected permutation), a sum over the innermost loop, a
// strided view, a body that reads its indices, and a buffer whose last
// dimension is not the loops' last (the collapsed loop would stride it).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: memref.collapse_shape
// CHECK: return
func.func @left_alone(%x: memref<2x3x4x4xf32>, %p: memref<2x3x8xf32>, %r: memref<2x3x4xf32>, %v: memref<2x3x4x4xf32, strided<[96, 32, 8, 1]>>, %hw: memref<4x4x2x3xf32>) {
  linalg.generic {indexing_maps = [#transposed, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<2x3x4x4xf32>) outs(%x : memref<2x3x4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#window, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%p : memref<2x3x8xf32>) outs(%x : memref<2x3x4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x : memref<2x3x4x4xf32>) outs(%r : memref<2x3x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %o, %a : f32
    linalg.yield %t : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<2x3x4x4xf32>) outs(%v : memref<2x3x4x4xf32, strided<[96, 32, 8, 1]>>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#hw_first, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%hw : memref<4x4x2x3xf32>) outs(%x : memref<2x3x4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%x : memref<2x3x4x4xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 3 : index
    %j = arith.index_cast %i : index to i32
    %f = arith.sitofp %j : i32 to f32
    linalg.yield %f : f32
  }
  return
}
