// RUN: mixprec-opt %s -split-input-file --mixprec-autocast | FileCheck %s --check-prefixes=CHECK,F16
// RUN: mixprec-opt %s -split-input-file --mixprec-autocast=precision=bf16 | FileCheck %s --check-prefixes=CHECK,BF16

// One function per category, in both precisions.

// tensor_core: every contraction takes 16-bit inputs (bias included) and,
// feeding only the FP32 return, yields its FP32 accumulator.
// CHECK-LABEL: func.func @tensor_core(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<2x3x4x4xf32>, [[W:%[^:]+]]: tensor<5x3x3x3xf32>, [[A:%[^:]+]]: tensor<2x4x6xf32>, [[L:%[^:]+]]: tensor<7x6xf32>, [[B:%[^:]+]]: tensor<7xf32>)
// F16-DAG:       [[X16:%.+]] = mixprec.cast [[X]] {{.*}} to tensor<2x3x4x4xf16>
// F16-DAG:       [[W16:%.+]] = mixprec.cast [[W]] {{.*}} to tensor<5x3x3x3xf16>
// F16-DAG:       [[A16:%.+]] = mixprec.cast [[A]] {{.*}} to tensor<2x4x6xf16>
// F16-DAG:       [[L16:%.+]] = mixprec.cast [[L]] {{.*}} to tensor<7x6xf16>
// F16-DAG:       [[B16:%.+]] = mixprec.cast [[B]] {{.*}} to tensor<7xf16>
// F16:           mixprec.conv2d [[X16]], [[W16]] {mixprec.autocast = "tensor_core"} : tensor<2x3x4x4xf16>, tensor<5x3x3x3xf16> -> tensor<2x5x2x2xf32>
// F16:           mixprec.linear [[A16]], [[L16]], [[B16]] {mixprec.autocast = "tensor_core"} : tensor<2x4x6xf16>, tensor<7x6xf16>, tensor<7xf16> -> tensor<2x4x7xf32>
// F16:           mixprec.batch_matmul [[A16]], [[A16]] {mixprec.autocast = "tensor_core", transpose_rhs} : tensor<2x4x6xf16>, tensor<2x4x6xf16> -> tensor<2x4x4xf32>
// F16:           mixprec.matmul [[L16]], [[L16]] {mixprec.autocast = "tensor_core", transpose_rhs} : tensor<7x6xf16>, tensor<7x6xf16> -> tensor<7x7xf32>
// BF16-DAG:      [[X16:%.+]] = mixprec.cast [[X]] {{.*}} to tensor<2x3x4x4xbf16>
// BF16-DAG:      [[W16:%.+]] = mixprec.cast [[W]] {{.*}} to tensor<5x3x3x3xbf16>
// BF16-DAG:      [[A16:%.+]] = mixprec.cast [[A]] {{.*}} to tensor<2x4x6xbf16>
// BF16-DAG:      [[L16:%.+]] = mixprec.cast [[L]] {{.*}} to tensor<7x6xbf16>
// BF16-DAG:      [[B16:%.+]] = mixprec.cast [[B]] {{.*}} to tensor<7xbf16>
// BF16:          mixprec.conv2d [[X16]], [[W16]] {{.*}} : tensor<2x3x4x4xbf16>, tensor<5x3x3x3xbf16> -> tensor<2x5x2x2xf32>
// BF16:          mixprec.linear [[A16]], [[L16]], [[B16]] {{.*}} -> tensor<2x4x7xf32>
// BF16:          mixprec.batch_matmul [[A16]], [[A16]] {{.*}} -> tensor<2x4x4xf32>
// BF16:          mixprec.matmul [[L16]], [[L16]] {{.*}} -> tensor<7x7xf32>
func.func @tensor_core(%x: tensor<2x3x4x4xf32>, %w: tensor<5x3x3x3xf32>, %a: tensor<2x4x6xf32>, %l: tensor<7x6xf32>, %b: tensor<7xf32>) -> (tensor<2x5x2x2xf32>, tensor<2x4x7xf32>, tensor<2x4x4xf32>, tensor<7x7xf32>) {
  %c = mixprec.conv2d %x, %w : tensor<2x3x4x4xf32>, tensor<5x3x3x3xf32> -> tensor<2x5x2x2xf32>
  %y = mixprec.linear %a, %l, %b : tensor<2x4x6xf32>, tensor<7x6xf32>, tensor<7xf32> -> tensor<2x4x7xf32>
  %s = mixprec.batch_matmul %a, %a {transpose_rhs} : tensor<2x4x6xf32>, tensor<2x4x6xf32> -> tensor<2x4x4xf32>
  %m = mixprec.matmul %l, %l {transpose_rhs} : tensor<7x6xf32>, tensor<7x6xf32> -> tensor<7x7xf32>
  return %c, %y, %s, %m : tensor<2x5x2x2xf32>, tensor<2x4x7xf32>, tensor<2x4x4xf32>, tensor<7x7xf32>
}

// -----

// fp32: 16-bit inputs are cast up, once each, and the ops run in FP32; the
// results are cast back only because the signature is 16-bit. Batch-norm
// statistics are FP32 state whatever the op's precision.
// CHECK-LABEL: func.func @fp32(
// F16-SAME:      [[X:%[^:]+]]: tensor<4x8xf16>
// F16:           [[X32:%.+]] = mixprec.cast [[X]] {{.*}}: tensor<4x8xf16> to tensor<4x8xf32>
// F16-NOT:       mixprec.cast [[X]]
// F16:           mixprec.exp [[X32]] {mixprec.autocast = "fp32"} : tensor<4x8xf32>
// F16:           mixprec.log [[X32]] {mixprec.autocast = "fp32"} : tensor<4x8xf32>
// F16:           mixprec.softmax [[X32]] {{.*}}: tensor<4x8xf32>
// F16:           mixprec.log_softmax [[X32]] {{.*}}: tensor<4x8xf32>
// F16:           mixprec.layer_norm [[X32]] {{.*}}: tensor<4x8xf32>
// F16:           mixprec.batch_norm [[X32]], {{%[^,]+}}, {{%[^ ]+}} {{.*}}: tensor<4x8xf32>, tensor<8xf32>
// F16:           mixprec.reduce_sum [[X32]] {{.*}}: tensor<4x8xf32>
// F16:           mixprec.reduce_mean [[X32]] {{.*}}: tensor<4x8xf32>
// F16:           mixprec.mse [[X32]], [[X32]] {{.*}}: tensor<4x8xf32>
// BF16-NOT:      mixprec.cast {{.*}}bf16
// BF16:          mixprec.exp {{.*}} : tensor<4x8xf32>
func.func @fp32(%x: tensor<4x8xf16>, %mean: tensor<8xf32>, %var: tensor<8xf32>) -> (tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<8xf32>, tensor<8xf32>, tensor<8xf16>, tensor<8xf16>, tensor<f16>) {
  %e = mixprec.exp %x : tensor<4x8xf16>
  %l = mixprec.log %x : tensor<4x8xf16>
  %s = mixprec.softmax %x {axis = 1 : i64} : tensor<4x8xf16>
  %ls = mixprec.log_softmax %x {axis = 1 : i64} : tensor<4x8xf16>
  %n = mixprec.layer_norm %x {axis = 1 : i64} : tensor<4x8xf16>
  %b, %m, %v = mixprec.batch_norm %x, %mean, %var : tensor<4x8xf16>, tensor<8xf32>
  %rs = mixprec.reduce_sum %x {dims = array<i64: 0>} : tensor<4x8xf16>
  %rm = mixprec.reduce_mean %x {dims = array<i64: 0>} : tensor<4x8xf16>
  %mse = mixprec.mse %x, %x : tensor<4x8xf16>, tensor<4x8xf16>
  return %e, %l, %s, %ls, %n, %b, %m, %v, %rs, %rm, %mse : tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<8xf32>, tensor<8xf32>, tensor<8xf16>, tensor<8xf16>, tensor<f16>
}

// -----

// promote: 16 bits only when every input is 16-bit; inputs of one type that
// is not the target (f16 under precision=bf16) keep it.
// CHECK-LABEL: func.func @promote(
// CHECK-SAME:    [[H:%[^:]+]]: tensor<4xf16>, [[G:%[^:]+]]: tensor<4xf16>, [[F:%[^:]+]]: tensor<4xf32>)
// CHECK-NEXT:    [[H32:%.+]] = mixprec.cast [[H]] {{.*}}: tensor<4xf16> to tensor<4xf32>
// CHECK-NEXT:    mixprec.sub [[H]], [[G]] {mixprec.autocast = "propagated (promote)"} : tensor<4xf16>, tensor<4xf16>
// CHECK-NEXT:    mixprec.maximum [[H]], [[G]] {{.*}}: tensor<4xf16>, tensor<4xf16>
// CHECK-NEXT:    mixprec.concat [[H]], [[G]] {{.*}}: tensor<4xf16>, tensor<4xf16>
// CHECK-NEXT:    mixprec.div [[F]], [[H32]] {{.*}}: tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:    mixprec.concat [[F]], [[H32]] {{.*}}: tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:    return
func.func @promote(%h: tensor<4xf16>, %g: tensor<4xf16>, %f: tensor<4xf32>) -> (tensor<4xf16>, tensor<4xf16>, tensor<8xf16>, tensor<4xf32>, tensor<8xf32>) {
  %0 = mixprec.sub %h, %g : tensor<4xf16>, tensor<4xf16>
  %1 = mixprec.maximum %h, %g : tensor<4xf16>, tensor<4xf16>
  %2 = mixprec.concat %h, %g {axis = 0 : i64} : tensor<4xf16>, tensor<4xf16>
  %3 = mixprec.div %f, %h : tensor<4xf32>, tensor<4xf16>
  %4 = mixprec.concat %f, %h {axis = 0 : i64} : tensor<4xf32>, tensor<4xf16>
  return %0, %1, %2, %3, %4 : tensor<4xf16>, tensor<4xf16>, tensor<8xf16>, tensor<4xf32>, tensor<8xf32>
}

// -----

// follow: ops run in their input's precision; f16 and bf16 inputs both stay
// as they are, with no cast anywhere.
// CHECK-LABEL: func.func @follow(
// CHECK-NOT:     mixprec.cast
// CHECK:         mixprec.gelu {{.*}}: tensor<2x4xbf16>
// CHECK:         mixprec.tanh {{.*}}: tensor<2x4xf16>
// CHECK:         mixprec.reduce_max {{.*}}: tensor<2x4xf16>
// CHECK:         mixprec.transpose {{.*}}: tensor<2x4xf32>
// CHECK-NOT:     mixprec.cast
func.func @follow(%b: tensor<2x4xbf16>, %h: tensor<2x4xf16>, %f: tensor<2x4xf32>) -> (tensor<2x4xbf16>, tensor<2x4xf16>, tensor<4xf16>, tensor<4x2xf32>) {
  %0 = mixprec.gelu %b : tensor<2x4xbf16>
  %1 = mixprec.tanh %h : tensor<2x4xf16>
  %2 = mixprec.reduce_max %h {dims = array<i64: 0>} : tensor<2x4xf16>
  %3 = mixprec.transpose %f {permutation = array<i64: 1, 0>} : tensor<2x4xf32>
  return %0, %1, %2, %3 : tensor<2x4xbf16>, tensor<2x4xf16>, tensor<4xf16>, tensor<4x2xf32>
}
