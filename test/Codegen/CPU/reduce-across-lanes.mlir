// RUN: mixprec-opt %s -split-input-file --mixprec-reduce-across-lanes | FileCheck %s

// A softmax's sum over the last dimension: the rows are cut into blocks of
// 16, the blocks stay where the rows were and the 16 lanes go innermost;
// the body is unchanged and the result is viewed back.
// CHECK-DAG:   [[IN:#.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>
// CHECK-DAG:   [[OUT:#.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-LABEL: func.func @row_sums(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<8x64x256xf32>, [[INIT:%[^:]+]]: tensor<8x64xf32>)
// CHECK:         [[XC:%.+]] = tensor.expand_shape [[X]] {{\[}}[0], [1, 2], [3]] output_shape [8, 4, 16, 256]
// CHECK:         [[IC:%.+]] = tensor.expand_shape [[INIT]] {{\[}}[0], [1, 2]] output_shape [8, 4, 16]
// CHECK:         [[SUM:%.+]] = linalg.generic {indexing_maps = {{\[}}[[IN]], [[OUT]]], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
// CHECK-SAME:        ins([[XC]] : tensor<8x4x16x256xf32>) outs([[IC]] : tensor<8x4x16xf32>)
// CHECK:           [[E:%.+]] = math.exp
// CHECK-NEXT:      [[S:%.+]] = arith.addf {{%.+}}, [[E]] : f32
// CHECK-NEXT:      linalg.yield [[S]] : f32
// CHECK:         [[R:%.+]] = tensor.collapse_shape [[SUM]] {{\[}}[0], [1, 2]] : tensor<8x4x16xf32> into tensor<8x64xf32>
// CHECK-NEXT:    return [[R]]
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

// The outermost loop is cut too: its blocks stay outermost, where the
// threads split the nest (a layer norm's row statistics).
// CHECK-DAG:   [[IN:#.+]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-DAG:   [[OUT:#.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @rows_outermost(
// CHECK:         tensor.expand_shape {{%.+}} {{\[}}[0, 1], [2]] output_shape [4, 16, 384]
// CHECK:         linalg.generic {indexing_maps = {{\[}}[[IN]], [[OUT]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK:         tensor.collapse_shape {{%.+}} {{\[}}[0, 1]] : tensor<4x16xf32> into tensor<64xf32>
#rows = affine_map<(i, k) -> (i, k)>
#row = affine_map<(i, k) -> (i)>
func.func @rows_outermost(%x: tensor<64x384xf32>, %init: tensor<64xf32>) -> tensor<64xf32> {
  %s = linalg.generic {indexing_maps = [#rows, #row],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x384xf32>) outs(%init : tensor<64xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %r = arith.addf %acc, %a : f32
      linalg.yield %r : f32
  } -> tensor<64xf32>
  return %s : tensor<64xf32>
}

// -----

// Rows that are not a multiple of 16 move innermost whole (the outermost
// loop stays where the threads split the nest).
// CHECK-DAG:   [[IN:#.+]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-DAG:   [[OUT:#.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @whole_rows(
// CHECK-NOT:     tensor.expand_shape
// CHECK:         linalg.generic {indexing_maps = {{\[}}[[IN]], [[OUT]]], iterator_types = ["parallel", "reduction", "parallel"]}
#in2 = affine_map<(b, i, k) -> (b, i, k)>
#out2 = affine_map<(b, i, k) -> (b, i)>
func.func @whole_rows(%x: tensor<8x40x256xf32>, %init: tensor<8x40xf32>) -> tensor<8x40xf32> {
  %s = linalg.generic {indexing_maps = [#in2, #out2],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<8x40x256xf32>) outs(%init : tensor<8x40xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %r = arith.addf %acc, %a : f32
      linalg.yield %r : f32
  } -> tensor<8x40xf32>
  return %s : tensor<8x40xf32>
}

// -----

// Unchanged: a maximum and an integer sum are the same in any order, so
// LLVM vectorizes them over the row itself, with contiguous loads; a sum
// that also takes a maximum is cut.
// CHECK-LABEL: func.func @any_order(
// CHECK-NOT:     tensor.expand_shape
// CHECK:         iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:         arith.maximumf
// CHECK-NOT:     tensor.expand_shape
// CHECK:         iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:         arith.addi
// CHECK:         tensor.expand_shape
// CHECK:         iterator_types = ["parallel", "parallel", "reduction", "parallel"]
// CHECK:         arith.maximumf
// CHECK:         arith.addf
#in4 = affine_map<(b, i, k) -> (b, i, k)>
#out4 = affine_map<(b, i, k) -> (b, i)>
func.func @any_order(%x: tensor<8x64x256xf32>, %init: tensor<8x64xf32>,
                     %n: tensor<8x64x256xi32>, %count: tensor<8x64xi32>)
    -> (tensor<8x64xf32>, tensor<8x64xi32>, tensor<8x64xf32>, tensor<8x64xf32>) {
  %m = linalg.generic {indexing_maps = [#in4, #out4],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<8x64x256xf32>) outs(%init : tensor<8x64xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %r = arith.maximumf %acc, %a : f32
      linalg.yield %r : f32
  } -> tensor<8x64xf32>
  %c = linalg.generic {indexing_maps = [#in4, #out4],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%n : tensor<8x64x256xi32>) outs(%count : tensor<8x64xi32>) {
    ^bb0(%a: i32, %acc: i32):
      %r = arith.addi %acc, %a : i32
      linalg.yield %r : i32
  } -> tensor<8x64xi32>
  %both:2 = linalg.generic {indexing_maps = [#in4, #out4, #out4],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<8x64x256xf32>) outs(%init, %init : tensor<8x64xf32>, tensor<8x64xf32>) {
    ^bb0(%a: f32, %mx: f32, %sum: f32):
      %r = arith.maximumf %mx, %a : f32
      %t = arith.addf %sum, %a : f32
      linalg.yield %r, %t : f32, f32
  } -> (tensor<8x64xf32>, tensor<8x64xf32>)
  return %m, %c, %both#0, %both#1 : tensor<8x64xf32>, tensor<8x64xi32>, tensor<8x64xf32>, tensor<8x64xf32>
}

// -----

// Unchanged: the only parallel loop is the outermost (the threads' loop)
// and not a multiple of 16, the rows are fewer than 16, or the innermost
// loop is parallel already.
// CHECK-LABEL: func.func @unchanged(
// CHECK-NOT:     tensor.expand_shape
// CHECK:         iterator_types = ["parallel", "reduction"]
// CHECK:         iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:         iterator_types = ["parallel", "reduction", "parallel"]
#rows = affine_map<(i, k) -> (i, k)>
#row = affine_map<(i, k) -> (i)>
#in3 = affine_map<(b, i, k) -> (b, i, k)>
#out3 = affine_map<(b, i, k) -> (b, i)>
#cols = affine_map<(i, k, j) -> (i, k, j)>
#col = affine_map<(i, k, j) -> (i, j)>
func.func @unchanged(%x: tensor<40x256xf32>, %i: tensor<40xf32>,
                     %y: tensor<8x15x256xf32>, %j: tensor<8x15xf32>,
                     %z: tensor<8x256x64xf32>, %k: tensor<8x64xf32>)
    -> (tensor<40xf32>, tensor<8x15xf32>, tensor<8x64xf32>) {
  %a = linalg.generic {indexing_maps = [#rows, #row],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<40x256xf32>) outs(%i : tensor<40xf32>) {
    ^bb0(%v: f32, %acc: f32):
      %r = arith.addf %acc, %v : f32
      linalg.yield %r : f32
  } -> tensor<40xf32>
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
  return %a, %b, %c : tensor<40xf32>, tensor<8x15xf32>, tensor<8x64xf32>
}
