// RUN: mixprec-opt %s --convert-mixprec-to-linalg=convolutions-as-gemms=true | FileCheck %s
// RUN: mixprec-opt %s --convert-mixprec-to-linalg | FileCheck %s --check-prefix=LOOPS
// RUN: mixprec-compile --target=cpu --emit=mlir %s -o - | FileCheck %s --check-prefix=CALLS
// RUN: mixprec-compile --target=cpu --conv-gemms=false --emit=mlir %s -o - | FileCheck %s --check-prefix=NOCALLS

// With convolutions-as-gemms (the CPU pipeline's choice) a convolution
// copies its windows into an im2col tensor (rows: output positions, then
// group, then the window) and contracts it with the weight over the last
// three dims; the loops that index one GEMM per group chain in memory. The
// f32 sums go back to NCHW with the bias, rounded once. Without it, or for
// depthwise convolutions, one named convolution op reads the windows.

// CHECK-DAG: #[[WINDOWS:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d3, d4, d1 * 2 + d5, d2 + d6)>
// CHECK-DAG: #[[COLS:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d5, d6, d7)>
// CHECK-DAG: #[[WEIGHT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d3, d4, d5, d6, d7)>
// CHECK-DAG: #[[ACC:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-DAG: #[[NHWC:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>
// CHECK-DAG: #[[CHANNEL:.+]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-DAG: #[[WINDOWS_T:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d0, d1, d5 * 2 + d2, d3 + d6)>
// CHECK-DAG: #[[GRAD_T:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d2, d0, d1, d3, d4)>
// CHECK-DAG: #[[GRAD_OPERAND:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d6, d7)>
// CHECK-DAG: #[[COLS_T:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d2, d3, d4, d5, d6, d7)>
// CHECK-DAG: #[[SPREAD_WINDOWS:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d3, d4, d1 - d5 + 2, d2 - d6 * 2 + 4)>
// CHECK-DAG: #[[WEIGHT_T:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d2, d3)>
// CHECK-DAG: #[[WEIGHT_OPERAND:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d3, d5, d6, d7, d4)>

// CHECK-LABEL: func.func @conv2d(
// CHECK-SAME:      %[[X:.+]]: tensor<2x16x10x12xbf16>, %[[W:.+]]: tensor<24x8x3x3xbf16>, %[[B:.+]]: tensor<24xbf16>)
// CHECK:         %[[PADDED:.+]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:         %[[GROUPS:.+]] = tensor.expand_shape %[[PADDED]] {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 2, 8, 12, 14]
// CHECK:         %[[IM2COL:.+]] = linalg.generic {indexing_maps = [#[[WINDOWS]], #{{.+}}], {{.+}}} ins(%[[GROUPS]] : tensor<2x2x8x12x14xbf16>) outs(%{{.+}} : tensor<2x5x12x2x8x3x3xbf16>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT:      linalg.yield %[[IN]] : bf16
// CHECK:         %[[WG:.+]] = tensor.expand_shape %[[W]] {{\[}}[0, 1], [2], [3], [4]] output_shape [2, 12, 8, 3, 3]
// CHECK:         %[[ZERO:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<2x5x12x2x12xf32>)
// CHECK:         %[[SUMS:.+]] = linalg.generic {indexing_maps = [#[[COLS]], #[[WEIGHT]], #[[ACC]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[IM2COL]], %[[WG]] : tensor<2x5x12x2x8x3x3xbf16>, tensor<2x12x8x3x3xbf16>) outs(%[[ZERO]] : tensor<2x5x12x2x12xf32>)
// CHECK:           arith.extf
// CHECK:           arith.extf
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         %[[MERGED:.+]] = tensor.collapse_shape %[[SUMS]] {{\[}}[0], [1], [2], [3, 4]] : tensor<2x5x12x2x12xf32> into tensor<2x5x12x24xf32>
// CHECK:         %[[OUT:.+]] = linalg.generic {indexing_maps = [#[[NHWC]], #[[CHANNEL]], #{{.+}}], {{.+}}} ins(%[[MERGED]], %[[B]] : tensor<2x5x12x24xf32>, tensor<24xbf16>) outs(%{{.+}} : tensor<2x24x5x12xf32>)
// CHECK:         return %[[OUT]]

// LOOPS-LABEL: func.func @conv2d(
// LOOPS:         linalg.conv_2d_ngchw_gfchw
// LOOPS-NOT:     tensor<2x5x12x2x8x3x3xbf16>

// CALLS-LABEL: llvm.func @conv2d(
// CALLS-COUNT-1: llvm.call @mixprec_cpu_contract(
// CALLS-NOT:     llvm.call @mixprec_cpu_contract(
// CALLS:         llvm.return

// With --conv-gemms=false the convolution stays a loop nest: no GEMM call.
// NOCALLS-LABEL: llvm.func @conv2d(
// NOCALLS-NOT:     mixprec_cpu_contract
// NOCALLS:         llvm.return
func.func @conv2d(%x: tensor<2x16x10x12xbf16>, %w: tensor<24x8x3x3xbf16>, %b: tensor<24xbf16>) -> tensor<2x24x5x12xf32> {
  %0 = mixprec.conv2d %x, %w, %b {stride = array<i64: 2, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64} : tensor<2x16x10x12xbf16>, tensor<24x8x3x3xbf16>, tensor<24xbf16> -> tensor<2x24x5x12xf32>
  return %0 : tensor<2x24x5x12xf32>
}

// The weight gradient reads the windows transposed (window first, output
// position last) and the gradient with the batch after the channels, so
// that the reduced loops (n, oh, ow) chain in both.

// CHECK-LABEL: func.func @conv2d_grad_weight(
// CHECK-SAME:      %[[G:.+]]: tensor<2x24x5x12xf32>, %[[X:.+]]: tensor<2x16x10x12xf32>)
// CHECK:         %[[PADDED:.+]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:         %[[GROUPS:.+]] = tensor.expand_shape %[[PADDED]]
// CHECK:         %[[IM2COL:.+]] = linalg.generic {indexing_maps = [#[[WINDOWS_T]], #{{.+}}], {{.+}}} ins(%[[GROUPS]] : tensor<2x2x8x12x14xf32>) outs(%{{.+}} : tensor<2x8x3x3x2x5x12xf32>)
// CHECK:         %[[GG:.+]] = tensor.expand_shape %[[G]] {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 2, 12, 5, 12]
// CHECK:         %[[GRADS:.+]] = linalg.generic {indexing_maps = [#[[GRAD_T]], #{{.+}}], {{.+}}} ins(%[[GG]] : tensor<2x2x12x5x12xf32>) outs(%{{.+}} : tensor<2x12x2x5x12xf32>)
// CHECK:         %[[SUMS:.+]] = linalg.generic {indexing_maps = [#[[GRAD_OPERAND]], #[[COLS_T]], #[[ACC]]], {{.+}}} ins(%[[GRADS]], %[[IM2COL]] : tensor<2x12x2x5x12xf32>, tensor<2x8x3x3x2x5x12xf32>) outs(%{{.+}} : tensor<2x12x8x3x3xf32>)
// CHECK:         %[[DW:.+]] = tensor.collapse_shape %[[SUMS]] {{\[}}[0, 1], [2], [3], [4]] : tensor<2x12x8x3x3xf32> into tensor<24x8x3x3xf32>
// CHECK:         return %[[DW]]

// LOOPS-LABEL: func.func @conv2d_grad_weight(
// LOOPS:         } -> tensor<2x12x8x3x3xf32>
// LOOPS-NOT:     tensor<2x8x3x3x2x5x12xf32>
// LOOPS:         return
func.func @conv2d_grad_weight(%g: tensor<2x24x5x12xf32>, %x: tensor<2x16x10x12xf32>) -> tensor<24x8x3x3xf32> {
  %0 = mixprec.conv2d_grad_weight %g, %x {stride = array<i64: 2, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, weight_shape = array<i64: 24, 8, 3, 3>} : tensor<2x24x5x12xf32>, tensor<2x16x10x12xf32>
  return %0 : tensor<24x8x3x3xf32>
}

// The input gradient: the gradient spread by the stride (here 2 along H,
// from row 1 and column 3), its windows read backwards with the dilation
// (2 along W), against the weight transposed to [g, o, kh, kw, c].

// CHECK-LABEL: func.func @conv2d_grad_input(
// CHECK-SAME:      %[[G:.+]]: tensor<2x24x5x10xf32>, %[[W:.+]]: tensor<24x8x3x3xf32>)
// CHECK:         %[[Q0:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<2x24x12x16xf32>)
// CHECK:         %[[ROWS:.+]] = tensor.extract_slice %[[G]][0, 0, 0, 0] [2, 24, 5, 10] [1, 1, 1, 1]
// CHECK:         %[[Q:.+]] = tensor.insert_slice %[[ROWS]] into %[[Q0]][0, 0, 1, 3] [2, 24, 5, 10] [1, 1, 2, 1]
// CHECK:         %[[QG:.+]] = tensor.expand_shape %[[Q]]
// CHECK:         %[[IM2COL:.+]] = linalg.generic {indexing_maps = [#[[SPREAD_WINDOWS]], #{{.+}}], {{.+}}} ins(%[[QG]] : tensor<2x2x12x12x16xf32>) outs(%{{.+}} : tensor<2x10x12x2x12x3x3xf32>)
// CHECK:         %[[WG:.+]] = tensor.expand_shape %[[W]]
// CHECK:         %[[WT:.+]] = linalg.generic {indexing_maps = [#[[WEIGHT_T]], #{{.+}}], {{.+}}} ins(%[[WG]] : tensor<2x12x8x3x3xf32>) outs(%{{.+}} : tensor<2x12x3x3x8xf32>)
// CHECK:         %[[SUMS:.+]] = linalg.generic {indexing_maps = [#[[COLS]], #[[WEIGHT_OPERAND]], #[[ACC]]], {{.+}}} ins(%[[IM2COL]], %[[WT]] : tensor<2x10x12x2x12x3x3xf32>, tensor<2x12x3x3x8xf32>) outs(%{{.+}} : tensor<2x10x12x2x8xf32>)
// CHECK:         %[[MERGED:.+]] = tensor.collapse_shape %[[SUMS]]
// CHECK:         %[[DX:.+]] = linalg.generic {indexing_maps = [#[[NHWC]], #{{.+}}], {{.+}}} ins(%[[MERGED]] : tensor<2x10x12x16xf32>) outs(%{{.+}} : tensor<2x16x10x12xf32>)
// CHECK:         return %[[DX]]
func.func @conv2d_grad_input(%g: tensor<2x24x5x10xf32>, %w: tensor<24x8x3x3xf32>) -> tensor<2x16x10x12xf32> {
  %0 = mixprec.conv2d_grad_input %g, %w {stride = array<i64: 2, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 2>, groups = 2 : i64, input_shape = array<i64: 2, 16, 10, 12>} : tensor<2x24x5x10xf32>, tensor<24x8x3x3xf32>
  return %0 : tensor<2x16x10x12xf32>
}

// Depthwise: one channel per group keeps the loop form.

// CHECK-LABEL: func.func @depthwise(
// CHECK:         linalg.conv_2d_ngchw_gfchw
// CHECK-NOT:     linalg.generic
// CHECK:         return
func.func @depthwise(%x: tensor<2x16x10x12xf32>, %w: tensor<16x1x3x3xf32>) -> tensor<2x16x10x12xf32> {
  %0 = mixprec.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 16 : i64} : tensor<2x16x10x12xf32>, tensor<16x1x3x3xf32> -> tensor<2x16x10x12xf32>
  return %0 : tensor<2x16x10x12xf32>
}
