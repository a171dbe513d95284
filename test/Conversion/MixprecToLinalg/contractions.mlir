// RUN: mixprec-opt %s -split-input-file --convert-mixprec-to-linalg | FileCheck %s
// RUN: mixprec-opt %s -split-input-file --convert-mixprec-to-linalg | mixprec-opt -split-input-file --linalg-generalize-named-ops | FileCheck %s --check-prefix=BODY

// Contractions: the inputs keep their element type and feed a linalg named
// op whose output is an f32 accumulator filled with 0; the op's body widens
// 16-bit inputs (arith.extf) before the product, so products and sums are
// f32 (the BODY prefix shows the generalized body). One epilogue adds the
// widened bias and rounds once to the result type.

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

// f32 in and out: the matmul result is the op's result.
// CHECK-LABEL: func.func @matmul_f32(
// CHECK-SAME:    [[A:%[^:]+]]: tensor<37x53xf32>, [[B:%[^:]+]]: tensor<53x29xf32>)
// CHECK:         [[ZERO:%.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         [[EMPTY:%.+]] = tensor.empty() : tensor<37x29xf32>
// CHECK:         [[ACC:%.+]] = linalg.fill ins([[ZERO]] : f32) outs([[EMPTY]] : tensor<37x29xf32>)
// CHECK:         [[MM:%.+]] = linalg.matmul ins([[A]], [[B]] : tensor<37x53xf32>, tensor<53x29xf32>) outs([[ACC]] : tensor<37x29xf32>)
// CHECK-NEXT:    return [[MM]] : tensor<37x29xf32>
func.func @matmul_f32(%a: tensor<37x53xf32>, %b: tensor<53x29xf32>) -> tensor<37x29xf32> {
  %0 = mixprec.matmul %a, %b : tensor<37x53xf32>, tensor<53x29xf32> -> tensor<37x29xf32>
  return %0 : tensor<37x29xf32>
}

// -----

// f16 inputs, f32 result (the accumulator): both transposes become indexing
// maps over (m, n, k); nothing is rounded.
// CHECK-DAG:   #[[$LHS_T:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG:   #[[$RHS_T:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG:   #[[$OUT:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul_f16_to_f32_transposed(
// CHECK-SAME:    [[A:%[^:]+]]: tensor<8x4xf16>, [[B:%[^:]+]]: tensor<16x8xf16>)
// CHECK:         [[ACC:%.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<4x16xf32>)
// CHECK:         [[MM:%.+]] = linalg.matmul indexing_maps = [#[[$LHS_T]], #[[$RHS_T]], #[[$OUT]]] ins([[A]], [[B]] : tensor<8x4xf16>, tensor<16x8xf16>) outs([[ACC]] : tensor<4x16xf32>)
// CHECK-NOT:     arith.truncf
// CHECK:         return [[MM]] : tensor<4x16xf32>

// BODY-LABEL: func.func @matmul_f16_to_f32_transposed(
// BODY:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} outs(%{{.+}} : tensor<4x16xf32>)
// BODY-NEXT:    ^bb0([[X:%.+]]: f16, [[Y:%.+]]: f16, [[ACC:%.+]]: f32):
// BODY-NEXT:      [[XW:%.+]] = arith.extf [[X]] : f16 to f32
// BODY-NEXT:      [[YW:%.+]] = arith.extf [[Y]] : f16 to f32
// BODY-NEXT:      [[P:%.+]] = arith.mulf [[XW]], [[YW]] : f32
// BODY-NEXT:      [[S:%.+]] = arith.addf [[ACC]], [[P]] : f32
// BODY-NEXT:      linalg.yield [[S]] : f32
// BODY-NOT:     arith.truncf
// BODY:         return
func.func @matmul_f16_to_f32_transposed(%a: tensor<8x4xf16>, %b: tensor<16x8xf16>) -> tensor<4x16xf32> {
  %0 = mixprec.matmul %a, %b {transpose_lhs, transpose_rhs} : tensor<8x4xf16>, tensor<16x8xf16> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// bf16 in and out: f32 accumulation, then exactly one rounding to bf16.
// CHECK-DAG:   #[[$LHS:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG:   #[[$RHS_T:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG:   #[[$OUT:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul_bf16_transpose_rhs(
// CHECK-SAME:    [[A:%[^:]+]]: tensor<4x8xbf16>, [[B:%[^:]+]]: tensor<16x8xbf16>)
// CHECK:         [[MM:%.+]] = linalg.matmul indexing_maps = [#[[$LHS]], #[[$RHS_T]], #[[$OUT]]] ins([[A]], [[B]] : tensor<4x8xbf16>, tensor<16x8xbf16>) outs(%{{.+}} : tensor<4x16xf32>)
// CHECK:         [[R:%.+]] = linalg.generic {{.*}} ins([[MM]] : tensor<4x16xf32>) outs(%{{.+}} : tensor<4x16xbf16>)
// CHECK-NEXT:    ^bb0([[V:%.+]]: f32, %{{.+}}: bf16):
// CHECK-NEXT:      [[T:%.+]] = arith.truncf [[V]] : f32 to bf16
// CHECK-NEXT:      linalg.yield [[T]] : bf16
// CHECK-NOT:     arith.truncf
// CHECK:         return [[R]] : tensor<4x16xbf16>

// BODY-LABEL: func.func @matmul_bf16_transpose_rhs(
// BODY:         ^bb0([[X:%.+]]: bf16, [[Y:%.+]]: bf16, [[ACC:%.+]]: f32):
// BODY-NEXT:      [[XW:%.+]] = arith.extf [[X]] : bf16 to f32
// BODY-NEXT:      [[YW:%.+]] = arith.extf [[Y]] : bf16 to f32
// BODY-NEXT:      [[P:%.+]] = arith.mulf [[XW]], [[YW]] : f32
// BODY-NEXT:      [[S:%.+]] = arith.addf [[ACC]], [[P]] : f32
// BODY-NEXT:      linalg.yield [[S]] : f32
// BODY:           arith.truncf %{{.+}} : f32 to bf16
// BODY-NOT:       arith.truncf
// BODY:         return
func.func @matmul_bf16_transpose_rhs(%a: tensor<4x8xbf16>, %b: tensor<16x8xbf16>) -> tensor<4x16xbf16> {
  %0 = mixprec.matmul %a, %b {transpose_rhs} : tensor<4x8xbf16>, tensor<16x8xbf16> -> tensor<4x16xbf16>
  return %0 : tensor<4x16xbf16>
}

//===----------------------------------------------------------------------===//
// batch_matmul
//===----------------------------------------------------------------------===//

// -----

// Rank 4: the batch dims collapse into one around a linalg.batch_matmul;
// the result is rounded to f16 once, then expanded back.
// CHECK-DAG:   #[[$LHS:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG:   #[[$RHS_T:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG:   #[[$OUT:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @batch_matmul_rank4_f16(
// CHECK-SAME:    [[Q:%[^:]+]]: tensor<2x3x5x16xf16>, [[K:%[^:]+]]: tensor<2x3x7x16xf16>)
// CHECK:         [[QC:%.+]] = tensor.collapse_shape [[Q]] {{\[}}[0, 1], [2], [3]] : tensor<2x3x5x16xf16> into tensor<6x5x16xf16>
// CHECK:         [[KC:%.+]] = tensor.collapse_shape [[K]] {{\[}}[0, 1], [2], [3]] : tensor<2x3x7x16xf16> into tensor<6x7x16xf16>
// CHECK:         [[ACC:%.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<6x5x7xf32>)
// CHECK:         [[BMM:%.+]] = linalg.batch_matmul indexing_maps = [#[[$LHS]], #[[$RHS_T]], #[[$OUT]]] ins([[QC]], [[KC]] : tensor<6x5x16xf16>, tensor<6x7x16xf16>) outs([[ACC]] : tensor<6x5x7xf32>)
// CHECK:         [[R:%.+]] = linalg.generic {{.*}} ins([[BMM]] : tensor<6x5x7xf32>) outs(%{{.+}} : tensor<6x5x7xf16>)
// CHECK:           arith.truncf %{{.+}} : f32 to f16
// CHECK:         [[E:%.+]] = tensor.expand_shape [[R]] {{\[}}[0, 1], [2], [3]] output_shape [2, 3, 5, 7] : tensor<6x5x7xf16> into tensor<2x3x5x7xf16>
// CHECK-NEXT:    return [[E]] : tensor<2x3x5x7xf16>

// BODY-LABEL: func.func @batch_matmul_rank4_f16(
// BODY:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// BODY-NEXT:    ^bb0([[X:%.+]]: f16, [[Y:%.+]]: f16, [[ACC:%.+]]: f32):
// BODY-NEXT:      [[XW:%.+]] = arith.extf [[X]] : f16 to f32
// BODY-NEXT:      [[YW:%.+]] = arith.extf [[Y]] : f16 to f32
// BODY-NEXT:      [[P:%.+]] = arith.mulf [[XW]], [[YW]] : f32
// BODY-NEXT:      arith.addf [[ACC]], [[P]] : f32
func.func @batch_matmul_rank4_f16(%q: tensor<2x3x5x16xf16>, %k: tensor<2x3x7x16xf16>) -> tensor<2x3x5x7xf16> {
  %0 = mixprec.batch_matmul %q, %k {transpose_rhs} : tensor<2x3x5x16xf16>, tensor<2x3x7x16xf16> -> tensor<2x3x5x7xf16>
  return %0 : tensor<2x3x5x7xf16>
}

// -----

// Rank 3 needs no reshape; transpose_lhs reads the lhs as (b, k, m).
// CHECK-DAG:   #[[$LHS_T:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>
// CHECK-DAG:   #[[$RHS:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG:   #[[$OUT:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @batch_matmul_rank3_transpose_lhs(
// CHECK-SAME:    [[A:%[^:]+]]: tensor<2x16x5xf32>, [[B:%[^:]+]]: tensor<2x16x7xf32>)
// CHECK-NOT:     tensor.collapse_shape
// CHECK:         [[BMM:%.+]] = linalg.batch_matmul indexing_maps = [#[[$LHS_T]], #[[$RHS]], #[[$OUT]]] ins([[A]], [[B]] : tensor<2x16x5xf32>, tensor<2x16x7xf32>) outs(%{{.+}} : tensor<2x5x7xf32>)
// CHECK-NEXT:    return [[BMM]] : tensor<2x5x7xf32>
func.func @batch_matmul_rank3_transpose_lhs(%a: tensor<2x16x5xf32>, %b: tensor<2x16x7xf32>) -> tensor<2x5x7xf32> {
  %0 = mixprec.batch_matmul %a, %b {transpose_lhs} : tensor<2x16x5xf32>, tensor<2x16x7xf32> -> tensor<2x5x7xf32>
  return %0 : tensor<2x5x7xf32>
}

//===----------------------------------------------------------------------===//
// linear
//===----------------------------------------------------------------------===//

// -----

// x [2, 3, in] collapses to a matrix; the weight [out, in] is read
// transposed; the bias is widened and added to the f32 accumulator in the
// same epilogue that rounds once to bf16.
// CHECK-DAG:   #[[$LHS:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG:   #[[$RHS_T:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG:   #[[$OUT:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG:   #[[$ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[$COL:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @linear_bf16_bias(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<2x3x8xbf16>, [[W:%[^:]+]]: tensor<16x8xbf16>, [[B:%[^:]+]]: tensor<16xbf16>)
// CHECK:         [[XC:%.+]] = tensor.collapse_shape [[X]] {{\[}}[0, 1], [2]] : tensor<2x3x8xbf16> into tensor<6x8xbf16>
// CHECK:         [[ACC:%.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<6x16xf32>)
// CHECK:         [[MM:%.+]] = linalg.matmul indexing_maps = [#[[$LHS]], #[[$RHS_T]], #[[$OUT]]] ins([[XC]], [[W]] : tensor<6x8xbf16>, tensor<16x8xbf16>) outs([[ACC]] : tensor<6x16xf32>)
// CHECK:         [[R:%.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$COL]], #[[$ID]]], {{.*}}} ins([[MM]], [[B]] : tensor<6x16xf32>, tensor<16xbf16>) outs(%{{.+}} : tensor<6x16xbf16>)
// CHECK-NEXT:    ^bb0([[V:%.+]]: f32, [[BV:%.+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT:      [[BW:%.+]] = arith.extf [[BV]] : bf16 to f32
// CHECK-NEXT:      [[S:%.+]] = arith.addf [[V]], [[BW]] : f32
// CHECK-NEXT:      [[T:%.+]] = arith.truncf [[S]] : f32 to bf16
// CHECK-NEXT:      linalg.yield [[T]] : bf16
// CHECK:         [[E:%.+]] = tensor.expand_shape [[R]] {{\[}}[0, 1], [2]] output_shape [2, 3, 16] : tensor<6x16xbf16> into tensor<2x3x16xbf16>
// CHECK-NEXT:    return [[E]] : tensor<2x3x16xbf16>

// BODY-LABEL: func.func @linear_bf16_bias(
// BODY:         ^bb0([[X:%.+]]: bf16, [[Y:%.+]]: bf16, [[ACC:%.+]]: f32):
// BODY-NEXT:      [[XW:%.+]] = arith.extf [[X]] : bf16 to f32
// BODY-NEXT:      [[YW:%.+]] = arith.extf [[Y]] : bf16 to f32
// BODY-NEXT:      [[P:%.+]] = arith.mulf [[XW]], [[YW]] : f32
// BODY-NEXT:      arith.addf [[ACC]], [[P]] : f32
func.func @linear_bf16_bias(%x: tensor<2x3x8xbf16>, %w: tensor<16x8xbf16>, %b: tensor<16xbf16>) -> tensor<2x3x16xbf16> {
  %0 = mixprec.linear %x, %w, %b : tensor<2x3x8xbf16>, tensor<16x8xbf16>, tensor<16xbf16> -> tensor<2x3x16xbf16>
  return %0 : tensor<2x3x16xbf16>
}

// -----

// f16 inputs and bias, f32 result: the bias is widened, nothing is rounded.
// CHECK-LABEL: func.func @linear_f16_to_f32_bias(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<4x8xf16>, [[W:%[^:]+]]: tensor<16x8xf16>, [[B:%[^:]+]]: tensor<16xf16>)
// CHECK-NOT:     tensor.collapse_shape
// CHECK:         [[MM:%.+]] = linalg.matmul indexing_maps = {{.*}} ins([[X]], [[W]] : tensor<4x8xf16>, tensor<16x8xf16>) outs(%{{.+}} : tensor<4x16xf32>)
// CHECK:         [[R:%.+]] = linalg.generic {{.*}} ins([[MM]], [[B]] : tensor<4x16xf32>, tensor<16xf16>) outs(%{{.+}} : tensor<4x16xf32>)
// CHECK-NEXT:    ^bb0([[V:%.+]]: f32, [[BV:%.+]]: f16, %{{.+}}: f32):
// CHECK-NEXT:      [[BW:%.+]] = arith.extf [[BV]] : f16 to f32
// CHECK-NEXT:      [[S:%.+]] = arith.addf [[V]], [[BW]] : f32
// CHECK-NEXT:      linalg.yield [[S]] : f32
// CHECK-NOT:     arith.truncf
// CHECK:         return [[R]] : tensor<4x16xf32>
func.func @linear_f16_to_f32_bias(%x: tensor<4x8xf16>, %w: tensor<16x8xf16>, %b: tensor<16xf16>) -> tensor<4x16xf32> {
  %0 = mixprec.linear %x, %w, %b : tensor<4x8xf16>, tensor<16x8xf16>, tensor<16xf16> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// A rank-1 input is one row: [in] -> [1, in] -> [1, out] -> [out].
// CHECK-LABEL: func.func @linear_rank1_no_bias(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<8xf32>, [[W:%[^:]+]]: tensor<16x8xf32>)
// CHECK:         [[XE:%.+]] = tensor.expand_shape [[X]] {{\[}}[0, 1]] output_shape [1, 8] : tensor<8xf32> into tensor<1x8xf32>
// CHECK:         [[MM:%.+]] = linalg.matmul indexing_maps = {{.*}} ins([[XE]], [[W]] : tensor<1x8xf32>, tensor<16x8xf32>) outs(%{{.+}} : tensor<1x16xf32>)
// CHECK-NEXT:    [[R:%.+]] = tensor.collapse_shape [[MM]] {{\[}}[0, 1]] : tensor<1x16xf32> into tensor<16xf32>
// CHECK-NEXT:    return [[R]] : tensor<16xf32>
func.func @linear_rank1_no_bias(%x: tensor<8xf32>, %w: tensor<16x8xf32>) -> tensor<16xf32> {
  %0 = mixprec.linear %x, %w : tensor<8xf32>, tensor<16x8xf32> -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

//===----------------------------------------------------------------------===//
// conv2d
//===----------------------------------------------------------------------===//

// -----

// Stride, padding (0 in the input's type) and dilation; f16 inputs with an
// f32 result; the bias is widened and added per output channel (d1).
// CHECK-DAG:   #[[$ID:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG:   #[[$CHAN:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @conv2d_f16_to_f32_stride_pad_dilation(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<3x4x11x13xf16>, [[W:%[^:]+]]: tensor<6x4x3x3xf16>, [[B:%[^:]+]]: tensor<6xf16>)
// CHECK:         [[PADV:%.+]] = arith.constant 0.000000e+00 : f16
// CHECK:         [[P:%.+]] = tensor.pad [[X]] low[0, 0, 1, 2] high[0, 0, 1, 2]
// CHECK:           tensor.yield [[PADV]] : f16
// CHECK:         } : tensor<3x4x11x13xf16> to tensor<3x4x13x17xf16>
// CHECK:         [[ACC:%.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<3x6x5x8xf32>)
// CHECK:         [[C:%.+]] = linalg.conv_2d_nchw_fchw {dilations = dense<[2, 1]> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins([[P]], [[W]] : tensor<3x4x13x17xf16>, tensor<6x4x3x3xf16>) outs([[ACC]] : tensor<3x6x5x8xf32>)
// CHECK:         [[R:%.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$CHAN]], #[[$ID]]], {{.*}}} ins([[C]], [[B]] : tensor<3x6x5x8xf32>, tensor<6xf16>) outs(%{{.+}} : tensor<3x6x5x8xf32>)
// CHECK-NEXT:    ^bb0([[V:%.+]]: f32, [[BV:%.+]]: f16, %{{.+}}: f32):
// CHECK-NEXT:      [[BW:%.+]] = arith.extf [[BV]] : f16 to f32
// CHECK-NEXT:      [[S:%.+]] = arith.addf [[V]], [[BW]] : f32
// CHECK-NEXT:      linalg.yield [[S]] : f32
// CHECK-NOT:     arith.truncf
// CHECK:         return [[R]] : tensor<3x6x5x8xf32>

// BODY-LABEL: func.func @conv2d_f16_to_f32_stride_pad_dilation(
// BODY:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// BODY-NEXT:    ^bb0([[X:%.+]]: f16, [[Y:%.+]]: f16, [[ACC:%.+]]: f32):
// BODY-NEXT:      [[XW:%.+]] = arith.extf [[X]] : f16 to f32
// BODY-NEXT:      [[YW:%.+]] = arith.extf [[Y]] : f16 to f32
// BODY-NEXT:      [[P:%.+]] = arith.mulf [[XW]], [[YW]] : f32
// BODY-NEXT:      arith.addf [[ACC]], [[P]] : f32
func.func @conv2d_f16_to_f32_stride_pad_dilation(%x: tensor<3x4x11x13xf16>, %w: tensor<6x4x3x3xf16>, %b: tensor<6xf16>) -> tensor<3x6x5x8xf32> {
  %0 = mixprec.conv2d %x, %w, %b {stride = array<i64: 2, 2>, padding = array<i64: 1, 2>, dilation = array<i64: 2, 1>} : tensor<3x4x11x13xf16>, tensor<6x4x3x3xf16>, tensor<6xf16> -> tensor<3x6x5x8xf32>
  return %0 : tensor<3x6x5x8xf32>
}

// -----

// groups = 2: channels split into [G, C/G] (input) and [G, O/G] (weight and
// accumulator) around linalg.conv_2d_ngchw_gfchw; no padding, no tensor.pad;
// one rounding to bf16.
// CHECK-LABEL: func.func @conv2d_groups_bf16(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<3x4x11x13xbf16>, [[W:%[^:]+]]: tensor<6x2x3x3xbf16>)
// CHECK-NOT:     tensor.pad
// CHECK:         [[XG:%.+]] = tensor.expand_shape [[X]] {{\[}}[0], [1, 2], [3], [4]] output_shape [3, 2, 2, 11, 13] : tensor<3x4x11x13xbf16> into tensor<3x2x2x11x13xbf16>
// CHECK:         [[WG:%.+]] = tensor.expand_shape [[W]] {{\[}}[0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 3] : tensor<6x2x3x3xbf16> into tensor<2x3x2x3x3xbf16>
// CHECK:         [[ACC:%.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<3x2x3x9x11xf32>)
// CHECK:         [[C:%.+]] = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins([[XG]], [[WG]] : tensor<3x2x2x11x13xbf16>, tensor<2x3x2x3x3xbf16>) outs([[ACC]] : tensor<3x2x3x9x11xf32>)
// CHECK:         [[CC:%.+]] = tensor.collapse_shape [[C]] {{\[}}[0], [1, 2], [3], [4]] : tensor<3x2x3x9x11xf32> into tensor<3x6x9x11xf32>
// CHECK:         [[R:%.+]] = linalg.generic {{.*}} ins([[CC]] : tensor<3x6x9x11xf32>) outs(%{{.+}} : tensor<3x6x9x11xbf16>)
// CHECK:           arith.truncf %{{.+}} : f32 to bf16
// CHECK-NOT:     arith.truncf
// CHECK:         return [[R]] : tensor<3x6x9x11xbf16>

// BODY-LABEL: func.func @conv2d_groups_bf16(
// BODY:         ^bb0([[X:%.+]]: bf16, [[Y:%.+]]: bf16, [[ACC:%.+]]: f32):
// BODY-NEXT:      [[XW:%.+]] = arith.extf [[X]] : bf16 to f32
// BODY-NEXT:      [[YW:%.+]] = arith.extf [[Y]] : bf16 to f32
// BODY-NEXT:      [[P:%.+]] = arith.mulf [[XW]], [[YW]] : f32
// BODY-NEXT:      arith.addf [[ACC]], [[P]] : f32
func.func @conv2d_groups_bf16(%x: tensor<3x4x11x13xbf16>, %w: tensor<6x2x3x3xbf16>) -> tensor<3x6x9x11xbf16> {
  %0 = mixprec.conv2d %x, %w {groups = 2} : tensor<3x4x11x13xbf16>, tensor<6x2x3x3xbf16> -> tensor<3x6x9x11xbf16>
  return %0 : tensor<3x6x9x11xbf16>
}

// -----

// Depthwise (groups = channels) with padding and an f32 bias: the pad comes
// before the grouped view.
// CHECK-LABEL: func.func @conv2d_depthwise_f32_bias(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<2x4x8x8xf32>, [[W:%[^:]+]]: tensor<4x1x3x3xf32>, [[B:%[^:]+]]: tensor<4xf32>)
// CHECK:         [[P:%.+]] = tensor.pad [[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:         } : tensor<2x4x8x8xf32> to tensor<2x4x10x10xf32>
// CHECK:         [[XG:%.+]] = tensor.expand_shape [[P]] {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 4, 1, 10, 10]
// CHECK:         [[WG:%.+]] = tensor.expand_shape [[W]] {{\[}}[0, 1], [2], [3], [4]] output_shape [4, 1, 1, 3, 3]
// CHECK:         [[C:%.+]] = linalg.conv_2d_ngchw_gfchw {{.*}} ins([[XG]], [[WG]] : tensor<2x4x1x10x10xf32>, tensor<4x1x1x3x3xf32>) outs(%{{.+}} : tensor<2x4x1x8x8xf32>)
// CHECK:         [[CC:%.+]] = tensor.collapse_shape [[C]] {{\[}}[0], [1, 2], [3], [4]] : tensor<2x4x1x8x8xf32> into tensor<2x4x8x8xf32>
// CHECK:         [[R:%.+]] = linalg.generic {{.*}} ins([[CC]], [[B]] : tensor<2x4x8x8xf32>, tensor<4xf32>) outs(%{{.+}} : tensor<2x4x8x8xf32>)
// CHECK:           arith.addf
// CHECK:         return [[R]] : tensor<2x4x8x8xf32>
func.func @conv2d_depthwise_f32_bias(%x: tensor<2x4x8x8xf32>, %w: tensor<4x1x3x3xf32>, %b: tensor<4xf32>) -> tensor<2x4x8x8xf32> {
  %0 = mixprec.conv2d %x, %w, %b {padding = array<i64: 1, 1>, groups = 4} : tensor<2x4x8x8xf32>, tensor<4x1x3x3xf32>, tensor<4xf32> -> tensor<2x4x8x8xf32>
  return %0 : tensor<2x4x8x8xf32>
}
