// RUN: mixprec-opt %s -split-input-file --convert-mixprec-to-linalg | FileCheck %s
// RUN: mixprec-opt %s -split-input-file --convert-mixprec-to-linalg | mixprec-opt -split-input-file --linalg-generalize-named-ops | FileCheck %s --check-prefix=BODY

// Pooling over NCHW: tensor.pad + linalg.pooling_nchw_max / _sum into an f32
// accumulator (the pooling body widens 16-bit inputs), then one epilogue
// that rounds to the result type (after dividing, for the average).

// Max: padding is -inf in the input's type, the accumulator starts at -inf,
// arith.maximumf propagates NaN; one rounding back to f16 (exact for a max).
// CHECK-LABEL: func.func @max_pool_f16_padded(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<2x3x9x9xf16>)
// CHECK:         [[NEGINF16:%.+]] = arith.constant 0xFC00 : f16
// CHECK:         [[P:%.+]] = tensor.pad [[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:           tensor.yield [[NEGINF16]] : f16
// CHECK:         } : tensor<2x3x9x9xf16> to tensor<2x3x11x11xf16>
// CHECK:         [[NEGINF:%.+]] = arith.constant 0xFF800000 : f32
// CHECK:         [[ACC:%.+]] = linalg.fill ins([[NEGINF]] : f32) outs(%{{.+}} : tensor<2x3x5x5xf32>)
// CHECK:         [[WIN:%.+]] = tensor.empty() : tensor<3x3xf32>
// CHECK:         [[M:%.+]] = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins([[P]], [[WIN]] : tensor<2x3x11x11xf16>, tensor<3x3xf32>) outs([[ACC]] : tensor<2x3x5x5xf32>)
// CHECK:         [[R:%.+]] = linalg.generic {{.*}} ins([[M]] : tensor<2x3x5x5xf32>) outs(%{{.+}} : tensor<2x3x5x5xf16>)
// CHECK-NEXT:    ^bb0([[V:%.+]]: f32, %{{.+}}: f16):
// CHECK-NEXT:      [[T:%.+]] = arith.truncf [[V]] : f32 to f16
// CHECK-NEXT:      linalg.yield [[T]] : f16
// CHECK:         return [[R]] : tensor<2x3x5x5xf16>

// BODY-LABEL: func.func @max_pool_f16_padded(
// BODY:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// BODY-NEXT:    ^bb0([[IN:%.+]]: f16, %{{.+}}: f32, [[ACC:%.+]]: f32):
// BODY-NEXT:      [[W:%.+]] = arith.extf [[IN]] : f16 to f32
// BODY-NEXT:      [[MX:%.+]] = arith.maximumf [[ACC]], [[W]] : f32
// BODY-NEXT:      linalg.yield [[MX]] : f32
func.func @max_pool_f16_padded(%x: tensor<2x3x9x9xf16>) -> tensor<2x3x5x5xf16> {
  %0 = mixprec.max_pool2d %x {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>} : tensor<2x3x9x9xf16>
  return %0 : tensor<2x3x5x5xf16>
}

// -----

// f32 without padding: no tensor.pad and nothing to round.
// CHECK-LABEL: func.func @max_pool_f32(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<2x3x9x7xf32>)
// CHECK-NOT:     tensor.pad
// CHECK:         [[M:%.+]] = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins([[X]], %{{.+}} : tensor<2x3x9x7xf32>, tensor<2x3xf32>) outs(%{{.+}} : tensor<2x3x4x5xf32>)
// CHECK-NEXT:    return [[M]] : tensor<2x3x4x5xf32>
func.func @max_pool_f32(%x: tensor<2x3x9x7xf32>) -> tensor<2x3x4x5xf32> {
  %0 = mixprec.max_pool2d %x {kernel = array<i64: 2, 3>, stride = array<i64: 2, 1>} : tensor<2x3x9x7xf32>
  return %0 : tensor<2x3x4x5xf32>
}

// -----

// Average: zero padding that counts in the divisor (kernel_h * kernel_w = 6),
// an f32 sum, one division and one rounding to bf16.
// CHECK-LABEL: func.func @avg_pool_bf16_padded(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<2x3x9x7xbf16>)
// CHECK:         [[ZERO16:%.+]] = arith.constant 0.000000e+00 : bf16
// CHECK:         [[P:%.+]] = tensor.pad [[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:           tensor.yield [[ZERO16]] : bf16
// CHECK:         } : tensor<2x3x9x7xbf16> to tensor<2x3x11x9xbf16>
// CHECK:         [[ZERO:%.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         [[ACC:%.+]] = linalg.fill ins([[ZERO]] : f32) outs(%{{.+}} : tensor<2x3x5x7xf32>)
// CHECK:         [[WIN:%.+]] = tensor.empty() : tensor<2x3xf32>
// CHECK:         [[S:%.+]] = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins([[P]], [[WIN]] : tensor<2x3x11x9xbf16>, tensor<2x3xf32>) outs([[ACC]] : tensor<2x3x5x7xf32>)
// CHECK:         [[R:%.+]] = linalg.generic {{.*}} ins([[S]] : tensor<2x3x5x7xf32>) outs(%{{.+}} : tensor<2x3x5x7xbf16>)
// CHECK-NEXT:    ^bb0([[V:%.+]]: f32, %{{.+}}: bf16):
// CHECK-NEXT:      [[N:%.+]] = arith.constant 6.000000e+00 : f32
// CHECK-NEXT:      [[D:%.+]] = arith.divf [[V]], [[N]] : f32
// CHECK-NEXT:      [[T:%.+]] = arith.truncf [[D]] : f32 to bf16
// CHECK-NEXT:      linalg.yield [[T]] : bf16
// CHECK:         return [[R]] : tensor<2x3x5x7xbf16>

// BODY-LABEL: func.func @avg_pool_bf16_padded(
// BODY:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// BODY-NEXT:    ^bb0([[IN:%.+]]: bf16, %{{.+}}: f32, [[ACC:%.+]]: f32):
// BODY-NEXT:      [[W:%.+]] = arith.extf [[IN]] : bf16 to f32
// BODY-NEXT:      [[SUM:%.+]] = arith.addf [[ACC]], [[W]] : f32
// BODY-NEXT:      linalg.yield [[SUM]] : f32
func.func @avg_pool_bf16_padded(%x: tensor<2x3x9x7xbf16>) -> tensor<2x3x5x7xbf16> {
  %0 = mixprec.avg_pool2d %x {kernel = array<i64: 2, 3>, stride = array<i64: 2, 1>, padding = array<i64: 1, 1>} : tensor<2x3x9x7xbf16>
  return %0 : tensor<2x3x5x7xbf16>
}

// -----

// f32 without padding: the division is the only epilogue; no rounding.
// CHECK-LABEL: func.func @avg_pool_f32(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<2x3x8x8xf32>)
// CHECK-NOT:     tensor.pad
// CHECK:         [[S:%.+]] = linalg.pooling_nchw_sum {{.*}} ins([[X]], %{{.+}} : tensor<2x3x8x8xf32>, tensor<2x2xf32>) outs(%{{.+}} : tensor<2x3x4x4xf32>)
// CHECK:         [[R:%.+]] = linalg.generic {{.*}} ins([[S]] : tensor<2x3x4x4xf32>) outs(%{{.+}} : tensor<2x3x4x4xf32>)
// CHECK:           arith.divf %{{.+}}, %{{.+}} : f32
// CHECK-NOT:       arith.truncf
// CHECK:         return [[R]] : tensor<2x3x4x4xf32>
func.func @avg_pool_f32(%x: tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32> {
  %0 = mixprec.avg_pool2d %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<2x3x8x8xf32>
  return %0 : tensor<2x3x4x4xf32>
}
