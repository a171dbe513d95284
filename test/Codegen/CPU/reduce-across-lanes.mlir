// RUN: mixprec-opt %s -split-input-file --mixprec-reduce-across-lanes | FileCheck %s

// A softmax's sum over the last dimension: the row loop moves innermost,
// the batch loop stays outermost and the sum's body is unchanged.
// CHECK-DAG:   [[IN:#.+]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-DAG:   [[OUT:#.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @row_sums(
// CHECK:         linalg.generic {indexing_maps = [[[IN]], [[OUT]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK:           [[E:%.+]] = math.exp
// CHECK-NEXT:      [[S:%.+]] = arith.addf {{%.+}}, [[E]] : f32
// CHECK-NEXT:      linalg.yield [[S]] : f32
#in = affine_map<(b, i, k) -> (b, i, k)>
#out = affine_map<(b, i, k) -> (b, i)>
func.func @row_sums(%x: tensor<8x64x256xf32>, %init: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %s = linalg.generic {indexing_maps = [#in, #out],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<8x64x256xf32>) outs(%init : tensor<8x64xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %e = math.exp %a : f32
      %r = arith.addf %acc, %e : f32
      linalg.yield %r : f32
  } -> tensor<8x64xf32>
  return %s : tensor<8x64xf32>
}

// -----

// Unchanged: the only parallel loop is the outermost (the threads' loop),
// the rows are fewer than 16, or the innermost loop is parallel already.
// CHECK-LABEL: func.func @unchanged(
// CHECK:         iterator_types = ["parallel", "reduction"]
// CHECK:         iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:         iterator_types = ["parallel", "reduction", "parallel"]
#rows = affine_map<(i, k) -> (i, k)>
#row = affine_map<(i, k) -> (i)>
#in3 = affine_map<(b, i, k) -> (b, i, k)>
#out3 = affine_map<(b, i, k) -> (b, i)>
#cols = affine_map<(i, k, j) -> (i, k, j)>
#col = affine_map<(i, k, j) -> (i, j)>
func.func @unchanged(%x: tensor<64x256xf32>, %i: tensor<64xf32>,
                     %y: tensor<8x15x256xf32>, %j: tensor<8x15xf32>,
                     %z: tensor<8x256x64xf32>, %k: tensor<8x64xf32>)
    -> (tensor<64xf32>, tensor<8x15xf32>, tensor<8x64xf32>) {
  %a = linalg.generic {indexing_maps = [#rows, #row],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x256xf32>) outs(%i : tensor<64xf32>) {
    ^bb0(%v: f32, %acc: f32):
      %r = arith.addf %acc, %v : f32
      linalg.yield %r : f32
  } -> tensor<64xf32>
  %b = linalg.generic {indexing_maps = [#in3, #out3],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%y : tensor<8x15x256xf32>) outs(%j : tensor<8x15xf32>) {
    ^bb0(%v: f32, %acc: f32):
      %r = arith.addf %acc, %v : f32
      linalg.yield %r : f32
  } -> tensor<8x15xf32>
  %c = linalg.generic {indexing_maps = [#cols, #col],
                       iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%z : tensor<8x256x64xf32>) outs(%k : tensor<8x64xf32>) {
    ^bb0(%v: f32, %acc: f32):
      %r = arith.addf %acc, %v : f32
      linalg.yield %r : f32
  } -> tensor<8x64xf32>
  return %a, %b, %c : tensor<64xf32>, tensor<8x15xf32>, tensor<8x64xf32>
}
