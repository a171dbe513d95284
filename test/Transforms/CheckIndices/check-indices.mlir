// RUN: mixprec-opt %s -split-input-file --mixprec-check-indices | FileCheck %s
// Running the pass again changes nothing (mixprec-compile runs it before its
// lowering pipeline, which runs it too).
// RUN: mixprec-opt %s -split-input-file --mixprec-check-indices --mixprec-check-indices | FileCheck %s

// One check: the report becomes a hidden last result, and the function
// says what the check is.

// CHECK-LABEL: func.func @loss(
// CHECK-SAME: %[[LOGITS:[^:]+]]: tensor<4x10xf32>, %[[LABELS:[^:]+]]: tensor<4xi32>)
// CHECK-SAME: -> (tensor<f32>, tensor<3xi64> {mixprec.index_report})
// CHECK-SAME: mixprec.index_checks = [{bound = 10 : i64, location = "{{.*}}check-indices.mlir:{{[0-9]+}}:{{[0-9]+}}", noun = "label", op = "softmax_cross_entropy", shape = array<i64: 4>}]
// CHECK: %[[LOSS:.+]] = mixprec.softmax_cross_entropy %[[LOGITS]], %[[LABELS]]
// CHECK: %[[REPORT:.+]] = mixprec.index_check %[[LABELS]] {bound = 10 : i64, check = 0 : i64} : tensor<4xi32>
// CHECK: return %[[LOSS]], %[[REPORT]] : tensor<f32>, tensor<3xi64>
func.func @loss(%logits: tensor<4x10xf32>, %labels: tensor<4xi32>) -> tensor<f32> {
  %l = mixprec.softmax_cross_entropy %logits, %labels : tensor<4x10xf32>, tensor<4xi32>
  return %l : tensor<f32>
}

// -----

// A forward op and its gradient share their check; the embedding's check is
// chained after it, and ignore_index becomes the skipped value.

// CHECK-LABEL: func.func @step(
// CHECK-SAME: %[[TABLE:[^:]+]]: tensor<11x4xf32>, %[[TOKENS:[^:]+]]: tensor<2x3xi64>, %[[LABELS:[^:]+]]: tensor<6xi32>, %[[G:[^:]+]]: tensor<f32>)
// CHECK-SAME: -> (tensor<f32>, tensor<6x4xf32>, tensor<11x4xf32>, tensor<3xi64> {mixprec.index_report})
// CHECK-SAME: mixprec.index_checks = [{bound = 11 : i64, {{.*}}noun = "index", op = "embedding", shape = array<i64: 2, 3>}, {bound = 4 : i64, {{.*}}noun = "label", op = "softmax_cross_entropy", shape = array<i64: 6>}]
// CHECK: %[[FIRST:.+]] = mixprec.index_check %[[TOKENS]] {bound = 11 : i64, check = 0 : i64} : tensor<2x3xi64>
// CHECK-NEXT: %[[SECOND:.+]] = mixprec.index_check %[[LABELS]], %[[FIRST]] {bound = 4 : i64, check = 1 : i64, skipped = -100 : i64} : tensor<6xi32>
// CHECK-NOT: mixprec.index_check
// CHECK: return %{{.+}}, %{{.+}}, %{{.+}}, %[[SECOND]] :
func.func @step(%table: tensor<11x4xf32>, %tokens: tensor<2x3xi64>, %labels: tensor<6xi32>, %g: tensor<f32>) -> (tensor<f32>, tensor<6x4xf32>, tensor<11x4xf32>) {
  %e = mixprec.embedding %table, %tokens : tensor<11x4xf32>, tensor<2x3xi64>
  %logits = mixprec.reshape %e : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %l = mixprec.softmax_cross_entropy %logits, %labels {ignore_index = -100 : i64} : tensor<6x4xf32>, tensor<6xi32>
  %dl = mixprec.softmax_cross_entropy_grad %g, %logits, %labels {ignore_index = -100 : i64} : tensor<6x4xf32>, tensor<6xi32>
  %de = mixprec.reshape %dl : tensor<6x4xf32> -> tensor<2x3x4xf32>
  %dt = mixprec.embedding_grad %de, %tokens {num_embeddings = 11 : i64} : tensor<2x3x4xf32>, tensor<2x3xi64>
  return %l, %dl, %dt : tensor<f32>, tensor<6x4xf32>, tensor<11x4xf32>
}

// -----

// Without indexing ops a function keeps its signature.

// CHECK-LABEL: func.func @plain(
// CHECK-SAME: -> tensor<4xf32> {
// CHECK-NOT: mixprec.index
func.func @plain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = mixprec.relu %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// The same labels against two different class counts are two checks.

// CHECK-LABEL: func.func @two_heads(
// CHECK: %[[A:.+]] = mixprec.index_check %{{.+}} {bound = 10 : i64, check = 0 : i64}
// CHECK: mixprec.index_check %{{.+}}, %[[A]] {bound = 5 : i64, check = 1 : i64}
func.func @two_heads(%a: tensor<4x10xf32>, %b: tensor<4x5xf32>, %labels: tensor<4xi32>) -> (tensor<f32>, tensor<f32>) {
  %x = mixprec.softmax_cross_entropy %a, %labels : tensor<4x10xf32>, tensor<4xi32>
  %y = mixprec.softmax_cross_entropy %b, %labels : tensor<4x5xf32>, tensor<4xi32>
  return %x, %y : tensor<f32>, tensor<f32>
}
