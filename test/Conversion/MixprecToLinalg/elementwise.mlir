// RUN: mixprec-opt %s -split-input-file --convert-mixprec-to-linalg | FileCheck %s

// Elementwise ops: one linalg.generic each, whose body widens 16-bit
// elements to f32, computes in f32 and rounds the result once.

// silu: x / (1 + e^-x), in f32, one rounding to bf16.
// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @silu_bf16(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4x8xbf16>)
// CHECK:         %[[Y:.+]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]] : tensor<4x8xbf16>) outs(%{{.+}} : tensor<4x8xbf16>)
// CHECK-NEXT:    ^bb0(%[[XI:.+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT:      %[[XW:.+]] = arith.extf %[[XI]] : bf16 to f32
// CHECK-NEXT:      %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[NEG:.+]] = arith.negf %[[XW]] : f32
// CHECK-NEXT:      %[[EXP:.+]] = math.exp %[[NEG]] : f32
// CHECK-NEXT:      %[[DEN:.+]] = arith.addf %[[ONE]], %[[EXP]] : f32
// CHECK-NEXT:      %[[S:.+]] = arith.divf %[[XW]], %[[DEN]] : f32
// CHECK-NEXT:      %[[R:.+]] = arith.truncf %[[S]] : f32 to bf16
// CHECK-NEXT:      linalg.yield %[[R]] : bf16
// CHECK:         return %[[Y]]
func.func @silu_bf16(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %0 = mixprec.silu %x : tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// -----

// silu in f32: no conversions.
// CHECK-LABEL: func.func @silu_f32(
// CHECK:         ^bb0(%[[XI:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[NEG:.+]] = arith.negf %[[XI]] : f32
// CHECK-NEXT:      %[[EXP:.+]] = math.exp %[[NEG]] : f32
// CHECK-NEXT:      %[[DEN:.+]] = arith.addf %[[ONE]], %[[EXP]] : f32
// CHECK-NEXT:      %[[S:.+]] = arith.divf %[[XI]], %[[DEN]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
func.func @silu_f32(%x: tensor<7xf32>) -> tensor<7xf32> {
  %0 = mixprec.silu %x : tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

// abs: math.absf on the widened element (exact, so the one rounding back
// to bf16 changes nothing).
// CHECK-LABEL: func.func @abs_bf16(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4x8xbf16>)
// CHECK:         %[[Y:.+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4x8xbf16>) outs(%{{.+}} : tensor<4x8xbf16>)
// CHECK-NEXT:    ^bb0(%[[XI:.+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT:      %[[XW:.+]] = arith.extf %[[XI]] : bf16 to f32
// CHECK-NEXT:      %[[A:.+]] = math.absf %[[XW]] : f32
// CHECK-NEXT:      %[[R:.+]] = arith.truncf %[[A]] : f32 to bf16
// CHECK-NEXT:      linalg.yield %[[R]] : bf16
// CHECK:         return %[[Y]]
func.func @abs_bf16(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %0 = mixprec.abs %x : tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// -----

// where: arith.select of the widened elements, the mask's i1 as it is; one
// rounding back to f16 (exact: the chosen element was f16).
// CHECK-LABEL: func.func @where_f16(
// CHECK-SAME:    %[[C:[^:]+]]: tensor<4x8xi1>, %[[X:[^:]+]]: tensor<4x8xf16>, %[[Y:[^:]+]]: tensor<4x8xf16>)
// CHECK:         %[[W:.+]] = linalg.generic {{.*}} ins(%[[C]], %[[X]], %[[Y]] : tensor<4x8xi1>, tensor<4x8xf16>, tensor<4x8xf16>) outs(%{{.+}} : tensor<4x8xf16>)
// CHECK-NEXT:    ^bb0(%[[CI:.+]]: i1, %[[XI:.+]]: f16, %[[YI:.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT:      %[[XW:.+]] = arith.extf %[[XI]] : f16 to f32
// CHECK-NEXT:      %[[YW:.+]] = arith.extf %[[YI]] : f16 to f32
// CHECK-NEXT:      %[[S:.+]] = arith.select %[[CI]], %[[XW]], %[[YW]] : f32
// CHECK-NEXT:      %[[R:.+]] = arith.truncf %[[S]] : f32 to f16
// CHECK-NEXT:      linalg.yield %[[R]] : f16
// CHECK:         return %[[W]]
func.func @where_f16(%c: tensor<4x8xi1>, %x: tensor<4x8xf16>, %y: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %0 = mixprec.where %c, %x, %y : tensor<4x8xi1>, tensor<4x8xf16>, tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

// logical_not: an xor of each i1 with true.
// CHECK-LABEL: func.func @logical_not(
// CHECK-SAME:    %[[P:[^:]+]]: tensor<8x16xi1>)
// CHECK:         %[[K:.+]] = linalg.generic {{.*}} ins(%[[P]] : tensor<8x16xi1>) outs(%{{.+}} : tensor<8x16xi1>)
// CHECK-NEXT:    ^bb0(%[[PI:.+]]: i1, %{{.+}}: i1):
// CHECK-NEXT:      %[[TRUE:.+]] = arith.constant true
// CHECK-NEXT:      %[[NOT:.+]] = arith.xori %[[PI]], %[[TRUE]] : i1
// CHECK-NEXT:      linalg.yield %[[NOT]] : i1
// CHECK:         return %[[K]]
func.func @logical_not(%padding: tensor<8x16xi1>) -> tensor<8x16xi1> {
  %0 = mixprec.logical_not %padding : tensor<8x16xi1>
  return %0 : tensor<8x16xi1>
}

// -----

// where with a constant mask and mixed values: the mask becomes an
// arith.constant of i1, the bf16 value is widened, the f32 result is not
// rounded.
// CHECK-LABEL: func.func @where_constant_mask(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x2xbf16>, %[[Y:[^:]+]]: tensor<2x2xf32>)
// CHECK:         %[[M:.+]] = arith.constant dense<{{\[}}[true, false], [false, true]]> : tensor<2x2xi1>
// CHECK:         linalg.generic {{.*}} ins(%[[M]], %[[X]], %[[Y]] : tensor<2x2xi1>, tensor<2x2xbf16>, tensor<2x2xf32>) outs(%{{.+}} : tensor<2x2xf32>)
// CHECK-NEXT:    ^bb0(%[[CI:.+]]: i1, %[[XI:.+]]: bf16, %[[YI:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[XW:.+]] = arith.extf %[[XI]] : bf16 to f32
// CHECK-NEXT:      %[[S:.+]] = arith.select %[[CI]], %[[XW]], %[[YI]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
func.func @where_constant_mask(%x: tensor<2x2xbf16>, %y: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %m = mixprec.constant dense<[[true, false], [false, true]]> : tensor<2x2xi1>
  %0 = mixprec.where %m, %x, %y : tensor<2x2xi1>, tensor<2x2xbf16>, tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// clamp: maximumf then minimumf with the f32 bounds on the widened element;
// both propagate NaN, as torch.clamp.
// CHECK-LABEL: func.func @clamp_bf16(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4x8xbf16>)
// CHECK:         %[[Y:.+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4x8xbf16>) outs(%{{.+}} : tensor<4x8xbf16>)
// CHECK-NEXT:    ^bb0(%[[XI:.+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT:      %[[XW:.+]] = arith.extf %[[XI]] : bf16 to f32
// CHECK-NEXT:      %[[LO:.+]] = arith.constant -5.000000e-01 : f32
// CHECK-NEXT:      %[[A:.+]] = arith.maximumf %[[XW]], %[[LO]] : f32
// CHECK-NEXT:      %[[HI:.+]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:      %[[B:.+]] = arith.minimumf %[[A]], %[[HI]] : f32
// CHECK-NEXT:      %[[R:.+]] = arith.truncf %[[B]] : f32 to bf16
// CHECK-NEXT:      linalg.yield %[[R]] : bf16
// CHECK:         return %[[Y]]
func.func @clamp_bf16(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %0 = mixprec.clamp %x {min = -0.5 : f64, max = 2.0 : f64} : tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// -----

// clamp with only min: one maximumf, in f32 without casts.
// CHECK-LABEL: func.func @clamp_min_f32(
// CHECK:         ^bb0(%[[XI:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[LO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[A:.+]] = arith.maximumf %[[XI]], %[[LO]] : f32
// CHECK-NEXT:      linalg.yield %[[A]] : f32
func.func @clamp_min_f32(%x: tensor<7xf32>) -> tensor<7xf32> {
  %0 = mixprec.clamp %x {min = 0.0 : f64} : tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

// A one-to-one op: its scalar op on the widened elements.
// CHECK-LABEL: func.func @exp_f16(
// CHECK:         ^bb0(%[[XI:.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT:      %[[XW:.+]] = arith.extf %[[XI]] : f16 to f32
// CHECK-NEXT:      %[[E:.+]] = math.exp %[[XW]] : f32
// CHECK-NEXT:      %[[R:.+]] = arith.truncf %[[E]] : f32 to f16
// CHECK-NEXT:      linalg.yield %[[R]] : f16
func.func @exp_f16(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %0 = mixprec.exp %x : tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

// A binary one-to-one op with mixed operands: the f16 one is widened, the
// f32 result needs no rounding.
// CHECK-LABEL: func.func @add_f16_f32(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<4x8xf16>, %[[B:[^:]+]]: tensor<4x8xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<4x8xf16>, tensor<4x8xf32>) outs(%{{.+}} : tensor<4x8xf32>)
// CHECK-NEXT:    ^bb0(%[[AI:.+]]: f16, %[[BI:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[AW:.+]] = arith.extf %[[AI]] : f16 to f32
// CHECK-NEXT:      %[[S:.+]] = arith.addf %[[AW]], %[[BI]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
func.func @add_f16_f32(%a: tensor<4x8xf16>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = mixprec.add %a, %b : tensor<4x8xf16>, tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
