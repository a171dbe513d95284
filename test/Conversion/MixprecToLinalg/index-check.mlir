// RUN: mixprec-opt %s -split-input-file --convert-mixprec-to-linalg | FileCheck %s

// The first check: a reduction finds the first row-major position of an
// index outside [0, 7) and the index there; a three-element map writes
// [0, position, value] when it found one and [-1, 0, 0] otherwise.

// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$TO_SCALAR2:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[$TO_SCALAR1:.+]] = affine_map<(d0) -> ()>
// CHECK-DAG: #[[$ID1:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @first(
// CHECK-SAME: %[[TOKENS:[^:]+]]: tensor<2x3xi64>)
// CHECK: %[[NONE:.+]] = arith.constant 9223372036854775807 : i64
// CHECK: %[[FIRST0:.+]] = linalg.fill ins(%[[NONE]] : i64)
// CHECK: %[[VALUE0:.+]] = linalg.fill ins(%{{.+}} : i64)
// CHECK: %[[FOUND:.+]]:2 = linalg.generic {indexing_maps = [#[[$ID2]], #[[$TO_SCALAR2]], #[[$TO_SCALAR2]]], iterator_types = ["reduction", "reduction"]} ins(%[[TOKENS]] : tensor<2x3xi64>) outs(%[[FIRST0]], %[[VALUE0]] : tensor<i64>, tensor<i64>)
// CHECK: ^bb0(%[[IN:.+]]: i64, %[[FIRST:.+]]: i64, %[[VALUE:.+]]: i64):
// CHECK: %[[I:.+]] = linalg.index 0 : index
// CHECK: %[[J:.+]] = linalg.index 1 : index
// CHECK: %[[J64:.+]] = arith.index_cast %[[J]] : index to i64
// CHECK: %[[THREE:.+]] = arith.constant 3 : i64
// CHECK: %[[ROW:.+]] = arith.muli %{{.+}}, %[[THREE]] : i64
// CHECK: %[[POSITION:.+]] = arith.addi %[[ROW]], %[[J64]] : i64
// CHECK: %[[BELOW:.+]] = arith.cmpi slt, %[[IN]], %{{.+}} : i64
// CHECK: %[[SEVEN:.+]] = arith.constant 7 : i64
// CHECK: %[[ABOVE:.+]] = arith.cmpi sge, %[[IN]], %[[SEVEN]] : i64
// CHECK: %[[OUTSIDE:.+]] = arith.ori %[[BELOW]], %[[ABOVE]] : i1
// CHECK: %[[EARLIER:.+]] = arith.cmpi slt, %[[POSITION]], %[[FIRST]] : i64
// CHECK: %[[TAKE:.+]] = arith.andi %[[OUTSIDE]], %[[EARLIER]] : i1
// CHECK: %[[NEXTFIRST:.+]] = arith.select %[[TAKE]], %[[POSITION]], %[[FIRST]] : i64
// CHECK: %[[NEXTVALUE:.+]] = arith.select %[[TAKE]], %[[IN]], %[[VALUE]] : i64
// CHECK: linalg.yield %[[NEXTFIRST]], %[[NEXTVALUE]] : i64, i64
// CHECK: %[[REPORT:.+]] = linalg.generic {indexing_maps = [#[[$TO_SCALAR1]], #[[$TO_SCALAR1]], #[[$ID1]]], iterator_types = ["parallel"]} ins(%[[FOUND]]#0, %[[FOUND]]#1 : tensor<i64>, tensor<i64>) outs(%{{.+}} : tensor<3xi64>)
// CHECK: ^bb0(%[[P:.+]]: i64, %[[V:.+]]: i64, %{{.+}}: i64):
// CHECK: %[[K:.+]] = arith.index_cast %{{.+}} : index to i64
// CHECK: %[[ISPOS:.+]] = arith.cmpi eq, %[[K]], %{{.+}} : i64
// CHECK: %[[PV:.+]] = arith.select %[[ISPOS]], %[[P]], %[[V]] : i64
// CHECK: %[[ISCHECK:.+]] = arith.cmpi eq, %[[K]], %{{.+}} : i64
// CHECK: %[[ID:.+]] = arith.constant 0 : i64
// CHECK: %[[MINE:.+]] = arith.select %[[ISCHECK]], %[[ID]], %[[PV]] : i64
// CHECK: %[[NONE2:.+]] = arith.constant 9223372036854775807 : i64
// CHECK: %[[HIT:.+]] = arith.cmpi ne, %[[P]], %[[NONE2]] : i64
// CHECK: %[[MINUS1:.+]] = arith.constant -1 : i64
// CHECK: %[[PASSED:.+]] = arith.select %[[ISCHECK]], %[[MINUS1]], %{{.+}} : i64
// CHECK: %[[OUT:.+]] = arith.select %[[HIT]], %[[MINE]], %[[PASSED]] : i64
// CHECK: linalg.yield %[[OUT]] : i64
// CHECK: return %[[REPORT]] : tensor<3xi64>
func.func @first(%tokens: tensor<2x3xi64>) -> tensor<3xi64> {
  %r = mixprec.index_check %tokens {bound = 7 : i64, check = 0 : i64} : tensor<2x3xi64>
  return %r : tensor<3xi64>
}

// -----

// A chained check widens i32 labels, does not count the skipped value, and
// reports only when the previous report is clean (its check < 0).

// CHECK-LABEL: func.func @chained(
// CHECK-SAME: %[[LABELS:[^:]+]]: tensor<4xi32>, %[[PREVIOUS:[^:]+]]: tensor<3xi64>)
// CHECK: %[[FOUND:.+]]:2 = linalg.generic {{.*}} ins(%[[LABELS]] : tensor<4xi32>)
// CHECK: ^bb0(%[[IN:.+]]: i32, %{{.+}}: i64, %{{.+}}: i64):
// CHECK: %[[WIDE:.+]] = arith.extsi %[[IN]] : i32 to i64
// CHECK: %[[OUTSIDE:.+]] = arith.ori
// CHECK: %[[SKIP:.+]] = arith.constant -100 : i64
// CHECK: %[[COUNTED:.+]] = arith.cmpi ne, %[[WIDE]], %[[SKIP]] : i64
// CHECK: %[[BAD:.+]] = arith.andi %[[OUTSIDE]], %[[COUNTED]] : i1
// CHECK: linalg.generic {{.*}} ins(%[[FOUND]]#0, %[[FOUND]]#1, %[[PREVIOUS]] : tensor<i64>, tensor<i64>, tensor<3xi64>) outs(%{{.+}} : tensor<3xi64>)
// CHECK: ^bb0(%{{.+}}: i64, %{{.+}}: i64, %[[PREV:.+]]: i64, %{{.+}}: i64):
// CHECK: %[[HIT:.+]] = arith.cmpi ne
// CHECK: %[[BEFORE:.+]] = tensor.extract %[[PREVIOUS]][%{{.+}}] : tensor<3xi64>
// CHECK: %[[CLEAN:.+]] = arith.cmpi slt, %[[BEFORE]], %{{.+}} : i64
// CHECK: %[[REPORTS:.+]] = arith.andi %[[HIT]], %[[CLEAN]] : i1
// CHECK: %[[OUT:.+]] = arith.select %[[REPORTS]], %{{.+}}, %[[PREV]] : i64
// CHECK: linalg.yield %[[OUT]] : i64
func.func @chained(%labels: tensor<4xi32>, %previous: tensor<3xi64>) -> tensor<3xi64> {
  %r = mixprec.index_check %labels, %previous {bound = 10 : i64, check = 1 : i64, skipped = -100 : i64} : tensor<4xi32>
  return %r : tensor<3xi64>
}
