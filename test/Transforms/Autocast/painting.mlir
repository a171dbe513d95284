// RUN: mixprec-opt %s -split-input-file --mixprec-autocast | FileCheck %s

// The painting cases of the autocast issue, with precision=f16 (default).
// Captured names tie each cast to its users; CHECK-NOT lines pin that no
// other cast exists.

// A relu between two matmuls stays 16-bit: no cast between them. The second
// matmul feeds only the (FP32) return, so it yields its accumulator.
// CHECK-LABEL: func.func @relu_between_matmuls(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<8x16xf32>, [[W1:%[^:]+]]: tensor<16x16xf32>, [[W2:%[^:]+]]: tensor<16x4xf32>)
// CHECK:         [[X16:%.+]] = mixprec.cast [[X]] {{.*}}: tensor<8x16xf32> to tensor<8x16xf16>
// CHECK:         [[W1_16:%.+]] = mixprec.cast [[W1]] {{.*}}: tensor<16x16xf32> to tensor<16x16xf16>
// CHECK:         [[W2_16:%.+]] = mixprec.cast [[W2]] {{.*}}: tensor<16x4xf32> to tensor<16x4xf16>
// CHECK:         [[H:%.+]] = mixprec.matmul [[X16]], [[W1_16]] {mixprec.autocast = "tensor_core"} : tensor<8x16xf16>, tensor<16x16xf16> -> tensor<8x16xf16>
// CHECK-NEXT:    [[A:%.+]] = mixprec.relu [[H]] {mixprec.autocast = "propagated (follow)"} : tensor<8x16xf16>
// CHECK-NEXT:    [[Y:%.+]] = mixprec.matmul [[A]], [[W2_16]] {mixprec.autocast = "tensor_core"} : tensor<8x16xf16>, tensor<16x4xf16> -> tensor<8x4xf32>
// CHECK-NEXT:    return [[Y]] : tensor<8x4xf32>
func.func @relu_between_matmuls(%x: tensor<8x16xf32>, %w1: tensor<16x16xf32>, %w2: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %h = mixprec.matmul %x, %w1 : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %a = mixprec.relu %h : tensor<8x16xf32>
  %y = mixprec.matmul %a, %w2 : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// matmul -> softmax -> matmul costs exactly one cast: the first matmul
// yields FP32 from its accumulator, the softmax output is cast down for the
// second. The inputs are already f16, so no other cast is needed.
// CHECK-LABEL: func.func @matmul_softmax_matmul(
// CHECK-SAME:    [[Q:%[^:]+]]: tensor<8x8xf16>, [[K:%[^:]+]]: tensor<8x8xf16>, [[V:%[^:]+]]: tensor<8x8xf16>)
// CHECK-NOT:     mixprec.cast
// CHECK:         [[S:%.+]] = mixprec.matmul [[Q]], [[K]] {{.*}}: tensor<8x8xf16>, tensor<8x8xf16> -> tensor<8x8xf32>
// CHECK-NEXT:    [[P:%.+]] = mixprec.softmax [[S]] {{.*}}: tensor<8x8xf32>
// CHECK-NEXT:    [[P16:%.+]] = mixprec.cast [[P]] {mixprec.autocast = "cast: for mixprec.matmul (tensor_core)"} : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK-NEXT:    [[O:%.+]] = mixprec.matmul [[P16]], [[V]] {{.*}}: tensor<8x8xf16>, tensor<8x8xf16> -> tensor<8x8xf16>
// CHECK-NOT:     mixprec.cast
// CHECK:         return [[O]] : tensor<8x8xf16>
func.func @matmul_softmax_matmul(%q: tensor<8x8xf16>, %k: tensor<8x8xf16>, %v: tensor<8x8xf16>) -> tensor<8x8xf16> {
  %s = mixprec.matmul %q, %k : tensor<8x8xf16>, tensor<8x8xf16> -> tensor<8x8xf16>
  %p = mixprec.softmax %s {axis = 1 : i64} : tensor<8x8xf16>
  %o = mixprec.matmul %p, %v : tensor<8x8xf16>, tensor<8x8xf16> -> tensor<8x8xf16>
  return %o : tensor<8x8xf16>
}

// -----

// An add of an FP32 and an FP16 value promotes: it runs in FP32 and only the
// FP16 operand is cast, up.
// CHECK-LABEL: func.func @add_promotes(
// CHECK-SAME:    [[A:%[^:]+]]: tensor<4xf32>, [[B:%[^:]+]]: tensor<4xf16>)
// CHECK-NEXT:    [[B32:%.+]] = mixprec.cast [[B]] {mixprec.autocast = "cast: for mixprec.add (propagated (promote))"} : tensor<4xf16> to tensor<4xf32>
// CHECK-NEXT:    [[S:%.+]] = mixprec.add [[A]], [[B32]] {mixprec.autocast = "propagated (promote)"} : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:    return [[S]] : tensor<4xf32>
func.func @add_promotes(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  %s = mixprec.add %a, %b : tensor<4xf32>, tensor<4xf16>
  return %s : tensor<4xf32>
}

// -----

// An add of two 16-bit values stays 16-bit.
// CHECK-LABEL: func.func @add_of_16_bit_values(
// CHECK-NOT:     mixprec.cast
// CHECK:         mixprec.add {{.*}} : tensor<4xf16>, tensor<4xf16>
func.func @add_of_16_bit_values(%a: tensor<4xf16>, %b: tensor<4xf16>) -> tensor<4xf16> {
  %s = mixprec.add %a, %b : tensor<4xf16>, tensor<4xf16>
  return %s : tensor<4xf16>
}

// -----

// One cast per (value, type), shared by all users; the signature keeps its
// types, so the result is cast back for the return.
// CHECK-LABEL: func.func @shared_cast(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    [[X16:%.+]] = mixprec.cast [[X]] {{.*}}: tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NEXT:    [[A:%.+]] = mixprec.matmul [[X16]], [[X16]] {{.*}}-> tensor<4x4xf16>
// CHECK-NEXT:    [[B:%.+]] = mixprec.matmul [[X16]], [[A]] {{.*}}-> tensor<4x4xf32>
// CHECK-NEXT:    return [[B]] : tensor<4x4xf32>
func.func @shared_cast(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %a = mixprec.matmul %x, %x : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %b = mixprec.matmul %x, %a : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %b : tensor<4x4xf32>
}

// -----

// A value wanted both in 16 bits and in FP32 gets one cast; the second
// matmul yields FP32 for the add, which promotes (the softmax result is
// FP32), and the signature keeps its type: one cast back for the return.
// CHECK-LABEL: func.func @fan_out_to_both(
// CHECK:         [[H:%.+]] = mixprec.matmul {{.*}}-> tensor<4x4xf16>
// CHECK-NEXT:    [[H32:%.+]] = mixprec.cast [[H]] {mixprec.autocast = "cast: for mixprec.softmax (fp32)"} : tensor<4x4xf16> to tensor<4x4xf32>
// CHECK-NEXT:    [[P:%.+]] = mixprec.softmax [[H32]]
// CHECK-NEXT:    [[Y:%.+]] = mixprec.matmul [[H]], {{.*}}-> tensor<4x4xf32>
// CHECK-NEXT:    [[S:%.+]] = mixprec.add [[P]], [[Y]] {{.*}}: tensor<4x4xf32>, tensor<4x4xf32>
// CHECK-NEXT:    [[S16:%.+]] = mixprec.cast [[S]] {mixprec.autocast = "cast: for func.return"} : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NEXT:    return [[S16]] : tensor<4x4xf16>
func.func @fan_out_to_both(%x: tensor<4x4xf16>, %w: tensor<4x4xf16>) -> tensor<4x4xf16> {
  %h = mixprec.matmul %x, %w : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf16>
  %p = mixprec.softmax %h {axis = 1 : i64} : tensor<4x4xf16>
  %y = mixprec.matmul %h, %w : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf16>
  %s = mixprec.add %p, %y : tensor<4x4xf16>, tensor<4x4xf16>
  return %s : tensor<4x4xf16>
}

// -----

// A parameter used by several tensor-core ops is cast once per step, even
// when it is read more than once.
mixprec.parameter @w : tensor<4x4xf32> = #mixprec.zeros
// CHECK-LABEL: func.func @parameter_cast_once(
// CHECK:         [[W:%.+]] = mixprec.read @w : tensor<4x4xf32>
// CHECK-NEXT:    [[W16:%.+]] = mixprec.cast [[W]] {{.*}}: tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NOT:     mixprec.read
// CHECK-NOT:     mixprec.cast [[W]]
// CHECK:         mixprec.matmul {{%.+}}, [[W16]]
// CHECK:         mixprec.matmul {{%.+}}, [[W16]]
func.func @parameter_cast_once(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %w1 = mixprec.read @w : tensor<4x4xf32>
  %a = mixprec.matmul %x, %w1 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %w2 = mixprec.read @w : tensor<4x4xf32>
  %b = mixprec.matmul %x, %w2 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %s = mixprec.softmax %b {axis = 1 : i64} : tensor<4x4xf32>
  %t = mixprec.add %a, %s : tensor<4x4xf32>, tensor<4x4xf32>
  return %t : tensor<4x4xf32>
}

// -----

// Follow ops between an FP32 op and a tensor-core op run in 16 bits: the
// cast down comes right after the FP32 op (ties go to 16 bits), and no cast
// feeds another cast.
// CHECK-LABEL: func.func @cast_before_follow_ops(
// CHECK:         [[N:%.+]] = mixprec.softmax
// CHECK-NEXT:    [[N16:%.+]] = mixprec.cast [[N]] {{.*}}: tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-NEXT:    [[R:%.+]] = mixprec.relu [[N16]] {{.*}}: tensor<4x8xf16>
// CHECK-NEXT:    [[T:%.+]] = mixprec.transpose [[R]] {{.*}}: tensor<4x8xf16>
// CHECK-NEXT:    mixprec.matmul [[T]], {{.*}}-> tensor<8x8xf32>
func.func @cast_before_follow_ops(%x: tensor<4x8xf32>, %w: tensor<4x8xf32>) -> tensor<8x8xf32> {
  %n = mixprec.softmax %x {axis = 1 : i64} : tensor<4x8xf32>
  %r = mixprec.relu %n : tensor<4x8xf32>
  %t = mixprec.transpose %r {permutation = array<i64: 1, 0>} : tensor<4x8xf32>
  %y = mixprec.matmul %t, %w : tensor<8x4xf32>, tensor<4x8xf32> -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// -----

// Without a tensor-core op nothing changes: an FP32 graph stays FP32.
// CHECK-LABEL: func.func @no_tensor_core_op(
// CHECK-NOT:     mixprec.cast
// CHECK:         mixprec.exp {{.*}}: tensor<4xf32>
// CHECK:         mixprec.relu {{.*}}: tensor<4xf32>
func.func @no_tensor_core_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = mixprec.exp %x : tensor<4xf32>
  %r = mixprec.relu %e : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// No cast feeds a user's cast: the matmul yields the type the user's cast
// produces, and a cast that converts nothing after autocast disappears.
// CHECK-LABEL: func.func @user_casts(
// CHECK:         [[H:%.+]] = mixprec.matmul {{.*}}-> tensor<4x4xf16>
// CHECK-NOT:     mixprec.cast
// CHECK:         return [[H]] : tensor<4x4xf16>
func.func @user_casts(%x: tensor<4x4xf16>) -> tensor<4x4xf16> {
  %h = mixprec.matmul %x, %x : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf32>
  %c = mixprec.cast %h : tensor<4x4xf32> to tensor<4x4xf16>
  return %c : tensor<4x4xf16>
}

// -----

// Constants are materialized in the precision their users need: rounded
// once, at compile time, with no cast.
// CHECK-LABEL: func.func @constant_follows(
// CHECK-NOT:     mixprec.cast
// CHECK:         [[C:%.+]] = mixprec.constant {{.*}}dense<3.332520e-01> : tensor<4x4xf16>
// CHECK:         [[M:%.+]] = mixprec.mul {{%.+}}, [[C]] {{.*}}: tensor<4x4xf16>, tensor<4x4xf16>
// CHECK:         mixprec.matmul [[M]], [[M]] {{.*}}-> tensor<4x4xf32>
func.func @constant_follows(%x: tensor<4x4xf16>) -> tensor<4x4xf32> {
  %h = mixprec.matmul %x, %x : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf16>
  %c = mixprec.constant dense<0.3333333> : tensor<4x4xf32>
  %m = mixprec.mul %h, %c : tensor<4x4xf16>, tensor<4x4xf32>
  %y = mixprec.matmul %m, %m : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}
