// RUN: mixprec-opt %s --mixprec-autodiff --mixprec-loss-scaling | FileCheck %s

// SGD with dampening under dynamic loss scaling. The update takes the
// incremented step count, but a skipped step writes the old count back (as
// it does the parameter and its buffer), so the first step that is not
// skipped is the one that sets the buffer to the undamped gradient, as with
// PyTorch's GradScaler, which skips optimizer.step().

mixprec.parameter @w : tensor<4x3xf32> = #mixprec.kaiming_uniform<seed = 1>
func.func @loss(%x: tensor<2x3xf32>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<4x3xf32>
  %y = mixprec.matmul %x, %w {transpose_rhs} : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<2x4xf32>
  %l = mixprec.reduce_mean %y {dims = array<i64: 0, 1>} : tensor<2x4xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<momentum = 0.9, dampening = 0.5>

// CHECK-LABEL: func.func @train(
// CHECK-SAME:    %{{[^:]+}}: tensor<2x3xf32>, [[LR:%[^:]+]]: tensor<f32>) -> tensor<f32> attributes {mixprec.optimizer_step} {
// CHECK:         [[OK:%[^,]+]], {{%.+}} = mixprec.all_finite [[UW:%[^ ]+]] : tensor<4x3xf32>
// CHECK-NEXT:    [[COUNT:%.+]] = mixprec.read @train.step_count : tensor<i64>
// CHECK-NEXT:    [[NEXT:%.+]] = mixprec.increment [[COUNT]] : tensor<i64>
// CHECK-NEXT:    [[OLDC:%.+]] = mixprec.read @train.step_count : tensor<i64>
// CHECK-NEXT:    [[KEPTC:%.+]] = mixprec.select [[OK]], [[NEXT]], [[OLDC]] : tensor<i64>
// CHECK-NEXT:    mixprec.assign @train.step_count, [[KEPTC]] : tensor<i64>
// CHECK-NEXT:    [[W:%.+]] = mixprec.read @w : tensor<4x3xf32>
// CHECK-NEXT:    [[MW:%.+]] = mixprec.read @train.w.momentum_buffer : tensor<4x3xf32>
// CHECK-NEXT:    [[NW:%[^,]+]], [[NMW:%.+]] = mixprec.sgd_update [[W]], [[UW]], [[LR]], [[MW]] step [[NEXT]] {optimizer = #mixprec.sgd<momentum = 9.000000e-01, dampening = 5.000000e-01>} : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>, tensor<4x3xf32>, tensor<i64>) -> (tensor<4x3xf32>, tensor<4x3xf32>)
// CHECK-NEXT:    [[OLDW:%.+]] = mixprec.read @w : tensor<4x3xf32>
// CHECK-NEXT:    [[KW:%.+]] = mixprec.select [[OK]], [[NW]], [[OLDW]] : tensor<4x3xf32>
// CHECK-NEXT:    mixprec.assign @w, [[KW]] : tensor<4x3xf32>
// CHECK-NEXT:    [[OLDMW:%.+]] = mixprec.read @train.w.momentum_buffer : tensor<4x3xf32>
// CHECK-NEXT:    [[KMW:%.+]] = mixprec.select [[OK]], [[NMW]], [[OLDMW]] : tensor<4x3xf32>
// CHECK-NEXT:    mixprec.assign @train.w.momentum_buffer, [[KMW]] : tensor<4x3xf32>
