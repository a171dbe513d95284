// RUN: mixprec-opt %s -split-input-file --mixprec-transposes-into-contractions | FileCheck %s

// Attention's scores: the heads of q and k are transposed out of the
// projection's rows, then merged into one batch dimension. The batched
// matmul becomes a generic over (batch, head, m, n, k) that reads both
// projections in place: q at (batch, m, head, k), k at (batch, n, head, k).
// No transpose is left; the body is the same multiply-add.
// CHECK-DAG:   #[[Q:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d1, d4)>
// CHECK-DAG:   #[[K:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d1, d4)>
// CHECK-DAG:   #[[S:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @scores(
// CHECK:         [[Q_ROWS:%.+]] = tensor.expand_shape {{%.+}} {{\[}}[0], [1], [2, 3]] output_shape [2, 16, 2, 16] : tensor<2x16x32xbf16> into tensor<2x16x2x16xbf16>
// CHECK:         [[K_ROWS:%.+]] = tensor.expand_shape {{%.+}} {{\[}}[0], [1], [2, 3]] output_shape [2, 16, 2, 16] : tensor<2x16x32xbf16> into tensor<2x16x2x16xbf16>
// CHECK-NOT:     linalg.transpose
// CHECK:         [[SCORES:%.+]] = linalg.generic {indexing_maps = [#[[Q]], #[[K]], #[[S]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins([[Q_ROWS]], [[K_ROWS]] : tensor<2x16x2x16xbf16>, tensor<2x16x2x16xbf16>) outs({{%.+}} : tensor<2x2x16x16xf32>)
// CHECK:           arith.mulf
// CHECK-NEXT:      arith.addf
// CHECK:         return [[SCORES]] : tensor<2x2x16x16xf32>
func.func @scores(%qkv: tensor<2x16x96xbf16>) -> tensor<2x2x16x16xf32> {
  %q0 = tensor.extract_slice %qkv[0, 0, 0] [2, 16, 32] [1, 1, 1] : tensor<2x16x96xbf16> to tensor<2x16x32xbf16>
  %k0 = tensor.extract_slice %qkv[0, 0, 32] [2, 16, 32] [1, 1, 1] : tensor<2x16x96xbf16> to tensor<2x16x32xbf16>
  %q = tensor.expand_shape %q0 [[0], [1], [2, 3]] output_shape [2, 16, 2, 16] : tensor<2x16x32xbf16> into tensor<2x16x2x16xbf16>
  %k = tensor.expand_shape %k0 [[0], [1], [2, 3]] output_shape [2, 16, 2, 16] : tensor<2x16x32xbf16> into tensor<2x16x2x16xbf16>
  %e0 = tensor.empty() : tensor<2x2x16x16xbf16>
  %qt = linalg.transpose ins(%q : tensor<2x16x2x16xbf16>) outs(%e0 : tensor<2x2x16x16xbf16>) permutation = [0, 2, 1, 3]
  %e1 = tensor.empty() : tensor<2x2x16x16xbf16>
  %kt = linalg.transpose ins(%k : tensor<2x16x2x16xbf16>) outs(%e1 : tensor<2x2x16x16xbf16>) permutation = [0, 2, 3, 1]
  %qc = tensor.collapse_shape %qt [[0, 1], [2], [3]] : tensor<2x2x16x16xbf16> into tensor<4x16x16xbf16>
  %kc = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x2x16x16xbf16> into tensor<4x16x16xbf16>
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<4x16x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %s = linalg.batch_matmul ins(%qc, %kc : tensor<4x16x16xbf16>, tensor<4x16x16xbf16>) outs(%f : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %r = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [2, 2, 16, 16] : tensor<4x16x16xf32> into tensor<2x2x16x16xf32>
  return %r : tensor<2x2x16x16xf32>
}

// -----

// A transposed weight read by a matmul (no collapse between): the matmul
// reads the weight through the transposed map. A transpose that something
// else reads too stays for that reader; a matmul of plain operands and an
// elementwise reader of a transpose are left as they are.
// CHECK-DAG:   #[[W:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @weights(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<8x4xf32>, [[WT:%[^:]+]]: tensor<16x4xf32>, [[OUT:%[^:]+]]: tensor<8x16xf32>, [[TWICE:%[^:]+]]: tensor<4x16xf32>)
// CHECK:         [[KEPT:%.+]] = linalg.transpose ins([[WT]] : tensor<16x4xf32>)
// CHECK:         [[Y:%.+]] = linalg.generic {indexing_maps = [#{{.+}}, #[[W]], #{{.+}}], {{.*}} ins([[X]], [[WT]] : tensor<8x4xf32>, tensor<16x4xf32>)
// CHECK:         [[PLAIN:%.+]] = linalg.matmul ins([[X]], [[TWICE]] : tensor<8x4xf32>, tensor<4x16xf32>)
// CHECK:         [[DOUBLED:%.+]] = linalg.generic {{.*}} ins([[KEPT]] : tensor<4x16xf32>)
// CHECK:         return [[Y]], [[PLAIN]], [[DOUBLED]]
func.func @weights(%x: tensor<8x4xf32>, %wt: tensor<16x4xf32>, %out: tensor<8x16xf32>, %twice: tensor<4x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<4x16xf32>) {
  %e = tensor.empty() : tensor<4x16xf32>
  %w = linalg.transpose ins(%wt : tensor<16x4xf32>) outs(%e : tensor<4x16xf32>) permutation = [1, 0]
  %y = linalg.matmul ins(%x, %w : tensor<8x4xf32>, tensor<4x16xf32>) outs(%out : tensor<8x16xf32>) -> tensor<8x16xf32>
  %p = linalg.matmul ins(%x, %twice : tensor<8x4xf32>, tensor<4x16xf32>) outs(%out : tensor<8x16xf32>) -> tensor<8x16xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<4x16xf32>) outs(%twice : tensor<4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %y, %p, %d : tensor<8x16xf32>, tensor<8x16xf32>, tensor<4x16xf32>
}

// -----

// A transpose of an elementwise result (heads merged back after the
// attention's values, rounded to bf16) is that op writing in the
// transposed order; the expansion of the batch dimension between becomes
// loops of the elementwise op.
// CHECK-DAG:   #[[READ:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
// CHECK-DAG:   #[[WRITE:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @heads_merged(
// CHECK-SAME:    [[S:%[^:]+]]: tensor<4x16x8xf32>)
// CHECK-NOT:     linalg.transpose
// CHECK:         [[HEADS:%.+]] = tensor.expand_shape [[S]] {{\[}}[0, 1], [2], [3]] output_shape [2, 2, 16, 8] : tensor<4x16x8xf32> into tensor<2x2x16x8xf32>
// CHECK:         [[ROUNDED:%.+]] = linalg.generic {indexing_maps = [#[[READ]], #[[WRITE]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins([[HEADS]] : tensor<2x2x16x8xf32>) outs({{%.+}} : tensor<2x16x2x8xbf16>)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      arith.truncf
// CHECK:         tensor.collapse_shape [[ROUNDED]] {{\[}}[0, 1], [2, 3]] : tensor<2x16x2x8xbf16> into tensor<32x16xbf16>
// CHECK-NOT:     linalg.transpose
func.func @heads_merged(%s: tensor<4x16x8xf32>) -> tensor<32x16xbf16> {
  %e = tensor.empty() : tensor<4x16x8xbf16>
  %r = linalg.generic {indexing_maps = [affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<4x16x8xf32>) outs(%e : tensor<4x16x8xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<4x16x8xbf16>
  %x = tensor.expand_shape %r [[0, 1], [2], [3]] output_shape [2, 2, 16, 8] : tensor<4x16x8xbf16> into tensor<2x2x16x8xbf16>
  %e2 = tensor.empty() : tensor<2x16x2x8xbf16>
  %t = linalg.transpose ins(%x : tensor<2x2x16x8xbf16>) outs(%e2 : tensor<2x16x2x8xbf16>) permutation = [0, 2, 1, 3]
  %c = tensor.collapse_shape %t [[0, 1], [2, 3]] : tensor<2x16x2x8xbf16> into tensor<32x16xbf16>
  return %c : tensor<32x16xbf16>
}
