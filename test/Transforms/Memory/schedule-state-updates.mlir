// RUN: mixprec-opt %s -split-input-file --mixprec-schedule-state-updates | FileCheck %s

// Two linear layers with SGD, as --mixprec-autodiff emits them: every update
// at the end. The last layer's gradient (%dw1) comes first in the backward;
// its update (read, sgd_update, assign) moves up to right after it, before
// the rest of the backward (relu_grad and the first layer's gradient), and
// the first layer's update to right after %dw0. The step count, which needs
// no gradient, is not moved up.
mixprec.parameter @w0 : tensor<8x4xf32> = #mixprec.zeros
mixprec.parameter @w1 : tensor<2x8xf32> = #mixprec.zeros
mixprec.buffer @train.step_count : tensor<i64> = #mixprec.zeros role step_count
// CHECK-LABEL: func.func @train(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<16x4xf32>, %[[LR:[^:]+]]: tensor<f32>)
// CHECK:         %[[W1:.+]] = mixprec.read @w1 : tensor<2x8xf32>
// CHECK:         %[[DY:.+]] = mixprec.broadcast
// CHECK-NEXT:    %[[DA:.+]] = mixprec.matmul %[[DY]], %[[W1]] :
// CHECK-NEXT:    %[[DW1:.+]] = mixprec.matmul %[[DY]], %{{.+}} {transpose_lhs}
// CHECK-NEXT:    %[[OLD1:.+]] = mixprec.read @w1 : tensor<2x8xf32>
// CHECK-NEXT:    %[[NEW1:.+]] = mixprec.sgd_update %[[OLD1]], %[[DW1]], %[[LR]]
// CHECK-NEXT:    mixprec.assign @w1, %[[NEW1]] : tensor<2x8xf32>
// CHECK-NEXT:    %[[DH:.+]] = mixprec.relu_grad %[[DA]],
// CHECK-NEXT:    %[[DW0:.+]] = mixprec.matmul %[[DH]], %[[X]] {transpose_lhs}
// CHECK-NEXT:    %[[OLD0:.+]] = mixprec.read @w0 : tensor<8x4xf32>
// CHECK-NEXT:    %[[NEW0:.+]] = mixprec.sgd_update %[[OLD0]], %[[DW0]], %[[LR]]
// CHECK-NEXT:    mixprec.assign @w0, %[[NEW0]] : tensor<8x4xf32>
// CHECK-NEXT:    %[[COUNT:.+]] = mixprec.read @train.step_count : tensor<i64>
// CHECK-NEXT:    %[[NEXT:.+]] = mixprec.increment %[[COUNT]] : tensor<i64>
// CHECK-NEXT:    mixprec.assign @train.step_count, %[[NEXT]] : tensor<i64>
// CHECK-NEXT:    return
func.func @train(%x: tensor<16x4xf32>, %lr: tensor<f32>) -> tensor<f32> attributes {mixprec.optimizer_step} {
  %w0 = mixprec.read @w0 : tensor<8x4xf32>
  %w1 = mixprec.read @w1 : tensor<2x8xf32>
  %h = mixprec.linear %x, %w0 : tensor<16x4xf32>, tensor<8x4xf32> -> tensor<16x8xf32>
  %a = mixprec.relu %h : tensor<16x8xf32>
  %y = mixprec.linear %a, %w1 : tensor<16x8xf32>, tensor<2x8xf32> -> tensor<16x2xf32>
  %l = mixprec.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<16x2xf32>
  %seed = mixprec.constant {mixprec.loss_seed} dense<1.0> : tensor<f32>
  %s = mixprec.reshape %seed : tensor<f32> -> tensor<1x1xf32>
  %dy = mixprec.broadcast %s : tensor<1x1xf32> -> tensor<16x2xf32>
  %da = mixprec.matmul %dy, %w1 : tensor<16x2xf32>, tensor<2x8xf32> -> tensor<16x8xf32>
  %dw1 = mixprec.matmul %dy, %a {transpose_lhs} : tensor<16x2xf32>, tensor<16x8xf32> -> tensor<2x8xf32>
  %dh = mixprec.relu_grad %da, %h : tensor<16x8xf32>
  %dw0 = mixprec.matmul %dh, %x {transpose_lhs} : tensor<16x8xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %count = mixprec.read @train.step_count : tensor<i64>
  %next = mixprec.increment %count : tensor<i64>
  mixprec.assign @train.step_count, %next : tensor<i64>
  %old0 = mixprec.read @w0 : tensor<8x4xf32>
  %new0 = mixprec.sgd_update %old0, %dw0, %lr {optimizer = #mixprec.sgd<>} : (tensor<8x4xf32>, tensor<8x4xf32>, tensor<f32>) -> tensor<8x4xf32>
  mixprec.assign @w0, %new0 : tensor<8x4xf32>
  %old1 = mixprec.read @w1 : tensor<2x8xf32>
  %new1 = mixprec.sgd_update %old1, %dw1, %lr {optimizer = #mixprec.sgd<>} : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  mixprec.assign @w1, %new1 : tensor<2x8xf32>
  return %l : tensor<f32>
}

// -----

// The old value is read after the gradient is known: the backward reads the
// weight (through a reshape, a view of the same buffer) for %dh after it
// computes %dw. The update of @w moves up to right after %dw, but its assign
// only to right after %dh, the last read of the old value, since the new
// value is written over it.
mixprec.parameter @v : tensor<4x4xf32> = #mixprec.zeros
mixprec.parameter @w : tensor<16xf32> = #mixprec.zeros
// CHECK-LABEL: func.func @old_value_read_late(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x4xf32>, %[[LR:[^:]+]]: tensor<f32>)
// CHECK:         %[[W:.+]] = mixprec.read @w : tensor<16xf32>
// CHECK-NEXT:    %[[WM:.+]] = mixprec.reshape %[[W]] : tensor<16xf32> -> tensor<4x4xf32>
// CHECK:         %[[DWM:.+]] = mixprec.matmul %[[H:.+]], %[[DY:.+]] {transpose_lhs}
// CHECK-NEXT:    %[[DW:.+]] = mixprec.reshape %[[DWM]] : tensor<4x4xf32> -> tensor<16xf32>
// CHECK-NEXT:    %[[OLDW:.+]] = mixprec.read @w : tensor<16xf32>
// CHECK-NEXT:    %[[NEWW:.+]] = mixprec.sgd_update %[[OLDW]], %[[DW]], %[[LR]]
// CHECK-NEXT:    %[[DH:.+]] = mixprec.matmul %[[DY]], %[[WM]] {transpose_rhs}
// CHECK-NEXT:    mixprec.assign @w, %[[NEWW]] : tensor<16xf32>
// CHECK-NEXT:    %[[DV:.+]] = mixprec.matmul %[[X]], %[[DH]] {transpose_lhs}
// CHECK-NEXT:    %[[OLDV:.+]] = mixprec.read @v : tensor<4x4xf32>
// CHECK-NEXT:    %[[NEWV:.+]] = mixprec.sgd_update %[[OLDV]], %[[DV]], %[[LR]]
// CHECK-NEXT:    mixprec.assign @v, %[[NEWV]] : tensor<4x4xf32>
// CHECK-NEXT:    return
func.func @old_value_read_late(%x: tensor<2x4xf32>, %lr: tensor<f32>) -> tensor<f32> attributes {mixprec.optimizer_step} {
  %v = mixprec.read @v : tensor<4x4xf32>
  %w = mixprec.read @w : tensor<16xf32>
  %wm = mixprec.reshape %w : tensor<16xf32> -> tensor<4x4xf32>
  %h = mixprec.matmul %x, %v : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %y = mixprec.matmul %h, %wm : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %l = mixprec.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<2x4xf32>
  %seed = mixprec.constant {mixprec.loss_seed} dense<1.0> : tensor<f32>
  %dy = mixprec.broadcast %seed : tensor<f32> -> tensor<2x4xf32>
  %dwm = mixprec.matmul %h, %dy {transpose_lhs} : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<4x4xf32>
  %dw = mixprec.reshape %dwm : tensor<4x4xf32> -> tensor<16xf32>
  %dh = mixprec.matmul %dy, %wm {transpose_rhs} : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %dv = mixprec.matmul %x, %dh {transpose_lhs} : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<4x4xf32>
  %oldv = mixprec.read @v : tensor<4x4xf32>
  %newv = mixprec.sgd_update %oldv, %dv, %lr {optimizer = #mixprec.sgd<>} : (tensor<4x4xf32>, tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  mixprec.assign @v, %newv : tensor<4x4xf32>
  %oldw = mixprec.read @w : tensor<16xf32>
  %neww = mixprec.sgd_update %oldw, %dw, %lr {optimizer = #mixprec.sgd<>} : (tensor<16xf32>, tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  mixprec.assign @w, %neww : tensor<16xf32>
  return %l : tensor<f32>
}

// -----

// An op of unknown effects (the call) between a gradient and its update:
// nothing moves above it. The update of @w1 goes to right after the call,
// not after %dw1, and still before the rest of the backward.
mixprec.parameter @w0 : tensor<4xf32> = #mixprec.zeros
mixprec.parameter @w1 : tensor<4xf32> = #mixprec.zeros
func.func private @observe(tensor<f32>)
// CHECK-LABEL: func.func @barrier(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xf32>, %[[LR:[^:]+]]: tensor<f32>)
// CHECK:         %[[H:.+]] = mixprec.mul %[[X]], %{{.+}} :
// CHECK:         %[[DW1:.+]] = mixprec.mul %{{.+}}, %[[H]] :
// CHECK-NEXT:    call @observe(
// CHECK-NEXT:    %[[OLD1:.+]] = mixprec.read @w1 : tensor<4xf32>
// CHECK-NEXT:    %[[NEW1:.+]] = mixprec.sgd_update %[[OLD1]], %[[DW1]],
// CHECK-NEXT:    mixprec.assign @w1, %[[NEW1]] : tensor<4xf32>
// CHECK-NEXT:    %[[DW0:.+]] = mixprec.mul %{{.+}}, %[[X]] :
// CHECK-NEXT:    %[[OLD0:.+]] = mixprec.read @w0 : tensor<4xf32>
// CHECK-NEXT:    %[[NEW0:.+]] = mixprec.sgd_update %[[OLD0]], %[[DW0]],
// CHECK-NEXT:    mixprec.assign @w0, %[[NEW0]] : tensor<4xf32>
// CHECK-NEXT:    return
func.func @barrier(%x: tensor<4xf32>, %lr: tensor<f32>) -> tensor<f32> attributes {mixprec.optimizer_step} {
  %w0 = mixprec.read @w0 : tensor<4xf32>
  %w1 = mixprec.read @w1 : tensor<4xf32>
  %h = mixprec.mul %x, %w0 : tensor<4xf32>, tensor<4xf32>
  %y = mixprec.mul %h, %w1 : tensor<4xf32>, tensor<4xf32>
  %l = mixprec.reduce_sum %y {dims = array<i64: 0>} : tensor<4xf32>
  %seed = mixprec.constant {mixprec.loss_seed} dense<1.0> : tensor<f32>
  %dy = mixprec.broadcast %seed : tensor<f32> -> tensor<4xf32>
  %dh = mixprec.mul %dy, %w1 : tensor<4xf32>, tensor<4xf32>
  %dw1 = mixprec.mul %dy, %h : tensor<4xf32>, tensor<4xf32>
  func.call @observe(%l) : (tensor<f32>) -> ()
  %dw0 = mixprec.mul %dh, %x : tensor<4xf32>, tensor<4xf32>
  %old0 = mixprec.read @w0 : tensor<4xf32>
  %new0 = mixprec.sgd_update %old0, %dw0, %lr {optimizer = #mixprec.sgd<>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  mixprec.assign @w0, %new0 : tensor<4xf32>
  %old1 = mixprec.read @w1 : tensor<4xf32>
  %new1 = mixprec.sgd_update %old1, %dw1, %lr {optimizer = #mixprec.sgd<>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  mixprec.assign @w1, %new1 : tensor<4xf32>
  return %l : tensor<f32>
}

// -----

// After static loss scaling: each update reads its unscaled gradient and
// moves up to right after it (@w0's above the unscaling of @w1's gradient),
// but the selects that keep the old value on overflow need the verdict of
// all_finite over both gradients, so they and the assigns stay after it.
mixprec.parameter @w0 : tensor<8x4xf32> = #mixprec.zeros
mixprec.parameter @w1 : tensor<2x8xf32> = #mixprec.zeros
// CHECK-LABEL: func.func @loss_scaled(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<16x4xf32>, %[[LR:[^:]+]]: tensor<f32>)
// CHECK:         %[[G0:.+]] = mixprec.mul %[[DW0:.+]], %{{.+}} : tensor<8x4xf32>, tensor<8x4xf32>
// CHECK-NEXT:    %[[OLD0:.+]] = mixprec.read @w0 : tensor<8x4xf32>
// CHECK-NEXT:    %[[NEW0:.+]] = mixprec.sgd_update %[[OLD0]], %[[G0]], %[[LR]]
// CHECK-NEXT:    mixprec.broadcast %{{.+}} : tensor<f32> -> tensor<2x8xf32>
// CHECK-NEXT:    %[[G1:.+]] = mixprec.mul %{{.+}}, %{{.+}} : tensor<2x8xf32>, tensor<2x8xf32>
// CHECK-NEXT:    %[[OLD1:.+]] = mixprec.read @w1 : tensor<2x8xf32>
// CHECK-NEXT:    %[[NEW1:.+]] = mixprec.sgd_update %[[OLD1]], %[[G1]], %[[LR]]
// CHECK-NEXT:    %[[OK:[^,]+]], %{{.+}} = mixprec.all_finite %[[G0]], %[[G1]]
// CHECK-NOT:     mixprec.assign
// CHECK-DAG:     %[[KEEP0:.+]] = mixprec.read @w0 : tensor<8x4xf32>
// CHECK-DAG:     %[[SEL0:.+]] = mixprec.select %[[OK]], %[[NEW0]], %[[KEEP0]]
// CHECK-DAG:     mixprec.assign @w0, %[[SEL0]]
// CHECK-DAG:     %[[KEEP1:.+]] = mixprec.read @w1 : tensor<2x8xf32>
// CHECK-DAG:     %[[SEL1:.+]] = mixprec.select %[[OK]], %[[NEW1]], %[[KEEP1]]
// CHECK-DAG:     mixprec.assign @w1, %[[SEL1]]
// CHECK:         return
func.func @loss_scaled(%x: tensor<16x4xf32>, %lr: tensor<f32>) -> tensor<f32> attributes {mixprec.optimizer_step} {
  %scale = mixprec.constant dense<6.553600e+04> : tensor<f32>
  %w0 = mixprec.read @w0 : tensor<8x4xf32>
  %w1 = mixprec.read @w1 : tensor<2x8xf32>
  %h = mixprec.linear %x, %w0 : tensor<16x4xf32>, tensor<8x4xf32> -> tensor<16x8xf32>
  %a = mixprec.relu %h : tensor<16x8xf32>
  %y = mixprec.linear %a, %w1 : tensor<16x8xf32>, tensor<2x8xf32> -> tensor<16x2xf32>
  %l = mixprec.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<16x2xf32>
  %seed = mixprec.constant {mixprec.loss_seed} dense<1.0> : tensor<f32>
  %scaled = mixprec.mul %seed, %scale : tensor<f32>, tensor<f32>
  %s = mixprec.reshape %scaled : tensor<f32> -> tensor<1x1xf32>
  %dy = mixprec.broadcast %s : tensor<1x1xf32> -> tensor<16x2xf32>
  %da = mixprec.matmul %dy, %w1 : tensor<16x2xf32>, tensor<2x8xf32> -> tensor<16x8xf32>
  %dw1 = mixprec.matmul %dy, %a {transpose_lhs} : tensor<16x2xf32>, tensor<16x8xf32> -> tensor<2x8xf32>
  %dh = mixprec.relu_grad %da, %h : tensor<16x8xf32>
  %dw0 = mixprec.matmul %dh, %x {transpose_lhs} : tensor<16x8xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %one = mixprec.constant dense<1.0> : tensor<f32>
  %inv = mixprec.div %one, %scale : tensor<f32>, tensor<f32>
  %inv0 = mixprec.broadcast %inv : tensor<f32> -> tensor<8x4xf32>
  %g0 = mixprec.mul %dw0, %inv0 : tensor<8x4xf32>, tensor<8x4xf32>
  %inv1 = mixprec.broadcast %inv : tensor<f32> -> tensor<2x8xf32>
  %g1 = mixprec.mul %dw1, %inv1 : tensor<2x8xf32>, tensor<2x8xf32>
  %ok, %each = mixprec.all_finite %g0, %g1 : tensor<8x4xf32>, tensor<2x8xf32>
  %old0 = mixprec.read @w0 : tensor<8x4xf32>
  %new0 = mixprec.sgd_update %old0, %g0, %lr {optimizer = #mixprec.sgd<>} : (tensor<8x4xf32>, tensor<8x4xf32>, tensor<f32>) -> tensor<8x4xf32>
  %keep0 = mixprec.read @w0 : tensor<8x4xf32>
  %sel0 = mixprec.select %ok, %new0, %keep0 : tensor<8x4xf32>
  mixprec.assign @w0, %sel0 : tensor<8x4xf32>
  %old1 = mixprec.read @w1 : tensor<2x8xf32>
  %new1 = mixprec.sgd_update %old1, %g1, %lr {optimizer = #mixprec.sgd<>} : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %keep1 = mixprec.read @w1 : tensor<2x8xf32>
  %sel1 = mixprec.select %ok, %new1, %keep1 : tensor<2x8xf32>
  mixprec.assign @w1, %sel1 : tensor<2x8xf32>
  return %l : tensor<f32>
}

// -----

// A buffer's update (a running statistic of %g) in an optimizer step moves
// up to right after %g, above the rest (%n); the same function without
// mixprec.optimizer_step is left as it is.
mixprec.buffer @stat : tensor<4xf32> = #mixprec.zeros
// CHECK-LABEL: func.func @step(
// CHECK:         %[[G:.+]] = mixprec.mul
// CHECK-NEXT:    %[[OLD:.+]] = mixprec.read @stat : tensor<4xf32>
// CHECK-NEXT:    %[[NEW:.+]] = mixprec.add %[[OLD]], %[[G]]
// CHECK-NEXT:    mixprec.assign @stat, %[[NEW]] : tensor<4xf32>
// CHECK-NEXT:    mixprec.neg %[[G]]
// CHECK-LABEL: func.func @not_a_step(
// CHECK:         %[[G:.+]] = mixprec.mul
// CHECK-NEXT:    mixprec.neg %[[G]]
// CHECK-NEXT:    %[[OLD:.+]] = mixprec.read @stat : tensor<4xf32>
// CHECK-NEXT:    %[[NEW:.+]] = mixprec.add %[[OLD]], %[[G]]
// CHECK-NEXT:    mixprec.assign @stat, %[[NEW]] : tensor<4xf32>
func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> attributes {mixprec.optimizer_step} {
  %g = mixprec.mul %x, %x : tensor<4xf32>, tensor<4xf32>
  %n = mixprec.neg %g : tensor<4xf32>
  %old = mixprec.read @stat : tensor<4xf32>
  %new = mixprec.add %old, %g : tensor<4xf32>, tensor<4xf32>
  mixprec.assign @stat, %new : tensor<4xf32>
  return %n : tensor<4xf32>
}
func.func @not_a_step(%x: tensor<4xf32>) -> tensor<4xf32> {
  %g = mixprec.mul %x, %x : tensor<4xf32>, tensor<4xf32>
  %n = mixprec.neg %g : tensor<4xf32>
  %old = mixprec.read @stat : tensor<4xf32>
  %new = mixprec.add %old, %g : tensor<4xf32>, tensor<4xf32>
  mixprec.assign @stat, %new : tensor<4xf32>
  return %n : tensor<4xf32>
}
