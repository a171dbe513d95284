// RUN: mixprec-opt %s -split-input-file --mixprec-rematerialize | FileCheck %s
// RUN: mixprec-opt %s -split-input-file --mixprec-rematerialize=budget=24587 | FileCheck %s --check-prefix=ONE
// RUN: mixprec-opt %s -split-input-file --mixprec-rematerialize=budget=20491 | FileCheck %s --check-prefix=TWO
// A budget that cannot be met is no error: everything that lowers the
// estimate is recomputed, and the pass succeeds.
// RUN: mixprec-opt %s -split-input-file --mixprec-rematerialize=budget=1 | FileCheck %s --check-prefix=TWO
// RUN: mixprec-opt %s -split-input-file --mixprec-rematerialize=budget=1 | FileCheck %s --check-prefix=SHARED
// RUN: mixprec-opt %s -split-input-file --mixprec-rematerialize="budget=20491 report" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: not mixprec-opt %s -split-input-file --mixprec-rematerialize=budget=-1 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// NEGATIVE: error: mixprec-rematerialize: budget must be >= 0, got -1

// The 16-bit working copy of a weight, read by the forward linear and by the
// backward matmul, is cast again from the FP32 master right before the
// backward matmul, which reads the copy (mixprec.recomputed); the forward
// keeps the original.
mixprec.parameter @w : tensor<8x4xf32> = #mixprec.zeros
// CHECK-LABEL: func.func @weight_copy(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x4xf16>, %[[LR:[^:]+]]: tensor<f32>)
// CHECK-NEXT:    %[[W:.+]] = mixprec.read @w : tensor<8x4xf32>
// CHECK-NEXT:    %[[W16:.+]] = mixprec.cast %[[W]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK-NEXT:    mixprec.linear %[[X]], %[[W16]] :
// CHECK:         %[[DY16:.+]] = mixprec.cast %{{.+}} : tensor<2x8xf32> to tensor<2x8xf16>
// CHECK-NEXT:    %[[W16B:.+]] = mixprec.cast %[[W]] {mixprec.recomputed = {{[0-9]+}} : i64} : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK-NEXT:    mixprec.matmul %[[DY16]], %[[W16B]] : tensor<2x8xf16>, tensor<8x4xf16> -> tensor<2x4xf16>
// CHECK-NOT:     mixprec.recomputed
// CHECK:         return
func.func @weight_copy(%x: tensor<2x4xf16>, %lr: tensor<f32>) -> (tensor<f32>, tensor<2x4xf16>) attributes {mixprec.optimizer_step} {
  %w = mixprec.read @w : tensor<8x4xf32>
  %w16 = mixprec.cast %w : tensor<8x4xf32> to tensor<8x4xf16>
  %y = mixprec.linear %x, %w16 : tensor<2x4xf16>, tensor<8x4xf16> -> tensor<2x8xf32>
  %l = mixprec.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<2x8xf32>
  %seed = mixprec.constant {mixprec.loss_seed} dense<1.0> : tensor<f32>
  %dy = mixprec.broadcast %seed : tensor<f32> -> tensor<2x8xf32>
  %dy16 = mixprec.cast %dy : tensor<2x8xf32> to tensor<2x8xf16>
  %dx = mixprec.matmul %dy16, %w16 : tensor<2x8xf16>, tensor<8x4xf16> -> tensor<2x4xf16>
  %dw = mixprec.matmul %dy16, %x {transpose_lhs} : tensor<2x8xf16>, tensor<2x4xf16> -> tensor<8x4xf32>
  %old = mixprec.read @w : tensor<8x4xf32>
  %new = mixprec.sgd_update %old, %dw, %lr {optimizer = #mixprec.sgd<>} : (tensor<8x4xf32>, tensor<8x4xf32>, tensor<f32>) -> tensor<8x4xf32>
  mixprec.assign @w, %new : tensor<8x4xf32>
  return %l, %dx : tensor<f32>, tensor<2x4xf16>
}

// -----

// The weight updated before the backward matmul that reads its 16-bit copy
// (state is updated in place): the FP32 master the copy was cast from is
// gone by then, so nothing is cast again and the matmul reads the forward's
// copy.
mixprec.parameter @w : tensor<8x4xf32> = #mixprec.zeros
// CHECK-LABEL: func.func @weight_copy_after_update(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x4xf16>, %[[LR:[^:]+]]: tensor<f32>)
// CHECK-NEXT:    %[[W:.+]] = mixprec.read @w : tensor<8x4xf32>
// CHECK-NEXT:    %[[W16:.+]] = mixprec.cast %[[W]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK-NEXT:    mixprec.linear %[[X]], %[[W16]] :
// CHECK-NOT:     mixprec.recomputed
// CHECK:         %[[DY16:.+]] = mixprec.cast %{{.+}} : tensor<2x8xf32> to tensor<2x8xf16>
// CHECK-NOT:     mixprec.recomputed
// CHECK:         mixprec.assign @w
// CHECK-NEXT:    mixprec.matmul %[[DY16]], %[[W16]] : tensor<2x8xf16>, tensor<8x4xf16> -> tensor<2x4xf16>
// CHECK-NOT:     mixprec.recomputed
// CHECK:         return
func.func @weight_copy_after_update(%x: tensor<2x4xf16>, %lr: tensor<f32>) -> (tensor<f32>, tensor<2x4xf16>) attributes {mixprec.optimizer_step} {
  %w = mixprec.read @w : tensor<8x4xf32>
  %w16 = mixprec.cast %w : tensor<8x4xf32> to tensor<8x4xf16>
  %y = mixprec.linear %x, %w16 : tensor<2x4xf16>, tensor<8x4xf16> -> tensor<2x8xf32>
  %l = mixprec.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<2x8xf32>
  %seed = mixprec.constant {mixprec.loss_seed} dense<1.0> : tensor<f32>
  %dy = mixprec.broadcast %seed : tensor<f32> -> tensor<2x8xf32>
  %dy16 = mixprec.cast %dy : tensor<2x8xf32> to tensor<2x8xf16>
  %dw = mixprec.matmul %dy16, %x {transpose_lhs} : tensor<2x8xf16>, tensor<2x4xf16> -> tensor<8x4xf32>
  %old = mixprec.read @w : tensor<8x4xf32>
  %new = mixprec.sgd_update %old, %dw, %lr {optimizer = #mixprec.sgd<>} : (tensor<8x4xf32>, tensor<8x4xf32>, tensor<f32>) -> tensor<8x4xf32>
  mixprec.assign @w, %new : tensor<8x4xf32>
  %dx = mixprec.matmul %dy16, %w16 : tensor<2x8xf16>, tensor<8x4xf16> -> tensor<2x4xf16>
  return %l, %dx : tensor<f32>, tensor<2x4xf16>
}

// -----

// The 16-bit copy of an FP32 softmax (of a 16-bit attention product), which
// softmax_grad keeps for the backward anyway: the backward's batch_matmul
// (the gradient of the values) reads a copy cast again from the softmax
// right before it, not the one the forward made. Neither the softmax nor
// the product is recomputed.
// CHECK-LABEL: func.func @softmax_copy(
// CHECK-SAME:    %[[Q:[^:]+]]: tensor<1x8x4xf16>, %[[K:[^:]+]]: tensor<1x8x4xf16>, %[[V:[^:]+]]: tensor<1x8x4xf16>)
// CHECK-NEXT:    %[[S:.+]] = mixprec.batch_matmul %[[Q]], %[[K]] {transpose_rhs}
// CHECK-NEXT:    %[[P:.+]] = mixprec.softmax %[[S]]
// CHECK-NEXT:    %[[P16:.+]] = mixprec.cast %[[P]] : tensor<1x8x8xf32> to tensor<1x8x8xf16>
// CHECK-NEXT:    mixprec.batch_matmul %[[P16]], %[[V]] :
// CHECK:         %[[DO16:.+]] = mixprec.cast %{{.+}} : tensor<1x8x4xf32> to tensor<1x8x4xf16>
// CHECK-NEXT:    %[[P16B:.+]] = mixprec.cast %[[P]] {mixprec.recomputed = {{[0-9]+}} : i64} : tensor<1x8x8xf32> to tensor<1x8x8xf16>
// CHECK-NEXT:    %[[DV:.+]] = mixprec.batch_matmul %[[P16B]], %[[DO16]] {transpose_lhs}
// CHECK-NEXT:    %[[DP16:.+]] = mixprec.batch_matmul %[[DO16]], %[[V]] {transpose_rhs}
// CHECK-NEXT:    %[[DP:.+]] = mixprec.cast %[[DP16]] : tensor<1x8x8xf16> to tensor<1x8x8xf32>
// CHECK-NEXT:    mixprec.softmax_grad %[[DP]], %[[P]] {axis = 2 : i64}
// CHECK-NOT:     mixprec.recomputed
// CHECK:         return
func.func @softmax_copy(%q: tensor<1x8x4xf16>, %k: tensor<1x8x4xf16>, %v: tensor<1x8x4xf16>) -> (tensor<f32>, tensor<1x8x8xf32>, tensor<1x8x4xf32>) attributes {mixprec.optimizer_step} {
  %s = mixprec.batch_matmul %q, %k {transpose_rhs} : tensor<1x8x4xf16>, tensor<1x8x4xf16> -> tensor<1x8x8xf32>
  %p = mixprec.softmax %s {axis = 2 : i64} : tensor<1x8x8xf32>
  %p16 = mixprec.cast %p : tensor<1x8x8xf32> to tensor<1x8x8xf16>
  %o = mixprec.batch_matmul %p16, %v : tensor<1x8x8xf16>, tensor<1x8x4xf16> -> tensor<1x8x4xf32>
  %l = mixprec.reduce_sum %o {dims = array<i64: 0, 1, 2>} : tensor<1x8x4xf32>
  %seed = mixprec.constant {mixprec.loss_seed} dense<1.0> : tensor<f32>
  %do = mixprec.broadcast %seed : tensor<f32> -> tensor<1x8x4xf32>
  %do16 = mixprec.cast %do : tensor<1x8x4xf32> to tensor<1x8x4xf16>
  %dv = mixprec.batch_matmul %p16, %do16 {transpose_lhs} : tensor<1x8x8xf16>, tensor<1x8x4xf16> -> tensor<1x8x4xf32>
  %dp16 = mixprec.batch_matmul %do16, %v {transpose_rhs} : tensor<1x8x4xf16>, tensor<1x8x4xf16> -> tensor<1x8x8xf16>
  %dp = mixprec.cast %dp16 : tensor<1x8x8xf16> to tensor<1x8x8xf32>
  %ds = mixprec.softmax_grad %dp, %p {axis = 2 : i64} : tensor<1x8x8xf32>
  return %l, %ds, %dv : tensor<f32>, tensor<1x8x8xf32>, tensor<1x8x4xf32>
}

// -----

// The softmax of an argument (a free operand) is no per-element op: it is
// computed once, not again for each reader; its 16-bit copy is still cast
// again from it before the backward's batch_matmul.
// CHECK-LABEL: func.func @softmax_copy_of_argument(
// CHECK-SAME:    %[[S:[^:]+]]: tensor<1x8x8xf32>, %[[V:[^:]+]]: tensor<1x8x4xf16>)
// CHECK-NEXT:    %[[P:.+]] = mixprec.softmax %[[S]]
// CHECK-NEXT:    %[[P16:.+]] = mixprec.cast %[[P]] : tensor<1x8x8xf32> to tensor<1x8x8xf16>
// CHECK-NEXT:    mixprec.batch_matmul %[[P16]], %[[V]] :
// CHECK-NOT:     mixprec.softmax %
// CHECK:         %[[DO16:.+]] = mixprec.cast %{{.+}} : tensor<1x8x4xf32> to tensor<1x8x4xf16>
// CHECK-NOT:     mixprec.softmax %
// CHECK:         %[[P16B:.+]] = mixprec.cast %[[P]] {mixprec.recomputed = {{[0-9]+}} : i64} : tensor<1x8x8xf32> to tensor<1x8x8xf16>
// CHECK-NEXT:    %[[DV:.+]] = mixprec.batch_matmul %[[P16B]], %[[DO16]] {transpose_lhs}
// CHECK-NOT:     mixprec.softmax %
// CHECK:         mixprec.softmax_grad %{{.+}}, %[[P]] {axis = 2 : i64}
// CHECK-NOT:     mixprec.recomputed
// CHECK:         return
func.func @softmax_copy_of_argument(%s: tensor<1x8x8xf32>, %v: tensor<1x8x4xf16>) -> (tensor<f32>, tensor<1x8x8xf32>, tensor<1x8x4xf32>) attributes {mixprec.optimizer_step} {
  %p = mixprec.softmax %s {axis = 2 : i64} : tensor<1x8x8xf32>
  %p16 = mixprec.cast %p : tensor<1x8x8xf32> to tensor<1x8x8xf16>
  %o = mixprec.batch_matmul %p16, %v : tensor<1x8x8xf16>, tensor<1x8x4xf16> -> tensor<1x8x4xf32>
  %l = mixprec.reduce_sum %o {dims = array<i64: 0, 1, 2>} : tensor<1x8x4xf32>
  %seed = mixprec.constant {mixprec.loss_seed} dense<1.0> : tensor<f32>
  %do = mixprec.broadcast %seed : tensor<f32> -> tensor<1x8x4xf32>
  %do16 = mixprec.cast %do : tensor<1x8x4xf32> to tensor<1x8x4xf16>
  %dv = mixprec.batch_matmul %p16, %do16 {transpose_lhs} : tensor<1x8x8xf16>, tensor<1x8x4xf16> -> tensor<1x8x4xf32>
  %dp16 = mixprec.batch_matmul %do16, %v {transpose_rhs} : tensor<1x8x4xf16>, tensor<1x8x4xf16> -> tensor<1x8x8xf16>
  %dp = mixprec.cast %dp16 : tensor<1x8x8xf16> to tensor<1x8x8xf32>
  %ds = mixprec.softmax_grad %dp, %p {axis = 2 : i64} : tensor<1x8x8xf32>
  return %l, %ds, %dv : tensor<f32>, tensor<1x8x8xf32>, tensor<1x8x4xf32>
}

// -----

// The FP32 copy of a 16-bit value kept anyway (%h16, which the backward
// reads for the weight's gradient), that relu_grad reads in the backward: it
// is cast again from %h16 right before relu_grad.
mixprec.parameter @w : tensor<4x8xf32> = #mixprec.zeros
// CHECK-LABEL: func.func @cast_of_narrow(
// CHECK:         %[[H16:.+]] = mixprec.matmul %{{.+}}, %{{.+}} : tensor<2x4xf16>, tensor<4x8xf16> -> tensor<2x8xf16>
// CHECK-NEXT:    %[[H:.+]] = mixprec.cast %[[H16]] : tensor<2x8xf16> to tensor<2x8xf32>
// CHECK-NEXT:    mixprec.relu %[[H]]
// CHECK:         %[[H2:.+]] = mixprec.cast %[[H16]] {mixprec.recomputed = {{[0-9]+}} : i64} : tensor<2x8xf16> to tensor<2x8xf32>
// CHECK-NEXT:    %[[DH:.+]] = mixprec.relu_grad %{{.+}}, %[[H2]] : tensor<2x8xf32>
// CHECK:         mixprec.matmul %{{.+}}, %[[H16]] {transpose_lhs}
func.func @cast_of_narrow(%x: tensor<2x4xf16>, %lr: tensor<f32>) -> (tensor<f32>, tensor<2x8xf32>, tensor<8x8xf32>) attributes {mixprec.optimizer_step} {
  %w = mixprec.read @w : tensor<4x8xf32>
  %w16 = mixprec.cast %w : tensor<4x8xf32> to tensor<4x8xf16>
  %h16 = mixprec.matmul %x, %w16 : tensor<2x4xf16>, tensor<4x8xf16> -> tensor<2x8xf16>
  %h = mixprec.cast %h16 : tensor<2x8xf16> to tensor<2x8xf32>
  %a = mixprec.relu %h : tensor<2x8xf32>
  %l = mixprec.reduce_sum %a {dims = array<i64: 0, 1>} : tensor<2x8xf32>
  %seed = mixprec.constant {mixprec.loss_seed} dense<1.0> : tensor<f32>
  %da = mixprec.broadcast %seed : tensor<f32> -> tensor<2x8xf32>
  %dh = mixprec.relu_grad %da, %h : tensor<2x8xf32>
  %dh16 = mixprec.cast %dh : tensor<2x8xf32> to tensor<2x8xf16>
  %dnext = mixprec.matmul %dh16, %h16 {transpose_lhs} : tensor<2x8xf16>, tensor<2x8xf16> -> tensor<8x8xf32>
  return %l, %dh, %dnext : tensor<f32>, tensor<2x8xf32>, tensor<8x8xf32>
}

// -----

// Two FP32 values that the backward reads, both determined by a 16-bit
// argument and weight copy: %e (exp of the FP32 copy of %x) is recomputed
// with its cast right before its backward reader; %y, computed by a
// contraction, is not: without a budget no matrix product is repeated, and
// relu_grad reads the forward's %y.
mixprec.parameter @w : tensor<8x4xf32> = #mixprec.zeros
// CHECK-LABEL: func.func @no_contraction(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x4xf16>
// CHECK:         %[[Y:.+]] = mixprec.linear %[[X]], %{{.+}} : tensor<2x4xf16>, tensor<8x4xf16> -> tensor<2x8xf32>
// CHECK-NOT:     mixprec.linear
// CHECK:         mixprec.relu_grad %{{.+}}, %[[Y]] : tensor<2x8xf32>
// CHECK-NOT:     mixprec.linear
// CHECK:         %[[X32:.+]] = mixprec.cast %[[X]] {mixprec.recomputed = {{[0-9]+}} : i64} : tensor<2x4xf16> to tensor<2x4xf32>
// CHECK-NEXT:    %[[E:.+]] = mixprec.exp %[[X32]] {mixprec.recomputed = {{[0-9]+}} : i64} : tensor<2x4xf32>
// CHECK-NEXT:    mixprec.mul %{{.+}}, %[[E]] : tensor<2x4xf32>, tensor<2x4xf32>
// CHECK-NOT:     mixprec.linear
// CHECK:         return
func.func @no_contraction(%x: tensor<2x4xf16>, %lr: tensor<f32>) -> (tensor<f32>, tensor<2x8xf32>, tensor<2x4xf32>) attributes {mixprec.optimizer_step} {
  %w = mixprec.read @w : tensor<8x4xf32>
  %w16 = mixprec.cast %w : tensor<8x4xf32> to tensor<8x4xf16>
  %y = mixprec.linear %x, %w16 : tensor<2x4xf16>, tensor<8x4xf16> -> tensor<2x8xf32>
  %a = mixprec.gelu %y : tensor<2x8xf32>
  %la = mixprec.reduce_sum %a {dims = array<i64: 0, 1>} : tensor<2x8xf32>
  %x32 = mixprec.cast %x : tensor<2x4xf16> to tensor<2x4xf32>
  %e = mixprec.exp %x32 : tensor<2x4xf32>
  %le = mixprec.reduce_sum %e {dims = array<i64: 0, 1>} : tensor<2x4xf32>
  %l = mixprec.add %la, %le : tensor<f32>, tensor<f32>
  %seed = mixprec.constant {mixprec.loss_seed} dense<1.0> : tensor<f32>
  %da = mixprec.broadcast %seed : tensor<f32> -> tensor<2x8xf32>
  %dy = mixprec.relu_grad %da, %y : tensor<2x8xf32>
  %de = mixprec.broadcast %seed : tensor<f32> -> tensor<2x4xf32>
  %dx = mixprec.mul %de, %e : tensor<2x4xf32>, tensor<2x4xf32>
  return %l, %dy, %dx : tensor<f32>, tensor<2x8xf32>, tensor<2x4xf32>
}

// -----

// A splat constant read by the forward and the backward (the zeros of a
// masked value and of its gradient; canonicalization hoisted it to the top)
// is a scalar spread by each reader right before it: the step does not hold
// the tensor in between. The loss seed, one element, stays.
mixprec.parameter @w : tensor<2x8xf32> = #mixprec.zeros
// CHECK-LABEL: func.func @splat(
// CHECK-SAME:    %[[MASK:[^:]+]]: tensor<2x8xi1>
// CHECK-NEXT:    %[[SEED:.+]] = mixprec.constant {mixprec.loss_seed} dense<1.000000e+00> : tensor<f32>
// CHECK-NOT:     mixprec.constant dense<0.000000e+00> : tensor<2x8xf32>
// CHECK:         %[[W:.+]] = mixprec.read @w
// CHECK-NEXT:    %[[Z1:.+]] = mixprec.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[B1:.+]] = mixprec.broadcast %[[Z1]] {mixprec.recomputed = {{[0-9]+}} : i64} : tensor<f32> -> tensor<2x8xf32>
// CHECK-NEXT:    mixprec.where %[[MASK]], %[[W]], %[[B1]]
// CHECK:         %[[DY:.+]] = mixprec.broadcast %{{.+}} : tensor<1x1xf32> -> tensor<2x8xf32>
// CHECK-NEXT:    %[[Z2:.+]] = mixprec.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[B2:.+]] = mixprec.broadcast %[[Z2]] {mixprec.recomputed = {{[0-9]+}} : i64} : tensor<f32> -> tensor<2x8xf32>
// CHECK-NEXT:    %[[DW:.+]] = mixprec.where %[[MASK]], %[[DY]], %[[B2]]
// CHECK-NOT:     mixprec.constant dense<0.000000e+00> : tensor<2x8xf32>
// CHECK:         mixprec.sgd_update %{{.+}}, %[[DW]],
func.func @splat(%mask: tensor<2x8xi1>, %lr: tensor<f32>) -> tensor<f32> attributes {mixprec.optimizer_step} {
  %seed = mixprec.constant {mixprec.loss_seed} dense<1.0> : tensor<f32>
  %zero = mixprec.constant dense<0.0> : tensor<2x8xf32>
  %w = mixprec.read @w : tensor<2x8xf32>
  %m = mixprec.where %mask, %w, %zero : tensor<2x8xi1>, tensor<2x8xf32>, tensor<2x8xf32>
  %l = mixprec.reduce_sum %m {dims = array<i64: 0, 1>} : tensor<2x8xf32>
  %s = mixprec.reshape %seed : tensor<f32> -> tensor<1x1xf32>
  %dy = mixprec.broadcast %s : tensor<1x1xf32> -> tensor<2x8xf32>
  %dw = mixprec.where %mask, %dy, %zero : tensor<2x8xi1>, tensor<2x8xf32>, tensor<2x8xf32>
  %old = mixprec.read @w : tensor<2x8xf32>
  %new = mixprec.sgd_update %old, %dw, %lr {optimizer = #mixprec.sgd<>} : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  mixprec.assign @w, %new : tensor<2x8xf32>
  return %l : tensor<f32>
}

// -----

// Values of one producer recomputed for the same backward reader share its
// recomputation. %a = tanh(%h) and %b = sigmoid(%h), %h = %e + %e with
// %e = exp(%x), are read by the forward and, after %big, together by one
// backward op. Under a budget both are recomputed right before that reader:
// their chains would each repeat exp and add, and the second one reads the
// first's add instead (as attention's q, k and v share their projection).
// The exp of an argument alone is a copy each reader (operand) gets.
mixprec.parameter @w : tensor<1024xf32> = #mixprec.zeros
// CHECK-LABEL: func.func @shared_producer(
// CHECK-NOT:     mixprec.add {{.*}}mixprec.recomputed
// CHECK:         return

// SHARED-LABEL: func.func @shared_producer(
// SHARED-SAME:    %[[X:[^:]+]]: tensor<1024xf32>
// SHARED:         mixprec.reduce_sum
// SHARED:         %[[E1:.+]] = mixprec.exp %[[X]] {mixprec.recomputed = {{[0-9]+}} : i64} : tensor<1024xf32>
// SHARED-NEXT:    %[[E2:.+]] = mixprec.exp %[[X]] {mixprec.recomputed = {{[0-9]+}} : i64} : tensor<1024xf32>
// SHARED-NEXT:    %[[H2:.+]] = mixprec.add %[[E2]], %[[E1]] {mixprec.recomputed = {{[0-9]+}} : i64} : tensor<1024xf32>
// SHARED-NOT:     mixprec.add
// SHARED-DAG:     %[[A2:.+]] = mixprec.tanh %[[H2]] {mixprec.recomputed = {{[0-9]+}} : i64} : tensor<1024xf32>
// SHARED-DAG:     %[[B2:.+]] = mixprec.sigmoid %[[H2]] {mixprec.recomputed = {{[0-9]+}} : i64} : tensor<1024xf32>
// SHARED-NOT:     mixprec.add
// SHARED:         mixprec.mul %[[A2]], %[[B2]] : tensor<1024xf32>
// SHARED:         return
func.func @shared_producer(%x: tensor<1024xf32>, %xb: tensor<4096xf32>, %lr: tensor<f32>) -> tensor<f32> attributes {mixprec.optimizer_step} {
  %w = mixprec.read @w : tensor<1024xf32>
  %e = mixprec.exp %x : tensor<1024xf32>
  %h = mixprec.add %e, %e : tensor<1024xf32>, tensor<1024xf32>
  %a = mixprec.tanh %h : tensor<1024xf32>
  %b = mixprec.sigmoid %h : tensor<1024xf32>
  %y = mixprec.mul %a, %w : tensor<1024xf32>, tensor<1024xf32>
  %z = mixprec.mul %b, %w : tensor<1024xf32>, tensor<1024xf32>
  %yz = mixprec.add %y, %z : tensor<1024xf32>, tensor<1024xf32>
  %s1 = mixprec.reduce_sum %yz {dims = array<i64: 0>} : tensor<1024xf32>
  %big = mixprec.exp %xb : tensor<4096xf32>
  %s2 = mixprec.reduce_sum %big {dims = array<i64: 0>} : tensor<4096xf32>
  %l = mixprec.add %s1, %s2 : tensor<f32>, tensor<f32>
  %seed = mixprec.constant {mixprec.loss_seed} dense<1.0> : tensor<f32>
  %dy = mixprec.broadcast %seed : tensor<f32> -> tensor<1024xf32>
  %ab = mixprec.mul %a, %b : tensor<1024xf32>, tensor<1024xf32>
  %dw = mixprec.mul %dy, %ab : tensor<1024xf32>, tensor<1024xf32>
  %oldw = mixprec.read @w : tensor<1024xf32>
  %neww = mixprec.sgd_update %oldw, %dw, %lr {optimizer = #mixprec.sgd<>} : (tensor<1024xf32>, tensor<1024xf32>, tensor<f32>) -> tensor<1024xf32>
  mixprec.assign @w, %neww : tensor<1024xf32>
  return %l : tensor<f32>
}

// -----

// Under a budget. %t = tanh(exp(%x)) (4096 bytes) and %m = %xa * %xc (4096
// bytes) are computed early in the forward, read there by the products with
// the weights, and read again by the backward, after %big (16384 bytes,
// which needs no gradient). The estimated peak, where %big and its sum are
// live, is 16384 + 4096 + 4096 + 3 scalars = 24588 bytes. Without a budget
// nothing is recomputed: %t comes from an FP32 argument, and %m is a
// contraction.
//
// ONE (budget 24587): recomputing one of the two suffices. %t is cheaper per
// byte (2 operations per element against 32 multiply-adds), so the chain
// exp, tanh is cloned right before %t's backward reader, which reads the
// clone; the forward keeps its exp and tanh, and %m is not recomputed.
// TWO (budget 20491, below the 20492 left after %t; and budget 1, which
// nothing meets): %m's matmul is recomputed too, right before its backward
// reader.
mixprec.parameter @w : tensor<1024xf32> = #mixprec.zeros
mixprec.parameter @v : tensor<32x32xf32> = #mixprec.zeros
// CHECK-LABEL: func.func @budget(
// CHECK-NOT:     mixprec.recomputed
// CHECK:         return

// ONE-LABEL: func.func @budget(
// ONE-SAME:    %[[X:[^:]+]]: tensor<1024xf32>, %[[XA:[^:]+]]: tensor<32x32xf32>, %[[XC:[^:]+]]: tensor<32x32xf32>
// ONE:         %[[E:.+]] = mixprec.exp %[[X]] : tensor<1024xf32>
// ONE-NEXT:    %[[T:.+]] = mixprec.tanh %[[E]] : tensor<1024xf32>
// ONE-NEXT:    %[[M:.+]] = mixprec.matmul %[[XA]], %[[XC]] :
// ONE-NEXT:    mixprec.mul %[[T]], %{{.+}} : tensor<1024xf32>
// ONE:         mixprec.mul %{{.+}}, %[[M]] : tensor<32x32xf32>
// ONE-NOT:     mixprec.matmul
// ONE:         %[[E2:.+]] = mixprec.exp %[[X]] {mixprec.recomputed = {{[0-9]+}} : i64} : tensor<1024xf32>
// ONE-NEXT:    %[[T2:.+]] = mixprec.tanh %[[E2]] {mixprec.recomputed = {{[0-9]+}} : i64} : tensor<1024xf32>
// ONE-NEXT:    mixprec.mul %{{.+}}, %[[T2]] : tensor<1024xf32>
// ONE-NOT:     mixprec.matmul
// ONE:         return

// TWO-LABEL: func.func @budget(
// TWO-SAME:    %[[X:[^:]+]]: tensor<1024xf32>, %[[XA:[^:]+]]: tensor<32x32xf32>, %[[XC:[^:]+]]: tensor<32x32xf32>
// TWO:         %[[M:.+]] = mixprec.matmul %[[XA]], %[[XC]] :
// TWO:         %[[M2:.+]] = mixprec.matmul %[[XA]], %[[XC]] {mixprec.recomputed = {{[0-9]+}} : i64}
// TWO-NEXT:    mixprec.mul %{{.+}}, %[[M2]] : tensor<32x32xf32>
// TWO:         %[[E2:.+]] = mixprec.exp %[[X]] {mixprec.recomputed = {{[0-9]+}} : i64} : tensor<1024xf32>
// TWO-NEXT:    %[[T2:.+]] = mixprec.tanh %[[E2]] {mixprec.recomputed = {{[0-9]+}} : i64} : tensor<1024xf32>
// TWO-NEXT:    mixprec.mul %{{.+}}, %[[T2]] : tensor<1024xf32>

// With report, each recomputation of the budget is printed with its op,
// location, bytes and number of ops.
// REPORT: mixprec-rematerialize: recomputed mixprec.tanh ({{.*}}rematerialize.mlir:[[@LINE+7]]:{{[0-9]+}}, 4096 bytes) with 2 ops
// REPORT: mixprec-rematerialize: recomputed mixprec.matmul ({{.*}}rematerialize.mlir:[[@LINE+7]]:{{[0-9]+}}, 4096 bytes) with 1 ops
// REPORT-NOT: recomputed
func.func @budget(%x: tensor<1024xf32>, %xa: tensor<32x32xf32>, %xc: tensor<32x32xf32>, %xb: tensor<4096xf32>, %lr: tensor<f32>) -> tensor<f32> attributes {mixprec.optimizer_step} {
  %w = mixprec.read @w : tensor<1024xf32>
  %v = mixprec.read @v : tensor<32x32xf32>
  %e = mixprec.exp %x : tensor<1024xf32>
  %t = mixprec.tanh %e : tensor<1024xf32>
  %m = mixprec.matmul %xa, %xc : tensor<32x32xf32>, tensor<32x32xf32> -> tensor<32x32xf32>
  %y = mixprec.mul %t, %w : tensor<1024xf32>, tensor<1024xf32>
  %s1 = mixprec.reduce_sum %y {dims = array<i64: 0>} : tensor<1024xf32>
  %z = mixprec.mul %m, %v : tensor<32x32xf32>, tensor<32x32xf32>
  %s3 = mixprec.reduce_sum %z {dims = array<i64: 0, 1>} : tensor<32x32xf32>
  %big = mixprec.exp %xb : tensor<4096xf32>
  %s2 = mixprec.reduce_sum %big {dims = array<i64: 0>} : tensor<4096xf32>
  %s13 = mixprec.add %s1, %s3 : tensor<f32>, tensor<f32>
  %l = mixprec.add %s13, %s2 : tensor<f32>, tensor<f32>
  %seed = mixprec.constant {mixprec.loss_seed} dense<1.0> : tensor<f32>
  %dz = mixprec.broadcast %seed : tensor<f32> -> tensor<32x32xf32>
  %dv = mixprec.mul %dz, %m : tensor<32x32xf32>, tensor<32x32xf32>
  %oldv = mixprec.read @v : tensor<32x32xf32>
  %newv = mixprec.sgd_update %oldv, %dv, %lr {optimizer = #mixprec.sgd<>} : (tensor<32x32xf32>, tensor<32x32xf32>, tensor<f32>) -> tensor<32x32xf32>
  mixprec.assign @v, %newv : tensor<32x32xf32>
  %dy = mixprec.broadcast %seed : tensor<f32> -> tensor<1024xf32>
  %dw = mixprec.mul %dy, %t : tensor<1024xf32>, tensor<1024xf32>
  %oldw = mixprec.read @w : tensor<1024xf32>
  %neww = mixprec.sgd_update %oldw, %dw, %lr {optimizer = #mixprec.sgd<>} : (tensor<1024xf32>, tensor<1024xf32>, tensor<f32>) -> tensor<1024xf32>
  mixprec.assign @w, %neww : tensor<1024xf32>
  return %l : tensor<f32>
}
