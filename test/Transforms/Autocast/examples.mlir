// The casts autocast inserts into the three example models, in both
// precisions: how many, on which values, and why. The models are in
// examples/; this file only holds the checks.

// RUN: mixprec-opt %mixprec_src_root/examples/mlp.mlir --mixprec-autocast | FileCheck %s --check-prefix=MLP
// RUN: mixprec-opt %mixprec_src_root/examples/mlp.mlir --mixprec-autocast | grep -c 'autocast = "cast:' | FileCheck %s --check-prefix=MLP-COUNT
// RUN: mixprec-opt %mixprec_src_root/examples/mlp.mlir --mixprec-autocast=precision=bf16 | grep -c 'autocast = "cast:' | FileCheck %s --check-prefix=MLP-COUNT
// RUN: mixprec-opt %mixprec_src_root/examples/cnn.mlir --mixprec-autocast | FileCheck %s --check-prefix=CNN
// RUN: mixprec-opt %mixprec_src_root/examples/cnn.mlir --mixprec-autocast | grep -c 'autocast = "cast:' | FileCheck %s --check-prefix=CNN-COUNT
// RUN: mixprec-opt %mixprec_src_root/examples/cnn.mlir --mixprec-autocast=precision=bf16 | grep -c 'autocast = "cast:' | FileCheck %s --check-prefix=CNN-COUNT
// RUN: mixprec-opt %mixprec_src_root/examples/transformer.mlir --mixprec-autocast | FileCheck %s --check-prefix=TRANSFORMER
// RUN: mixprec-opt %mixprec_src_root/examples/transformer.mlir --mixprec-autocast | grep -c 'autocast = "cast:' | FileCheck %s --check-prefix=TRANSFORMER-COUNT
// RUN: mixprec-opt %mixprec_src_root/examples/transformer.mlir --mixprec-autocast=precision=bf16 | grep -c 'autocast = "cast:' | FileCheck %s --check-prefix=TRANSFORMER-COUNT

// The MLP. In @loss and again in @predict, the batch and the four
// parameters are cast down once each; the relu stays 16-bit between the
// linears; the second linear yields FP32 for the loss and for the logits
// @predict returns.
// MLP-COUNT: 10
// MLP-LABEL: func.func @loss(
// MLP-SAME:    [[X:%[^:]+]]: tensor<64x64xf32>
// MLP:         [[X16:%.+]] = mixprec.cast [[X]] {{.*}} to tensor<64x64xf16>
// MLP:         [[W1:%.+]] = mixprec.read @fc1_weight
// MLP-NEXT:    [[W1_16:%.+]] = mixprec.cast [[W1]]
// MLP:         [[H:%.+]] = mixprec.linear [[X16]], [[W1_16]], {{.*}} -> tensor<64x128xf16>
// MLP-NEXT:    [[A:%.+]] = mixprec.relu [[H]] {{.*}}: tensor<64x128xf16>
// MLP-NEXT:    [[LOGITS:%.+]] = mixprec.linear [[A]], {{.*}} -> tensor<64x10xf32>
// MLP-NEXT:    mixprec.softmax_cross_entropy [[LOGITS]]
// MLP-LABEL: func.func @predict(
// MLP-COUNT-5: mixprec.cast {{.*}} to tensor<{{[0-9x]+}}xf16>
// MLP:         [[P:%.+]] = mixprec.linear {{.*}} -> tensor<64x10xf32>
// MLP-NEXT:    return [[P]] : tensor<64x10xf32>

// The CNN. The batch and the three weights are cast down; each batch norm's
// output is cast down once, and relu and max pooling run in 16 bits up to
// the next contraction; the fc bias is cast too. Both convolutions yield
// FP32 for the batch norms.
// CNN-COUNT: 7
// CNN-LABEL: func.func @loss(
// CNN:         mixprec.conv2d {{.*}} -> tensor<32x8x8x8xf32>
// CNN:         [[N1:%[^,]+]], {{.*}} = mixprec.batch_norm {{.*}} : tensor<32x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
// CNN:         [[N1_16:%.+]] = mixprec.cast [[N1]] {mixprec.autocast = "cast: for mixprec.relu (propagated (follow))"}
// CNN:         [[A1:%.+]] = mixprec.relu [[N1_16]] {{.*}}: tensor<32x8x8x8xf16>
// CNN-NEXT:    [[P1:%.+]] = mixprec.max_pool2d [[A1]] {{.*}}: tensor<32x8x8x8xf16>
// CNN:         mixprec.conv2d [[P1]], {{.*}} -> tensor<32x16x4x4xf32>
// CNN:         [[N2:%[^,]+]], {{.*}} = mixprec.batch_norm
// CNN:         [[N2_16:%.+]] = mixprec.cast [[N2]]
// CNN:         mixprec.relu [[N2_16]] {{.*}}: tensor<32x16x4x4xf16>
// CNN:         mixprec.reshape {{.*}} : tensor<32x16x2x2xf16> -> tensor<32x64xf16>
// CNN:         mixprec.linear {{.*}} -> tensor<32x10xf32>

// The transformer. The first layer norm's output is cast once for q, k and v;
// each of the seven weights and six biases once; the softmax output once
// before the dropout that feeds the second batch_matmul; the second layer
// norm's output once for the MLP; the pooled features once for the head.
// The scores batch_matmul yields FP32 for the scale and softmax, the
// output projection and the MLP's second linear yield FP32 for the
// dropouts and residual adds: no cast up anywhere.
// TRANSFORMER-COUNT: 18
// TRANSFORMER-LABEL: func.func @loss(
// TRANSFORMER-NOT:   to tensor<{{[0-9x]+}}xf32>
// TRANSFORMER:       [[H1:%.+]] = mixprec.layer_norm
// TRANSFORMER-NEXT:  [[H1_16:%.+]] = mixprec.cast [[H1]] {{.*}} to tensor<8x16x64xf16>
// TRANSFORMER:       mixprec.linear [[H1_16]], {{.*}} -> tensor<8x16x64xf16>
// TRANSFORMER:       mixprec.linear [[H1_16]], {{.*}} -> tensor<8x16x64xf16>
// TRANSFORMER:       mixprec.linear [[H1_16]], {{.*}} -> tensor<8x16x64xf16>
// TRANSFORMER:       [[S:%.+]] = mixprec.batch_matmul {{.*}} -> tensor<8x4x16x16xf32>
// TRANSFORMER:       [[P:%.+]] = mixprec.softmax
// TRANSFORMER-NEXT:  [[P16:%.+]] = mixprec.cast [[P]] {mixprec.autocast = "cast: for mixprec.dropout (propagated (follow))"}
// TRANSFORMER-NEXT:  [[D:%.+]] = mixprec.dropout [[P16]], {{.*}}: tensor<8x4x16x16xf16>
// TRANSFORMER-NEXT:  mixprec.batch_matmul [[D]], {{.*}} -> tensor<8x4x16x16xf16>
// TRANSFORMER:       mixprec.gelu {{.*}}: tensor<8x16x256xf16>
// TRANSFORMER-NOT:   to tensor<{{[0-9x]+}}xf32>
// TRANSFORMER:       return
