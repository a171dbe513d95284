// RUN: mixprec-opt %s -split-input-file --mixprec-autodiff | FileCheck %s

// Adjoints of maximum, minimum, reduce_max, strided slices, eval-mode
// batch_norm, silu, abs and where.

// maximum and minimum: maximum_grad / minimum_grad in the result type, on
// the operands cast to it; each operand's gradient is cast back to its own
// type.
// CHECK-LABEL: func.func @train_gradients(
// CHECK:         [[A:%.+]] = mixprec.read @a : tensor<4x8xf16>
// CHECK-NEXT:    [[B:%.+]] = mixprec.read @b : tensor<4x8xf32>
// CHECK-NEXT:    [[M:%.+]] = mixprec.maximum [[A]], [[B]]
// CHECK:         [[G:%.+]] = mixprec.broadcast {{.*}} -> tensor<4x8xf32>
// CHECK-NEXT:    [[DM:%[^,]+]], [[DB1:%[^ ]+]] = mixprec.minimum_grad [[G]], [[M]], [[B]] : tensor<4x8xf32>
// CHECK-NEXT:    [[A32:%.+]] = mixprec.cast [[A]] : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK-NEXT:    [[DA32:%[^,]+]], [[DB2:%[^ ]+]] = mixprec.maximum_grad [[DM]], [[A32]], [[B]] : tensor<4x8xf32>
// CHECK-NEXT:    [[DA:%.+]] = mixprec.cast [[DA32]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-NEXT:    [[DB:%.+]] = mixprec.add [[DB1]], [[DB2]]
// CHECK-NEXT:    return {{%.+}}, [[DA]], [[DB]]
mixprec.parameter @a : tensor<4x8xf16> = #mixprec.zeros
mixprec.parameter @b : tensor<4x8xf32> = #mixprec.zeros
func.func @loss() -> tensor<f32> {
  %a = mixprec.read @a : tensor<4x8xf16>
  %b = mixprec.read @b : tensor<4x8xf32>
  %m = mixprec.maximum %a, %b : tensor<4x8xf16>, tensor<4x8xf32>
  %n = mixprec.minimum %m, %b : tensor<4x8xf32>, tensor<4x8xf32>
  %l = mixprec.reduce_sum %n {dims = array<i64: 0, 1>} : tensor<4x8xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>

// -----

// reduce_max: reduce_max_grad takes the forward result and attributes.
// CHECK-LABEL: func.func @train_gradients(
// CHECK:         [[X:%.+]] = mixprec.read @x : tensor<4x8xf32>
// CHECK-NEXT:    [[MAX:%.+]] = mixprec.reduce_max [[X]] {dims = array<i64: 1>, keepdim}
// CHECK:         [[G:%.+]] = mixprec.broadcast {{.*}} -> tensor<4x1xf32>
// CHECK-NEXT:    [[DX:%.+]] = mixprec.reduce_max_grad [[G]], [[X]], [[MAX]] {dims = array<i64: 1>, keepdim} : tensor<4x1xf32>, tensor<4x8xf32>
// CHECK-NEXT:    return {{%.+}}, [[DX]]
mixprec.parameter @x : tensor<4x8xf32> = #mixprec.zeros
func.func @loss() -> tensor<f32> {
  %x = mixprec.read @x : tensor<4x8xf32>
  %m = mixprec.reduce_max %x {dims = array<i64: 1>, keepdim} : tensor<4x8xf32>
  %l = mixprec.reduce_sum %m {dims = array<i64: 0, 1>} : tensor<4x1xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>

// -----

// A strided slice: per dim, stride - 1 zeros after each element (cut where
// the input ends), then zeros before and after. Rows 1, 4, 7 of 9: the
// spread 9 rows are cut to 8; columns 2, 4, 6, 8 of 11: the spread 8 fit.
// CHECK-LABEL: func.func @train_gradients(
// CHECK:         [[G:%.+]] = mixprec.broadcast {{.*}} -> tensor<3x4xf32>
// CHECK-NEXT:    [[G3:%.+]] = mixprec.reshape [[G]] : tensor<3x4xf32> -> tensor<3x1x4xf32>
// CHECK-NEXT:    [[Z:%.+]] = mixprec.constant dense<0.000000e+00> : tensor<3x2x4xf32>
// CHECK-NEXT:    [[S:%.+]] = mixprec.concat [[G3]], [[Z]] {axis = 1 : i64}
// CHECK-NEXT:    [[ROWS:%.+]] = mixprec.reshape [[S]] : tensor<3x3x4xf32> -> tensor<9x4xf32>
// CHECK-NEXT:    [[CUT:%.+]] = mixprec.slice [[ROWS]] {offsets = array<i64: 0, 0>, sizes = array<i64: 8, 4>} : tensor<9x4xf32>
// CHECK-NEXT:    [[Z:%.+]] = mixprec.constant dense<0.000000e+00> : tensor<1x4xf32>
// CHECK-NEXT:    [[PADDED:%.+]] = mixprec.concat [[Z]], [[CUT]] {axis = 0 : i64} : tensor<1x4xf32>, tensor<8x4xf32>
// CHECK-NEXT:    [[G3:%.+]] = mixprec.reshape [[PADDED]] : tensor<9x4xf32> -> tensor<9x4x1xf32>
// CHECK-NEXT:    [[Z:%.+]] = mixprec.constant dense<0.000000e+00> : tensor<9x4x1xf32>
// CHECK-NEXT:    [[S:%.+]] = mixprec.concat [[G3]], [[Z]] {axis = 2 : i64}
// CHECK-NEXT:    [[COLS:%.+]] = mixprec.reshape [[S]] : tensor<9x4x2xf32> -> tensor<9x8xf32>
// CHECK-NEXT:    [[BEFORE:%.+]] = mixprec.constant dense<0.000000e+00> : tensor<9x2xf32>
// CHECK-NEXT:    [[AFTER:%.+]] = mixprec.constant dense<0.000000e+00> : tensor<9x1xf32>
// CHECK-NEXT:    [[DX:%.+]] = mixprec.concat [[BEFORE]], [[COLS]], [[AFTER]] {axis = 1 : i64}
// CHECK-NEXT:    return {{%.+}}, [[DX]] : tensor<f32>, tensor<9x11xf32>
mixprec.parameter @x : tensor<9x11xf32> = #mixprec.zeros
func.func @loss() -> tensor<f32> {
  %x = mixprec.read @x : tensor<9x11xf32>
  %s = mixprec.slice %x {offsets = array<i64: 1, 2>, sizes = array<i64: 3, 4>, strides = array<i64: 3, 2>} : tensor<9x11xf32>
  %l = mixprec.reduce_sum %s {dims = array<i64: 0, 1>} : tensor<3x4xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>

// -----

// Eval-mode batch_norm: affine per channel, in FP32 whatever the input
// type. dx = g * scale * rstd, dscale = sum(g * xhat), dbias = sum(g), each
// rounded once to f16. The running statistics are buffers: their gradients
// are dropped as dead code.
// CHECK-LABEL: func.func @train_gradients(
// CHECK:         [[X:%.+]] = mixprec.read @x : tensor<2x4x3x3xf16>
// CHECK-NEXT:    [[S:%.+]] = mixprec.read @g : tensor<4xf16>
// CHECK-NEXT:    mixprec.read @b
// CHECK-NEXT:    [[MEAN:%.+]] = mixprec.read @mean : tensor<4xf32>
// CHECK-NEXT:    [[VAR:%.+]] = mixprec.read @var : tensor<4xf32>
// CHECK:         [[G:%.+]] = mixprec.cast {{.*}} to tensor<2x4x3x3xf16>
// CHECK-NEXT:    [[EPS:%.+]] = mixprec.constant dense<9.99999974E-6> : tensor<4xf32>
// CHECK-NEXT:    [[VE:%.+]] = mixprec.add [[VAR]], [[EPS]]
// CHECK-NEXT:    [[RSTD:%.+]] = mixprec.rsqrt [[VE]] : tensor<4xf32>
// CHECK-NEXT:    [[S32:%.+]] = mixprec.cast [[S]] : tensor<4xf16> to tensor<4xf32>
// CHECK-NEXT:    [[FACTOR:%.+]] = mixprec.mul [[S32]], [[RSTD]]
// CHECK-NEXT:    [[G32:%.+]] = mixprec.cast [[G]] : tensor<2x4x3x3xf16> to tensor<2x4x3x3xf32>
// CHECK-NEXT:    [[F4:%.+]] = mixprec.reshape [[FACTOR]] : tensor<4xf32> -> tensor<1x4x1x1xf32>
// CHECK-NEXT:    [[FB:%.+]] = mixprec.broadcast [[F4]] : tensor<1x4x1x1xf32> -> tensor<2x4x3x3xf32>
// CHECK-NEXT:    [[DX32:%.+]] = mixprec.mul [[G32]], [[FB]]
// CHECK-NEXT:    [[DX:%.+]] = mixprec.cast [[DX32]] : tensor<2x4x3x3xf32> to tensor<2x4x3x3xf16>
// CHECK-NEXT:    [[R4:%.+]] = mixprec.reshape [[RSTD]] : tensor<4xf32> -> tensor<1x4x1x1xf32>
// CHECK-NEXT:    [[RB:%.+]] = mixprec.broadcast [[R4]]
// CHECK-NEXT:    [[M4:%.+]] = mixprec.reshape [[MEAN]] : tensor<4xf32> -> tensor<1x4x1x1xf32>
// CHECK-NEXT:    [[MB:%.+]] = mixprec.broadcast [[M4]]
// CHECK-NEXT:    [[X32:%.+]] = mixprec.cast [[X]] : tensor<2x4x3x3xf16> to tensor<2x4x3x3xf32>
// CHECK-NEXT:    [[XC:%.+]] = mixprec.sub [[X32]], [[MB]]
// CHECK-NEXT:    [[XHAT:%.+]] = mixprec.mul [[XC]], [[RB]]
// CHECK-NEXT:    [[GXHAT:%.+]] = mixprec.mul [[G32]], [[XHAT]]
// CHECK-NEXT:    [[DS32:%.+]] = mixprec.reduce_sum [[GXHAT]] {dims = array<i64: 0, 2, 3>}
// CHECK-NEXT:    [[DS:%.+]] = mixprec.cast [[DS32]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT:    [[DB32:%.+]] = mixprec.reduce_sum [[G32]] {dims = array<i64: 0, 2, 3>}
// CHECK-NEXT:    [[DB:%.+]] = mixprec.cast [[DB32]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT:    return {{%.+}}, [[DX]], [[DS]], [[DB]]
mixprec.parameter @x : tensor<2x4x3x3xf16> = #mixprec.zeros
mixprec.parameter @g : tensor<4xf16> = #mixprec.ones
mixprec.parameter @b : tensor<4xf16> = #mixprec.zeros
mixprec.buffer @mean : tensor<4xf32> = #mixprec.zeros
mixprec.buffer @var : tensor<4xf32> = #mixprec.ones
func.func @loss() -> tensor<f32> {
  %x = mixprec.read @x : tensor<2x4x3x3xf16>
  %g = mixprec.read @g : tensor<4xf16>
  %b = mixprec.read @b : tensor<4xf16>
  %mean = mixprec.read @mean : tensor<4xf32>
  %var = mixprec.read @var : tensor<4xf32>
  %y, %m, %v = mixprec.batch_norm %x, %mean, %var scale %g bias %b {training = false} : tensor<2x4x3x3xf16>, tensor<4xf32>, tensor<4xf16>, tensor<4xf16>
  %y32 = mixprec.cast %y : tensor<2x4x3x3xf16> to tensor<2x4x3x3xf32>
  %l = mixprec.reduce_sum %y32 {dims = array<i64: 0, 1, 2, 3>} : tensor<2x4x3x3xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>

// -----

// silu: s (1 + x (1 - s)) with s = sigmoid(x), in FP32 whatever the input
// type, the gradient rounded once to f16.
// CHECK-LABEL: func.func @train_gradients(
// CHECK:         [[X:%.+]] = mixprec.read @x : tensor<4x8xf16>
// CHECK-NEXT:    [[Y:%.+]] = mixprec.silu [[X]] : tensor<4x8xf16>
// CHECK:         [[G:%.+]] = mixprec.cast {{.*}} : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-NEXT:    [[G32:%.+]] = mixprec.cast [[G]] : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK-NEXT:    [[X32:%.+]] = mixprec.cast [[X]] : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK-NEXT:    [[S:%.+]] = mixprec.sigmoid [[X32]] : tensor<4x8xf32>
// CHECK-NEXT:    [[ONE:%.+]] = mixprec.constant dense<1.000000e+00> : tensor<4x8xf32>
// CHECK-NEXT:    [[C:%.+]] = mixprec.sub [[ONE]], [[S]]
// CHECK-NEXT:    [[XC:%.+]] = mixprec.mul [[X32]], [[C]]
// CHECK-NEXT:    [[F:%.+]] = mixprec.add [[ONE]], [[XC]]
// CHECK-NEXT:    [[GS:%.+]] = mixprec.mul [[G32]], [[S]]
// CHECK-NEXT:    [[DX32:%.+]] = mixprec.mul [[GS]], [[F]]
// CHECK-NEXT:    [[DX:%.+]] = mixprec.cast [[DX32]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-NEXT:    return {{%.+}}, [[DX]] : tensor<f32>, tensor<4x8xf16>
mixprec.parameter @x : tensor<4x8xf16> = #mixprec.zeros
func.func @loss() -> tensor<f32> {
  %x = mixprec.read @x : tensor<4x8xf16>
  %y = mixprec.silu %x : tensor<4x8xf16>
  %y32 = mixprec.cast %y : tensor<4x8xf16> to tensor<4x8xf32>
  %l = mixprec.reduce_sum %y32 {dims = array<i64: 0, 1>} : tensor<4x8xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>

// -----

// silu in FP32: the same adjoint without casts.
// CHECK-LABEL: func.func @train_gradients(
// CHECK:         [[X:%.+]] = mixprec.read @x : tensor<3xf32>
// CHECK:         [[G:%.+]] = mixprec.broadcast {{.*}} -> tensor<3xf32>
// CHECK-NEXT:    [[S:%.+]] = mixprec.sigmoid [[X]] : tensor<3xf32>
// CHECK-NEXT:    [[ONE:%.+]] = mixprec.constant dense<1.000000e+00> : tensor<3xf32>
// CHECK-NEXT:    [[C:%.+]] = mixprec.sub [[ONE]], [[S]]
// CHECK-NEXT:    [[XC:%.+]] = mixprec.mul [[X]], [[C]]
// CHECK-NEXT:    [[F:%.+]] = mixprec.add [[ONE]], [[XC]]
// CHECK-NEXT:    [[GS:%.+]] = mixprec.mul [[G]], [[S]]
// CHECK-NEXT:    [[DX:%.+]] = mixprec.mul [[GS]], [[F]]
// CHECK-NEXT:    return {{%.+}}, [[DX]] : tensor<f32>, tensor<3xf32>
mixprec.parameter @x : tensor<3xf32> = #mixprec.zeros
func.func @loss() -> tensor<f32> {
  %x = mixprec.read @x : tensor<3xf32>
  %y = mixprec.silu %x : tensor<3xf32>
  %l = mixprec.reduce_sum %y {dims = array<i64: 0>} : tensor<3xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>

// -----

// abs: g * sign(x) in the input's type, sign(x) = step(x) - step(-x) with
// the step x > 0 as relu_grad of ones: 0 at 0.
// CHECK-LABEL: func.func @train_gradients(
// CHECK:         [[X:%.+]] = mixprec.read @x : tensor<4x8xf16>
// CHECK-NEXT:    [[Y:%.+]] = mixprec.abs [[X]] : tensor<4x8xf16>
// CHECK:         [[G:%.+]] = mixprec.cast {{.*}} : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-NEXT:    [[ONE:%.+]] = mixprec.constant dense<1.000000e+00> : tensor<4x8xf16>
// CHECK-NEXT:    [[POS:%.+]] = mixprec.relu_grad [[ONE]], [[X]] : tensor<4x8xf16>
// CHECK-NEXT:    [[NX:%.+]] = mixprec.neg [[X]] : tensor<4x8xf16>
// CHECK-NEXT:    [[NEG:%.+]] = mixprec.relu_grad [[ONE]], [[NX]] : tensor<4x8xf16>
// CHECK-NEXT:    [[SIGN:%.+]] = mixprec.sub [[POS]], [[NEG]] : tensor<4x8xf16>, tensor<4x8xf16>
// CHECK-NEXT:    [[DX:%.+]] = mixprec.mul [[G]], [[SIGN]] : tensor<4x8xf16>, tensor<4x8xf16>
// CHECK-NEXT:    return {{%.+}}, [[DX]] : tensor<f32>, tensor<4x8xf16>
mixprec.parameter @x : tensor<4x8xf16> = #mixprec.zeros
func.func @loss() -> tensor<f32> {
  %x = mixprec.read @x : tensor<4x8xf16>
  %y = mixprec.abs %x : tensor<4x8xf16>
  %y32 = mixprec.cast %y : tensor<4x8xf16> to tensor<4x8xf32>
  %l = mixprec.reduce_sum %y32 {dims = array<i64: 0, 1>} : tensor<4x8xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>

// -----

// where: the gradient goes to the chosen value through a where of the
// gradient and zeros (0, not g * 0, on the other side), in the result type;
// the f16 value's gradient is cast back to f16. The mask gets none.
// CHECK-LABEL: func.func @train_gradients(
// CHECK:         [[X:%.+]] = mixprec.read @x : tensor<2x3xf16>
// CHECK-NEXT:    [[Y:%.+]] = mixprec.read @y : tensor<2x3xf32>
// CHECK-NEXT:    [[M:%.+]] = mixprec.constant dense<{{\[}}[true, false, true], [false, false, true]]> : tensor<2x3xi1>
// CHECK-NEXT:    [[W:%.+]] = mixprec.where [[M]], [[X]], [[Y]]
// CHECK:         [[G:%.+]] = mixprec.broadcast {{.*}} -> tensor<2x3xf32>
// CHECK-NEXT:    [[ZERO:%.+]] = mixprec.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT:    [[DX32:%.+]] = mixprec.where [[M]], [[G]], [[ZERO]] : tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>
// CHECK-NEXT:    [[DY:%.+]] = mixprec.where [[M]], [[ZERO]], [[G]] : tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>
// CHECK-NEXT:    [[DX:%.+]] = mixprec.cast [[DX32]] : tensor<2x3xf32> to tensor<2x3xf16>
// CHECK-NEXT:    return {{%.+}}, [[DX]], [[DY]] : tensor<f32>, tensor<2x3xf16>, tensor<2x3xf32>
mixprec.parameter @x : tensor<2x3xf16> = #mixprec.zeros
mixprec.parameter @y : tensor<2x3xf32> = #mixprec.zeros
func.func @loss() -> tensor<f32> {
  %x = mixprec.read @x : tensor<2x3xf16>
  %y = mixprec.read @y : tensor<2x3xf32>
  %m = mixprec.constant dense<[[true, false, true], [false, false, true]]> : tensor<2x3xi1>
  %w = mixprec.where %m, %x, %y : tensor<2x3xi1>, tensor<2x3xf16>, tensor<2x3xf32>
  %l = mixprec.reduce_sum %w {dims = array<i64: 0, 1>} : tensor<2x3xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>

// -----

// clamp: g where min <= x <= max, ties included, in the input's type. The
// mask "x >= min" is 1 - step(min - x), "x <= max" is 1 - step(x - max), with
// the step v > 0 (and NaN) as relu_grad of ones; relu_grad(g, mask) selects g.
// CHECK-LABEL: func.func @train_gradients(
// CHECK:         [[X:%.+]] = mixprec.read @x : tensor<4x8xf16>
// CHECK-NEXT:    [[Y:%.+]] = mixprec.clamp [[X]] {max = 6.000000e+00 : f64, min = -1.000000e+00 : f64} : tensor<4x8xf16>
// CHECK:         [[G:%.+]] = mixprec.cast {{.*}} : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-NEXT:    [[ONE:%.+]] = mixprec.constant dense<1.000000e+00> : tensor<4x8xf16>
// CHECK-NEXT:    [[LO:%.+]] = mixprec.constant dense<-1.000000e+00> : tensor<4x8xf16>
// CHECK-NEXT:    [[BELOW:%.+]] = mixprec.sub [[LO]], [[X]] : tensor<4x8xf16>, tensor<4x8xf16>
// CHECK-NEXT:    [[OUTLO:%.+]] = mixprec.relu_grad [[ONE]], [[BELOW]] : tensor<4x8xf16>
// CHECK-NEXT:    [[INLO:%.+]] = mixprec.sub [[ONE]], [[OUTLO]] : tensor<4x8xf16>, tensor<4x8xf16>
// CHECK-NEXT:    [[DLO:%.+]] = mixprec.relu_grad [[G]], [[INLO]] : tensor<4x8xf16>
// CHECK-NEXT:    [[HI:%.+]] = mixprec.constant dense<6.000000e+00> : tensor<4x8xf16>
// CHECK-NEXT:    [[ABOVE:%.+]] = mixprec.sub [[X]], [[HI]] : tensor<4x8xf16>, tensor<4x8xf16>
// CHECK-NEXT:    [[OUTHI:%.+]] = mixprec.relu_grad [[ONE]], [[ABOVE]] : tensor<4x8xf16>
// CHECK-NEXT:    [[INHI:%.+]] = mixprec.sub [[ONE]], [[OUTHI]] : tensor<4x8xf16>, tensor<4x8xf16>
// CHECK-NEXT:    [[DX:%.+]] = mixprec.relu_grad [[DLO]], [[INHI]] : tensor<4x8xf16>
// CHECK-NEXT:    return {{%.+}}, [[DX]] : tensor<f32>, tensor<4x8xf16>
mixprec.parameter @x : tensor<4x8xf16> = #mixprec.zeros
func.func @loss() -> tensor<f32> {
  %x = mixprec.read @x : tensor<4x8xf16>
  %y = mixprec.clamp %x {min = -1.0 : f64, max = 6.0 : f64} : tensor<4x8xf16>
  %y32 = mixprec.cast %y : tensor<4x8xf16> to tensor<4x8xf32>
  %l = mixprec.reduce_sum %y32 {dims = array<i64: 0, 1>} : tensor<4x8xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>

// -----

// clamp strict (hardtanh): g where min < x < max, 0 for a NaN x: steps of
// x - min and max - x (1 for NaN too), then 1 - step(x - x), 0 for NaN.
// CHECK-LABEL: func.func @train_gradients(
// CHECK:         [[X:%.+]] = mixprec.read @x : tensor<3xf32>
// CHECK:         [[G:%.+]] = mixprec.broadcast {{.*}} -> tensor<3xf32>
// CHECK-NEXT:    [[ONE:%.+]] = mixprec.constant dense<1.000000e+00> : tensor<3xf32>
// CHECK-NEXT:    [[LO:%.+]] = mixprec.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK-NEXT:    [[ABOVE:%.+]] = mixprec.sub [[X]], [[LO]]
// CHECK-NEXT:    [[OVERLO:%.+]] = mixprec.relu_grad [[ONE]], [[ABOVE]]
// CHECK-NEXT:    [[DLO:%.+]] = mixprec.relu_grad [[G]], [[OVERLO]]
// CHECK-NEXT:    [[HI:%.+]] = mixprec.constant dense<6.000000e+00> : tensor<3xf32>
// CHECK-NEXT:    [[BELOW:%.+]] = mixprec.sub [[HI]], [[X]]
// CHECK-NEXT:    [[UNDERHI:%.+]] = mixprec.relu_grad [[ONE]], [[BELOW]]
// CHECK-NEXT:    [[DHI:%.+]] = mixprec.relu_grad [[DLO]], [[UNDERHI]]
// CHECK-NEXT:    [[ZERO:%.+]] = mixprec.sub [[X]], [[X]]
// CHECK-NEXT:    [[ISNAN:%.+]] = mixprec.relu_grad [[ONE]], [[ZERO]]
// CHECK-NEXT:    [[NOTNAN:%.+]] = mixprec.sub [[ONE]], [[ISNAN]]
// CHECK-NEXT:    [[DX:%.+]] = mixprec.relu_grad [[DHI]], [[NOTNAN]]
// CHECK-NEXT:    return {{%.+}}, [[DX]] : tensor<f32>, tensor<3xf32>
mixprec.parameter @x : tensor<3xf32> = #mixprec.zeros
func.func @loss() -> tensor<f32> {
  %x = mixprec.read @x : tensor<3xf32>
  %y = mixprec.clamp %x {min = 0.0 : f64, max = 6.0 : f64, strict} : tensor<3xf32>
  %l = mixprec.reduce_sum %y {dims = array<i64: 0>} : tensor<3xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>

// -----

// clamp with only max: the one mask "x <= max".
// CHECK-LABEL: func.func @train_gradients(
// CHECK:         [[X:%.+]] = mixprec.read @x : tensor<3xf32>
// CHECK:         [[G:%.+]] = mixprec.broadcast {{.*}} -> tensor<3xf32>
// CHECK-NEXT:    [[ONE:%.+]] = mixprec.constant dense<1.000000e+00> : tensor<3xf32>
// CHECK-NEXT:    [[HI:%.+]] = mixprec.constant dense<2.500000e-01> : tensor<3xf32>
// CHECK-NEXT:    [[ABOVE:%.+]] = mixprec.sub [[X]], [[HI]]
// CHECK-NEXT:    [[OUT:%.+]] = mixprec.relu_grad [[ONE]], [[ABOVE]]
// CHECK-NEXT:    [[IN:%.+]] = mixprec.sub [[ONE]], [[OUT]]
// CHECK-NEXT:    [[DX:%.+]] = mixprec.relu_grad [[G]], [[IN]]
// CHECK-NEXT:    return {{%.+}}, [[DX]] : tensor<f32>, tensor<3xf32>
mixprec.parameter @x : tensor<3xf32> = #mixprec.zeros
func.func @loss() -> tensor<f32> {
  %x = mixprec.read @x : tensor<3xf32>
  %y = mixprec.clamp %x {max = 0.25 : f64} : tensor<3xf32>
  %l = mixprec.reduce_sum %y {dims = array<i64: 0>} : tensor<3xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>

// -----

// A mask turned into 0 and 1 (a cast of i1) gets no gradient: the negated
// padding mask only scales the gradient of @w, and nothing flows to the
// mask or its negation.
// CHECK-LABEL: func.func @train_gradients(
// CHECK-SAME:      [[PAD:%[^:]+]]: tensor<4x8xi1>
// CHECK:         [[KEEP:%.+]] = mixprec.logical_not [[PAD]] : tensor<4x8xi1>
// CHECK-NEXT:    [[K:%.+]] = mixprec.cast [[KEEP]] : tensor<4x8xi1> to tensor<4x8xf32>
// CHECK:         mixprec.loss_seed
// CHECK:         [[DW:%.+]] = mixprec.mul {{%.+}}, [[K]]
// CHECK-NOT:     mixprec.logical_not
// CHECK-NOT:     to tensor<4x8xi1>
// CHECK:         return {{%.+}}, [[DW]]
mixprec.parameter @w : tensor<4x8xf32> = #mixprec.zeros
func.func @loss(%padding: tensor<4x8xi1>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<4x8xf32>
  %keep = mixprec.logical_not %padding : tensor<4x8xi1>
  %k = mixprec.cast %keep : tensor<4x8xi1> to tensor<4x8xf32>
  %m = mixprec.mul %w, %k : tensor<4x8xf32>, tensor<4x8xf32>
  %l = mixprec.reduce_sum %m {dims = array<i64: 0, 1>} : tensor<4x8xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>
