// RUN: mixprec-opt %s -split-input-file --mixprec-autocast | FileCheck %s
// RUN: mixprec-opt %s -split-input-file --mixprec-autocast="level=tensor-core-only" | FileCheck %s --check-prefix=LEVEL

// `mixprec.precision` pins one op, whatever its category, overrides and the
// level say; the pin stays on the op.

// CHECK-LABEL: func.func @pins(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<4x4xf32>
// CHECK:         [[A:%.+]] = mixprec.matmul {{.*}}mixprec.autocast = "pinned", mixprec.precision = f32} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
// CHECK:         mixprec.exp {{.*}}mixprec.autocast = "pinned", mixprec.precision = f16} : tensor<4x4xf16>
// CHECK:         mixprec.matmul {{.*}}mixprec.autocast = "pinned", mixprec.precision = bf16} : tensor<4x4xbf16>, tensor<4x4xbf16> -> tensor<4x4xbf16>
// CHECK:         mixprec.matmul {{.*}}{mixprec.autocast = "tensor_core"} : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf32>
// LEVEL-LABEL: func.func @pins(
// LEVEL:         mixprec.exp {{.*}}mixprec.autocast = "pinned", mixprec.precision = f16} : tensor<4x4xf16>
func.func @pins(%x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %a = mixprec.matmul %x, %x {mixprec.precision = f32} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %e = mixprec.exp %x {mixprec.precision = f16} : tensor<4x4xf32>
  %b = mixprec.matmul %x, %x {mixprec.precision = bf16} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %c = mixprec.matmul %x, %x : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %a, %e, %b, %c : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}
