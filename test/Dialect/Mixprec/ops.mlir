// RUN: mixprec-opt %s -split-input-file | mixprec-opt -split-input-file | FileCheck %s
// RUN: mixprec-opt %s -split-input-file --mlir-print-op-generic | mixprec-opt -split-input-file | FileCheck %s
// RUN: mixprec-opt %s -split-input-file --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Round trip of every op and attribute of the mixprec dialect: the custom
// form, and the generic form parsed back into the custom form. Where an op
// infers its result type, the function returns the result so that the
// inferred type shows in the printed `return`.
//
// SSA captures: results `[[X:%.+]] = ...`; function arguments and names in
// lists `[[A:%[^:]+]]:` / `[[R:%[^,]+]],`, which cannot run into the next one.

//===----------------------------------------------------------------------===//
// Model state: initializers of parameters and buffers
//===----------------------------------------------------------------------===//

// CHECK-LABEL: module
// CHECK-NEXT: mixprec.parameter @zeros : tensor<4x8xf32> = #mixprec.zeros{{$}}
// CHECK-NEXT: mixprec.parameter @ones : tensor<8xf16> = #mixprec.ones{{$}}
// CHECK-NEXT: mixprec.parameter @quarter : tensor<8xbf16> = #mixprec.constant<2.500000e-01>{{$}}
// CHECK-NEXT: mixprec.parameter @neg : tensor<8xf32> = #mixprec.constant<-1.500000e+00>{{$}}
// CHECK-NEXT: mixprec.parameter @normal : tensor<4x8xf32> = #mixprec.normal<>{{$}}
// CHECK-NEXT: mixprec.parameter @normal_args : tensor<4x8xf32> = #mixprec.normal<mean = 5.000000e-01, std = 2.000000e-02, seed = 7>{{$}}
// CHECK-NEXT: mixprec.parameter @uniform : tensor<4x8xf32> = #mixprec.uniform<>{{$}}
// CHECK-NEXT: mixprec.parameter @uniform_args : tensor<4x8xf32> = #mixprec.uniform<low = -1.000000e-01, high = 1.000000e-01, seed = 18446744073709551615>{{$}}
// CHECK-NEXT: mixprec.parameter @uniform_low : tensor<4x8xf32> = #mixprec.uniform<low = -1.000000e+00>{{$}}
// CHECK-NEXT: mixprec.parameter @xu : tensor<16x8xf32> = #mixprec.xavier_uniform<>{{$}}
// CHECK-NEXT: mixprec.parameter @xu_args : tensor<16x8xf16> = #mixprec.xavier_uniform<gain = 2.000000e+00, seed = 3>{{$}}
// CHECK-NEXT: mixprec.parameter @xn : tensor<16x8x3x3xf32> = #mixprec.xavier_normal<>{{$}}
// CHECK-NEXT: mixprec.parameter @xn_args : tensor<16x8xbf16> = #mixprec.xavier_normal<gain = 5.000000e-01, seed = 4>{{$}}
// CHECK-NEXT: mixprec.parameter @ku : tensor<16x8xf32> = #mixprec.kaiming_uniform<>{{$}}
// CHECK-NEXT: mixprec.parameter @ku_args : tensor<128x64xf32> = #mixprec.kaiming_uniform<a = 2.2360679774997898, seed = 1>{{$}}
// CHECK-NEXT: mixprec.parameter @kn : tensor<8x4x3x3xf32> = #mixprec.kaiming_normal<>{{$}}
// CHECK-NEXT: mixprec.parameter @kn_args : tensor<8x4x3x3xf32> = #mixprec.kaiming_normal<a = 1.000000e-02, seed = 9>{{$}}
// CHECK-NEXT: mixprec.parameter @decayed_bias : tensor<8xf32> = #mixprec.zeros {weight_decay = true}{{$}}
// CHECK-NEXT: mixprec.parameter @undecayed_w : tensor<4x8xf32> = #mixprec.ones {weight_decay = false}{{$}}
// CHECK-NEXT: mixprec.buffer @mean : tensor<8xf32> = #mixprec.zeros{{$}}
// CHECK-NEXT: mixprec.buffer @var : tensor<8xf32> = #mixprec.ones{{$}}
// CHECK-NEXT: mixprec.buffer @half_state : tensor<2x8xf16> = #mixprec.constant<3.000000e+00>{{$}}
// CHECK-NEXT: mixprec.buffer @noise : tensor<8xbf16> = #mixprec.normal<std = 5.000000e-01>{{$}}
// CHECK-NEXT: mixprec.buffer @train.step_count : tensor<i64> = #mixprec.zeros role step_count{{$}}
// CHECK-NEXT: mixprec.buffer @train.w.exp_avg : tensor<4x8xf32> = #mixprec.zeros role moment{{$}}
// CHECK-NEXT: mixprec.buffer @train.loss_scale : tensor<f32> = #mixprec.constant<6.553600e+04> role loss_scale{{$}}
// CHECK-NEXT: mixprec.buffer @train.loss_scale_tracker : tensor<i32> = #mixprec.zeros role loss_scale_tracker{{$}}
// CHECK-NEXT: mixprec.buffer @train.loss_scale_hysteresis : tensor<i32> = #mixprec.constant<2.000000e+00> role loss_scale_hysteresis{{$}}
// CHECK-NEXT: mixprec.buffer @train.skipped : tensor<i1> = #mixprec.zeros role skipped{{$}}
// CHECK-NEXT: mixprec.buffer @train.skipped_steps : tensor<i64> = #mixprec.zeros role skipped_steps{{$}}
// CHECK-NEXT: mixprec.buffer @train.finite_gradients : tensor<3xi1> = #mixprec.ones role finite_gradients{{$}}
// CHECK-NEXT: }

// GENERIC-LABEL: "builtin.module"
// GENERIC: "mixprec.parameter"() <{initializer = #mixprec.kaiming_uniform<a = 2.2360679774997898, seed = 1>, sym_name = "ku_args", type = tensor<128x64xf32>}> : () -> ()
// GENERIC: "mixprec.parameter"() <{initializer = #mixprec.zeros, sym_name = "decayed_bias", type = tensor<8xf32>, weight_decay = true}> : () -> ()
// GENERIC: "mixprec.buffer"() <{initializer = #mixprec.zeros, sym_name = "mean", type = tensor<8xf32>}> : () -> ()
// GENERIC: "mixprec.buffer"() <{initializer = #mixprec.zeros, role = #mixprec<state_role step_count>, sym_name = "train.step_count", type = tensor<i64>}> : () -> ()
module {
  mixprec.parameter @zeros : tensor<4x8xf32> = #mixprec.zeros
  mixprec.parameter @ones : tensor<8xf16> = #mixprec.ones
  mixprec.parameter @quarter : tensor<8xbf16> = #mixprec.constant<0.25>
  mixprec.parameter @neg : tensor<8xf32> = #mixprec.constant<-1.5>
  mixprec.parameter @normal : tensor<4x8xf32> = #mixprec.normal<>
  mixprec.parameter @normal_args : tensor<4x8xf32> = #mixprec.normal<mean = 0.5, std = 0.02, seed = 7>
  // The explicit defaults are elided when printed.
  mixprec.parameter @uniform : tensor<4x8xf32> = #mixprec.uniform<low = 0.0, high = 1.0, seed = 0>
  // Struct parameters may come in any order; they print in declaration order.
  mixprec.parameter @uniform_args : tensor<4x8xf32> = #mixprec.uniform<seed = 18446744073709551615, high = 0.1, low = -0.1>
  mixprec.parameter @uniform_low : tensor<4x8xf32> = #mixprec.uniform<low = -1.0>
  mixprec.parameter @xu : tensor<16x8xf32> = #mixprec.xavier_uniform<>
  mixprec.parameter @xu_args : tensor<16x8xf16> = #mixprec.xavier_uniform<gain = 2.0, seed = 3>
  mixprec.parameter @xn : tensor<16x8x3x3xf32> = #mixprec.xavier_normal<gain = 1.0>
  mixprec.parameter @xn_args : tensor<16x8xbf16> = #mixprec.xavier_normal<gain = 0.5, seed = 4>
  mixprec.parameter @ku : tensor<16x8xf32> = #mixprec.kaiming_uniform<>
  mixprec.parameter @ku_args : tensor<128x64xf32> = #mixprec.kaiming_uniform<a = 2.23606797749979, seed = 1>
  mixprec.parameter @kn : tensor<8x4x3x3xf32> = #mixprec.kaiming_normal<>
  mixprec.parameter @kn_args : tensor<8x4x3x3xf32> = #mixprec.kaiming_normal<a = 0.01, seed = 9>
  mixprec.parameter @decayed_bias : tensor<8xf32> = #mixprec.zeros {weight_decay = true}
  mixprec.parameter @undecayed_w : tensor<4x8xf32> = #mixprec.ones {weight_decay = false}
  mixprec.buffer @mean : tensor<8xf32> = #mixprec.zeros
  mixprec.buffer @var : tensor<8xf32> = #mixprec.ones
  mixprec.buffer @half_state : tensor<2x8xf16> = #mixprec.constant<3.0>
  mixprec.buffer @noise : tensor<8xbf16> = #mixprec.normal<std = 0.5>
  // The state a train step owns, marked with its role.
  mixprec.buffer @train.step_count : tensor<i64> = #mixprec.zeros role step_count
  mixprec.buffer @train.w.exp_avg : tensor<4x8xf32> = #mixprec.zeros role moment
  mixprec.buffer @train.loss_scale : tensor<f32> = #mixprec.constant<65536.0> role loss_scale
  mixprec.buffer @train.loss_scale_tracker : tensor<i32> = #mixprec.zeros role loss_scale_tracker
  mixprec.buffer @train.loss_scale_hysteresis : tensor<i32> = #mixprec.constant<2.0> role loss_scale_hysteresis
  mixprec.buffer @train.skipped : tensor<i1> = #mixprec.zeros role skipped
  mixprec.buffer @train.skipped_steps : tensor<i64> = #mixprec.zeros role skipped_steps
  mixprec.buffer @train.finite_gradients : tensor<3xi1> = #mixprec.ones role finite_gradients
}

// -----

//===----------------------------------------------------------------------===//
// Model state: read, assign, rng_state
//===----------------------------------------------------------------------===//

// A discardable attribute is named with its dialect's prefix, as `test.tag` is
// here (an unprefixed one is an error: invalid.mlir).
// CHECK-LABEL: module
// CHECK: mixprec.parameter @w : tensor<16x8xf16> = #mixprec.xavier_uniform<>
// CHECK: mixprec.buffer @running : tensor<8xf32> = #mixprec.zeros
// CHECK-LABEL: func.func @state(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<8xf32>)
// CHECK-NEXT:    [[W:%.+]] = mixprec.read @w : tensor<16x8xf16>
// CHECK-NEXT:    [[R:%.+]] = mixprec.read @running : tensor<8xf32>
// CHECK-NEXT:    mixprec.assign @running, [[X]] : tensor<8xf32>
// CHECK-NEXT:    [[RNG:%.+]] = mixprec.rng_state{{$}}
// CHECK-NEXT:    [[RNG2:%.+]] = mixprec.rng_state {test.tag = "second"}{{$}}
// CHECK-NEXT:    return [[W]], [[R]], [[RNG]], [[RNG2]] : tensor<16x8xf16>, tensor<8xf32>, tensor<2xi64>, tensor<2xi64>

// GENERIC-LABEL: "builtin.module"
// GENERIC: "mixprec.read"() <{state = @w}> : () -> tensor<16x8xf16>
// GENERIC: "mixprec.assign"(%arg{{[0-9]+}}) <{buffer = @running}> : (tensor<8xf32>) -> ()
// GENERIC: "mixprec.rng_state"() : () -> tensor<2xi64>
module {
  mixprec.parameter @w : tensor<16x8xf16> = #mixprec.xavier_uniform<>
  mixprec.buffer @running : tensor<8xf32> = #mixprec.zeros
  func.func @state(%x: tensor<8xf32>) -> (tensor<16x8xf16>, tensor<8xf32>, tensor<2xi64>, tensor<2xi64>) {
    %w = mixprec.read @w : tensor<16x8xf16>
    %r = mixprec.read @running : tensor<8xf32>
    mixprec.assign @running, %x : tensor<8xf32>
    %rng = mixprec.rng_state
    %rng2 = mixprec.rng_state {test.tag = "second"}
    return %w, %r, %rng, %rng2 : tensor<16x8xf16>, tensor<8xf32>, tensor<2xi64>, tensor<2xi64>
  }
}

// -----

//===----------------------------------------------------------------------===//
// train_step and the optimizer attributes
//===----------------------------------------------------------------------===//

// CHECK-LABEL: module
// CHECK: mixprec.parameter @w : tensor<4x8xf32>
// CHECK-LABEL: func.func @loss(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<2x8xf32>, [[Y:%[^:]+]]: tensor<2x4xf32>) -> tensor<f32>
// CHECK-NEXT:    [[W:%.+]] = mixprec.read @w : tensor<4x8xf32>
// CHECK-NEXT:    [[P:%.+]] = mixprec.linear [[X]], [[W]] : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
// CHECK-NEXT:    [[L:%.+]] = mixprec.mse [[P]], [[Y]] : tensor<2x4xf32>, tensor<2x4xf32>
// CHECK-NEXT:    return [[L]] : tensor<f32>
// CHECK: mixprec.train_step @sgd_default forward @loss optimizer #mixprec.sgd<>{{$}}
// CHECK-NEXT: mixprec.train_step @sgd_nesterov forward @loss optimizer #mixprec.sgd<momentum = 9.000000e-01, nesterov = true, weight_decay = 5.000000e-04>{{$}}
// CHECK-NEXT: mixprec.train_step @sgd_all forward @loss optimizer #mixprec.sgd<momentum = 5.000000e-01, dampening = 1.000000e-01, weight_decay = 1.000000e-02, decay_norm_and_bias = true> {accumulation_steps = 4 : i64}{{$}}
// CHECK-NEXT: mixprec.train_step @adam_default forward @loss optimizer #mixprec.adam<>{{$}}
// CHECK-NEXT: mixprec.train_step @adam_args forward @loss optimizer #mixprec.adam<beta1 = 8.000000e-01, eps = 9.9999999999999995E-7, weight_decay = 1.000000e-04>{{$}}
// CHECK-NEXT: mixprec.train_step @adamw_default forward @loss optimizer #mixprec.adamw<>{{$}}
// CHECK-NEXT: mixprec.train_step @adamw_args forward @loss optimizer #mixprec.adamw<beta1 = 8.500000e-01, beta2 = 0.94999999999999996, eps = 1.000000e-10, weight_decay = 1.000000e-01, decay_norm_and_bias = true> {accumulation_steps = 8 : i64}{{$}}
// CHECK-NEXT: mixprec.train_step @adamw_no_decay forward @loss optimizer #mixprec.adamw<weight_decay = 0.000000e+00>{{$}}
// CHECK-NEXT: }

// GENERIC-LABEL: "builtin.module"
// GENERIC: "mixprec.train_step"() <{accumulation_steps = 1 : i64, forward = @loss, optimizer = #mixprec.sgd<>, sym_name = "sgd_default"}> : () -> ()
// GENERIC: "mixprec.train_step"() <{accumulation_steps = 4 : i64, forward = @loss, optimizer = #mixprec.sgd<momentum = 5.000000e-01, dampening = 1.000000e-01, weight_decay = 1.000000e-02, decay_norm_and_bias = true>, sym_name = "sgd_all"}> : () -> ()
// GENERIC: "mixprec.train_step"() <{accumulation_steps = 1 : i64, forward = @loss, optimizer = #mixprec.adamw<>, sym_name = "adamw_default"}> : () -> ()
module {
  mixprec.parameter @w : tensor<4x8xf32> = #mixprec.kaiming_uniform<>
  func.func @loss(%x: tensor<2x8xf32>, %y: tensor<2x4xf32>) -> tensor<f32> {
    %w = mixprec.read @w : tensor<4x8xf32>
    %p = mixprec.linear %x, %w : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
    %l = mixprec.mse %p, %y : tensor<2x4xf32>, tensor<2x4xf32>
    return %l : tensor<f32>
  }
  mixprec.train_step @sgd_default forward @loss optimizer #mixprec.sgd<>
  mixprec.train_step @sgd_nesterov forward @loss optimizer #mixprec.sgd<momentum = 0.9, nesterov = true, weight_decay = 5.0e-4>
  mixprec.train_step @sgd_all forward @loss optimizer #mixprec.sgd<momentum = 0.5, dampening = 0.1, nesterov = false, weight_decay = 0.01, decay_norm_and_bias = true> {accumulation_steps = 4 : i64}
  mixprec.train_step @adam_default forward @loss optimizer #mixprec.adam<beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0, decay_norm_and_bias = false>
  mixprec.train_step @adam_args forward @loss optimizer #mixprec.adam<beta1 = 0.8, eps = 1.0e-6, weight_decay = 1.0e-4>
  mixprec.train_step @adamw_default forward @loss optimizer #mixprec.adamw<weight_decay = 0.01>
  mixprec.train_step @adamw_args forward @loss optimizer #mixprec.adamw<beta1 = 0.85, beta2 = 0.95, eps = 1.0e-10, weight_decay = 0.1, decay_norm_and_bias = true> {accumulation_steps = 8 : i64}
  // AdamW's default weight decay is 0.01, so 0 is printed.
  mixprec.train_step @adamw_no_decay forward @loss optimizer #mixprec.adamw<weight_decay = 0.0>
}

// -----

//===----------------------------------------------------------------------===//
// Contractions: matmul, batch_matmul, linear, conv2d
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:    [[A:%[^:]+]]: tensor<4x8xf16>, [[B:%[^:]+]]: tensor<8x16xf16>, [[BT:%[^:]+]]: tensor<16x8xf16>, [[AT:%[^:]+]]: tensor<8x4xbf16>, [[C:%[^:]+]]: tensor<8x16xbf16>)
// CHECK-NEXT:    [[M0:%.+]] = mixprec.matmul [[A]], [[B]] : tensor<4x8xf16>, tensor<8x16xf16> -> tensor<4x16xf16>
// CHECK-NEXT:    [[M1:%.+]] = mixprec.matmul [[A]], [[BT]] {transpose_rhs} : tensor<4x8xf16>, tensor<16x8xf16> -> tensor<4x16xf32>
// CHECK-NEXT:    [[M2:%.+]] = mixprec.matmul [[AT]], [[C]] {transpose_lhs} : tensor<8x4xbf16>, tensor<8x16xbf16> -> tensor<4x16xbf16>
// CHECK-NEXT:    [[M3:%.+]] = mixprec.matmul [[B]], [[A]] {transpose_lhs, transpose_rhs} : tensor<8x16xf16>, tensor<4x8xf16> -> tensor<16x4xf32>
// CHECK-NEXT:    return [[M0]], [[M1]], [[M2]], [[M3]]

// GENERIC-LABEL: sym_name = "matmul"
// GENERIC: "mixprec.matmul"(%arg{{[0-9]+}}, %arg{{[0-9]+}}) : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf16>
// GENERIC: "mixprec.matmul"(%arg{{[0-9]+}}, %arg{{[0-9]+}}) <{transpose_rhs}> : (tensor<4x8xf16>, tensor<16x8xf16>) -> tensor<4x16xf32>
// GENERIC: "mixprec.matmul"(%arg{{[0-9]+}}, %arg{{[0-9]+}}) <{transpose_lhs}> : (tensor<8x4xbf16>, tensor<8x16xbf16>) -> tensor<4x16xbf16>
func.func @matmul(%a: tensor<4x8xf16>, %b: tensor<8x16xf16>, %bt: tensor<16x8xf16>, %at: tensor<8x4xbf16>, %c: tensor<8x16xbf16>)
    -> (tensor<4x16xf16>, tensor<4x16xf32>, tensor<4x16xbf16>, tensor<16x4xf32>) {
  %0 = mixprec.matmul %a, %b : tensor<4x8xf16>, tensor<8x16xf16> -> tensor<4x16xf16>
  %1 = mixprec.matmul %a, %bt {transpose_rhs} : tensor<4x8xf16>, tensor<16x8xf16> -> tensor<4x16xf32>
  %2 = mixprec.matmul %at, %c {transpose_lhs} : tensor<8x4xbf16>, tensor<8x16xbf16> -> tensor<4x16xbf16>
  %3 = mixprec.matmul %b, %a {transpose_lhs, transpose_rhs} : tensor<8x16xf16>, tensor<4x8xf16> -> tensor<16x4xf32>
  return %0, %1, %2, %3 : tensor<4x16xf16>, tensor<4x16xf32>, tensor<4x16xbf16>, tensor<16x4xf32>
}

// CHECK-LABEL: func.func @batch_matmul(
// CHECK-SAME:    [[Q:%[^:]+]]: tensor<8x4x16x32xf16>, [[K:%[^:]+]]: tensor<8x4x16x32xf16>, [[V:%[^:]+]]: tensor<2x3x5xf32>, [[U:%[^:]+]]: tensor<2x5x7xf32>)
// CHECK-NEXT:    [[S:%.+]] = mixprec.batch_matmul [[Q]], [[K]] {transpose_rhs} : tensor<8x4x16x32xf16>, tensor<8x4x16x32xf16> -> tensor<8x4x16x16xf32>
// CHECK-NEXT:    [[T:%.+]] = mixprec.batch_matmul [[V]], [[U]] : tensor<2x3x5xf32>, tensor<2x5x7xf32> -> tensor<2x3x7xf32>
// CHECK-NEXT:    [[TT:%.+]] = mixprec.batch_matmul [[Q]], [[K]] {transpose_lhs} : tensor<8x4x16x32xf16>, tensor<8x4x16x32xf16> -> tensor<8x4x32x32xf16>
// CHECK-NEXT:    return [[S]], [[T]], [[TT]]

// GENERIC-LABEL: sym_name = "batch_matmul"
// GENERIC: "mixprec.batch_matmul"(%arg{{[0-9]+}}, %arg{{[0-9]+}}) <{transpose_rhs}> : (tensor<8x4x16x32xf16>, tensor<8x4x16x32xf16>) -> tensor<8x4x16x16xf32>
func.func @batch_matmul(%q: tensor<8x4x16x32xf16>, %k: tensor<8x4x16x32xf16>, %v: tensor<2x3x5xf32>, %u: tensor<2x5x7xf32>)
    -> (tensor<8x4x16x16xf32>, tensor<2x3x7xf32>, tensor<8x4x32x32xf16>) {
  %0 = mixprec.batch_matmul %q, %k {transpose_rhs} : tensor<8x4x16x32xf16>, tensor<8x4x16x32xf16> -> tensor<8x4x16x16xf32>
  %1 = mixprec.batch_matmul %v, %u : tensor<2x3x5xf32>, tensor<2x5x7xf32> -> tensor<2x3x7xf32>
  %2 = mixprec.batch_matmul %q, %k {transpose_lhs} : tensor<8x4x16x32xf16>, tensor<8x4x16x32xf16> -> tensor<8x4x32x32xf16>
  return %0, %1, %2 : tensor<8x4x16x16xf32>, tensor<2x3x7xf32>, tensor<8x4x32x32xf16>
}

// CHECK-LABEL: func.func @linear(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<64x32xf32>, [[W:%[^:]+]]: tensor<128x32xf32>, [[B:%[^:]+]]: tensor<128xf32>, [[X3:%[^:]+]]: tensor<8x16x32xf16>, [[W16:%[^:]+]]: tensor<128x32xf16>, [[B16:%[^:]+]]: tensor<128xf16>, [[X1:%[^:]+]]: tensor<32xbf16>, [[WB:%[^:]+]]: tensor<10x32xbf16>)
// CHECK-NEXT:    [[L0:%.+]] = mixprec.linear [[X]], [[W]], [[B]] : tensor<64x32xf32>, tensor<128x32xf32>, tensor<128xf32> -> tensor<64x128xf32>
// CHECK-NEXT:    [[L1:%.+]] = mixprec.linear [[X]], [[W]] : tensor<64x32xf32>, tensor<128x32xf32> -> tensor<64x128xf32>
// CHECK-NEXT:    [[L2:%.+]] = mixprec.linear [[X3]], [[W16]], [[B16]] : tensor<8x16x32xf16>, tensor<128x32xf16>, tensor<128xf16> -> tensor<8x16x128xf32>
// CHECK-NEXT:    [[L3:%.+]] = mixprec.linear [[X3]], [[W16]] : tensor<8x16x32xf16>, tensor<128x32xf16> -> tensor<8x16x128xf16>
// CHECK-NEXT:    [[L4:%.+]] = mixprec.linear [[X1]], [[WB]] : tensor<32xbf16>, tensor<10x32xbf16> -> tensor<10xbf16>
// CHECK-NEXT:    return [[L0]], [[L1]], [[L2]], [[L3]], [[L4]]

// GENERIC-LABEL: sym_name = "linear"
// GENERIC: "mixprec.linear"(%arg{{[0-9]+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}) : (tensor<64x32xf32>, tensor<128x32xf32>, tensor<128xf32>) -> tensor<64x128xf32>
// GENERIC: "mixprec.linear"(%arg{{[0-9]+}}, %arg{{[0-9]+}}) : (tensor<64x32xf32>, tensor<128x32xf32>) -> tensor<64x128xf32>
func.func @linear(%x: tensor<64x32xf32>, %w: tensor<128x32xf32>, %b: tensor<128xf32>,
                  %x3: tensor<8x16x32xf16>, %w16: tensor<128x32xf16>, %b16: tensor<128xf16>,
                  %x1: tensor<32xbf16>, %wb: tensor<10x32xbf16>)
    -> (tensor<64x128xf32>, tensor<64x128xf32>, tensor<8x16x128xf32>, tensor<8x16x128xf16>, tensor<10xbf16>) {
  %0 = mixprec.linear %x, %w, %b : tensor<64x32xf32>, tensor<128x32xf32>, tensor<128xf32> -> tensor<64x128xf32>
  %1 = mixprec.linear %x, %w : tensor<64x32xf32>, tensor<128x32xf32> -> tensor<64x128xf32>
  %2 = mixprec.linear %x3, %w16, %b16 : tensor<8x16x32xf16>, tensor<128x32xf16>, tensor<128xf16> -> tensor<8x16x128xf32>
  %3 = mixprec.linear %x3, %w16 : tensor<8x16x32xf16>, tensor<128x32xf16> -> tensor<8x16x128xf16>
  %4 = mixprec.linear %x1, %wb : tensor<32xbf16>, tensor<10x32xbf16> -> tensor<10xbf16>
  return %0, %1, %2, %3, %4 : tensor<64x128xf32>, tensor<64x128xf32>, tensor<8x16x128xf32>, tensor<8x16x128xf16>, tensor<10xbf16>
}

// Output size per spatial dim: (in + 2 * pad - dilation * (k - 1) - 1) / stride + 1.
// CHECK-LABEL: func.func @conv2d(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<32x1x8x8xf32>, [[W:%[^:]+]]: tensor<8x1x3x3xf32>, [[B:%[^:]+]]: tensor<8xf32>, [[XG:%[^:]+]]: tensor<2x4x9x9xf16>, [[WG:%[^:]+]]: tensor<8x2x3x3xf16>, [[BG:%[^:]+]]: tensor<8xf16>)
// CHECK-NEXT:    [[C0:%.+]] = mixprec.conv2d [[X]], [[W]], [[B]] {padding = array<i64: 1, 1>} : tensor<32x1x8x8xf32>, tensor<8x1x3x3xf32>, tensor<8xf32> -> tensor<32x8x8x8xf32>
// CHECK-NEXT:    [[C1:%.+]] = mixprec.conv2d [[X]], [[W]] : tensor<32x1x8x8xf32>, tensor<8x1x3x3xf32> -> tensor<32x8x6x6xf32>
// CHECK-NEXT:    [[C2:%.+]] = mixprec.conv2d [[XG]], [[WG]], [[BG]] {dilation = array<i64: 2, 1>, groups = 2 : i64, padding = array<i64: 1, 0>, stride = array<i64: 2, 3>} : tensor<2x4x9x9xf16>, tensor<8x2x3x3xf16>, tensor<8xf16> -> tensor<2x8x4x3xf32>
// CHECK-NEXT:    [[C3:%.+]] = mixprec.conv2d [[XG]], [[WG]] {groups = 2 : i64, stride = array<i64: 2, 2>} : tensor<2x4x9x9xf16>, tensor<8x2x3x3xf16> -> tensor<2x8x4x4xf16>
// CHECK-NEXT:    return [[C0]], [[C1]], [[C2]], [[C3]]

// GENERIC-LABEL: sym_name = "conv2d"
// GENERIC: "mixprec.conv2d"(%arg{{[0-9]+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}) <{dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>}> : (tensor<32x1x8x8xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>) -> tensor<32x8x8x8xf32>
// GENERIC: "mixprec.conv2d"(%arg{{[0-9]+}}, %arg{{[0-9]+}}) <{dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>}> : (tensor<32x1x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<32x8x6x6xf32>
// GENERIC: "mixprec.conv2d"(%arg{{[0-9]+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}) <{dilation = array<i64: 2, 1>, groups = 2 : i64, padding = array<i64: 1, 0>, stride = array<i64: 2, 3>}> : (tensor<2x4x9x9xf16>, tensor<8x2x3x3xf16>, tensor<8xf16>) -> tensor<2x8x4x3xf32>
func.func @conv2d(%x: tensor<32x1x8x8xf32>, %w: tensor<8x1x3x3xf32>, %b: tensor<8xf32>,
                  %xg: tensor<2x4x9x9xf16>, %wg: tensor<8x2x3x3xf16>, %bg: tensor<8xf16>)
    -> (tensor<32x8x8x8xf32>, tensor<32x8x6x6xf32>, tensor<2x8x4x3xf32>, tensor<2x8x4x4xf16>) {
  // 8 + 2 - 2 - 1 = 7 -> 8.
  %0 = mixprec.conv2d %x, %w, %b {padding = array<i64: 1, 1>} : tensor<32x1x8x8xf32>, tensor<8x1x3x3xf32>, tensor<8xf32> -> tensor<32x8x8x8xf32>
  // Defaults: stride 1, padding 0, dilation 1, groups 1 (elided when printed).
  %1 = mixprec.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<32x1x8x8xf32>, tensor<8x1x3x3xf32> -> tensor<32x8x6x6xf32>
  // H: (9 + 2 - 2 * 2 - 1) / 2 + 1 = 4; W: (9 + 0 - 2 - 1) / 3 + 1 = 3.
  %2 = mixprec.conv2d %xg, %wg, %bg {stride = array<i64: 2, 3>, padding = array<i64: 1, 0>, dilation = array<i64: 2, 1>, groups = 2 : i64} : tensor<2x4x9x9xf16>, tensor<8x2x3x3xf16>, tensor<8xf16> -> tensor<2x8x4x3xf32>
  // (9 - 3) / 2 + 1 = 4.
  %3 = mixprec.conv2d %xg, %wg {stride = array<i64: 2, 2>, groups = 2 : i64} : tensor<2x4x9x9xf16>, tensor<8x2x3x3xf16> -> tensor<2x8x4x4xf16>
  return %0, %1, %2, %3 : tensor<32x8x8x8xf32>, tensor<32x8x6x6xf32>, tensor<2x8x4x3xf32>, tensor<2x8x4x4xf16>
}

// -----

//===----------------------------------------------------------------------===//
// Binary elementwise ops: the result has the wider float type, f32 when f16
// meets bf16.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @binary(
// CHECK-SAME:    [[H:%[^:]+]]: tensor<4x8xf16>, [[B:%[^:]+]]: tensor<4x8xbf16>, [[F:%[^:]+]]: tensor<4x8xf32>)
// CHECK-NEXT:    [[ADD:%.+]] = mixprec.add [[H]], [[H]] : tensor<4x8xf16>, tensor<4x8xf16>
// CHECK-NEXT:    [[SUB:%.+]] = mixprec.sub [[B]], [[B]] : tensor<4x8xbf16>, tensor<4x8xbf16>
// CHECK-NEXT:    [[MUL:%.+]] = mixprec.mul [[F]], [[F]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT:    [[DIV:%.+]] = mixprec.div [[H]], [[F]] : tensor<4x8xf16>, tensor<4x8xf32>
// CHECK-NEXT:    [[MAX:%.+]] = mixprec.maximum [[F]], [[B]] : tensor<4x8xf32>, tensor<4x8xbf16>
// CHECK-NEXT:    [[MIN:%.+]] = mixprec.minimum [[H]], [[B]] : tensor<4x8xf16>, tensor<4x8xbf16>
// CHECK-NEXT:    [[ADD2:%.+]] = mixprec.add [[B]], [[H]] : tensor<4x8xbf16>, tensor<4x8xf16>
// CHECK-NEXT:    [[CHAIN:%.+]] = mixprec.mul [[ADD2]], [[ADD]] : tensor<4x8xf32>, tensor<4x8xf16>
// CHECK-NEXT:    return [[ADD]], [[SUB]], [[MUL]], [[DIV]], [[MAX]], [[MIN]], [[ADD2]], [[CHAIN]] : tensor<4x8xf16>, tensor<4x8xbf16>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>

// GENERIC-LABEL: sym_name = "binary"
// GENERIC: "mixprec.add"(%arg{{[0-9]+}}, %arg{{[0-9]+}}) : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
// GENERIC: "mixprec.minimum"(%arg{{[0-9]+}}, %arg{{[0-9]+}}) : (tensor<4x8xf16>, tensor<4x8xbf16>) -> tensor<4x8xf32>
func.func @binary(%h: tensor<4x8xf16>, %b: tensor<4x8xbf16>, %f: tensor<4x8xf32>)
    -> (tensor<4x8xf16>, tensor<4x8xbf16>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %add = mixprec.add %h, %h : tensor<4x8xf16>, tensor<4x8xf16>
  %sub = mixprec.sub %b, %b : tensor<4x8xbf16>, tensor<4x8xbf16>
  %mul = mixprec.mul %f, %f : tensor<4x8xf32>, tensor<4x8xf32>
  %div = mixprec.div %h, %f : tensor<4x8xf16>, tensor<4x8xf32>
  %max = mixprec.maximum %f, %b : tensor<4x8xf32>, tensor<4x8xbf16>
  %min = mixprec.minimum %h, %b : tensor<4x8xf16>, tensor<4x8xbf16>
  %add2 = mixprec.add %b, %h : tensor<4x8xbf16>, tensor<4x8xf16>
  // Uses of inferred results must name the inferred type.
  %chain = mixprec.mul %add2, %add : tensor<4x8xf32>, tensor<4x8xf16>
  return %add, %sub, %mul, %div, %max, %min, %add2, %chain : tensor<4x8xf16>, tensor<4x8xbf16>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// CHECK-LABEL: func.func @pow(
// CHECK-SAME:    [[H:%[^:]+]]: tensor<16xf16>, [[B:%[^:]+]]: tensor<16xbf16>, [[F:%[^:]+]]: tensor<16xf32>, [[S:%[^:]+]]: tensor<f16>)
// CHECK-NEXT:    [[P0:%.+]] = mixprec.pow [[H]], [[H]] : tensor<16xf16>, tensor<16xf16>
// CHECK-NEXT:    [[P1:%.+]] = mixprec.pow [[H]], [[F]] : tensor<16xf16>, tensor<16xf32>
// CHECK-NEXT:    [[P2:%.+]] = mixprec.pow [[F]], [[H]] : tensor<16xf32>, tensor<16xf16>
// CHECK-NEXT:    [[P3:%.+]] = mixprec.pow [[H]], [[B]] : tensor<16xf16>, tensor<16xbf16>
// CHECK-NEXT:    [[P4:%.+]] = mixprec.pow [[B]], [[B]] : tensor<16xbf16>, tensor<16xbf16>
// CHECK-NEXT:    [[P5:%.+]] = mixprec.pow [[S]], [[S]] : tensor<f16>, tensor<f16>
// CHECK-NEXT:    return [[P0]], [[P1]], [[P2]], [[P3]], [[P4]], [[P5]] : tensor<16xf16>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xbf16>, tensor<f16>

// GENERIC-LABEL: sym_name = "pow"
// GENERIC: "mixprec.pow"(%arg{{[0-9]+}}, %arg{{[0-9]+}}) : (tensor<16xf16>, tensor<16xf32>) -> tensor<16xf32>
// GENERIC: "mixprec.pow"(%arg{{[0-9]+}}, %arg{{[0-9]+}}) : (tensor<16xf16>, tensor<16xbf16>) -> tensor<16xf32>
func.func @pow(%h: tensor<16xf16>, %b: tensor<16xbf16>, %f: tensor<16xf32>, %s: tensor<f16>)
    -> (tensor<16xf16>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xbf16>, tensor<f16>) {
  %0 = mixprec.pow %h, %h : tensor<16xf16>, tensor<16xf16>
  %1 = mixprec.pow %h, %f : tensor<16xf16>, tensor<16xf32>
  %2 = mixprec.pow %f, %h : tensor<16xf32>, tensor<16xf16>
  %3 = mixprec.pow %h, %b : tensor<16xf16>, tensor<16xbf16>
  %4 = mixprec.pow %b, %b : tensor<16xbf16>, tensor<16xbf16>
  %5 = mixprec.pow %s, %s : tensor<f16>, tensor<f16>
  return %0, %1, %2, %3, %4, %5 : tensor<16xf16>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xbf16>, tensor<f16>
}

// where: an i1 mask of the result's shape; the values follow the binary
// ops' type rule. Its constant mask is a list of i1 (true/false) or a splat.
// CHECK-LABEL: func.func @where(
// CHECK-SAME:    [[H:%[^:]+]]: tensor<2x3xf16>, [[B:%[^:]+]]: tensor<2x3xbf16>, [[F:%[^:]+]]: tensor<2x3xf32>)
// CHECK-NEXT:    [[M:%.+]] = mixprec.constant dense<{{\[}}[true, false, true], [false, false, true]]> : tensor<2x3xi1>
// CHECK-NEXT:    [[ALL:%.+]] = mixprec.constant dense<true> : tensor<2x3xi1>
// CHECK-NEXT:    [[W0:%.+]] = mixprec.where [[M]], [[H]], [[H]] : tensor<2x3xi1>, tensor<2x3xf16>, tensor<2x3xf16>
// CHECK-NEXT:    [[W1:%.+]] = mixprec.where [[M]], [[F]], [[H]] : tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf16>
// CHECK-NEXT:    [[W2:%.+]] = mixprec.where [[ALL]], [[H]], [[B]] : tensor<2x3xi1>, tensor<2x3xf16>, tensor<2x3xbf16>
// CHECK-NEXT:    return [[W0]], [[W1]], [[W2]] : tensor<2x3xf16>, tensor<2x3xf32>, tensor<2x3xf32>

// GENERIC-LABEL: sym_name = "where"
// GENERIC: "mixprec.where"(%{{.+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}) : (tensor<2x3xi1>, tensor<2x3xf16>, tensor<2x3xf16>) -> tensor<2x3xf16>
// GENERIC: "mixprec.where"(%{{.+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<2x3xf32>
// GENERIC: "mixprec.where"(%{{.+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}) : (tensor<2x3xi1>, tensor<2x3xf16>, tensor<2x3xbf16>) -> tensor<2x3xf32>
func.func @where(%h: tensor<2x3xf16>, %b: tensor<2x3xbf16>, %f: tensor<2x3xf32>)
    -> (tensor<2x3xf16>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %m = mixprec.constant dense<[[true, false, true], [false, false, true]]> : tensor<2x3xi1>
  %all = mixprec.constant dense<true> : tensor<2x3xi1>
  %0 = mixprec.where %m, %h, %h : tensor<2x3xi1>, tensor<2x3xf16>, tensor<2x3xf16>
  %1 = mixprec.where %m, %f, %h : tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf16>
  %2 = mixprec.where %all, %h, %b : tensor<2x3xi1>, tensor<2x3xf16>, tensor<2x3xbf16>
  return %0, %1, %2 : tensor<2x3xf16>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// logical_not: a mask of the same shape, true where the input is false.
// CHECK-LABEL: func.func @logical_not(
// CHECK-SAME:    [[P:%[^:]+]]: tensor<8x16xi1>)
// CHECK-NEXT:    [[K:%.+]] = mixprec.logical_not [[P]] : tensor<8x16xi1>
// CHECK-NEXT:    return [[K]] : tensor<8x16xi1>

// GENERIC-LABEL: sym_name = "logical_not"
// GENERIC: "mixprec.logical_not"(%arg0) : (tensor<8x16xi1>) -> tensor<8x16xi1>
func.func @logical_not(%padding: tensor<8x16xi1>) -> tensor<8x16xi1> {
  %keep = mixprec.logical_not %padding : tensor<8x16xi1>
  return %keep : tensor<8x16xi1>
}

// -----

//===----------------------------------------------------------------------===//
// Unary elementwise ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @unary(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<4x8xf32>, [[H:%[^:]+]]: tensor<16x256xf16>, [[B:%[^:]+]]: tensor<2xbf16>)
// CHECK-NEXT:    [[NEG:%.+]] = mixprec.neg [[X]] : tensor<4x8xf32>
// CHECK-NEXT:    [[ABS:%.+]] = mixprec.abs [[NEG]] : tensor<4x8xf32>
// CHECK-NEXT:    [[EXP:%.+]] = mixprec.exp [[ABS]] : tensor<4x8xf32>
// CHECK-NEXT:    [[LOG:%.+]] = mixprec.log [[EXP]] : tensor<4x8xf32>
// CHECK-NEXT:    [[SQRT:%.+]] = mixprec.sqrt [[LOG]] : tensor<4x8xf32>
// CHECK-NEXT:    [[RSQRT:%.+]] = mixprec.rsqrt [[B]] : tensor<2xbf16>
// CHECK-NEXT:    [[TANH:%.+]] = mixprec.tanh [[H]] : tensor<16x256xf16>
// CHECK-NEXT:    [[SIG:%.+]] = mixprec.sigmoid [[TANH]] : tensor<16x256xf16>
// CHECK-NEXT:    [[RELU:%.+]] = mixprec.relu [[SIG]] : tensor<16x256xf16>
// CHECK-NEXT:    [[GERF:%.+]] = mixprec.gelu [[RELU]] : tensor<16x256xf16>
// CHECK-NEXT:    [[GERF2:%.+]] = mixprec.gelu [[GERF]] : tensor<16x256xf16>
// CHECK-NEXT:    [[GTANH:%.+]] = mixprec.gelu [[GERF2]] {approximate = #mixprec<gelu_approximation tanh>} : tensor<16x256xf16>
// CHECK-NEXT:    [[SILU:%.+]] = mixprec.silu [[GTANH]] : tensor<16x256xf16>
// CHECK-NEXT:    [[BSILU:%.+]] = mixprec.silu [[RSQRT]] : tensor<2xbf16>
// CHECK-NEXT:    [[HABS:%.+]] = mixprec.abs [[SILU]] : tensor<16x256xf16>
// CHECK-NEXT:    return [[SQRT]], [[BSILU]], [[HABS]]

// GENERIC-LABEL: sym_name = "unary"
// GENERIC: "mixprec.neg"(%arg{{[0-9]+}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// GENERIC: "mixprec.abs"(%{{.+}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// GENERIC: "mixprec.gelu"(%{{.+}}) <{approximate = #mixprec<gelu_approximation erf>}> : (tensor<16x256xf16>) -> tensor<16x256xf16>
// GENERIC: "mixprec.gelu"(%{{.+}}) <{approximate = #mixprec<gelu_approximation erf>}> : (tensor<16x256xf16>) -> tensor<16x256xf16>
// GENERIC: "mixprec.gelu"(%{{.+}}) <{approximate = #mixprec<gelu_approximation tanh>}> : (tensor<16x256xf16>) -> tensor<16x256xf16>
// GENERIC: "mixprec.silu"(%{{.+}}) : (tensor<16x256xf16>) -> tensor<16x256xf16>
// GENERIC: "mixprec.silu"(%{{.+}}) : (tensor<2xbf16>) -> tensor<2xbf16>
// GENERIC: "mixprec.abs"(%{{.+}}) : (tensor<16x256xf16>) -> tensor<16x256xf16>
func.func @unary(%x: tensor<4x8xf32>, %h: tensor<16x256xf16>, %b: tensor<2xbf16>)
    -> (tensor<4x8xf32>, tensor<2xbf16>, tensor<16x256xf16>) {
  %neg = mixprec.neg %x : tensor<4x8xf32>
  %abs = mixprec.abs %neg : tensor<4x8xf32>
  %exp = mixprec.exp %abs : tensor<4x8xf32>
  %log = mixprec.log %exp : tensor<4x8xf32>
  %sqrt = mixprec.sqrt %log : tensor<4x8xf32>
  %rsqrt = mixprec.rsqrt %b : tensor<2xbf16>
  %tanh = mixprec.tanh %h : tensor<16x256xf16>
  %sig = mixprec.sigmoid %tanh : tensor<16x256xf16>
  %relu = mixprec.relu %sig : tensor<16x256xf16>
  // erf is the default and is elided.
  %gerf = mixprec.gelu %relu : tensor<16x256xf16>
  %gerf2 = mixprec.gelu %gerf {approximate = #mixprec<gelu_approximation erf>} : tensor<16x256xf16>
  %gtanh = mixprec.gelu %gerf2 {approximate = #mixprec<gelu_approximation tanh>} : tensor<16x256xf16>
  %silu = mixprec.silu %gtanh : tensor<16x256xf16>
  %bsilu = mixprec.silu %rsqrt : tensor<2xbf16>
  %habs = mixprec.abs %silu : tensor<16x256xf16>
  return %sqrt, %bsilu, %habs : tensor<4x8xf32>, tensor<2xbf16>, tensor<16x256xf16>
}

// -----

// clamp with both bounds, only min, only max, and strict (hardtanh).
// CHECK-LABEL: func.func @clamp(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<4x8xf32>, [[H:%[^:]+]]: tensor<16xf16>, [[B:%[^:]+]]: tensor<2xbf16>)
// CHECK-NEXT:    [[BOTH:%.+]] = mixprec.clamp [[X]] {max = 6.000000e+00 : f64, min = -2.500000e-01 : f64} : tensor<4x8xf32>
// CHECK-NEXT:    [[MIN:%.+]] = mixprec.clamp [[H]] {min = 0.000000e+00 : f64} : tensor<16xf16>
// CHECK-NEXT:    [[MAX:%.+]] = mixprec.clamp [[B]] {max = 1.000000e-01 : f64} : tensor<2xbf16>
// CHECK-NEXT:    [[STRICT:%.+]] = mixprec.clamp [[X]] {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64, strict} : tensor<4x8xf32>
// CHECK-NEXT:    return [[BOTH]], [[MIN]], [[MAX]]

// GENERIC-LABEL: sym_name = "clamp"
// GENERIC: "mixprec.clamp"(%arg0) <{max = 6.000000e+00 : f64, min = -2.500000e-01 : f64}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
// GENERIC: "mixprec.clamp"(%arg1) <{min = 0.000000e+00 : f64}> : (tensor<16xf16>) -> tensor<16xf16>
// GENERIC: "mixprec.clamp"(%arg2) <{max = 1.000000e-01 : f64}> : (tensor<2xbf16>) -> tensor<2xbf16>
// GENERIC: "mixprec.clamp"(%arg0) <{max = 6.000000e+00 : f64, min = 0.000000e+00 : f64, strict}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
func.func @clamp(%x: tensor<4x8xf32>, %h: tensor<16xf16>, %b: tensor<2xbf16>)
    -> (tensor<4x8xf32>, tensor<16xf16>, tensor<2xbf16>) {
  %both = mixprec.clamp %x {min = -0.25 : f64, max = 6.0 : f64} : tensor<4x8xf32>
  %min = mixprec.clamp %h {min = 0.0 : f64} : tensor<16xf16>
  %max = mixprec.clamp %b {max = 0.1 : f64} : tensor<2xbf16>
  %strict = mixprec.clamp %x {min = 0.0 : f64, max = 6.0 : f64, strict} : tensor<4x8xf32>
  return %both, %min, %max : tensor<4x8xf32>, tensor<16xf16>, tensor<2xbf16>
}

// -----

//===----------------------------------------------------------------------===//
// Softmax and normalizations
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @softmax(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<8x16xf32>, [[H:%[^:]+]]: tensor<2x4x8xf16>)
// CHECK-NEXT:    [[S:%.+]] = mixprec.softmax [[X]] {axis = 1 : i64} : tensor<8x16xf32>
// CHECK-NEXT:    [[SH:%.+]] = mixprec.softmax [[H]] {axis = 0 : i64} : tensor<2x4x8xf16>
// CHECK-NEXT:    [[L:%.+]] = mixprec.log_softmax [[X]] {axis = 0 : i64} : tensor<8x16xf32>
// CHECK-NEXT:    [[LH:%.+]] = mixprec.log_softmax [[H]] {axis = 2 : i64} : tensor<2x4x8xf16>
// CHECK-NEXT:    return [[S]], [[SH]], [[L]], [[LH]]
func.func @softmax(%x: tensor<8x16xf32>, %h: tensor<2x4x8xf16>)
    -> (tensor<8x16xf32>, tensor<2x4x8xf16>, tensor<8x16xf32>, tensor<2x4x8xf16>) {
  %0 = mixprec.softmax %x {axis = 1 : i64} : tensor<8x16xf32>
  %1 = mixprec.softmax %h {axis = 0 : i64} : tensor<2x4x8xf16>
  %2 = mixprec.log_softmax %x {axis = 0 : i64} : tensor<8x16xf32>
  %3 = mixprec.log_softmax %h {axis = 2 : i64} : tensor<2x4x8xf16>
  return %0, %1, %2, %3 : tensor<8x16xf32>, tensor<2x4x8xf16>, tensor<8x16xf32>, tensor<2x4x8xf16>
}

// CHECK-LABEL: func.func @layer_norm(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<8x16x64xf32>, [[G:%[^:]+]]: tensor<64xf32>, [[B:%[^:]+]]: tensor<64xf32>, [[H:%[^:]+]]: tensor<8x16x64xf16>, [[G2:%[^:]+]]: tensor<16x64xf16>, [[B2:%[^:]+]]: tensor<16x64xf16>)
// CHECK-NEXT:    [[N0:%.+]] = mixprec.layer_norm [[X]] scale [[G]] bias [[B]] {axis = 2 : i64} : tensor<8x16x64xf32>, tensor<64xf32>, tensor<64xf32>
// CHECK-NEXT:    [[N1:%.+]] = mixprec.layer_norm [[X]] {axis = 2 : i64, eps = 9.9999999999999995E-7 : f64} : tensor<8x16x64xf32>
// CHECK-NEXT:    [[N2:%.+]] = mixprec.layer_norm [[H]] scale [[G2]] bias [[B2]] {axis = 1 : i64, eps = 1.000000e-03 : f64} : tensor<8x16x64xf16>, tensor<16x64xf16>, tensor<16x64xf16>
// CHECK-NEXT:    [[N3:%.+]] = mixprec.layer_norm [[H]] {axis = 0 : i64} : tensor<8x16x64xf16>
// CHECK-NEXT:    return [[N0]], [[N1]], [[N2]], [[N3]]

// GENERIC-LABEL: sym_name = "layer_norm"
// GENERIC: "mixprec.layer_norm"(%arg{{[0-9]+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}) <{axis = 2 : i64, eps = 1.000000e-05 : f64, operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<8x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<8x16x64xf32>
// GENERIC: "mixprec.layer_norm"(%arg{{[0-9]+}}) <{axis = 2 : i64, eps = 9.9999999999999995E-7 : f64, operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<8x16x64xf32>) -> tensor<8x16x64xf32>
func.func @layer_norm(%x: tensor<8x16x64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>,
                      %h: tensor<8x16x64xf16>, %g2: tensor<16x64xf16>, %b2: tensor<16x64xf16>)
    -> (tensor<8x16x64xf32>, tensor<8x16x64xf32>, tensor<8x16x64xf16>, tensor<8x16x64xf16>) {
  %0 = mixprec.layer_norm %x scale %g bias %b {axis = 2 : i64} : tensor<8x16x64xf32>, tensor<64xf32>, tensor<64xf32>
  %1 = mixprec.layer_norm %x {axis = 2 : i64, eps = 1.0e-6 : f64} : tensor<8x16x64xf32>
  %2 = mixprec.layer_norm %h scale %g2 bias %b2 {axis = 1 : i64, eps = 1.0e-3 : f64} : tensor<8x16x64xf16>, tensor<16x64xf16>, tensor<16x64xf16>
  // The default eps is elided.
  %3 = mixprec.layer_norm %h {axis = 0 : i64, eps = 1.0e-5 : f64} : tensor<8x16x64xf16>
  return %0, %1, %2, %3 : tensor<8x16x64xf32>, tensor<8x16x64xf32>, tensor<8x16x64xf16>, tensor<8x16x64xf16>
}

// batch_norm returns (result, running_mean_out, running_var_out).
// CHECK-LABEL: func.func @batch_norm(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<32x8x4x4xf32>, [[M:%[^:]+]]: tensor<8xf32>, [[V:%[^:]+]]: tensor<8xf32>, [[G:%[^:]+]]: tensor<8xf32>, [[B:%[^:]+]]: tensor<8xf32>, [[H:%[^:]+]]: tensor<16x8xf16>, [[GH:%[^:]+]]: tensor<8xf16>, [[BH:%[^:]+]]: tensor<8xf16>, [[Z:%[^:]+]]: tensor<16x8xbf16>)
// CHECK-NEXT:    [[Y0:%[^,]+]], [[M0:%[^,]+]], [[V0:%[^ ]+]] = mixprec.batch_norm [[X]], [[M]], [[V]] scale [[G]] bias [[B]] : tensor<32x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
// CHECK-NEXT:    [[Y1:%[^,]+]], [[M1:%[^,]+]], [[V1:%[^ ]+]] = mixprec.batch_norm [[X]], [[M0]], [[V0]] {momentum = 1.000000e-02 : f64} : tensor<32x8x4x4xf32>, tensor<8xf32>
// CHECK-NEXT:    [[Y2:%[^,]+]], [[M2:%[^,]+]], [[V2:%[^ ]+]] = mixprec.batch_norm [[H]], [[M]], [[V]] scale [[GH]] bias [[BH]] {eps = 1.000000e-03 : f64, training = false} : tensor<16x8xf16>, tensor<8xf32>, tensor<8xf16>, tensor<8xf16>
// CHECK-NEXT:    [[Y3:%[^,]+]], [[M3:%[^,]+]], [[V3:%[^ ]+]] = mixprec.batch_norm [[Z]], [[M]], [[V]] {training = false} : tensor<16x8xbf16>, tensor<8xf32>
// CHECK-NEXT:    return [[Y0]], [[Y1]], [[M1]], [[V1]], [[Y2]], [[M2]], [[V2]], [[Y3]], [[M3]], [[V3]] : tensor<32x8x4x4xf32>, tensor<32x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<16x8xf16>, tensor<8xf32>, tensor<8xf32>, tensor<16x8xbf16>, tensor<8xf32>, tensor<8xf32>

// GENERIC-LABEL: sym_name = "batch_norm"
// GENERIC: "mixprec.batch_norm"(%arg{{[0-9]+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}) <{eps = 1.000000e-05 : f64, momentum = 1.000000e-01 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>, training = true}> : (tensor<32x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<32x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>)
// GENERIC: "mixprec.batch_norm"(%arg{{[0-9]+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}) <{eps = 1.000000e-05 : f64, momentum = 1.000000e-01 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>, training = false}> : (tensor<16x8xbf16>, tensor<8xf32>, tensor<8xf32>) -> (tensor<16x8xbf16>, tensor<8xf32>, tensor<8xf32>)
func.func @batch_norm(%x: tensor<32x8x4x4xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>,
                      %h: tensor<16x8xf16>, %gh: tensor<8xf16>, %bh: tensor<8xf16>, %z: tensor<16x8xbf16>)
    -> (tensor<32x8x4x4xf32>, tensor<32x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<16x8xf16>, tensor<8xf32>, tensor<8xf32>, tensor<16x8xbf16>, tensor<8xf32>, tensor<8xf32>) {
  // Rank 4, affine, training (the default).
  %y0, %m0, %v0 = mixprec.batch_norm %x, %m, %v scale %g bias %b : tensor<32x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
  // Rank 4, not affine; threads the updated statistics.
  %y1, %m1, %v1 = mixprec.batch_norm %x, %m0, %v0 {momentum = 0.01 : f64, training = true} : tensor<32x8x4x4xf32>, tensor<8xf32>
  // Rank 2, affine in f16, inference.
  %y2, %m2, %v2 = mixprec.batch_norm %h, %m, %v scale %gh bias %bh {eps = 1.0e-3 : f64, training = false} : tensor<16x8xf16>, tensor<8xf32>, tensor<8xf16>, tensor<8xf16>
  // Rank 2, not affine, inference.
  %y3, %m3, %v3 = mixprec.batch_norm %z, %m, %v {training = false} : tensor<16x8xbf16>, tensor<8xf32>
  return %y0, %y1, %m1, %v1, %y2, %m2, %v2, %y3, %m3, %v3 : tensor<32x8x4x4xf32>, tensor<32x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<16x8xf16>, tensor<8xf32>, tensor<8xf32>, tensor<16x8xbf16>, tensor<8xf32>, tensor<8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Reductions: dims are strictly increasing; keepdim keeps them with size 1
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reductions(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<8x16xf32>, [[H:%[^:]+]]: tensor<2x3x4xf16>, [[B:%[^:]+]]: tensor<5xbf16>)
// CHECK-NEXT:    [[S0:%.+]] = mixprec.reduce_sum [[X]] {dims = array<i64: 1>} : tensor<8x16xf32>
// CHECK-NEXT:    [[S1:%.+]] = mixprec.reduce_sum [[X]] {dims = array<i64: 1>, keepdim} : tensor<8x16xf32>
// CHECK-NEXT:    [[S2:%.+]] = mixprec.reduce_sum [[X]] {dims = array<i64: 0, 1>} : tensor<8x16xf32>
// CHECK-NEXT:    [[S3:%.+]] = mixprec.reduce_sum [[X]] {dims = array<i64: 0, 1>, keepdim} : tensor<8x16xf32>
// CHECK-NEXT:    [[M0:%.+]] = mixprec.reduce_mean [[H]] {dims = array<i64: 0, 2>} : tensor<2x3x4xf16>
// CHECK-NEXT:    [[M1:%.+]] = mixprec.reduce_mean [[H]] {dims = array<i64: 0, 2>, keepdim} : tensor<2x3x4xf16>
// CHECK-NEXT:    [[M2:%.+]] = mixprec.reduce_mean [[H]] {dims = array<i64: 0, 1, 2>} : tensor<2x3x4xf16>
// CHECK-NEXT:    [[X0:%.+]] = mixprec.reduce_max [[H]] {dims = array<i64: 2>} : tensor<2x3x4xf16>
// CHECK-NEXT:    [[X1:%.+]] = mixprec.reduce_max [[H]] {dims = array<i64: 1>, keepdim} : tensor<2x3x4xf16>
// CHECK-NEXT:    [[X2:%.+]] = mixprec.reduce_max [[B]] {dims = array<i64: 0>} : tensor<5xbf16>
// CHECK-NEXT:    [[X3:%.+]] = mixprec.reduce_max [[B]] {dims = array<i64: 0>, keepdim} : tensor<5xbf16>
// CHECK-NEXT:    return [[S0]], [[S1]], [[S2]], [[S3]], [[M0]], [[M1]], [[M2]], [[X0]], [[X1]], [[X2]], [[X3]] : tensor<8xf32>, tensor<8x1xf32>, tensor<f32>, tensor<1x1xf32>, tensor<3xf16>, tensor<1x3x1xf16>, tensor<f16>, tensor<2x3xf16>, tensor<2x1x4xf16>, tensor<bf16>, tensor<1xbf16>

// GENERIC-LABEL: sym_name = "reductions"
// GENERIC: "mixprec.reduce_sum"(%arg{{[0-9]+}}) <{dims = array<i64: 1>}> : (tensor<8x16xf32>) -> tensor<8xf32>
// GENERIC: "mixprec.reduce_sum"(%arg{{[0-9]+}}) <{dims = array<i64: 1>, keepdim}> : (tensor<8x16xf32>) -> tensor<8x1xf32>
// GENERIC: "mixprec.reduce_sum"(%arg{{[0-9]+}}) <{dims = array<i64: 0, 1>}> : (tensor<8x16xf32>) -> tensor<f32>
func.func @reductions(%x: tensor<8x16xf32>, %h: tensor<2x3x4xf16>, %b: tensor<5xbf16>)
    -> (tensor<8xf32>, tensor<8x1xf32>, tensor<f32>, tensor<1x1xf32>, tensor<3xf16>, tensor<1x3x1xf16>, tensor<f16>,
        tensor<2x3xf16>, tensor<2x1x4xf16>, tensor<bf16>, tensor<1xbf16>) {
  %s0 = mixprec.reduce_sum %x {dims = array<i64: 1>} : tensor<8x16xf32>
  %s1 = mixprec.reduce_sum %x {dims = array<i64: 1>, keepdim} : tensor<8x16xf32>
  // All dims: a 0-d result, or all-ones with keepdim.
  %s2 = mixprec.reduce_sum %x {dims = array<i64: 0, 1>} : tensor<8x16xf32>
  %s3 = mixprec.reduce_sum %x {dims = array<i64: 0, 1>, keepdim} : tensor<8x16xf32>
  %m0 = mixprec.reduce_mean %h {dims = array<i64: 0, 2>} : tensor<2x3x4xf16>
  %m1 = mixprec.reduce_mean %h {dims = array<i64: 0, 2>, keepdim} : tensor<2x3x4xf16>
  %m2 = mixprec.reduce_mean %h {dims = array<i64: 0, 1, 2>} : tensor<2x3x4xf16>
  %x0 = mixprec.reduce_max %h {dims = array<i64: 2>} : tensor<2x3x4xf16>
  %x1 = mixprec.reduce_max %h {dims = array<i64: 1>, keepdim} : tensor<2x3x4xf16>
  %x2 = mixprec.reduce_max %b {dims = array<i64: 0>} : tensor<5xbf16>
  %x3 = mixprec.reduce_max %b {dims = array<i64: 0>, keepdim} : tensor<5xbf16>
  return %s0, %s1, %s2, %s3, %m0, %m1, %m2, %x0, %x1, %x2, %x3
      : tensor<8xf32>, tensor<8x1xf32>, tensor<f32>, tensor<1x1xf32>, tensor<3xf16>, tensor<1x3x1xf16>, tensor<f16>,
        tensor<2x3xf16>, tensor<2x1x4xf16>, tensor<bf16>, tensor<1xbf16>
}

// -----

//===----------------------------------------------------------------------===//
// transpose: result dim i is input dim permutation[i]
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @transpose(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<8x16x4x2xf16>, [[I:%[^:]+]]: tensor<3x5xi32>, [[F:%[^:]+]]: tensor<2x3x4xf32>)
// CHECK-NEXT:    [[T0:%.+]] = mixprec.transpose [[X]] {permutation = array<i64: 0, 2, 1, 3>} : tensor<8x16x4x2xf16>
// CHECK-NEXT:    [[T1:%.+]] = mixprec.transpose [[I]] {permutation = array<i64: 1, 0>} : tensor<3x5xi32>
// CHECK-NEXT:    [[T2:%.+]] = mixprec.transpose [[F]] {permutation = array<i64: 2, 0, 1>} : tensor<2x3x4xf32>
// CHECK-NEXT:    [[T3:%.+]] = mixprec.transpose [[T2]] {permutation = array<i64: 1, 2, 0>} : tensor<4x2x3xf32>
// CHECK-NEXT:    [[T4:%.+]] = mixprec.transpose [[F]] {permutation = array<i64: 0, 1, 2>} : tensor<2x3x4xf32>
// CHECK-NEXT:    return [[T0]], [[T1]], [[T2]], [[T3]], [[T4]] : tensor<8x4x16x2xf16>, tensor<5x3xi32>, tensor<4x2x3xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>

// GENERIC-LABEL: sym_name = "transpose"
// GENERIC: "mixprec.transpose"(%arg{{[0-9]+}}) <{permutation = array<i64: 0, 2, 1, 3>}> : (tensor<8x16x4x2xf16>) -> tensor<8x4x16x2xf16>
func.func @transpose(%x: tensor<8x16x4x2xf16>, %i: tensor<3x5xi32>, %f: tensor<2x3x4xf32>)
    -> (tensor<8x4x16x2xf16>, tensor<5x3xi32>, tensor<4x2x3xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %0 = mixprec.transpose %x {permutation = array<i64: 0, 2, 1, 3>} : tensor<8x16x4x2xf16>
  %1 = mixprec.transpose %i {permutation = array<i64: 1, 0>} : tensor<3x5xi32>
  %2 = mixprec.transpose %f {permutation = array<i64: 2, 0, 1>} : tensor<2x3x4xf32>
  // The inverse permutation and the identity: no folding without -canonicalize.
  %3 = mixprec.transpose %2 {permutation = array<i64: 1, 2, 0>} : tensor<4x2x3xf32>
  %4 = mixprec.transpose %f {permutation = array<i64: 0, 1, 2>} : tensor<2x3x4xf32>
  return %0, %1, %2, %3, %4 : tensor<8x4x16x2xf16>, tensor<5x3xi32>, tensor<4x2x3xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// slice: result dim i has sizes[i] elements from offsets[i], every strides[i]
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @slice(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<8x16xf32>, [[I:%[^:]+]]: tensor<10xi64>, [[H:%[^:]+]]: tensor<2x3x4xf16>)
// CHECK-NEXT:    [[S0:%.+]] = mixprec.slice [[X]] {offsets = array<i64: 0, 0>, sizes = array<i64: 8, 1>} : tensor<8x16xf32>
// CHECK-NEXT:    [[S1:%.+]] = mixprec.slice [[X]] {offsets = array<i64: 1, 2>, sizes = array<i64: 3, 4>, strides = array<i64: 2, 3>} : tensor<8x16xf32>
// CHECK-NEXT:    [[S2:%.+]] = mixprec.slice [[I]] {offsets = array<i64: 9>, sizes = array<i64: 1>} : tensor<10xi64>
// CHECK-NEXT:    [[S3:%.+]] = mixprec.slice [[I]] {offsets = array<i64: 1>, sizes = array<i64: 5>, strides = array<i64: 2>} : tensor<10xi64>
// CHECK-NEXT:    [[S4:%.+]] = mixprec.slice [[H]] {offsets = array<i64: 0, 0, 0>, sizes = array<i64: 2, 3, 4>, strides = array<i64: 1, 1, 1>} : tensor<2x3x4xf16>
// CHECK-NEXT:    return [[S0]], [[S1]], [[S2]], [[S3]], [[S4]] : tensor<8x1xf32>, tensor<3x4xf32>, tensor<1xi64>, tensor<5xi64>, tensor<2x3x4xf16>

// GENERIC-LABEL: sym_name = "slice"
// GENERIC: "mixprec.slice"(%arg{{[0-9]+}}) <{offsets = array<i64: 0, 0>, sizes = array<i64: 8, 1>}> : (tensor<8x16xf32>) -> tensor<8x1xf32>
// GENERIC: "mixprec.slice"(%arg{{[0-9]+}}) <{offsets = array<i64: 1, 2>, sizes = array<i64: 3, 4>, strides = array<i64: 2, 3>}> : (tensor<8x16xf32>) -> tensor<3x4xf32>
func.func @slice(%x: tensor<8x16xf32>, %i: tensor<10xi64>, %h: tensor<2x3x4xf16>)
    -> (tensor<8x1xf32>, tensor<3x4xf32>, tensor<1xi64>, tensor<5xi64>, tensor<2x3x4xf16>) {
  %0 = mixprec.slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: 8, 1>} : tensor<8x16xf32>
  // Reads rows 1, 3, 5 and columns 2, 5, 8, 11.
  %1 = mixprec.slice %x {offsets = array<i64: 1, 2>, sizes = array<i64: 3, 4>, strides = array<i64: 2, 3>} : tensor<8x16xf32>
  %2 = mixprec.slice %i {offsets = array<i64: 9>, sizes = array<i64: 1>} : tensor<10xi64>
  // Reads 1, 3, 5, 7, 9: the last in-range element.
  %3 = mixprec.slice %i {offsets = array<i64: 1>, sizes = array<i64: 5>, strides = array<i64: 2>} : tensor<10xi64>
  // The whole tensor (folds under -canonicalize only).
  %4 = mixprec.slice %h {offsets = array<i64: 0, 0, 0>, sizes = array<i64: 2, 3, 4>, strides = array<i64: 1, 1, 1>} : tensor<2x3x4xf16>
  return %0, %1, %2, %3, %4 : tensor<8x1xf32>, tensor<3x4xf32>, tensor<1xi64>, tensor<5xi64>, tensor<2x3x4xf16>
}

// -----

//===----------------------------------------------------------------------===//
// concat: the widest float type, f32 when f16 meets bf16
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @concat(
// CHECK-SAME:    [[A:%[^:]+]]: tensor<4x8xf16>, [[B:%[^:]+]]: tensor<4x2xf16>, [[C:%[^:]+]]: tensor<4x2xbf16>, [[D:%[^:]+]]: tensor<1x8xf32>, [[I:%[^:]+]]: tensor<3xi32>, [[J:%[^:]+]]: tensor<2xi32>)
// CHECK-NEXT:    [[C0:%.+]] = mixprec.concat [[A]], [[B]] {axis = 1 : i64} : tensor<4x8xf16>, tensor<4x2xf16>
// CHECK-NEXT:    [[C1:%.+]] = mixprec.concat [[A]], [[C]] {axis = 1 : i64} : tensor<4x8xf16>, tensor<4x2xbf16>
// CHECK-NEXT:    [[C2:%.+]] = mixprec.concat [[A]], [[D]], [[A]] {axis = 0 : i64} : tensor<4x8xf16>, tensor<1x8xf32>, tensor<4x8xf16>
// CHECK-NEXT:    [[C3:%.+]] = mixprec.concat [[C]], [[C]] {axis = 0 : i64} : tensor<4x2xbf16>, tensor<4x2xbf16>
// CHECK-NEXT:    [[C4:%.+]] = mixprec.concat [[I]], [[J]] {axis = 0 : i64} : tensor<3xi32>, tensor<2xi32>
// CHECK-NEXT:    [[C5:%.+]] = mixprec.concat [[A]] {axis = 0 : i64} : tensor<4x8xf16>
// CHECK-NEXT:    return [[C0]], [[C1]], [[C2]], [[C3]], [[C4]], [[C5]] : tensor<4x10xf16>, tensor<4x10xf32>, tensor<9x8xf32>, tensor<8x2xbf16>, tensor<5xi32>, tensor<4x8xf16>

// GENERIC-LABEL: sym_name = "concat"
// GENERIC: "mixprec.concat"(%arg{{[0-9]+}}, %arg{{[0-9]+}}) <{axis = 1 : i64}> : (tensor<4x8xf16>, tensor<4x2xbf16>) -> tensor<4x10xf32>
func.func @concat(%a: tensor<4x8xf16>, %b: tensor<4x2xf16>, %c: tensor<4x2xbf16>, %d: tensor<1x8xf32>, %i: tensor<3xi32>, %j: tensor<2xi32>)
    -> (tensor<4x10xf16>, tensor<4x10xf32>, tensor<9x8xf32>, tensor<8x2xbf16>, tensor<5xi32>, tensor<4x8xf16>) {
  %0 = mixprec.concat %a, %b {axis = 1 : i64} : tensor<4x8xf16>, tensor<4x2xf16>
  %1 = mixprec.concat %a, %c {axis = 1 : i64} : tensor<4x8xf16>, tensor<4x2xbf16>
  %2 = mixprec.concat %a, %d, %a {axis = 0 : i64} : tensor<4x8xf16>, tensor<1x8xf32>, tensor<4x8xf16>
  %3 = mixprec.concat %c, %c {axis = 0 : i64} : tensor<4x2xbf16>, tensor<4x2xbf16>
  %4 = mixprec.concat %i, %j {axis = 0 : i64} : tensor<3xi32>, tensor<2xi32>
  %5 = mixprec.concat %a {axis = 0 : i64} : tensor<4x8xf16>
  return %0, %1, %2, %3, %4, %5 : tensor<4x10xf16>, tensor<4x10xf32>, tensor<9x8xf32>, tensor<8x2xbf16>, tensor<5xi32>, tensor<4x8xf16>
}

// -----

//===----------------------------------------------------------------------===//
// Data movement: reshape, broadcast, embedding, dropout
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reshape_broadcast(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<2x3x4xf32>, [[B:%[^:]+]]: tensor<128xf32>, [[H:%[^:]+]]: tensor<1x8xf16>, [[I:%[^:]+]]: tensor<6xi32>, [[S:%[^:]+]]: tensor<bf16>)
// CHECK-NEXT:    [[R0:%.+]] = mixprec.reshape [[X]] : tensor<2x3x4xf32> -> tensor<6x4xf32>
// CHECK-NEXT:    [[R1:%.+]] = mixprec.reshape [[R0]] : tensor<6x4xf32> -> tensor<24xf32>
// CHECK-NEXT:    [[R2:%.+]] = mixprec.reshape [[I]] : tensor<6xi32> -> tensor<2x1x3xi32>
// CHECK-NEXT:    [[R3:%.+]] = mixprec.reshape [[S]] : tensor<bf16> -> tensor<1x1xbf16>
// CHECK-NEXT:    [[B0:%.+]] = mixprec.broadcast [[B]] : tensor<128xf32> -> tensor<64x128xf32>
// CHECK-NEXT:    [[B1:%.+]] = mixprec.broadcast [[H]] : tensor<1x8xf16> -> tensor<4x3x8xf16>
// CHECK-NEXT:    [[B2:%.+]] = mixprec.broadcast [[S]] : tensor<bf16> -> tensor<2x2xbf16>
// CHECK-NEXT:    return [[R1]], [[R2]], [[R3]], [[B0]], [[B1]], [[B2]]

// GENERIC-LABEL: sym_name = "reshape_broadcast"
// GENERIC: "mixprec.reshape"(%arg{{[0-9]+}}) : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// GENERIC: "mixprec.broadcast"(%arg{{[0-9]+}}) : (tensor<128xf32>) -> tensor<64x128xf32>
func.func @reshape_broadcast(%x: tensor<2x3x4xf32>, %b: tensor<128xf32>, %h: tensor<1x8xf16>, %i: tensor<6xi32>, %s: tensor<bf16>)
    -> (tensor<24xf32>, tensor<2x1x3xi32>, tensor<1x1xbf16>, tensor<64x128xf32>, tensor<4x3x8xf16>, tensor<2x2xbf16>) {
  %r0 = mixprec.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %r1 = mixprec.reshape %r0 : tensor<6x4xf32> -> tensor<24xf32>
  %r2 = mixprec.reshape %i : tensor<6xi32> -> tensor<2x1x3xi32>
  %r3 = mixprec.reshape %s : tensor<bf16> -> tensor<1x1xbf16>
  %b0 = mixprec.broadcast %b : tensor<128xf32> -> tensor<64x128xf32>
  %b1 = mixprec.broadcast %h : tensor<1x8xf16> -> tensor<4x3x8xf16>
  %b2 = mixprec.broadcast %s : tensor<bf16> -> tensor<2x2xbf16>
  return %r1, %r2, %r3, %b0, %b1, %b2 : tensor<24xf32>, tensor<2x1x3xi32>, tensor<1x1xbf16>, tensor<64x128xf32>, tensor<4x3x8xf16>, tensor<2x2xbf16>
}

// The result is indices.shape + [dim], in the table's type.
// CHECK-LABEL: func.func @embedding(
// CHECK-SAME:    [[T:%[^:]+]]: tensor<100x64xf32>, [[I:%[^:]+]]: tensor<8x16xi32>, [[TH:%[^:]+]]: tensor<50x8xf16>, [[J:%[^:]+]]: tensor<5xi64>, [[K:%[^:]+]]: tensor<i32>)
// CHECK-NEXT:    [[E0:%.+]] = mixprec.embedding [[T]], [[I]] : tensor<100x64xf32>, tensor<8x16xi32>
// CHECK-NEXT:    [[E1:%.+]] = mixprec.embedding [[TH]], [[J]] : tensor<50x8xf16>, tensor<5xi64>
// CHECK-NEXT:    [[E2:%.+]] = mixprec.embedding [[TH]], [[K]] : tensor<50x8xf16>, tensor<i32>
// CHECK-NEXT:    return [[E0]], [[E1]], [[E2]] : tensor<8x16x64xf32>, tensor<5x8xf16>, tensor<8xf16>

// GENERIC-LABEL: sym_name = "embedding"
// GENERIC: "mixprec.embedding"(%arg{{[0-9]+}}, %arg{{[0-9]+}}) : (tensor<100x64xf32>, tensor<8x16xi32>) -> tensor<8x16x64xf32>
func.func @embedding(%t: tensor<100x64xf32>, %i: tensor<8x16xi32>, %th: tensor<50x8xf16>, %j: tensor<5xi64>, %k: tensor<i32>)
    -> (tensor<8x16x64xf32>, tensor<5x8xf16>, tensor<8xf16>) {
  %0 = mixprec.embedding %t, %i : tensor<100x64xf32>, tensor<8x16xi32>
  %1 = mixprec.embedding %th, %j : tensor<50x8xf16>, tensor<5xi64>
  %2 = mixprec.embedding %th, %k : tensor<50x8xf16>, tensor<i32>
  return %0, %1, %2 : tensor<8x16x64xf32>, tensor<5x8xf16>, tensor<8xf16>
}

// CHECK-LABEL: func.func @dropout(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<8x16x64xf16>, [[RNG:%[^:]+]]: tensor<2xi64>, [[F:%[^:]+]]: tensor<4xf32>)
// CHECK-NEXT:    [[D0:%.+]] = mixprec.dropout [[X]], [[RNG]] {p = 1.000000e-01 : f64, stream = 1 : i64} : tensor<8x16x64xf16>
// CHECK-NEXT:    [[D1:%.+]] = mixprec.dropout [[F]], [[RNG]] {p = 5.000000e-01 : f64} : tensor<4xf32>
// CHECK-NEXT:    [[D2:%.+]] = mixprec.dropout [[F]], [[RNG]] {p = 0.000000e+00 : f64, stream = 2 : i64, training = false} : tensor<4xf32>
// CHECK-NEXT:    return [[D0]], [[D1]], [[D2]]

// GENERIC-LABEL: sym_name = "dropout"
// GENERIC: "mixprec.dropout"(%arg{{[0-9]+}}, %arg{{[0-9]+}}) <{p = 1.000000e-01 : f64, stream = 1 : i64, training = true}> : (tensor<8x16x64xf16>, tensor<2xi64>) -> tensor<8x16x64xf16>
func.func @dropout(%x: tensor<8x16x64xf16>, %rng: tensor<2xi64>, %f: tensor<4xf32>)
    -> (tensor<8x16x64xf16>, tensor<4xf32>, tensor<4xf32>) {
  %0 = mixprec.dropout %x, %rng {p = 0.1 : f64, stream = 1 : i64} : tensor<8x16x64xf16>
  // stream 0 and training = true are the defaults.
  %1 = mixprec.dropout %f, %rng {p = 0.5 : f64, stream = 0 : i64, training = true} : tensor<4xf32>
  %2 = mixprec.dropout %f, %rng {p = 0.0 : f64, stream = 2 : i64, training = false} : tensor<4xf32>
  return %0, %1, %2 : tensor<8x16x64xf16>, tensor<4xf32>, tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Pooling: (in + 2 * pad - kernel) / stride + 1 per spatial dim
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @pooling(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<32x8x8x8xf32>, [[Y:%[^:]+]]: tensor<1x3x7x8xf16>, [[Z:%[^:]+]]: tensor<2x4x5x5xbf16>)
// CHECK-NEXT:    [[P0:%.+]] = mixprec.max_pool2d [[X]] {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<32x8x8x8xf32>
// CHECK-NEXT:    [[P1:%.+]] = mixprec.max_pool2d [[Y]] {kernel = array<i64: 3, 2>, stride = array<i64: 2, 3>} : tensor<1x3x7x8xf16>
// CHECK-NEXT:    [[P2:%.+]] = mixprec.max_pool2d [[X]] {kernel = array<i64: 2, 2>, padding = array<i64: 1, 0>, stride = array<i64: 2, 2>} : tensor<32x8x8x8xf32>
// CHECK-NEXT:    [[P3:%.+]] = mixprec.max_pool2d [[Y]] {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : tensor<1x3x7x8xf16>
// CHECK-NEXT:    [[P4:%.+]] = mixprec.avg_pool2d [[X]] {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<32x8x8x8xf32>
// CHECK-NEXT:    [[P5:%.+]] = mixprec.avg_pool2d [[Y]] {kernel = array<i64: 7, 8>, stride = array<i64: 1, 1>} : tensor<1x3x7x8xf16>
// CHECK-NEXT:    [[P6:%.+]] = mixprec.avg_pool2d [[X]] {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : tensor<32x8x8x8xf32>
// CHECK-NEXT:    [[P7:%.+]] = mixprec.avg_pool2d [[Y]] {kernel = array<i64: 3, 2>, padding = array<i64: 1, 1>, stride = array<i64: 2, 1>} : tensor<1x3x7x8xf16>
// CHECK-NEXT:    [[P8:%.+]] = mixprec.avg_pool2d [[Z]] {kernel = array<i64: 5, 4>, padding = array<i64: 0, 2>, stride = array<i64: 3, 2>} : tensor<2x4x5x5xbf16>
// CHECK-NEXT:    return [[P0]], [[P1]], [[P2]], [[P3]], [[P4]], [[P5]], [[P6]], [[P7]], [[P8]] : tensor<32x8x4x4xf32>, tensor<1x3x3x3xf16>, tensor<32x8x5x4xf32>, tensor<1x3x4x4xf16>, tensor<32x8x4x4xf32>, tensor<1x3x1x1xf16>, tensor<32x8x8x8xf32>, tensor<1x3x4x9xf16>, tensor<2x4x1x3xbf16>

// GENERIC-LABEL: sym_name = "pooling"
// GENERIC: "mixprec.max_pool2d"(%arg{{[0-9]+}}) <{kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>}> : (tensor<32x8x8x8xf32>) -> tensor<32x8x4x4xf32>
// GENERIC: "mixprec.max_pool2d"(%arg{{[0-9]+}}) <{kernel = array<i64: 2, 2>, padding = array<i64: 1, 0>, stride = array<i64: 2, 2>}> : (tensor<32x8x8x8xf32>) -> tensor<32x8x5x4xf32>
// GENERIC: "mixprec.avg_pool2d"(%arg{{[0-9]+}}) <{kernel = array<i64: 3, 2>, padding = array<i64: 1, 1>, stride = array<i64: 2, 1>}> : (tensor<1x3x7x8xf16>) -> tensor<1x3x4x9xf16>
func.func @pooling(%x: tensor<32x8x8x8xf32>, %y: tensor<1x3x7x8xf16>, %z: tensor<2x4x5x5xbf16>)
    -> (tensor<32x8x4x4xf32>, tensor<1x3x3x3xf16>, tensor<32x8x5x4xf32>, tensor<1x3x4x4xf16>,
        tensor<32x8x4x4xf32>, tensor<1x3x1x1xf16>, tensor<32x8x8x8xf32>, tensor<1x3x4x9xf16>, tensor<2x4x1x3xbf16>) {
  // Default padding (0, 0).
  %0 = mixprec.max_pool2d %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<32x8x8x8xf32>
  // H: (7 - 3) / 2 + 1 = 3; W: (8 - 2) / 3 + 1 = 3.
  %1 = mixprec.max_pool2d %y {kernel = array<i64: 3, 2>, stride = array<i64: 2, 3>} : tensor<1x3x7x8xf16>
  // H: (8 + 2 - 2) / 2 + 1 = 5; W: (8 + 0 - 2) / 2 + 1 = 4.
  %2 = mixprec.max_pool2d %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 1, 0>} : tensor<32x8x8x8xf32>
  // H: (7 + 2 - 3) / 2 + 1 = 4; W: (8 + 2 - 3) / 2 + 1 = 4.
  %3 = mixprec.max_pool2d %y {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>} : tensor<1x3x7x8xf16>
  // An explicit padding = [0, 0] is the default and is elided.
  %4 = mixprec.avg_pool2d %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>} : tensor<32x8x8x8xf32>
  // A kernel as large as the input: global pooling.
  %5 = mixprec.avg_pool2d %y {kernel = array<i64: 7, 8>, stride = array<i64: 1, 1>} : tensor<1x3x7x8xf16>
  // (8 + 2 - 3) / 1 + 1 = 8: same size.
  %6 = mixprec.avg_pool2d %x {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>} : tensor<32x8x8x8xf32>
  // H: (7 + 2 - 3) / 2 + 1 = 4; W: (8 + 2 - 2) / 1 + 1 = 9.
  %7 = mixprec.avg_pool2d %y {kernel = array<i64: 3, 2>, stride = array<i64: 2, 1>, padding = array<i64: 1, 1>} : tensor<1x3x7x8xf16>
  // H: (5 - 5) / 3 + 1 = 1; W: (5 + 4 - 4) / 2 + 1 = 3 (padding = kernel / 2).
  %8 = mixprec.avg_pool2d %z {kernel = array<i64: 5, 4>, stride = array<i64: 3, 2>, padding = array<i64: 0, 2>} : tensor<2x4x5x5xbf16>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8
      : tensor<32x8x4x4xf32>, tensor<1x3x3x3xf16>, tensor<32x8x5x4xf32>, tensor<1x3x4x4xf16>,
        tensor<32x8x4x4xf32>, tensor<1x3x1x1xf16>, tensor<32x8x8x8xf32>, tensor<1x3x4x9xf16>, tensor<2x4x1x3xbf16>
}

// -----

//===----------------------------------------------------------------------===//
// constant and cast
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @constant()
// CHECK-NEXT:    [[C0:%.+]] = mixprec.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-NEXT:    [[C1:%.+]] = mixprec.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf16>
// CHECK-NEXT:    [[C2:%.+]] = mixprec.constant dense<-2.500000e-01> : tensor<bf16>
// CHECK-NEXT:    [[C3:%.+]] = mixprec.constant dense<[0, 3, 7]> : tensor<3xi32>
// CHECK-NEXT:    [[C4:%.+]] = mixprec.constant dense<42> : tensor<i64>
// CHECK-NEXT:    [[C5:%.+]] = mixprec.constant dense<[true, false]> : tensor<2xi1>
// CHECK-NEXT:    return [[C0]], [[C1]], [[C2]], [[C3]], [[C4]], [[C5]]

// GENERIC-LABEL: sym_name = "constant"
// GENERIC: "mixprec.constant"() <{value = dense<1.000000e+00> : tensor<4xf32>}> : () -> tensor<4xf32>
// GENERIC: "mixprec.constant"() <{value = dense<[0, 3, 7]> : tensor<3xi32>}> : () -> tensor<3xi32>
func.func @constant() -> (tensor<4xf32>, tensor<2x2xf16>, tensor<bf16>, tensor<3xi32>, tensor<i64>, tensor<2xi1>) {
  %0 = mixprec.constant dense<1.0> : tensor<4xf32>
  %1 = mixprec.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf16>
  %2 = mixprec.constant dense<-0.25> : tensor<bf16>
  %3 = mixprec.constant dense<[0, 3, 7]> : tensor<3xi32>
  %4 = mixprec.constant dense<42> : tensor<i64>
  %5 = mixprec.constant dense<[true, false]> : tensor<2xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<2x2xf16>, tensor<bf16>, tensor<3xi32>, tensor<i64>, tensor<2xi1>
}

// CHECK-LABEL: func.func @cast(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<64x64xf32>, [[I:%[^:]+]]: tensor<8xi32>, [[H:%[^:]+]]: tensor<3xf16>, [[L:%[^:]+]]: tensor<i64>)
// CHECK-NEXT:    [[H0:%.+]] = mixprec.cast [[X]] : tensor<64x64xf32> to tensor<64x64xf16>
// CHECK-NEXT:    [[B0:%.+]] = mixprec.cast [[X]] : tensor<64x64xf32> to tensor<64x64xbf16>
// CHECK-NEXT:    [[F0:%.+]] = mixprec.cast [[I]] : tensor<8xi32> to tensor<8xf32>
// CHECK-NEXT:    [[F1:%.+]] = mixprec.cast [[H]] : tensor<3xf16> to tensor<3xf32>
// CHECK-NEXT:    [[B1:%.+]] = mixprec.cast [[H]] : tensor<3xf16> to tensor<3xbf16>
// CHECK-NEXT:    [[F2:%.+]] = mixprec.cast [[L]] : tensor<i64> to tensor<f16>
// CHECK-NEXT:    return [[H0]], [[B0]], [[F0]], [[F1]], [[B1]], [[F2]]

// GENERIC-LABEL: sym_name = "cast"
// GENERIC: "mixprec.cast"(%arg{{[0-9]+}}) : (tensor<64x64xf32>) -> tensor<64x64xf16>
// GENERIC: "mixprec.cast"(%arg{{[0-9]+}}) : (tensor<8xi32>) -> tensor<8xf32>
func.func @cast(%x: tensor<64x64xf32>, %i: tensor<8xi32>, %h: tensor<3xf16>, %l: tensor<i64>)
    -> (tensor<64x64xf16>, tensor<64x64xbf16>, tensor<8xf32>, tensor<3xf32>, tensor<3xbf16>, tensor<f16>) {
  %0 = mixprec.cast %x : tensor<64x64xf32> to tensor<64x64xf16>
  %1 = mixprec.cast %x : tensor<64x64xf32> to tensor<64x64xbf16>
  %2 = mixprec.cast %i : tensor<8xi32> to tensor<8xf32>
  %3 = mixprec.cast %h : tensor<3xf16> to tensor<3xf32>
  %4 = mixprec.cast %h : tensor<3xf16> to tensor<3xbf16>
  %5 = mixprec.cast %l : tensor<i64> to tensor<f16>
  return %0, %1, %2, %3, %4, %5 : tensor<64x64xf16>, tensor<64x64xbf16>, tensor<8xf32>, tensor<3xf32>, tensor<3xbf16>, tensor<f16>
}

// -----

//===----------------------------------------------------------------------===//
// Losses: the result is a 0-d tensor of the input's float type
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @losses(
// CHECK-SAME:    [[LOGITS:%[^:]+]]: tensor<64x10xf32>, [[LABELS:%[^:]+]]: tensor<64xi32>, [[LH:%[^:]+]]: tensor<4x3xf16>, [[LAB64:%[^:]+]]: tensor<4xi64>, [[P:%[^:]+]]: tensor<64x1xf32>, [[T:%[^:]+]]: tensor<64x1xf32>, [[PB:%[^:]+]]: tensor<8xbf16>)
// CHECK-NEXT:    [[CE0:%.+]] = mixprec.softmax_cross_entropy [[LOGITS]], [[LABELS]] : tensor<64x10xf32>, tensor<64xi32>
// CHECK-NEXT:    [[CE1:%.+]] = mixprec.softmax_cross_entropy [[LOGITS]], [[LABELS]] : tensor<64x10xf32>, tensor<64xi32>
// CHECK-NEXT:    [[CE2:%.+]] = mixprec.softmax_cross_entropy [[LH]], [[LAB64]] {reduction = #mixprec<reduction sum>} : tensor<4x3xf16>, tensor<4xi64>
// CHECK-NEXT:    [[MSE0:%.+]] = mixprec.mse [[P]], [[T]] : tensor<64x1xf32>, tensor<64x1xf32>
// CHECK-NEXT:    [[MSE1:%.+]] = mixprec.mse [[PB]], [[PB]] {reduction = #mixprec<reduction sum>} : tensor<8xbf16>, tensor<8xbf16>
// CHECK-NEXT:    return [[CE0]], [[CE1]], [[CE2]], [[MSE0]], [[MSE1]] : tensor<f32>, tensor<f32>, tensor<f16>, tensor<f32>, tensor<bf16>

// GENERIC-LABEL: sym_name = "losses"
// GENERIC: "mixprec.softmax_cross_entropy"(%arg{{[0-9]+}}, %arg{{[0-9]+}}) <{reduction = #mixprec<reduction mean>}> : (tensor<64x10xf32>, tensor<64xi32>) -> tensor<f32>
// GENERIC: "mixprec.softmax_cross_entropy"(%arg{{[0-9]+}}, %arg{{[0-9]+}}) <{reduction = #mixprec<reduction sum>}> : (tensor<4x3xf16>, tensor<4xi64>) -> tensor<f16>
// GENERIC: "mixprec.mse"(%arg{{[0-9]+}}, %arg{{[0-9]+}}) <{reduction = #mixprec<reduction mean>}> : (tensor<64x1xf32>, tensor<64x1xf32>) -> tensor<f32>
func.func @losses(%logits: tensor<64x10xf32>, %labels: tensor<64xi32>, %lh: tensor<4x3xf16>, %lab64: tensor<4xi64>,
                  %p: tensor<64x1xf32>, %t: tensor<64x1xf32>, %pb: tensor<8xbf16>)
    -> (tensor<f32>, tensor<f32>, tensor<f16>, tensor<f32>, tensor<bf16>) {
  %0 = mixprec.softmax_cross_entropy %logits, %labels : tensor<64x10xf32>, tensor<64xi32>
  // mean is the default and is elided.
  %1 = mixprec.softmax_cross_entropy %logits, %labels {reduction = #mixprec<reduction mean>} : tensor<64x10xf32>, tensor<64xi32>
  %2 = mixprec.softmax_cross_entropy %lh, %lab64 {reduction = #mixprec<reduction sum>} : tensor<4x3xf16>, tensor<4xi64>
  %3 = mixprec.mse %p, %t : tensor<64x1xf32>, tensor<64x1xf32>
  %4 = mixprec.mse %pb, %pb {reduction = #mixprec<reduction sum>} : tensor<8xbf16>, tensor<8xbf16>
  return %0, %1, %2, %3, %4 : tensor<f32>, tensor<f32>, tensor<f16>, tensor<f32>, tensor<bf16>
}

// -----

//===----------------------------------------------------------------------===//
// Training ops: all_finite, loss_scale_update, sgd_update, adam_update
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @all_finite(
// CHECK-SAME:    [[G0:%[^:]+]]: tensor<128x64xf16>, [[G1:%[^:]+]]: tensor<128xf32>, [[G2:%[^:]+]]: tensor<2x2xbf16>)
// CHECK-NEXT:    [[OK0:%[^,]+]], [[EACH:%.+]] = mixprec.all_finite [[G0]], [[G1]], [[G2]] : tensor<128x64xf16>, tensor<128xf32>, tensor<2x2xbf16>
// CHECK-NEXT:    [[OK1:%[^,]+]], {{%.+}} = mixprec.all_finite [[G1]] : tensor<128xf32>
// CHECK-NEXT:    return [[OK0]], [[OK1]], [[EACH]] : tensor<i1>, tensor<i1>, tensor<3xi1>

// GENERIC-LABEL: sym_name = "all_finite"
// GENERIC: "mixprec.all_finite"(%arg{{[0-9]+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}) : (tensor<128x64xf16>, tensor<128xf32>, tensor<2x2xbf16>) -> (tensor<i1>, tensor<3xi1>)
func.func @all_finite(%g0: tensor<128x64xf16>, %g1: tensor<128xf32>, %g2: tensor<2x2xbf16>) -> (tensor<i1>, tensor<i1>, tensor<3xi1>) {
  %0, %each = mixprec.all_finite %g0, %g1, %g2 : tensor<128x64xf16>, tensor<128xf32>, tensor<2x2xbf16>
  %1, %each1 = mixprec.all_finite %g1 : tensor<128xf32>
  return %0, %1, %each : tensor<i1>, tensor<i1>, tensor<3xi1>
}

// CHECK-LABEL: func.func @select(
// CHECK-SAME:    [[C:%[^:]+]]: tensor<i1>, [[A:%[^:]+]]: tensor<4x3xf32>, [[B:%[^:]+]]: tensor<4x3xf32>, [[N:%[^:]+]]: tensor<i64>)
// CHECK-NEXT:    [[R:%.+]] = mixprec.select [[C]], [[A]], [[B]] : tensor<4x3xf32>
// CHECK-NEXT:    [[RN:%.+]] = mixprec.select [[C]], [[N]], [[N]] : tensor<i64>
// CHECK-NEXT:    return [[R]], [[RN]]

// GENERIC-LABEL: sym_name = "select"
// GENERIC: "mixprec.select"(%arg{{[0-9]+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}) : (tensor<i1>, tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
func.func @select(%c: tensor<i1>, %a: tensor<4x3xf32>, %b: tensor<4x3xf32>, %n: tensor<i64>) -> (tensor<4x3xf32>, tensor<i64>) {
  %r = mixprec.select %c, %a, %b : tensor<4x3xf32>
  %rn = mixprec.select %c, %n, %n : tensor<i64>
  return %r, %rn : tensor<4x3xf32>, tensor<i64>
}

// loss_scale_update has no types in its custom form: they are fixed.
// CHECK-LABEL: func.func @loss_scale_update(
// CHECK-SAME:    [[S:%[^:]+]]: tensor<f32>, [[T:%[^:]+]]: tensor<i32>, [[H:%[^:]+]]: tensor<i32>, [[OK:%[^:]+]]: tensor<i1>)
// CHECK-NEXT:    [[S0:%[^,]+]], [[T0:%[^,]+]], [[H0:%[^ ]+]] = mixprec.loss_scale_update [[S]], [[T]], [[H]], [[OK]]{{$}}
// CHECK-NEXT:    [[S1:%[^,]+]], [[T1:%[^,]+]], [[H1:%[^ ]+]] = mixprec.loss_scale_update [[S0]], [[T0]], [[H0]], [[OK]] {backoff_factor = 2.500000e-01 : f64, growth_factor = 4.000000e+00 : f64, growth_interval = 1000 : i64, hysteresis = 2 : i64, max_scale = 6.553600e+04 : f64, min_scale = 1.250000e-01 : f64}{{$}}
// CHECK-NEXT:    return [[S1]], [[T1]], [[H1]] : tensor<f32>, tensor<i32>, tensor<i32>

// GENERIC-LABEL: sym_name = "loss_scale_update"
// GENERIC: "mixprec.loss_scale_update"(%arg{{[0-9]+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}) <{backoff_factor = 5.000000e-01 : f64, growth_factor = 2.000000e+00 : f64, growth_interval = 2000 : i64, hysteresis = 1 : i64, max_scale = 0x4170000000000000 : f64, min_scale = 1.000000e+00 : f64}> : (tensor<f32>, tensor<i32>, tensor<i32>, tensor<i1>) -> (tensor<f32>, tensor<i32>, tensor<i32>)
func.func @loss_scale_update(%s: tensor<f32>, %t: tensor<i32>, %h: tensor<i32>, %ok: tensor<i1>) -> (tensor<f32>, tensor<i32>, tensor<i32>) {
  // Explicit defaults are elided.
  %s0, %t0, %h0 = mixprec.loss_scale_update %s, %t, %h, %ok {growth_interval = 2000 : i64, max_scale = 16777216.0 : f64}
  %s1, %t1, %h1 = mixprec.loss_scale_update %s0, %t0, %h0, %ok {growth_factor = 4.0 : f64, backoff_factor = 0.25 : f64, growth_interval = 1000 : i64, hysteresis = 2 : i64, min_scale = 0.125 : f64, max_scale = 65536.0 : f64}
  return %s1, %t1, %h1 : tensor<f32>, tensor<i32>, tensor<i32>
}

// CHECK-LABEL: func.func @sgd_update(
// CHECK-SAME:    [[W:%[^:]+]]: tensor<128x64xf32>, [[G:%[^:]+]]: tensor<128x64xf32>, [[LR:%[^:]+]]: tensor<f32>, [[BUF:%[^:]+]]: tensor<128x64xf32>, [[WH:%[^:]+]]: tensor<8xf16>, [[GH:%[^:]+]]: tensor<8xf16>, [[BH:%[^:]+]]: tensor<8xf32>, [[STEP:%[^:]+]]: tensor<i64>)
// CHECK-NEXT:    [[W0:%.+]] = mixprec.sgd_update [[W]], [[G]], [[LR]] {optimizer = #mixprec.sgd<>} : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>) -> tensor<128x64xf32>
// CHECK-NEXT:    [[W1:%.+]] = mixprec.sgd_update [[W0]], [[G]], [[LR]] {optimizer = #mixprec.sgd<weight_decay = 1.000000e-04>} : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>) -> tensor<128x64xf32>
// CHECK-NEXT:    [[W2:%[^,]+]], [[B2:%[^ ]+]] = mixprec.sgd_update [[W1]], [[G]], [[LR]], [[BUF]] {optimizer = #mixprec.sgd<momentum = 9.000000e-01>} : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>, tensor<128x64xf32>) -> (tensor<128x64xf32>, tensor<128x64xf32>)
// CHECK-NEXT:    [[W3:%[^,]+]], [[B3:%[^ ]+]] = mixprec.sgd_update [[W2]], [[G]], [[LR]], [[B2]] {optimizer = #mixprec.sgd<momentum = 9.000000e-01, nesterov = true, weight_decay = 5.000000e-04>} : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>, tensor<128x64xf32>) -> (tensor<128x64xf32>, tensor<128x64xf32>)
// CHECK-NEXT:    [[W4:%[^,]+]], [[B4:%[^ ]+]] = mixprec.sgd_update [[WH]], [[GH]], [[LR]], [[BH]] step [[STEP]] {optimizer = #mixprec.sgd<momentum = 5.000000e-01, dampening = 1.000000e-01>} : (tensor<8xf16>, tensor<8xf16>, tensor<f32>, tensor<8xf32>, tensor<i64>) -> (tensor<8xf16>, tensor<8xf32>)
// CHECK-NEXT:    return [[W3]], [[B3]], [[W4]], [[B4]]

// GENERIC-LABEL: sym_name = "sgd_update"
// GENERIC: "mixprec.sgd_update"(%arg{{[0-9]+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>, optimizer = #mixprec.sgd<>}> : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>) -> tensor<128x64xf32>
// GENERIC: "mixprec.sgd_update"(%{{.+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>, optimizer = #mixprec.sgd<momentum = 9.000000e-01>}> : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>, tensor<128x64xf32>) -> (tensor<128x64xf32>, tensor<128x64xf32>)
// GENERIC: "mixprec.sgd_update"(%arg{{[0-9]+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>, optimizer = #mixprec.sgd<momentum = 5.000000e-01, dampening = 1.000000e-01>}> : (tensor<8xf16>, tensor<8xf16>, tensor<f32>, tensor<8xf32>, tensor<i64>) -> (tensor<8xf16>, tensor<8xf32>)
func.func @sgd_update(%w: tensor<128x64xf32>, %g: tensor<128x64xf32>, %lr: tensor<f32>, %buf: tensor<128x64xf32>,
                      %wh: tensor<8xf16>, %gh: tensor<8xf16>, %bh: tensor<8xf32>, %step: tensor<i64>)
    -> (tensor<128x64xf32>, tensor<128x64xf32>, tensor<8xf16>, tensor<8xf32>) {
  // Without momentum buffer.
  %w0 = mixprec.sgd_update %w, %g, %lr {optimizer = #mixprec.sgd<>} : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>) -> tensor<128x64xf32>
  %w1 = mixprec.sgd_update %w0, %g, %lr {optimizer = #mixprec.sgd<weight_decay = 1.0e-4>} : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>) -> tensor<128x64xf32>
  // With momentum buffer.
  %w2, %b2 = mixprec.sgd_update %w1, %g, %lr, %buf {optimizer = #mixprec.sgd<momentum = 0.9>} : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>, tensor<128x64xf32>) -> (tensor<128x64xf32>, tensor<128x64xf32>)
  // Hyper-parameters equal to their default (dampening = 0) are elided.
  %w3, %b3 = mixprec.sgd_update %w2, %g, %lr, %b2 {optimizer = #mixprec.sgd<momentum = 0.9, dampening = 0.0, nesterov = true, weight_decay = 5.0e-4>} : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>, tensor<128x64xf32>) -> (tensor<128x64xf32>, tensor<128x64xf32>)
  // A 16-bit parameter with its f32 momentum buffer; with dampening, the
  // step count (the first step sets the buffer to the undamped gradient).
  %w4, %b4 = mixprec.sgd_update %wh, %gh, %lr, %bh step %step {optimizer = #mixprec.sgd<dampening = 0.1, momentum = 0.5>} : (tensor<8xf16>, tensor<8xf16>, tensor<f32>, tensor<8xf32>, tensor<i64>) -> (tensor<8xf16>, tensor<8xf32>)
  return %w3, %b3, %w4, %b4 : tensor<128x64xf32>, tensor<128x64xf32>, tensor<8xf16>, tensor<8xf32>
}

// CHECK-LABEL: func.func @adam_update(
// CHECK-SAME:    [[W:%[^:]+]]: tensor<128x64xf32>, [[G:%[^:]+]]: tensor<128x64xf32>, [[M:%[^:]+]]: tensor<128x64xf32>, [[V:%[^:]+]]: tensor<128x64xf32>, [[LR:%[^:]+]]: tensor<f32>, [[STEP:%[^:]+]]: tensor<i64>, [[WB:%[^:]+]]: tensor<16xbf16>, [[GB:%[^:]+]]: tensor<16xbf16>, [[MB:%[^:]+]]: tensor<16xf32>, [[VB:%[^:]+]]: tensor<16xf32>)
// CHECK-NEXT:    [[W0:%[^,]+]], [[M0:%[^,]+]], [[V0:%[^ ]+]] = mixprec.adam_update [[W]], [[G]], [[M]], [[V]], [[LR]], [[STEP]] {optimizer = #mixprec.adam<>} : tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>
// CHECK-NEXT:    [[W1:%[^,]+]], [[M1:%[^,]+]], [[V1:%[^ ]+]] = mixprec.adam_update [[W0]], [[G]], [[M0]], [[V0]], [[LR]], [[STEP]] {optimizer = #mixprec.adamw<>} : tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>
// CHECK-NEXT:    [[W2:%[^,]+]], [[M2:%[^,]+]], [[V2:%[^ ]+]] = mixprec.adam_update [[WB]], [[GB]], [[MB]], [[VB]], [[LR]], [[STEP]] {optimizer = #mixprec.adam<beta1 = 8.000000e-01, beta2 = 0.98999999999999999, eps = 9.9999999999999995E-7, weight_decay = 1.000000e-01>} : tensor<16xbf16>, tensor<16xbf16>, tensor<16xf32>
// CHECK-NEXT:    return [[W1]], [[M1]], [[V1]], [[W2]], [[M2]], [[V2]] : tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<16xbf16>, tensor<16xf32>, tensor<16xf32>

// GENERIC-LABEL: sym_name = "adam_update"
// GENERIC: "mixprec.adam_update"(%arg{{[0-9]+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}) <{optimizer = #mixprec.adam<>}> : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>, tensor<i64>) -> (tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>)
func.func @adam_update(%w: tensor<128x64xf32>, %g: tensor<128x64xf32>, %m: tensor<128x64xf32>, %v: tensor<128x64xf32>,
                       %lr: tensor<f32>, %step: tensor<i64>,
                       %wb: tensor<16xbf16>, %gb: tensor<16xbf16>, %mb: tensor<16xf32>, %vb: tensor<16xf32>)
    -> (tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<16xbf16>, tensor<16xf32>, tensor<16xf32>) {
  %w0, %m0, %v0 = mixprec.adam_update %w, %g, %m, %v, %lr, %step {optimizer = #mixprec.adam<>} : tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>
  // AdamW, its default decay written out.
  %w1, %m1, %v1 = mixprec.adam_update %w0, %g, %m0, %v0, %lr, %step {optimizer = #mixprec.adamw<weight_decay = 1.0e-2>} : tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>
  // A bf16 parameter with f32 moments; non-default hyper-parameters
  // (decay_norm_and_bias = false is the default and is elided).
  %w2, %m2, %v2 = mixprec.adam_update %wb, %gb, %mb, %vb, %lr, %step {optimizer = #mixprec.adam<beta1 = 0.8, beta2 = 0.99, eps = 1.0e-6, weight_decay = 0.1, decay_norm_and_bias = false>} : tensor<16xbf16>, tensor<16xbf16>, tensor<16xf32>
  return %w1, %m1, %v1, %w2, %m2, %v2 : tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<16xbf16>, tensor<16xf32>, tensor<16xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Backward ops: every float operand and result has one element type
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @activation_grads(
// CHECK-SAME:    [[G:%[^:]+]]: tensor<16x256xf16>, [[X:%[^:]+]]: tensor<16x256xf16>, [[GB:%[^:]+]]: tensor<4xbf16>, [[XB:%[^:]+]]: tensor<4xbf16>)
// CHECK-NEXT:    [[R:%.+]] = mixprec.relu_grad [[G]], [[X]] : tensor<16x256xf16>
// CHECK-NEXT:    [[RB:%.+]] = mixprec.relu_grad [[GB]], [[XB]] : tensor<4xbf16>
// CHECK-NEXT:    [[GE:%.+]] = mixprec.gelu_grad [[R]], [[X]] : tensor<16x256xf16>
// CHECK-NEXT:    [[GE2:%.+]] = mixprec.gelu_grad [[GE]], [[X]] : tensor<16x256xf16>
// CHECK-NEXT:    [[GT:%.+]] = mixprec.gelu_grad [[GE2]], [[X]] {approximate = #mixprec<gelu_approximation tanh>} : tensor<16x256xf16>
// CHECK-NEXT:    return [[GT]], [[RB]] : tensor<16x256xf16>, tensor<4xbf16>

// GENERIC-LABEL: sym_name = "activation_grads"
// GENERIC: "mixprec.relu_grad"(%arg{{[0-9]+}}, %arg{{[0-9]+}}) : (tensor<16x256xf16>, tensor<16x256xf16>) -> tensor<16x256xf16>
// GENERIC: "mixprec.gelu_grad"(%{{.+}}, %arg{{[0-9]+}}) <{approximate = #mixprec<gelu_approximation erf>}> : (tensor<16x256xf16>, tensor<16x256xf16>) -> tensor<16x256xf16>
// GENERIC: "mixprec.gelu_grad"(%{{.+}}, %arg{{[0-9]+}}) <{approximate = #mixprec<gelu_approximation tanh>}> : (tensor<16x256xf16>, tensor<16x256xf16>) -> tensor<16x256xf16>
func.func @activation_grads(%g: tensor<16x256xf16>, %x: tensor<16x256xf16>, %gb: tensor<4xbf16>, %xb: tensor<4xbf16>)
    -> (tensor<16x256xf16>, tensor<4xbf16>) {
  %r = mixprec.relu_grad %g, %x : tensor<16x256xf16>
  %rb = mixprec.relu_grad %gb, %xb : tensor<4xbf16>
  // erf is the default and is elided.
  %ge = mixprec.gelu_grad %r, %x : tensor<16x256xf16>
  %ge2 = mixprec.gelu_grad %ge, %x {approximate = #mixprec<gelu_approximation erf>} : tensor<16x256xf16>
  %gt = mixprec.gelu_grad %ge2, %x {approximate = #mixprec<gelu_approximation tanh>} : tensor<16x256xf16>
  return %gt, %rb : tensor<16x256xf16>, tensor<4xbf16>
}

// -----

// CHECK-LABEL: func.func @max_grads(
// CHECK-SAME:    [[G:%[^:]+]]: tensor<4x8xf16>, [[A:%[^:]+]]: tensor<4x8xf16>, [[B:%[^:]+]]: tensor<4x8xf16>, [[GK:%[^:]+]]: tensor<4x1xf32>, [[X:%[^:]+]]: tensor<4x8xf32>, [[MK:%[^:]+]]: tensor<4x1xf32>, [[GS:%[^:]+]]: tensor<bf16>, [[XS:%[^:]+]]: tensor<2x3xbf16>, [[MS:%[^:]+]]: tensor<bf16>)
// CHECK-NEXT:    [[DA:%[^,]+]], [[DB:%[^ ]+]] = mixprec.maximum_grad [[G]], [[A]], [[B]] : tensor<4x8xf16>
// CHECK-NEXT:    [[DA2:%[^,]+]], [[DB2:%[^ ]+]] = mixprec.minimum_grad [[DA]], [[DB]], [[B]] : tensor<4x8xf16>
// CHECK-NEXT:    [[DX:%.+]] = mixprec.reduce_max_grad [[GK]], [[X]], [[MK]] {dims = array<i64: 1>, keepdim} : tensor<4x1xf32>, tensor<4x8xf32>
// CHECK-NEXT:    [[DXS:%.+]] = mixprec.reduce_max_grad [[GS]], [[XS]], [[MS]] {dims = array<i64: 0, 1>} : tensor<bf16>, tensor<2x3xbf16>
// CHECK-NEXT:    return [[DA2]], [[DB2]], [[DX]], [[DXS]]

// GENERIC-LABEL: sym_name = "max_grads"
// GENERIC: "mixprec.maximum_grad"(%arg{{[0-9]+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}) : (tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>) -> (tensor<4x8xf16>, tensor<4x8xf16>)
// GENERIC: "mixprec.minimum_grad"(%{{.+}}#0, %{{.+}}#1, %arg{{[0-9]+}}) : (tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>) -> (tensor<4x8xf16>, tensor<4x8xf16>)
// GENERIC: "mixprec.reduce_max_grad"(%arg{{[0-9]+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}) <{dims = array<i64: 1>, keepdim}> : (tensor<4x1xf32>, tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
// GENERIC: "mixprec.reduce_max_grad"(%arg{{[0-9]+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}) <{dims = array<i64: 0, 1>}> : (tensor<bf16>, tensor<2x3xbf16>, tensor<bf16>) -> tensor<2x3xbf16>
func.func @max_grads(%g: tensor<4x8xf16>, %a: tensor<4x8xf16>, %b: tensor<4x8xf16>, %gk: tensor<4x1xf32>, %x: tensor<4x8xf32>, %mk: tensor<4x1xf32>, %gs: tensor<bf16>, %xs: tensor<2x3xbf16>, %ms: tensor<bf16>)
    -> (tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf32>, tensor<2x3xbf16>) {
  %da, %db = mixprec.maximum_grad %g, %a, %b : tensor<4x8xf16>
  %da2, %db2 = mixprec.minimum_grad %da, %db, %b : tensor<4x8xf16>
  %dx = mixprec.reduce_max_grad %gk, %x, %mk {dims = array<i64: 1>, keepdim} : tensor<4x1xf32>, tensor<4x8xf32>
  %dxs = mixprec.reduce_max_grad %gs, %xs, %ms {dims = array<i64: 0, 1>} : tensor<bf16>, tensor<2x3xbf16>
  return %da2, %db2, %dx, %dxs : tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf32>, tensor<2x3xbf16>
}

// CHECK-LABEL: func.func @softmax_grads(
// CHECK-SAME:    [[G:%[^:]+]]: tensor<8x16xf32>, [[Y:%[^:]+]]: tensor<8x16xf32>, [[GH:%[^:]+]]: tensor<2x4x8xf16>, [[YH:%[^:]+]]: tensor<2x4x8xf16>)
// CHECK-NEXT:    [[S:%.+]] = mixprec.softmax_grad [[G]], [[Y]] {axis = 1 : i64} : tensor<8x16xf32>
// CHECK-NEXT:    [[SH:%.+]] = mixprec.softmax_grad [[GH]], [[YH]] {axis = 0 : i64} : tensor<2x4x8xf16>
// CHECK-NEXT:    [[L:%.+]] = mixprec.log_softmax_grad [[S]], [[Y]] {axis = 0 : i64} : tensor<8x16xf32>
// CHECK-NEXT:    [[LH:%.+]] = mixprec.log_softmax_grad [[SH]], [[YH]] {axis = 2 : i64} : tensor<2x4x8xf16>
// CHECK-NEXT:    return [[L]], [[LH]] : tensor<8x16xf32>, tensor<2x4x8xf16>

// GENERIC-LABEL: sym_name = "softmax_grads"
// GENERIC: "mixprec.softmax_grad"(%arg{{[0-9]+}}, %arg{{[0-9]+}}) <{axis = 1 : i64}> : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
// GENERIC: "mixprec.log_softmax_grad"(%{{.+}}, %arg{{[0-9]+}}) <{axis = 2 : i64}> : (tensor<2x4x8xf16>, tensor<2x4x8xf16>) -> tensor<2x4x8xf16>
func.func @softmax_grads(%g: tensor<8x16xf32>, %y: tensor<8x16xf32>, %gh: tensor<2x4x8xf16>, %yh: tensor<2x4x8xf16>)
    -> (tensor<8x16xf32>, tensor<2x4x8xf16>) {
  %s = mixprec.softmax_grad %g, %y {axis = 1 : i64} : tensor<8x16xf32>
  %sh = mixprec.softmax_grad %gh, %yh {axis = 0 : i64} : tensor<2x4x8xf16>
  %l = mixprec.log_softmax_grad %s, %y {axis = 0 : i64} : tensor<8x16xf32>
  %lh = mixprec.log_softmax_grad %sh, %yh {axis = 2 : i64} : tensor<2x4x8xf16>
  return %l, %lh : tensor<8x16xf32>, tensor<2x4x8xf16>
}

// CHECK-LABEL: func.func @layer_norm_grad(
// CHECK-SAME:    [[G:%[^:]+]]: tensor<8x16x64xf32>, [[X:%[^:]+]]: tensor<8x16x64xf32>, [[S:%[^:]+]]: tensor<64xf32>, [[GH:%[^:]+]]: tensor<8x16x64xbf16>, [[XH:%[^:]+]]: tensor<8x16x64xbf16>, [[SH:%[^:]+]]: tensor<16x64xbf16>)
// CHECK-NEXT:    [[DX:%[^,]+]], [[DS:%[^,]+]], [[DB:%[^ ]+]] = mixprec.layer_norm_grad [[G]], [[X]] scale [[S]] {axis = 2 : i64} : tensor<8x16x64xf32>, tensor<64xf32>
// CHECK-NEXT:    [[DXH:%[^,]+]], [[DSH:%[^,]+]], [[DBH:%[^ ]+]] = mixprec.layer_norm_grad [[GH]], [[XH]] scale [[SH]] {axis = 1 : i64, eps = 1.000000e-03 : f64} : tensor<8x16x64xbf16>, tensor<16x64xbf16>
// CHECK-NEXT:    return [[DX]], [[DS]], [[DB]], [[DXH]], [[DSH]], [[DBH]] : tensor<8x16x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<8x16x64xbf16>, tensor<16x64xbf16>, tensor<16x64xbf16>

// GENERIC-LABEL: sym_name = "layer_norm_grad"
// GENERIC: "mixprec.layer_norm_grad"(%arg{{[0-9]+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}) <{axis = 2 : i64, eps = 1.000000e-05 : f64}> : (tensor<8x16x64xf32>, tensor<8x16x64xf32>, tensor<64xf32>) -> (tensor<8x16x64xf32>, tensor<64xf32>, tensor<64xf32>)
func.func @layer_norm_grad(%g: tensor<8x16x64xf32>, %x: tensor<8x16x64xf32>, %s: tensor<64xf32>,
                           %gh: tensor<8x16x64xbf16>, %xh: tensor<8x16x64xbf16>, %sh: tensor<16x64xbf16>)
    -> (tensor<8x16x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<8x16x64xbf16>, tensor<16x64xbf16>, tensor<16x64xbf16>) {
  // eps = 1e-5 is the default and is elided.
  %dx, %ds, %db = mixprec.layer_norm_grad %g, %x scale %s {axis = 2 : i64, eps = 1.0e-5 : f64} : tensor<8x16x64xf32>, tensor<64xf32>
  %dxh, %dsh, %dbh = mixprec.layer_norm_grad %gh, %xh scale %sh {axis = 1 : i64, eps = 1.0e-3 : f64} : tensor<8x16x64xbf16>, tensor<16x64xbf16>
  return %dx, %ds, %db, %dxh, %dsh, %dbh : tensor<8x16x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<8x16x64xbf16>, tensor<16x64xbf16>, tensor<16x64xbf16>
}

// CHECK-LABEL: func.func @softmax_cross_entropy_grad(
// CHECK-SAME:    [[G:%[^:]+]]: tensor<f32>, [[LOGITS:%[^:]+]]: tensor<64x10xf32>, [[LABELS:%[^:]+]]: tensor<64xi32>, [[GH:%[^:]+]]: tensor<f16>, [[LH:%[^:]+]]: tensor<4x3xf16>, [[LAB64:%[^:]+]]: tensor<4xi64>)
// CHECK-NEXT:    [[D0:%.+]] = mixprec.softmax_cross_entropy_grad [[G]], [[LOGITS]], [[LABELS]] : tensor<64x10xf32>, tensor<64xi32>
// CHECK-NEXT:    [[D1:%.+]] = mixprec.softmax_cross_entropy_grad [[G]], [[LOGITS]], [[LABELS]] : tensor<64x10xf32>, tensor<64xi32>
// CHECK-NEXT:    [[D2:%.+]] = mixprec.softmax_cross_entropy_grad [[GH]], [[LH]], [[LAB64]] {reduction = #mixprec<reduction sum>} : tensor<4x3xf16>, tensor<4xi64>
// CHECK-NEXT:    return [[D0]], [[D1]], [[D2]] : tensor<64x10xf32>, tensor<64x10xf32>, tensor<4x3xf16>

// GENERIC-LABEL: sym_name = "softmax_cross_entropy_grad"
// GENERIC: "mixprec.softmax_cross_entropy_grad"(%arg{{[0-9]+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}) <{reduction = #mixprec<reduction mean>}> : (tensor<f32>, tensor<64x10xf32>, tensor<64xi32>) -> tensor<64x10xf32>
// GENERIC: "mixprec.softmax_cross_entropy_grad"(%arg{{[0-9]+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}) <{reduction = #mixprec<reduction sum>}> : (tensor<f16>, tensor<4x3xf16>, tensor<4xi64>) -> tensor<4x3xf16>
func.func @softmax_cross_entropy_grad(%g: tensor<f32>, %logits: tensor<64x10xf32>, %labels: tensor<64xi32>,
                                      %gh: tensor<f16>, %lh: tensor<4x3xf16>, %lab64: tensor<4xi64>)
    -> (tensor<64x10xf32>, tensor<64x10xf32>, tensor<4x3xf16>) {
  %0 = mixprec.softmax_cross_entropy_grad %g, %logits, %labels : tensor<64x10xf32>, tensor<64xi32>
  // mean is the default and is elided.
  %1 = mixprec.softmax_cross_entropy_grad %g, %logits, %labels {reduction = #mixprec<reduction mean>} : tensor<64x10xf32>, tensor<64xi32>
  %2 = mixprec.softmax_cross_entropy_grad %gh, %lh, %lab64 {reduction = #mixprec<reduction sum>} : tensor<4x3xf16>, tensor<4xi64>
  return %0, %1, %2 : tensor<64x10xf32>, tensor<64x10xf32>, tensor<4x3xf16>
}

// CHECK-LABEL: func.func @embedding_grad(
// CHECK-SAME:    [[G:%[^:]+]]: tensor<8x16x64xf16>, [[I:%[^:]+]]: tensor<8x16xi32>, [[GF:%[^:]+]]: tensor<5x4xf32>, [[IF:%[^:]+]]: tensor<5xi64>)
// CHECK-NEXT:    [[D:%.+]] = mixprec.embedding_grad [[G]], [[I]] {num_embeddings = 100 : i64} : tensor<8x16x64xf16>, tensor<8x16xi32>
// CHECK-NEXT:    [[DF:%.+]] = mixprec.embedding_grad [[GF]], [[IF]] {num_embeddings = 1 : i64} : tensor<5x4xf32>, tensor<5xi64>
// CHECK-NEXT:    return [[D]], [[DF]] : tensor<100x64xf16>, tensor<1x4xf32>

// GENERIC-LABEL: sym_name = "embedding_grad"
// GENERIC: "mixprec.embedding_grad"(%arg{{[0-9]+}}, %arg{{[0-9]+}}) <{num_embeddings = 100 : i64}> : (tensor<8x16x64xf16>, tensor<8x16xi32>) -> tensor<100x64xf16>
func.func @embedding_grad(%g: tensor<8x16x64xf16>, %i: tensor<8x16xi32>, %gf: tensor<5x4xf32>, %if: tensor<5xi64>)
    -> (tensor<100x64xf16>, tensor<1x4xf32>) {
  %d = mixprec.embedding_grad %g, %i {num_embeddings = 100 : i64} : tensor<8x16x64xf16>, tensor<8x16xi32>
  %df = mixprec.embedding_grad %gf, %if {num_embeddings = 1 : i64} : tensor<5x4xf32>, tensor<5xi64>
  return %d, %df : tensor<100x64xf16>, tensor<1x4xf32>
}

// CHECK-LABEL: func.func @conv2d_grads(
// CHECK-SAME:    [[G:%[^:]+]]: tensor<32x8x8x8xf16>, [[W:%[^:]+]]: tensor<8x1x3x3xf16>, [[X:%[^:]+]]: tensor<32x1x8x8xf16>, [[GG:%[^:]+]]: tensor<2x4x4x3xbf16>, [[WG:%[^:]+]]: tensor<4x1x3x3xbf16>, [[XG:%[^:]+]]: tensor<2x2x8x6xbf16>)
// CHECK-NEXT:    [[DX:%.+]] = mixprec.conv2d_grad_input [[G]], [[W]] {input_shape = array<i64: 32, 1, 8, 8>, padding = array<i64: 1, 1>} : tensor<32x8x8x8xf16>, tensor<8x1x3x3xf16>
// CHECK-NEXT:    [[DW:%.+]] = mixprec.conv2d_grad_weight [[G]], [[X]] {padding = array<i64: 1, 1>, weight_shape = array<i64: 8, 1, 3, 3>} : tensor<32x8x8x8xf16>, tensor<32x1x8x8xf16>
// CHECK-NEXT:    [[DXG:%.+]] = mixprec.conv2d_grad_input [[GG]], [[WG]] {dilation = array<i64: 1, 2>, groups = 2 : i64, input_shape = array<i64: 2, 2, 8, 6>, padding = array<i64: 1, 2>, stride = array<i64: 2, 2>} : tensor<2x4x4x3xbf16>, tensor<4x1x3x3xbf16>
// CHECK-NEXT:    [[DWG:%.+]] = mixprec.conv2d_grad_weight [[GG]], [[XG]] {dilation = array<i64: 1, 2>, groups = 2 : i64, padding = array<i64: 1, 2>, stride = array<i64: 2, 2>, weight_shape = array<i64: 4, 1, 3, 3>} : tensor<2x4x4x3xbf16>, tensor<2x2x8x6xbf16>
// CHECK-NEXT:    return [[DX]], [[DW]], [[DXG]], [[DWG]] : tensor<32x1x8x8xf16>, tensor<8x1x3x3xf16>, tensor<2x2x8x6xbf16>, tensor<4x1x3x3xbf16>

// GENERIC-LABEL: sym_name = "conv2d_grads"
// GENERIC: "mixprec.conv2d_grad_input"(%arg{{[0-9]+}}, %arg{{[0-9]+}}) <{dilation = array<i64: 1, 1>, groups = 1 : i64, input_shape = array<i64: 32, 1, 8, 8>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>}> : (tensor<32x8x8x8xf16>, tensor<8x1x3x3xf16>) -> tensor<32x1x8x8xf16>
// GENERIC: "mixprec.conv2d_grad_weight"(%arg{{[0-9]+}}, %arg{{[0-9]+}}) <{dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, weight_shape = array<i64: 8, 1, 3, 3>}> : (tensor<32x8x8x8xf16>, tensor<32x1x8x8xf16>) -> tensor<8x1x3x3xf16>
func.func @conv2d_grads(%g: tensor<32x8x8x8xf16>, %w: tensor<8x1x3x3xf16>, %x: tensor<32x1x8x8xf16>,
                        %gg: tensor<2x4x4x3xbf16>, %wg: tensor<4x1x3x3xbf16>, %xg: tensor<2x2x8x6xbf16>)
    -> (tensor<32x1x8x8xf16>, tensor<8x1x3x3xf16>, tensor<2x2x8x6xbf16>, tensor<4x1x3x3xbf16>) {
  // stride, dilation 1 and groups 1 are the defaults and are elided.
  %dx = mixprec.conv2d_grad_input %g, %w {padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, groups = 1 : i64, input_shape = array<i64: 32, 1, 8, 8>} : tensor<32x8x8x8xf16>, tensor<8x1x3x3xf16>
  %dw = mixprec.conv2d_grad_weight %g, %x {padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, weight_shape = array<i64: 8, 1, 3, 3>} : tensor<32x8x8x8xf16>, tensor<32x1x8x8xf16>
  %dxg = mixprec.conv2d_grad_input %gg, %wg {stride = array<i64: 2, 2>, padding = array<i64: 1, 2>, dilation = array<i64: 1, 2>, groups = 2 : i64, input_shape = array<i64: 2, 2, 8, 6>} : tensor<2x4x4x3xbf16>, tensor<4x1x3x3xbf16>
  %dwg = mixprec.conv2d_grad_weight %gg, %xg {stride = array<i64: 2, 2>, padding = array<i64: 1, 2>, dilation = array<i64: 1, 2>, groups = 2 : i64, weight_shape = array<i64: 4, 1, 3, 3>} : tensor<2x4x4x3xbf16>, tensor<2x2x8x6xbf16>
  return %dx, %dw, %dxg, %dwg : tensor<32x1x8x8xf16>, tensor<8x1x3x3xf16>, tensor<2x2x8x6xbf16>, tensor<4x1x3x3xbf16>
}

// CHECK-LABEL: func.func @pool2d_grads(
// CHECK-SAME:    [[G:%[^:]+]]: tensor<32x8x4x4xf32>, [[X:%[^:]+]]: tensor<32x8x8x8xf32>, [[GH:%[^:]+]]: tensor<2x3x5x5xf16>, [[XH:%[^:]+]]: tensor<2x3x9x9xf16>)
// CHECK-NEXT:    [[M:%.+]] = mixprec.max_pool2d_grad [[G]], [[X]] {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<32x8x4x4xf32>, tensor<32x8x8x8xf32>
// CHECK-NEXT:    [[A:%.+]] = mixprec.avg_pool2d_grad [[G]], [[X]] {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<32x8x4x4xf32>, tensor<32x8x8x8xf32>
// CHECK-NEXT:    [[MH:%.+]] = mixprec.max_pool2d_grad [[GH]], [[XH]] {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : tensor<2x3x5x5xf16>, tensor<2x3x9x9xf16>
// CHECK-NEXT:    [[AH:%.+]] = mixprec.avg_pool2d_grad [[GH]], [[XH]] {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : tensor<2x3x5x5xf16>, tensor<2x3x9x9xf16>
// CHECK-NEXT:    return [[M]], [[A]], [[MH]], [[AH]] : tensor<32x8x8x8xf32>, tensor<32x8x8x8xf32>, tensor<2x3x9x9xf16>, tensor<2x3x9x9xf16>

// GENERIC-LABEL: sym_name = "pool2d_grads"
// GENERIC: "mixprec.max_pool2d_grad"(%arg{{[0-9]+}}, %arg{{[0-9]+}}) <{kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>}> : (tensor<32x8x4x4xf32>, tensor<32x8x8x8xf32>) -> tensor<32x8x8x8xf32>
// GENERIC: "mixprec.avg_pool2d_grad"(%arg{{[0-9]+}}, %arg{{[0-9]+}}) <{kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>}> : (tensor<2x3x5x5xf16>, tensor<2x3x9x9xf16>) -> tensor<2x3x9x9xf16>
func.func @pool2d_grads(%g: tensor<32x8x4x4xf32>, %x: tensor<32x8x8x8xf32>, %gh: tensor<2x3x5x5xf16>, %xh: tensor<2x3x9x9xf16>)
    -> (tensor<32x8x8x8xf32>, tensor<32x8x8x8xf32>, tensor<2x3x9x9xf16>, tensor<2x3x9x9xf16>) {
  // padding 0 is the default and is elided.
  %m = mixprec.max_pool2d_grad %g, %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>} : tensor<32x8x4x4xf32>, tensor<32x8x8x8xf32>
  %a = mixprec.avg_pool2d_grad %g, %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<32x8x4x4xf32>, tensor<32x8x8x8xf32>
  %mh = mixprec.max_pool2d_grad %gh, %xh {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>} : tensor<2x3x5x5xf16>, tensor<2x3x9x9xf16>
  %ah = mixprec.avg_pool2d_grad %gh, %xh {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>} : tensor<2x3x5x5xf16>, tensor<2x3x9x9xf16>
  return %m, %a, %mh, %ah : tensor<32x8x8x8xf32>, tensor<32x8x8x8xf32>, tensor<2x3x9x9xf16>, tensor<2x3x9x9xf16>
}

// CHECK-LABEL: func.func @batch_norm_grad(
// CHECK-SAME:    [[G:%[^:]+]]: tensor<32x8x8x8xf32>, [[X:%[^:]+]]: tensor<32x8x8x8xf32>, [[S:%[^:]+]]: tensor<8xf32>, [[GH:%[^:]+]]: tensor<16x4xbf16>, [[XH:%[^:]+]]: tensor<16x4xbf16>, [[SH:%[^:]+]]: tensor<4xbf16>)
// CHECK-NEXT:    [[DX:%[^,]+]], [[DS:%[^,]+]], [[DB:%[^ ]+]] = mixprec.batch_norm_grad [[G]], [[X]] scale [[S]] : tensor<32x8x8x8xf32>, tensor<8xf32>
// CHECK-NEXT:    [[DXH:%[^,]+]], [[DSH:%[^,]+]], [[DBH:%[^ ]+]] = mixprec.batch_norm_grad [[GH]], [[XH]] scale [[SH]] {eps = 1.000000e-03 : f64} : tensor<16x4xbf16>, tensor<4xbf16>
// CHECK-NEXT:    return [[DX]], [[DS]], [[DB]], [[DXH]], [[DSH]], [[DBH]] : tensor<32x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<16x4xbf16>, tensor<4xbf16>, tensor<4xbf16>

// GENERIC-LABEL: sym_name = "batch_norm_grad"
// GENERIC: "mixprec.batch_norm_grad"(%arg{{[0-9]+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}) <{eps = 1.000000e-05 : f64}> : (tensor<32x8x8x8xf32>, tensor<32x8x8x8xf32>, tensor<8xf32>) -> (tensor<32x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>)
func.func @batch_norm_grad(%g: tensor<32x8x8x8xf32>, %x: tensor<32x8x8x8xf32>, %s: tensor<8xf32>,
                           %gh: tensor<16x4xbf16>, %xh: tensor<16x4xbf16>, %sh: tensor<4xbf16>)
    -> (tensor<32x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<16x4xbf16>, tensor<4xbf16>, tensor<4xbf16>) {
  // eps = 1e-5 is the default and is elided.
  %dx, %ds, %db = mixprec.batch_norm_grad %g, %x scale %s {eps = 1.0e-5 : f64} : tensor<32x8x8x8xf32>, tensor<8xf32>
  %dxh, %dsh, %dbh = mixprec.batch_norm_grad %gh, %xh scale %sh {eps = 1.0e-3 : f64} : tensor<16x4xbf16>, tensor<4xbf16>
  return %dx, %ds, %db, %dxh, %dsh, %dbh : tensor<32x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<16x4xbf16>, tensor<4xbf16>, tensor<4xbf16>
}

// -----

//===----------------------------------------------------------------------===//
// Checked indices: ignore_index and the index report
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @checked_indices(
// CHECK-SAME:    [[LOGITS:%[^:]+]]: tensor<4x10xf32>, [[LABELS:%[^:]+]]: tensor<4xi32>, [[G:%[^:]+]]: tensor<f32>, [[TOKENS:%[^:]+]]: tensor<2x3xi64>)
// CHECK-NEXT:    [[L:%.+]] = mixprec.softmax_cross_entropy [[LOGITS]], [[LABELS]] {ignore_index = -100 : i64} : tensor<4x10xf32>, tensor<4xi32>
// CHECK-NEXT:    [[D:%.+]] = mixprec.softmax_cross_entropy_grad [[G]], [[LOGITS]], [[LABELS]] {ignore_index = -100 : i64} : tensor<4x10xf32>, tensor<4xi32>
// CHECK-NEXT:    [[R0:%.+]] = mixprec.index_check [[LABELS]] {bound = 10 : i64, check = 0 : i64, skipped = -100 : i64} : tensor<4xi32>
// CHECK-NEXT:    [[R1:%.+]] = mixprec.index_check [[TOKENS]], [[R0]] {bound = 7 : i64, check = 1 : i64} : tensor<2x3xi64>
// CHECK-NEXT:    return [[L]], [[D]], [[R1]] : tensor<f32>, tensor<4x10xf32>, tensor<3xi64>

// GENERIC-LABEL: sym_name = "checked_indices"
// GENERIC: "mixprec.index_check"(%arg{{[0-9]+}}) <{bound = 10 : i64, check = 0 : i64, skipped = -100 : i64}> : (tensor<4xi32>) -> tensor<3xi64>
// GENERIC: "mixprec.index_check"(%arg{{[0-9]+}}, %{{[0-9]+}}) <{bound = 7 : i64, check = 1 : i64}> : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<3xi64>
func.func @checked_indices(%logits: tensor<4x10xf32>, %labels: tensor<4xi32>, %g: tensor<f32>, %tokens: tensor<2x3xi64>)
    -> (tensor<f32>, tensor<4x10xf32>, tensor<3xi64>) {
  %l = mixprec.softmax_cross_entropy %logits, %labels {ignore_index = -100 : i64} : tensor<4x10xf32>, tensor<4xi32>
  %d = mixprec.softmax_cross_entropy_grad %g, %logits, %labels {ignore_index = -100 : i64} : tensor<4x10xf32>, tensor<4xi32>
  %r0 = mixprec.index_check %labels {bound = 10 : i64, check = 0 : i64, skipped = -100 : i64} : tensor<4xi32>
  %r1 = mixprec.index_check %tokens, %r0 {bound = 7 : i64, check = 1 : i64} : tensor<2x3xi64>
  return %l, %d, %r1 : tensor<f32>, tensor<4x10xf32>, tensor<3xi64>
}
