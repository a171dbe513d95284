// RUN: mixprec-opt %s --convert-mixprec-to-linalg=scatter-embedding-gradients=true | FileCheck %s
// RUN: mixprec-opt %s --convert-mixprec-to-linalg | FileCheck %s --check-prefix=DENSE

// With scatter-embedding-gradients (the CPU pipeline's choice) the indices
// are walked in row-major order and each one in the table adds its
// gradient row, widened to f32, to the row it names; an index outside the
// table adds nothing. The sums are rounded once, to the result type.
// Without it, one dense reduction over (row, column, indices) compares
// every index with every row.

// CHECK-LABEL: func.func @embedding_grad(
// CHECK-SAME:      %[[GRAD:.+]]: tensor<2x5x8xbf16>, %[[INDICES:.+]]: tensor<2x5xi32>)
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[TEN:.+]] = arith.constant 10 : index
// CHECK-DAG:     %[[WIDTH:.+]] = arith.constant 8 : index
// CHECK-DAG:     %[[ROWS:.+]] = arith.constant 7 : index
// CHECK:         %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<7x8xf32>)
// CHECK:         %[[SUMS:.+]] = scf.for %[[T:.+]] = %[[ZERO]] to %[[TEN]] step %{{.+}} iter_args(%[[ACC:.+]] = %[[INIT]]) -> (tensor<7x8xf32>) {
// CHECK:           %[[COL:.+]] = arith.remui %[[T]], %{{.+}} : index
// CHECK:           %[[ROW:.+]] = arith.remui %{{.+}}, %{{.+}} : index
// CHECK:           %[[RAW:.+]] = tensor.extract %[[INDICES]][%[[ROW]], %[[COL]]] : tensor<2x5xi32>
// CHECK:           %[[INDEX:.+]] = arith.index_cast %[[RAW]] : i32 to index
// CHECK-DAG:       %[[BELOW:.+]] = arith.cmpi slt, %[[INDEX]], %[[ROWS]] : index
// CHECK-DAG:       %[[ABOVE:.+]] = arith.cmpi sge, %[[INDEX]], %[[ZERO]] : index
// CHECK:           %[[INSIDE:.+]] = arith.andi %[[ABOVE]], %[[BELOW]] : i1
// CHECK:           scf.if %[[INSIDE]] -> (tensor<7x8xf32>) {
// CHECK:             scf.for %[[D:.+]] = %[[ZERO]] to %[[WIDTH]] step %{{.+}} iter_args(%[[PARTIAL:.+]] = %[[ACC]]) -> (tensor<7x8xf32>) {
// CHECK:               %[[TERM:.+]] = tensor.extract %[[GRAD]][%[[ROW]], %[[COL]], %[[D]]] : tensor<2x5x8xbf16>
// CHECK:               %[[WIDE:.+]] = arith.extf %[[TERM]] : bf16 to f32
// CHECK:               %[[OLD:.+]] = tensor.extract %[[PARTIAL]][%[[INDEX]], %[[D]]] : tensor<7x8xf32>
// CHECK:               %[[NEW:.+]] = arith.addf %[[OLD]], %[[WIDE]] : f32
// CHECK:               tensor.insert %[[NEW]] into %[[PARTIAL]][%[[INDEX]], %[[D]]] : tensor<7x8xf32>
// CHECK:           } else {
// CHECK:             scf.yield %[[ACC]] : tensor<7x8xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[SUMS]] : tensor<7x8xf32>) outs(%{{.+}} : tensor<7x8xbf16>)
// CHECK:           arith.truncf %{{.+}} : f32 to bf16

// DENSE-LABEL: func.func @embedding_grad(
// DENSE-NOT:     scf.for
// DENSE:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// DENSE:           arith.cmpi eq
// DENSE:           arith.select
func.func @embedding_grad(%grad: tensor<2x5x8xbf16>, %indices: tensor<2x5xi32>) -> tensor<7x8xbf16> {
  %r = mixprec.embedding_grad %grad, %indices {num_embeddings = 7 : i64} : tensor<2x5x8xbf16>, tensor<2x5xi32>
  return %r : tensor<7x8xbf16>
}
