// RUN: mixprec-opt %s -split-input-file --mixprec-update-state-in-place | FileCheck %s

// The new value of a state argument (the same mixprec.abi_name) is
// materialized in it, and its op writes into it: nothing reads the old
// value after that op.
// CHECK-LABEL: func.func @step(
// CHECK-SAME: %[[W:[^:]+]]: tensor<4xf32> {mixprec.abi_name = "w"}, %[[G:[^:]+]]: tensor<4xf32>)
// CHECK-NOT: tensor.empty
// CHECK: %[[NEW:.+]] = linalg.sub ins(%[[W]], %[[G]] : tensor<4xf32>, tensor<4xf32>) outs(%[[W]] : tensor<4xf32>)
// CHECK: %[[M:.+]] = bufferization.materialize_in_destination %[[NEW]] in %[[W]]
// CHECK: return %[[M]]
func.func @step(%w: tensor<4xf32> {mixprec.abi_name = "w"}, %g: tensor<4xf32>)
    -> (tensor<4xf32> {mixprec.abi_name = "w"}) {
  %e = tensor.empty() : tensor<4xf32>
  %n = linalg.sub ins(%w, %g : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %n : tensor<4xf32>
}

// -----

// The old value is read after the new one is computed (a statistic used
// later): only the materialization at the end writes the state, after that
// read. Another result (the loss) and an argument returned unchanged are
// left alone.
// CHECK-LABEL: func.func @read_after(
// CHECK-SAME: %[[S:[^:]+]]: tensor<4xf32> {mixprec.abi_name = "stat"}
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[NEW:.+]] = linalg.exp ins(%[[S]] : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
// CHECK: linalg.add ins(%[[S]], %[[NEW]]
// CHECK: %[[M:.+]] = bufferization.materialize_in_destination %[[NEW]] in %[[S]]
// CHECK: return %{{.+}}, %[[M]], %{{.+}} :
func.func @read_after(%s: tensor<4xf32> {mixprec.abi_name = "stat"}, %k: tensor<4xf32> {mixprec.abi_name = "kept"})
    -> (tensor<4xf32>, tensor<4xf32> {mixprec.abi_name = "stat"}, tensor<4xf32> {mixprec.abi_name = "kept"}) {
  %e = tensor.empty() : tensor<4xf32>
  %n = linalg.exp ins(%s : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %sum = linalg.add ins(%s, %n : tensor<4xf32>, tensor<4xf32>) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  return %sum, %n, %k : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Scalar code builds a new state from elements: they go into the state's
// buffer one by one.
// CHECK-LABEL: func.func @scalar(
// CHECK-SAME: %[[C:[^:]+]]: tensor<i64> {mixprec.abi_name = "count"})
// CHECK: %[[X:.+]] = tensor.extract %[[C]][]
// CHECK: %[[Y:.+]] = arith.addi %[[X]]
// CHECK: %[[I:.+]] = tensor.insert %[[Y]] into %[[C]][]
// CHECK: return %[[I]]
func.func @scalar(%c: tensor<i64> {mixprec.abi_name = "count"}) -> (tensor<i64> {mixprec.abi_name = "count"}) {
  %one = arith.constant 1 : i64
  %x = tensor.extract %c[] : tensor<i64>
  %y = arith.addi %x, %one : i64
  %n = tensor.from_elements %y : tensor<i64>
  return %n : tensor<i64>
}
