// RUN: mixprec-opt %s -split-input-file --convert-mixprec-to-linalg | FileCheck %s
// RUN: mixprec-opt %s -split-input-file --convert-mixprec-to-linalg | FileCheck %s --check-prefix=ROUND

// ROUND checks that a 16-bit result is rounded exactly once
// (docs/design.md §4): one truncf per 16-bit result, none anywhere else.

// Numerically stable softmax: an f32 row max (from -inf, NaN-propagating),
// an f32 sum of exp(x - max), and one rounding to f16 at the store.

// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// ROUND-LABEL: func.func @softmax_f16(
// ROUND-NOT: arith.truncf
// ROUND: arith.truncf %{{.+}} : f32 to f16
// ROUND-NOT: arith.truncf
// ROUND: return
// CHECK-LABEL: func.func @softmax_f16(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf16>)
// CHECK-NOT: arith.truncf
// CHECK: %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MAXINIT:.+]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.+}} : tensor<4xf32>)
// CHECK: %[[MAX:.+]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<4x8xf16>) outs(%[[MAXINIT]] : tensor<4xf32>)
// CHECK: ^bb0(%[[IN:.+]]: f16, %[[ACC:.+]]: f32):
// CHECK: %[[W:.+]] = arith.extf %[[IN]] : f16 to f32
// CHECK: arith.maximumf %[[ACC]], %[[W]] : f32
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[SUMINIT:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<4xf32>)
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[MAX]] : tensor<4x8xf16>, tensor<4xf32>) outs(%[[SUMINIT]] : tensor<4xf32>)
// CHECK: ^bb0(%[[IN:.+]]: f16, %[[M:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK: %[[W:.+]] = arith.extf %[[IN]] : f16 to f32
// CHECK: %[[D:.+]] = arith.subf %[[W]], %[[M]] : f32
// CHECK: %[[E:.+]] = math.exp %[[D]] : f32
// CHECK: arith.addf %[[ACC]], %[[E]] : f32
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]], #[[$ROW]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[MAX]], %[[SUM]] : tensor<4x8xf16>, tensor<4xf32>, tensor<4xf32>) outs(%{{.+}} : tensor<4x8xf16>)
// CHECK: ^bb0(%[[IN:.+]]: f16, %[[M:.+]]: f32, %[[S:.+]]: f32, %{{.+}}: f16):
// CHECK: %[[W:.+]] = arith.extf %[[IN]] : f16 to f32
// CHECK: %[[D:.+]] = arith.subf %[[W]], %[[M]] : f32
// CHECK: %[[E:.+]] = math.exp %[[D]] : f32
// CHECK: %[[Q:.+]] = arith.divf %[[E]], %[[S]] : f32
// CHECK: %[[R:.+]] = arith.truncf %[[Q]] : f32 to f16
// CHECK: linalg.yield %[[R]] : f16
// CHECK-NOT: arith.truncf
// CHECK: return %[[Y]] : tensor<4x8xf16>
func.func @softmax_f16(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %0 = mixprec.softmax %x {axis = 1 : i64} : tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

// log_softmax along a middle axis: the statistics keep dims 0 and 2;
// result = (x - max) - log(sum exp(x - max)), no 16-bit types, no casts.

// CHECK-DAG: #[[$ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$KEPT:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @log_softmax_middle_axis(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8x3xf32>)
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf
// CHECK: %[[MAX:.+]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$KEPT]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[X]] : tensor<4x8x3xf32>) outs(%{{.+}} : tensor<4x3xf32>)
// CHECK: arith.maximumf
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$KEPT]], #[[$KEPT]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[X]], %[[MAX]] : tensor<4x8x3xf32>, tensor<4x3xf32>)
// CHECK: math.exp
// CHECK: %[[LOGSUM:.+]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<4x3xf32>) outs(%{{.+}} : tensor<4x3xf32>)
// CHECK: math.log
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$KEPT]], #[[$KEPT]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]], %[[MAX]], %[[LOGSUM]] : tensor<4x8x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>)
// CHECK: ^bb0(%[[IN:.+]]: f32, %[[M:.+]]: f32, %[[L:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[D:.+]] = arith.subf %[[IN]], %[[M]] : f32
// CHECK: %[[R:.+]] = arith.subf %[[D]], %[[L]] : f32
// CHECK: linalg.yield %[[R]] : f32
// CHECK: return %[[Y]]
func.func @log_softmax_middle_axis(%x: tensor<4x8x3xf32>) -> tensor<4x8x3xf32> {
  %0 = mixprec.log_softmax %x {axis = 1 : i64} : tensor<4x8x3xf32>
  return %0 : tensor<4x8x3xf32>
}

// -----

// layer_norm over dims [1, 3) of bf16: f32 mean, two-pass biased variance,
// 1/sqrt(var + eps), scale and bias read through (d1, d2), one truncf.

// CHECK-DAG: #[[$ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-DAG: #[[$ID1:.+]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$TAIL:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// ROUND-LABEL: func.func @layer_norm_bf16_affine(
// ROUND-NOT: arith.truncf
// ROUND: arith.truncf %{{.+}} : f32 to bf16
// ROUND-NOT: arith.truncf
// ROUND: return
// CHECK-LABEL: func.func @layer_norm_bf16_affine(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x4x8xbf16>, %[[G:[^:]+]]: tensor<4x8xbf16>, %[[B:[^:]+]]: tensor<4x8xbf16>)
// CHECK-NOT: arith.truncf
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$ROW]]], iterator_types = ["parallel", "reduction", "reduction"]} ins(%[[X]] : tensor<2x4x8xbf16>) outs(%{{.+}} : tensor<2xf32>)
// CHECK: arith.extf %{{.+}} : bf16 to f32
// CHECK: arith.addf
// CHECK: %[[MEAN:.+]] = linalg.generic {indexing_maps = [#[[$ID1]], #[[$ID1]]], iterator_types = ["parallel"]} ins(%[[SUM]] : tensor<2xf32>)
// CHECK: %[[N:.+]] = arith.constant 3.200000e+01 : f32
// CHECK: arith.divf %{{.+}}, %[[N]] : f32
// CHECK: %[[M2:.+]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$ROW]], #[[$ROW]]], iterator_types = ["parallel", "reduction", "reduction"]} ins(%[[X]], %[[MEAN]] : tensor<2x4x8xbf16>, tensor<2xf32>) outs(%{{.+}} : tensor<2xf32>)
// CHECK: ^bb0(%[[IN:.+]]: bf16, %[[MU:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK: %[[W:.+]] = arith.extf %[[IN]] : bf16 to f32
// CHECK: %[[D:.+]] = arith.subf %[[W]], %[[MU]] : f32
// CHECK: %[[SQ:.+]] = arith.mulf %[[D]], %[[D]] : f32
// CHECK: arith.addf %[[ACC]], %[[SQ]] : f32
// CHECK: %[[RSTD:.+]] = linalg.generic {{.*}} ins(%[[M2]] : tensor<2xf32>)
// CHECK: %[[VAR:.+]] = arith.divf %{{.+}}, %{{.+}} : f32
// CHECK: %[[EPS:.+]] = arith.constant 9.99999974E-6 : f32
// CHECK: %[[VE:.+]] = arith.addf %[[VAR]], %[[EPS]] : f32
// CHECK: %[[STD:.+]] = math.sqrt %[[VE]] : f32
// CHECK: arith.divf %{{.+}}, %[[STD]] : f32
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$ROW]], #[[$ROW]], #[[$TAIL]], #[[$TAIL]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]], %[[MEAN]], %[[RSTD]], %[[G]], %[[B]] : tensor<2x4x8xbf16>, tensor<2xf32>, tensor<2xf32>, tensor<4x8xbf16>, tensor<4x8xbf16>) outs(%{{.+}} : tensor<2x4x8xbf16>)
// CHECK: ^bb0(%[[IN:.+]]: bf16, %[[MU:.+]]: f32, %[[RS:.+]]: f32, %[[GIN:.+]]: bf16, %[[BIN:.+]]: bf16, %{{.+}}: bf16):
// CHECK-DAG: %[[XW:.+]] = arith.extf %[[IN]] : bf16 to f32
// CHECK-DAG: %[[GW:.+]] = arith.extf %[[GIN]] : bf16 to f32
// CHECK-DAG: %[[BW:.+]] = arith.extf %[[BIN]] : bf16 to f32
// CHECK: %[[D:.+]] = arith.subf %[[XW]], %[[MU]] : f32
// CHECK: %[[NORM:.+]] = arith.mulf %[[D]], %[[RS]] : f32
// CHECK: %[[SCALED:.+]] = arith.mulf %[[NORM]], %[[GW]] : f32
// CHECK: %[[SHIFTED:.+]] = arith.addf %[[SCALED]], %[[BW]] : f32
// CHECK: %[[R:.+]] = arith.truncf %[[SHIFTED]] : f32 to bf16
// CHECK: linalg.yield %[[R]] : bf16
// CHECK-NOT: arith.truncf
// CHECK: return %[[Y]]
func.func @layer_norm_bf16_affine(%x: tensor<2x4x8xbf16>, %g: tensor<4x8xbf16>, %b: tensor<4x8xbf16>) -> tensor<2x4x8xbf16> {
  %0 = mixprec.layer_norm %x scale %g bias %b {axis = 1 : i64} : tensor<2x4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>
  return %0 : tensor<2x4x8xbf16>
}

// -----

// layer_norm without scale and bias; the eps attribute reaches the code.

// CHECK-LABEL: func.func @layer_norm_f32(
// CHECK-SAME: %[[X:[^:]+]]: tensor<6x10xf32>)
// CHECK: arith.constant 1.000000e+01 : f32
// CHECK: arith.constant 1.000000e-03 : f32
// CHECK: math.sqrt
// CHECK: %[[Y:.+]] = linalg.generic {{.*}} ins(%[[X]], %{{.+}}, %{{.+}} : tensor<6x10xf32>, tensor<6xf32>, tensor<6xf32>) outs(%{{.+}} : tensor<6x10xf32>)
// CHECK: ^bb0(%[[IN:.+]]: f32, %[[MU:.+]]: f32, %[[RS:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[D:.+]] = arith.subf %[[IN]], %[[MU]] : f32
// CHECK: %[[NORM:.+]] = arith.mulf %[[D]], %[[RS]] : f32
// CHECK-NEXT: linalg.yield %[[NORM]] : f32
// CHECK: return %[[Y]]
func.func @layer_norm_f32(%x: tensor<6x10xf32>) -> tensor<6x10xf32> {
  %0 = mixprec.layer_norm %x {axis = 1 : i64, eps = 1.0e-03 : f64} : tensor<6x10xf32>
  return %0 : tensor<6x10xf32>
}

// -----

// Training batch_norm on f16 NCHW: per-channel f32 statistics over N, H, W
// (n = 40); running_mean' = 0.75 * running_mean + 0.25 * mean and
// running_var' = 0.75 * running_var + 0.25 * (sum (x - mean)^2 / 39).

// CHECK-DAG: #[[$ID4:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$CH:.+]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-DAG: #[[$ID1:.+]] = affine_map<(d0) -> (d0)>
// ROUND-LABEL: func.func @batch_norm_f16_training(
// ROUND-NOT: arith.truncf
// ROUND: arith.truncf %{{.+}} : f32 to f16
// ROUND-NOT: arith.truncf
// ROUND: return
// CHECK-LABEL: func.func @batch_norm_f16_training(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3x4x5xf16>, %[[RM:[^:]+]]: tensor<3xf32>, %[[RV:[^:]+]]: tensor<3xf32>, %[[G:[^:]+]]: tensor<3xf16>, %[[B:[^:]+]]: tensor<3xf16>)
// CHECK-NOT: arith.truncf
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$ID4]], #[[$CH]]], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%[[X]] : tensor<2x3x4x5xf16>) outs(%{{.+}} : tensor<3xf32>)
// CHECK: arith.extf %{{.+}} : f16 to f32
// CHECK: %[[MEAN:.+]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<3xf32>)
// CHECK: arith.constant 4.000000e+01 : f32
// CHECK: %[[M2:.+]] = linalg.generic {indexing_maps = [#[[$ID4]], #[[$CH]], #[[$CH]]], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%[[X]], %[[MEAN]] : tensor<2x3x4x5xf16>, tensor<3xf32>) outs(%{{.+}} : tensor<3xf32>)
// CHECK: arith.mulf
// CHECK: %[[RSTD:.+]] = linalg.generic {{.*}} ins(%[[M2]] : tensor<3xf32>)
// CHECK: math.sqrt
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[$ID4]], #[[$CH]], #[[$CH]], #[[$CH]], #[[$CH]], #[[$ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[X]], %[[MEAN]], %[[RSTD]], %[[G]], %[[B]] : tensor<2x3x4x5xf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf16>, tensor<3xf16>) outs(%{{.+}} : tensor<2x3x4x5xf16>)
// CHECK: arith.truncf %{{.+}} : f32 to f16
// CHECK-NOT: arith.truncf
// CHECK: %[[MEANOUT:.+]] = linalg.generic {indexing_maps = [#[[$ID1]], #[[$ID1]], #[[$ID1]]], iterator_types = ["parallel"]} ins(%[[RM]], %[[MEAN]] : tensor<3xf32>, tensor<3xf32>) outs(%{{.+}} : tensor<3xf32>)
// CHECK: ^bb0(%[[OLD:.+]]: f32, %[[BATCH:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[MOM:.+]] = arith.constant 2.500000e-01 : f32
// CHECK: %[[NEW:.+]] = arith.mulf %[[MOM]], %[[BATCH]] : f32
// CHECK: %[[KEEP:.+]] = arith.constant 7.500000e-01 : f32
// CHECK: %[[KEPT:.+]] = arith.mulf %[[KEEP]], %[[OLD]] : f32
// CHECK: %[[UPD:.+]] = arith.addf %[[KEPT]], %[[NEW]] : f32
// CHECK: linalg.yield %[[UPD]] : f32
// CHECK: %[[VAROUT:.+]] = linalg.generic {indexing_maps = [#[[$ID1]], #[[$ID1]], #[[$ID1]]], iterator_types = ["parallel"]} ins(%[[RV]], %[[M2]] : tensor<3xf32>, tensor<3xf32>) outs(%{{.+}} : tensor<3xf32>)
// CHECK: ^bb0(%[[OLD:.+]]: f32, %[[SQ:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[NM1:.+]] = arith.constant 3.900000e+01 : f32
// CHECK: %[[UNBIASED:.+]] = arith.divf %[[SQ]], %[[NM1]] : f32
// CHECK: %[[MOM:.+]] = arith.constant 2.500000e-01 : f32
// CHECK: %[[NEW:.+]] = arith.mulf %[[MOM]], %[[UNBIASED]] : f32
// CHECK: %[[KEEP:.+]] = arith.constant 7.500000e-01 : f32
// CHECK: %[[KEPT:.+]] = arith.mulf %[[KEEP]], %[[OLD]] : f32
// CHECK: %[[UPD:.+]] = arith.addf %[[KEPT]], %[[NEW]] : f32
// CHECK: linalg.yield %[[UPD]] : f32
// CHECK: return %[[Y]], %[[MEANOUT]], %[[VAROUT]] : tensor<2x3x4x5xf16>, tensor<3xf32>, tensor<3xf32>
func.func @batch_norm_f16_training(%x: tensor<2x3x4x5xf16>, %mean: tensor<3xf32>, %var: tensor<3xf32>, %g: tensor<3xf16>, %b: tensor<3xf16>) -> (tensor<2x3x4x5xf16>, tensor<3xf32>, tensor<3xf32>) {
  %y, %m, %v = mixprec.batch_norm %x, %mean, %var scale %g bias %b {momentum = 2.500000e-01 : f64} : tensor<2x3x4x5xf16>, tensor<3xf32>, tensor<3xf16>, tensor<3xf16>
  return %y, %m, %v : tensor<2x3x4x5xf16>, tensor<3xf32>, tensor<3xf32>
}

// -----

// Inference batch_norm on [N, C]: normalizes with the running statistics and
// returns them unchanged; no batch reduction.

// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$CH:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @batch_norm_eval(
// CHECK-SAME: %[[X:[^:]+]]: tensor<6x3xf32>, %[[RM:[^:]+]]: tensor<3xf32>, %[[RV:[^:]+]]: tensor<3xf32>)
// CHECK-NOT: reduction
// CHECK: %[[RSTD:.+]] = linalg.generic {{.*}} ins(%[[RV]] : tensor<3xf32>)
// CHECK: arith.constant 9.99999974E-6 : f32
// CHECK: math.sqrt
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$CH]], #[[$CH]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[RM]], %[[RSTD]] : tensor<6x3xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK: return %[[Y]], %[[RM]], %[[RV]] : tensor<6x3xf32>, tensor<3xf32>, tensor<3xf32>
func.func @batch_norm_eval(%x: tensor<6x3xf32>, %mean: tensor<3xf32>, %var: tensor<3xf32>) -> (tensor<6x3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %y, %m, %v = mixprec.batch_norm %x, %mean, %var {training = false} : tensor<6x3xf32>, tensor<3xf32>
  return %y, %m, %v : tensor<6x3xf32>, tensor<3xf32>, tensor<3xf32>
}
