// RUN: mixprec-opt %s -split-input-file -canonicalize | FileCheck %s

// The folders of the mixprec dialect. Results are returned so that the ops
// stay alive; every function checks its whole body with CHECK-NEXT.

//===----------------------------------------------------------------------===//
// cast
//===----------------------------------------------------------------------===//

// A cast to the same type is the identity.
// CHECK-LABEL: func.func @cast_same_type(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<4x8xf16>, [[I:%[^:]+]]: tensor<3xf32>)
// CHECK-NEXT:    return [[X]], [[I]] : tensor<4x8xf16>, tensor<3xf32>
func.func @cast_same_type(%x: tensor<4x8xf16>, %i: tensor<3xf32>) -> (tensor<4x8xf16>, tensor<3xf32>) {
  %0 = mixprec.cast %x : tensor<4x8xf16> to tensor<4x8xf16>
  %1 = mixprec.cast %i : tensor<3xf32> to tensor<3xf32>
  return %0, %1 : tensor<4x8xf16>, tensor<3xf32>
}

// -----

// Widening f16/bf16 to f32 is exact: narrowing back gives the original value.
// CHECK-LABEL: func.func @cast_widen_then_narrow_back(
// CHECK-SAME:    [[H:%[^:]+]]: tensor<4x8xf16>, [[B:%[^:]+]]: tensor<2xbf16>)
// CHECK-NEXT:    return [[H]], [[B]] : tensor<4x8xf16>, tensor<2xbf16>
func.func @cast_widen_then_narrow_back(%h: tensor<4x8xf16>, %b: tensor<2xbf16>) -> (tensor<4x8xf16>, tensor<2xbf16>) {
  %0 = mixprec.cast %h : tensor<4x8xf16> to tensor<4x8xf32>
  %1 = mixprec.cast %0 : tensor<4x8xf32> to tensor<4x8xf16>
  %2 = mixprec.cast %b : tensor<2xbf16> to tensor<2xf32>
  %3 = mixprec.cast %2 : tensor<2xf32> to tensor<2xbf16>
  return %1, %3 : tensor<4x8xf16>, tensor<2xbf16>
}

// -----

// A widening to f32 then a narrowing to the other 16-bit type rounds once, as
// one direct cast does.
// CHECK-LABEL: func.func @cast_widen_then_narrow_other(
// CHECK-SAME:    [[H:%[^:]+]]: tensor<4x8xf16>, [[B:%[^:]+]]: tensor<2xbf16>)
// CHECK-NEXT:    [[HB:%.+]] = mixprec.cast [[H]] : tensor<4x8xf16> to tensor<4x8xbf16>
// CHECK-NEXT:    [[BH:%.+]] = mixprec.cast [[B]] : tensor<2xbf16> to tensor<2xf16>
// CHECK-NEXT:    return [[HB]], [[BH]] : tensor<4x8xbf16>, tensor<2xf16>
func.func @cast_widen_then_narrow_other(%h: tensor<4x8xf16>, %b: tensor<2xbf16>) -> (tensor<4x8xbf16>, tensor<2xf16>) {
  %0 = mixprec.cast %h : tensor<4x8xf16> to tensor<4x8xf32>
  %1 = mixprec.cast %0 : tensor<4x8xf32> to tensor<4x8xbf16>
  %2 = mixprec.cast %b : tensor<2xbf16> to tensor<2xf32>
  %3 = mixprec.cast %2 : tensor<2xf32> to tensor<2xf16>
  return %1, %3 : tensor<4x8xbf16>, tensor<2xf16>
}

// -----

// The widening stays while something else uses it; the narrowing still
// bypasses it.
// CHECK-LABEL: func.func @cast_widen_multi_use(
// CHECK-SAME:    [[H:%[^:]+]]: tensor<8xf16>)
// CHECK-NEXT:    [[F:%.+]] = mixprec.cast [[H]] : tensor<8xf16> to tensor<8xf32>
// CHECK-NEXT:    [[B:%.+]] = mixprec.cast [[H]] : tensor<8xf16> to tensor<8xbf16>
// CHECK-NEXT:    return [[F]], [[H]], [[B]] : tensor<8xf32>, tensor<8xf16>, tensor<8xbf16>
func.func @cast_widen_multi_use(%h: tensor<8xf16>) -> (tensor<8xf32>, tensor<8xf16>, tensor<8xbf16>) {
  %0 = mixprec.cast %h : tensor<8xf16> to tensor<8xf32>
  %1 = mixprec.cast %0 : tensor<8xf32> to tensor<8xf16>
  %2 = mixprec.cast %0 : tensor<8xf32> to tensor<8xbf16>
  return %0, %1, %2 : tensor<8xf32>, tensor<8xf16>, tensor<8xbf16>
}

// -----

// Narrowing f32 to f16 rounds, so widening back is not the original value:
// nothing folds.
// CHECK-LABEL: func.func @cast_narrow_then_widen(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<4x8xf32>)
// CHECK-NEXT:    [[H:%.+]] = mixprec.cast [[X]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-NEXT:    [[F:%.+]] = mixprec.cast [[H]] : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK-NEXT:    return [[F]] : tensor<4x8xf32>
// CHECK-NOT:   [[X]]
func.func @cast_narrow_then_widen(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = mixprec.cast %x : tensor<4x8xf32> to tensor<4x8xf16>
  %1 = mixprec.cast %0 : tensor<4x8xf16> to tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// Nor does f32 -> bf16 -> f16 become one cast (two roundings), nor does
// f16 -> bf16 -> f16 (bf16 drops mantissa bits).
// CHECK-LABEL: func.func @cast_narrow_chains(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<4xf32>, [[H:%[^:]+]]: tensor<4xf16>)
// CHECK-NEXT:    [[B:%.+]] = mixprec.cast [[X]] : tensor<4xf32> to tensor<4xbf16>
// CHECK-NEXT:    [[BH:%.+]] = mixprec.cast [[B]] : tensor<4xbf16> to tensor<4xf16>
// CHECK-NEXT:    [[HB:%.+]] = mixprec.cast [[H]] : tensor<4xf16> to tensor<4xbf16>
// CHECK-NEXT:    [[HBH:%.+]] = mixprec.cast [[HB]] : tensor<4xbf16> to tensor<4xf16>
// CHECK-NEXT:    return [[BH]], [[HBH]] : tensor<4xf16>, tensor<4xf16>
func.func @cast_narrow_chains(%x: tensor<4xf32>, %h: tensor<4xf16>) -> (tensor<4xf16>, tensor<4xf16>) {
  %0 = mixprec.cast %x : tensor<4xf32> to tensor<4xbf16>
  %1 = mixprec.cast %0 : tensor<4xbf16> to tensor<4xf16>
  %2 = mixprec.cast %h : tensor<4xf16> to tensor<4xbf16>
  %3 = mixprec.cast %2 : tensor<4xbf16> to tensor<4xf16>
  return %1, %3 : tensor<4xf16>, tensor<4xf16>
}

// -----

// An integer to f32 cast may round (|i| > 2^24): the narrowing after it does
// not skip it.
// CHECK-LABEL: func.func @cast_int_then_narrow(
// CHECK-SAME:    [[I:%[^:]+]]: tensor<4xi32>)
// CHECK-NEXT:    [[F:%.+]] = mixprec.cast [[I]] : tensor<4xi32> to tensor<4xf32>
// CHECK-NEXT:    [[H:%.+]] = mixprec.cast [[F]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT:    return [[H]] : tensor<4xf16>
// CHECK-NOT:   mixprec.cast [[I]] : tensor<4xi32> to tensor<4xf16>
func.func @cast_int_then_narrow(%i: tensor<4xi32>) -> tensor<4xf16> {
  %0 = mixprec.cast %i : tensor<4xi32> to tensor<4xf32>
  %1 = mixprec.cast %0 : tensor<4xf32> to tensor<4xf16>
  return %1 : tensor<4xf16>
}

// -----

//===----------------------------------------------------------------------===//
// transpose
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @transpose_identity(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<2x3x4xf32>, [[V:%[^:]+]]: tensor<5xi32>)
// CHECK-NEXT:    return [[X]], [[V]] : tensor<2x3x4xf32>, tensor<5xi32>
func.func @transpose_identity(%x: tensor<2x3x4xf32>, %v: tensor<5xi32>) -> (tensor<2x3x4xf32>, tensor<5xi32>) {
  %0 = mixprec.transpose %x {permutation = array<i64: 0, 1, 2>} : tensor<2x3x4xf32>
  %1 = mixprec.transpose %v {permutation = array<i64: 0>} : tensor<5xi32>
  return %0, %1 : tensor<2x3x4xf32>, tensor<5xi32>
}

// -----

// A transpose whose dims are permuted but equal in size is no identity.
// CHECK-LABEL: func.func @transpose_square_not_identity(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<4x4xf16>)
// CHECK-NEXT:    [[T:%.+]] = mixprec.transpose [[X]] {permutation = array<i64: 1, 0>} : tensor<4x4xf16>
// CHECK-NEXT:    return [[T]] : tensor<4x4xf16>
func.func @transpose_square_not_identity(%x: tensor<4x4xf16>) -> tensor<4x4xf16> {
  %0 = mixprec.transpose %x {permutation = array<i64: 1, 0>} : tensor<4x4xf16>
  return %0 : tensor<4x4xf16>
}

// -----

// Two transposes compose into one: result dim i is input dim
// first[second[i]]; [1, 2, 0] after [1, 2, 0] is [2, 0, 1].
// CHECK-LABEL: func.func @transpose_compose(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<2x3x4xf32>)
// CHECK-NEXT:    [[T:%.+]] = mixprec.transpose [[X]] {permutation = array<i64: 2, 0, 1>} : tensor<2x3x4xf32>
// CHECK-NEXT:    return [[T]] : tensor<4x2x3xf32>
func.func @transpose_compose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = mixprec.transpose %x {permutation = array<i64: 1, 2, 0>} : tensor<2x3x4xf32>
  %1 = mixprec.transpose %0 {permutation = array<i64: 1, 2, 0>} : tensor<3x4x2xf32>
  return %1 : tensor<4x2x3xf32>
}

// -----

// Not an involution: [0, 2, 3, 1] after [3, 1, 0, 2] is [3, 0, 2, 1].
// CHECK-LABEL: func.func @transpose_compose_rank4(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<2x3x4x5xf16>)
// CHECK-NEXT:    [[T:%.+]] = mixprec.transpose [[X]] {permutation = array<i64: 3, 0, 2, 1>} : tensor<2x3x4x5xf16>
// CHECK-NEXT:    return [[T]] : tensor<5x2x4x3xf16>
func.func @transpose_compose_rank4(%x: tensor<2x3x4x5xf16>) -> tensor<5x2x4x3xf16> {
  %0 = mixprec.transpose %x {permutation = array<i64: 3, 1, 0, 2>} : tensor<2x3x4x5xf16>
  %1 = mixprec.transpose %0 {permutation = array<i64: 0, 2, 3, 1>} : tensor<5x3x2x4xf16>
  return %1 : tensor<5x2x4x3xf16>
}

// -----

// A chain of three composes into one: [2, 0, 1] as above, then [1, 0, 2]
// gives [0, 2, 1].
// CHECK-LABEL: func.func @transpose_compose_three(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<2x3x4xf32>)
// CHECK-NEXT:    [[T:%.+]] = mixprec.transpose [[X]] {permutation = array<i64: 0, 2, 1>} : tensor<2x3x4xf32>
// CHECK-NEXT:    return [[T]] : tensor<2x4x3xf32>
func.func @transpose_compose_three(%x: tensor<2x3x4xf32>) -> tensor<2x4x3xf32> {
  %0 = mixprec.transpose %x {permutation = array<i64: 1, 2, 0>} : tensor<2x3x4xf32>
  %1 = mixprec.transpose %0 {permutation = array<i64: 1, 2, 0>} : tensor<3x4x2xf32>
  %2 = mixprec.transpose %1 {permutation = array<i64: 1, 0, 2>} : tensor<4x2x3xf32>
  return %2 : tensor<2x4x3xf32>
}

// -----

// Inverse permutations cancel.
// CHECK-LABEL: func.func @transpose_cancel(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<2x3x4xf32>, [[Y:%[^:]+]]: tensor<8x16xbf16>)
// CHECK-NEXT:    return [[X]], [[Y]] : tensor<2x3x4xf32>, tensor<8x16xbf16>
func.func @transpose_cancel(%x: tensor<2x3x4xf32>, %y: tensor<8x16xbf16>) -> (tensor<2x3x4xf32>, tensor<8x16xbf16>) {
  %0 = mixprec.transpose %x {permutation = array<i64: 1, 2, 0>} : tensor<2x3x4xf32>
  %1 = mixprec.transpose %0 {permutation = array<i64: 2, 0, 1>} : tensor<3x4x2xf32>
  %2 = mixprec.transpose %y {permutation = array<i64: 1, 0>} : tensor<8x16xbf16>
  %3 = mixprec.transpose %2 {permutation = array<i64: 1, 0>} : tensor<16x8xbf16>
  return %1, %3 : tensor<2x3x4xf32>, tensor<8x16xbf16>
}

// -----

// The inner transpose stays while it has another use.
// CHECK-LABEL: func.func @transpose_cancel_multi_use(
// CHECK-SAME:    [[Y:%[^:]+]]: tensor<8x16xf32>)
// CHECK-NEXT:    [[T:%.+]] = mixprec.transpose [[Y]] {permutation = array<i64: 1, 0>} : tensor<8x16xf32>
// CHECK-NEXT:    return [[Y]], [[T]] : tensor<8x16xf32>, tensor<16x8xf32>
func.func @transpose_cancel_multi_use(%y: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<16x8xf32>) {
  %0 = mixprec.transpose %y {permutation = array<i64: 1, 0>} : tensor<8x16xf32>
  %1 = mixprec.transpose %0 {permutation = array<i64: 1, 0>} : tensor<16x8xf32>
  return %1, %0 : tensor<8x16xf32>, tensor<16x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// reshape
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reshape_same_type(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<6x4xf32>)
// CHECK-NEXT:    return [[X]] : tensor<6x4xf32>
func.func @reshape_same_type(%x: tensor<6x4xf32>) -> tensor<6x4xf32> {
  %0 = mixprec.reshape %x : tensor<6x4xf32> -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_of_reshape(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<2x3x4xf32>, [[I:%[^:]+]]: tensor<6xi64>)
// CHECK-NEXT:    [[R:%.+]] = mixprec.reshape [[X]] : tensor<2x3x4xf32> -> tensor<24xf32>
// CHECK-NEXT:    [[S:%.+]] = mixprec.reshape [[I]] : tensor<6xi64> -> tensor<3x2xi64>
// CHECK-NEXT:    return [[R]], [[S]] : tensor<24xf32>, tensor<3x2xi64>
func.func @reshape_of_reshape(%x: tensor<2x3x4xf32>, %i: tensor<6xi64>) -> (tensor<24xf32>, tensor<3x2xi64>) {
  %0 = mixprec.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %1 = mixprec.reshape %0 : tensor<6x4xf32> -> tensor<24xf32>
  %2 = mixprec.reshape %i : tensor<6xi64> -> tensor<2x3xi64>
  %3 = mixprec.reshape %2 : tensor<2x3xi64> -> tensor<1x6xi64>
  %4 = mixprec.reshape %3 : tensor<1x6xi64> -> tensor<3x2xi64>
  return %1, %4 : tensor<24xf32>, tensor<3x2xi64>
}

// -----

// A reshape back to the original shape is the original value.
// CHECK-LABEL: func.func @reshape_round_trip(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<2x3x4xf16>)
// CHECK-NEXT:    return [[X]] : tensor<2x3x4xf16>
func.func @reshape_round_trip(%x: tensor<2x3x4xf16>) -> tensor<2x3x4xf16> {
  %0 = mixprec.reshape %x : tensor<2x3x4xf16> -> tensor<6x4xf16>
  %1 = mixprec.reshape %0 : tensor<6x4xf16> -> tensor<2x3x4xf16>
  return %1 : tensor<2x3x4xf16>
}

// -----

//===----------------------------------------------------------------------===//
// broadcast
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @broadcast_same_type(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<4x8xf32>)
// CHECK-NEXT:    return [[X]] : tensor<4x8xf32>
func.func @broadcast_same_type(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = mixprec.broadcast %x : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A real broadcast stays, even one that only adds a unit dim.
// CHECK-LABEL: func.func @broadcast_not_same_type(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<8xf32>)
// CHECK-NEXT:    [[B0:%.+]] = mixprec.broadcast [[X]] : tensor<8xf32> -> tensor<1x8xf32>
// CHECK-NEXT:    [[B1:%.+]] = mixprec.broadcast [[X]] : tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    return [[B0]], [[B1]] : tensor<1x8xf32>, tensor<4x8xf32>
func.func @broadcast_not_same_type(%x: tensor<8xf32>) -> (tensor<1x8xf32>, tensor<4x8xf32>) {
  %0 = mixprec.broadcast %x : tensor<8xf32> -> tensor<1x8xf32>
  %1 = mixprec.broadcast %x : tensor<8xf32> -> tensor<4x8xf32>
  return %0, %1 : tensor<1x8xf32>, tensor<4x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// slice
//===----------------------------------------------------------------------===//

// A slice of the whole tensor is the identity, with or without unit strides.
// CHECK-LABEL: func.func @slice_whole(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<8x16xf32>, [[Y:%[^:]+]]: tensor<1x5xi32>)
// CHECK-NEXT:    return [[X]], [[X]], [[Y]] : tensor<8x16xf32>, tensor<8x16xf32>, tensor<1x5xi32>
func.func @slice_whole(%x: tensor<8x16xf32>, %y: tensor<1x5xi32>) -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<1x5xi32>) {
  %0 = mixprec.slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: 8, 16>} : tensor<8x16xf32>
  %1 = mixprec.slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: 8, 16>, strides = array<i64: 1, 1>} : tensor<8x16xf32>
  // A size-1 dim takes any stride.
  %2 = mixprec.slice %y {offsets = array<i64: 0, 0>, sizes = array<i64: 1, 5>, strides = array<i64: 3, 1>} : tensor<1x5xi32>
  return %0, %1, %2 : tensor<8x16xf32>, tensor<8x16xf32>, tensor<1x5xi32>
}

// -----

// A slice of part of the tensor stays.
// CHECK-LABEL: func.func @slice_part(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<8x16xf32>)
// CHECK-NEXT:    [[S0:%.+]] = mixprec.slice [[X]] {offsets = array<i64: 1, 0>, sizes = array<i64: 7, 16>} : tensor<8x16xf32>
// CHECK-NEXT:    [[S1:%.+]] = mixprec.slice [[X]] {offsets = array<i64: 0, 0>, sizes = array<i64: 4, 16>, strides = array<i64: 2, 1>} : tensor<8x16xf32>
// CHECK-NEXT:    return [[S0]], [[S1]] : tensor<7x16xf32>, tensor<4x16xf32>
func.func @slice_part(%x: tensor<8x16xf32>) -> (tensor<7x16xf32>, tensor<4x16xf32>) {
  %0 = mixprec.slice %x {offsets = array<i64: 1, 0>, sizes = array<i64: 7, 16>} : tensor<8x16xf32>
  %1 = mixprec.slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: 4, 16>, strides = array<i64: 2, 1>} : tensor<8x16xf32>
  return %0, %1 : tensor<7x16xf32>, tensor<4x16xf32>
}

// -----

//===----------------------------------------------------------------------===//
// constant
//===----------------------------------------------------------------------===//

// Equal constants are one constant; different values or types stay apart.
// CHECK-LABEL: func.func @constant_dedup()
// CHECK-DAG:     [[A:%.+]] = mixprec.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-DAG:     [[B:%.+]] = mixprec.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK-DAG:     [[C:%.+]] = mixprec.constant dense<1.000000e+00> : tensor<4xf16>
// CHECK-DAG:     [[D:%.+]] = mixprec.constant dense<[1, 2]> : tensor<2xi32>
// CHECK-NOT:     mixprec.constant
// CHECK:         return [[A]], [[B]], [[A]], [[C]], [[D]], [[D]] : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf16>, tensor<2xi32>, tensor<2xi32>
func.func @constant_dedup() -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf16>, tensor<2xi32>, tensor<2xi32>) {
  %0 = mixprec.constant dense<1.0> : tensor<4xf32>
  %1 = mixprec.constant dense<2.0> : tensor<4xf32>
  %2 = mixprec.constant dense<1.0> : tensor<4xf32>
  %3 = mixprec.constant dense<1.0> : tensor<4xf16>
  %4 = mixprec.constant dense<[1, 2]> : tensor<2xi32>
  %5 = mixprec.constant dense<[1, 2]> : tensor<2xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf16>, tensor<2xi32>, tensor<2xi32>
}

// -----

// Unused constants go away, and the folds above apply to constant operands.
// CHECK-LABEL: func.func @constant_operands()
// CHECK-NEXT:    [[C:%.+]] = mixprec.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00]]> : tensor<1x3xf16>
// CHECK-NEXT:    return [[C]], [[C]] : tensor<1x3xf16>, tensor<1x3xf16>
func.func @constant_operands() -> (tensor<1x3xf16>, tensor<1x3xf16>) {
  %unused = mixprec.constant dense<0.0> : tensor<8xf32>
  %0 = mixprec.constant dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf16>
  %1 = mixprec.cast %0 : tensor<1x3xf16> to tensor<1x3xf32>
  %2 = mixprec.cast %1 : tensor<1x3xf32> to tensor<1x3xf16>
  %3 = mixprec.transpose %0 {permutation = array<i64: 1, 0>} : tensor<1x3xf16>
  %4 = mixprec.transpose %3 {permutation = array<i64: 1, 0>} : tensor<3x1xf16>
  return %2, %4 : tensor<1x3xf16>, tensor<1x3xf16>
}

// -----

// Constants in different blocks of a function are hoisted and shared.
// CHECK-LABEL: func.func @constant_hoist(
// CHECK-SAME:    [[P:%[^:]+]]: i1)
// CHECK-NEXT:    [[C:%.+]] = mixprec.constant dense<5.000000e-01> : tensor<2xbf16>
// CHECK-NEXT:    cf.cond_br [[P]], ^bb1, ^bb2
// CHECK-NEXT:  ^bb1:
// CHECK-NEXT:    return [[C]] : tensor<2xbf16>
// CHECK-NEXT:  ^bb2:
// CHECK-NEXT:    [[N:%.+]] = mixprec.neg [[C]] : tensor<2xbf16>
// CHECK-NEXT:    return [[N]] : tensor<2xbf16>
func.func @constant_hoist(%p: i1) -> tensor<2xbf16> {
  cf.cond_br %p, ^a, ^b
^a:
  %0 = mixprec.constant dense<0.5> : tensor<2xbf16>
  return %0 : tensor<2xbf16>
^b:
  %1 = mixprec.constant dense<0.5> : tensor<2xbf16>
  %2 = mixprec.neg %1 : tensor<2xbf16>
  return %2 : tensor<2xbf16>
}
