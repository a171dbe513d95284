// The transformer encoder block of examples/transformer.mlir verifies,
// prints back in custom form, and survives a round trip through the generic
// form and a re-parse of the custom form.
// RUN: mixprec-opt %mixprec_src_root/examples/transformer.mlir | FileCheck %s
// RUN: mixprec-opt %mixprec_src_root/examples/transformer.mlir --mlir-print-op-generic | mixprec-opt | FileCheck %s
// RUN: mixprec-opt %mixprec_src_root/examples/transformer.mlir | mixprec-opt | FileCheck %s

// CHECK:      module {
// CHECK-NEXT:   mixprec.parameter @tok_embedding : tensor<100x64xf32> = #mixprec.normal<seed = 1> {weight_decay = false}
// CHECK-NEXT:   mixprec.parameter @pos_embedding : tensor<16x64xf32> = #mixprec.normal<std = 2.000000e-02, seed = 2> {weight_decay = false}
// CHECK-NEXT:   mixprec.parameter @ln1_weight : tensor<64xf32> = #mixprec.ones
// CHECK-NEXT:   mixprec.parameter @ln1_bias : tensor<64xf32> = #mixprec.zeros
// CHECK-NEXT:   mixprec.parameter @q_weight : tensor<64x64xf32> = #mixprec.kaiming_uniform<a = 2.23606797749{{[0-9]*}}, seed = 3>
// CHECK-NEXT:   mixprec.parameter @q_bias : tensor<64xf32> = #mixprec.uniform<low = -1.250000e-01, high = 1.250000e-01, seed = 4>
// CHECK-NEXT:   mixprec.parameter @k_weight : tensor<64x64xf32> = #mixprec.kaiming_uniform<a = 2.23606797749{{[0-9]*}}, seed = 5>
// CHECK-NEXT:   mixprec.parameter @k_bias : tensor<64xf32> = #mixprec.uniform<low = -1.250000e-01, high = 1.250000e-01, seed = 6>
// CHECK-NEXT:   mixprec.parameter @v_weight : tensor<64x64xf32> = #mixprec.kaiming_uniform<a = 2.23606797749{{[0-9]*}}, seed = 7>
// CHECK-NEXT:   mixprec.parameter @v_bias : tensor<64xf32> = #mixprec.uniform<low = -1.250000e-01, high = 1.250000e-01, seed = 8>
// CHECK-NEXT:   mixprec.parameter @attn_out_weight : tensor<64x64xf32> = #mixprec.kaiming_uniform<a = 2.23606797749{{[0-9]*}}, seed = 9>
// CHECK-NEXT:   mixprec.parameter @attn_out_bias : tensor<64xf32> = #mixprec.uniform<low = -1.250000e-01, high = 1.250000e-01, seed = 10>
// CHECK-NEXT:   mixprec.parameter @ln2_weight : tensor<64xf32> = #mixprec.ones
// CHECK-NEXT:   mixprec.parameter @ln2_bias : tensor<64xf32> = #mixprec.zeros
// CHECK-NEXT:   mixprec.parameter @mlp_fc1_weight : tensor<256x64xf32> = #mixprec.kaiming_uniform<a = 2.23606797749{{[0-9]*}}, seed = 11>
// CHECK-NEXT:   mixprec.parameter @mlp_fc1_bias : tensor<256xf32> = #mixprec.uniform<low = -1.250000e-01, high = 1.250000e-01, seed = 12>
// CHECK-NEXT:   mixprec.parameter @mlp_fc2_weight : tensor<64x256xf32> = #mixprec.kaiming_uniform<a = 2.23606797749{{[0-9]*}}, seed = 13>
// CHECK-NEXT:   mixprec.parameter @mlp_fc2_bias : tensor<64xf32> = #mixprec.uniform<low = -6.250000e-02, high = 6.250000e-02, seed = 14>
// CHECK-NEXT:   mixprec.parameter @ln_f_weight : tensor<64xf32> = #mixprec.ones
// CHECK-NEXT:   mixprec.parameter @ln_f_bias : tensor<64xf32> = #mixprec.zeros
// CHECK-NEXT:   mixprec.parameter @head_weight : tensor<4x64xf32> = #mixprec.kaiming_uniform<a = 2.23606797749{{[0-9]*}}, seed = 15>
// CHECK-NEXT:   mixprec.parameter @head_bias : tensor<4xf32> = #mixprec.uniform<low = -1.250000e-01, high = 1.250000e-01, seed = 16>
// CHECK-NOT:    mixprec.buffer

// CHECK-LABEL: func.func @loss(
// CHECK-SAME:      %[[TOKENS:[^:]+]]: tensor<8x16xi32>, %[[LABELS:[^:]+]]: tensor<8xi32>) -> tensor<f32> {
// CHECK:         %[[RNG:[0-9a-z_]+]] = mixprec.rng_state

// Embeddings.
// CHECK-DAG:     %[[TOK_TABLE:[0-9a-z_]+]] = mixprec.read @tok_embedding : tensor<100x64xf32>
// CHECK-DAG:     %[[POS_TABLE:[0-9a-z_]+]] = mixprec.read @pos_embedding : tensor<16x64xf32>
// CHECK:         %[[TOK:[0-9a-z_]+]] = mixprec.embedding %[[TOK_TABLE]], %[[TOKENS]] : tensor<100x64xf32>, tensor<8x16xi32>
// CHECK-NEXT:    %[[POS:[0-9a-z_]+]] = mixprec.broadcast %[[POS_TABLE]] : tensor<16x64xf32> -> tensor<8x16x64xf32>
// CHECK-NEXT:    %[[X0:[0-9a-z_]+]] = mixprec.add %[[TOK]], %[[POS]] : tensor<8x16x64xf32>, tensor<8x16x64xf32>

// Attention.
// CHECK-DAG:     %[[LN1_W:[0-9a-z_]+]] = mixprec.read @ln1_weight : tensor<64xf32>
// CHECK-DAG:     %[[LN1_B:[0-9a-z_]+]] = mixprec.read @ln1_bias : tensor<64xf32>
// CHECK:         %[[H1:[0-9a-z_]+]] = mixprec.layer_norm %[[X0]] scale %[[LN1_W]] bias %[[LN1_B]] {axis = 2 : i64} : tensor<8x16x64xf32>, tensor<64xf32>, tensor<64xf32>
// CHECK-DAG:     %[[WQ:[0-9a-z_]+]] = mixprec.read @q_weight : tensor<64x64xf32>
// CHECK-DAG:     %[[BQ:[0-9a-z_]+]] = mixprec.read @q_bias : tensor<64xf32>
// CHECK-DAG:     %[[WK:[0-9a-z_]+]] = mixprec.read @k_weight : tensor<64x64xf32>
// CHECK-DAG:     %[[BK:[0-9a-z_]+]] = mixprec.read @k_bias : tensor<64xf32>
// CHECK-DAG:     %[[WV:[0-9a-z_]+]] = mixprec.read @v_weight : tensor<64x64xf32>
// CHECK-DAG:     %[[BV:[0-9a-z_]+]] = mixprec.read @v_bias : tensor<64xf32>
// CHECK:         %[[Q:[0-9a-z_]+]] = mixprec.linear %[[H1]], %[[WQ]], %[[BQ]] : tensor<8x16x64xf32>, tensor<64x64xf32>, tensor<64xf32> -> tensor<8x16x64xf32>
// CHECK-NEXT:    %[[K:[0-9a-z_]+]] = mixprec.linear %[[H1]], %[[WK]], %[[BK]] : tensor<8x16x64xf32>, tensor<64x64xf32>, tensor<64xf32> -> tensor<8x16x64xf32>
// CHECK-NEXT:    %[[V:[0-9a-z_]+]] = mixprec.linear %[[H1]], %[[WV]], %[[BV]] : tensor<8x16x64xf32>, tensor<64x64xf32>, tensor<64xf32> -> tensor<8x16x64xf32>
// CHECK-NEXT:    %[[Q4:[0-9a-z_]+]] = mixprec.reshape %[[Q]] : tensor<8x16x64xf32> -> tensor<8x16x4x16xf32>
// CHECK-NEXT:    %[[K4:[0-9a-z_]+]] = mixprec.reshape %[[K]] : tensor<8x16x64xf32> -> tensor<8x16x4x16xf32>
// CHECK-NEXT:    %[[V4:[0-9a-z_]+]] = mixprec.reshape %[[V]] : tensor<8x16x64xf32> -> tensor<8x16x4x16xf32>
// CHECK-NEXT:    %[[QH:[0-9a-z_]+]] = mixprec.transpose %[[Q4]] {permutation = array<i64: 0, 2, 1, 3>} : tensor<8x16x4x16xf32>
// CHECK-NEXT:    %[[KH:[0-9a-z_]+]] = mixprec.transpose %[[K4]] {permutation = array<i64: 0, 2, 1, 3>} : tensor<8x16x4x16xf32>
// CHECK-NEXT:    %[[VH:[0-9a-z_]+]] = mixprec.transpose %[[V4]] {permutation = array<i64: 0, 2, 1, 3>} : tensor<8x16x4x16xf32>
// CHECK-NEXT:    %[[SCORES:[0-9a-z_]+]] = mixprec.batch_matmul %[[QH]], %[[KH]] {transpose_rhs} : tensor<8x4x16x16xf32>, tensor<8x4x16x16xf32> -> tensor<8x4x16x16xf32>
// CHECK-NEXT:    %[[C:[0-9a-z_]+]] = mixprec.constant dense<2.500000e-01> : tensor<f32>
// CHECK-NEXT:    %[[CB:[0-9a-z_]+]] = mixprec.broadcast %[[C]] : tensor<f32> -> tensor<8x4x16x16xf32>
// CHECK-NEXT:    %[[SCALED:[0-9a-z_]+]] = mixprec.mul %[[SCORES]], %[[CB]] : tensor<8x4x16x16xf32>, tensor<8x4x16x16xf32>
// CHECK-NEXT:    %[[PROBS:[0-9a-z_]+]] = mixprec.softmax %[[SCALED]] {axis = 3 : i64} : tensor<8x4x16x16xf32>
// Stream 0 is the default and is not printed.
// CHECK-NEXT:    %[[PROBS_DROP:[0-9a-z_]+]] = mixprec.dropout %[[PROBS]], %[[RNG]] {p = 1.000000e-01 : f64} : tensor<8x4x16x16xf32>
// CHECK-NEXT:    %[[CTX:[0-9a-z_]+]] = mixprec.batch_matmul %[[PROBS_DROP]], %[[VH]] : tensor<8x4x16x16xf32>, tensor<8x4x16x16xf32> -> tensor<8x4x16x16xf32>
// CHECK-NEXT:    %[[CTX_T:[0-9a-z_]+]] = mixprec.transpose %[[CTX]] {permutation = array<i64: 0, 2, 1, 3>} : tensor<8x4x16x16xf32>
// CHECK-NEXT:    %[[CTX_M:[0-9a-z_]+]] = mixprec.reshape %[[CTX_T]] : tensor<8x16x4x16xf32> -> tensor<8x16x64xf32>
// CHECK-DAG:     %[[WO:[0-9a-z_]+]] = mixprec.read @attn_out_weight : tensor<64x64xf32>
// CHECK-DAG:     %[[BO:[0-9a-z_]+]] = mixprec.read @attn_out_bias : tensor<64xf32>
// CHECK:         %[[ATTN:[0-9a-z_]+]] = mixprec.linear %[[CTX_M]], %[[WO]], %[[BO]] : tensor<8x16x64xf32>, tensor<64x64xf32>, tensor<64xf32> -> tensor<8x16x64xf32>
// CHECK-NEXT:    %[[ATTN_DROP:[0-9a-z_]+]] = mixprec.dropout %[[ATTN]], %[[RNG]] {p = 1.000000e-01 : f64, stream = 1 : i64} : tensor<8x16x64xf32>
// CHECK-NEXT:    %[[X1:[0-9a-z_]+]] = mixprec.add %[[X0]], %[[ATTN_DROP]] : tensor<8x16x64xf32>, tensor<8x16x64xf32>

// MLP.
// CHECK-DAG:     %[[LN2_W:[0-9a-z_]+]] = mixprec.read @ln2_weight : tensor<64xf32>
// CHECK-DAG:     %[[LN2_B:[0-9a-z_]+]] = mixprec.read @ln2_bias : tensor<64xf32>
// CHECK:         %[[H2:[0-9a-z_]+]] = mixprec.layer_norm %[[X1]] scale %[[LN2_W]] bias %[[LN2_B]] {axis = 2 : i64} : tensor<8x16x64xf32>, tensor<64xf32>, tensor<64xf32>
// CHECK-DAG:     %[[W1:[0-9a-z_]+]] = mixprec.read @mlp_fc1_weight : tensor<256x64xf32>
// CHECK-DAG:     %[[B1:[0-9a-z_]+]] = mixprec.read @mlp_fc1_bias : tensor<256xf32>
// CHECK-DAG:     %[[W2:[0-9a-z_]+]] = mixprec.read @mlp_fc2_weight : tensor<64x256xf32>
// CHECK-DAG:     %[[B2:[0-9a-z_]+]] = mixprec.read @mlp_fc2_bias : tensor<64xf32>
// CHECK:         %[[UP:[0-9a-z_]+]] = mixprec.linear %[[H2]], %[[W1]], %[[B1]] : tensor<8x16x64xf32>, tensor<256x64xf32>, tensor<256xf32> -> tensor<8x16x256xf32>
// CHECK-NEXT:    %[[ACT:[0-9a-z_]+]] = mixprec.gelu %[[UP]] : tensor<8x16x256xf32>
// CHECK-NEXT:    %[[DOWN:[0-9a-z_]+]] = mixprec.linear %[[ACT]], %[[W2]], %[[B2]] : tensor<8x16x256xf32>, tensor<64x256xf32>, tensor<64xf32> -> tensor<8x16x64xf32>
// CHECK-NEXT:    %[[DOWN_DROP:[0-9a-z_]+]] = mixprec.dropout %[[DOWN]], %[[RNG]] {p = 1.000000e-01 : f64, stream = 2 : i64} : tensor<8x16x64xf32>
// CHECK-NEXT:    %[[X2:[0-9a-z_]+]] = mixprec.add %[[X1]], %[[DOWN_DROP]] : tensor<8x16x64xf32>, tensor<8x16x64xf32>

// Head.
// CHECK-DAG:     %[[LNF_W:[0-9a-z_]+]] = mixprec.read @ln_f_weight : tensor<64xf32>
// CHECK-DAG:     %[[LNF_B:[0-9a-z_]+]] = mixprec.read @ln_f_bias : tensor<64xf32>
// CHECK:         %[[HF:[0-9a-z_]+]] = mixprec.layer_norm %[[X2]] scale %[[LNF_W]] bias %[[LNF_B]] {axis = 2 : i64} : tensor<8x16x64xf32>, tensor<64xf32>, tensor<64xf32>
// CHECK-NEXT:    %[[POOLED:[0-9a-z_]+]] = mixprec.reduce_mean %[[HF]] {dims = array<i64: 1>} : tensor<8x16x64xf32>
// CHECK-DAG:     %[[WH:[0-9a-z_]+]] = mixprec.read @head_weight : tensor<4x64xf32>
// CHECK-DAG:     %[[BH:[0-9a-z_]+]] = mixprec.read @head_bias : tensor<4xf32>
// CHECK:         %[[LOGITS:[0-9a-z_]+]] = mixprec.linear %[[POOLED]], %[[WH]], %[[BH]] : tensor<8x64xf32>, tensor<4x64xf32>, tensor<4xf32> -> tensor<8x4xf32>
// CHECK-NEXT:    %[[LOSS:[0-9a-z_]+]] = mixprec.softmax_cross_entropy %[[LOGITS]], %[[LABELS]] : tensor<8x4xf32>, tensor<8xi32>
// CHECK-NEXT:    return %[[LOSS]] : tensor<f32>
// CHECK-NEXT:  }
// AdamW with PyTorch's defaults (beta1 0.9, beta2 0.999, eps 1e-8, weight
// decay 0.01) prints with every parameter elided.
// CHECK-NEXT:  mixprec.train_step @train forward @loss optimizer #mixprec.adamw<>
// CHECK-NEXT: }
