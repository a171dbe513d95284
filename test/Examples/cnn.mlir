// The batch-norm CNN of examples/cnn.mlir verifies, prints back in custom
// form, and survives a round trip through the generic form and a re-parse of
// the custom form (max_pool2d prints without its default `padding`).
// RUN: mixprec-opt %mixprec_src_root/examples/cnn.mlir | FileCheck %s
// RUN: mixprec-opt %mixprec_src_root/examples/cnn.mlir --mlir-print-op-generic | mixprec-opt | FileCheck %s
// RUN: mixprec-opt %mixprec_src_root/examples/cnn.mlir | mixprec-opt | FileCheck %s

// CHECK:      module {
// CHECK-NEXT:   mixprec.parameter @conv1_weight : tensor<8x1x3x3xf32> = #mixprec.kaiming_uniform<a = 2.23606797749{{[0-9]*}}, seed = 1>
// CHECK-NEXT:   mixprec.parameter @bn1_weight : tensor<8xf32> = #mixprec.ones
// CHECK-NEXT:   mixprec.parameter @bn1_bias : tensor<8xf32> = #mixprec.zeros
// CHECK-NEXT:   mixprec.buffer @bn1_running_mean : tensor<8xf32> = #mixprec.zeros
// CHECK-NEXT:   mixprec.buffer @bn1_running_var : tensor<8xf32> = #mixprec.ones
// CHECK-NEXT:   mixprec.parameter @conv2_weight : tensor<16x8x3x3xf32> = #mixprec.kaiming_uniform<a = 2.23606797749{{[0-9]*}}, seed = 2>
// CHECK-NEXT:   mixprec.parameter @bn2_weight : tensor<16xf32> = #mixprec.ones
// CHECK-NEXT:   mixprec.parameter @bn2_bias : tensor<16xf32> = #mixprec.zeros
// CHECK-NEXT:   mixprec.buffer @bn2_running_mean : tensor<16xf32> = #mixprec.zeros
// CHECK-NEXT:   mixprec.buffer @bn2_running_var : tensor<16xf32> = #mixprec.ones
// CHECK-NEXT:   mixprec.parameter @fc_weight : tensor<10x64xf32> = #mixprec.kaiming_uniform<a = 2.23606797749{{[0-9]*}}, seed = 3>
// CHECK-NEXT:   mixprec.parameter @fc_bias : tensor<10xf32> = #mixprec.uniform<low = -1.250000e-01, high = 1.250000e-01, seed = 4>

// CHECK-LABEL: func.func @loss(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<32x1x8x8xf32>, %[[LABELS:[^:]+]]: tensor<32xi32>) -> tensor<f32> {

// Block 1: conv (no bias) -> batch norm whose new running statistics go back
// to the buffers -> relu -> 2x2 max pool.
// CHECK-DAG:     %[[W1:[0-9a-z_]+]] = mixprec.read @conv1_weight : tensor<8x1x3x3xf32>
// CHECK-DAG:     %[[G1:[0-9a-z_]+]] = mixprec.read @bn1_weight : tensor<8xf32>
// CHECK-DAG:     %[[BE1:[0-9a-z_]+]] = mixprec.read @bn1_bias : tensor<8xf32>
// CHECK-DAG:     %[[RM1:[0-9a-z_]+]] = mixprec.read @bn1_running_mean : tensor<8xf32>
// CHECK-DAG:     %[[RV1:[0-9a-z_]+]] = mixprec.read @bn1_running_var : tensor<8xf32>
// CHECK:         %[[C1:[0-9a-z_]+]] = mixprec.conv2d %[[X]], %[[W1]] {padding = array<i64: 1, 1>} : tensor<32x1x8x8xf32>, tensor<8x1x3x3xf32> -> tensor<32x8x8x8xf32>
// CHECK-NEXT:    %[[N1:[0-9a-z_]+]], %[[RM1_NEW:[0-9a-z_]+]], %[[RV1_NEW:[0-9a-z_]+]] = mixprec.batch_norm %[[C1]], %[[RM1]], %[[RV1]] scale %[[G1]] bias %[[BE1]] : tensor<32x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
// CHECK-NEXT:    mixprec.assign @bn1_running_mean, %[[RM1_NEW]] : tensor<8xf32>
// CHECK-NEXT:    mixprec.assign @bn1_running_var, %[[RV1_NEW]] : tensor<8xf32>
// CHECK-NEXT:    %[[A1:[0-9a-z_]+]] = mixprec.relu %[[N1]] : tensor<32x8x8x8xf32>
// CHECK-NEXT:    %[[P1:[0-9a-z_]+]] = mixprec.max_pool2d %[[A1]] {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<32x8x8x8xf32>

// Block 2.
// CHECK-DAG:     %[[W2:[0-9a-z_]+]] = mixprec.read @conv2_weight : tensor<16x8x3x3xf32>
// CHECK-DAG:     %[[G2:[0-9a-z_]+]] = mixprec.read @bn2_weight : tensor<16xf32>
// CHECK-DAG:     %[[BE2:[0-9a-z_]+]] = mixprec.read @bn2_bias : tensor<16xf32>
// CHECK-DAG:     %[[RM2:[0-9a-z_]+]] = mixprec.read @bn2_running_mean : tensor<16xf32>
// CHECK-DAG:     %[[RV2:[0-9a-z_]+]] = mixprec.read @bn2_running_var : tensor<16xf32>
// CHECK:         %[[C2:[0-9a-z_]+]] = mixprec.conv2d %[[P1]], %[[W2]] {padding = array<i64: 1, 1>} : tensor<32x8x4x4xf32>, tensor<16x8x3x3xf32> -> tensor<32x16x4x4xf32>
// CHECK-NEXT:    %[[N2:[0-9a-z_]+]], %[[RM2_NEW:[0-9a-z_]+]], %[[RV2_NEW:[0-9a-z_]+]] = mixprec.batch_norm %[[C2]], %[[RM2]], %[[RV2]] scale %[[G2]] bias %[[BE2]] : tensor<32x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
// CHECK-NEXT:    mixprec.assign @bn2_running_mean, %[[RM2_NEW]] : tensor<16xf32>
// CHECK-NEXT:    mixprec.assign @bn2_running_var, %[[RV2_NEW]] : tensor<16xf32>
// CHECK-NEXT:    %[[A2:[0-9a-z_]+]] = mixprec.relu %[[N2]] : tensor<32x16x4x4xf32>
// CHECK-NEXT:    %[[P2:[0-9a-z_]+]] = mixprec.max_pool2d %[[A2]] {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<32x16x4x4xf32>

// Classifier.
// CHECK-NEXT:    %[[FLAT:[0-9a-z_]+]] = mixprec.reshape %[[P2]] : tensor<32x16x2x2xf32> -> tensor<32x64xf32>
// CHECK-DAG:     %[[WF:[0-9a-z_]+]] = mixprec.read @fc_weight : tensor<10x64xf32>
// CHECK-DAG:     %[[BF:[0-9a-z_]+]] = mixprec.read @fc_bias : tensor<10xf32>
// CHECK:         %[[LOGITS:[0-9a-z_]+]] = mixprec.linear %[[FLAT]], %[[WF]], %[[BF]] : tensor<32x64xf32>, tensor<10x64xf32>, tensor<10xf32> -> tensor<32x10xf32>
// CHECK-NEXT:    %[[LOSS:[0-9a-z_]+]] = mixprec.softmax_cross_entropy %[[LOGITS]], %[[LABELS]] : tensor<32x10xf32>, tensor<32xi32>
// CHECK-NEXT:    return %[[LOSS]] : tensor<f32>
// CHECK-NEXT:  }
// CHECK-NEXT:  mixprec.train_step @train forward @loss optimizer #mixprec.sgd<momentum = 9.000000e-01, weight_decay = 5.000000e-04>
// CHECK-NEXT: }
