// RUN: mixprec-opt %s --mixprec-autodiff --mixprec-loss-scaling="mode=none max-grad-norm=1.0" | FileCheck %s
// RUN: mixprec-opt %mixprec_src_root/examples/mlp.mlir --mixprec-amp="precision=bf16 max-grad-norm=1.0" | FileCheck %s --check-prefix=AMP

// Gradient clipping is independent of loss scaling (PyTorch's
// clip_grad_norm_ needs no GradScaler; docs/design.md §3: "gradient clipping
// works on unscaled gradients"). With mode=none -- the --mixprec-amp default
// for bf16 -- max-grad-norm must still clip the (already unscaled) gradients
// rather than be dropped without a word.

mixprec.parameter @w : tensor<4x3xf32> = #mixprec.kaiming_uniform<seed = 1>
func.func @loss(%x: tensor<2x3xf32>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<4x3xf32>
  %y = mixprec.matmul %x, %w {transpose_rhs} : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<2x4xf32>
  %l = mixprec.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<2x4xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>

// CHECK-LABEL: func.func @train(
// CHECK:         [[G:%.+]] = mixprec.matmul {{.*}} {transpose_lhs} : tensor<2x4xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
// CHECK:         [[SQ:%.+]] = mixprec.mul [[G]], [[G]] : tensor<4x3xf32>, tensor<4x3xf32>
// CHECK:         mixprec.sqrt
// CHECK:         [[COEF:%.+]] = mixprec.minimum
// CHECK:         [[COEFW:%.+]] = mixprec.broadcast [[COEF]] : tensor<f32> -> tensor<4x3xf32>
// CHECK-NEXT:    [[C:%.+]] = mixprec.mul [[G]], [[COEFW]] : tensor<4x3xf32>, tensor<4x3xf32>
// CHECK:         mixprec.sgd_update {{%[^,]+}}, [[C]], {{.*}} -> tensor<4x3xf32>

// AMP-LABEL: func.func @train(
// AMP:         mixprec.sqrt
// AMP:         mixprec.minimum
// AMP:         mixprec.sgd_update {{.*}} -> (tensor<128x64xf32>, tensor<128x64xf32>)
