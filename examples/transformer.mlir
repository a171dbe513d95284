// One pre-LN transformer encoder block with a classification head: token
// sequences over a 100-token vocabulary, classified into 4 classes, trained
// with AdamW.
//
//   sizes: batch B = 8, sequence T = 16, d_model D = 64, H = 4 heads of
//          head dim Dh = 16, MLP hidden 256, vocab V = 100, C = 4 classes.
//
//   batch:
//     %tokens  tensor<8x16xi32>  token ids in [0, 100)
//     %labels  tensor<8xi32>     class indices in [0, 4)
//
//   parameters (PyTorch defaults: nn.Linear weights kaiming_uniform(a =
//   sqrt(5)) with biases U(-1/sqrt(fan_in), 1/sqrt(fan_in)); nn.Embedding
//   N(0, 1); nn.LayerNorm ones / zeros; the learned positional embedding
//   N(0, 0.02^2) as in GPT-2 / ViT):
//     @tok_embedding               tensor<100x64xf32>  N(0, 1), no decay
//     @pos_embedding               tensor<16x64xf32>   N(0, 0.02^2), no decay
//     @ln1_weight, @ln1_bias       tensor<64xf32>      ones, zeros
//     @q_weight, @k_weight, @v_weight, @attn_out_weight
//                                  tensor<64x64xf32>   kaiming_uniform
//     @q_bias, @k_bias, @v_bias, @attn_out_bias
//                                  tensor<64xf32>      U(-1/8, 1/8)
//     @ln2_weight, @ln2_bias       tensor<64xf32>      ones, zeros
//     @mlp_fc1_weight              tensor<256x64xf32>  kaiming_uniform
//     @mlp_fc1_bias                tensor<256xf32>     U(-1/8, 1/8)
//     @mlp_fc2_weight              tensor<64x256xf32>  kaiming_uniform
//     @mlp_fc2_bias                tensor<64xf32>      U(-1/16, 1/16)
//     @ln_f_weight, @ln_f_bias     tensor<64xf32>      ones, zeros
//     @head_weight                 tensor<4x64xf32>    kaiming_uniform
//     @head_bias                   tensor<4xf32>       U(-1/8, 1/8)
//   No buffers: the dropout masks come from the train step's Philox state
//   (mixprec.rng_state), one stream per dropout.
//
//   forward:
//     tokens [8, 16] --embedding--> [8, 16, 64]
//       + broadcast(pos_embedding [16, 64])                    = x0 [8, 16, 64]
//     attention (pre-LN):
//       h = layer_norm(x0) over the last dim
//       q, k, v = linear(h) [8, 16, 64] --reshape--> [8, 16, 4, 16]
//                 --transpose (0, 2, 1, 3)--> [8, 4, 16, 16]
//       s = batch_matmul(q, k^T) * broadcast(1/sqrt(16))       [8, 4, 16, 16]
//       a = dropout(softmax(s, axis 3), p = 0.1, stream 0)
//       o = batch_matmul(a, v) [8, 4, 16, 16] --transpose--> [8, 16, 4, 16]
//           --reshape--> [8, 16, 64]
//       x1 = x0 + dropout(linear(o), p = 0.1, stream 1)
//     MLP (pre-LN):
//       x2 = x1 + dropout(linear(gelu(linear(layer_norm(x1)))), p = 0.1,
//                         stream 2)                   [8, 16, 64] -> 256 -> 64
//     head:
//       layer_norm(x2) --reduce_mean over T--> [8, 64] --linear--> [8, 4]
//       --softmax_cross_entropy (mean)--> scalar loss
//
//   train step: AdamW (beta1 0.9, beta2 0.999, eps 1e-8, decoupled weight
//   decay 0.01 on the rank-2 weights; biases and layer-norm parameters are
//   not decayed by default, the embeddings opt out with weight_decay =
//   false). The learning rate is a runtime input of the generated step.

module {
  mixprec.parameter @tok_embedding : tensor<100x64xf32> = #mixprec.normal<mean = 0.0, std = 1.0, seed = 1> {weight_decay = false}
  mixprec.parameter @pos_embedding : tensor<16x64xf32> = #mixprec.normal<mean = 0.0, std = 0.02, seed = 2> {weight_decay = false}

  mixprec.parameter @ln1_weight : tensor<64xf32> = #mixprec.ones
  mixprec.parameter @ln1_bias : tensor<64xf32> = #mixprec.zeros
  mixprec.parameter @q_weight : tensor<64x64xf32> = #mixprec.kaiming_uniform<a = 2.23606797749979, seed = 3>
  mixprec.parameter @q_bias : tensor<64xf32> = #mixprec.uniform<low = -0.125, high = 0.125, seed = 4>
  mixprec.parameter @k_weight : tensor<64x64xf32> = #mixprec.kaiming_uniform<a = 2.23606797749979, seed = 5>
  mixprec.parameter @k_bias : tensor<64xf32> = #mixprec.uniform<low = -0.125, high = 0.125, seed = 6>
  mixprec.parameter @v_weight : tensor<64x64xf32> = #mixprec.kaiming_uniform<a = 2.23606797749979, seed = 7>
  mixprec.parameter @v_bias : tensor<64xf32> = #mixprec.uniform<low = -0.125, high = 0.125, seed = 8>
  mixprec.parameter @attn_out_weight : tensor<64x64xf32> = #mixprec.kaiming_uniform<a = 2.23606797749979, seed = 9>
  mixprec.parameter @attn_out_bias : tensor<64xf32> = #mixprec.uniform<low = -0.125, high = 0.125, seed = 10>

  mixprec.parameter @ln2_weight : tensor<64xf32> = #mixprec.ones
  mixprec.parameter @ln2_bias : tensor<64xf32> = #mixprec.zeros
  mixprec.parameter @mlp_fc1_weight : tensor<256x64xf32> = #mixprec.kaiming_uniform<a = 2.23606797749979, seed = 11>
  mixprec.parameter @mlp_fc1_bias : tensor<256xf32> = #mixprec.uniform<low = -0.125, high = 0.125, seed = 12>
  mixprec.parameter @mlp_fc2_weight : tensor<64x256xf32> = #mixprec.kaiming_uniform<a = 2.23606797749979, seed = 13>
  mixprec.parameter @mlp_fc2_bias : tensor<64xf32> = #mixprec.uniform<low = -0.0625, high = 0.0625, seed = 14>

  mixprec.parameter @ln_f_weight : tensor<64xf32> = #mixprec.ones
  mixprec.parameter @ln_f_bias : tensor<64xf32> = #mixprec.zeros
  mixprec.parameter @head_weight : tensor<4x64xf32> = #mixprec.kaiming_uniform<a = 2.23606797749979, seed = 15>
  mixprec.parameter @head_bias : tensor<4xf32> = #mixprec.uniform<low = -0.125, high = 0.125, seed = 16>

  func.func @loss(%tokens: tensor<8x16xi32>, %labels: tensor<8xi32>) -> tensor<f32> {
    %rng = mixprec.rng_state

    // Token + learned positional embedding.
    %tok_table = mixprec.read @tok_embedding : tensor<100x64xf32>
    %pos_table = mixprec.read @pos_embedding : tensor<16x64xf32>
    %tok = mixprec.embedding %tok_table, %tokens : tensor<100x64xf32>, tensor<8x16xi32>
    %pos = mixprec.broadcast %pos_table : tensor<16x64xf32> -> tensor<8x16x64xf32>
    %x0 = mixprec.add %tok, %pos : tensor<8x16x64xf32>, tensor<8x16x64xf32>

    // Multi-head self-attention, pre-LN.
    %ln1_w = mixprec.read @ln1_weight : tensor<64xf32>
    %ln1_b = mixprec.read @ln1_bias : tensor<64xf32>
    %h1 = mixprec.layer_norm %x0 scale %ln1_w bias %ln1_b {axis = 2 : i64} : tensor<8x16x64xf32>, tensor<64xf32>, tensor<64xf32>
    %wq = mixprec.read @q_weight : tensor<64x64xf32>
    %bq = mixprec.read @q_bias : tensor<64xf32>
    %wk = mixprec.read @k_weight : tensor<64x64xf32>
    %bk = mixprec.read @k_bias : tensor<64xf32>
    %wv = mixprec.read @v_weight : tensor<64x64xf32>
    %bv = mixprec.read @v_bias : tensor<64xf32>
    %q = mixprec.linear %h1, %wq, %bq : tensor<8x16x64xf32>, tensor<64x64xf32>, tensor<64xf32> -> tensor<8x16x64xf32>
    %k = mixprec.linear %h1, %wk, %bk : tensor<8x16x64xf32>, tensor<64x64xf32>, tensor<64xf32> -> tensor<8x16x64xf32>
    %v = mixprec.linear %h1, %wv, %bv : tensor<8x16x64xf32>, tensor<64x64xf32>, tensor<64xf32> -> tensor<8x16x64xf32>
    %q4 = mixprec.reshape %q : tensor<8x16x64xf32> -> tensor<8x16x4x16xf32>
    %k4 = mixprec.reshape %k : tensor<8x16x64xf32> -> tensor<8x16x4x16xf32>
    %v4 = mixprec.reshape %v : tensor<8x16x64xf32> -> tensor<8x16x4x16xf32>
    %qh = mixprec.transpose %q4 {permutation = array<i64: 0, 2, 1, 3>} : tensor<8x16x4x16xf32>
    %kh = mixprec.transpose %k4 {permutation = array<i64: 0, 2, 1, 3>} : tensor<8x16x4x16xf32>
    %vh = mixprec.transpose %v4 {permutation = array<i64: 0, 2, 1, 3>} : tensor<8x16x4x16xf32>
    %scores = mixprec.batch_matmul %qh, %kh {transpose_rhs} : tensor<8x4x16x16xf32>, tensor<8x4x16x16xf32> -> tensor<8x4x16x16xf32>
    %inv_sqrt_dh = mixprec.constant dense<0.25> : tensor<f32>
    %scale = mixprec.broadcast %inv_sqrt_dh : tensor<f32> -> tensor<8x4x16x16xf32>
    %scaled = mixprec.mul %scores, %scale : tensor<8x4x16x16xf32>, tensor<8x4x16x16xf32>
    %probs = mixprec.softmax %scaled {axis = 3 : i64} : tensor<8x4x16x16xf32>
    %probs_drop = mixprec.dropout %probs, %rng {p = 0.1 : f64, stream = 0 : i64} : tensor<8x4x16x16xf32>
    %ctx = mixprec.batch_matmul %probs_drop, %vh : tensor<8x4x16x16xf32>, tensor<8x4x16x16xf32> -> tensor<8x4x16x16xf32>
    %ctx_t = mixprec.transpose %ctx {permutation = array<i64: 0, 2, 1, 3>} : tensor<8x4x16x16xf32>
    %ctx_m = mixprec.reshape %ctx_t : tensor<8x16x4x16xf32> -> tensor<8x16x64xf32>
    %wo = mixprec.read @attn_out_weight : tensor<64x64xf32>
    %bo = mixprec.read @attn_out_bias : tensor<64xf32>
    %attn = mixprec.linear %ctx_m, %wo, %bo : tensor<8x16x64xf32>, tensor<64x64xf32>, tensor<64xf32> -> tensor<8x16x64xf32>
    %attn_drop = mixprec.dropout %attn, %rng {p = 0.1 : f64, stream = 1 : i64} : tensor<8x16x64xf32>
    %x1 = mixprec.add %x0, %attn_drop : tensor<8x16x64xf32>, tensor<8x16x64xf32>

    // MLP, pre-LN.
    %ln2_w = mixprec.read @ln2_weight : tensor<64xf32>
    %ln2_b = mixprec.read @ln2_bias : tensor<64xf32>
    %h2 = mixprec.layer_norm %x1 scale %ln2_w bias %ln2_b {axis = 2 : i64} : tensor<8x16x64xf32>, tensor<64xf32>, tensor<64xf32>
    %w1 = mixprec.read @mlp_fc1_weight : tensor<256x64xf32>
    %b1 = mixprec.read @mlp_fc1_bias : tensor<256xf32>
    %w2 = mixprec.read @mlp_fc2_weight : tensor<64x256xf32>
    %b2 = mixprec.read @mlp_fc2_bias : tensor<64xf32>
    %up = mixprec.linear %h2, %w1, %b1 : tensor<8x16x64xf32>, tensor<256x64xf32>, tensor<256xf32> -> tensor<8x16x256xf32>
    %act = mixprec.gelu %up : tensor<8x16x256xf32>
    %down = mixprec.linear %act, %w2, %b2 : tensor<8x16x256xf32>, tensor<64x256xf32>, tensor<64xf32> -> tensor<8x16x64xf32>
    %down_drop = mixprec.dropout %down, %rng {p = 0.1 : f64, stream = 2 : i64} : tensor<8x16x64xf32>
    %x2 = mixprec.add %x1, %down_drop : tensor<8x16x64xf32>, tensor<8x16x64xf32>

    // Final layer norm, mean over the sequence, classifier.
    %lnf_w = mixprec.read @ln_f_weight : tensor<64xf32>
    %lnf_b = mixprec.read @ln_f_bias : tensor<64xf32>
    %hf = mixprec.layer_norm %x2 scale %lnf_w bias %lnf_b {axis = 2 : i64} : tensor<8x16x64xf32>, tensor<64xf32>, tensor<64xf32>
    %pooled = mixprec.reduce_mean %hf {dims = array<i64: 1>} : tensor<8x16x64xf32>
    %wh = mixprec.read @head_weight : tensor<4x64xf32>
    %bh = mixprec.read @head_bias : tensor<4xf32>
    %logits = mixprec.linear %pooled, %wh, %bh : tensor<8x64xf32>, tensor<4x64xf32>, tensor<4xf32> -> tensor<8x4xf32>
    %loss = mixprec.softmax_cross_entropy %logits, %labels : tensor<8x4xf32>, tensor<8xi32>
    return %loss : tensor<f32>
  }

  mixprec.train_step @train forward @loss optimizer #mixprec.adamw<beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.01>
}
