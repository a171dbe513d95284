// RUN: mixprec-opt %s -split-input-file -verify-diagnostics --mixprec-results-in-arguments | FileCheck %s

// An entry function: the new state written in place (the result named as
// argument "w") and an argument returned unchanged through a cast are
// dropped from the results; the loss (named, but like no argument) stays a
// result. The function records each original result's home, and the ABI
// names are gone.
// CHECK-LABEL: func.func @step(
// CHECK-SAME:    %[[W:[^:]+]]: memref<4xf32>, %[[X:[^:]+]]: memref<4xf32>) -> memref<f32>
// CHECK-SAME:    attributes {mixprec.results_in_arguments = array<i64: -1, 0, 1>} {
// CHECK:         %[[LOSS:[^ ]+]] = memref.alloc() : memref<f32>
// CHECK:         return %[[LOSS]] : memref<f32>
// CHECK-NEXT:  }
// CHECK-NOT:   mixprec.abi_name
func.func @step(%w: memref<4xf32> {mixprec.abi_name = "w"}, %x: memref<4xf32>)
    -> (memref<f32> {mixprec.abi_name = "loss"}, memref<4xf32> {mixprec.abi_name = "w"}, memref<?xf32>) {
  %loss = memref.alloc() : memref<f32>
  %c = memref.cast %x : memref<4xf32> to memref<?xf32>
  return %loss, %w, %c : memref<f32>, memref<4xf32>, memref<?xf32>
}

// -----

// Every result lives in an argument (the order of the homes follows the
// results, not the arguments): the function returns nothing.
// CHECK-LABEL: func.func @all_in_place(
// CHECK-SAME:    %{{[^:]+}}: memref<4xf32>, %{{[^:]+}}: memref<8xf16>)
// CHECK-SAME:    attributes {mixprec.results_in_arguments = array<i64: 1, 0>} {
// CHECK-NEXT:    return{{$}}
func.func @all_in_place(%m: memref<4xf32> {mixprec.abi_name = "m"}, %v: memref<8xf16> {mixprec.abi_name = "v"})
    -> (memref<8xf16> {mixprec.abi_name = "v"}, memref<4xf32> {mixprec.abi_name = "m"}) {
  return %v, %m : memref<8xf16>, memref<4xf32>
}

// -----

// A function that is called keeps its results (its caller reads them) and
// records nothing; nor does a private one. Both lose their ABI names. The
// caller, an entry, keeps its one result in a buffer of its own.
// CHECK-LABEL: func.func @update(
// CHECK-SAME:    %[[W:[^:]+]]: memref<4xf32>) -> memref<4xf32> {
// CHECK-NEXT:    return %[[W]] : memref<4xf32>
// CHECK-LABEL: func.func private @unused(
// CHECK-SAME:    %[[W:[^:]+]]: memref<4xf32>) -> memref<4xf32> {
// CHECK-NEXT:    return %[[W]] : memref<4xf32>
// CHECK-LABEL: func.func @main(
// CHECK-SAME:    %{{[^:]+}}: memref<4xf32>) -> memref<f32>
// CHECK-SAME:    attributes {mixprec.results_in_arguments = array<i64: -1>} {
// CHECK:         call @update
// CHECK:         return %{{[^ ]+}} : memref<f32>
// CHECK-NOT:   mixprec.abi_name
func.func @update(%w: memref<4xf32> {mixprec.abi_name = "w"}) -> (memref<4xf32> {mixprec.abi_name = "w"}) {
  return %w : memref<4xf32>
}
func.func private @unused(%w: memref<4xf32> {mixprec.abi_name = "w"}) -> (memref<4xf32> {mixprec.abi_name = "w"}) {
  return %w : memref<4xf32>
}
func.func @main(%w: memref<4xf32> {mixprec.abi_name = "w"}) -> memref<f32> {
  %0 = call @update(%w) : (memref<4xf32>) -> memref<4xf32>
  %loss = memref.alloc() : memref<f32>
  return %loss : memref<f32>
}

// -----

// The new value of a state in a fresh buffer: an error naming the state.
// expected-error @+1 {{mixprec-results-in-arguments: the new value of 'w' is not written in place into its argument}}
func.func @not_in_place(%w: memref<4xf32> {mixprec.abi_name = "w"}) -> (memref<4xf32> {mixprec.abi_name = "w"}) {
  %n = memref.alloc() : memref<4xf32>
  return %n : memref<4xf32>
}

// -----

// The new value of state 'v' lives in an argument, but in another state's:
// an error too.
// expected-error @+1 {{the new value of 'v' is not written in place into its argument}}
func.func @other_argument(%w: memref<4xf32> {mixprec.abi_name = "w"}, %v: memref<4xf32> {mixprec.abi_name = "v"})
    -> (memref<4xf32> {mixprec.abi_name = "w"}, memref<4xf32> {mixprec.abi_name = "v"}) {
  return %w, %w : memref<4xf32>, memref<4xf32>
}
