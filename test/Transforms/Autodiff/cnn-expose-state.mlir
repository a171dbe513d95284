// RUN: mixprec-opt %mixprec_src_root/examples/cnn.mlir --mixprec-autodiff --mixprec-expose-state | FileCheck %s

// The CNN's SGD step as a functional step: parameters, batch-norm buffers
// and momentum buffers in, the loss and every updated state tensor out.
// (This also pins a use-after-free that --mixprec-expose-state had with
// several assigned buffers.)
// CHECK-LABEL: func.func @train(
// CHECK-SAME:    {mixprec.abi_name = "conv1_weight"}
// CHECK-SAME:    {mixprec.abi_name = "bn1_running_mean"}
// CHECK-SAME:    {mixprec.abi_name = "train.fc_bias.momentum_buffer"}
// CHECK-SAME:    tensor<f32> {mixprec.abi_name = "arg2"})
// CHECK-SAME:    -> (tensor<f32>, tensor<8x1x3x3xf32> {mixprec.abi_name = "conv1_weight"}
// CHECK-SAME:    tensor<8xf32> {mixprec.abi_name = "bn1_running_mean"}
// CHECK-SAME:    tensor<10xf32> {mixprec.abi_name = "train.fc_bias.momentum_buffer"})
// CHECK-NOT:     mixprec.assign
// CHECK-NOT:     mixprec.read
// CHECK:         return
