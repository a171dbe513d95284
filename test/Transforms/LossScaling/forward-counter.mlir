// RUN: mixprec-opt %s --mixprec-autodiff --mixprec-loss-scaling | FileCheck %s

// A forward that counts its batches with mixprec.increment (batch norm's
// num_batches_tracked) and updates a running statistic. Both are forward
// state: PyTorch updates them even when GradScaler skips the step, and
// Passes.td guards only what an optimizer update "or the step count's
// increment" assigns. So @num_batches and @running keep plain assigns, the
// unscaling sits after the backward sweep, and only the step count, the
// parameter and the scaler's state are selected.

mixprec.parameter @w : tensor<4x3xf32> = #mixprec.kaiming_uniform<seed = 1>
mixprec.buffer @running : tensor<3xf32> = #mixprec.zeros
mixprec.buffer @num_batches : tensor<i64> = #mixprec.zeros
func.func @loss(%x: tensor<2x3xf32>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<4x3xf32>
  %s = mixprec.read @running : tensor<3xf32>
  %r = mixprec.reduce_mean %x {dims = array<i64: 0>} : tensor<2x3xf32>
  %n = mixprec.add %s, %r : tensor<3xf32>, tensor<3xf32>
  mixprec.assign @running, %n : tensor<3xf32>
  %c = mixprec.read @num_batches : tensor<i64>
  %c1 = mixprec.increment %c : tensor<i64>
  mixprec.assign @num_batches, %c1 : tensor<i64>
  %y = mixprec.matmul %x, %w {transpose_rhs} : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<2x4xf32>
  %l = mixprec.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<2x4xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>

// CHECK-LABEL: func.func @train(
// CHECK:         [[S:%.+]] = mixprec.read @train.loss_scale : tensor<f32>
// CHECK:         [[NR:%.+]] = mixprec.add {{%[^,]+}}, {{%[^ ]+}} : tensor<3xf32>, tensor<3xf32>
// CHECK-NEXT:    mixprec.assign @running, [[NR]] : tensor<3xf32>
// CHECK-NEXT:    [[C:%.+]] = mixprec.read @num_batches : tensor<i64>
// CHECK-NEXT:    [[C1:%.+]] = mixprec.increment [[C]] : tensor<i64>
// CHECK-NEXT:    mixprec.assign @num_batches, [[C1]] : tensor<i64>
// CHECK-NOT:     mixprec.all_finite
// CHECK-NOT:     mixprec.select
// CHECK:         [[SEED:%.+]] = mixprec.constant {mixprec.loss_seed}
// CHECK-NEXT:    mixprec.mul [[SEED]], [[S]]
// CHECK-NOT:     mixprec.all_finite
// CHECK:         [[G:%.+]] = mixprec.matmul {{.*}} {transpose_lhs} : tensor<2x4xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
// CHECK-NOT:     mixprec.select
// CHECK:         [[INV:%.+]] = mixprec.div {{%[^,]+}}, [[S]] : tensor<f32>, tensor<f32>
// CHECK-NEXT:    [[INVW:%.+]] = mixprec.broadcast [[INV]] : tensor<f32> -> tensor<4x3xf32>
// CHECK-NEXT:    [[U:%.+]] = mixprec.mul [[G]], [[INVW]] : tensor<4x3xf32>, tensor<4x3xf32>
// CHECK-NEXT:    [[OK:%[^,]+]], {{%.+}} = mixprec.all_finite [[U]] : tensor<4x3xf32>
// CHECK:         [[NEXT:%.+]] = mixprec.increment {{%[^ ]+}} : tensor<i64>
// CHECK:         mixprec.select [[OK]], [[NEXT]], {{%[^ ]+}} : tensor<i64>
// CHECK-NEXT:    mixprec.assign @train.step_count
// CHECK:         [[NW:%.+]] = mixprec.sgd_update {{%[^,]+}}, [[U]]
// CHECK:         [[KW:%.+]] = mixprec.select [[OK]], [[NW]], {{%[^ ]+}} : tensor<4x3xf32>
// CHECK-NEXT:    mixprec.assign @w, [[KW]] : tensor<4x3xf32>
// CHECK-NOT:     mixprec.assign @num_batches
// CHECK-NOT:     mixprec.assign @running
// CHECK:         mixprec.loss_scale_update
// CHECK-NOT:     mixprec.assign @num_batches
// CHECK-NOT:     mixprec.assign @running
// CHECK:         return
