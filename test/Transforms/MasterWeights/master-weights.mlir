// RUN: mixprec-opt %s -split-input-file --mixprec-autocast --mixprec-autodiff --mixprec-master-weights | FileCheck %s
// RUN: mixprec-opt %s -split-input-file --mixprec-autocast --mixprec-autodiff --mixprec-master-weights=mode=fp32 | FileCheck %s
// RUN: mixprec-opt %s -split-input-file --mixprec-autocast --mixprec-autodiff --mixprec-master-weights=mode=none | FileCheck %s --check-prefix=NONE
// RUN: not mixprec-opt %s -split-input-file --mixprec-autocast --mixprec-autodiff --mixprec-master-weights=mode=fp16 2>&1 | FileCheck %s --check-prefix=ERR

// ERR: mixprec-opt: for the --mode option: 'fp16' is not one of fp32, none{{$}}

// A matmul weight (cast to f16 by autocast), a layer_norm scale and bias
// (FP32 op), and a bias added after an FP32 reduction.

mixprec.parameter @w : tensor<4x3xf32> = #mixprec.kaiming_uniform<seed = 1>
mixprec.parameter @g : tensor<4xf32> = #mixprec.ones
mixprec.parameter @beta : tensor<4xf32> = #mixprec.zeros
mixprec.parameter @b : tensor<4xf32> = #mixprec.zeros
func.func @loss(%x: tensor<2x3xf32>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<4x3xf32>
  %g = mixprec.read @g : tensor<4xf32>
  %beta = mixprec.read @beta : tensor<4xf32>
  %b = mixprec.read @b : tensor<4xf32>
  %y = mixprec.matmul %x, %w {transpose_rhs} : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<2x4xf32>
  %n = mixprec.layer_norm %y scale %g bias %beta {axis = 1 : i64} : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>
  %s = mixprec.reduce_sum %n {dims = array<i64: 0>} : tensor<2x4xf32>
  %t = mixprec.add %s, %b : tensor<4xf32>, tensor<4xf32>
  %l = mixprec.reduce_sum %t {dims = array<i64: 0>} : tensor<4xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<momentum = 0.9>

// FP32 masters: nothing to change. The weight keeps its FP32 storage, its
// read is cast to the f16 working copy, and every update takes an FP32
// gradient (the weight's straight from the matmul's FP32 accumulator).
// CHECK:         mixprec.parameter @w : tensor<4x3xf32>
// CHECK-NEXT:    mixprec.parameter @g : tensor<4xf32>
// CHECK-NEXT:    mixprec.parameter @beta : tensor<4xf32>
// CHECK-NEXT:    mixprec.parameter @b : tensor<4xf32>
// CHECK-LABEL: func.func @train(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<2x3xf32>, [[LR:%[^:]+]]: tensor<f32>)
// CHECK-NEXT:    [[X16:%.+]] = mixprec.cast [[X]] {{.*}} : tensor<2x3xf32> to tensor<2x3xf16>
// CHECK-NEXT:    [[W:%.+]] = mixprec.read @w : tensor<4x3xf32>
// CHECK-NEXT:    [[W16:%.+]] = mixprec.cast [[W]] {{.*}} : tensor<4x3xf32> to tensor<4x3xf16>
// CHECK-NEXT:    [[G:%.+]] = mixprec.read @g : tensor<4xf32>
// CHECK-NEXT:    [[BETA:%.+]] = mixprec.read @beta : tensor<4xf32>
// CHECK-NEXT:    [[B:%.+]] = mixprec.read @b : tensor<4xf32>
// CHECK-NEXT:    [[Y:%.+]] = mixprec.matmul [[X16]], [[W16]] {{.*}} : tensor<2x3xf16>, tensor<4x3xf16> -> tensor<2x4xf32>
// CHECK-NEXT:    mixprec.layer_norm [[Y]] scale [[G]] bias [[BETA]] {{.*}} : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>
// CHECK:         mixprec.add {{%[^,]+}}, [[B]] {{.*}} : tensor<4xf32>, tensor<4xf32>
// CHECK:         [[DX:%[^,]+]], [[DG:%[^,]+]], [[DBETA:%[^ ]+]] = mixprec.layer_norm_grad
// CHECK-NEXT:    [[DX16:%.+]] = mixprec.cast [[DX]] : tensor<2x4xf32> to tensor<2x4xf16>
// CHECK-NEXT:    [[DW:%.+]] = mixprec.matmul [[DX16]], [[X16]] {transpose_lhs} : tensor<2x4xf16>, tensor<2x3xf16> -> tensor<4x3xf32>
// CHECK:         [[W2:%.+]] = mixprec.read @w : tensor<4x3xf32>
// CHECK-NEXT:    [[MW:%.+]] = mixprec.read @train.w.momentum_buffer : tensor<4x3xf32>
// CHECK-NEXT:    [[NW:%[^,]+]], [[NMW:%.+]] = mixprec.sgd_update [[W2]], [[DW]], [[LR]], [[MW]] {{.*}} : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>, tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>)
// CHECK-NEXT:    mixprec.assign @w, [[NW]] : tensor<4x3xf32>
// CHECK-NEXT:    mixprec.assign @train.w.momentum_buffer, [[NMW]] : tensor<4x3xf32>
// CHECK:         mixprec.sgd_update {{%[^,]+}}, [[DG]], {{.*}} -> (tensor<4xf32>, tensor<4xf32>)
// CHECK:         mixprec.sgd_update {{%[^,]+}}, [[DBETA]], {{.*}} -> (tensor<4xf32>, tensor<4xf32>)
// CHECK:         mixprec.sgd_update {{.*}} -> (tensor<4xf32>, tensor<4xf32>)
// CHECK:         mixprec.buffer @train.w.momentum_buffer : tensor<4x3xf32> = #mixprec.zeros

// Pure 16-bit: the weight, whose every read is cast to f16, is stored in
// f16: the read yields f16 directly (no cast), the FP32 gradient is cast to
// f16 before sgd_update, which updates and assigns f16 (its momentum buffer
// stays FP32). The layer_norm scale and bias and the bias after the FP32
// reduction are consumed in FP32 and keep FP32 storage.
// NONE:         mixprec.parameter @w : tensor<4x3xf16>
// NONE-NEXT:    mixprec.parameter @g : tensor<4xf32>
// NONE-NEXT:    mixprec.parameter @beta : tensor<4xf32>
// NONE-NEXT:    mixprec.parameter @b : tensor<4xf32>
// NONE-LABEL: func.func @loss(
// NONE-NEXT:    [[X16:%.+]] = mixprec.cast
// NONE-NEXT:    [[W:%.+]] = mixprec.read @w : tensor<4x3xf16>
// NONE-NEXT:    mixprec.read @g : tensor<4xf32>
// NONE-NEXT:    mixprec.read @beta : tensor<4xf32>
// NONE-NEXT:    mixprec.read @b : tensor<4xf32>
// NONE-NEXT:    mixprec.matmul [[X16]], [[W]] {{.*}} : tensor<2x3xf16>, tensor<4x3xf16> -> tensor<2x4xf32>
// NONE-LABEL: func.func @train(
// NONE-SAME:    %{{[^:]+}}: tensor<2x3xf32>, [[LR:%[^:]+]]: tensor<f32>)
// NONE-NEXT:    [[X16:%.+]] = mixprec.cast
// NONE-NEXT:    [[W:%.+]] = mixprec.read @w : tensor<4x3xf16>
// NONE-NEXT:    [[G:%.+]] = mixprec.read @g : tensor<4xf32>
// NONE-NEXT:    [[BETA:%.+]] = mixprec.read @beta : tensor<4xf32>
// NONE-NEXT:    [[B:%.+]] = mixprec.read @b : tensor<4xf32>
// NONE-NEXT:    [[Y:%.+]] = mixprec.matmul [[X16]], [[W]] {{.*}} : tensor<2x3xf16>, tensor<4x3xf16> -> tensor<2x4xf32>
// NONE-NEXT:    mixprec.layer_norm [[Y]] scale [[G]] bias [[BETA]] {{.*}} : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>
// NONE:         [[DX:%[^,]+]], [[DG:%[^,]+]], [[DBETA:%[^ ]+]] = mixprec.layer_norm_grad
// The gradient is rounded to the parameter's type right where it is made.
// NONE:         [[DW:%.+]] = mixprec.matmul {{.*}} {transpose_lhs} : tensor<2x4xf16>, tensor<2x3xf16> -> tensor<4x3xf32>
// NONE-NEXT:    [[DW16:%.+]] = mixprec.cast [[DW]] : tensor<4x3xf32> to tensor<4x3xf16>
// NONE:         [[W2:%.+]] = mixprec.read @w : tensor<4x3xf16>
// NONE-NEXT:    [[MW:%.+]] = mixprec.read @train.w.momentum_buffer : tensor<4x3xf32>
// NONE-NEXT:    [[NW:%[^,]+]], [[NMW:%.+]] = mixprec.sgd_update [[W2]], [[DW16]], [[LR]], [[MW]] {{.*}} : (tensor<4x3xf16>, tensor<4x3xf16>, tensor<f32>, tensor<4x3xf32>) -> (tensor<4x3xf16>, tensor<4x3xf32>)
// NONE-NEXT:    mixprec.assign @w, [[NW]] : tensor<4x3xf16>
// NONE-NEXT:    mixprec.assign @train.w.momentum_buffer, [[NMW]] : tensor<4x3xf32>
// NONE-NEXT:    [[G2:%.+]] = mixprec.read @g : tensor<4xf32>
// NONE-NEXT:    [[MG:%.+]] = mixprec.read @train.g.momentum_buffer : tensor<4xf32>
// NONE-NEXT:    mixprec.sgd_update [[G2]], [[DG]], [[LR]], [[MG]] {{.*}} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// NONE:         mixprec.sgd_update {{%[^,]+}}, [[DBETA]], {{.*}} -> (tensor<4xf32>, tensor<4xf32>)
// NONE:         [[B2:%.+]] = mixprec.read @b : tensor<4xf32>
// NONE-NEXT:    mixprec.read @train.b.momentum_buffer : tensor<4xf32>
// NONE-NEXT:    mixprec.sgd_update [[B2]], {{.*}} -> (tensor<4xf32>, tensor<4xf32>)
// NONE:         mixprec.buffer @train.w.momentum_buffer : tensor<4x3xf32> = #mixprec.zeros

// -----

// A parameter declared f16 (@h), used by a tensor-core op next to an FP32
// one (@w) and a bias consumed in FP32 (@b).

mixprec.parameter @w : tensor<4x3xf32> = #mixprec.kaiming_uniform<seed = 1>
mixprec.parameter @h : tensor<4x4xf16> = #mixprec.kaiming_uniform<seed = 2>
mixprec.parameter @b : tensor<4xf32> = #mixprec.zeros
func.func @loss(%x: tensor<2x3xf32>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<4x3xf32>
  %h = mixprec.read @h : tensor<4x4xf16>
  %b = mixprec.read @b : tensor<4xf32>
  %y = mixprec.matmul %x, %w {transpose_rhs} : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<2x4xf32>
  %y16 = mixprec.cast %y : tensor<2x4xf32> to tensor<2x4xf16>
  %z = mixprec.matmul %y16, %h : tensor<2x4xf16>, tensor<4x4xf16> -> tensor<2x4xf32>
  %s = mixprec.reduce_sum %z {dims = array<i64: 0>} : tensor<2x4xf32>
  %t = mixprec.add %s, %b : tensor<4xf32>, tensor<4xf32>
  %l = mixprec.reduce_sum %t {dims = array<i64: 0>} : tensor<4xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<momentum = 0.9>

// FP32 masters: @h is stored in FP32; every function's read of it yields
// FP32 and is cast once to the declared f16 (the working copy) for its
// users; its f16 gradient is cast to FP32 for an FP32 update and assign.
// CHECK:         mixprec.parameter @w : tensor<4x3xf32>
// CHECK-NEXT:    mixprec.parameter @h : tensor<4x4xf32>
// CHECK-NEXT:    mixprec.parameter @b : tensor<4xf32>
// CHECK-LABEL: func.func @loss(
// CHECK:         [[H:%.+]] = mixprec.read @h : tensor<4x4xf32>
// CHECK-NEXT:    [[H16:%.+]] = mixprec.cast [[H]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK:         mixprec.matmul {{%[^,]+}}, [[H16]] {{.*}} : tensor<2x4xf16>, tensor<4x4xf16> -> tensor<2x4xf32>
// CHECK-LABEL: func.func @train_gradients(
// CHECK:         [[H:%.+]] = mixprec.read @h : tensor<4x4xf32>
// CHECK-NEXT:    [[H16:%.+]] = mixprec.cast [[H]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-LABEL: func.func @train(
// CHECK-SAME:    %{{[^:]+}}: tensor<2x3xf32>, [[LR:%[^:]+]]: tensor<f32>)
// CHECK:         [[H:%.+]] = mixprec.read @h : tensor<4x4xf32>
// CHECK-NEXT:    [[H16:%.+]] = mixprec.cast [[H]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NOT:     mixprec.read @h
// CHECK:         [[Z:%.+]] = mixprec.matmul {{%[^,]+}}, [[H16]] {{.*}} : tensor<2x4xf16>, tensor<4x4xf16> -> tensor<2x4xf32>
// CHECK:         mixprec.matmul {{%[^,]+}}, [[H16]] {transpose_rhs} : tensor<2x4xf16>, tensor<4x4xf16> -> tensor<2x4xf16>
// CHECK-NEXT:    [[DH:%.+]] = mixprec.matmul {{%[^,]+}}, {{%[^ ]+}} {transpose_lhs} : tensor<2x4xf16>, tensor<2x4xf16> -> tensor<4x4xf16>
// The FP32 gradient of the master is cast right where the half one is made.
// CHECK-NEXT:    [[DH32:%.+]] = mixprec.cast [[DH]] : tensor<4x4xf16> to tensor<4x4xf32>
// CHECK-NEXT:    [[DW:%.+]] = mixprec.matmul {{.*}} -> tensor<4x3xf32>
// CHECK:         mixprec.sgd_update {{%[^,]+}}, [[DW]], {{.*}} -> (tensor<4x3xf32>, tensor<4x3xf32>)
// CHECK:         [[H2:%.+]] = mixprec.read @h : tensor<4x4xf32>
// CHECK-NEXT:    [[MH:%.+]] = mixprec.read @train.h.momentum_buffer : tensor<4x4xf32>
// CHECK-NEXT:    [[NH:%[^,]+]], [[NMH:%.+]] = mixprec.sgd_update [[H2]], [[DH32]], [[LR]], [[MH]] {{.*}} : (tensor<4x4xf32>, tensor<4x4xf32>, tensor<f32>, tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>)
// CHECK-NEXT:    mixprec.assign @h, [[NH]] : tensor<4x4xf32>
// CHECK-NEXT:    mixprec.assign @train.h.momentum_buffer, [[NMH]] : tensor<4x4xf32>
// CHECK:         mixprec.sgd_update {{.*}} -> (tensor<4xf32>, tensor<4xf32>)
// CHECK:         mixprec.buffer @train.h.momentum_buffer : tensor<4x4xf32> = #mixprec.zeros

// Pure 16-bit: @w takes f16 storage like its working copy; @h, declared
// f16 and read as f16, stays f16 with its f16 gradient; @b stays FP32.
// NONE:         mixprec.parameter @w : tensor<4x3xf16>
// NONE-NEXT:    mixprec.parameter @h : tensor<4x4xf16>
// NONE-NEXT:    mixprec.parameter @b : tensor<4xf32>
// NONE-LABEL: func.func @train(
// NONE:         [[W:%.+]] = mixprec.read @w : tensor<4x3xf16>
// NONE-NEXT:    [[H:%.+]] = mixprec.read @h : tensor<4x4xf16>
// NONE-NEXT:    mixprec.read @b : tensor<4xf32>
// NONE-NEXT:    mixprec.matmul {{%[^,]+}}, [[W]] {{.*}} : tensor<2x3xf16>, tensor<4x3xf16> -> tensor<2x4xf16>
// NONE-NEXT:    mixprec.matmul {{%[^,]+}}, [[H]] {{.*}} : tensor<2x4xf16>, tensor<4x4xf16> -> tensor<2x4xf32>
// NONE:         [[DH:%.+]] = mixprec.matmul {{.*}} {transpose_lhs} : tensor<2x4xf16>, tensor<2x4xf16> -> tensor<4x4xf16>
// NONE-NEXT:    [[DW:%.+]] = mixprec.matmul {{.*}} -> tensor<4x3xf32>
// NONE-NEXT:    [[DW16:%.+]] = mixprec.cast [[DW]] : tensor<4x3xf32> to tensor<4x3xf16>
// NONE:         [[NW:%[^,]+]], {{%.+}} = mixprec.sgd_update {{%[^,]+}}, [[DW16]], {{.*}} : (tensor<4x3xf16>, tensor<4x3xf16>, tensor<f32>, tensor<4x3xf32>) -> (tensor<4x3xf16>, tensor<4x3xf32>)
// NONE-NEXT:    mixprec.assign @w, [[NW]] : tensor<4x3xf16>
// NONE:         [[NH:%[^,]+]], {{%.+}} = mixprec.sgd_update {{%[^,]+}}, [[DH]], {{.*}} : (tensor<4x4xf16>, tensor<4x4xf16>, tensor<f32>, tensor<4x4xf32>) -> (tensor<4x4xf16>, tensor<4x4xf32>)
// NONE-NEXT:    mixprec.assign @h, [[NH]] : tensor<4x4xf16>
// NONE:         mixprec.sgd_update {{.*}} -> (tensor<4xf32>, tensor<4xf32>)

// -----

// AdamW in pure 16-bit: the parameter is f16, both moments stay FP32.

mixprec.parameter @w : tensor<4x3xf32> = #mixprec.kaiming_uniform<seed = 1>
func.func @loss(%x: tensor<2x3xf32>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<4x3xf32>
  %y = mixprec.matmul %x, %w {transpose_rhs} : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<2x4xf32>
  %l = mixprec.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<2x4xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.adamw<>

// CHECK:         mixprec.parameter @w : tensor<4x3xf32>
// CHECK-LABEL: func.func @train(
// CHECK:         [[DW:%.+]] = mixprec.matmul {{.*}} {transpose_lhs} : tensor<2x4xf16>, tensor<2x3xf16> -> tensor<4x3xf32>
// CHECK:         mixprec.adam_update {{%[^,]+}}, [[DW]], {{.*}} : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>
// CHECK:         mixprec.buffer @train.w.exp_avg : tensor<4x3xf32> = #mixprec.zeros
// CHECK-NEXT:    mixprec.buffer @train.w.exp_avg_sq : tensor<4x3xf32> = #mixprec.zeros

// NONE:         mixprec.parameter @w : tensor<4x3xf16>
// NONE-LABEL: func.func @train(
// NONE:         [[DW:%.+]] = mixprec.matmul {{.*}} {transpose_lhs} : tensor<2x4xf16>, tensor<2x3xf16> -> tensor<4x3xf32>
// NONE-NEXT:    [[DW16:%.+]] = mixprec.cast [[DW]] : tensor<4x3xf32> to tensor<4x3xf16>
// NONE:         [[W:%.+]] = mixprec.read @w : tensor<4x3xf16>
// NONE-NEXT:    [[M:%.+]] = mixprec.read @train.w.exp_avg : tensor<4x3xf32>
// NONE-NEXT:    [[V:%.+]] = mixprec.read @train.w.exp_avg_sq : tensor<4x3xf32>
// NONE-NEXT:    [[NW:%[^,]+]], [[NM:%[^,]+]], [[NV:%[^ ]+]] = mixprec.adam_update [[W]], [[DW16]], [[M]], [[V]], {{.*}} : tensor<4x3xf16>, tensor<4x3xf16>, tensor<4x3xf32>
// NONE-NEXT:    mixprec.assign @w, [[NW]] : tensor<4x3xf16>
// NONE-NEXT:    mixprec.assign @train.w.exp_avg, [[NM]] : tensor<4x3xf32>
// NONE-NEXT:    mixprec.assign @train.w.exp_avg_sq, [[NV]] : tensor<4x3xf32>
// NONE:         mixprec.buffer @train.w.exp_avg : tensor<4x3xf32> = #mixprec.zeros
// NONE-NEXT:    mixprec.buffer @train.w.exp_avg_sq : tensor<4x3xf32> = #mixprec.zeros
