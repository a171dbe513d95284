// RUN: mixprec-opt %s -split-input-file --convert-mixprec-to-linalg | FileCheck %s

// Data movement copies elements in their own type: no widening, no rounding.

// CHECK-LABEL: func.func @transpose_f16(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<2x3x4xf16>)
// CHECK:         [[INIT:%.+]] = tensor.empty() : tensor<4x2x3xf16>
// CHECK:         [[T:%.+]] = linalg.transpose ins([[X]] : tensor<2x3x4xf16>) outs([[INIT]] : tensor<4x2x3xf16>) permutation = [2, 0, 1]
// CHECK:         return [[T]] : tensor<4x2x3xf16>
func.func @transpose_f16(%x: tensor<2x3x4xf16>) -> tensor<4x2x3xf16> {
  %0 = mixprec.transpose %x {permutation = array<i64: 2, 0, 1>} : tensor<2x3x4xf16>
  return %0 : tensor<4x2x3xf16>
}

// -----

// Row-major reshape: collapse to 1-D, expand to the result shape.
// CHECK-LABEL: func.func @reshape(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<2x3x4xi32>)
// CHECK:         [[FLAT:%.+]] = tensor.collapse_shape [[X]] {{\[}}[0, 1, 2]] : tensor<2x3x4xi32> into tensor<24xi32>
// CHECK:         [[R:%.+]] = tensor.expand_shape [[FLAT]] {{\[}}[0, 1]] output_shape [6, 4] : tensor<24xi32> into tensor<6x4xi32>
// CHECK:         return [[R]] : tensor<6x4xi32>
func.func @reshape(%x: tensor<2x3x4xi32>) -> tensor<6x4xi32> {
  %0 = mixprec.reshape %x : tensor<2x3x4xi32> -> tensor<6x4xi32>
  return %0 : tensor<6x4xi32>
}

// -----

// From 1-D there is nothing to collapse; 0-d <-> all-ones shapes use an
// empty reassociation.
// CHECK-LABEL: func.func @reshape_edges(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<12xf32>, [[S:%[^:]+]]: tensor<bf16>, [[O:%[^:]+]]: tensor<1x1x1xf16>)
// CHECK-NOT:     tensor.collapse_shape [[X]]
// CHECK:         [[R:%.+]] = tensor.expand_shape [[X]] {{\[}}[0, 1, 2]] output_shape [3, 1, 4] : tensor<12xf32> into tensor<3x1x4xf32>
// CHECK:         [[E:%.+]] = tensor.expand_shape [[S]] [] output_shape [1, 1] : tensor<bf16> into tensor<1x1xbf16>
// CHECK:         [[C:%.+]] = tensor.collapse_shape [[O]] [] : tensor<1x1x1xf16> into tensor<f16>
// CHECK:         return [[R]], [[E]], [[C]]
func.func @reshape_edges(%x: tensor<12xf32>, %s: tensor<bf16>, %o: tensor<1x1x1xf16>) -> (tensor<3x1x4xf32>, tensor<1x1xbf16>, tensor<f16>) {
  %0 = mixprec.reshape %x : tensor<12xf32> -> tensor<3x1x4xf32>
  %1 = mixprec.reshape %s : tensor<bf16> -> tensor<1x1xbf16>
  %2 = mixprec.reshape %o : tensor<1x1x1xf16> -> tensor<f16>
  return %0, %1, %2 : tensor<3x1x4xf32>, tensor<1x1xbf16>, tensor<f16>
}

// -----

// numpy broadcast: dims align right, leading result dims are not read, an
// input dim of size 1 is read at index 0; the element passes through as is.
// CHECK-DAG:   [[IN_MAP:#.+]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-DAG:   [[OUT_MAP:#.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @broadcast_bf16(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<3x1xbf16>)
// CHECK:         [[INIT:%.+]] = tensor.empty() : tensor<2x3x5xbf16>
// CHECK:         [[B:%.+]] = linalg.generic {indexing_maps = {{\[}}[[IN_MAP]], [[OUT_MAP]]], iterator_types = ["parallel", "parallel", "parallel"]} ins([[X]] : tensor<3x1xbf16>) outs([[INIT]] : tensor<2x3x5xbf16>)
// CHECK-NEXT:    ^bb0([[V:%.+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT:      linalg.yield [[V]] : bf16
// CHECK:         return [[B]] : tensor<2x3x5xbf16>
func.func @broadcast_bf16(%x: tensor<3x1xbf16>) -> tensor<2x3x5xbf16> {
  %0 = mixprec.broadcast %x : tensor<3x1xbf16> -> tensor<2x3x5xbf16>
  return %0 : tensor<2x3x5xbf16>
}

// -----

// A size-1 dim that stays size 1 keeps its dim expression.
// CHECK-DAG:   [[IN_MAP:#.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @broadcast_keeps_unit_dim(
// CHECK:         linalg.generic {indexing_maps = {{\[}}[[IN_MAP]], {{.+}}]
// CHECK-SAME:      ins(%{{.+}} : tensor<1x4xi1>) outs(%{{.+}} : tensor<3x1x4xi1>)
func.func @broadcast_keeps_unit_dim(%x: tensor<1x4xi1>) -> tensor<3x1x4xi1> {
  %0 = mixprec.broadcast %x : tensor<1x4xi1> -> tensor<3x1x4xi1>
  return %0 : tensor<3x1x4xi1>
}

// -----

// CHECK-LABEL: func.func @slice_strided(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<13x17xf16>)
// CHECK:         [[S:%.+]] = tensor.extract_slice [[X]][1, 2] [4, 5] [3, 3] : tensor<13x17xf16> to tensor<4x5xf16>
// CHECK:         return [[S]]
func.func @slice_strided(%x: tensor<13x17xf16>) -> tensor<4x5xf16> {
  %0 = mixprec.slice %x {offsets = array<i64: 1, 2>, sizes = array<i64: 4, 5>, strides = array<i64: 3, 3>} : tensor<13x17xf16>
  return %0 : tensor<4x5xf16>
}

// -----

// Default strides are 1.
// CHECK-LABEL: func.func @slice_unit_strides(
// CHECK:         tensor.extract_slice %{{.+}}[0, 3] [8, 1] [1, 1] : tensor<8x16xf32> to tensor<8x1xf32>
func.func @slice_unit_strides(%x: tensor<8x16xf32>) -> tensor<8x1xf32> {
  %0 = mixprec.slice %x {offsets = array<i64: 0, 3>, sizes = array<i64: 8, 1>} : tensor<8x16xf32>
  return %0 : tensor<8x1xf32>
}

// -----

// Each input is copied into its slice of one tensor.empty, at the running
// offset along the axis.
// CHECK-LABEL: func.func @concat_same_type(
// CHECK-SAME:    [[A:%[^:]+]]: tensor<2x3xi32>, [[B:%[^:]+]]: tensor<2x5xi32>)
// CHECK:         [[E:%.+]] = tensor.empty() : tensor<2x8xi32>
// CHECK:         [[S0:%.+]] = tensor.extract_slice [[E]][0, 0] [2, 3] [1, 1] : tensor<2x8xi32> to tensor<2x3xi32>
// CHECK:         [[C0:%.+]] = linalg.copy ins([[A]] : tensor<2x3xi32>) outs([[S0]] : tensor<2x3xi32>)
// CHECK:         [[I0:%.+]] = tensor.insert_slice [[C0]] into [[E]][0, 0] [2, 3] [1, 1] : tensor<2x3xi32> into tensor<2x8xi32>
// CHECK:         [[S1:%.+]] = tensor.extract_slice [[I0]][0, 3] [2, 5] [1, 1] : tensor<2x8xi32> to tensor<2x5xi32>
// CHECK:         [[C1:%.+]] = linalg.copy ins([[B]] : tensor<2x5xi32>) outs([[S1]] : tensor<2x5xi32>)
// CHECK:         [[I1:%.+]] = tensor.insert_slice [[C1]] into [[I0]][0, 3] [2, 5] [1, 1] : tensor<2x5xi32> into tensor<2x8xi32>
// CHECK:         return [[I1]]
func.func @concat_same_type(%a: tensor<2x3xi32>, %b: tensor<2x5xi32>) -> tensor<2x8xi32> {
  %0 = mixprec.concat %a, %b {axis = 1 : i64} : tensor<2x3xi32>, tensor<2x5xi32>
  return %0 : tensor<2x8xi32>
}

// -----

// f16 meets bf16: the result is f32; the 16-bit inputs are widened (exact)
// by a generic writing straight into their slice, the f32 input is copied.
// CHECK-LABEL: func.func @concat_promotes(
// CHECK-SAME:    [[A:%[^:]+]]: tensor<4x8xf16>, [[B:%[^:]+]]: tensor<4x2xbf16>, [[C:%[^:]+]]: tensor<4x1xf32>)
// CHECK:         [[E:%.+]] = tensor.empty() : tensor<4x11xf32>
// CHECK:         [[S0:%.+]] = tensor.extract_slice [[E]][0, 0] [4, 8] [1, 1] : tensor<4x11xf32> to tensor<4x8xf32>
// CHECK:         [[G0:%.+]] = linalg.generic {{.+}} ins([[A]] : tensor<4x8xf16>) outs([[S0]] : tensor<4x8xf32>)
// CHECK-NEXT:    ^bb0([[V0:%.+]]: f16, %{{.+}}: f32):
// CHECK-NEXT:      [[W0:%.+]] = arith.extf [[V0]] : f16 to f32
// CHECK-NEXT:      linalg.yield [[W0]] : f32
// CHECK:         [[I0:%.+]] = tensor.insert_slice [[G0]] into [[E]][0, 0] [4, 8] [1, 1]
// CHECK:         [[S1:%.+]] = tensor.extract_slice [[I0]][0, 8] [4, 2] [1, 1] : tensor<4x11xf32> to tensor<4x2xf32>
// CHECK:         [[G1:%.+]] = linalg.generic {{.+}} ins([[B]] : tensor<4x2xbf16>) outs([[S1]] : tensor<4x2xf32>)
// CHECK:           arith.extf %{{.+}} : bf16 to f32
// CHECK:         [[I1:%.+]] = tensor.insert_slice [[G1]] into [[I0]][0, 8] [4, 2] [1, 1]
// CHECK:         [[S2:%.+]] = tensor.extract_slice [[I1]][0, 10] [4, 1] [1, 1]
// CHECK:         [[C2:%.+]] = linalg.copy ins([[C]] : tensor<4x1xf32>) outs([[S2]] : tensor<4x1xf32>)
// CHECK:         [[I2:%.+]] = tensor.insert_slice [[C2]] into [[I1]][0, 10] [4, 1] [1, 1]
// CHECK:         return [[I2]]
func.func @concat_promotes(%a: tensor<4x8xf16>, %b: tensor<4x2xbf16>, %c: tensor<4x1xf32>) -> tensor<4x11xf32> {
  %0 = mixprec.concat %a, %b, %c {axis = 1 : i64} : tensor<4x8xf16>, tensor<4x2xbf16>, tensor<4x1xf32>
  return %0 : tensor<4x11xf32>
}

// -----

// Gather with tensor.extract; the index is clamped into [0, vocab - 1] (an
// out-of-range index is UB for the op; the lowering never reads outside
// the table).
// CHECK-DAG:   [[IDX_MAP:#.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG:   [[OUT_MAP:#.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @embedding_i64(
// CHECK-SAME:    [[TABLE:%[^:]+]]: tensor<100x64xbf16>, [[IDS:%[^:]+]]: tensor<8x16xi64>)
// CHECK:         [[INIT:%.+]] = tensor.empty() : tensor<8x16x64xbf16>
// CHECK:         [[G:%.+]] = linalg.generic {indexing_maps = {{\[}}[[IDX_MAP]], [[OUT_MAP]]], iterator_types = ["parallel", "parallel", "parallel"]} ins([[IDS]] : tensor<8x16xi64>) outs([[INIT]] : tensor<8x16x64xbf16>)
// CHECK-NEXT:    ^bb0([[ID:%.+]]: i64, %{{.+}}: bf16):
// CHECK-NEXT:      [[ROW:%.+]] = arith.index_cast [[ID]] : i64 to index
// CHECK-DAG:       [[ZERO:%.+]] = arith.constant 0 : index
// CHECK-DAG:       [[LAST:%.+]] = arith.constant 99 : index
// CHECK:           [[LO:%.+]] = arith.maxsi [[ROW]], [[ZERO]] : index
// CHECK:           [[CLAMPED:%.+]] = arith.minsi [[LO]], [[LAST]] : index
// CHECK:           [[COL:%.+]] = linalg.index 2 : index
// CHECK:           [[E:%.+]] = tensor.extract [[TABLE]]{{\[}}[[CLAMPED]], [[COL]]] : tensor<100x64xbf16>
// CHECK:           linalg.yield [[E]] : bf16
// CHECK:         return [[G]]
func.func @embedding_i64(%t: tensor<100x64xbf16>, %i: tensor<8x16xi64>) -> tensor<8x16x64xbf16> {
  %0 = mixprec.embedding %t, %i : tensor<100x64xbf16>, tensor<8x16xi64>
  return %0 : tensor<8x16x64xbf16>
}

// -----

// i32 indices are sign-extended by index_cast (a negative id clamps to 0).
// CHECK-LABEL: func.func @embedding_i32_scalar_index(
// CHECK:         linalg.generic {{.+}} ins(%{{.+}} : tensor<i32>) outs(%{{.+}} : tensor<6xf16>)
// CHECK:           arith.index_cast %{{.+}} : i32 to index
// CHECK:           arith.constant 8 : index
// CHECK:           linalg.index 0 : index
func.func @embedding_i32_scalar_index(%t: tensor<9x6xf16>, %i: tensor<i32>) -> tensor<6xf16> {
  %0 = mixprec.embedding %t, %i : tensor<9x6xf16>, tensor<i32>
  return %0 : tensor<6xf16>
}

// -----

// Dropout: Philox4x32-10 keyed by the seed, counter (linear index lo, hi,
// stream, offset); word 0 compared against ceil(p * 2^32) = 2^30 for
// p = 0.25; the f32 product x * (keep ? 1/(1-p) : 0) rounded once to f16.
// CHECK-LABEL: func.func @dropout_f16(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<3x5xf16>, [[RNG:%[^:]+]]: tensor<2xi64>)
// CHECK:         [[SEED:%.+]] = tensor.extract [[RNG]][%{{.+}}] : tensor<2xi64>
// CHECK:         [[OFFSET:%.+]] = tensor.extract [[RNG]][%{{.+}}] : tensor<2xi64>
// CHECK:         [[K0:%.+]] = arith.trunci [[SEED]] : i64 to i32
// CHECK:         [[SEEDHI:%.+]] = arith.shrui [[SEED]], %{{.+}} : i64
// CHECK:         [[K1:%.+]] = arith.trunci [[SEEDHI]] : i64 to i32
// CHECK:         [[W0:%.+]] = arith.constant -1640531527 : i32
// CHECK:         [[K0R1:%.+]] = arith.addi [[K0]], [[W0]] : i32
// CHECK:         [[W1:%.+]] = arith.constant -1150833019 : i32
// CHECK:         [[K1R1:%.+]] = arith.addi [[K1]], [[W1]] : i32
// CHECK-COUNT-8: arith.addi %{{.+}}, %c-1640531527_i32{{.*}} : i32
// CHECK:         [[STREAM:%.+]] = arith.constant 7 : i32
// CHECK:         [[C3:%.+]] = arith.trunci [[OFFSET]] : i64 to i32
// CHECK:         linalg.generic {{.+}} ins([[X]] : tensor<3x5xf16>) outs(%{{.+}} : tensor<3x5xf16>)
// CHECK-NEXT:    ^bb0([[V:%.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT:      [[XW:%.+]] = arith.extf [[V]] : f16 to f32
// CHECK:           [[I0:%.+]] = linalg.index 0 : index
// CHECK:           [[I0W:%.+]] = arith.index_cast [[I0]] : index to i64
// CHECK:           [[I1:%.+]] = linalg.index 1 : index
// CHECK:           [[I1W:%.+]] = arith.index_cast [[I1]] : index to i64
// CHECK:           [[ROWSTART:%.+]] = arith.muli [[I0W]], %c5_i64 : i64
// CHECK:           [[LIN:%.+]] = arith.addi [[ROWSTART]], [[I1W]] : i64
// CHECK:           [[C0:%.+]] = arith.trunci [[LIN]] : i64 to i32
// CHECK:           [[LINHI:%.+]] = arith.shrui [[LIN]], %{{.+}} : i64
// CHECK:           [[C1:%.+]] = arith.trunci [[LINHI]] : i64 to i32
// Round 1: M1 * c2 and M0 * c0 as 64-bit products of zero-extended words.
// CHECK:           [[C2W:%.+]] = arith.extui [[STREAM]] : i32 to i64
// CHECK:           [[P1:%.+]] = arith.muli [[C2W]], %c3449720151_i64 : i64
// CHECK:           [[LO1:%.+]] = arith.trunci [[P1]] : i64 to i32
// CHECK:           [[P1HI:%.+]] = arith.shrui [[P1]], %{{.+}} : i64
// CHECK:           [[HI1:%.+]] = arith.trunci [[P1HI]] : i64 to i32
// CHECK:           [[X0:%.+]] = arith.xori [[HI1]], [[C1]] : i32
// CHECK:           [[N0:%.+]] = arith.xori [[X0]], [[K0]] : i32
// CHECK:           [[C0W:%.+]] = arith.extui [[C0]] : i32 to i64
// CHECK:           [[P0:%.+]] = arith.muli [[C0W]], %c3528531795_i64 : i64
// CHECK:           [[LO0:%.+]] = arith.trunci [[P0]] : i64 to i32
// CHECK:           [[P0HI:%.+]] = arith.shrui [[P0]], %{{.+}} : i64
// CHECK:           [[HI0:%.+]] = arith.trunci [[P0HI]] : i64 to i32
// CHECK:           [[X2:%.+]] = arith.xori [[HI0]], [[C3]] : i32
// CHECK:           [[N2:%.+]] = arith.xori [[X2]], [[K1]] : i32
// Round 2 starts from the new counter and the bumped key.
// CHECK:           [[N2W:%.+]] = arith.extui [[N2]] : i32 to i64
// CHECK:           arith.muli [[N2W]], %c3449720151_i64{{.*}} : i64
// CHECK:           arith.xori %{{.+}}, [[LO1]] : i32
// CHECK:           arith.xori %{{.+}}, [[K0R1]] : i32
// CHECK:           [[N0W:%.+]] = arith.extui [[N0]] : i32 to i64
// CHECK:           arith.muli [[N0W]], %c3528531795_i64{{.*}} : i64
// CHECK:           arith.xori %{{.+}}, [[LO0]] : i32
// CHECK:           arith.xori %{{.+}}, [[K1R1]] : i32
// Rounds 3 to 10 (the last one only computes word 0).
// CHECK-COUNT-8:   arith.muli %{{.+}}, %c3449720151_i64{{.*}} : i64
// CHECK:           [[XR:%.+]] = arith.xori %{{.+}}, %{{.+}} : i32
// CHECK-NEXT:      [[R:%.+]] = arith.xori [[XR]], %{{.+}} : i32
// CHECK-NEXT:      [[THRESHOLD:%.+]] = arith.constant 1073741824 : i32
// CHECK-NEXT:      [[KEEP:%.+]] = arith.cmpi uge, [[R]], [[THRESHOLD]] : i32
// CHECK-NEXT:      [[SCALE:%.+]] = arith.constant 1.33333337 : f32
// CHECK-NEXT:      [[FACTOR:%.+]] = arith.select [[KEEP]], [[SCALE]], %{{.+}} : f32
// CHECK-NEXT:      [[Y:%.+]] = arith.mulf [[XW]], [[FACTOR]] : f32
// CHECK-NEXT:      [[YH:%.+]] = arith.truncf [[Y]] : f32 to f16
// CHECK-NEXT:      linalg.yield [[YH]] : f16
func.func @dropout_f16(%x: tensor<3x5xf16>, %rng: tensor<2xi64>) -> tensor<3x5xf16> {
  %0 = mixprec.dropout %x, %rng {p = 2.5e-01 : f64, stream = 7 : i64} : tensor<3x5xf16>
  return %0 : tensor<3x5xf16>
}

// -----

// Evaluation mode and p = 0 are the identity.
// CHECK-LABEL: func.func @dropout_identity(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<3x5xf16>,
// CHECK-NOT:     linalg.generic
// CHECK:         return [[X]], [[X]] : tensor<3x5xf16>, tensor<3x5xf16>
func.func @dropout_identity(%x: tensor<3x5xf16>, %rng: tensor<2xi64>) -> (tensor<3x5xf16>, tensor<3x5xf16>) {
  %0 = mixprec.dropout %x, %rng {p = 2.5e-01 : f64, training = false} : tensor<3x5xf16>
  %1 = mixprec.dropout %x, %rng {p = 0.0 : f64} : tensor<3x5xf16>
  return %0, %1 : tensor<3x5xf16>, tensor<3x5xf16>
}

// -----

// A 0-d input has linear index 0. A p within 2^-32 of 1 keeps nothing:
// x * 0, no generator.
// CHECK-LABEL: func.func @dropout_edges(
// CHECK:         linalg.generic {{.+}} ins(%{{.+}} : tensor<f32>)
// CHECK:           arith.constant 0 : i64
// CHECK:           arith.cmpi uge
// CHECK:         linalg.generic {{.+}} ins(%{{.+}} : tensor<4xf32>)
// CHECK-NEXT:    ^bb0([[V:%.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      [[ZERO:%.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      [[Y:%.+]] = arith.mulf [[V]], [[ZERO]] : f32
// CHECK-NEXT:      linalg.yield [[Y]] : f32
func.func @dropout_edges(%x: tensor<f32>, %y: tensor<4xf32>, %rng: tensor<2xi64>) -> (tensor<f32>, tensor<4xf32>) {
  %0 = mixprec.dropout %x, %rng {p = 5.0e-01 : f64} : tensor<f32>
  %1 = mixprec.dropout %y, %rng {p = 0.99999999999999 : f64} : tensor<4xf32>
  return %0, %1 : tensor<f32>, tensor<4xf32>
}
