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

// -----

// embedding_grad: for every table row v, an f32 reduction over the index
// positions of the grad rows whose index is v; one rounding to bf16.

// CHECK-DAG: #[[$EG:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d3, d1)>
// CHECK-DAG: #[[$EI:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-DAG: #[[$ET:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// ROUND-LABEL: func.func @embedding_grad_bf16(
// ROUND-COUNT-1: arith.truncf
// ROUND-NOT: arith.truncf
// CHECK-LABEL: func.func @embedding_grad_bf16(
// CHECK-SAME: %[[G:[^:]+]]: tensor<2x3x4xbf16>, %[[I:[^:]+]]: tensor<2x3xi32>)
// CHECK: %[[ZERO:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<5x4xf32>)
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$EG]], #[[$EI]], #[[$ET]]], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[G]], %[[I]] : tensor<2x3x4xbf16>, tensor<2x3xi32>) outs(%[[ZERO]] : tensor<5x4xf32>)
// CHECK: ^bb0(%[[GI:.+]]: bf16, %[[II:.+]]: i32, %[[ACC:.+]]: f32):
// CHECK: %[[GW:.+]] = arith.extf %[[GI]] : bf16 to f32
// CHECK: %[[IDX:.+]] = arith.index_cast %[[II]] : i32 to index
// CHECK: %[[ROW:.+]] = linalg.index 0 : index
// CHECK: %[[HIT:.+]] = arith.cmpi eq, %[[IDX]], %[[ROW]] : index
// CHECK: %[[ADD:.+]] = arith.addf %[[ACC]], %[[GW]] : f32
// CHECK: %[[SEL:.+]] = arith.select %[[HIT]], %[[ADD]], %[[ACC]] : f32
// CHECK: linalg.yield %[[SEL]] : f32
// CHECK: %[[R:.+]] = linalg.generic {{.+}} ins(%[[SUM]] : tensor<5x4xf32>) outs(%{{.+}} : tensor<5x4xbf16>)
// CHECK: arith.truncf %{{.+}} : f32 to bf16
// CHECK: return %[[R]]
func.func @embedding_grad_bf16(%g: tensor<2x3x4xbf16>, %i: tensor<2x3xi32>) -> tensor<5x4xbf16> {
  %0 = mixprec.embedding_grad %g, %i {num_embeddings = 5 : i64} : tensor<2x3x4xbf16>, tensor<2x3xi32>
  return %0 : tensor<5x4xbf16>
}

// -----

// embedding_grad in f32: no conversion at all.

// CHECK-LABEL: func.func @embedding_grad_f32(
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf
// CHECK: arith.index_cast %{{.+}} : i64 to index
// CHECK: return
func.func @embedding_grad_f32(%g: tensor<7x4xf32>, %i: tensor<7xi64>) -> tensor<3x4xf32> {
  %0 = mixprec.embedding_grad %g, %i {num_embeddings = 3 : i64} : tensor<7x4xf32>, tensor<7xi64>
  return %0 : tensor<3x4xf32>
}

// -----

// conv2d_grad_input (stride 2, padding 1, groups 2): grad is spread with
// stride 2 into a zero [N, O, H + 2, W + 2] tensor at offset
// d * (k - 1) - p = 1; then one f32 reduction over (o, kh, kw) per group
// against the weight read in place, and one rounding to f16.

// CHECK-DAG: #[[$Q:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 - d6 + 2, d4 - d7 + 2)>
// CHECK-DAG: #[[$W:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d5, d2, d6, d7)>
// CHECK-DAG: #[[$DX:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// ROUND-LABEL: func.func @conv2d_grad_input_f16(
// ROUND-COUNT-1: arith.truncf
// ROUND-NOT: arith.truncf
// CHECK-LABEL: func.func @conv2d_grad_input_f16(
// CHECK-SAME: %[[G:[^:]+]]: tensor<2x4x4x3xf16>, %[[W:[^:]+]]: tensor<4x1x3x3xf16>)
// CHECK: %[[ZERO:.+]] = linalg.fill ins(%{{.+}} : f16) outs(%{{.+}} : tensor<2x4x10x8xf16>)
// CHECK: %[[ROWS:.+]] = tensor.extract_slice %[[G]][0, 0, 0, 0] [2, 4, 4, 3] [1, 1, 1, 1]
// CHECK: %[[SPREAD:.+]] = tensor.insert_slice %[[ROWS]] into %[[ZERO]][0, 0, 1, 1] [2, 4, 4, 3] [1, 1, 2, 2] : tensor<2x4x4x3xf16> into tensor<2x4x10x8xf16>
// CHECK: %[[Q5:.+]] = tensor.expand_shape %[[SPREAD]] {{\[\[}}0], [1, 2], [3], [4]] output_shape [2, 2, 2, 10, 8]
// CHECK: %[[W5:.+]] = tensor.expand_shape %[[W]] {{\[\[}}0, 1], [2], [3], [4]] output_shape [2, 2, 1, 3, 3]
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$Q]], #[[$W]], #[[$DX]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[Q5]], %[[W5]] : tensor<2x2x2x10x8xf16>, tensor<2x2x1x3x3xf16>) outs(%{{.+}} : tensor<2x2x1x8x6xf32>)
// CHECK: ^bb0(%[[QI:.+]]: f16, %[[WI:.+]]: f16, %[[ACC:.+]]: f32):
// CHECK: %[[QW:.+]] = arith.extf %[[QI]] : f16 to f32
// CHECK: %[[WW:.+]] = arith.extf %[[WI]] : f16 to f32
// CHECK: %[[P:.+]] = arith.mulf %[[QW]], %[[WW]] : f32
// CHECK: %[[S:.+]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK: linalg.yield %[[S]] : f32
// CHECK: %[[R:.+]] = linalg.generic {{.+}} ins(%[[SUM]] : tensor<2x2x1x8x6xf32>) outs(%{{.+}} : tensor<2x2x1x8x6xf16>)
// CHECK: arith.truncf %{{.+}} : f32 to f16
// CHECK: %[[DXR:.+]] = tensor.collapse_shape %[[R]] {{\[\[}}0], [1, 2], [3], [4]] : tensor<2x2x1x8x6xf16> into tensor<2x2x8x6xf16>
// CHECK: return %[[DXR]]
func.func @conv2d_grad_input_f16(%g: tensor<2x4x4x3xf16>, %w: tensor<4x1x3x3xf16>) -> tensor<2x2x8x6xf16> {
  %0 = mixprec.conv2d_grad_input %g, %w {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, groups = 2 : i64, input_shape = array<i64: 2, 2, 8, 6>} : tensor<2x4x4x3xf16>, tensor<4x1x3x3xf16>
  return %0 : tensor<2x2x8x6xf16>
}

// -----

// conv2d_grad_input: padding beyond the dilated kernel's reach (1x1 kernel,
// padding 1): the first and last outputs reach only padding and are left out.

// CHECK-LABEL: func.func @conv2d_grad_input_outer_padding(
// CHECK-SAME: %[[G:[^:]+]]: tensor<1x1x4x4xf32>
// CHECK-NOT: arith.truncf
// CHECK: %[[ROWS:.+]] = tensor.extract_slice %[[G]][0, 0, 1, 1] [1, 1, 2, 2] [1, 1, 1, 1]
// CHECK: tensor.insert_slice %[[ROWS]] into %{{.+}}[0, 0, 1, 1] [1, 1, 2, 2] [1, 1, 2, 2] : tensor<1x1x2x2xf32> into tensor<1x1x5x5xf32>
// CHECK: return
func.func @conv2d_grad_input_outer_padding(%g: tensor<1x1x4x4xf32>, %w: tensor<1x1x1x1xf32>) -> tensor<1x1x5x5xf32> {
  %0 = mixprec.conv2d_grad_input %g, %w {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, input_shape = array<i64: 1, 1, 5, 5>} : tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>
  return %0 : tensor<1x1x5x5xf32>
}

// -----

// conv2d_grad_weight (stride 2, padding 1, groups 2): the input zero-padded,
// one f32 reduction over (n, oh, ow) per group with the strided input map,
// one rounding to bf16.

// CHECK-DAG: #[[$GM:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d0, d1, d6, d7)>
// CHECK-DAG: #[[$XM:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d0, d2, d6 * 2 + d3, d7 * 2 + d4)>
// CHECK-DAG: #[[$DW:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// ROUND-LABEL: func.func @conv2d_grad_weight_bf16(
// ROUND-COUNT-1: arith.truncf
// ROUND-NOT: arith.truncf
// CHECK-LABEL: func.func @conv2d_grad_weight_bf16(
// CHECK-SAME: %[[G:[^:]+]]: tensor<2x4x4x3xbf16>, %[[X:[^:]+]]: tensor<2x2x8x6xbf16>)
// CHECK: %[[PAD:.+]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: } : tensor<2x2x8x6xbf16> to tensor<2x2x10x8xbf16>
// CHECK: %[[X5:.+]] = tensor.expand_shape %[[PAD]] {{\[\[}}0], [1, 2], [3], [4]] output_shape [2, 2, 1, 10, 8]
// CHECK: %[[G5:.+]] = tensor.expand_shape %[[G]] {{\[\[}}0], [1, 2], [3], [4]] output_shape [2, 2, 2, 4, 3]
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$GM]], #[[$XM]], #[[$DW]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[G5]], %[[X5]] : tensor<2x2x2x4x3xbf16>, tensor<2x2x1x10x8xbf16>) outs(%{{.+}} : tensor<2x2x1x3x3xf32>)
// CHECK: arith.extf %{{.+}} : bf16 to f32
// CHECK: arith.extf %{{.+}} : bf16 to f32
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[R:.+]] = linalg.generic {{.+}} ins(%[[SUM]] : tensor<2x2x1x3x3xf32>) outs(%{{.+}} : tensor<2x2x1x3x3xbf16>)
// CHECK: arith.truncf %{{.+}} : f32 to bf16
// CHECK: %[[DWR:.+]] = tensor.collapse_shape %[[R]] {{\[\[}}0, 1], [2], [3], [4]] : tensor<2x2x1x3x3xbf16> into tensor<4x1x3x3xbf16>
// CHECK: return %[[DWR]]
func.func @conv2d_grad_weight_bf16(%g: tensor<2x4x4x3xbf16>, %x: tensor<2x2x8x6xbf16>) -> tensor<4x1x3x3xbf16> {
  %0 = mixprec.conv2d_grad_weight %g, %x {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, groups = 2 : i64, weight_shape = array<i64: 4, 1, 3, 3>} : tensor<2x4x4x3xbf16>, tensor<2x2x8x6xbf16>
  return %0 : tensor<4x1x3x3xbf16>
}

// -----

// max_pool2d_grad (2x1 kernel, stride 2): first the row-major argmax of every
// window (PyTorch's scan: taken when none yet, greater, or NaN; padding and
// out-of-range reads are masked), then for every input element the f32 sum
// of the gradients of the windows whose argmax it is; one rounding to f16.

// ROUND-LABEL: func.func @max_pool2d_grad_f16(
// ROUND-COUNT-1: arith.truncf
// ROUND-NOT: arith.truncf
// CHECK-LABEL: func.func @max_pool2d_grad_f16(
// CHECK-SAME: %[[G:[^:]+]]: tensor<1x2x2x2xf16>, %[[X:[^:]+]]: tensor<1x2x4x4xf16>)
// CHECK: %[[ARG:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%{{.+}} : tensor<1x2x2x2xi64>)
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: arith.constant -1 : i64
// CHECK: %[[X0:.+]] = tensor.extract %[[X]][%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}] : tensor<1x2x4x4xf16>
// CHECK: %[[XW0:.+]] = arith.extf %[[X0]] : f16 to f32
// CHECK: arith.cmpf ogt, %[[XW0]], %{{.+}} : f32
// CHECK: arith.cmpf uno, %[[XW0]], %[[XW0]] : f32
// CHECK: tensor.extract %[[X]]
// CHECK: %[[K1:.+]] = arith.select %{{.+}}, %c1_i64, %{{.+}} : i64
// CHECK-NEXT: linalg.yield %[[K1]] : i64
// CHECK: %[[DX:.+]] = linalg.generic {{.+}} outs(%{{.+}} : tensor<1x2x4x4xf16>)
// CHECK: arith.divsi
// CHECK: arith.remsi
// CHECK: %[[A0:.+]] = tensor.extract %[[ARG]][%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}] : tensor<1x2x2x2xi64>
// CHECK: arith.cmpi eq, %[[A0]], %c0_i64 : i64
// CHECK: %[[G0:.+]] = tensor.extract %[[G]][%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}] : tensor<1x2x2x2xf16>
// CHECK: arith.extf %[[G0]] : f16 to f32
// CHECK: %[[A1:.+]] = tensor.extract %[[ARG]]
// CHECK: arith.cmpi eq, %[[A1]], %c1_i64 : i64
// CHECK: %[[S:.+]] = arith.addf %{{.+}}, %{{.+}} : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[S]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
// CHECK: return %[[DX]]
func.func @max_pool2d_grad_f16(%g: tensor<1x2x2x2xf16>, %x: tensor<1x2x4x4xf16>) -> tensor<1x2x4x4xf16> {
  %0 = mixprec.max_pool2d_grad %g, %x {kernel = array<i64: 2, 1>, stride = array<i64: 2, 2>} : tensor<1x2x2x2xf16>, tensor<1x2x4x4xf16>
  return %0 : tensor<1x2x4x4xf16>
}

// -----

// avg_pool2d_grad (2x2 kernel, stride 1, padding 1): the f32 sum of the
// gradients of the windows that hold each element, divided by 4 (padding
// counts), one rounding to bf16. The input only gives the shape.

// ROUND-LABEL: func.func @avg_pool2d_grad_bf16(
// ROUND-COUNT-1: arith.truncf
// ROUND-NOT: arith.truncf
// CHECK-LABEL: func.func @avg_pool2d_grad_bf16(
// CHECK-SAME: %[[G:[^:]+]]: tensor<1x1x4x4xbf16>, %[[X:[^:]+]]: tensor<1x1x3x3xbf16>)
// CHECK-NOT: i64
// CHECK: %[[DX:.+]] = linalg.generic {{.+}} outs(%{{.+}} : tensor<1x1x3x3xbf16>)
// CHECK-COUNT-4: tensor.extract %[[G]]
// CHECK-NOT: tensor.extract
// CHECK: %[[FOUR:.+]] = arith.constant 4.000000e+00 : f32
// CHECK-NEXT: %[[AVG:.+]] = arith.divf %{{.+}}, %[[FOUR]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[AVG]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[R]] : bf16
// CHECK: return %[[DX]]
func.func @avg_pool2d_grad_bf16(%g: tensor<1x1x4x4xbf16>, %x: tensor<1x1x3x3xbf16>) -> tensor<1x1x3x3xbf16> {
  %0 = mixprec.avg_pool2d_grad %g, %x {kernel = array<i64: 2, 2>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>} : tensor<1x1x4x4xbf16>, tensor<1x1x3x3xbf16>
  return %0 : tensor<1x1x3x3xbf16>
}

// -----

// batch_norm_grad ([N, C, H, W], f16): the per-channel mean and 1/std of the
// input in f32 (reductions over N, H and W), the f32 sums of g and g * xhat,
// then dx elementwise; dx, dscale and dbias are each rounded once.

// CHECK-DAG: #[[$ID4:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$CH:.+]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// ROUND-LABEL: func.func @batch_norm_grad_f16(
// ROUND-COUNT-3: arith.truncf
// ROUND-NOT: arith.truncf
// CHECK-LABEL: func.func @batch_norm_grad_f16(
// CHECK-SAME: %[[G:[^:]+]]: tensor<4x3x2x2xf16>, %[[X:[^:]+]]: tensor<4x3x2x2xf16>, %[[S:[^:]+]]: tensor<3xf16>)
// CHECK: %[[XSUM:.+]] = linalg.generic {indexing_maps = [#[[$ID4]], #[[$CH]]], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%[[X]] : tensor<4x3x2x2xf16>) outs(%{{.+}} : tensor<3xf32>)
// CHECK: %[[MEAN:.+]] = linalg.generic {{.+}} ins(%[[XSUM]] : tensor<3xf32>)
// CHECK: arith.constant 1.600000e+01 : f32
// CHECK: %[[SQ:.+]] = linalg.generic {{.+}} ins(%[[X]], %[[MEAN]] : tensor<4x3x2x2xf16>, tensor<3xf32>) outs(%{{.+}} : tensor<3xf32>)
// CHECK: %[[RSTD:.+]] = linalg.generic {{.+}} ins(%[[SQ]] : tensor<3xf32>)
// CHECK: math.sqrt
// CHECK: %[[SUMG:.+]] = linalg.generic {indexing_maps = [#[[$ID4]], #[[$CH]]], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%[[G]] : tensor<4x3x2x2xf16>) outs(%{{.+}} : tensor<3xf32>)
// CHECK: %[[SUMGX:.+]] = linalg.generic {indexing_maps = [#[[$ID4]], #[[$ID4]], #[[$CH]], #[[$CH]], #[[$CH]]], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%[[G]], %[[X]], %[[MEAN]], %[[RSTD]] : tensor<4x3x2x2xf16>, tensor<4x3x2x2xf16>, tensor<3xf32>, tensor<3xf32>) outs(%{{.+}} : tensor<3xf32>)
// CHECK: %[[DX:.+]] = linalg.generic {indexing_maps = [#[[$ID4]], #[[$ID4]], #[[$CH]], #[[$CH]], #[[$CH]], #[[$CH]], #[[$CH]], #[[$ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[G]], %[[X]], %[[S]], %[[MEAN]], %[[RSTD]], %[[SUMG]], %[[SUMGX]] : {{.+}}) outs(%{{.+}} : tensor<4x3x2x2xf16>)
// CHECK: arith.truncf %{{.+}} : f32 to f16
// CHECK: %[[DS:.+]] = linalg.generic {{.+}} ins(%[[SUMGX]] : tensor<3xf32>) outs(%{{.+}} : tensor<3xf16>)
// CHECK: %[[DB:.+]] = linalg.generic {{.+}} ins(%[[SUMG]] : tensor<3xf32>) outs(%{{.+}} : tensor<3xf16>)
// CHECK: return %[[DX]], %[[DS]], %[[DB]]
func.func @batch_norm_grad_f16(%g: tensor<4x3x2x2xf16>, %x: tensor<4x3x2x2xf16>, %s: tensor<3xf16>) -> (tensor<4x3x2x2xf16>, tensor<3xf16>, tensor<3xf16>) {
  %dx, %ds, %db = mixprec.batch_norm_grad %g, %x scale %s : tensor<4x3x2x2xf16>, tensor<3xf16>
  return %dx, %ds, %db : tensor<4x3x2x2xf16>, tensor<3xf16>, tensor<3xf16>
}

// -----

// batch_norm_grad ([N, C], f32): reductions over N only; no conversion.

// CHECK-LABEL: func.func @batch_norm_grad_2d(
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf
// CHECK: iterator_types = ["reduction", "parallel"]
// CHECK: arith.constant 1.000000e-03 : f32
// CHECK: return
func.func @batch_norm_grad_2d(%g: tensor<8x5xf32>, %x: tensor<8x5xf32>, %s: tensor<5xf32>) -> (tensor<8x5xf32>, tensor<5xf32>, tensor<5xf32>) {
  %dx, %ds, %db = mixprec.batch_norm_grad %g, %x scale %s {eps = 1.0e-3 : f64} : tensor<8x5xf32>, tensor<5xf32>
  return %dx, %ds, %db : tensor<8x5xf32>, tensor<5xf32>, tensor<5xf32>
}

// -----

// maximum_grad: one generic per operand, the operands swapped for rhs;
// `self < other` (ordered: NaN keeps the gradient) selects 0, a tie half of
// the gradient.

// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// ROUND-LABEL: func.func @maximum_grad_f16(
// ROUND-COUNT-2: arith.truncf
// ROUND-NOT: arith.truncf
// CHECK-LABEL: func.func @maximum_grad_f16(
// CHECK-SAME: %[[G:[^:]+]]: tensor<4x8xf16>, %[[A:[^:]+]]: tensor<4x8xf16>, %[[B:[^:]+]]: tensor<4x8xf16>)
// CHECK: %[[DA:.+]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]], #[[$ID2]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[G]], %[[A]], %[[B]] : {{.*}})
// CHECK: ^bb0(%[[GI:.+]]: f16, %[[SI:.+]]: f16, %[[OI:.+]]: f16, %{{.+}}: f16):
// CHECK: %[[GW:.+]] = arith.extf %[[GI]] : f16 to f32
// CHECK: %[[SW:.+]] = arith.extf %[[SI]] : f16 to f32
// CHECK: %[[OW:.+]] = arith.extf %[[OI]] : f16 to f32
// CHECK: %[[LOSES:.+]] = arith.cmpf olt, %[[SW]], %[[OW]] : f32
// CHECK: %[[TIED:.+]] = arith.cmpf oeq, %[[SW]], %[[OW]] : f32
// CHECK: %[[HALF:.+]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[SHARE:.+]] = arith.mulf %[[GW]], %[[HALF]] : f32
// CHECK: %[[TIE:.+]] = arith.select %[[TIED]], %[[SHARE]], %[[GW]] : f32
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[SEL:.+]] = arith.select %[[LOSES]], %[[ZERO]], %[[TIE]] : f32
// CHECK: arith.truncf %[[SEL]] : f32 to f16
// CHECK: %[[DB:.+]] = linalg.generic {{.*}} ins(%[[G]], %[[B]], %[[A]] : {{.*}})
// CHECK: arith.cmpf olt
// CHECK: return %[[DA]], %[[DB]]
func.func @maximum_grad_f16(%g: tensor<4x8xf16>, %a: tensor<4x8xf16>, %b: tensor<4x8xf16>) -> (tensor<4x8xf16>, tensor<4x8xf16>) {
  %0:2 = mixprec.maximum_grad %g, %a, %b : tensor<4x8xf16>
  return %0#0, %0#1 : tensor<4x8xf16>, tensor<4x8xf16>
}

// -----

// minimum_grad: the same with `self > other`.

// CHECK-LABEL: func.func @minimum_grad_f32(
// CHECK-NOT: arith.extf
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oeq
// CHECK: return
func.func @minimum_grad_f32(%g: tensor<4xf32>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0:2 = mixprec.minimum_grad %g, %a, %b : tensor<4xf32>
  return %0#0, %0#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// reduce_max_grad (keepdim): an f32 count of the elements equal to their
// row's maximum, then (grad / count) * (x == max), rounded once. The kept
// unit dim of grad and the maximum is read at index 0.

// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$KEEP:.+]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// ROUND-LABEL: func.func @reduce_max_grad_keepdim_f16(
// ROUND-COUNT-1: arith.truncf
// ROUND-NOT: arith.truncf
// CHECK-LABEL: func.func @reduce_max_grad_keepdim_f16(
// CHECK-SAME: %[[G:[^:]+]]: tensor<4x1xf16>, %[[X:[^:]+]]: tensor<4x8xf16>, %[[M:[^:]+]]: tensor<4x1xf16>)
// CHECK: %[[INIT:.+]] = linalg.fill {{.*}} -> tensor<4xf32>
// CHECK: %[[COUNT:.+]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$KEEP]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[M]] : tensor<4x8xf16>, tensor<4x1xf16>) outs(%[[INIT]] : tensor<4xf32>)
// CHECK: arith.cmpf oeq
// CHECK: %[[ONE:.+]] = arith.select
// CHECK: arith.addf %{{.+}}, %[[ONE]] : f32
// CHECK: %[[DX:.+]] = linalg.generic {indexing_maps = [#[[$KEEP]], #[[$ID2]], #[[$KEEP]], #[[$ROW]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[G]], %[[X]], %[[M]], %[[COUNT]] : {{.*}})
// CHECK: ^bb0(%[[GI:.+]]: f16, %{{.+}}: f16, %{{.+}}: f16, %[[CI:.+]]: f32, %{{.+}}: f16):
// CHECK: %[[GW:.+]] = arith.extf %[[GI]] : f16 to f32
// CHECK: %[[IS:.+]] = arith.select
// CHECK: %[[SHARE:.+]] = arith.divf %[[GW]], %[[CI]] : f32
// CHECK: %[[R:.+]] = arith.mulf %[[SHARE]], %[[IS]] : f32
// CHECK: arith.truncf %[[R]] : f32 to f16
// CHECK: return %[[DX]]
func.func @reduce_max_grad_keepdim_f16(%g: tensor<4x1xf16>, %x: tensor<4x8xf16>, %m: tensor<4x1xf16>) -> tensor<4x8xf16> {
  %0 = mixprec.reduce_max_grad %g, %x, %m {dims = array<i64: 1>, keepdim} : tensor<4x1xf16>, tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}
