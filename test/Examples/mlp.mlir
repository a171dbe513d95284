// The digits MLP of examples/mlp.mlir verifies, prints back in custom form,
// and survives a round trip through the generic form and a re-parse of the
// custom form.
// RUN: mixprec-opt %mixprec_src_root/examples/mlp.mlir | FileCheck %s
// RUN: mixprec-opt %mixprec_src_root/examples/mlp.mlir --mlir-print-op-generic | mixprec-opt | FileCheck %s
// RUN: mixprec-opt %mixprec_src_root/examples/mlp.mlir | mixprec-opt | FileCheck %s

// CHECK:      module {
// CHECK-NEXT:   mixprec.parameter @fc1_weight : tensor<128x64xf32> = #mixprec.kaiming_uniform<a = 2.23606797749{{[0-9]*}}, seed = 1>
// CHECK-NEXT:   mixprec.parameter @fc1_bias : tensor<128xf32> = #mixprec.uniform<low = -1.250000e-01, high = 1.250000e-01, seed = 2>
// CHECK-NEXT:   mixprec.parameter @fc2_weight : tensor<10x128xf32> = #mixprec.kaiming_uniform<a = 2.23606797749{{[0-9]*}}, seed = 3>
// CHECK-NEXT:   mixprec.parameter @fc2_bias : tensor<10xf32> = #mixprec.uniform<low = -0.08838834764831{{[0-9]*}}, high = 0.08838834764831{{[0-9]*}}, seed = 4>
// CHECK-NOT:    mixprec.buffer

// CHECK-LABEL: func.func @loss(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<64x64xf32>, %[[LABELS:[^:]+]]: tensor<64xi32>) -> tensor<f32> {
// CHECK-DAG:     %[[W1:[0-9a-z_]+]] = mixprec.read @fc1_weight : tensor<128x64xf32>
// CHECK-DAG:     %[[B1:[0-9a-z_]+]] = mixprec.read @fc1_bias : tensor<128xf32>
// CHECK-DAG:     %[[W2:[0-9a-z_]+]] = mixprec.read @fc2_weight : tensor<10x128xf32>
// CHECK-DAG:     %[[B2:[0-9a-z_]+]] = mixprec.read @fc2_bias : tensor<10xf32>
// CHECK:         %[[H:[0-9a-z_]+]] = mixprec.linear %[[X]], %[[W1]], %[[B1]] : tensor<64x64xf32>, tensor<128x64xf32>, tensor<128xf32> -> tensor<64x128xf32>
// CHECK-NEXT:    %[[A:[0-9a-z_]+]] = mixprec.relu %[[H]] : tensor<64x128xf32>
// CHECK-NEXT:    %[[LOGITS:[0-9a-z_]+]] = mixprec.linear %[[A]], %[[W2]], %[[B2]] : tensor<64x128xf32>, tensor<10x128xf32>, tensor<10xf32> -> tensor<64x10xf32>
// CHECK-NEXT:    %[[LOSS:[0-9a-z_]+]] = mixprec.softmax_cross_entropy %[[LOGITS]], %[[LABELS]] : tensor<64x10xf32>, tensor<64xi32>
// CHECK-NEXT:    return %[[LOSS]] : tensor<f32>
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @predict(
// CHECK-SAME:      %[[PX:[^:]+]]: tensor<64x64xf32>) -> tensor<64x10xf32> {
// CHECK:         %[[PH:[0-9a-z_]+]] = mixprec.linear %[[PX]], {{.*}} -> tensor<64x128xf32>
// CHECK-NEXT:    %[[PA:[0-9a-z_]+]] = mixprec.relu %[[PH]] : tensor<64x128xf32>
// CHECK-NEXT:    %[[PL:[0-9a-z_]+]] = mixprec.linear %[[PA]], {{.*}} -> tensor<64x10xf32>
// CHECK-NEXT:    return %[[PL]] : tensor<64x10xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  mixprec.train_step @train forward @loss optimizer #mixprec.sgd<momentum = 9.000000e-01>
// CHECK-NEXT: }
