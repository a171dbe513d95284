// RUN: mixprec-opt %s -split-input-file --mixprec-guard-state-updates | FileCheck %s
// A second run changes nothing: a function with mixprec.indices_valid is
// left alone, so no state value is selected twice.
// RUN: mixprec-opt %s -split-input-file --mixprec-guard-state-updates --mixprec-guard-state-updates | FileCheck %s

// A functional SGD step: the index check moves from the end to the top (its
// labels are an argument), its verdict follows it, and each new state value
// (the weight, the step count) is selected against its argument right where
// it is computed. The loss, which is no state, and the report are returned
// as they were.
// CHECK-LABEL: func.func @plain(
// CHECK-SAME:    %[[W:[^:]+]]: tensor<4x3xf32> {mixprec.abi_name = "w"}, %[[COUNT:[^:]+]]: tensor<i64> {mixprec.abi_name = "train.step_count"}, %[[X:[^:]+]]: tensor<2x3xf32> {mixprec.abi_name = "x"}, %[[LABELS:[^:]+]]: tensor<2xi32> {mixprec.abi_name = "labels"}, %[[LR:[^:]+]]: tensor<f32> {mixprec.abi_name = "lr"})
// CHECK-NEXT:    %[[REPORT:.+]] = mixprec.index_check %[[LABELS]] {bound = 4 : i64, check = 0 : i64} : tensor<2xi32>
// CHECK-NEXT:    %[[VALID:.+]] = mixprec.indices_valid %[[REPORT]]
// CHECK-NEXT:    mixprec.linear %[[X]], %[[W]]
// CHECK:         %[[LOSS:.+]] = mixprec.softmax_cross_entropy
// CHECK:         %[[NEXT:.+]] = mixprec.increment %[[COUNT]] : tensor<i64>
// CHECK-NEXT:    %[[KEPTCOUNT:.+]] = mixprec.select %[[VALID]], %[[NEXT]], %[[COUNT]] : tensor<i64>
// CHECK-NEXT:    %[[NEWW:.+]] = mixprec.sgd_update %[[W]], %{{.+}}, %[[LR]]
// CHECK-NEXT:    %[[KEPTW:.+]] = mixprec.select %[[VALID]], %[[NEWW]], %[[W]] : tensor<4x3xf32>
// CHECK-NEXT:    return %[[LOSS]], %[[KEPTW]], %[[KEPTCOUNT]], %[[REPORT]] : tensor<f32>, tensor<4x3xf32>, tensor<i64>, tensor<3xi64>
func.func @plain(%w: tensor<4x3xf32> {mixprec.abi_name = "w"}, %count: tensor<i64> {mixprec.abi_name = "train.step_count"}, %x: tensor<2x3xf32> {mixprec.abi_name = "x"}, %labels: tensor<2xi32> {mixprec.abi_name = "labels"}, %lr: tensor<f32> {mixprec.abi_name = "lr"}) -> (tensor<f32>, tensor<4x3xf32> {mixprec.abi_name = "w"}, tensor<i64> {mixprec.abi_name = "train.step_count"}, tensor<3xi64> {mixprec.index_report}) {
  %y = mixprec.linear %x, %w : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<2x4xf32>
  %l = mixprec.softmax_cross_entropy %y, %labels : tensor<2x4xf32>, tensor<2xi32>
  %seed = mixprec.constant {mixprec.loss_seed} dense<1.0> : tensor<f32>
  %dy = mixprec.softmax_cross_entropy_grad %seed, %y, %labels : tensor<2x4xf32>, tensor<2xi32>
  %dw = mixprec.matmul %dy, %x {transpose_lhs} : tensor<2x4xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  %next = mixprec.increment %count : tensor<i64>
  %nw = mixprec.sgd_update %w, %dw, %lr {optimizer = #mixprec.sgd<>} : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32>
  %r = mixprec.index_check %labels {bound = 4 : i64, check = 0 : i64} : tensor<2xi32>
  return %l, %nw, %next, %r : tensor<f32>, tensor<4x3xf32>, tensor<i64>, tensor<3xi64>
}

// -----

// After loss scaling: the writes that select the update against the old
// value on %ok (the weight and its momentum) take the verdict in that one
// select, through one combined condition (select %valid, %ok, false) made
// right after %ok and shared by both. The skipped-steps counter selects
// between the old value and its increment, not against the old value, so it
// gets a select of its own; so do the loss scale's new values. A state
// result returned unchanged (@frozen) and a result with no state argument
// (the write-only skip flag) get none.
// CHECK-LABEL: func.func @loss_scaled(
// CHECK-SAME:    %[[W:[^:]+]]: tensor<4xf32> {mixprec.abi_name = "w"}, %[[M:[^:]+]]: tensor<4xf32> {mixprec.abi_name = "train.w.momentum_buffer"}, %[[FROZEN:[^:]+]]: tensor<4xf32> {mixprec.abi_name = "frozen"}, %[[S:[^:]+]]: tensor<f32> {mixprec.abi_name = "train.loss_scale"}, %[[T:[^:]+]]: tensor<i32> {mixprec.abi_name = "train.loss_scale_tracker"}, %[[H:[^:]+]]: tensor<i32> {mixprec.abi_name = "train.loss_scale_hysteresis"}, %[[SKIPS:[^:]+]]: tensor<i64> {mixprec.abi_name = "train.skipped_steps"}, %[[X:[^:]+]]: tensor<2x4xf32> {mixprec.abi_name = "x"}, %[[LABELS:[^:]+]]: tensor<2xi32> {mixprec.abi_name = "labels"}, %[[LR:[^:]+]]: tensor<f32> {mixprec.abi_name = "lr"})
// CHECK-NEXT:    %[[REPORT:.+]] = mixprec.index_check %[[LABELS]] {bound = 4 : i64, check = 0 : i64} : tensor<2xi32>
// CHECK-NEXT:    %[[VALID:.+]] = mixprec.indices_valid %[[REPORT]]
// CHECK:         %[[OK:[^,]+]], %[[EACH:[^ ]+]] = mixprec.all_finite
// CHECK-NEXT:    %[[FALSE:.+]] = mixprec.constant dense<false> : tensor<i1>
// CHECK-NEXT:    %[[BOTH:.+]] = mixprec.select %[[VALID]], %[[OK]], %[[FALSE]] : tensor<i1>
// CHECK-NEXT:    %[[NEWW:[^,]+]], %[[NEWM:[^ ]+]] = mixprec.sgd_update %[[W]],
// CHECK-NEXT:    %[[KEPTW:.+]] = mixprec.select %[[BOTH]], %[[NEWW]], %[[W]] : tensor<4xf32>
// CHECK-NEXT:    %[[KEPTM:.+]] = mixprec.select %[[BOTH]], %[[NEWM]], %[[M]] : tensor<4xf32>
// CHECK-NEXT:    %[[S2:[^,]+]], %[[T2:[^,]+]], %[[H2:[^ ]+]] = mixprec.loss_scale_update %[[S]], %[[T]], %[[H]], %[[OK]]
// CHECK-DAG:     %[[KEPTS:.+]] = mixprec.select %[[VALID]], %[[S2]], %[[S]] : tensor<f32>
// CHECK-DAG:     %[[KEPTT:.+]] = mixprec.select %[[VALID]], %[[T2]], %[[T]] : tensor<i32>
// CHECK-DAG:     %[[KEPTH:.+]] = mixprec.select %[[VALID]], %[[H2]], %[[H]] : tensor<i32>
// CHECK-NOT:     mixprec.select %[[VALID]]
// CHECK:         %[[SKIPPED:.+]] = mixprec.select %[[OK]], %{{.+}}, %{{.+}} : tensor<i1>
// CHECK-NEXT:    %[[ONEMORE:.+]] = mixprec.increment %[[SKIPS]] : tensor<i64>
// CHECK-NEXT:    %[[NEWSKIPS:.+]] = mixprec.select %[[OK]], %[[SKIPS]], %[[ONEMORE]] : tensor<i64>
// CHECK-NEXT:    %[[KEPTSKIPS:.+]] = mixprec.select %[[VALID]], %[[NEWSKIPS]], %[[SKIPS]] : tensor<i64>
// CHECK-NEXT:    return %{{.+}}, %[[KEPTW]], %[[KEPTM]], %[[FROZEN]], %[[KEPTS]], %[[KEPTT]], %[[KEPTH]], %[[SKIPPED]], %[[KEPTSKIPS]], %[[EACH]], %[[REPORT]] :
func.func @loss_scaled(%w: tensor<4xf32> {mixprec.abi_name = "w"}, %m: tensor<4xf32> {mixprec.abi_name = "train.w.momentum_buffer"}, %frozen: tensor<4xf32> {mixprec.abi_name = "frozen"}, %s: tensor<f32> {mixprec.abi_name = "train.loss_scale"}, %t: tensor<i32> {mixprec.abi_name = "train.loss_scale_tracker"}, %h: tensor<i32> {mixprec.abi_name = "train.loss_scale_hysteresis"}, %skips: tensor<i64> {mixprec.abi_name = "train.skipped_steps"}, %x: tensor<2x4xf32> {mixprec.abi_name = "x"}, %labels: tensor<2xi32> {mixprec.abi_name = "labels"}, %lr: tensor<f32> {mixprec.abi_name = "lr"}) -> (tensor<f32>, tensor<4xf32> {mixprec.abi_name = "w"}, tensor<4xf32> {mixprec.abi_name = "train.w.momentum_buffer"}, tensor<4xf32> {mixprec.abi_name = "frozen"}, tensor<f32> {mixprec.abi_name = "train.loss_scale"}, tensor<i32> {mixprec.abi_name = "train.loss_scale_tracker"}, tensor<i32> {mixprec.abi_name = "train.loss_scale_hysteresis"}, tensor<i1> {mixprec.abi_name = "train.skipped"}, tensor<i64> {mixprec.abi_name = "train.skipped_steps"}, tensor<1xi1> {mixprec.abi_name = "train.finite_gradients"}, tensor<3xi64> {mixprec.index_report}) {
  %wb = mixprec.broadcast %w : tensor<4xf32> -> tensor<2x4xf32>
  %y = mixprec.add %x, %wb : tensor<2x4xf32>, tensor<2x4xf32>
  %l = mixprec.softmax_cross_entropy %y, %labels : tensor<2x4xf32>, tensor<2xi32>
  %seed = mixprec.constant {mixprec.loss_seed} dense<1.0> : tensor<f32>
  %scaled = mixprec.mul %seed, %s : tensor<f32>, tensor<f32>
  %dy = mixprec.softmax_cross_entropy_grad %scaled, %y, %labels : tensor<2x4xf32>, tensor<2xi32>
  %dw = mixprec.reduce_sum %dy {dims = array<i64: 0>} : tensor<2x4xf32>
  %one = mixprec.constant dense<1.0> : tensor<f32>
  %inv = mixprec.div %one, %s : tensor<f32>, tensor<f32>
  %invw = mixprec.broadcast %inv : tensor<f32> -> tensor<4xf32>
  %g = mixprec.mul %dw, %invw : tensor<4xf32>, tensor<4xf32>
  %ok, %each = mixprec.all_finite %g : tensor<4xf32>
  %nw, %nm = mixprec.sgd_update %w, %g, %lr, %m {optimizer = #mixprec.sgd<momentum = 0.9>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  %kw = mixprec.select %ok, %nw, %w : tensor<4xf32>
  %km = mixprec.select %ok, %nm, %m : tensor<4xf32>
  %s2, %t2, %h2 = mixprec.loss_scale_update %s, %t, %h, %ok
  %true = mixprec.constant dense<true> : tensor<i1>
  %false = mixprec.constant dense<false> : tensor<i1>
  %skipped = mixprec.select %ok, %false, %true : tensor<i1>
  %onemore = mixprec.increment %skips : tensor<i64>
  %nskips = mixprec.select %ok, %skips, %onemore : tensor<i64>
  %r = mixprec.index_check %labels {bound = 4 : i64, check = 0 : i64} : tensor<2xi32>
  return %l, %kw, %km, %frozen, %s2, %t2, %h2, %skipped, %nskips, %each, %r : tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<i32>, tensor<i32>, tensor<i1>, tensor<i64>, tensor<1xi1>, tensor<3xi64>
}

// -----

// A chain of two checks: the first (on an argument) moves to the top, the
// second right after the reshape that computes its indices, and the verdict
// right after the second. The table's new value, computed before the
// reshape, is selected right after the verdict, the first place where both
// are known.
// CHECK-LABEL: func.func @chain(
// CHECK-SAME:    %[[TABLE:[^:]+]]: tensor<11x4xf32> {mixprec.abi_name = "table"}, %[[TOKENS:[^:]+]]: tensor<2x3xi64> {mixprec.abi_name = "tokens"}, %[[LABELS:[^:]+]]: tensor<2x3xi32> {mixprec.abi_name = "labels"})
// CHECK-NEXT:    %[[FIRST:.+]] = mixprec.index_check %[[TOKENS]] {bound = 11 : i64, check = 0 : i64} : tensor<2x3xi64>
// CHECK-NEXT:    %[[NEW:.+]] = mixprec.neg %[[TABLE]]
// CHECK-NEXT:    %[[FLAT:.+]] = mixprec.reshape %[[LABELS]] : tensor<2x3xi32> -> tensor<6xi32>
// CHECK-NEXT:    %[[SECOND:.+]] = mixprec.index_check %[[FLAT]], %[[FIRST]] {bound = 4 : i64, check = 1 : i64} : tensor<6xi32>
// CHECK-NEXT:    %[[VALID:.+]] = mixprec.indices_valid %[[SECOND]]
// CHECK-NEXT:    %[[KEPT:.+]] = mixprec.select %[[VALID]], %[[NEW]], %[[TABLE]] : tensor<11x4xf32>
// CHECK-NEXT:    mixprec.embedding %[[TABLE]], %[[TOKENS]]
// CHECK-NOT:     mixprec.index_check
// CHECK:         return %{{.+}}, %[[KEPT]], %[[SECOND]] :
func.func @chain(%table: tensor<11x4xf32> {mixprec.abi_name = "table"}, %tokens: tensor<2x3xi64> {mixprec.abi_name = "tokens"}, %labels: tensor<2x3xi32> {mixprec.abi_name = "labels"}) -> (tensor<f32>, tensor<11x4xf32> {mixprec.abi_name = "table"}, tensor<3xi64> {mixprec.index_report}) {
  %new = mixprec.neg %table : tensor<11x4xf32>
  %flat = mixprec.reshape %labels : tensor<2x3xi32> -> tensor<6xi32>
  %e = mixprec.embedding %table, %tokens : tensor<11x4xf32>, tensor<2x3xi64>
  %logits = mixprec.reshape %e : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %l = mixprec.softmax_cross_entropy %logits, %flat : tensor<6x4xf32>, tensor<6xi32>
  %r0 = mixprec.index_check %tokens {bound = 11 : i64, check = 0 : i64} : tensor<2x3xi64>
  %r1 = mixprec.index_check %flat, %r0 {bound = 4 : i64, check = 1 : i64} : tensor<6xi32>
  return %l, %new, %r1 : tensor<f32>, tensor<11x4xf32>, tensor<3xi64>
}

// -----

// Already guarded (mixprec.indices_valid is there): left alone, the check
// stays at the end and no select is added.
// CHECK-LABEL: func.func @guarded(
// CHECK-NEXT:    mixprec.increment
// CHECK-NEXT:    mixprec.index_check
// CHECK-NEXT:    mixprec.indices_valid
// CHECK-NEXT:    mixprec.select
// CHECK-NEXT:    return
func.func @guarded(%count: tensor<i64> {mixprec.abi_name = "train.step_count"}, %labels: tensor<2xi32> {mixprec.abi_name = "labels"}) -> (tensor<i64> {mixprec.abi_name = "train.step_count"}, tensor<3xi64> {mixprec.index_report}) {
  %next = mixprec.increment %count : tensor<i64>
  %r = mixprec.index_check %labels {bound = 4 : i64, check = 0 : i64} : tensor<2xi32>
  %valid = mixprec.indices_valid %r
  %kept = mixprec.select %valid, %next, %count : tensor<i64>
  return %kept, %r : tensor<i64>, tensor<3xi64>
}

// -----

// No index report (the last result is not marked): nothing to guard.
// CHECK-LABEL: func.func @unchecked(
// CHECK-NOT:     mixprec.indices_valid
// CHECK-NOT:     mixprec.select
// CHECK:         return
func.func @unchecked(%count: tensor<i64> {mixprec.abi_name = "train.step_count"}, %labels: tensor<2xi32> {mixprec.abi_name = "labels"}) -> (tensor<i64> {mixprec.abi_name = "train.step_count"}, tensor<3xi64>) {
  %next = mixprec.increment %count : tensor<i64>
  %r = mixprec.index_check %labels {bound = 4 : i64, check = 0 : i64} : tensor<2xi32>
  return %next, %r : tensor<i64>, tensor<3xi64>
}
