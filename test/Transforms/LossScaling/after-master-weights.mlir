// RUN: mixprec-opt %s -split-input-file --mixprec-autocast --mixprec-autodiff --mixprec-master-weights --mixprec-loss-scaling | FileCheck %s
// RUN: mixprec-opt %s -split-input-file --mixprec-autocast --mixprec-autodiff --mixprec-master-weights=mode=none --mixprec-loss-scaling | FileCheck %s --check-prefix=NONE

// Loss scaling after master weights (the order of docs/design.md §3): the
// gradient casts master weights puts in front of the updates must still be
// unscaled in FP32 and checked, and the result must verify.
//
// @w is FP32 (cast to f16 for its matmul), @h is declared f16 (an FP32
// master with an f16 working copy after master weights, or stays f16 with
// mode=none), @b is consumed in FP32.

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

// FP32 masters: @h's f16 gradient reaches its update as FP32, unscaled.
// CHECK:         mixprec.parameter @h : tensor<4x4xf32>
// CHECK-LABEL: func.func @train(
// CHECK-DAG:     [[S:%.+]] = mixprec.read @train.loss_scale : tensor<f32>
// CHECK-DAG:     [[GH:%.+]] = mixprec.matmul {{%[^,]+}}, {{%[^ ]+}} {transpose_lhs} : tensor<2x4xf16>, tensor<2x4xf16> -> tensor<4x4xf16>
// CHECK-DAG:     [[INV:%.+]] = mixprec.div {{%[^,]+}}, [[S]] : tensor<f32>, tensor<f32>
// CHECK-DAG:     [[GH32:%.+]] = mixprec.cast [[GH]] : tensor<4x4xf16> to tensor<4x4xf32>
// CHECK-DAG:     [[INVH:%.+]] = mixprec.broadcast [[INV]] : tensor<f32> -> tensor<4x4xf32>
// CHECK-DAG:     [[UH:%.+]] = mixprec.mul [[GH32]], [[INVH]] : tensor<4x4xf32>, tensor<4x4xf32>
// CHECK:         [[OK:%[^,]+]], {{%.+}} = mixprec.all_finite {{%[^,]+}}, [[UH]], {{%[^ ]+}} : tensor<4x3xf32>, tensor<4x4xf32>, tensor<4xf32>
// CHECK:         [[NH:%[^,]+]], {{%.+}} = mixprec.sgd_update {{%[^,]+}}, [[UH]], {{.*}} : (tensor<4x4xf32>, tensor<4x4xf32>, tensor<f32>, tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>)
// CHECK:         [[KH:%.+]] = mixprec.select [[OK]], [[NH]], {{%[^ ]+}} : tensor<4x4xf32>
// CHECK-NEXT:    mixprec.assign @h, [[KH]] : tensor<4x4xf32>
// CHECK:         mixprec.loss_scale_update

// Pure 16-bit: @w and @h are stored in f16; their gradients are checked in
// FP32, reach the updates as f16, and the f16 results are guarded.
// NONE:         mixprec.parameter @w : tensor<4x3xf16>
// NONE:         mixprec.parameter @h : tensor<4x4xf16>
// NONE:         mixprec.parameter @b : tensor<4xf32>
// NONE-LABEL: func.func @train(
// NONE:         [[OK:%[^,]+]], {{%.+}} = mixprec.all_finite {{%[^,]+}}, {{%[^,]+}}, {{%[^ ]+}} : tensor<4x3xf32>, tensor<4x4xf32>, tensor<4xf32>
// NONE:         [[NW:%[^,]+]], {{%.+}} = mixprec.sgd_update {{.*}} : (tensor<4x3xf16>, tensor<4x3xf16>, tensor<f32>, tensor<4x3xf32>) -> (tensor<4x3xf16>, tensor<4x3xf32>)
// NONE:         [[KW:%.+]] = mixprec.select [[OK]], [[NW]], {{%[^ ]+}} : tensor<4x3xf16>
// NONE-NEXT:    mixprec.assign @w, [[KW]] : tensor<4x3xf16>
// NONE:         [[NH:%[^,]+]], {{%.+}} = mixprec.sgd_update {{.*}} : (tensor<4x4xf16>, tensor<4x4xf16>, tensor<f32>, tensor<4x4xf32>) -> (tensor<4x4xf16>, tensor<4x4xf32>)
// NONE:         [[KH:%.+]] = mixprec.select [[OK]], [[NH]], {{%[^ ]+}} : tensor<4x4xf16>
// NONE-NEXT:    mixprec.assign @h, [[KH]] : tensor<4x4xf16>
// NONE:         mixprec.loss_scale_update
