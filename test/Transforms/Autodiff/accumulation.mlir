// RUN: mixprec-opt %s --mixprec-autodiff | FileCheck %s

// Two micro-batches stacked along dim 0: a slice of each input per copy of
// the forward and backward, the second copy reading the buffer value the
// first one assigned, one assign in all, and FP32 averages of the losses
// and gradients feeding one update.

mixprec.parameter @w : tensor<4x3xf32> = #mixprec.kaiming_uniform<seed = 1>
mixprec.buffer @seen : tensor<3xf32> = #mixprec.zeros
func.func @loss(%x: tensor<2x3xf32>, %t: tensor<2xi32>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<4x3xf32>
  %s = mixprec.read @seen : tensor<3xf32>
  %r = mixprec.reduce_sum %x {dims = array<i64: 0>} : tensor<2x3xf32>
  %n = mixprec.add %s, %r : tensor<3xf32>, tensor<3xf32>
  mixprec.assign @seen, %n : tensor<3xf32>
  %y = mixprec.matmul %x, %w {transpose_rhs} : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<2x4xf32>
  %l = mixprec.softmax_cross_entropy %y, %t : tensor<2x4xf32>, tensor<2xi32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<> {accumulation_steps = 2}

// CHECK-LABEL: func.func @train(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<4x3xf32>, [[T:%[^:]+]]: tensor<4xi32>, [[LR:%[^:]+]]: tensor<f32>) -> tensor<f32> attributes {mixprec.optimizer_step}
// CHECK:         [[X0:%.+]] = mixprec.slice [[X]] {offsets = array<i64: 0, 0>, sizes = array<i64: 2, 3>}
// CHECK:         [[T0:%.+]] = mixprec.slice [[T]] {offsets = array<i64: 0>, sizes = array<i64: 2>}
// CHECK:         [[SEEN:%.+]] = mixprec.read @seen
// CHECK:         [[SEEN1:%.+]] = mixprec.add [[SEEN]]
// CHECK-NOT:     mixprec.assign @seen
// CHECK:         [[L0:%.+]] = mixprec.softmax_cross_entropy {{%[^,]+}}, [[T0]]
// CHECK:         [[G0:%.+]] = mixprec.matmul {{.*}} {transpose_lhs}
// CHECK:         [[X1:%.+]] = mixprec.slice [[X]] {offsets = array<i64: 2, 0>, sizes = array<i64: 2, 3>}
// CHECK:         [[T1:%.+]] = mixprec.slice [[T]] {offsets = array<i64: 2>, sizes = array<i64: 2>}
// CHECK-NOT:     mixprec.read @seen
// CHECK:         [[SEEN2:%.+]] = mixprec.add [[SEEN1]]
// CHECK-NEXT:    mixprec.assign @seen, [[SEEN2]]
// CHECK:         [[L1:%.+]] = mixprec.softmax_cross_entropy {{%[^,]+}}, [[T1]]
// CHECK:         [[G1:%.+]] = mixprec.matmul {{.*}} {transpose_lhs}
// CHECK:         [[LSUM:%.+]] = mixprec.add [[L0]], [[L1]]
// CHECK-NEXT:    [[GSUM:%.+]] = mixprec.add [[G0]], [[G1]]
// CHECK-NEXT:    [[HALF:%.+]] = mixprec.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:    [[LOSS:%.+]] = mixprec.mul [[LSUM]], [[HALF]]
// CHECK-NEXT:    [[HALF2:%.+]] = mixprec.constant dense<5.000000e-01> : tensor<4x3xf32>
// CHECK-NEXT:    [[GRAD:%.+]] = mixprec.mul [[GSUM]], [[HALF2]]
// CHECK:         mixprec.increment
// CHECK:         [[W:%.+]] = mixprec.read @w
// CHECK-NEXT:    [[NEW:%.+]] = mixprec.sgd_update [[W]], [[GRAD]], [[LR]]
// CHECK-NEXT:    mixprec.assign @w, [[NEW]]
// CHECK-NEXT:    return [[LOSS]]
