// RUN: mixprec-opt %s -split-input-file --convert-mixprec-to-linalg | FileCheck %s
// RUN: mixprec-opt %s -split-input-file --convert-mixprec-to-linalg | FileCheck %s --check-prefix=ROUND

// The backward ops: 16-bit operands are widened as they are read, sums and
// statistics are f32, and each 16-bit result is rounded exactly once (the
// ROUND prefix: one truncf per 16-bit result, none anywhere else).

// relu_grad: input <= 0 (ordered: NaN passes the gradient) selects 0.

// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// ROUND-LABEL: func.func @relu_grad_f16(
// ROUND-COUNT-1: arith.truncf
// ROUND-NOT: arith.truncf
// CHECK-LABEL: func.func @relu_grad_f16(
// CHECK-SAME: %[[G:[^:]+]]: tensor<4x8xf16>, %[[X:[^:]+]]: tensor<4x8xf16>)
// CHECK: %[[DX:.+]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[G]], %[[X]] : tensor<4x8xf16>, tensor<4x8xf16>) outs(%{{.+}} : tensor<4x8xf16>)
// CHECK: ^bb0(%[[GI:.+]]: f16, %[[XI:.+]]: f16, %{{.+}}: f16):
// CHECK: %[[GW:.+]] = arith.extf %[[GI]] : f16 to f32
// CHECK: %[[XW:.+]] = arith.extf %[[XI]] : f16 to f32
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[OFF:.+]] = arith.cmpf ole, %[[XW]], %[[ZERO]] : f32
// CHECK: %[[SEL:.+]] = arith.select %[[OFF]], %[[ZERO]], %[[GW]] : f32
// CHECK: %[[R:.+]] = arith.truncf %[[SEL]] : f32 to f16
// CHECK: linalg.yield %[[R]] : f16
// CHECK: return %[[DX]]
func.func @relu_grad_f16(%g: tensor<4x8xf16>, %x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %0 = mixprec.relu_grad %g, %x : tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

// gelu_grad (erf): grad * (cdf + x * pdf), in f32, one rounding to bf16.

// ROUND-LABEL: func.func @gelu_grad_erf_bf16(
// ROUND-COUNT-1: arith.truncf
// ROUND-NOT: arith.truncf
// CHECK-LABEL: func.func @gelu_grad_erf_bf16(
// CHECK: ^bb0(%[[GI:.+]]: bf16, %[[XI:.+]]: bf16, %{{.+}}: bf16):
// CHECK: %[[GW:.+]] = arith.extf %[[GI]] : bf16 to f32
// CHECK: %[[XW:.+]] = arith.extf %[[XI]] : bf16 to f32
// CHECK: %[[SQ:.+]] = arith.mulf %[[XW]], %[[XW]] : f32
// CHECK: %[[C:.+]] = arith.constant 0.707106769 : f32
// CHECK: %[[S:.+]] = arith.mulf %[[XW]], %[[C]] : f32
// CHECK: %[[ERF:.+]] = math.erf %[[S]] : f32
// CHECK: %[[CDF:.+]] = arith.mulf %{{.+}}, %{{.+}} : f32
// CHECK: arith.constant -5.000000e-01 : f32
// CHECK: %[[E:.+]] = math.exp %{{.+}} : f32
// CHECK: arith.constant 0.398942292 : f32
// CHECK: %[[PDF:.+]] = arith.mulf %{{.+}}, %[[E]] : f32
// CHECK: %[[XPDF:.+]] = arith.mulf %[[XW]], %[[PDF]] : f32
// CHECK: %[[D:.+]] = arith.addf %[[CDF]], %[[XPDF]] : f32
// CHECK: %[[DX:.+]] = arith.mulf %[[GW]], %[[D]] : f32
// CHECK: arith.truncf %[[DX]] : f32 to bf16
func.func @gelu_grad_erf_bf16(%g: tensor<4x8xbf16>, %x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %0 = mixprec.gelu_grad %g, %x : tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// -----

// gelu_grad (tanh): no rounding in f32.

// CHECK-LABEL: func.func @gelu_grad_tanh(
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf
// CHECK: arith.constant 4.471500e-02 : f32
// CHECK: arith.constant 0.797884583 : f32
// CHECK: %[[T:.+]] = math.tanh %{{.+}} : f32
// CHECK: arith.constant 1.341450e-01 : f32
// CHECK: arith.mulf %[[T]], %[[T]] : f32
// CHECK: return
func.func @gelu_grad_tanh(%g: tensor<4x8xf32>, %x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = mixprec.gelu_grad %g, %x {approximate = #mixprec<gelu_approximation tanh>} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// softmax_grad: an f32 row sum of g * y, then y * (g - sum), rounded once.

// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// ROUND-LABEL: func.func @softmax_grad_f16(
// ROUND-COUNT-1: arith.truncf
// ROUND-NOT: arith.truncf
// CHECK-LABEL: func.func @softmax_grad_f16(
// CHECK-SAME: %[[G:[^:]+]]: tensor<4x8xf16>, %[[Y:[^:]+]]: tensor<4x8xf16>)
// CHECK: %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<4xf32>)
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[G]], %[[Y]] : tensor<4x8xf16>, tensor<4x8xf16>) outs(%[[INIT]] : tensor<4xf32>)
// CHECK: ^bb0(%[[GI:.+]]: f16, %[[YI:.+]]: f16, %[[ACC:.+]]: f32):
// CHECK: %[[GW:.+]] = arith.extf %[[GI]] : f16 to f32
// CHECK: %[[YW:.+]] = arith.extf %[[YI]] : f16 to f32
// CHECK: %[[P:.+]] = arith.mulf %[[GW]], %[[YW]] : f32
// CHECK: arith.addf %[[ACC]], %[[P]] : f32
// CHECK: %[[DX:.+]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]], #[[$ROW]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[G]], %[[Y]], %[[SUM]] : tensor<4x8xf16>, tensor<4x8xf16>, tensor<4xf32>) outs(%{{.+}} : tensor<4x8xf16>)
// CHECK: ^bb0(%[[GI:.+]]: f16, %[[YI:.+]]: f16, %[[S:.+]]: f32, %{{.+}}: f16):
// CHECK: %[[GW:.+]] = arith.extf %[[GI]] : f16 to f32
// CHECK: %[[YW:.+]] = arith.extf %[[YI]] : f16 to f32
// CHECK: %[[D:.+]] = arith.subf %[[GW]], %[[S]] : f32
// CHECK: %[[M:.+]] = arith.mulf %[[YW]], %[[D]] : f32
// CHECK: %[[R:.+]] = arith.truncf %[[M]] : f32 to f16
// CHECK: linalg.yield %[[R]] : f16
// CHECK: return %[[DX]]
func.func @softmax_grad_f16(%g: tensor<4x8xf16>, %y: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %0 = mixprec.softmax_grad %g, %y {axis = 1 : i64} : tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

// log_softmax_grad along a middle axis: sum(g) keeps dims 0 and 2;
// g - exp(y) * sum.

// CHECK-DAG: #[[$ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$KEPT:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @log_softmax_grad_middle_axis(
// CHECK-SAME: %[[G:[^:]+]]: tensor<4x8x3xf32>, %[[Y:[^:]+]]: tensor<4x8x3xf32>)
// CHECK-NOT: arith.truncf
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$KEPT]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[G]] : tensor<4x8x3xf32>) outs(%{{.+}} : tensor<4x3xf32>)
// CHECK: arith.addf
// CHECK: %[[DX:.+]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$ID3]], #[[$KEPT]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[G]], %[[Y]], %[[SUM]] : tensor<4x8x3xf32>, tensor<4x8x3xf32>, tensor<4x3xf32>)
// CHECK: ^bb0(%[[GI:.+]]: f32, %[[YI:.+]]: f32, %[[S:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[E:.+]] = math.exp %[[YI]] : f32
// CHECK: %[[P:.+]] = arith.mulf %[[E]], %[[S]] : f32
// CHECK: %[[R:.+]] = arith.subf %[[GI]], %[[P]] : f32
// CHECK: linalg.yield %[[R]] : f32
// CHECK: return %[[DX]]
func.func @log_softmax_grad_middle_axis(%g: tensor<4x8x3xf32>, %y: tensor<4x8x3xf32>) -> tensor<4x8x3xf32> {
  %0 = mixprec.log_softmax_grad %g, %y {axis = 1 : i64} : tensor<4x8x3xf32>
  return %0 : tensor<4x8x3xf32>
}

// -----

// softmax_cross_entropy_grad (mean): f32 row max and sum of exp(x - max),
// then grad / N * (softmax - one_hot) with the 0-d grad read through ().

// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$SCALAR:.+]] = affine_map<(d0, d1) -> ()>
// ROUND-LABEL: func.func @ce_grad_f16(
// ROUND-COUNT-1: arith.truncf
// ROUND-NOT: arith.truncf
// CHECK-LABEL: func.func @ce_grad_f16(
// CHECK-SAME: %[[G:[^:]+]]: tensor<f16>, %[[L:[^:]+]]: tensor<4x3xf16>, %[[LAB:[^:]+]]: tensor<4xi32>)
// CHECK: %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MAX:.+]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[L]] : tensor<4x3xf16>)
// CHECK: arith.maximumf
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[L]], %[[MAX]] : tensor<4x3xf16>, tensor<4xf32>)
// CHECK: math.exp
// CHECK: %[[DX:.+]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]], #[[$ROW]], #[[$ROW]], #[[$SCALAR]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[L]], %[[MAX]], %[[SUM]], %[[LAB]], %[[G]] : tensor<4x3xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<f16>) outs(%{{.+}} : tensor<4x3xf16>)
// CHECK: ^bb0(%[[XI:.+]]: f16, %[[M:.+]]: f32, %[[S:.+]]: f32, %[[LABI:.+]]: i32, %[[GI:.+]]: f16, %{{.+}}: f16):
// CHECK: %[[GW:.+]] = arith.extf %[[GI]] : f16 to f32
// CHECK: %[[P:.+]] = arith.divf %{{.+}}, %[[S]] : f32
// CHECK: %[[IDX:.+]] = arith.index_cast %[[LABI]] : i32 to index
// CHECK: %[[COL:.+]] = linalg.index 1 : index
// CHECK: %[[HIT:.+]] = arith.cmpi eq, %[[IDX]], %[[COL]] : index
// CHECK: %[[ONEHOT:.+]] = arith.select %[[HIT]]
// CHECK: %[[N:.+]] = arith.constant 4.000000e+00 : f32
// CHECK: %[[SCALE:.+]] = arith.divf %[[GW]], %[[N]] : f32
// CHECK: %[[D:.+]] = arith.subf %[[P]], %[[ONEHOT]] : f32
// CHECK: %[[R:.+]] = arith.mulf %[[SCALE]], %[[D]] : f32
// CHECK: arith.truncf %[[R]] : f32 to f16
// CHECK: return %[[DX]]
func.func @ce_grad_f16(%g: tensor<f16>, %l: tensor<4x3xf16>, %lab: tensor<4xi32>) -> tensor<4x3xf16> {
  %0 = mixprec.softmax_cross_entropy_grad %g, %l, %lab : tensor<4x3xf16>, tensor<4xi32>
  return %0 : tensor<4x3xf16>
}

// -----

// With reduction = sum there is no division by N.

// CHECK-LABEL: func.func @ce_grad_sum(
// CHECK: %[[P:.+]] = arith.divf %{{.+}}, %{{.+}} : f32
// CHECK-NOT: arith.divf
// CHECK: arith.subf %[[P]], %{{.+}} : f32
// CHECK: return
func.func @ce_grad_sum(%g: tensor<f32>, %l: tensor<4x3xf32>, %lab: tensor<4xi64>) -> tensor<4x3xf32> {
  %0 = mixprec.softmax_cross_entropy_grad %g, %l, %lab {reduction = #mixprec<reduction sum>} : tensor<4x3xf32>, tensor<4xi64>
  return %0 : tensor<4x3xf32>
}

// -----

// layer_norm_grad over the last dim of bf16: f32 mean and 1/std (two-pass),
// per-row sums of g * s and g * s * xhat, dx rounded once; dscale and dbias
// are f32 sums over the batch dims (0, 1), each rounded once.

// CHECK-DAG: #[[$ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$PARAM:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// ROUND-LABEL: func.func @layer_norm_grad_bf16(
// ROUND-COUNT-3: arith.truncf
// ROUND-NOT: arith.truncf
// CHECK-LABEL: func.func @layer_norm_grad_bf16(
// CHECK-SAME: %[[G:[^:]+]]: tensor<2x4x8xbf16>, %[[X:[^:]+]]: tensor<2x4x8xbf16>, %[[S:[^:]+]]: tensor<8xbf16>)
// CHECK: %[[SUMX:.+]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$ROW]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]] : tensor<2x4x8xbf16>) outs(%{{.+}} : tensor<2x4xf32>)
// CHECK: %[[MEAN:.+]] = linalg.generic {{.*}} ins(%[[SUMX]] : tensor<2x4xf32>)
// CHECK: %[[SQ:.+]] = linalg.generic {{.*}} ins(%[[X]], %[[MEAN]] : tensor<2x4x8xbf16>, tensor<2x4xf32>)
// CHECK: %[[RSTD:.+]] = linalg.generic {{.*}} ins(%[[SQ]] : tensor<2x4xf32>)
// CHECK: math.sqrt
// CHECK: %[[SUMDY:.+]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$PARAM]], #[[$ROW]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[G]], %[[S]] : tensor<2x4x8xbf16>, tensor<8xbf16>) outs(%{{.+}} : tensor<2x4xf32>)
// CHECK: %[[SUMDYX:.+]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$PARAM]], #[[$ID3]], #[[$ROW]], #[[$ROW]], #[[$ROW]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[G]], %[[S]], %[[X]], %[[MEAN]], %[[RSTD]] : {{.*}}) outs(%{{.+}} : tensor<2x4xf32>)
// CHECK: %[[DX:.+]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$PARAM]], #[[$ID3]], #[[$ROW]], #[[$ROW]], #[[$ROW]], #[[$ROW]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[G]], %[[S]], %[[X]], %[[MEAN]], %[[RSTD]], %[[SUMDY]], %[[SUMDYX]] : {{.*}}) outs(%{{.+}} : tensor<2x4x8xbf16>)
// CHECK: arith.constant 8.000000e+00 : f32
// CHECK: arith.truncf %{{.+}} : f32 to bf16
// CHECK: %[[DS:.+]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$ID3]], #[[$ROW]], #[[$ROW]], #[[$PARAM]]], iterator_types = ["reduction", "reduction", "parallel"]} ins(%[[G]], %[[X]], %[[MEAN]], %[[RSTD]] : {{.*}}) outs(%{{.+}} : tensor<8xf32>)
// CHECK: %[[DB:.+]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$PARAM]]], iterator_types = ["reduction", "reduction", "parallel"]} ins(%[[G]] : tensor<2x4x8xbf16>) outs(%{{.+}} : tensor<8xf32>)
// CHECK: %[[DSR:.+]] = linalg.generic {{.*}} ins(%[[DS]] : tensor<8xf32>) outs(%{{.+}} : tensor<8xbf16>)
// CHECK: %[[DBR:.+]] = linalg.generic {{.*}} ins(%[[DB]] : tensor<8xf32>) outs(%{{.+}} : tensor<8xbf16>)
// CHECK: return %[[DX]], %[[DSR]], %[[DBR]]
func.func @layer_norm_grad_bf16(%g: tensor<2x4x8xbf16>, %x: tensor<2x4x8xbf16>, %s: tensor<8xbf16>) -> (tensor<2x4x8xbf16>, tensor<8xbf16>, tensor<8xbf16>) {
  %0:3 = mixprec.layer_norm_grad %g, %x scale %s {axis = 2 : i64} : tensor<2x4x8xbf16>, tensor<8xbf16>
  return %0#0, %0#1, %0#2 : tensor<2x4x8xbf16>, tensor<8xbf16>, tensor<8xbf16>
}
