// RUN: mixprec-opt %s -split-input-file -verify-diagnostics

// Negative tests of the mixprec dialect. The file covers every diagnostic
// that lib/Dialect/Mixprec/IR/*.cpp emits (op verifiers, symbol-use
// verifiers, result-type inference, attribute verifiers, unknown attribute
// names (KnownAttributesOnly), the enum, bool- and
// float-parameter parsers) and ODS-generated constraint errors (element types,
// static shapes, the RNG state, 0-d scalar operands, AllTypesMatch,
// SameOperandsAndResultType/Shape, inferred result types, parent ops,
// attribute kinds). Every op of MixprecOps.td has at least one case. Each
// case is a chunk of its own.
//
// Float parameters of attributes must be finite: MLIR's parseFloat accepts no
// `inf` or `nan` keyword, so the cases spell them as hex bit patterns
// (0x7FF0000000000000 is +inf, 0x7FF8000000000000 a NaN) or as a decimal that
// overflows f64. Op hyper-parameters (F64Attr) take the same spellings and the
// op verifiers reject non-finite values. Diagnostics print infinities as
// INF/-INF and NaN as nan (raw_ostream's spelling).
//
// In the custom form of layer_norm and batch_norm, scale and bias are one
// optional group (`scale %g bias %b`), so an op with only one of them can be
// written only in the generic form.
//
// Type inference reports its own message. In the custom form it runs while
// the op is parsed and that message is the only error; in the generic form it
// runs in the verifier, which adds "'<op>' op failed to infer returned types".
// Ops whose inferred type depends on attributes (reduce_*, transpose, slice,
// concat, max_pool2d, avg_pool2d) have cases in both forms.

//===----------------------------------------------------------------------===//
// Attributes: bool parameters
//===----------------------------------------------------------------------===//

// expected-error @+2 {{expected 'true' or 'false', got 'yes'}}
// expected-error @+1 {{failed to parse Mixprec_SGDAttr parameter 'nesterov' which is to be a `bool`}}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<momentum = 0.9, nesterov = yes>

// -----

// expected-error @+2 {{expected 'true' or 'false', got 'on'}}
// expected-error @+1 {{failed to parse Mixprec_AdamWAttr parameter 'decay_norm_and_bias' which is to be a `bool`}}
mixprec.train_step @train forward @loss optimizer #mixprec.adamw<decay_norm_and_bias = on>

//===----------------------------------------------------------------------===//
// Attributes: float parameters
//===----------------------------------------------------------------------===//

// -----

// expected-error @+2 {{expected a finite number, got INF}}
// expected-error @+1 {{failed to parse Mixprec_NormalInitAttr parameter 'std' which is to be a `::llvm::APFloat`}}
mixprec.parameter @w : tensor<4x4xf32> = #mixprec.normal<std = 0x7FF0000000000000>

// -----

// -1.0e+400 overflows f64 and parses as -inf.
// expected-error @+2 {{expected a finite number, got -INF}}
// expected-error @+1 {{failed to parse Mixprec_UniformInitAttr parameter 'low' which is to be a `::llvm::APFloat`}}
mixprec.parameter @w : tensor<4x4xf32> = #mixprec.uniform<low = -1.0e+400, high = 1.0>

// -----

// expected-error @+2 {{expected a finite number, got nan}}
// expected-error @+1 {{failed to parse Mixprec_SGDAttr parameter 'momentum' which is to be a `::llvm::APFloat`}}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<momentum = 0x7FF8000000000000>

// -----

// expected-error @+2 {{expected a finite number, got INF}}
// expected-error @+1 {{failed to parse Mixprec_AdamWAttr parameter 'eps' which is to be a `::llvm::APFloat`}}
mixprec.train_step @train forward @loss optimizer #mixprec.adamw<eps = 1.0e+400>

//===----------------------------------------------------------------------===//
// Attributes: initializers
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{normal initializer needs std > 0, got 0.000000e+00}}
mixprec.parameter @w : tensor<4x4xf32> = #mixprec.normal<std = 0.0>

// -----

// expected-error @+1 {{normal initializer needs std > 0, got -1.000000e+00}}
mixprec.parameter @w : tensor<4x4xf32> = #mixprec.normal<mean = 0.0, std = -1.0, seed = 3>

// -----

// expected-error @+1 {{uniform initializer needs low < high, got [2.000000e+00, 1.000000e+00)}}
mixprec.parameter @w : tensor<4x4xf32> = #mixprec.uniform<low = 2.0, high = 1.0>

// -----

// expected-error @+1 {{uniform initializer needs low < high, got [1.000000e+00, 1.000000e+00)}}
mixprec.buffer @b : tensor<4xf32> = #mixprec.uniform<low = 1.0, high = 1.0, seed = 7>

// -----

// expected-error @+1 {{'mixprec.parameter' op xavier_uniform needs a tensor of rank >= 2 to compute fans, got rank 1}}
mixprec.parameter @w : tensor<16xf32> = #mixprec.xavier_uniform<gain = 1.0>

// -----

// expected-error @+1 {{'mixprec.parameter' op xavier_normal needs a tensor of rank >= 2 to compute fans, got rank 1}}
mixprec.parameter @w : tensor<16xf16> = #mixprec.xavier_normal<seed = 2>

// -----

// expected-error @+1 {{'mixprec.parameter' op kaiming_uniform needs a tensor of rank >= 2 to compute fans, got rank 1}}
mixprec.parameter @w : tensor<16xf32> = #mixprec.kaiming_uniform<a = 2.23606797749979, seed = 1>

// -----

// expected-error @+1 {{'mixprec.buffer' op kaiming_normal needs a tensor of rank >= 2 to compute fans, got rank 0}}
mixprec.buffer @b : tensor<bf16> = #mixprec.kaiming_normal<>

//===----------------------------------------------------------------------===//
// Attributes: optimizers
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{momentum must be >= 0, got -5.000000e-01}}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<momentum = -0.5>

// -----

// expected-error @+1 {{dampening must be in [0, 1], got 1.500000e+00}}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<momentum = 0.9, dampening = 1.5>

// -----

// expected-error @+1 {{nesterov needs momentum > 0 and dampening = 0}}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<nesterov = true>

// -----

// expected-error @+1 {{nesterov needs momentum > 0 and dampening = 0}}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<momentum = 0.9, dampening = 0.1, nesterov = true>

// -----

// expected-error @+1 {{weight_decay must be >= 0, got -1.000000e-04}}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<momentum = 0.9, weight_decay = -1.0e-4>

// -----

// expected-error @+1 {{beta1 must be in [0, 1), got 1.000000e+00}}
mixprec.train_step @train forward @loss optimizer #mixprec.adam<beta1 = 1.0>

// -----

// expected-error @+1 {{beta2 must be in [0, 1), got -1.000000e-01}}
mixprec.train_step @train forward @loss optimizer #mixprec.adam<beta2 = -0.1>

// -----

// expected-error @+1 {{eps must be > 0, got 0.000000e+00}}
mixprec.train_step @train forward @loss optimizer #mixprec.adam<eps = 0.0>

// -----

// expected-error @+1 {{weight_decay must be >= 0, got -1.000000e+00}}
mixprec.train_step @train forward @loss optimizer #mixprec.adam<weight_decay = -1.0>

// -----

// expected-error @+1 {{beta1 must be in [0, 1), got -9.000000e-01}}
mixprec.train_step @train forward @loss optimizer #mixprec.adamw<beta1 = -0.9>

// -----

// expected-error @+1 {{beta2 must be in [0, 1), got 1.500000e+00}}
mixprec.train_step @train forward @loss optimizer #mixprec.adamw<beta2 = 1.5>

// -----

// expected-error @+1 {{eps must be > 0, got -1.000000e-08}}
mixprec.train_step @train forward @loss optimizer #mixprec.adamw<eps = -1.0e-8>

// -----

// expected-error @+1 {{weight_decay must be >= 0, got -1.000000e-02}}
mixprec.train_step @train forward @loss optimizer #mixprec.adamw<weight_decay = -0.01>

//===----------------------------------------------------------------------===//
// Attributes: unknown names (KnownAttributesOnly) and enum values
//===----------------------------------------------------------------------===//

// -----

// A misspelled attribute would otherwise be kept as a discardable attribute
// and ignored.
func.func @misspelled_attribute(%x: tensor<16x256xf16>) -> tensor<16x256xf16> {
  // expected-error @+1 {{'mixprec.gelu' op has no attribute 'approximat'; did you mean 'approximate'?}}
  %0 = mixprec.gelu %x {approximat = #mixprec<gelu_approximation tanh>} : tensor<16x256xf16>
  return %0 : tensor<16x256xf16>
}

// -----

func.func @misspelled_attribute_generic(%l: tensor<4x3xf32>, %y: tensor<4xi32>) -> tensor<f32> {
  // expected-error @+1 {{'mixprec.softmax_cross_entropy' op has no attribute 'ignore_idx'; did you mean 'ignore_index'?}}
  %0 = "mixprec.softmax_cross_entropy"(%l, %y) {ignore_idx = -100 : i64} : (tensor<4x3xf32>, tensor<4xi32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

mixprec.parameter @w : tensor<4x4xf32> = #mixprec.zeros
func.func @loss(%x: tensor<4x4xf32>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<4x4xf32>
  %l = mixprec.mse %x, %w : tensor<4x4xf32>, tensor<4x4xf32>
  return %l : tensor<f32>
}
// expected-error @+1 {{'mixprec.train_step' op has no attribute 'acumulation_step'; did you mean 'accumulation_steps'?}}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<> {acumulation_step = 4 : i64}

// -----

// Nothing is near: the message lists the op's attributes.
func.func @unknown_attribute(%x: tensor<8x16xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'mixprec.reduce_sum' op has no attribute 'axis'; its attributes are: dims, keepdim (an attribute that another dialect attaches is named '<dialect>.axis')}}
  %0 = mixprec.reduce_sum %x {dims = array<i64: 1>, axis = 1 : i64} : tensor<8x16xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @attribute_of_an_op_without_any(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mixprec.relu' op has no attribute 'inplace'; it takes none (an attribute that another dialect attaches is named '<dialect>.inplace')}}
  %0 = mixprec.relu %x {inplace} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A misspelled mixprec attribute is reported by the dialect.
func.func @misspelled_dialect_attribute(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unknown mixprec attribute 'mixprec.precison'; did you mean 'mixprec.precision'?}}
  %0 = mixprec.relu %x {mixprec.precison = f16} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A parallel loop nest's extent and chunk are positive i64 on a function.
// expected-error @+1 {{'mixprec.parallel_chunk' is an i64 >= 1 on a function}}
func.func private @parallel_chunk_of_zero(%begin: index, %end: index) attributes {mixprec.parallel_extent = 8 : i64, mixprec.parallel_chunk = 0 : i64} {
  return
}

// -----

func.func @parallel_extent_on_an_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mixprec.parallel_extent' is an i64 >= 1 on a function}}
  %0 = mixprec.relu %x {mixprec.parallel_extent = 4 : i64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @bad_enum_keyword(%l: tensor<4x3xf32>, %y: tensor<4xi32>) -> tensor<f32> {
  // expected-error @+2 {{expected one of: mean, sum; got 'avg'}}
  // expected-error @+1 {{failed to parse Mixprec_ReductionAttr parameter 'value' which is to be a `::mixprec::Reduction`}}
  %0 = mixprec.softmax_cross_entropy %l, %y {reduction = #mixprec<reduction avg>} : tensor<4x3xf32>, tensor<4xi32>
  return %0 : tensor<f32>
}

// -----

func.func @bad_enum_keyword(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{expected one of: erf, tanh; got 'sigmoid'}}
  // expected-error @+1 {{failed to parse Mixprec_GeluApproximationAttr parameter 'value' which is to be a `::mixprec::GeluApproximation`}}
  %0 = mixprec.gelu %x {approximate = #mixprec<gelu_approximation sigmoid>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A string instead of the enum attribute: the constraint lists the values.
func.func @enum_as_string(%l: tensor<4x3xf32>, %y: tensor<4xi32>) -> tensor<f32> {
  // expected-error @+1 {{'mixprec.softmax_cross_entropy' op attribute 'reduction' failed to satisfy constraint: how a loss reduces over the batch; expected one of: #mixprec<reduction mean>, #mixprec<reduction sum>}}
  %0 = mixprec.softmax_cross_entropy %l, %y {reduction = "avg"} : tensor<4x3xf32>, tensor<4xi32>
  return %0 : tensor<f32>
}

// -----

func.func @enum_as_string(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mixprec.gelu' op attribute 'approximate' failed to satisfy constraint: which form of GELU to compute; expected one of: #mixprec<gelu_approximation erf>, #mixprec<gelu_approximation tanh>}}
  %0 = "mixprec.gelu"(%x) {approximate = "tanh"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// Model state: parameter, buffer, read, assign, rng_state
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'mixprec.parameter' op attribute 'type' failed to satisfy constraint: type attribute of statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values}}
mixprec.parameter @w : tensor<4x4xi32> = #mixprec.zeros

// -----

// expected-error @+1 {{'mixprec.parameter' op attribute 'type' failed to satisfy constraint: type attribute of statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values}}
mixprec.parameter @w : tensor<?x4xf32> = #mixprec.zeros

// -----

// expected-error @+1 {{invalid properties {initializer = #mixprec.sgd<>, sym_name = "w", type = tensor<4x4xf32>} for op mixprec.parameter: Invalid attribute `initializer` in property conversion: #mixprec.sgd<>}}
"mixprec.parameter"() <{sym_name = "w", type = tensor<4x4xf32>, initializer = #mixprec.sgd<>}> : () -> ()

// -----

func.func @f() {
  // expected-error @+1 {{'mixprec.parameter' op expects parent op 'builtin.module'}}
  mixprec.parameter @w : tensor<4x4xf32> = #mixprec.zeros
  return
}

// -----

// expected-error @+1 {{'mixprec.buffer' op attribute 'type' failed to satisfy constraint: type attribute of statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 1-bit signless integer or 32-bit signless integer or 64-bit signless integer values}}
mixprec.buffer @b : tensor<8xi8> = #mixprec.ones

// -----

// expected-error @+1 {{'mixprec.buffer' op an integer buffer starts from zeros, ones or an integral constant, not #mixprec.normal<>}}
mixprec.buffer @count : tensor<i64> = #mixprec.normal<std = 1.0>

// -----

// expected-error @+1 {{'mixprec.buffer' op an integer buffer starts from zeros, ones or an integral constant, not #mixprec.constant<5.000000e-01>}}
mixprec.buffer @count : tensor<i32> = #mixprec.constant<0.5>

// -----

// expected-error @+1 {{'mixprec.buffer' op the constant 3.000000e+09 does not fit the buffer's i32}}
mixprec.buffer @count : tensor<i32> = #mixprec.constant<3.0e9>

// -----

// A role fixes the buffer's type: the runtime reads the step count as i64.
// expected-error @+1 {{'mixprec.buffer' op a step_count buffer is tensor<i64>, got 'tensor<i32>'}}
mixprec.buffer @train.step_count : tensor<i32> = #mixprec.zeros role step_count

// -----

// expected-error @+1 {{'mixprec.buffer' op a moment buffer is an f32 tensor, got 'tensor<4x3xf16>'}}
mixprec.buffer @train.w.exp_avg : tensor<4x3xf16> = #mixprec.zeros role moment

// -----

// expected-error @+1 {{'mixprec.buffer' op a loss_scale buffer is tensor<f32>, got 'tensor<1xf32>'}}
mixprec.buffer @train.loss_scale : tensor<1xf32> = #mixprec.ones role loss_scale

// -----

// expected-error @+1 {{'mixprec.buffer' op a loss_scale_tracker buffer is tensor<i32>, got 'tensor<i64>'}}
mixprec.buffer @train.loss_scale_tracker : tensor<i64> = #mixprec.zeros role loss_scale_tracker

// -----

// expected-error @+1 {{'mixprec.buffer' op a loss_scale_hysteresis buffer is tensor<i32>, got 'tensor<f32>'}}
mixprec.buffer @train.loss_scale_hysteresis : tensor<f32> = #mixprec.ones role loss_scale_hysteresis

// -----

// expected-error @+1 {{'mixprec.buffer' op a skipped buffer is tensor<i1>, got 'tensor<2xi1>'}}
mixprec.buffer @train.skipped : tensor<2xi1> = #mixprec.zeros role skipped

// -----

// expected-error @+1 {{'mixprec.buffer' op a skipped_steps buffer is tensor<i64>, got 'tensor<i32>'}}
mixprec.buffer @train.skipped_steps : tensor<i32> = #mixprec.zeros role skipped_steps

// -----

// expected-error @+1 {{'mixprec.buffer' op a finite_gradients buffer is a 1-d tensor of i1, got 'tensor<i1>'}}
mixprec.buffer @train.finite_gradients : tensor<i1> = #mixprec.ones role finite_gradients

// -----

// The parser reports the bad role, then the token after it.
module {
  // expected-error @+2 {{expected one of: step_count, moment, loss_scale, loss_scale_tracker, loss_scale_hysteresis, skipped, skipped_steps, finite_gradients; got 'steps'}}
  // expected-error @+2 {{failed to parse Mixprec_StateRoleAttr parameter 'value' which is to be a `::mixprec::StateRole`}}
  mixprec.buffer @train.step_count : tensor<i64> = #mixprec.zeros role steps
}

// -----

// Only buffers have roles: parameters are the model's, not a step's.
// expected-error @+1 {{'mixprec.parameter' op has no attribute 'role'}}
"mixprec.parameter"() <{sym_name = "w", type = tensor<4xf32>, initializer = #mixprec.zeros}> {role = #mixprec<state_role moment>} : () -> ()

// -----

func.func @f(%x: tensor<f32>) {
  // expected-error @+1 {{'mixprec.increment' op operand #0 must be 0-d tensor of 32-bit signless integer or 0-d tensor of 64-bit signless integer}}
  %0 = mixprec.increment %x : tensor<f32>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'mixprec.read' op @missing does not name a parameter or buffer}}
  %0 = mixprec.read @missing : tensor<4xf32>
  return
}

// -----

func.func @g() {
  return
}

func.func @f() {
  // expected-error @+1 {{'mixprec.read' op @g is a 'func.func', not a parameter or buffer}}
  %0 = mixprec.read @g : tensor<4xf32>
  return
}

// -----

mixprec.parameter @w : tensor<4x4xf32> = #mixprec.zeros

func.func @f() {
  // expected-error @+1 {{'mixprec.read' op type 'tensor<4x4xf16>' does not match @w's type 'tensor<4x4xf32>'}}
  %0 = mixprec.read @w : tensor<4x4xf16>
  return
}

// -----

mixprec.parameter @w : tensor<4x4xf32> = #mixprec.zeros

func.func @f() {
  // expected-error @+1 {{'mixprec.read' op result #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 1-bit signless integer or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4x4xi8>'}}
  %0 = mixprec.read @w : tensor<4x4xi8>
  return
}

// -----

mixprec.parameter @w : tensor<8xf32> = #mixprec.ones

func.func @f(%v: tensor<8xf32>) {
  // expected-error @+1 {{'mixprec.assign' op @w is a parameter; only the optimizer updates parameters, assign targets buffers}}
  mixprec.assign @w, %v : tensor<8xf32>
  return
}

// -----

mixprec.buffer @mean : tensor<8xf32> = #mixprec.zeros

func.func @f(%v: tensor<16xf32>) {
  // expected-error @+1 {{'mixprec.assign' op type 'tensor<16xf32>' does not match @mean's type 'tensor<8xf32>'}}
  mixprec.assign @mean, %v : tensor<16xf32>
  return
}

// -----

func.func @f(%v: tensor<8xf32>) {
  // expected-error @+1 {{'mixprec.assign' op @nowhere does not name a parameter or buffer}}
  mixprec.assign @nowhere, %v : tensor<8xf32>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'mixprec.rng_state' op result #0 must be tensor<2xi64> RNG state (seed, offset), but got 'tensor<3xi64>'}}
  %0 = "mixprec.rng_state"() : () -> tensor<3xi64>
  return
}

//===----------------------------------------------------------------------===//
// Contractions: matmul, batch_matmul, linear, conv2d
//===----------------------------------------------------------------------===//

// -----

func.func @f(%a: tensor<2x4x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{'mixprec.matmul' op operands must be rank 2, got rank 3 and 2}}
  %0 = mixprec.matmul %a, %b : tensor<2x4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf16>, %b: tensor<8x16xbf16>) {
  // expected-error @+1 {{'mixprec.matmul' op operands must share one element type, got 'f16' and 'bf16'}}
  %0 = mixprec.matmul %a, %b : tensor<4x8xf16>, tensor<8x16xbf16> -> tensor<4x16xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf16>, %b: tensor<8x16xf16>) {
  // expected-error @+1 {{'mixprec.matmul' op result element type must be the operands' ('f16') or f32 (the accumulator), got 'bf16'}}
  %0 = mixprec.matmul %a, %b : tensor<4x8xf16>, tensor<8x16xf16> -> tensor<4x16xbf16>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>) {
  // expected-error @+1 {{'mixprec.matmul' op contraction dims differ: lhs has K = 8, rhs has K = 16}}
  %0 = mixprec.matmul %a, %b : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf16>, %b: tensor<16x8xf16>) {
  // expected-error @+1 {{'mixprec.matmul' op result shape must be [4, 16], got [16, 4]}}
  %0 = mixprec.matmul %a, %b {transpose_rhs} : tensor<4x8xf16>, tensor<16x8xf16> -> tensor<16x4xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xi32>, %b: tensor<8x16xi32>) {
  // expected-error @+1 {{'mixprec.matmul' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x8xi32>'}}
  %0 = mixprec.matmul %a, %b : tensor<4x8xi32>, tensor<8x16xi32> -> tensor<4x16xi32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{'mixprec.batch_matmul' op operands must have one rank >= 3, got rank 2 and 2}}
  %0 = mixprec.batch_matmul %a, %b : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  return
}

// -----

func.func @f(%a: tensor<2x4x8xf32>, %b: tensor<2x3x8x16xf32>) {
  // expected-error @+1 {{'mixprec.batch_matmul' op operands must have one rank >= 3, got rank 3 and 4}}
  %0 = mixprec.batch_matmul %a, %b : tensor<2x4x8xf32>, tensor<2x3x8x16xf32> -> tensor<2x4x16xf32>
  return
}

// -----

func.func @f(%a: tensor<8x4x16x16xf16>, %b: tensor<8x2x16x16xf16>) {
  // expected-error @+1 {{'mixprec.batch_matmul' op batch dims differ: [8, 4] vs [8, 2]}}
  %0 = mixprec.batch_matmul %a, %b : tensor<8x4x16x16xf16>, tensor<8x2x16x16xf16> -> tensor<8x4x16x16xf32>
  return
}

// -----

func.func @f(%a: tensor<2x4x8xf32>, %b: tensor<2x4x8xf32>) {
  // expected-error @+1 {{'mixprec.batch_matmul' op contraction dims differ: lhs has K = 8, rhs has K = 4}}
  %0 = mixprec.batch_matmul %a, %b : tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return
}

// -----

func.func @f(%a: tensor<2x4x8xf32>, %b: tensor<2x16x8xf32>) {
  // expected-error @+1 {{'mixprec.batch_matmul' op result shape must be [2, 4, 16], got [2, 4, 8]}}
  %0 = mixprec.batch_matmul %a, %b {transpose_rhs} : tensor<2x4x8xf32>, tensor<2x16x8xf32> -> tensor<2x4x8xf32>
  return
}

// -----

func.func @f(%x: tensor<f32>, %w: tensor<4x1xf32>) {
  // expected-error @+1 {{'mixprec.linear' op input must have rank >= 1}}
  %0 = mixprec.linear %x, %w : tensor<f32>, tensor<4x1xf32> -> tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<8x64xf32>, %w: tensor<2x128x64xf32>) {
  // expected-error @+1 {{'mixprec.linear' op weight must be rank 2 [out, in], got rank 3}}
  %0 = mixprec.linear %x, %w : tensor<8x64xf32>, tensor<2x128x64xf32> -> tensor<8x128xf32>
  return
}

// -----

func.func @f(%x: tensor<8x64xf16>, %w: tensor<128x64xf16>, %b: tensor<128xf32>) {
  // expected-error @+1 {{'mixprec.linear' op bias element type must be the operands' ('f16'), got 'f32'}}
  %0 = mixprec.linear %x, %w, %b : tensor<8x64xf16>, tensor<128x64xf16>, tensor<128xf32> -> tensor<8x128xf32>
  return
}

// -----

func.func @f(%x: tensor<8x32xf32>, %w: tensor<128x64xf32>) {
  // expected-error @+1 {{'mixprec.linear' op input's last dim (32) must equal the weight's in-features (64)}}
  %0 = mixprec.linear %x, %w : tensor<8x32xf32>, tensor<128x64xf32> -> tensor<8x128xf32>
  return
}

// -----

func.func @f(%x: tensor<8x64xf32>, %w: tensor<128x64xf32>, %b: tensor<64xf32>) {
  // expected-error @+1 {{'mixprec.linear' op bias must be [128], got [64]}}
  %0 = mixprec.linear %x, %w, %b : tensor<8x64xf32>, tensor<128x64xf32>, tensor<64xf32> -> tensor<8x128xf32>
  return
}

// -----

func.func @f(%x: tensor<2x8x64xf32>, %w: tensor<128x64xf32>) {
  // expected-error @+1 {{'mixprec.linear' op result shape must be [2, 8, 128], got [16, 128]}}
  %0 = mixprec.linear %x, %w : tensor<2x8x64xf32>, tensor<128x64xf32> -> tensor<16x128xf32>
  return
}

// -----

func.func @f(%x: tensor<32x8x8xf32>, %w: tensor<8x1x3x3xf32>) {
  // expected-error @+1 {{'mixprec.conv2d' op input (NCHW) and weight (OIHW) must be rank 4, got rank 3 and 4}}
  %0 = mixprec.conv2d %x, %w : tensor<32x8x8xf32>, tensor<8x1x3x3xf32> -> tensor<32x8x6x6xf32>
  return
}

// -----

func.func @f(%x: tensor<32x1x8x8xf32>, %w: tensor<8x1x3x3xf16>) {
  // expected-error @+1 {{'mixprec.conv2d' op operands must share one element type, got 'f32' and 'f16'}}
  %0 = mixprec.conv2d %x, %w : tensor<32x1x8x8xf32>, tensor<8x1x3x3xf16> -> tensor<32x8x6x6xf32>
  return
}

// -----

func.func @f(%x: tensor<32x1x8x8xf32>, %w: tensor<8x1x3x3xf32>) {
  // expected-error @+1 {{'mixprec.conv2d' op stride, padding and dilation need 2 values each}}
  %0 = mixprec.conv2d %x, %w {stride = array<i64: 1, 1, 1>} : tensor<32x1x8x8xf32>, tensor<8x1x3x3xf32> -> tensor<32x8x6x6xf32>
  return
}

// -----

func.func @f(%x: tensor<32x1x8x8xf32>, %w: tensor<8x1x3x3xf32>) {
  // expected-error @+1 {{'mixprec.conv2d' op stride and dilation must be >= 1}}
  %0 = mixprec.conv2d %x, %w {stride = array<i64: 0, 1>} : tensor<32x1x8x8xf32>, tensor<8x1x3x3xf32> -> tensor<32x8x6x6xf32>
  return
}

// -----

func.func @f(%x: tensor<32x1x8x8xf32>, %w: tensor<8x1x3x3xf32>) {
  // expected-error @+1 {{'mixprec.conv2d' op stride and dilation must be >= 1}}
  %0 = mixprec.conv2d %x, %w {dilation = array<i64: 1, -1>} : tensor<32x1x8x8xf32>, tensor<8x1x3x3xf32> -> tensor<32x8x6x6xf32>
  return
}

// -----

func.func @f(%x: tensor<32x1x8x8xf32>, %w: tensor<8x1x3x3xf32>) {
  // expected-error @+1 {{'mixprec.conv2d' op padding must be >= 0, got [-1, 0]}}
  %0 = mixprec.conv2d %x, %w {padding = array<i64: -1, 0>} : tensor<32x1x8x8xf32>, tensor<8x1x3x3xf32> -> tensor<32x8x6x6xf32>
  return
}

// -----

func.func @f(%x: tensor<32x6x8x8xf32>, %w: tensor<8x2x3x3xf32>) {
  // expected-error @+1 {{'mixprec.conv2d' op groups (4) must be >= 1 and divide the input channels (6) and the output channels (8)}}
  %0 = mixprec.conv2d %x, %w {groups = 4 : i64} : tensor<32x6x8x8xf32>, tensor<8x2x3x3xf32> -> tensor<32x8x6x6xf32>
  return
}

// -----

func.func @f(%x: tensor<32x6x8x8xf32>, %w: tensor<8x6x3x3xf32>) {
  // expected-error @+1 {{'mixprec.conv2d' op groups (0) must be >= 1 and divide the input channels (6) and the output channels (8)}}
  %0 = mixprec.conv2d %x, %w {groups = 0 : i64} : tensor<32x6x8x8xf32>, tensor<8x6x3x3xf32> -> tensor<32x8x6x6xf32>
  return
}

// -----

func.func @f(%x: tensor<32x1x8x8xf32>, %w: tensor<8x1x0x3xf32>) {
  // expected-error @+1 {{'mixprec.conv2d' op kernel dims must be >= 1, got [0, 3]}}
  %0 = mixprec.conv2d %x, %w : tensor<32x1x8x8xf32>, tensor<8x1x0x3xf32> -> tensor<32x8x9x6xf32>
  return
}

// -----

func.func @f(%x: tensor<32x6x8x8xf32>, %w: tensor<8x6x3x3xf32>) {
  // expected-error @+1 {{'mixprec.conv2d' op weight dim 1 must be input channels / groups (3), got 6}}
  %0 = mixprec.conv2d %x, %w {groups = 2 : i64} : tensor<32x6x8x8xf32>, tensor<8x6x3x3xf32> -> tensor<32x8x6x6xf32>
  return
}

// -----

func.func @f(%x: tensor<32x1x8x8xf32>, %w: tensor<8x1x3x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'mixprec.conv2d' op bias must be [8], got [4]}}
  %0 = mixprec.conv2d %x, %w, %b : tensor<32x1x8x8xf32>, tensor<8x1x3x3xf32>, tensor<4xf32> -> tensor<32x8x6x6xf32>
  return
}

// -----

func.func @f(%x: tensor<32x1x8x8xf32>, %w: tensor<8x1x3x3xf32>, %b: tensor<8xbf16>) {
  // expected-error @+1 {{'mixprec.conv2d' op bias element type must be the operands' ('f32'), got 'bf16'}}
  %0 = mixprec.conv2d %x, %w, %b : tensor<32x1x8x8xf32>, tensor<8x1x3x3xf32>, tensor<8xbf16> -> tensor<32x8x6x6xf32>
  return
}

// -----

func.func @f(%x: tensor<32x1x4x8xf32>, %w: tensor<8x1x5x3xf32>) {
  // expected-error @+1 {{'mixprec.conv2d' op the kernel does not fit spatial dim 0 of the padded input}}
  %0 = mixprec.conv2d %x, %w : tensor<32x1x4x8xf32>, tensor<8x1x5x3xf32> -> tensor<32x8x1x6xf32>
  return
}

// -----

func.func @f(%x: tensor<32x1x8x8xf32>, %w: tensor<8x1x3x3xf32>) {
  // expected-error @+1 {{'mixprec.conv2d' op result shape must be [32, 8, 8, 8], got [32, 8, 6, 6]}}
  %0 = mixprec.conv2d %x, %w {padding = array<i64: 1, 1>} : tensor<32x1x8x8xf32>, tensor<8x1x3x3xf32> -> tensor<32x8x6x6xf32>
  return
}

// -----

func.func @f(%x: tensor<32x1x8x8xf16>, %w: tensor<8x1x3x3xf16>) {
  // expected-error @+1 {{'mixprec.conv2d' op result element type must be the operands' ('f16') or f32 (the accumulator), got 'bf16'}}
  %0 = mixprec.conv2d %x, %w : tensor<32x1x8x8xf16>, tensor<8x1x3x3xf16> -> tensor<32x8x6x6xbf16>
  return
}

//===----------------------------------------------------------------------===//
// Elementwise binary ops: add, sub, mul, div, maximum, minimum, pow
//===----------------------------------------------------------------------===//

// -----

func.func @f(%a: tensor<4x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{operand shapes must match, got [4, 8] and [8]; broadcast explicitly with mixprec.broadcast}}
  %0 = mixprec.add %a, %b : tensor<4x8xf32>, tensor<8xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>, %b: tensor<4x8xf16>) {
  // expected-error @+2 {{'mixprec.sub' op inferred type(s) 'tensor<4x8xf32>' are incompatible with return type(s) of operation 'tensor<4x8xf16>'}}
  // expected-error @+1 {{'mixprec.sub' op failed to infer returned types}}
  %0 = "mixprec.sub"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf16>) -> tensor<4x8xf16>
  return
}

// -----

func.func @f(%a: tensor<4x4xf32>, %b: tensor<?x4xf32>) {
  // Type inference runs while the custom form is parsed and checks shapes first.
  // expected-error @+1 {{operand #1 must be a statically shaped tensor, got 'tensor<?x4xf32>'}}
  %0 = mixprec.add %a, %b : tensor<4x4xf32>, tensor<?x4xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xi32>, %b: tensor<4x8xi32>) {
  // expected-error @+1 {{'mixprec.mul' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x8xi32>'}}
  %0 = mixprec.mul %a, %b : tensor<4x8xi32>, tensor<4x8xi32>
  return
}

// -----

func.func @f(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>) {
  // expected-error @+1 {{'mixprec.div' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<?x4xf32>'}}
  %0 = "mixprec.div"(%a, %b) : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf16>, %b: tensor<4x8xbf16>) {
  // f16 meets bf16: the result is f32, not either input type.
  // expected-error @+2 {{'mixprec.maximum' op inferred type(s) 'tensor<4x8xf32>' are incompatible with return type(s) of operation 'tensor<4x8xf16>'}}
  // expected-error @+1 {{'mixprec.maximum' op failed to infer returned types}}
  %0 = "mixprec.maximum"(%a, %b) : (tensor<4x8xf16>, tensor<4x8xbf16>) -> tensor<4x8xf16>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+2 {{operand shapes must match, got [4, 8] and [8, 4]; broadcast explicitly with mixprec.broadcast}}
  // expected-error @+1 {{'mixprec.minimum' op failed to infer returned types}}
  %0 = "mixprec.minimum"(%a, %b) : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>, %b: tensor<4x8xi64>) {
  // expected-error @+1 {{'mixprec.pow' op operand #1 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x8xi64>'}}
  %0 = mixprec.pow %a, %b : tensor<4x8xf32>, tensor<4x8xi64>
  return
}

//===----------------------------------------------------------------------===//
// logical_not
//===----------------------------------------------------------------------===//

// -----

func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{'mixprec.logical_not' op operand #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = mixprec.logical_not %x : tensor<4xf32>
  return
}

//===----------------------------------------------------------------------===//
// where
//===----------------------------------------------------------------------===//

// -----

func.func @f(%c: tensor<4xi1>, %x: tensor<4x8xf32>, %y: tensor<4x8xf32>) {
  // expected-error @+1 {{'mixprec.where' op failed to verify that all of {condition, result} have same shape}}
  %0 = mixprec.where %c, %x, %y : tensor<4xi1>, tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @f(%c: tensor<4x8xi1>, %x: tensor<4x8xf32>, %y: tensor<8x4xf32>) {
  // expected-error @+1 {{operand shapes must match, got [4, 8] and [8, 4]; broadcast explicitly with mixprec.broadcast}}
  %0 = mixprec.where %c, %x, %y : tensor<4x8xi1>, tensor<4x8xf32>, tensor<8x4xf32>
  return
}

// -----

func.func @f(%c: tensor<4x8xf32>, %x: tensor<4x8xf32>, %y: tensor<4x8xf32>) {
  // expected-error @+1 {{'mixprec.where' op operand #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4x8xf32>'}}
  %0 = mixprec.where %c, %x, %y : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @f(%c: tensor<4x8xi1>, %x: tensor<4x8xf32>, %y: tensor<4x8xi32>) {
  // expected-error @+1 {{'mixprec.where' op operand #2 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x8xi32>'}}
  %0 = mixprec.where %c, %x, %y : tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xi32>
  return
}

// -----

func.func @f(%c: tensor<4x8xi1>, %x: tensor<4x8xf32>, %y: tensor<4x8xf16>) {
  // expected-error @+2 {{'mixprec.where' op inferred type(s) 'tensor<4x8xf32>' are incompatible with return type(s) of operation 'tensor<4x8xf16>'}}
  // expected-error @+1 {{'mixprec.where' op failed to infer returned types}}
  %0 = "mixprec.where"(%c, %x, %y) : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf16>) -> tensor<4x8xf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Elementwise unary ops: neg, abs, clamp, exp, log, sqrt, rsqrt, tanh,
// sigmoid, relu, silu, gelu
//===----------------------------------------------------------------------===//

// -----

func.func @f(%x: tensor<4xi32>) {
  // expected-error @+1 {{'mixprec.relu' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %0 = mixprec.relu %x : tensor<4xi32>
  return
}

// -----

func.func @f(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'mixprec.neg' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<?x4xf32>'}}
  %0 = mixprec.neg %x : tensor<?x4xf32>
  return
}

// -----

func.func @f(%x: tensor<4xi32>) {
  // expected-error @+1 {{'mixprec.abs' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %0 = mixprec.abs %x : tensor<4xi32>
  return
}

// -----

func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{'mixprec.clamp' op needs a min or a max bound}}
  %0 = mixprec.clamp %x : tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<4xf16>) {
  // expected-error @+1 {{'mixprec.clamp' op min must be <= max, got min = 1.000000e+00 and max = 5.000000e-01}}
  %0 = mixprec.clamp %x {min = 1.0 : f64, max = 0.5 : f64} : tensor<4xf16>
  return
}

// -----

func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{'mixprec.clamp' op max must be finite, got INF}}
  %0 = mixprec.clamp %x {max = 0x7FF0000000000000 : f64} : tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{'mixprec.clamp' op min must be finite, got nan}}
  %0 = mixprec.clamp %x {min = 0x7FF8000000000000 : f64} : tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{'mixprec.clamp' op attribute 'min' failed to satisfy constraint: 64-bit float attribute}}
  %0 = mixprec.clamp %x {min = 0.0 : f32} : tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<4xi32>) {
  // expected-error @+1 {{'mixprec.clamp' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %0 = mixprec.clamp %x {min = 0.0 : f64} : tensor<4xi32>
  return
}

// -----

func.func @f(%x: tensor<4xf16>) {
  // expected-error @+1 {{'mixprec.exp' op requires the same type for all operands and results}}
  %0 = "mixprec.exp"(%x) : (tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<*xf32>) {
  // expected-error @+1 {{'mixprec.log' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<*xf32>'}}
  %0 = "mixprec.log"(%x) : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @f(%x: tensor<4xi1>) {
  // expected-error @+1 {{'mixprec.sqrt' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi1>'}}
  %0 = mixprec.sqrt %x : tensor<4xi1>
  return
}

// -----

func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mixprec.rsqrt' op requires the same type for all operands and results}}
  %0 = "mixprec.rsqrt"(%x) : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return
}

// -----

func.func @f(%x: tensor<4xf64>) {
  // expected-error @+1 {{'mixprec.tanh' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xf64>'}}
  %0 = mixprec.tanh %x : tensor<4xf64>
  return
}

// -----

func.func @f(%x: memref<4xf32>) {
  // expected-error @+1 {{'mixprec.sigmoid' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'memref<4xf32>'}}
  %0 = "mixprec.sigmoid"(%x) : (memref<4xf32>) -> memref<4xf32>
  return
}

// -----

func.func @f(%x: tensor<4xi64>) {
  // expected-error @+1 {{'mixprec.silu' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi64>'}}
  %0 = mixprec.silu %x : tensor<4xi64>
  return
}

// -----

func.func @f(%x: tensor<16x256xf16>) {
  // expected-error @+1 {{'mixprec.gelu' op requires the same type for all operands and results}}
  %0 = "mixprec.gelu"(%x) {approximate = #mixprec<gelu_approximation tanh>} : (tensor<16x256xf16>) -> tensor<16x256xbf16>
  return
}

// -----

func.func @f(%x: tensor<16x256xf16>) {
  // expected-error @+1 {{'mixprec.gelu' op attribute 'approximate' failed to satisfy constraint: which form of GELU to compute; expected one of: #mixprec<gelu_approximation erf>, #mixprec<gelu_approximation tanh>}}
  %0 = "mixprec.gelu"(%x) {approximate = 1 : i32} : (tensor<16x256xf16>) -> tensor<16x256xf16>
  return
}

//===----------------------------------------------------------------------===//
// Normalizations: softmax, log_softmax, layer_norm, batch_norm
//===----------------------------------------------------------------------===//

// -----

func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mixprec.softmax' op axis 2 is out of range for rank 2}}
  %0 = mixprec.softmax %x {axis = 2 : i64} : tensor<4x8xf32>
  return
}

// -----

func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mixprec.log_softmax' op axis -1 is out of range for rank 2}}
  %0 = mixprec.log_softmax %x {axis = -1 : i64} : tensor<4x8xf32>
  return
}

// -----

func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mixprec.softmax' op requires attribute 'axis'}}
  %0 = mixprec.softmax %x : tensor<4x8xf32>
  return
}

// -----

func.func @f(%x: tensor<8x16x64xf32>) {
  // expected-error @+1 {{'mixprec.layer_norm' op axis 3 is out of range for rank 3}}
  %0 = mixprec.layer_norm %x {axis = 3 : i64} : tensor<8x16x64xf32>
  return
}

// -----

func.func @f(%x: tensor<8x16x64xf32>) {
  // expected-error @+1 {{'mixprec.layer_norm' op eps must be finite and > 0, got 0.000000e+00}}
  %0 = mixprec.layer_norm %x {axis = 2 : i64, eps = 0.0 : f64} : tensor<8x16x64xf32>
  return
}

// -----

func.func @f(%x: tensor<8x16x64xf32>) {
  // expected-error @+1 {{'mixprec.layer_norm' op eps must be finite and > 0, got INF}}
  %0 = mixprec.layer_norm %x {axis = 2 : i64, eps = 0x7FF0000000000000 : f64} : tensor<8x16x64xf32>
  return
}

// -----

func.func @f(%x: tensor<8x16x64xf32>, %g: tensor<64xf32>) {
  // expected-error @+1 {{'mixprec.layer_norm' op scale and bias must be given together}}
  %0 = "mixprec.layer_norm"(%x, %g) {axis = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<8x16x64xf32>, tensor<64xf32>) -> tensor<8x16x64xf32>
  return
}

// -----

func.func @f(%x: tensor<8x16x64xf32>, %g: tensor<64xf32>) {
  // The custom form takes scale and bias together or not at all.
  // expected-error @+1 {{custom op 'mixprec.layer_norm' expected 'bias'}}
  %0 = mixprec.layer_norm %x scale %g {axis = 2 : i64} : tensor<8x16x64xf32>, tensor<64xf32>
  return
}

// -----

func.func @f(%x: tensor<8x16x64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>) {
  // expected-error @+1 {{'mixprec.layer_norm' op scale must be [16, 64] (the normalized dims), got [64]}}
  %0 = mixprec.layer_norm %x scale %g bias %b {axis = 1 : i64} : tensor<8x16x64xf32>, tensor<64xf32>, tensor<64xf32>
  return
}

// -----

func.func @f(%x: tensor<8x16x64xf16>, %g: tensor<64xf16>, %b: tensor<64xf32>) {
  // expected-error @+1 {{'mixprec.layer_norm' op bias element type must be the input's ('f16'), got 'f32'}}
  %0 = mixprec.layer_norm %x scale %g bias %b {axis = 2 : i64} : tensor<8x16x64xf16>, tensor<64xf16>, tensor<64xf32>
  return
}

// -----

func.func @f(%x: tensor<8x16x64xf32>) {
  // expected-error @+1 {{'mixprec.layer_norm' op failed to verify that all of {input, result} have same type}}
  %0 = "mixprec.layer_norm"(%x) {axis = 2 : i64, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<8x16x64xf32>) -> tensor<8x16x64xf16>
  return
}

// -----

func.func @f(%x: tensor<32x8x8xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>) {
  // expected-error @+1 {{'mixprec.batch_norm' op input must be [N, C] or [N, C, H, W], got rank 3}}
  %0:3 = mixprec.batch_norm %x, %m, %v : tensor<32x8x8xf32>, tensor<8xf32>
  return
}

// -----

func.func @f(%x: tensor<32x8x4x4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) {
  // expected-error @+1 {{'mixprec.batch_norm' op running statistics must be [8] (the channels), got [4]}}
  %0:3 = mixprec.batch_norm %x, %m, %v : tensor<32x8x4x4xf32>, tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<32x8xf16>, %m: tensor<8xf32>, %v: tensor<8xf32>) {
  // expected-error @+1 {{'mixprec.batch_norm' op momentum must be in [0, 1], got 1.100000e+00}}
  %0:3 = mixprec.batch_norm %x, %m, %v {momentum = 1.1 : f64} : tensor<32x8xf16>, tensor<8xf32>
  return
}

// -----

func.func @f(%x: tensor<32x8xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>) {
  // expected-error @+1 {{'mixprec.batch_norm' op eps must be finite and > 0, got -1.000000e-05}}
  %0:3 = mixprec.batch_norm %x, %m, %v {eps = -1.0e-5 : f64} : tensor<32x8xf32>, tensor<8xf32>
  return
}

// -----

func.func @f(%x: tensor<32x8x4x4xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'mixprec.batch_norm' op scale must be [8] (the channels), got [4]}}
  %0:3 = mixprec.batch_norm %x, %m, %v scale %g bias %b : tensor<32x8x4x4xf32>, tensor<8xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<32x8xf16>, %m: tensor<8xf32>, %v: tensor<8xf32>, %g: tensor<8xf32>, %b: tensor<8xf16>) {
  // expected-error @+1 {{'mixprec.batch_norm' op scale element type must be the input's ('f16'), got 'f32'}}
  %0:3 = mixprec.batch_norm %x, %m, %v scale %g bias %b : tensor<32x8xf16>, tensor<8xf32>, tensor<8xf32>, tensor<8xf16>
  return
}

// -----

func.func @f(%x: tensor<32x8xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'mixprec.batch_norm' op scale and bias must be given together}}
  %0:3 = "mixprec.batch_norm"(%x, %m, %v, %b) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>} : (tensor<32x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<32x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

func.func @f(%x: tensor<32x8xf32>, %m: tensor<8xf32>, %v: tensor<16xf32>) {
  // expected-error @+1 {{'mixprec.batch_norm' op failed to verify that all of {running_mean, running_var, running_mean_out, running_var_out} have same type}}
  %0:3 = "mixprec.batch_norm"(%x, %m, %v) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<32x8xf32>, tensor<8xf32>, tensor<16xf32>) -> (tensor<32x8xf32>, tensor<8xf32>, tensor<16xf32>)
  return
}

// -----

func.func @f(%x: tensor<32x8xf16>, %m: tensor<8xf16>, %v: tensor<8xf16>) {
  // expected-error @+1 {{'mixprec.batch_norm' op operand #1 must be statically shaped tensor of 32-bit float values, but got 'tensor<8xf16>'}}
  %0:3 = mixprec.batch_norm %x, %m, %v : tensor<32x8xf16>, tensor<8xf16>
  return
}

//===----------------------------------------------------------------------===//
// Reductions: reduce_sum, reduce_mean, reduce_max
//===----------------------------------------------------------------------===//

// -----

func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{dim 2 is out of range for rank 2}}
  %0 = mixprec.reduce_sum %x {dims = array<i64: 2>, keepdim} : tensor<4x8xf32>
  return
}

// -----

func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mixprec.reduce_mean' op requires attribute 'dims'}}
  %0 = mixprec.reduce_mean %x : tensor<4x8xf32>
  return
}

// -----

func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{dims must not be empty}}
  // expected-error @+1 {{'mixprec.reduce_sum' op failed to infer returned types}}
  %0 = "mixprec.reduce_sum"(%x) {dims = array<i64>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'mixprec.reduce_sum' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4x1xf32>'}}
  // expected-error @+1 {{'mixprec.reduce_sum' op failed to infer returned types}}
  %0 = "mixprec.reduce_sum"(%x) {dims = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  return
}

// -----

func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{dim 2 is out of range for rank 2}}
  // expected-error @+1 {{'mixprec.reduce_mean' op failed to infer returned types}}
  %0 = "mixprec.reduce_mean"(%x) {dims = array<i64: 0, 2>} : (tensor<4x8xf32>) -> tensor<f32>
  return
}

// -----

func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{dim -1 is out of range for rank 2}}
  // expected-error @+1 {{'mixprec.reduce_mean' op failed to infer returned types}}
  %0 = "mixprec.reduce_mean"(%x) {dims = array<i64: -1>} : (tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<2x4x8xf32>) {
  // expected-error @+2 {{dims must be strictly increasing, got [2, 0]}}
  // expected-error @+1 {{'mixprec.reduce_max' op failed to infer returned types}}
  %0 = "mixprec.reduce_max"(%x) {dims = array<i64: 2, 0>} : (tensor<2x4x8xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<2x4x8xf32>) {
  // expected-error @+2 {{dims must be strictly increasing, got [1, 1]}}
  // expected-error @+1 {{'mixprec.reduce_max' op failed to infer returned types}}
  %0 = "mixprec.reduce_max"(%x) {dims = array<i64: 1, 1>} : (tensor<2x4x8xf32>) -> tensor<2x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// Data movement: transpose, reshape, broadcast, slice, concat, embedding
//===----------------------------------------------------------------------===//

// -----

func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{permutation [0, 0] is not a permutation of the 2 dims}}
  %0 = mixprec.transpose %x {permutation = array<i64: 0, 0>} : tensor<4x8xf32>
  return
}

// -----

func.func @f(%x: tensor<2x4x8xf32>) {
  // expected-error @+2 {{permutation [0, 1] is not a permutation of the 3 dims}}
  // expected-error @+1 {{'mixprec.transpose' op failed to infer returned types}}
  %0 = "mixprec.transpose"(%x) {permutation = array<i64: 0, 1>} : (tensor<2x4x8xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @f(%x: tensor<2x4x8xf32>) {
  // expected-error @+2 {{permutation [0, 2, 2] is not a permutation of the 3 dims}}
  // expected-error @+1 {{'mixprec.transpose' op failed to infer returned types}}
  %0 = "mixprec.transpose"(%x) {permutation = array<i64: 0, 2, 2>} : (tensor<2x4x8xf32>) -> tensor<2x8x8xf32>
  return
}

// -----

func.func @f(%x: tensor<2x4x8xf32>) {
  // expected-error @+2 {{'mixprec.transpose' op inferred type(s) 'tensor<2x8x4xf32>' are incompatible with return type(s) of operation 'tensor<2x4x8xf32>'}}
  // expected-error @+1 {{'mixprec.transpose' op failed to infer returned types}}
  %0 = "mixprec.transpose"(%x) {permutation = array<i64: 0, 2, 1>} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mixprec.reshape' op reshape cannot change the element type}}
  %0 = mixprec.reshape %x : tensor<4x8xf32> -> tensor<32xf16>
  return
}

// -----

func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mixprec.reshape' op cannot reshape 32 elements into 24}}
  %0 = mixprec.reshape %x : tensor<4x8xf32> -> tensor<3x8xf32>
  return
}

// -----

func.func @f(%x: tensor<4x8xui8>) {
  // expected-error @+1 {{'mixprec.reshape' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 1-bit signless integer or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4x8xui8>'}}
  %0 = mixprec.reshape %x : tensor<4x8xui8> -> tensor<32xui8>
  return
}

// -----

func.func @f(%x: tensor<128xf32>) {
  // expected-error @+1 {{'mixprec.broadcast' op broadcast cannot change the element type}}
  %0 = mixprec.broadcast %x : tensor<128xf32> -> tensor<64x128xbf16>
  return
}

// -----

func.func @f(%x: tensor<4x128xf32>) {
  // expected-error @+1 {{'mixprec.broadcast' op cannot broadcast rank 2 to the lower rank 1}}
  %0 = mixprec.broadcast %x : tensor<4x128xf32> -> tensor<128xf32>
  return
}

// -----

func.func @f(%x: tensor<3x1xf32>) {
  // expected-error @+1 {{'mixprec.broadcast' op input dim 0 (size 3) cannot broadcast to result dim 1 (size 4)}}
  %0 = mixprec.broadcast %x : tensor<3x1xf32> -> tensor<2x4x5xf32>
  return
}

// -----

func.func @f(%x: tensor<8x16xf32>) {
  // expected-error @+2 {{offsets, sizes and strides need one value per dim (2)}}
  // expected-error @+1 {{'mixprec.slice' op failed to infer returned types}}
  %0 = "mixprec.slice"(%x) {offsets = array<i64: 0>, sizes = array<i64: 8>} : (tensor<8x16xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @f(%x: tensor<8x16xf32>) {
  // expected-error @+2 {{offsets, sizes and strides need one value per dim (2)}}
  // expected-error @+1 {{'mixprec.slice' op failed to infer returned types}}
  %0 = "mixprec.slice"(%x) {offsets = array<i64: 0, 0>, sizes = array<i64: 8, 1>, strides = array<i64: 1>} : (tensor<8x16xf32>) -> tensor<8x1xf32>
  return
}

// -----

func.func @f(%x: tensor<8x16xf32>) {
  // expected-error @+2 {{slice of dim 1 needs offset >= 0, size >= 1, stride >= 1}}
  // expected-error @+1 {{'mixprec.slice' op failed to infer returned types}}
  %0 = "mixprec.slice"(%x) {offsets = array<i64: 0, 0>, sizes = array<i64: 8, 0>} : (tensor<8x16xf32>) -> tensor<8x0xf32>
  return
}

// -----

func.func @f(%x: tensor<8x16xf32>) {
  // expected-error @+2 {{slice of dim 0 needs offset >= 0, size >= 1, stride >= 1}}
  // expected-error @+1 {{'mixprec.slice' op failed to infer returned types}}
  %0 = "mixprec.slice"(%x) {offsets = array<i64: -1, 0>, sizes = array<i64: 1, 1>} : (tensor<8x16xf32>) -> tensor<1x1xf32>
  return
}

// -----

func.func @f(%x: tensor<8x16xf32>) {
  // expected-error @+2 {{slice of dim 1 reads past its size 16}}
  // expected-error @+1 {{'mixprec.slice' op failed to infer returned types}}
  %0 = "mixprec.slice"(%x) {offsets = array<i64: 0, 4>, sizes = array<i64: 8, 4>, strides = array<i64: 1, 4>} : (tensor<8x16xf32>) -> tensor<8x4xf32>
  return
}

// -----

func.func @f(%x: tensor<4xf32>) {
  // The last index read, (2^62 - 1) * 4, overflows int64_t.
  // expected-error @+1 {{slice of dim 0 reads past its size 4}}
  %0 = mixprec.slice %x {offsets = array<i64: 0>, sizes = array<i64: 4611686018427387904>, strides = array<i64: 4>} : tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<8x16xf32>) {
  // expected-error @+2 {{'mixprec.slice' op inferred type(s) 'tensor<8x1xf32>' are incompatible with return type(s) of operation 'tensor<8xf32>'}}
  // expected-error @+1 {{'mixprec.slice' op failed to infer returned types}}
  %0 = "mixprec.slice"(%x) {offsets = array<i64: 0, 0>, sizes = array<i64: 8, 1>} : (tensor<8x16xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @f() {
  // expected-error @+2 {{concat needs at least one input}}
  // expected-error @+1 {{'mixprec.concat' op failed to infer returned types}}
  %0 = "mixprec.concat"() {axis = 0 : i64} : () -> tensor<1xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf16>, %b: tensor<4x2xf16>) {
  // expected-error @+2 {{axis 2 is out of range for rank 2}}
  // expected-error @+1 {{'mixprec.concat' op failed to infer returned types}}
  %0 = "mixprec.concat"(%a, %b) {axis = 2 : i64} : (tensor<4x8xf16>, tensor<4x2xf16>) -> tensor<4x10xf16>
  return
}

// -----

func.func @f(%a: tensor<4x8xf16>, %b: tensor<4x2xf16>) {
  // expected-error @+1 {{axis -1 is out of range for rank 2}}
  %0 = mixprec.concat %a, %b {axis = -1 : i64} : tensor<4x8xf16>, tensor<4x2xf16>
  return
}

// -----

func.func @f(%a: tensor<4x8xf16>, %b: tensor<4x2x1xf16>) {
  // expected-error @+2 {{inputs must share one rank}}
  // expected-error @+1 {{'mixprec.concat' op failed to infer returned types}}
  %0 = "mixprec.concat"(%a, %b) {axis = 1 : i64} : (tensor<4x8xf16>, tensor<4x2x1xf16>) -> tensor<4x10xf16>
  return
}

// -----

func.func @f(%a: tensor<4x8xf16>, %b: tensor<3x2xf16>) {
  // expected-error @+2 {{inputs differ in dim 0, which is not the concat axis}}
  // expected-error @+1 {{'mixprec.concat' op failed to infer returned types}}
  %0 = "mixprec.concat"(%a, %b) {axis = 1 : i64} : (tensor<4x8xf16>, tensor<3x2xf16>) -> tensor<4x10xf16>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>, %b: tensor<4x2xi32>) {
  // expected-error @+2 {{inputs must be all float or share one integer type}}
  // expected-error @+1 {{'mixprec.concat' op failed to infer returned types}}
  %0 = "mixprec.concat"(%a, %b) {axis = 1 : i64} : (tensor<4x8xf32>, tensor<4x2xi32>) -> tensor<4x10xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xi64>, %b: tensor<4x2xi32>) {
  // expected-error @+2 {{inputs must be all float or share one integer type}}
  // expected-error @+1 {{'mixprec.concat' op failed to infer returned types}}
  %0 = "mixprec.concat"(%a, %b) {axis = 1 : i64} : (tensor<4x8xi64>, tensor<4x2xi32>) -> tensor<4x10xi64>
  return
}

// -----

func.func @f(%a: tensor<4x8xf16>, %b: tensor<4x2xbf16>) {
  // f16 meets bf16: the result is f32.
  // expected-error @+2 {{'mixprec.concat' op inferred type(s) 'tensor<4x10xf32>' are incompatible with return type(s) of operation 'tensor<4x10xf16>'}}
  // expected-error @+1 {{'mixprec.concat' op failed to infer returned types}}
  %0 = "mixprec.concat"(%a, %b) {axis = 1 : i64} : (tensor<4x8xf16>, tensor<4x2xbf16>) -> tensor<4x10xf16>
  return
}

// -----

func.func @f(%t: tensor<100xf32>, %i: tensor<8x16xi32>) {
  // expected-error @+1 {{table must be [vocab, dim], got rank 1}}
  %0 = mixprec.embedding %t, %i : tensor<100xf32>, tensor<8x16xi32>
  return
}

// -----

func.func @f(%t: tensor<100x64xf32>, %i: tensor<8x16xf32>) {
  // expected-error @+1 {{'mixprec.embedding' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<8x16xf32>'}}
  %0 = "mixprec.embedding"(%t, %i) : (tensor<100x64xf32>, tensor<8x16xf32>) -> tensor<8x16x64xf32>
  return
}

// -----

func.func @f(%t: tensor<100x64xf16>, %i: tensor<8x16xi64>) {
  // expected-error @+2 {{'mixprec.embedding' op inferred type(s) 'tensor<8x16x64xf16>' are incompatible with return type(s) of operation 'tensor<8x16x64xf32>'}}
  // expected-error @+1 {{'mixprec.embedding' op failed to infer returned types}}
  %0 = "mixprec.embedding"(%t, %i) : (tensor<100x64xf16>, tensor<8x16xi64>) -> tensor<8x16x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// dropout, pooling, constant, cast
//===----------------------------------------------------------------------===//

// -----

func.func @f(%x: tensor<8x16xf16>, %rng: tensor<2xi64>) {
  // expected-error @+1 {{'mixprec.dropout' op p must be in [0, 1), got 1.000000e+00}}
  %0 = mixprec.dropout %x, %rng {p = 1.0 : f64} : tensor<8x16xf16>
  return
}

// -----

func.func @f(%x: tensor<8x16xf16>, %rng: tensor<2xi64>) {
  // expected-error @+1 {{'mixprec.dropout' op p must be in [0, 1), got -1.000000e-01}}
  %0 = mixprec.dropout %x, %rng {p = -0.1 : f64} : tensor<8x16xf16>
  return
}

// -----

func.func @f(%x: tensor<8x16xf16>, %rng: tensor<2xi64>) {
  // expected-error @+1 {{'mixprec.dropout' op stream must be >= 0, got -1}}
  %0 = mixprec.dropout %x, %rng {p = 0.1 : f64, stream = -1 : i64} : tensor<8x16xf16>
  return
}

// -----

func.func @f(%x: tensor<8x16xf16>, %rng: tensor<3xi64>) {
  // expected-error @+1 {{'mixprec.dropout' op operand #1 must be tensor<2xi64> RNG state (seed, offset), but got 'tensor<3xi64>'}}
  %0 = "mixprec.dropout"(%x, %rng) {p = 0.1 : f64} : (tensor<8x16xf16>, tensor<3xi64>) -> tensor<8x16xf16>
  return
}

// -----

func.func @f(%x: tensor<8x16xf16>, %rng: tensor<2xi32>) {
  // expected-error @+1 {{'mixprec.dropout' op operand #1 must be tensor<2xi64> RNG state (seed, offset), but got 'tensor<2xi32>'}}
  %0 = "mixprec.dropout"(%x, %rng) {p = 0.1 : f64} : (tensor<8x16xf16>, tensor<2xi32>) -> tensor<8x16xf16>
  return
}

// -----

func.func @f(%x: tensor<8x16xf16>, %rng: tensor<2xi64>) {
  // expected-error @+1 {{'mixprec.dropout' op failed to verify that all of {input, result} have same type}}
  %0 = "mixprec.dropout"(%x, %rng) {p = 0.1 : f64} : (tensor<8x16xf16>, tensor<2xi64>) -> tensor<8x16xf32>
  return
}

// -----

func.func @f(%x: tensor<8x8x8xf32>) {
  // expected-error @+2 {{input must be NCHW (rank 4), got rank 3}}
  // expected-error @+1 {{'mixprec.max_pool2d' op failed to infer returned types}}
  %0 = "mixprec.max_pool2d"(%x) {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (tensor<8x8x8xf32>) -> tensor<8x4x4xf32>
  return
}

// -----

func.func @f(%x: tensor<32x8x8x8xf32>) {
  // expected-error @+2 {{kernel, stride and padding need 2 values each}}
  // expected-error @+1 {{'mixprec.max_pool2d' op failed to infer returned types}}
  %0 = "mixprec.max_pool2d"(%x) {kernel = array<i64: 2>, stride = array<i64: 2, 2>} : (tensor<32x8x8x8xf32>) -> tensor<32x8x4x4xf32>
  return
}

// -----

func.func @f(%x: tensor<32x8x8x8xf32>) {
  // expected-error @+2 {{kernel and stride must be >= 1}}
  // expected-error @+1 {{'mixprec.max_pool2d' op failed to infer returned types}}
  %0 = "mixprec.max_pool2d"(%x) {kernel = array<i64: 2, 2>, stride = array<i64: 2, 0>} : (tensor<32x8x8x8xf32>) -> tensor<32x8x4x4xf32>
  return
}

// -----

func.func @f(%x: tensor<32x8x8x8xf32>) {
  // expected-error @+2 {{padding must be in [0, kernel / 2], got 2 for kernel 3}}
  // expected-error @+1 {{'mixprec.avg_pool2d' op failed to infer returned types}}
  %0 = "mixprec.avg_pool2d"(%x) {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 2, 1>} : (tensor<32x8x8x8xf32>) -> tensor<32x8x8x8xf32>
  return
}

// -----

// A padding whose double overflows int64 (the ASan + UBSan run checks that
// the verifier computes no such product).
func.func @f(%x: tensor<32x8x8x8xf32>) {
  // expected-error @+2 {{padding must be in [0, kernel / 2], got 4611686018427387904 for kernel 9223372036854775807}}
  // expected-error @+1 {{'mixprec.max_pool2d' op failed to infer returned types}}
  %0 = "mixprec.max_pool2d"(%x) {kernel = array<i64: 9223372036854775807, 3>, stride = array<i64: 1, 1>, padding = array<i64: 4611686018427387904, 1>} : (tensor<32x8x8x8xf32>) -> tensor<32x8x8x8xf32>
  return
}

// -----

func.func @f(%x: tensor<32x8x8x8xf32>) {
  // expected-error @+2 {{padding must be in [0, kernel / 2], got -1 for kernel 3}}
  // expected-error @+1 {{'mixprec.avg_pool2d' op failed to infer returned types}}
  %0 = "mixprec.avg_pool2d"(%x) {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, -1>} : (tensor<32x8x8x8xf32>) -> tensor<32x8x8x6xf32>
  return
}

// -----

func.func @f(%x: tensor<32x8x8x2xf32>) {
  // expected-error @+2 {{kernel 3 is larger than padded spatial dim 1}}
  // expected-error @+1 {{'mixprec.avg_pool2d' op failed to infer returned types}}
  %0 = "mixprec.avg_pool2d"(%x) {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>} : (tensor<32x8x8x2xf32>) -> tensor<32x8x6x1xf32>
  return
}

// -----

func.func @f(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{kernel 5 is larger than padded spatial dim 0}}
  %0 = mixprec.avg_pool2d %x {kernel = array<i64: 5, 5>, stride = array<i64: 1, 1>} : tensor<1x1x4x4xf32>
  return
}

// -----

func.func @f(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{'mixprec.max_pool2d' op attribute 'stride' failed to satisfy constraint: i64 dense array attribute}}
  %0 = mixprec.max_pool2d %x {kernel = array<i64: 2, 2>, stride = 2 : i64} : tensor<1x1x4x4xf32>
  return
}

// -----

func.func @f(%x: tensor<32x8x8x8xf32>) {
  // expected-error @+2 {{'mixprec.avg_pool2d' op inferred type(s) 'tensor<32x8x4x4xf32>' are incompatible with return type(s) of operation 'tensor<32x8x8x8xf32>'}}
  // expected-error @+1 {{'mixprec.avg_pool2d' op failed to infer returned types}}
  %0 = "mixprec.avg_pool2d"(%x) {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (tensor<32x8x8x8xf32>) -> tensor<32x8x8x8xf32>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'mixprec.constant' op result #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 1-bit signless integer or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi8>'}}
  %0 = mixprec.constant dense<1> : tensor<4xi8>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'mixprec.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "mixprec.constant"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<4xf16>
  return
}

// -----

func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mixprec.cast' op casts produce float tensors, got 'i32'}}
  %0 = mixprec.cast %x : tensor<4x8xf32> to tensor<4x8xi32>
  return
}

// -----

func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mixprec.cast' op requires the same shape for all operands and results}}
  %0 = mixprec.cast %x : tensor<4x8xf32> to tensor<8x4xf16>
  return
}

//===----------------------------------------------------------------------===//
// Losses: softmax_cross_entropy, mse
//===----------------------------------------------------------------------===//

// -----

func.func @f(%logits: tensor<8x4x10xf32>, %labels: tensor<8xi32>) {
  // expected-error @+1 {{logits must be [N, C], got rank 3}}
  %0 = mixprec.softmax_cross_entropy %logits, %labels : tensor<8x4x10xf32>, tensor<8xi32>
  return
}

// -----

func.func @f(%logits: tensor<64x10xf32>, %labels: tensor<32xi32>) {
  // expected-error @+1 {{labels must be [64] (one per row of logits), got [32]}}
  %0 = mixprec.softmax_cross_entropy %logits, %labels : tensor<64x10xf32>, tensor<32xi32>
  return
}

// -----

func.func @f(%logits: tensor<64x10xf32>, %labels: tensor<64x1xi64>) {
  // expected-error @+1 {{labels must be [64] (one per row of logits), got [64, 1]}}
  %0 = mixprec.softmax_cross_entropy %logits, %labels : tensor<64x10xf32>, tensor<64x1xi64>
  return
}

// -----

func.func @f(%logits: tensor<64x10xf32>, %labels: tensor<64xf32>) {
  // expected-error @+1 {{'mixprec.softmax_cross_entropy' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<64xf32>'}}
  %0 = "mixprec.softmax_cross_entropy"(%logits, %labels) : (tensor<64x10xf32>, tensor<64xf32>) -> tensor<f32>
  return
}

// -----

func.func @f(%logits: tensor<64x10xf16>, %labels: tensor<64xi32>) {
  // expected-error @+2 {{'mixprec.softmax_cross_entropy' op inferred type(s) 'tensor<f16>' are incompatible with return type(s) of operation 'tensor<f32>'}}
  // expected-error @+1 {{'mixprec.softmax_cross_entropy' op failed to infer returned types}}
  %0 = "mixprec.softmax_cross_entropy"(%logits, %labels) : (tensor<64x10xf16>, tensor<64xi32>) -> tensor<f32>
  return
}

// -----

func.func @f(%pred: tensor<64x1xf32>, %target: tensor<64x1xf16>) {
  // expected-error @+1 {{input and target must have one type, got 'tensor<64x1xf32>' and 'tensor<64x1xf16>'}}
  %0 = mixprec.mse %pred, %target : tensor<64x1xf32>, tensor<64x1xf16>
  return
}

// -----

func.func @f(%pred: tensor<64x1xf32>, %target: tensor<64x1xf32>) {
  // expected-error @+1 {{'mixprec.mse' op attribute 'reduction' failed to satisfy constraint: how a loss reduces over the batch; expected one of: #mixprec<reduction mean>, #mixprec<reduction sum>}}
  %0 = mixprec.mse %pred, %target {reduction = 3 : i32} : tensor<64x1xf32>, tensor<64x1xf32>
  return
}

// -----

func.func @f(%pred: tensor<64x1xf32>, %target: tensor<64xf32>) {
  // expected-error @+2 {{input and target must have one type, got 'tensor<64x1xf32>' and 'tensor<64xf32>'}}
  // expected-error @+1 {{'mixprec.mse' op failed to infer returned types}}
  %0 = "mixprec.mse"(%pred, %target) : (tensor<64x1xf32>, tensor<64xf32>) -> tensor<f32>
  return
}

//===----------------------------------------------------------------------===//
// Training: train_step
//===----------------------------------------------------------------------===//

// -----

func.func @loss(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}

// expected-error @+1 {{'mixprec.train_step' op accumulation_steps must be >= 1, got 0}}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<> {accumulation_steps = 0 : i64}

// -----

func.func @loss(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}

// expected-error @+1 {{'mixprec.train_step' op accumulation_steps must be >= 1, got -1}}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<> {accumulation_steps = -1 : i64}

// -----

// expected-error @+1 {{'mixprec.train_step' op forward function @loss not found}}
mixprec.train_step @train forward @loss optimizer #mixprec.adam<>

// -----

mixprec.parameter @loss : tensor<f32> = #mixprec.zeros

// expected-error @+1 {{'mixprec.train_step' op @loss is a 'mixprec.parameter', not a func.func}}
mixprec.train_step @train forward @loss optimizer #mixprec.adam<>

// -----

func.func @loss(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// expected-error @+1 {{'mixprec.train_step' op forward function must return one 0-d float loss, returns 'tensor<4xf32>'}}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<momentum = 0.9>

// -----

func.func @loss(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  return %x, %x : tensor<f32>, tensor<f32>
}

// expected-error @+1 {{'mixprec.train_step' op forward function must return one 0-d float loss, returns 'tensor<f32>', 'tensor<f32>'}}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<momentum = 0.9>

// -----

func.func @loss(%x: tensor<i32>) -> tensor<i32> {
  return %x : tensor<i32>
}

// expected-error @+1 {{'mixprec.train_step' op forward function must return one 0-d float loss, returns 'tensor<i32>'}}
mixprec.train_step @train forward @loss optimizer #mixprec.adamw<>

// -----

// A 16-bit loss: loss scaling would overflow it, and the trainer reports an
// f32 loss. The error is at the op that computes the loss.
func.func @loss(%x: tensor<4xf16>) -> tensor<f16> {
  // expected-error @+1 {{the loss of train step @train must be f32, got f16; cast it with `mixprec.cast %loss : tensor<f16> to tensor<f32>` and return tensor<f32>}}
  %l = mixprec.reduce_sum %x {dims = array<i64: 0>} : tensor<4xf16>
  return %l : tensor<f16>
}

// expected-note @+1 {{the train step}}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>

// -----

// A loss that is an argument: the error is at the return.
func.func @loss(%x: tensor<bf16>) -> tensor<bf16> {
  // expected-error @+1 {{the loss of train step @train must be f32, got bf16; cast it with `mixprec.cast %loss : tensor<bf16> to tensor<f32>` and return tensor<f32>}}
  return %x : tensor<bf16>
}

// expected-note @+1 {{the train step}}
mixprec.train_step @train forward @loss optimizer #mixprec.adamw<>

// -----

// A declared forward function: the error is at the declaration.
// expected-error @+1 {{the loss of train step @train must be f32, got f16}}
func.func private @loss(%x: tensor<4xf16>) -> tensor<f16>

// expected-note @+1 {{the train step}}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>

// -----

func.func @loss(%x: tensor<?x4xf32>, %y: tensor<f32>) -> tensor<f32> {
  return %y : tensor<f32>
}

// expected-error @+1 {{'mixprec.train_step' op forward function argument 0 must be a statically shaped tensor, got 'tensor<?x4xf32>'}}
mixprec.train_step @train forward @loss optimizer #mixprec.adamw<>

// -----

func.func @loss(%y: tensor<f32>, %x: i32) -> tensor<f32> {
  return %y : tensor<f32>
}

// expected-error @+1 {{'mixprec.train_step' op forward function argument 1 must be a statically shaped tensor, got 'i32'}}
mixprec.train_step @train forward @loss optimizer #mixprec.adamw<>

// -----

mixprec.buffer @m : tensor<8xf32> = #mixprec.zeros

func.func @loss(%x: tensor<8xf32>, %y: tensor<f32>) -> tensor<f32> {
  // expected-note @+1 {{first assigned here}}
  mixprec.assign @m, %x : tensor<8xf32>
  %0 = mixprec.neg %x : tensor<8xf32>
  // expected-note @+1 {{assigned again here}}
  mixprec.assign @m, %0 : tensor<8xf32>
  return %y : tensor<f32>
}

// expected-error @+1 {{'mixprec.train_step' op buffer @m is assigned twice in @loss}}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<momentum = 0.9>

// -----

func.func @loss(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}

// expected-error @+1 {{custom op 'mixprec.train_step' invalid kind of attribute specified}}
mixprec.train_step @train forward @loss optimizer #mixprec.zeros

// -----

func.func @loss(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'mixprec.train_step' op expects parent op 'builtin.module'}}
  mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>
  return %x : tensor<f32>
}

//===----------------------------------------------------------------------===//
// Training: all_finite, loss_scale_update
//===----------------------------------------------------------------------===//

// -----

func.func @f() {
  // expected-error @+1 {{'mixprec.all_finite' op needs at least one tensor}}
  %0:2 = "mixprec.all_finite"() : () -> (tensor<i1>, tensor<0xi1>)
  return
}

// -----

func.func @f(%g: tensor<128x64xf16>, %i: tensor<128xi32>) {
  // expected-error @+1 {{'mixprec.all_finite' op operand #1 must be variadic of statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<128xi32>'}}
  %0:2 = mixprec.all_finite %g, %i : tensor<128x64xf16>, tensor<128xi32>
  return
}

// -----

func.func @f(%g: tensor<128x64xf16>) {
  // expected-error @+1 {{'mixprec.all_finite' op result #0 must be 0-d tensor of 1-bit signless integer, but got 'tensor<1xi1>'}}
  %0:2 = "mixprec.all_finite"(%g) : (tensor<128x64xf16>) -> (tensor<1xi1>, tensor<1xi1>)
  return
}

// -----

func.func @f(%g: tensor<128x64xf16>) {
  // expected-error @+1 {{'mixprec.all_finite' op has 1 inputs but 'each' holds 2 flags}}
  %0:2 = "mixprec.all_finite"(%g) : (tensor<128x64xf16>) -> (tensor<i1>, tensor<2xi1>)
  return
}

// -----

func.func @f(%c: tensor<i1>, %a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{'mixprec.select' op failed to verify that all of {true_value, false_value, result} have same type}}
  %0 = "mixprec.select"(%c, %a, %b) : (tensor<i1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%c: tensor<2xi1>, %a: tensor<4xf32>) {
  // expected-error @+1 {{'mixprec.select' op operand #0 must be 0-d tensor of 1-bit signless integer, but got 'tensor<2xi1>'}}
  %0 = "mixprec.select"(%c, %a, %a) : (tensor<2xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%s: tensor<f32>, %t: tensor<i32>, %h: tensor<i32>, %ok: tensor<i1>) {
  // expected-error @+1 {{'mixprec.loss_scale_update' op growth_factor must be finite and > 1, got 1.000000e+00}}
  %0:3 = mixprec.loss_scale_update %s, %t, %h, %ok {growth_factor = 1.0 : f64}
  return
}

// -----

func.func @f(%s: tensor<f32>, %t: tensor<i32>, %h: tensor<i32>, %ok: tensor<i1>) {
  // expected-error @+1 {{'mixprec.loss_scale_update' op growth_factor must be finite and > 1, got INF}}
  %0:3 = mixprec.loss_scale_update %s, %t, %h, %ok {growth_factor = 0x7FF0000000000000 : f64}
  return
}

// -----

func.func @f(%s: tensor<f32>, %t: tensor<i32>, %h: tensor<i32>, %ok: tensor<i1>) {
  // expected-error @+1 {{'mixprec.loss_scale_update' op backoff_factor must be in (0, 1), got 1.000000e+00}}
  %0:3 = mixprec.loss_scale_update %s, %t, %h, %ok {backoff_factor = 1.0 : f64}
  return
}

// -----

func.func @f(%s: tensor<f32>, %t: tensor<i32>, %h: tensor<i32>, %ok: tensor<i1>) {
  // expected-error @+1 {{'mixprec.loss_scale_update' op backoff_factor must be in (0, 1), got 0.000000e+00}}
  %0:3 = mixprec.loss_scale_update %s, %t, %h, %ok {backoff_factor = 0.0 : f64}
  return
}

// -----

func.func @f(%s: tensor<f32>, %t: tensor<i32>, %h: tensor<i32>, %ok: tensor<i1>) {
  // expected-error @+1 {{'mixprec.loss_scale_update' op growth_interval must be in [1, 2^31), got 0}}
  %0:3 = mixprec.loss_scale_update %s, %t, %h, %ok {growth_interval = 0 : i64}
  return
}

// -----

func.func @f(%s: tensor<f32>, %t: tensor<i32>, %h: tensor<i32>, %ok: tensor<i1>) {
  // expected-error @+1 {{'mixprec.loss_scale_update' op growth_interval must be in [1, 2^31), got -5}}
  %0:3 = mixprec.loss_scale_update %s, %t, %h, %ok {growth_interval = -5 : i64}
  return
}

// -----

func.func @f(%s: tensor<f32>, %t: tensor<i32>, %h: tensor<i32>, %ok: tensor<i1>) {
  // expected-error @+1 {{'mixprec.loss_scale_update' op hysteresis must be in [1, 2^31), got 0}}
  %0:3 = mixprec.loss_scale_update %s, %t, %h, %ok {hysteresis = 0 : i64}
  return
}

// -----

func.func @f(%s: tensor<f32>, %t: tensor<i32>, %h: tensor<i32>, %ok: tensor<i1>) {
  // expected-error @+1 {{'mixprec.loss_scale_update' op hysteresis must be in [1, 2^31), got -1}}
  %0:3 = mixprec.loss_scale_update %s, %t, %h, %ok {hysteresis = -1 : i64}
  return
}

// -----

// The tracker and the hysteresis count are i32.
func.func @f(%s: tensor<f32>, %t: tensor<i32>, %h: tensor<i32>, %ok: tensor<i1>) {
  // expected-error @+1 {{'mixprec.loss_scale_update' op growth_interval must be in [1, 2^31), got 2147483648}}
  %0:3 = mixprec.loss_scale_update %s, %t, %h, %ok {growth_interval = 2147483648 : i64}
  return
}

// -----

func.func @f(%s: tensor<f32>, %t: tensor<i32>, %h: tensor<i32>, %ok: tensor<i1>) {
  // expected-error @+1 {{'mixprec.loss_scale_update' op hysteresis must be in [1, 2^31), got 2147483648}}
  %0:3 = mixprec.loss_scale_update %s, %t, %h, %ok {hysteresis = 2147483648 : i64}
  return
}

// -----

func.func @f(%s: tensor<f32>, %t: tensor<i32>, %h: tensor<i32>, %ok: tensor<i1>) {
  // expected-error @+1 {{'mixprec.loss_scale_update' op need 0 < min_scale <= max_scale < inf, got 0.000000e+00 and 1.677722e+07}}
  %0:3 = mixprec.loss_scale_update %s, %t, %h, %ok {min_scale = 0.0 : f64}
  return
}

// -----

func.func @f(%s: tensor<f32>, %t: tensor<i32>, %h: tensor<i32>, %ok: tensor<i1>) {
  // expected-error @+1 {{'mixprec.loss_scale_update' op need 0 < min_scale <= max_scale < inf, got 1.024000e+03 and 1.000000e+00}}
  %0:3 = mixprec.loss_scale_update %s, %t, %h, %ok {min_scale = 1024.0 : f64, max_scale = 1.0 : f64}
  return
}

// -----

func.func @f(%s: tensor<f32>, %t: tensor<i32>, %h: tensor<i32>, %ok: tensor<i1>) {
  // expected-error @+1 {{'mixprec.loss_scale_update' op need 0 < min_scale <= max_scale < inf, got 1.000000e+00 and INF}}
  %0:3 = mixprec.loss_scale_update %s, %t, %h, %ok {max_scale = 0x7FF0000000000000 : f64}
  return
}

// -----

func.func @f(%s: tensor<f16>, %t: tensor<i32>, %h: tensor<i32>, %ok: tensor<i1>) {
  // expected-error @+1 {{'mixprec.loss_scale_update' op operand #0 must be 0-d tensor of 32-bit float, but got 'tensor<f16>'}}
  %0:3 = "mixprec.loss_scale_update"(%s, %t, %h, %ok) : (tensor<f16>, tensor<i32>, tensor<i32>, tensor<i1>) -> (tensor<f16>, tensor<i32>, tensor<i32>)
  return
}

// -----

func.func @f(%s: tensor<f32>, %t: tensor<i64>, %h: tensor<i32>, %ok: tensor<i1>) {
  // expected-error @+1 {{'mixprec.loss_scale_update' op operand #1 must be 0-d tensor of 32-bit signless integer, but got 'tensor<i64>'}}
  %0:3 = "mixprec.loss_scale_update"(%s, %t, %h, %ok) : (tensor<f32>, tensor<i64>, tensor<i32>, tensor<i1>) -> (tensor<f32>, tensor<i64>, tensor<i32>)
  return
}

// -----

func.func @f(%s: tensor<f32>, %t: tensor<i32>, %h: tensor<i32>, %ok: tensor<1xi1>) {
  // expected-error @+1 {{'mixprec.loss_scale_update' op operand #3 must be 0-d tensor of 1-bit signless integer, but got 'tensor<1xi1>'}}
  %0:3 = "mixprec.loss_scale_update"(%s, %t, %h, %ok) : (tensor<f32>, tensor<i32>, tensor<i32>, tensor<1xi1>) -> (tensor<f32>, tensor<i32>, tensor<i32>)
  return
}

// -----

func.func @f(%s: tensor<f32>, %t: tensor<i32>, %h: tensor<i32>, %ok: tensor<i1>) {
  // expected-error @+1 {{'mixprec.loss_scale_update' op result #2 must be 0-d tensor of 32-bit signless integer, but got 'tensor<i1>'}}
  %0:3 = "mixprec.loss_scale_update"(%s, %t, %h, %ok) : (tensor<f32>, tensor<i32>, tensor<i32>, tensor<i1>) -> (tensor<f32>, tensor<i32>, tensor<i1>)
  return
}

//===----------------------------------------------------------------------===//
// Training: sgd_update
//===----------------------------------------------------------------------===//

// -----

func.func @f(%w: tensor<128x64xf32>, %g: tensor<128x64xf16>, %lr: tensor<f32>) {
  // expected-error @+1 {{'mixprec.sgd_update' op grad type 'tensor<128x64xf16>' must match the parameter's 'tensor<128x64xf32>'}}
  %0 = mixprec.sgd_update %w, %g, %lr {optimizer = #mixprec.sgd<>} : (tensor<128x64xf32>, tensor<128x64xf16>, tensor<f32>) -> tensor<128x64xf32>
  return
}

// -----

func.func @f(%w: tensor<128x64xf32>, %g: tensor<128x64xf32>, %lr: tensor<f32>) {
  // The optimizer attribute checks the hyper-parameters.
  // expected-error @+1 {{momentum must be >= 0, got -9.000000e-01}}
  %0 = mixprec.sgd_update %w, %g, %lr {optimizer = #mixprec.sgd<momentum = -0.9>} : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>) -> tensor<128x64xf32>
  return
}

// -----

func.func @f(%w: tensor<128x64xf32>, %g: tensor<128x64xf32>, %lr: tensor<f32>, %buf: tensor<128x64xf32>) {
  // expected-error @+2 {{expected a finite number, got INF}}
  // expected-error @+1 {{failed to parse Mixprec_SGDAttr parameter 'momentum' which is to be a `::llvm::APFloat`}}
  %0:2 = mixprec.sgd_update %w, %g, %lr, %buf {optimizer = #mixprec.sgd<momentum = 0x7FF0000000000000>} : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>, tensor<128x64xf32>) -> (tensor<128x64xf32>, tensor<128x64xf32>)
  return
}

// -----

func.func @f(%w: tensor<128x64xf32>, %g: tensor<128x64xf32>, %lr: tensor<f32>, %buf: tensor<128x64xf32>) {
  // expected-error @+1 {{dampening must be in [0, 1], got 2.000000e+00}}
  %0:2 = mixprec.sgd_update %w, %g, %lr, %buf {optimizer = #mixprec.sgd<momentum = 0.9, dampening = 2.0>} : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>, tensor<128x64xf32>) -> (tensor<128x64xf32>, tensor<128x64xf32>)
  return
}

// -----

func.func @f(%w: tensor<128x64xf32>, %g: tensor<128x64xf32>, %lr: tensor<f32>) {
  // expected-error @+1 {{nesterov needs momentum > 0 and dampening = 0}}
  %0 = mixprec.sgd_update %w, %g, %lr {optimizer = #mixprec.sgd<nesterov = true>} : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>) -> tensor<128x64xf32>
  return
}

// -----

func.func @f(%w: tensor<128x64xf32>, %g: tensor<128x64xf32>, %lr: tensor<f32>) {
  // expected-error @+1 {{weight_decay must be >= 0, got -1.000000e-04}}
  %0 = mixprec.sgd_update %w, %g, %lr {optimizer = #mixprec.sgd<weight_decay = -1.0e-4>} : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>) -> tensor<128x64xf32>
  return
}

// -----

func.func @f(%w: tensor<128x64xf16>, %g: tensor<128x64xf16>, %lr: tensor<f32>) {
  // expected-error @+1 {{'mixprec.sgd_update' op param_out type must match the parameter's}}
  %0 = mixprec.sgd_update %w, %g, %lr {optimizer = #mixprec.sgd<>} : (tensor<128x64xf16>, tensor<128x64xf16>, tensor<f32>) -> tensor<128x64xf32>
  return
}

// -----

func.func @f(%w: tensor<128x64xf32>, %g: tensor<128x64xf32>, %lr: tensor<f32>) {
  // expected-error @+1 {{'mixprec.sgd_update' op a momentum buffer is given iff momentum > 0}}
  %0 = mixprec.sgd_update %w, %g, %lr {optimizer = #mixprec.sgd<momentum = 0.9>} : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>) -> tensor<128x64xf32>
  return
}

// -----

func.func @f(%w: tensor<128x64xf32>, %g: tensor<128x64xf32>, %lr: tensor<f32>, %buf: tensor<128x64xf32>) {
  // expected-error @+1 {{'mixprec.sgd_update' op a momentum buffer is given iff momentum > 0}}
  %0:2 = mixprec.sgd_update %w, %g, %lr, %buf {optimizer = #mixprec.sgd<>} : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>, tensor<128x64xf32>) -> (tensor<128x64xf32>, tensor<128x64xf32>)
  return
}

// -----

func.func @f(%w: tensor<128x64xf32>, %g: tensor<128x64xf32>, %lr: tensor<f32>, %buf: tensor<128x64xf32>) {
  // expected-error @+1 {{'mixprec.sgd_update' op momentum_buffer_out is returned iff a momentum buffer is given}}
  %0 = mixprec.sgd_update %w, %g, %lr, %buf {optimizer = #mixprec.sgd<momentum = 0.9>} : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>, tensor<128x64xf32>) -> tensor<128x64xf32>
  return
}

// -----

func.func @f(%w: tensor<128x64xf32>, %g: tensor<128x64xf32>, %lr: tensor<f32>) {
  // expected-error @+1 {{'mixprec.sgd_update' op momentum_buffer_out is returned iff a momentum buffer is given}}
  %0:2 = mixprec.sgd_update %w, %g, %lr {optimizer = #mixprec.sgd<>} : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>) -> (tensor<128x64xf32>, tensor<128x64xf32>)
  return
}

// -----

func.func @f(%w: tensor<128x64xf32>, %g: tensor<128x64xf32>, %lr: tensor<f32>, %buf: tensor<128x64xf32>) {
  // Dampening changes the first step, which only the step count tells.
  // expected-error @+1 {{'mixprec.sgd_update' op a step count is given iff a momentum buffer is and dampening != 0 (the first step sets the buffer to the undamped gradient)}}
  %0:2 = mixprec.sgd_update %w, %g, %lr, %buf {optimizer = #mixprec.sgd<momentum = 0.9, dampening = 0.5>} : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>, tensor<128x64xf32>) -> (tensor<128x64xf32>, tensor<128x64xf32>)
  return
}

// -----

func.func @f(%w: tensor<128x64xf32>, %g: tensor<128x64xf32>, %lr: tensor<f32>, %buf: tensor<128x64xf32>, %step: tensor<i64>) {
  // Without dampening the zero buffer gives the first step: no step count.
  // expected-error @+1 {{'mixprec.sgd_update' op a step count is given iff a momentum buffer is and dampening != 0}}
  %0:2 = mixprec.sgd_update %w, %g, %lr, %buf step %step {optimizer = #mixprec.sgd<momentum = 0.9>} : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>, tensor<128x64xf32>, tensor<i64>) -> (tensor<128x64xf32>, tensor<128x64xf32>)
  return
}

// -----

func.func @f(%w: tensor<128x64xf32>, %g: tensor<128x64xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // Dampening without momentum keeps no buffer.
  // expected-error @+1 {{'mixprec.sgd_update' op a step count is given iff a momentum buffer is and dampening != 0}}
  %0 = mixprec.sgd_update %w, %g, %lr step %step {optimizer = #mixprec.sgd<dampening = 0.5>} : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>, tensor<i64>) -> tensor<128x64xf32>
  return
}

// -----

func.func @f(%w: tensor<128x64xf32>, %g: tensor<128x64xf32>, %lr: tensor<f32>, %buf: tensor<128x64xf32>, %step: tensor<i32>) {
  // expected-error @+1 {{'mixprec.sgd_update' op operand #4 must be 0-d tensor of 64-bit signless integer, but got 'tensor<i32>'}}
  %0:2 = mixprec.sgd_update %w, %g, %lr, %buf step %step {optimizer = #mixprec.sgd<momentum = 0.9, dampening = 0.5>} : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>, tensor<128x64xf32>, tensor<i32>) -> (tensor<128x64xf32>, tensor<128x64xf32>)
  return
}

// -----

func.func @f(%w: tensor<128x64xf32>, %g: tensor<128x64xf32>, %lr: tensor<f32>, %buf: tensor<128x64xf32>) {
  // expected-error @+1 {{'mixprec.sgd_update' op momentum_buffer_out type must match the buffer's}}
  %0:2 = mixprec.sgd_update %w, %g, %lr, %buf {optimizer = #mixprec.sgd<momentum = 0.9>} : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>, tensor<128x64xf32>) -> (tensor<128x64xf32>, tensor<64x128xf32>)
  return
}

// -----

func.func @f(%w: tensor<128x64xf32>, %g: tensor<128x64xf32>, %lr: tensor<f32>, %buf: tensor<64x128xf32>) {
  // expected-error @+1 {{'mixprec.sgd_update' op momentum buffer shape must match the parameter's}}
  %0:2 = mixprec.sgd_update %w, %g, %lr, %buf {optimizer = #mixprec.sgd<momentum = 0.9>} : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>, tensor<64x128xf32>) -> (tensor<128x64xf32>, tensor<64x128xf32>)
  return
}

// -----

func.func @f(%w: tensor<128x64xf16>, %g: tensor<128x64xf16>, %lr: tensor<f32>, %buf: tensor<128x64xf16>) {
  // expected-error @+1 {{'mixprec.sgd_update' op operand #3 must be statically shaped tensor of 32-bit float values, but got 'tensor<128x64xf16>'}}
  %0:2 = mixprec.sgd_update %w, %g, %lr, %buf {optimizer = #mixprec.sgd<momentum = 0.9>} : (tensor<128x64xf16>, tensor<128x64xf16>, tensor<f32>, tensor<128x64xf16>) -> (tensor<128x64xf16>, tensor<128x64xf16>)
  return
}

// -----

func.func @f(%w: tensor<128x64xf32>, %g: tensor<128x64xf32>, %lr: tensor<1xf32>) {
  // expected-error @+1 {{'mixprec.sgd_update' op operand #2 must be 0-d tensor of 32-bit float, but got 'tensor<1xf32>'}}
  %0 = mixprec.sgd_update %w, %g, %lr {optimizer = #mixprec.sgd<>} : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<1xf32>) -> tensor<128x64xf32>
  return
}

// -----

func.func @f(%w: tensor<128x64xf32>, %g: tensor<128x64xf32>, %lr: tensor<f32>) {
  // expected-error @+1 {{'mixprec.sgd_update' op requires attribute 'optimizer'}}
  %0 = mixprec.sgd_update %w, %g, %lr : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>) -> tensor<128x64xf32>
  return
}

// -----

func.func @f(%w: tensor<128x64xf32>, %g: tensor<128x64xf32>, %lr: tensor<f32>) {
  // expected-error @+1 {{'mixprec.sgd_update' op attribute 'optimizer' failed to satisfy constraint: SGD with optional momentum, Nesterov momentum and L2 decay}}
  %0 = mixprec.sgd_update %w, %g, %lr {optimizer = #mixprec.adam<>} : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>) -> tensor<128x64xf32>
  return
}

// -----

// The train step decides which parameters decay; an update takes the decay
// of its parameter.
func.func @f(%w: tensor<128x64xf32>, %g: tensor<128x64xf32>, %lr: tensor<f32>) {
  // expected-error @+1 {{'mixprec.sgd_update' op takes its parameter's weight_decay; decay_norm_and_bias = true belongs to a train step's optimizer}}
  %0 = mixprec.sgd_update %w, %g, %lr {optimizer = #mixprec.sgd<weight_decay = 1.0e-4, decay_norm_and_bias = true>} : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>) -> tensor<128x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// Training: adam_update
//===----------------------------------------------------------------------===//

// -----

func.func @f(%w: tensor<128x64xf16>, %g: tensor<128x64xf32>, %m: tensor<128x64xf32>, %v: tensor<128x64xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+1 {{'mixprec.adam_update' op grad type 'tensor<128x64xf32>' must match the parameter's 'tensor<128x64xf16>'}}
  %0:3 = mixprec.adam_update %w, %g, %m, %v, %lr, %step {optimizer = #mixprec.adam<>} : tensor<128x64xf16>, tensor<128x64xf32>, tensor<128x64xf32>
  return
}

// -----

func.func @f(%w: tensor<128x64xf32>, %g: tensor<128x64xf32>, %m: tensor<64x128xf32>, %v: tensor<64x128xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+1 {{'mixprec.adam_update' op exp_avg shape must match the parameter's}}
  %0:3 = mixprec.adam_update %w, %g, %m, %v, %lr, %step {optimizer = #mixprec.adamw<>} : tensor<128x64xf32>, tensor<128x64xf32>, tensor<64x128xf32>
  return
}

// -----

func.func @f(%w: tensor<128x64xf32>, %g: tensor<128x64xf32>, %m: tensor<128x64xf32>, %v: tensor<128x64xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // The optimizer attribute checks the hyper-parameters.
  // expected-error @+1 {{beta1 must be in [0, 1), got 1.000000e+00}}
  %0:3 = mixprec.adam_update %w, %g, %m, %v, %lr, %step {optimizer = #mixprec.adam<beta1 = 1.0>} : tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>
  return
}

// -----

func.func @f(%w: tensor<128x64xf32>, %g: tensor<128x64xf32>, %m: tensor<128x64xf32>, %v: tensor<128x64xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+1 {{beta2 must be in [0, 1), got -5.000000e-01}}
  %0:3 = mixprec.adam_update %w, %g, %m, %v, %lr, %step {optimizer = #mixprec.adam<beta2 = -0.5>} : tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>
  return
}

// -----

func.func @f(%w: tensor<128x64xf32>, %g: tensor<128x64xf32>, %m: tensor<128x64xf32>, %v: tensor<128x64xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+1 {{eps must be > 0, got 0.000000e+00}}
  %0:3 = mixprec.adam_update %w, %g, %m, %v, %lr, %step {optimizer = #mixprec.adam<eps = 0.0>} : tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>
  return
}

// -----

func.func @f(%w: tensor<128x64xf32>, %g: tensor<128x64xf32>, %m: tensor<128x64xf32>, %v: tensor<128x64xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+2 {{expected a finite number, got INF}}
  // expected-error @+1 {{failed to parse Mixprec_AdamAttr parameter 'eps' which is to be a `::llvm::APFloat`}}
  %0:3 = mixprec.adam_update %w, %g, %m, %v, %lr, %step {optimizer = #mixprec.adam<eps = 0x7FF0000000000000>} : tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>
  return
}

// -----

func.func @f(%w: tensor<128x64xf32>, %g: tensor<128x64xf32>, %m: tensor<128x64xf32>, %v: tensor<128x64xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+1 {{weight_decay must be >= 0, got -1.000000e-02}}
  %0:3 = mixprec.adam_update %w, %g, %m, %v, %lr, %step {optimizer = #mixprec.adamw<weight_decay = -0.01>} : tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>
  return
}

// -----

func.func @f(%w: tensor<128x64xf32>, %g: tensor<128x64xf32>, %m: tensor<128x64xf32>, %v: tensor<128x64xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+1 {{'mixprec.adam_update' op attribute 'optimizer' failed to satisfy constraint: AdamFamilyAttrInterface instance}}
  %0:3 = mixprec.adam_update %w, %g, %m, %v, %lr, %step {optimizer = #mixprec.sgd<>} : tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>
  return
}

// -----

func.func @f(%w: tensor<128x64xf32>, %g: tensor<128x64xf32>, %m: tensor<128x64xf32>, %v: tensor<128x64xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+1 {{'mixprec.adam_update' op takes its parameter's weight_decay; decay_norm_and_bias = true belongs to a train step's optimizer}}
  %0:3 = mixprec.adam_update %w, %g, %m, %v, %lr, %step {optimizer = #mixprec.adamw<decay_norm_and_bias = true>} : tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>
  return
}

// -----

func.func @f(%w: tensor<128x64xf32>, %g: tensor<128x64xf32>, %m: tensor<128x64xf32>, %v: tensor<64x128xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  // expected-error @+1 {{'mixprec.adam_update' op failed to verify that all of {exp_avg, exp_avg_sq, exp_avg_out, exp_avg_sq_out} have same type}}
  %0:3 = "mixprec.adam_update"(%w, %g, %m, %v, %lr, %step) <{optimizer = #mixprec.adam<>}> : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<64x128xf32>, tensor<f32>, tensor<i64>) -> (tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>)
  return
}

// -----

func.func @f(%w: tensor<128x64xf32>, %g: tensor<128x64xf32>, %m: tensor<128x64xf32>, %v: tensor<128x64xf32>, %lr: tensor<f32>, %step: tensor<i32>) {
  // expected-error @+1 {{'mixprec.adam_update' op operand #5 must be 0-d tensor of 64-bit signless integer, but got 'tensor<i32>'}}
  %0:3 = "mixprec.adam_update"(%w, %g, %m, %v, %lr, %step) <{optimizer = #mixprec.adam<>}> : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>, tensor<i32>) -> (tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>)
  return
}

// -----

func.func @batch_norm_single_value_per_channel(%x: tensor<1x8xf32>, %s: tensor<8xf32>) {
  // expected-error @+1 {{'mixprec.batch_norm' op training needs more than one value per channel}}
  %y, %m, %v = mixprec.batch_norm %x, %s, %s : tensor<1x8xf32>, tensor<8xf32>
  return
}

// -----

func.func @pin_to_integer(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mixprec.precision' must be f16, bf16 or f32, got i32}}
  %0 = mixprec.relu %x {mixprec.precision = i32} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @pin_to_string(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mixprec.precision' must be f16, bf16 or f32, got "f16"}}
  %0 = mixprec.relu %x {mixprec.precision = "f16"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @pin_a_cast(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'mixprec.precision' pins compute ops of the mixprec dialect; 'mixprec.cast' is not one}}
  %0 = mixprec.cast %x {mixprec.precision = f32} : tensor<4xf32> to tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// expected-error @+1 {{'mixprec.precision' pins compute ops of the mixprec dialect; 'func.func' is not one}}
func.func @pin_a_function() attributes {mixprec.precision = f16} {
  return
}

// -----

func.func @autocast_rule_not_a_string(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mixprec.autocast' must be a string, got 1 : i64}}
  %0 = mixprec.relu %x {mixprec.autocast = 1} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unknown_dialect_attribute(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unknown mixprec attribute 'mixprec.precison'}}
  %0 = mixprec.relu %x {mixprec.precison = f16} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// Backward ops: relu_grad, gelu_grad, maximum_grad, reduce_max_grad,
// softmax_grad, log_softmax_grad, layer_norm_grad, softmax_cross_entropy_grad
//===----------------------------------------------------------------------===//

// -----

func.func @f(%g: tensor<4x8xf16>, %x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mixprec.relu_grad' op failed to verify that all of {grad, input, result} have same type}}
  %0 = "mixprec.relu_grad"(%g, %x) : (tensor<4x8xf16>, tensor<4x8xf32>) -> tensor<4x8xf16>
  return
}

// -----

func.func @f(%g: tensor<4xi32>) {
  // expected-error @+1 {{'mixprec.relu_grad' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %0 = mixprec.relu_grad %g, %g : tensor<4xi32>
  return
}

// -----

func.func @f(%g: tensor<4x8xf32>, %x: tensor<8x4xf32>) {
  // expected-error @+1 {{'mixprec.gelu_grad' op failed to verify that all of {grad, input, result} have same type}}
  %0 = "mixprec.gelu_grad"(%g, %x) {approximate = #mixprec<gelu_approximation tanh>} : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @f(%g: tensor<4x8xf32>, %a: tensor<4x8xf16>) {
  // expected-error @+1 {{'mixprec.maximum_grad' op failed to verify that all of {grad, lhs, rhs, dlhs, drhs} have same type}}
  %0:2 = "mixprec.maximum_grad"(%g, %a, %g) : (tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
  return
}

// -----

func.func @f(%g: tensor<4xf32>, %x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mixprec.reduce_max_grad' op grad must be the reduce_max result type 'tensor<4x1xf32>', got 'tensor<4xf32>'}}
  %0 = mixprec.reduce_max_grad %g, %x, %g {dims = array<i64: 1>, keepdim} : tensor<4xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @f(%g: tensor<4xf32>, %x: tensor<4x8xf32>) {
  // expected-error @+1 {{dim 2 is out of range for rank 2}}
  %0 = mixprec.reduce_max_grad %g, %x, %g {dims = array<i64: 2>} : tensor<4xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @f(%g: tensor<4xf32>, %x: tensor<4x8xf32>, %m: tensor<4xf16>) {
  // expected-error @+1 {{'mixprec.reduce_max_grad' op failed to verify that all of {grad, output} have same type}}
  %0 = "mixprec.reduce_max_grad"(%g, %x, %m) {dims = array<i64: 1>} : (tensor<4xf32>, tensor<4x8xf32>, tensor<4xf16>) -> tensor<4x8xf32>
  return
}

// -----

func.func @f(%g: tensor<4x8xf32>) {
  // expected-error @+1 {{'mixprec.softmax_grad' op axis 2 is out of range for rank 2}}
  %0 = mixprec.softmax_grad %g, %g {axis = 2 : i64} : tensor<4x8xf32>
  return
}

// -----

func.func @f(%g: tensor<4x8xf32>) {
  // expected-error @+1 {{'mixprec.log_softmax_grad' op axis -1 is out of range for rank 2}}
  %0 = mixprec.log_softmax_grad %g, %g {axis = -1 : i64} : tensor<4x8xf32>
  return
}

// -----

func.func @f(%g: tensor<4x8xf32>) {
  // expected-error @+1 {{'mixprec.log_softmax_grad' op requires attribute 'axis'}}
  %0 = mixprec.log_softmax_grad %g, %g : tensor<4x8xf32>
  return
}

// -----

func.func @f(%g: tensor<4x8xf32>, %y: tensor<4x8xbf16>) {
  // expected-error @+1 {{'mixprec.softmax_grad' op failed to verify that all of {grad, output, result} have same type}}
  %0 = "mixprec.softmax_grad"(%g, %y) {axis = 1 : i64} : (tensor<4x8xf32>, tensor<4x8xbf16>) -> tensor<4x8xf32>
  return
}

// -----

func.func @f(%x: tensor<8x16x64xf32>, %s: tensor<64xf32>) {
  // expected-error @+1 {{'mixprec.layer_norm_grad' op axis 3 is out of range for rank 3}}
  %0:3 = mixprec.layer_norm_grad %x, %x scale %s {axis = 3 : i64} : tensor<8x16x64xf32>, tensor<64xf32>
  return
}

// -----

func.func @f(%x: tensor<8x16x64xf32>, %s: tensor<64xf32>) {
  // expected-error @+1 {{'mixprec.layer_norm_grad' op eps must be finite and > 0, got 0}}
  %0:3 = mixprec.layer_norm_grad %x, %x scale %s {axis = 2 : i64, eps = 0.0 : f64} : tensor<8x16x64xf32>, tensor<64xf32>
  return
}

// -----

func.func @f(%x: tensor<8x16x64xf32>, %s: tensor<64xf32>) {
  // expected-error @+1 {{'mixprec.layer_norm_grad' op scale must be [16, 64] (the normalized dims), got [64]}}
  %0:3 = mixprec.layer_norm_grad %x, %x scale %s {axis = 1 : i64} : tensor<8x16x64xf32>, tensor<64xf32>
  return
}

// -----

func.func @f(%x: tensor<8x16x64xf32>, %s: tensor<64xf16>) {
  // expected-error @+1 {{'mixprec.layer_norm_grad' op scale element type must be the input's ('f32'), got 'f16'}}
  %0:3 = mixprec.layer_norm_grad %x, %x scale %s {axis = 2 : i64} : tensor<8x16x64xf32>, tensor<64xf16>
  return
}

// -----

func.func @f(%x: tensor<8x64xf32>, %s: tensor<64xf32>) {
  // expected-error @+1 {{'mixprec.layer_norm_grad' op failed to verify that all of {scale, dscale, dbias} have same type}}
  %0:3 = "mixprec.layer_norm_grad"(%x, %x, %s) {axis = 1 : i64} : (tensor<8x64xf32>, tensor<8x64xf32>, tensor<64xf32>) -> (tensor<8x64xf32>, tensor<64xf32>, tensor<8x64xf32>)
  return
}

// -----

func.func @f(%g: tensor<f32>, %logits: tensor<4x10xf32>, %labels: tensor<5xi32>) {
  // expected-error @+1 {{'mixprec.softmax_cross_entropy_grad' op labels must be [4] (one per row of logits), got [5]}}
  %0 = mixprec.softmax_cross_entropy_grad %g, %logits, %labels : tensor<4x10xf32>, tensor<5xi32>
  return
}

// -----

func.func @f(%g: tensor<f32>, %logits: tensor<4x10x2xf32>, %labels: tensor<4xi32>) {
  // expected-error @+1 {{'mixprec.softmax_cross_entropy_grad' op logits must be [N, C], got rank 3}}
  %0 = mixprec.softmax_cross_entropy_grad %g, %logits, %labels : tensor<4x10x2xf32>, tensor<4xi32>
  return
}

// -----

func.func @f(%g: tensor<f32>, %logits: tensor<4x10xf16>, %labels: tensor<4xi32>) {
  // expected-error @+1 {{'mixprec.softmax_cross_entropy_grad' op failed to verify that grad is a 0-d tensor of the logits' element type}}
  %0 = "mixprec.softmax_cross_entropy_grad"(%g, %logits, %labels) : (tensor<f32>, tensor<4x10xf16>, tensor<4xi32>) -> tensor<4x10xf16>
  return
}

// -----

func.func @f(%g: tensor<f32>, %logits: tensor<4x10xf32>, %labels: tensor<4xf32>) {
  // expected-error @+1 {{'mixprec.softmax_cross_entropy_grad' op operand #2 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = mixprec.softmax_cross_entropy_grad %g, %logits, %labels : tensor<4x10xf32>, tensor<4xf32>
  return
}

//===----------------------------------------------------------------------===//
// Backward ops: embedding_grad, conv2d_grad_input, conv2d_grad_weight,
// max_pool2d_grad, avg_pool2d_grad, batch_norm_grad
//===----------------------------------------------------------------------===//

// -----

func.func @f(%g: tensor<8x15x64xf32>, %i: tensor<8x16xi32>) {
  // expected-error @+1 {{grad must be indices.shape + [dim] ([8, 16] + [dim]), got [8, 15, 64]}}
  %0 = mixprec.embedding_grad %g, %i {num_embeddings = 10 : i64} : tensor<8x15x64xf32>, tensor<8x16xi32>
  return
}

// -----

func.func @f(%g: tensor<8x16xf32>, %i: tensor<8x16xi32>) {
  // expected-error @+1 {{grad must be indices.shape + [dim] ([8, 16] + [dim]), got [8, 16]}}
  %0 = mixprec.embedding_grad %g, %i {num_embeddings = 10 : i64} : tensor<8x16xf32>, tensor<8x16xi32>
  return
}

// -----

func.func @f(%g: tensor<8x4xf32>, %i: tensor<8xi32>) {
  // expected-error @+1 {{num_embeddings must be >= 1, got 0}}
  %0 = mixprec.embedding_grad %g, %i {num_embeddings = 0 : i64} : tensor<8x4xf32>, tensor<8xi32>
  return
}

// -----

func.func @f(%g: tensor<8x4xf32>, %i: tensor<8xi32>) {
  // expected-error @+1 {{'mixprec.embedding_grad' op requires attribute 'num_embeddings'}}
  %0 = mixprec.embedding_grad %g, %i : tensor<8x4xf32>, tensor<8xi32>
  return
}

// -----

func.func @f(%g: tensor<8x4xf32>, %i: tensor<8xf32>) {
  // expected-error @+1 {{'mixprec.embedding_grad' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<8xf32>'}}
  %0 = mixprec.embedding_grad %g, %i {num_embeddings = 3 : i64} : tensor<8x4xf32>, tensor<8xf32>
  return
}

// -----

func.func @f(%g: tensor<8x4xf32>, %i: tensor<8xi32>) {
  // expected-error @+2 {{'mixprec.embedding_grad' op inferred type(s) 'tensor<3x4xf32>' are incompatible with return type(s) of operation 'tensor<3x4xf16>'}}
  // expected-error @+1 {{'mixprec.embedding_grad' op failed to infer returned types}}
  %0 = "mixprec.embedding_grad"(%g, %i) {num_embeddings = 3 : i64} : (tensor<8x4xf32>, tensor<8xi32>) -> tensor<3x4xf16>
  return
}

// -----

func.func @f(%g: tensor<8x5x4xf32>, %i: tensor<8x16xi32>) {
  // expected-error @+2 {{grad must be indices.shape + [dim] ([8, 16] + [dim]), got [8, 5, 4]}}
  // expected-error @+1 {{'mixprec.embedding_grad' op failed to infer returned types}}
  %0 = "mixprec.embedding_grad"(%g, %i) {num_embeddings = 3 : i64} : (tensor<8x5x4xf32>, tensor<8x16xi32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @f(%g: tensor<2x4x6x6xf16>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'mixprec.conv2d_grad_input' op operands must share one element type, got 'f16' and 'f32'}}
  %0 = mixprec.conv2d_grad_input %g, %w {input_shape = array<i64: 2, 3, 8, 8>} : tensor<2x4x6x6xf16>, tensor<4x3x3x3xf32>
  return
}

// -----

func.func @f(%g: tensor<2x4x6x6xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{input_shape must be 4 sizes >= 0, got [2, 3, 8]}}
  %0 = mixprec.conv2d_grad_input %g, %w {input_shape = array<i64: 2, 3, 8>} : tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

func.func @f(%g: tensor<2x4x6x6xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'mixprec.conv2d_grad_input' op requires attribute 'input_shape'}}
  %0 = mixprec.conv2d_grad_input %g, %w : tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

func.func @f(%g: tensor<2x4x6x6xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'mixprec.conv2d_grad_input' op grad must be the conv2d result shape [2, 4, 3, 3], got [2, 4, 6, 6]}}
  %0 = mixprec.conv2d_grad_input %g, %w {stride = array<i64: 2, 2>, input_shape = array<i64: 2, 3, 8, 8>} : tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

func.func @f(%g: tensor<2x4x6x6xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'mixprec.conv2d_grad_input' op weight dim 1 must be input channels / groups (2), got 3}}
  %0 = mixprec.conv2d_grad_input %g, %w {input_shape = array<i64: 2, 2, 8, 8>} : tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

func.func @f(%g: tensor<2x4x6x6xf32>, %w: tensor<4x1x3x3xf32>) {
  // expected-error @+1 {{'mixprec.conv2d_grad_input' op groups (3) must be >= 1 and divide the input channels (3) and the output channels (4)}}
  %0 = mixprec.conv2d_grad_input %g, %w {groups = 3 : i64, input_shape = array<i64: 2, 3, 8, 8>} : tensor<2x4x6x6xf32>, tensor<4x1x3x3xf32>
  return
}

// -----

func.func @f(%g: tensor<2x4x6x6xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'mixprec.conv2d_grad_input' op stride and dilation must be >= 1}}
  %0 = mixprec.conv2d_grad_input %g, %w {stride = array<i64: 0, 1>, input_shape = array<i64: 2, 3, 8, 8>} : tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

func.func @f(%g: tensor<2x4x6x6xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'mixprec.conv2d_grad_input' op stride, padding and dilation need 2 values each}}
  %0 = mixprec.conv2d_grad_input %g, %w {padding = array<i64: 1>, input_shape = array<i64: 2, 3, 8, 8>} : tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

func.func @f(%g: tensor<2x4x6x6xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'mixprec.conv2d_grad_input' op padding must be >= 0, got [-1, 0]}}
  %0 = mixprec.conv2d_grad_input %g, %w {padding = array<i64: -1, 0>, input_shape = array<i64: 2, 3, 8, 8>} : tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

func.func @f(%g: tensor<2x4x6x6xf32>, %w: tensor<4x3x9x3xf32>) {
  // expected-error @+1 {{'mixprec.conv2d_grad_input' op the kernel does not fit spatial dim 0 of the padded input}}
  %0 = mixprec.conv2d_grad_input %g, %w {input_shape = array<i64: 2, 3, 8, 8>} : tensor<2x4x6x6xf32>, tensor<4x3x9x3xf32>
  return
}

// -----

func.func @f(%g: tensor<2x4x6x6xf32>, %x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'mixprec.conv2d_grad_weight' op kernel dims must be >= 1, got [0, 3]}}
  %0 = mixprec.conv2d_grad_weight %g, %x {weight_shape = array<i64: 4, 3, 0, 3>} : tensor<2x4x6x6xf32>, tensor<2x3x8x8xf32>
  return
}

// -----

func.func @f(%g: tensor<2x4x6x6xf32>, %x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{weight_shape must be 4 sizes >= 0, got [4, -3, 3, 3]}}
  %0 = mixprec.conv2d_grad_weight %g, %x {weight_shape = array<i64: 4, -3, 3, 3>} : tensor<2x4x6x6xf32>, tensor<2x3x8x8xf32>
  return
}

// -----

func.func @f(%g: tensor<2x4x6x6xf32>, %x: tensor<2x3x8x8xbf16>) {
  // expected-error @+1 {{'mixprec.conv2d_grad_weight' op operands must share one element type, got 'f32' and 'bf16'}}
  %0 = mixprec.conv2d_grad_weight %g, %x {weight_shape = array<i64: 4, 3, 3, 3>} : tensor<2x4x6x6xf32>, tensor<2x3x8x8xbf16>
  return
}

// -----

func.func @f(%g: tensor<2x4x6x6xf32>, %x: tensor<2x3x8xf32>) {
  // expected-error @+1 {{'mixprec.conv2d_grad_weight' op grad, input (NCHW) and weight (OIHW) must be rank 4}}
  %0 = mixprec.conv2d_grad_weight %g, %x {weight_shape = array<i64: 4, 3, 3, 3>} : tensor<2x4x6x6xf32>, tensor<2x3x8xf32>
  return
}

// -----

func.func @f(%g: tensor<2x4x6x6xf32>, %x: tensor<2x3x8x8xf32>) {
  // expected-error @+2 {{'mixprec.conv2d_grad_weight' op inferred type(s) 'tensor<4x3x3x3xf32>' are incompatible with return type(s) of operation 'tensor<4x3x3x3xf16>'}}
  // expected-error @+1 {{'mixprec.conv2d_grad_weight' op failed to infer returned types}}
  %0 = "mixprec.conv2d_grad_weight"(%g, %x) {weight_shape = array<i64: 4, 3, 3, 3>} : (tensor<2x4x6x6xf32>, tensor<2x3x8x8xf32>) -> tensor<4x3x3x3xf16>
  return
}

// -----

func.func @f(%g: tensor<2x4x6x6xf32>, %w: tensor<4x3x3x3xf32>) {
  // The verifier runs before the generic form's type inference.
  // expected-error @+1 {{'mixprec.conv2d_grad_input' op grad, input (NCHW) and weight (OIHW) must be rank 4}}
  %0 = "mixprec.conv2d_grad_input"(%g, %w) {input_shape = array<i64>} : (tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

func.func @f(%g: tensor<2x3x4x4xf32>, %x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'mixprec.max_pool2d_grad' op grad must be the pooling result type 'tensor<2x3x7x7xf32>', got 'tensor<2x3x4x4xf32>'}}
  %0 = mixprec.max_pool2d_grad %g, %x {kernel = array<i64: 2, 2>, stride = array<i64: 1, 1>} : tensor<2x3x4x4xf32>, tensor<2x3x8x8xf32>
  return
}

// -----

func.func @f(%g: tensor<2x3x4x4xf16>, %x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'mixprec.avg_pool2d_grad' op failed to verify that all of {grad, input} have same element type}}
  %0 = mixprec.avg_pool2d_grad %g, %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<2x3x4x4xf16>, tensor<2x3x8x8xf32>
  return
}

// -----

func.func @f(%g: tensor<2x3x4x4xf32>, %x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'mixprec.avg_pool2d_grad' op failed to verify that all of {input, result} have same type}}
  %0 = "mixprec.avg_pool2d_grad"(%g, %x) {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (tensor<2x3x4x4xf32>, tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf16>
  return
}

// -----

func.func @f(%g: tensor<2x3x4x4xf32>, %x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{padding must be in [0, kernel / 2], got 2 for kernel 2}}
  %0 = mixprec.max_pool2d_grad %g, %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 2, 0>} : tensor<2x3x4x4xf32>, tensor<2x3x8x8xf32>
  return
}

// -----

func.func @f(%g: tensor<2x3x4x4xf32>, %x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{kernel, stride and padding need 2 values each}}
  %0 = mixprec.avg_pool2d_grad %g, %x {kernel = array<i64: 2>, stride = array<i64: 2, 2>} : tensor<2x3x4x4xf32>, tensor<2x3x8x8xf32>
  return
}

// -----

func.func @f(%g: tensor<2x3x4xf32>, %x: tensor<2x3x8xf32>) {
  // expected-error @+1 {{input must be NCHW (rank 4), got rank 3}}
  %0 = mixprec.max_pool2d_grad %g, %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<2x3x4xf32>, tensor<2x3x8xf32>
  return
}

// -----

func.func @f(%g: tensor<2x3x4x4xf32>, %x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'mixprec.max_pool2d_grad' op requires attribute 'stride'}}
  %0 = mixprec.max_pool2d_grad %g, %x {kernel = array<i64: 2, 2>} : tensor<2x3x4x4xf32>, tensor<2x3x8x8xf32>
  return
}

// -----

func.func @f(%x: tensor<8x3x4xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{'mixprec.batch_norm_grad' op input must be [N, C] or [N, C, H, W], got rank 3}}
  %0:3 = mixprec.batch_norm_grad %x, %x scale %s : tensor<8x3x4xf32>, tensor<3xf32>
  return
}

// -----

func.func @f(%x: tensor<8x3xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{'mixprec.batch_norm_grad' op scale must be [3] (the channels), got [4]}}
  %0:3 = mixprec.batch_norm_grad %x, %x scale %s : tensor<8x3xf32>, tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<8x3xf32>, %s: tensor<3xbf16>) {
  // expected-error @+1 {{'mixprec.batch_norm_grad' op scale element type must be the input's ('f32'), got 'bf16'}}
  %0:3 = mixprec.batch_norm_grad %x, %x scale %s : tensor<8x3xf32>, tensor<3xbf16>
  return
}

// -----

func.func @f(%x: tensor<8x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{'mixprec.batch_norm_grad' op eps must be finite and > 0, got -1}}
  %0:3 = mixprec.batch_norm_grad %x, %x scale %s {eps = -1.0 : f64} : tensor<8x3xf32>, tensor<3xf32>
  return
}

// -----

func.func @f(%g: tensor<8x3xf16>, %x: tensor<8x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{'mixprec.batch_norm_grad' op failed to verify that all of {grad, input, dx} have same type}}
  %0:3 = "mixprec.batch_norm_grad"(%g, %x, %s) : (tensor<8x3xf16>, tensor<8x3xf32>, tensor<3xf32>) -> (tensor<8x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

func.func @f(%x: tensor<8x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{'mixprec.batch_norm_grad' op failed to verify that all of {scale, dscale, dbias} have same type}}
  %0:3 = "mixprec.batch_norm_grad"(%x, %x, %s) : (tensor<8x3xf32>, tensor<8x3xf32>, tensor<3xf32>) -> (tensor<8x3xf32>, tensor<3xf32>, tensor<8x3xf32>)
  return
}

// -----

func.func @f(%labels: tensor<4xi32>) {
  // expected-error @+1 {{'mixprec.index_check' op attribute 'bound' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 0}}
  %0 = mixprec.index_check %labels {bound = -1 : i64, check = 0 : i64} : tensor<4xi32>
  return
}

// -----

func.func @f(%labels: tensor<4xi32>, %previous: tensor<2xi64>) {
  // expected-error @+1 {{'mixprec.index_check' op operand #1 must be tensor<3xi64> index report (check, position, value)}}
  %0 = "mixprec.index_check"(%labels, %previous) {bound = 4 : i64, check = 1 : i64} : (tensor<4xi32>, tensor<2xi64>) -> tensor<3xi64>
  return
}

// -----

func.func @f(%labels: tensor<4xf32>) {
  // expected-error @+1 {{'mixprec.index_check' op operand #0 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = "mixprec.index_check"(%labels) {bound = 4 : i64, check = 0 : i64} : (tensor<4xf32>) -> tensor<3xi64>
  return
}

// -----

func.func @f(%logits: tensor<4x0xf32>, %labels: tensor<4xi32>) {
  // expected-error @+1 {{logits must have at least one class}}
  %0 = mixprec.softmax_cross_entropy %logits, %labels : tensor<4x0xf32>, tensor<4xi32>
  return
}
