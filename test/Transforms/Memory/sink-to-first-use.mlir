// RUN: mixprec-opt %s -split-input-file --mixprec-sink-to-first-use | FileCheck %s

// The reverse sweep of attention emits the gradient of the probabilities
// (%dp, 1x2x8x8) before that of the values (%dv), but only softmax_grad,
// after %dv, reads it. %dp moves down to right before softmax_grad: it is
// bigger than the incoming gradient it would keep alive instead (%v, an
// argument, is live anyway). %dv stays: moving it to the return would keep
// %p and %dout alive for no fewer bytes.
// CHECK-LABEL: func.func @attention(
// CHECK-SAME:    %[[Q:[^:]+]]: tensor<1x2x8x2xf32>, %[[K:[^:]+]]: tensor<1x2x8x2xf32>, %[[V:[^:]+]]: tensor<1x2x8x2xf32>)
// CHECK:         %[[P:.+]] = mixprec.softmax
// CHECK:         %[[DOUT:.+]] = mixprec.broadcast
// CHECK-NEXT:    %[[DV:.+]] = mixprec.batch_matmul %[[P]], %[[DOUT]] {transpose_lhs}
// CHECK-NEXT:    %[[DP:.+]] = mixprec.batch_matmul %[[DOUT]], %[[V]] {transpose_rhs}
// CHECK-NEXT:    %[[DS:.+]] = mixprec.softmax_grad %[[DP]], %[[P]] {axis = 3 : i64}
// CHECK-NEXT:    %[[DQ:.+]] = mixprec.batch_matmul %[[DS]], %[[K]] :
// CHECK-NEXT:    %[[DK:.+]] = mixprec.batch_matmul %[[DS]], %[[Q]] {transpose_lhs}
// CHECK-NEXT:    return %{{.+}}, %[[DQ]], %[[DK]], %[[DV]]
func.func @attention(%q: tensor<1x2x8x2xf32>, %k: tensor<1x2x8x2xf32>, %v: tensor<1x2x8x2xf32>) -> (tensor<f32>, tensor<1x2x8x2xf32>, tensor<1x2x8x2xf32>, tensor<1x2x8x2xf32>) attributes {mixprec.optimizer_step} {
  %s = mixprec.batch_matmul %q, %k {transpose_rhs} : tensor<1x2x8x2xf32>, tensor<1x2x8x2xf32> -> tensor<1x2x8x8xf32>
  %p = mixprec.softmax %s {axis = 3 : i64} : tensor<1x2x8x8xf32>
  %o = mixprec.batch_matmul %p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x2xf32> -> tensor<1x2x8x2xf32>
  %l = mixprec.reduce_sum %o {dims = array<i64: 0, 1, 2, 3>} : tensor<1x2x8x2xf32>
  %seed = mixprec.constant {mixprec.loss_seed} dense<1.0> : tensor<f32>
  %dout = mixprec.broadcast %seed : tensor<f32> -> tensor<1x2x8x2xf32>
  %dp = mixprec.batch_matmul %dout, %v {transpose_rhs} : tensor<1x2x8x2xf32>, tensor<1x2x8x2xf32> -> tensor<1x2x8x8xf32>
  %dv = mixprec.batch_matmul %p, %dout {transpose_lhs} : tensor<1x2x8x8xf32>, tensor<1x2x8x2xf32> -> tensor<1x2x8x2xf32>
  %ds = mixprec.softmax_grad %dp, %p {axis = 3 : i64} : tensor<1x2x8x8xf32>
  %dq = mixprec.batch_matmul %ds, %k : tensor<1x2x8x8xf32>, tensor<1x2x8x2xf32> -> tensor<1x2x8x2xf32>
  %dk = mixprec.batch_matmul %ds, %q {transpose_lhs} : tensor<1x2x8x8xf32>, tensor<1x2x8x2xf32> -> tensor<1x2x8x2xf32>
  return %l, %dq, %dk, %dv : tensor<f32>, tensor<1x2x8x2xf32>, tensor<1x2x8x2xf32>, tensor<1x2x8x2xf32>
}

// -----

// A reduction is smaller than its operand: moved to its reader, %r would
// keep %e (64 floats) alive to save one float, so it stays. %r2 reduces
// %e2, which is read after %r2's reader anyway: nothing lives longer, so
// %r2 moves down to its reader, and then %e2 (from an argument) to %r2. The
// read of @w never moves.
mixprec.parameter @w : tensor<64xf32> = #mixprec.zeros
// CHECK-LABEL: func.func @reductions(
// CHECK-NEXT:    %[[E:.+]] = mixprec.exp
// CHECK-NEXT:    %[[R:.+]] = mixprec.reduce_sum %[[E]]
// CHECK-NEXT:    %[[W:.+]] = mixprec.read @w
// CHECK-NEXT:    %[[E2:.+]] = mixprec.exp
// CHECK-NEXT:    %[[R2:.+]] = mixprec.reduce_sum %[[E2]]
// CHECK-NEXT:    mixprec.add %[[R]], %[[R2]]
// CHECK-NEXT:    mixprec.mul %[[E2]], %[[W]]
func.func @reductions(%x: tensor<64xf32>, %y: tensor<64xf32>) -> (tensor<f32>, tensor<64xf32>) attributes {mixprec.optimizer_step} {
  %e = mixprec.exp %x : tensor<64xf32>
  %r = mixprec.reduce_sum %e {dims = array<i64: 0>} : tensor<64xf32>
  %e2 = mixprec.exp %y : tensor<64xf32>
  %r2 = mixprec.reduce_sum %e2 {dims = array<i64: 0>} : tensor<64xf32>
  %w = mixprec.read @w : tensor<64xf32>
  %a = mixprec.add %r, %r2 : tensor<f32>, tensor<f32>
  %b = mixprec.mul %e2, %w : tensor<64xf32>, tensor<64xf32>
  return %a, %b : tensor<f32>, tensor<64xf32>
}

// -----

// The 16-bit copies of two weights, read only after the update of @b. The
// read of @a is live there anyway, so %a16 moves down to its reader. @b is
// assigned in between (its new value is written over the old one): moving
// %b16 would keep the FP32 %b for a smaller f16 copy, so %b16 stays. The
// reads themselves never move.
mixprec.parameter @a : tensor<64xf32> = #mixprec.zeros
mixprec.parameter @b : tensor<64xf32> = #mixprec.zeros
// CHECK-LABEL: func.func @state(
// CHECK-NEXT:    %[[A:.+]] = mixprec.read @a : tensor<64xf32>
// CHECK-NEXT:    %[[B:.+]] = mixprec.read @b : tensor<64xf32>
// CHECK-NEXT:    %[[B16:.+]] = mixprec.cast %[[B]] : tensor<64xf32> to tensor<64xf16>
// CHECK-NEXT:    %[[NB:.+]] = mixprec.sgd_update %[[B]],
// CHECK-NEXT:    mixprec.assign @b, %[[NB]]
// CHECK-NEXT:    %[[A16:.+]] = mixprec.cast %[[A]] : tensor<64xf32> to tensor<64xf16>
// CHECK-NEXT:    mixprec.mul %[[A16]], %[[B16]]
func.func @state(%g: tensor<64xf32>, %lr: tensor<f32>) -> tensor<64xf16> attributes {mixprec.optimizer_step} {
  %a = mixprec.read @a : tensor<64xf32>
  %b = mixprec.read @b : tensor<64xf32>
  %a16 = mixprec.cast %a : tensor<64xf32> to tensor<64xf16>
  %b16 = mixprec.cast %b : tensor<64xf32> to tensor<64xf16>
  %nb = mixprec.sgd_update %b, %g, %lr {optimizer = #mixprec.sgd<>} : (tensor<64xf32>, tensor<64xf32>, tensor<f32>) -> tensor<64xf32>
  mixprec.assign @b, %nb : tensor<64xf32>
  %y = mixprec.mul %a16, %b16 : tensor<64xf16>, tensor<64xf16>
  return %y : tensor<64xf16>
}

// -----

// A chain: the broadcast moves to its reader first, then the exp to the
// broadcast, its reader now. A constant is data and stays where it is. The
// same function without mixprec.optimizer_step is left as it is.
// CHECK-LABEL: func.func @chain(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<8x4xf32>)
// CHECK-NEXT:    %[[C:.+]] = mixprec.constant dense<2.000000e+00> : tensor<8x4xf32>
// CHECK-NEXT:    %[[N:.+]] = mixprec.neg %[[Y]]
// CHECK-NEXT:    %[[E:.+]] = mixprec.exp %[[X]]
// CHECK-NEXT:    %[[B:.+]] = mixprec.broadcast %[[E]]
// CHECK-NEXT:    %[[M:.+]] = mixprec.mul %[[B]], %[[N]]
// CHECK-NEXT:    mixprec.add %[[M]], %[[C]]
// CHECK-LABEL: func.func @not_a_step(
// CHECK-NEXT:    mixprec.constant
// CHECK-NEXT:    mixprec.exp
// CHECK-NEXT:    mixprec.broadcast
// CHECK-NEXT:    mixprec.neg
// CHECK-NEXT:    mixprec.mul
func.func @chain(%x: tensor<4xf32>, %y: tensor<8x4xf32>) -> tensor<8x4xf32> attributes {mixprec.optimizer_step} {
  %c = mixprec.constant dense<2.0> : tensor<8x4xf32>
  %e = mixprec.exp %x : tensor<4xf32>
  %b = mixprec.broadcast %e : tensor<4xf32> -> tensor<8x4xf32>
  %n = mixprec.neg %y : tensor<8x4xf32>
  %m = mixprec.mul %b, %n : tensor<8x4xf32>, tensor<8x4xf32>
  %r = mixprec.add %m, %c : tensor<8x4xf32>, tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}
func.func @not_a_step(%x: tensor<4xf32>, %y: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %c = mixprec.constant dense<2.0> : tensor<8x4xf32>
  %e = mixprec.exp %x : tensor<4xf32>
  %b = mixprec.broadcast %e : tensor<4xf32> -> tensor<8x4xf32>
  %n = mixprec.neg %y : tensor<8x4xf32>
  %m = mixprec.mul %b, %n : tensor<8x4xf32>, tensor<8x4xf32>
  %r = mixprec.add %m, %c : tensor<8x4xf32>, tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}
