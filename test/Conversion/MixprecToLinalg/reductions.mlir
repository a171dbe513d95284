// RUN: mixprec-opt %s -split-input-file --convert-mixprec-to-linalg | FileCheck %s
// RUN: mixprec-opt %s -split-input-file --convert-mixprec-to-linalg | FileCheck %s --check-prefix=ROUND

// ROUND checks that a 16-bit result is rounded exactly once
// (docs/design.md §4), after the f32 accumulation.

// A 16-bit sum accumulates in f32, rounds once, then gets its unit dims back.

// ROUND-LABEL: func.func @reduce_sum_f16_keepdim(
// ROUND-NOT: arith.truncf
// ROUND: arith.truncf %{{.+}} : f32 to f16
// ROUND-NOT: arith.truncf
// ROUND: return
// CHECK-DAG: #[[$ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$D0:.+]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-LABEL: func.func @reduce_sum_f16_keepdim(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3x4xf16>) -> tensor<2x1x1xf16>
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<2xf32>)
// CHECK: %[[ACC:.+]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$D0]]], iterator_types = ["parallel", "reduction", "reduction"]} ins(%[[X]] : tensor<2x3x4xf16>) outs(%[[INIT]] : tensor<2xf32>)
// CHECK: ^bb0(%[[IN:.+]]: f16, %[[SUM:.+]]: f32):
// CHECK: %[[W:.+]] = arith.extf %[[IN]] : f16 to f32
// CHECK: %[[NEXT:.+]] = arith.addf %[[SUM]], %[[W]] : f32
// CHECK: linalg.yield %[[NEXT]] : f32
// CHECK: %[[ROUNDED:.+]] = linalg.generic {{.*}} ins(%[[ACC]] : tensor<2xf32>) outs(%{{.+}} : tensor<2xf16>)
// CHECK: arith.truncf %{{.+}} : f32 to f16
// CHECK: %[[KEPT:.+]] = tensor.expand_shape %[[ROUNDED]] {{\[}}[0, 1, 2]] output_shape [2, 1, 1] : tensor<2xf16> into tensor<2x1x1xf16>
// CHECK: return %[[KEPT]] : tensor<2x1x1xf16>
func.func @reduce_sum_f16_keepdim(%x: tensor<2x3x4xf16>) -> tensor<2x1x1xf16> {
  %0 = mixprec.reduce_sum %x {dims = array<i64: 1, 2>, keepdim} : tensor<2x3x4xf16>
  return %0 : tensor<2x1x1xf16>
}

// -----

// f32 over dims 0 and 2 without keepdim: the accumulator is the result.

// CHECK-DAG: #[[$D1:.+]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @reduce_sum_f32(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3x4xf32>) -> tensor<3xf32>
// CHECK: %[[ACC:.+]] = linalg.generic {indexing_maps = [#{{.+}}, #[[$D1]]], iterator_types = ["reduction", "parallel", "reduction"]} ins(%[[X]] : tensor<2x3x4xf32>) outs(%{{.+}} : tensor<3xf32>)
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
// CHECK-NOT: tensor.expand_shape
// CHECK: return %[[ACC]] : tensor<3xf32>
func.func @reduce_sum_f32(%x: tensor<2x3x4xf32>) -> tensor<3xf32> {
  %0 = mixprec.reduce_sum %x {dims = array<i64: 0, 2>} : tensor<2x3x4xf32>
  return %0 : tensor<3xf32>
}

// -----

// A bf16 mean: f32 sum, divided by the 8 reduced elements and rounded in one
// step; the kept dim sits between two unit dims.

// ROUND-LABEL: func.func @reduce_mean_bf16_keepdim(
// ROUND-NOT: arith.truncf
// ROUND: arith.truncf %{{.+}} : f32 to bf16
// ROUND-NOT: arith.truncf
// ROUND: return
// CHECK-LABEL: func.func @reduce_mean_bf16_keepdim(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3x4xbf16>) -> tensor<1x3x1xbf16>
// CHECK: %[[ACC:.+]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "reduction"]} ins(%[[X]] : tensor<2x3x4xbf16>) outs(%{{.+}} : tensor<3xf32>)
// CHECK: arith.extf %{{.+}} : bf16 to f32
// CHECK: %[[MEAN:.+]] = linalg.generic {{.*}} ins(%[[ACC]] : tensor<3xf32>) outs(%{{.+}} : tensor<3xbf16>)
// CHECK: ^bb0(%[[SUM:.+]]: f32, %{{.+}}: bf16):
// CHECK: %[[N:.+]] = arith.constant 8.000000e+00 : f32
// CHECK: %[[Q:.+]] = arith.divf %[[SUM]], %[[N]] : f32
// CHECK: %[[R:.+]] = arith.truncf %[[Q]] : f32 to bf16
// CHECK: linalg.yield %[[R]] : bf16
// CHECK: %[[KEPT:.+]] = tensor.expand_shape %[[MEAN]] {{\[}}[0, 1, 2]] output_shape [1, 3, 1] : tensor<3xbf16> into tensor<1x3x1xbf16>
// CHECK: return %[[KEPT]]
func.func @reduce_mean_bf16_keepdim(%x: tensor<2x3x4xbf16>) -> tensor<1x3x1xbf16> {
  %0 = mixprec.reduce_mean %x {dims = array<i64: 0, 2>, keepdim} : tensor<2x3x4xbf16>
  return %0 : tensor<1x3x1xbf16>
}

// -----

// A full max with keepdim: from -inf with maximumf (NaN wins), into a 0-d
// tensor that expands to 1x1x1 with no reassociation groups.

// CHECK-DAG: #[[$ALL:.+]] = affine_map<(d0, d1, d2) -> ()>
// CHECK-LABEL: func.func @reduce_max_all_keepdim(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3x4xf16>) -> tensor<1x1x1xf16>
// CHECK: %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.+}} : tensor<f32>)
// CHECK: %[[ACC:.+]] = linalg.generic {indexing_maps = [#{{.+}}, #[[$ALL]]], iterator_types = ["reduction", "reduction", "reduction"]} ins(%[[X]] : tensor<2x3x4xf16>) outs(%[[INIT]] : tensor<f32>)
// CHECK: ^bb0(%[[IN:.+]]: f16, %[[MAX:.+]]: f32):
// CHECK: %[[W:.+]] = arith.extf %[[IN]] : f16 to f32
// CHECK: arith.maximumf %[[MAX]], %[[W]] : f32
// CHECK: %[[R:.+]] = linalg.generic {{.*}} ins(%[[ACC]] : tensor<f32>) outs(%{{.+}} : tensor<f16>)
// CHECK: arith.truncf
// CHECK: %[[KEPT:.+]] = tensor.expand_shape %[[R]] [] output_shape [1, 1, 1] : tensor<f16> into tensor<1x1x1xf16>
// CHECK: return %[[KEPT]]
func.func @reduce_max_all_keepdim(%x: tensor<2x3x4xf16>) -> tensor<1x1x1xf16> {
  %0 = mixprec.reduce_max %x {dims = array<i64: 0, 1, 2>, keepdim} : tensor<2x3x4xf16>
  return %0 : tensor<1x1x1xf16>
}

// -----

// CHECK-LABEL: func.func @reduce_max_f32(
// CHECK-SAME: %[[X:[^:]+]]: tensor<5x7xf32>) -> tensor<5xf32>
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: %[[ACC:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<5x7xf32>) outs(%{{.+}} : tensor<5xf32>)
// CHECK: arith.maximumf
// CHECK-NOT: arith.maxnumf
// CHECK: return %[[ACC]] : tensor<5xf32>
func.func @reduce_max_f32(%x: tensor<5x7xf32>) -> tensor<5xf32> {
  %0 = mixprec.reduce_max %x {dims = array<i64: 1>} : tensor<5x7xf32>
  return %0 : tensor<5xf32>
}

// -----

// Cross entropy on f16 logits with i64 labels: f32 row max and sum of
// exp(x - max); one loop over rows gathers logits[n, labels[n]] with
// tensor.extract and sums log(sum) - (x[label] - max); the mean divides by
// N = 4 and rounds once to f16.

// ROUND-LABEL: func.func @cross_entropy_f16_mean(
// ROUND-NOT: arith.truncf
// ROUND: arith.truncf %{{.+}} : f32 to f16
// ROUND-NOT: arith.truncf
// ROUND: return
// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$ID1:.+]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$TOTAL:.+]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @cross_entropy_f16_mean(
// CHECK-SAME: %[[LOGITS:[^:]+]]: tensor<4x10xf16>, %[[LABELS:[^:]+]]: tensor<4xi64>) -> tensor<f16>
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: %[[MAX:.+]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[LOGITS]] : tensor<4x10xf16>) outs(%{{.+}} : tensor<4xf32>)
// CHECK: arith.maximumf
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[LOGITS]], %[[MAX]] : tensor<4x10xf16>, tensor<4xf32>) outs(%{{.+}} : tensor<4xf32>)
// CHECK: math.exp
// CHECK: %[[TOTAL:.+]] = linalg.generic {indexing_maps = [#[[$ID1]], #[[$ID1]], #[[$ID1]], #[[$TOTAL]]], iterator_types = ["reduction"]} ins(%[[LABELS]], %[[MAX]], %[[SUM]] : tensor<4xi64>, tensor<4xf32>, tensor<4xf32>) outs(%{{.+}} : tensor<f32>)
// CHECK: ^bb0(%[[LABEL:.+]]: i64, %[[M:.+]]: f32, %[[S:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK: %[[ROWIDX:.+]] = linalg.index 0 : index
// CHECK: %[[COL:.+]] = arith.index_cast %[[LABEL]] : i64 to index
// A bad label fails the call (--mixprec-check-indices); clamped, it reads
// inside the row meanwhile.
// CHECK: %[[ZERO:.+]] = arith.constant 0 : index
// CHECK: %[[ABOVE:.+]] = arith.maxsi %[[COL]], %[[ZERO]] : index
// CHECK: %[[LAST:.+]] = arith.constant 9 : index
// CHECK: %[[CLAMPED:.+]] = arith.minsi %[[ABOVE]], %[[LAST]] : index
// CHECK: %[[PICKED:.+]] = tensor.extract %[[LOGITS]][%[[ROWIDX]], %[[CLAMPED]]] : tensor<4x10xf16>
// CHECK: %[[PW:.+]] = arith.extf %[[PICKED]] : f16 to f32
// CHECK: %[[SHIFTED:.+]] = arith.subf %[[PW]], %[[M]] : f32
// CHECK: %[[LOGSUM:.+]] = math.log %[[S]] : f32
// CHECK: %[[LOSS:.+]] = arith.subf %[[LOGSUM]], %[[SHIFTED]] : f32
// CHECK: %[[NEXT:.+]] = arith.addf %[[ACC]], %[[LOSS]] : f32
// CHECK: linalg.yield %[[NEXT]] : f32
// CHECK: %[[RESULT:.+]] = linalg.generic {{.*}} ins(%[[TOTAL]] : tensor<f32>) outs(%{{.+}} : tensor<f16>)
// CHECK: %[[N:.+]] = arith.constant 4.000000e+00 : f32
// CHECK: %[[MEAN:.+]] = arith.divf %{{.+}}, %[[N]] : f32
// CHECK: arith.truncf %[[MEAN]] : f32 to f16
// CHECK: return %[[RESULT]] : tensor<f16>
func.func @cross_entropy_f16_mean(%logits: tensor<4x10xf16>, %labels: tensor<4xi64>) -> tensor<f16> {
  %0 = mixprec.softmax_cross_entropy %logits, %labels : tensor<4x10xf16>, tensor<4xi64>
  return %0 : tensor<f16>
}

// -----

// i32 labels, sum reduction, f32: the row loop's accumulator is the result.

// CHECK-LABEL: func.func @cross_entropy_f32_sum(
// CHECK-SAME: %[[LOGITS:[^:]+]]: tensor<4x10xf32>, %[[LABELS:[^:]+]]: tensor<4xi32>) -> tensor<f32>
// CHECK: %[[TOTAL:.+]] = linalg.generic {{.*}} ins(%[[LABELS]], %{{.+}}, %{{.+}} : tensor<4xi32>, tensor<4xf32>, tensor<4xf32>) outs(%{{.+}} : tensor<f32>)
// CHECK: arith.index_cast %{{.+}} : i32 to index
// CHECK: tensor.extract %[[LOGITS]]
// CHECK-NOT: arith.divf
// CHECK: return %[[TOTAL]] : tensor<f32>
func.func @cross_entropy_f32_sum(%logits: tensor<4x10xf32>, %labels: tensor<4xi32>) -> tensor<f32> {
  %0 = mixprec.softmax_cross_entropy %logits, %labels {reduction = #mixprec<reduction sum>} : tensor<4x10xf32>, tensor<4xi32>
  return %0 : tensor<f32>
}

// -----

// mse of bf16: (x - t)^2 summed in f32 over every element, divided by 20,
// rounded once.

// ROUND-LABEL: func.func @mse_bf16_mean(
// ROUND-NOT: arith.truncf
// ROUND: arith.truncf %{{.+}} : f32 to bf16
// ROUND-NOT: arith.truncf
// ROUND: return
// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ALL:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @mse_bf16_mean(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x5xbf16>, %[[T:[^:]+]]: tensor<4x5xbf16>) -> tensor<bf16>
// CHECK: %[[TOTAL:.+]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]], #[[$ALL]]], iterator_types = ["reduction", "reduction"]} ins(%[[X]], %[[T]] : tensor<4x5xbf16>, tensor<4x5xbf16>) outs(%{{.+}} : tensor<f32>)
// CHECK: ^bb0(%[[XI:.+]]: bf16, %[[TI:.+]]: bf16, %[[ACC:.+]]: f32):
// CHECK-DAG: %[[XW:.+]] = arith.extf %[[XI]] : bf16 to f32
// CHECK-DAG: %[[TW:.+]] = arith.extf %[[TI]] : bf16 to f32
// CHECK: %[[D:.+]] = arith.subf %[[XW]], %[[TW]] : f32
// CHECK: %[[SQ:.+]] = arith.mulf %[[D]], %[[D]] : f32
// CHECK: arith.addf %[[ACC]], %[[SQ]] : f32
// CHECK: %[[RESULT:.+]] = linalg.generic {{.*}} ins(%[[TOTAL]] : tensor<f32>) outs(%{{.+}} : tensor<bf16>)
// CHECK: arith.constant 2.000000e+01 : f32
// CHECK: arith.divf
// CHECK: arith.truncf %{{.+}} : f32 to bf16
// CHECK: return %[[RESULT]]
func.func @mse_bf16_mean(%x: tensor<4x5xbf16>, %t: tensor<4x5xbf16>) -> tensor<bf16> {
  %0 = mixprec.mse %x, %t : tensor<4x5xbf16>, tensor<4x5xbf16>
  return %0 : tensor<bf16>
}

// -----

// CHECK-LABEL: func.func @mse_f32_sum(
// CHECK: %[[TOTAL:.+]] = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%{{.+}}, %{{.+}} : tensor<8xf32>, tensor<8xf32>) outs(%{{.+}} : tensor<f32>)
// CHECK-NOT: arith.divf
// CHECK: return %[[TOTAL]] : tensor<f32>
func.func @mse_f32_sum(%x: tensor<8xf32>, %t: tensor<8xf32>) -> tensor<f32> {
  %0 = mixprec.mse %x, %t {reduction = #mixprec<reduction sum>} : tensor<8xf32>, tensor<8xf32>
  return %0 : tensor<f32>
}

// -----

// all_finite: one reduction per input into its own flag (filled with true);
// |x| <ordered> +inf is false for NaN and for +-Inf. `each` gathers the
// flags, `result` is their conjunction. No fast-math flags.

// CHECK-LABEL: func.func @all_finite(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4x10xf16>, %[[B:[^:]+]]: tensor<3xbf16>, %[[C:[^:]+]]: tensor<f32>) -> (tensor<i1>, tensor<3xi1>)
// CHECK-NOT: fastmath
// CHECK: %[[TRUE:.+]] = arith.constant true
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[TRUE]] : i1) outs(%{{.+}} : tensor<i1>)
// CHECK: %[[R0:.+]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%[[A]] : tensor<4x10xf16>) outs(%[[INIT]] : tensor<i1>)
// CHECK: ^bb0(%[[IN:.+]]: f16, %[[ACC:.+]]: i1):
// CHECK: %[[W:.+]] = arith.extf %[[IN]] : f16 to f32
// CHECK: %[[INF:.+]] = arith.constant 0x7F800000 : f32
// CHECK: %[[ABS:.+]] = math.absf %[[W]] : f32
// CHECK: %[[FINITE:.+]] = arith.cmpf olt, %[[ABS]], %[[INF]] : f32
// CHECK: %[[AND:.+]] = arith.andi %[[ACC]], %[[FINITE]] : i1
// CHECK: linalg.yield %[[AND]] : i1
// CHECK: %[[F0:.+]] = tensor.extract %[[R0]][] : tensor<i1>
// CHECK: %[[ALL0:.+]] = arith.andi %[[TRUE]], %[[F0]] : i1
// CHECK: %[[R1:.+]] = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[B]] : tensor<3xbf16>) outs(%{{.+}} : tensor<i1>)
// CHECK: arith.cmpf olt
// CHECK: %[[F1:.+]] = tensor.extract %[[R1]][] : tensor<i1>
// CHECK: %[[ALL1:.+]] = arith.andi %[[ALL0]], %[[F1]] : i1
// CHECK: %[[R2:.+]] = linalg.generic {{.*}} iterator_types = []} ins(%[[C]] : tensor<f32>) outs(%{{.+}} : tensor<i1>)
// CHECK: arith.cmpf olt
// CHECK: %[[F2:.+]] = tensor.extract %[[R2]][] : tensor<i1>
// CHECK: %[[ALL2:.+]] = arith.andi %[[ALL1]], %[[F2]] : i1
// CHECK-NOT: fastmath
// CHECK: %[[RESULT:.+]] = tensor.from_elements %[[ALL2]] : tensor<i1>
// CHECK: %[[EACH:.+]] = tensor.from_elements %[[F0]], %[[F1]], %[[F2]] : tensor<3xi1>
// CHECK: return %[[RESULT]], %[[EACH]] : tensor<i1>, tensor<3xi1>
func.func @all_finite(%a: tensor<4x10xf16>, %b: tensor<3xbf16>, %c: tensor<f32>) -> (tensor<i1>, tensor<3xi1>) {
  %0, %each = mixprec.all_finite %a, %b, %c : tensor<4x10xf16>, tensor<3xbf16>, tensor<f32>
  return %0, %each : tensor<i1>, tensor<3xi1>
}
