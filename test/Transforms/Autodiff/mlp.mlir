// RUN: mixprec-opt %mixprec_src_root/examples/mlp.mlir --mixprec-autodiff | FileCheck %s
// RUN: mixprec-opt %mixprec_src_root/examples/mlp.mlir --mixprec-autocast --mixprec-autodiff | FileCheck %s --check-prefix=AMP

// The digits MLP's gradient function: the forward, the seed, the reverse
// sweep (softmax_cross_entropy, linear, relu, linear), and every
// parameter's gradient, marked, in declaration order.

// CHECK-LABEL: func.func @train_gradients(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<64x64xf32>, [[LABELS:%[^:]+]]: tensor<64xi32>)
// CHECK-SAME:    -> (tensor<f32>, tensor<128x64xf32> {mixprec.gradient_of = @fc1_weight}, tensor<128xf32> {mixprec.gradient_of = @fc1_bias}, tensor<10x128xf32> {mixprec.gradient_of = @fc2_weight}, tensor<10xf32> {mixprec.gradient_of = @fc2_bias})
// CHECK:         [[W1:%.+]] = mixprec.read @fc1_weight
// CHECK:         [[W2:%.+]] = mixprec.read @fc2_weight
// CHECK:         [[H:%.+]] = mixprec.linear [[X]], [[W1]]
// CHECK-NEXT:    [[A:%.+]] = mixprec.relu [[H]]
// CHECK-NEXT:    [[LOGITS:%.+]] = mixprec.linear [[A]], [[W2]]
// CHECK-NEXT:    [[LOSS:%.+]] = mixprec.softmax_cross_entropy [[LOGITS]], [[LABELS]]
// CHECK-NEXT:    [[SEED:%.+]] = mixprec.constant {mixprec.loss_seed} dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    [[DLOGITS:%.+]] = mixprec.softmax_cross_entropy_grad [[SEED]], [[LOGITS]], [[LABELS]]
// CHECK-NEXT:    [[DA:%.+]] = mixprec.matmul [[DLOGITS]], [[W2]] : tensor<64x10xf32>, tensor<10x128xf32> -> tensor<64x128xf32>
// CHECK-NEXT:    [[DW2:%.+]] = mixprec.matmul [[DLOGITS]], [[A]] {transpose_lhs} : tensor<64x10xf32>, tensor<64x128xf32> -> tensor<10x128xf32>
// CHECK-NEXT:    [[DB2:%.+]] = mixprec.reduce_sum [[DLOGITS]] {dims = array<i64: 0>}
// CHECK-NEXT:    [[DH:%.+]] = mixprec.relu_grad [[DA]], [[H]]
// CHECK-NEXT:    [[DW1:%.+]] = mixprec.matmul [[DH]], [[X]] {transpose_lhs} : tensor<64x128xf32>, tensor<64x64xf32> -> tensor<128x64xf32>
// CHECK-NEXT:    [[DB1:%.+]] = mixprec.reduce_sum [[DH]] {dims = array<i64: 0>}
// CHECK-NEXT:    return [[LOSS]], [[DW1]], [[DB1]], [[DW2]], [[DB2]]

// After autocast the adjoints run in their forward ops' precision: the
// backward contractions take f16, relu_grad runs in f16, and the adjoints of
// the parameters' casts bring the gradients back to FP32 -- the weight
// gradients straight from the matmuls' FP32 accumulators. No gradient of the
// batch is computed.
// AMP-LABEL: func.func @train_gradients(
// AMP:         [[X16:%.+]] = mixprec.cast %arg0 {{.*}} to tensor<64x64xf16>
// AMP:         [[SEED:%.+]] = mixprec.constant {mixprec.loss_seed}
// AMP-NEXT:    [[DLOGITS:%.+]] = mixprec.softmax_cross_entropy_grad [[SEED]], {{.*}} : tensor<64x10xf32>, tensor<64xi32>
// AMP-NEXT:    [[DLOGITS16:%.+]] = mixprec.cast [[DLOGITS]] : tensor<64x10xf32> to tensor<64x10xf16>
// AMP-NEXT:    [[DA:%.+]] = mixprec.matmul [[DLOGITS16]], {{.*}} : tensor<64x10xf16>, tensor<10x128xf16> -> tensor<64x128xf16>
// AMP-NEXT:    [[DW2:%.+]] = mixprec.matmul [[DLOGITS16]], {{.*}} {transpose_lhs} : tensor<64x10xf16>, tensor<64x128xf16> -> tensor<10x128xf32>
// AMP-NEXT:    [[DB2:%.+]] = mixprec.reduce_sum [[DLOGITS16]] {{.*}} : tensor<64x10xf16>
// AMP-NEXT:    [[DH:%.+]] = mixprec.relu_grad [[DA]], {{.*}} : tensor<64x128xf16>
// AMP-NEXT:    [[DW1:%.+]] = mixprec.matmul [[DH]], [[X16]] {transpose_lhs} : tensor<64x128xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
// AMP-NOT:     mixprec.matmul
// AMP-DAG:     [[DB2_32:%.+]] = mixprec.cast [[DB2]] : tensor<10xf16> to tensor<10xf32>
// AMP:         return {{%.+}}, [[DW1]], {{%.+}}, [[DW2]], [[DB2_32]] : tensor<f32>, tensor<128x64xf32>, tensor<128xf32>, tensor<10x128xf32>, tensor<10xf32>

// The train-step op becomes the SGD step: the gradients, the step count's
// increment, then per parameter a read of its momentum buffer (declared with
// zeros), sgd_update with the learning-rate argument, and assigns of the new
// parameter and buffer.
// CHECK-LABEL: func.func @train(
// CHECK-SAME:    %{{[^:]+}}: tensor<64x64xf32>, %{{[^:]+}}: tensor<64xi32>, [[LR:%[^:]+]]: tensor<f32>) -> tensor<f32> attributes {mixprec.optimizer_step}
// CHECK:         [[SEED:%.+]] = mixprec.constant {mixprec.loss_seed}
// CHECK:         [[DW1:%.+]] = mixprec.matmul {{.*}} -> tensor<128x64xf32>
// CHECK:         [[COUNT:%.+]] = mixprec.read @train.step_count : tensor<i64>
// CHECK-NEXT:    [[NEXT:%.+]] = mixprec.increment [[COUNT]] : tensor<i64>
// CHECK-NEXT:    mixprec.assign @train.step_count, [[NEXT]] : tensor<i64>
// CHECK-NEXT:    [[W1:%.+]] = mixprec.read @fc1_weight : tensor<128x64xf32>
// CHECK-NEXT:    [[M1:%.+]] = mixprec.read @train.fc1_weight.momentum_buffer : tensor<128x64xf32>
// CHECK-NEXT:    [[NEW:%[^,]+]], [[NEWM:%.+]] = mixprec.sgd_update [[W1]], [[DW1]], [[LR]], [[M1]] {optimizer = #mixprec.sgd<momentum = 9.000000e-01>} :
// CHECK-NEXT:    mixprec.assign @fc1_weight, [[NEW]]
// CHECK-NEXT:    mixprec.assign @train.fc1_weight.momentum_buffer, [[NEWM]]
// CHECK-COUNT-3: mixprec.sgd_update
// CHECK:         return
// CHECK-DAG:   mixprec.buffer @train.step_count : tensor<i64> = #mixprec.zeros role step_count{{$}}
// CHECK-DAG:   mixprec.buffer @train.fc1_weight.momentum_buffer : tensor<128x64xf32> = #mixprec.zeros role moment{{$}}
// CHECK-DAG:   mixprec.buffer @train.fc2_bias.momentum_buffer : tensor<10xf32> = #mixprec.zeros role moment{{$}}
// CHECK-NOT:   mixprec.train_step
