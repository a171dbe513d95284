// RUN: mixprec-opt %s -split-input-file --mixprec-distinct-results | FileCheck %s

// A value returned twice gets a copy for the repeat; the first occurrence
// and values returned once stay as they are.
// CHECK-LABEL: func.func @twice(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<4xf32>, [[Y:%[^:]+]]: tensor<2xf16>)
// CHECK:         [[EMPTY:%.+]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    [[COPY:%.+]] = linalg.copy ins([[X]] : tensor<4xf32>) outs([[EMPTY]] : tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    return [[X]], [[Y]], [[COPY]] : tensor<4xf32>, tensor<2xf16>, tensor<4xf32>
func.func @twice(%x: tensor<4xf32>, %y: tensor<2xf16>) -> (tensor<4xf32>, tensor<2xf16>, tensor<4xf32>) {
  return %x, %y, %x : tensor<4xf32>, tensor<2xf16>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @once(
// CHECK-NOT:     linalg.copy
// CHECK:         return
func.func @once(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  return %x, %y : tensor<4xf32>, tensor<4xf32>
}
