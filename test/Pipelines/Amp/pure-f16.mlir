// RUN: mixprec-opt %mixprec_src_root/examples/mlp.mlir --mixprec-amp="precision=f16 master-weights=none" | FileCheck %s
// RUN: mixprec-opt %mixprec_src_root/examples/cnn.mlir --mixprec-amp="precision=f16 master-weights=none" | FileCheck %s --check-prefix=ANY
// RUN: mixprec-opt %mixprec_src_root/examples/transformer.mlir --mixprec-amp="precision=f16 master-weights=none" | FileCheck %s --check-prefix=ANY

// Pure 16-bit training (Apex O3) with dynamic loss scaling: the parameters
// the tensor-core ops read are stored in f16 and read without casts; their
// gradients are unscaled and checked in FP32 and reach the updates in f16;
// the f16 updates are guarded like FP32 ones. Loss scaling must cope with
// the gradient casts master weights put in front of the updates.

// CHECK:       mixprec.parameter @fc1_weight : tensor<128x64xf16>
// CHECK-NEXT:  mixprec.parameter @fc1_bias : tensor<128xf16>
// CHECK-NEXT:  mixprec.parameter @fc2_weight : tensor<10x128xf16>
// CHECK-NEXT:  mixprec.parameter @fc2_bias : tensor<10xf16>
// CHECK-LABEL: func.func @train(
// CHECK:         [[W1:%.+]] = mixprec.read @fc1_weight : tensor<128x64xf16>
// CHECK-NEXT:    [[B1:%.+]] = mixprec.read @fc1_bias : tensor<128xf16>
// CHECK-NEXT:    mixprec.read @fc2_weight : tensor<10x128xf16>
// CHECK-NEXT:    mixprec.read @fc2_bias : tensor<10xf16>
// CHECK-NEXT:    mixprec.linear {{%[^,]+}}, [[W1]], [[B1]] {{.*}} : tensor<64x64xf16>, tensor<128x64xf16>, tensor<128xf16> -> tensor<64x128xf16>
// CHECK:         [[OK:%[^,]+]], {{%.+}} = mixprec.all_finite {{.*}} : tensor<128x64xf32>, tensor<128xf32>, tensor<10x128xf32>, tensor<10xf32>
// CHECK:         [[NW:%[^,]+]], {{%.+}} = mixprec.sgd_update {{.*}} : (tensor<128x64xf16>, tensor<128x64xf16>, tensor<f32>, tensor<128x64xf32>) -> (tensor<128x64xf16>, tensor<128x64xf32>)
// CHECK-NEXT:    [[KW:%.+]] = mixprec.select [[OK]], [[NW]], {{%[^ ]+}} : tensor<128x64xf16>
// CHECK-NEXT:    mixprec.assign @fc1_weight, [[KW]] : tensor<128x64xf16>
// CHECK:         [[NB:%[^,]+]], {{%.+}} = mixprec.sgd_update {{.*}} : (tensor<10xf16>, tensor<10xf16>, tensor<f32>, tensor<10xf32>) -> (tensor<10xf16>, tensor<10xf32>)
// CHECK-NEXT:    [[KB:%.+]] = mixprec.select [[OK]], [[NB]], {{%[^ ]+}} : tensor<10xf16>
// CHECK-NEXT:    mixprec.assign @fc2_bias, [[KB]] : tensor<10xf16>
// CHECK:         mixprec.loss_scale_update {{%[^,]+}}, {{%[^,]+}}, {{%[^,]+}}, [[OK]]

// ANY-LABEL: func.func @train(
// ANY:         [[OK:%[^,]+]], {{%.+}} = mixprec.all_finite
// ANY:         mixprec.select [[OK]]
// ANY:         mixprec.loss_scale_update {{%[^,]+}}, {{%[^,]+}}, {{%[^,]+}}, [[OK]]
