// RUN: mixprec-opt %s --mixprec-outline-loop-nests -split-input-file | FileCheck %s
// RUN: mixprec-opt %s --mixprec-outline-loop-nests=share=false -split-input-file | FileCheck %s --check-prefix=NOSHARE

// Two identical nests on other buffers call one function; a third that
// computes something else gets its own. Index constants (the loop bounds)
// are cloned into the function, a scalar constant becomes an argument, so
// the two scalings by different factors share one function too.
// CHECK-LABEL: func.func @layers
// CHECK-SAME: (%[[A:.*]]: memref<4xf32>, %[[B:.*]]: memref<4xf32>, %[[C:.*]]: memref<4xf32>)
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2.0{{.*}} : f32
// CHECK-DAG: %[[THREE:.*]] = arith.constant 3.0{{.*}} : f32
// CHECK: call @[[SCALE:layers_loops_[0-9]+]](%[[A]], %[[TWO]], %[[B]])
// CHECK-NEXT: call @[[SCALE]](%[[B]], %[[THREE]], %[[C]])
// CHECK-NEXT: call @[[NEGATE:layers_loops_[0-9]+]](%[[C]], %[[A]])
// CHECK-NEXT: return
// CHECK: func.func private @[[SCALE]](%[[IN:.*]]: memref<4xf32>, %[[F:.*]]: f32, %[[OUT:.*]]: memref<4xf32>)
// CHECK-SAME: passthrough = ["noinline"]
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[C4]]
// CHECK: %[[X:.*]] = memref.load %[[IN]][%[[I]]]
// CHECK: %[[Y:.*]] = arith.mulf %[[X]], %[[F]]
// CHECK: memref.store %[[Y]], %[[OUT]][%[[I]]]
// CHECK: func.func private @[[NEGATE]](
// CHECK: arith.negf
// CHECK-NOT: func.func

// NOSHARE-LABEL: func.func @layers
// NOSHARE: call @[[FIRST:layers_loops_[0-9]+]](
// NOSHARE-NEXT: call @[[SECOND:layers_loops_[0-9]+]](
// NOSHARE-NOT: call @[[FIRST]](
func.func @layers(%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %a[%i] : memref<4xf32>
    %y = arith.mulf %x, %two : f32
    memref.store %y, %b[%i] : memref<4xf32>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %b[%i] : memref<4xf32>
    %y = arith.mulf %x, %three : f32
    memref.store %y, %c[%i] : memref<4xf32>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %c[%i] : memref<4xf32>
    %y = arith.negf %x : f32
    memref.store %y, %a[%i] : memref<4xf32>
  }
  return
}

// -----

// Linalg ops are nests; nests inside a guard are outlined where they
// stand, the guard and the scalar code stay. Shapes are part of a nest:
// the same fill on another shape is another function.
// CHECK-LABEL: func.func @guarded
// CHECK-SAME: (%[[OK:.*]]: i1, %[[S:.*]]: memref<8xf32>, %[[T:.*]]: memref<16xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.0{{.*}} : f32
// CHECK: scf.if %[[OK]] {
// CHECK-NEXT: call @[[FILL8:guarded_loops_[0-9]+]](%[[ZERO]], %[[S]])
// CHECK-NEXT: call @[[FILL16:guarded_loops_[0-9]+]](%[[ZERO]], %[[T]])
// CHECK-NEXT: }
// CHECK: func.func private @[[FILL8]]({{.*}}: f32, {{.*}}: memref<8xf32>)
// CHECK-NEXT: linalg.fill
// CHECK: func.func private @[[FILL16]]({{.*}}: f32, {{.*}}: memref<16xf32>)
func.func @guarded(%ok: i1, %s: memref<8xf32>, %t: memref<16xf32>) {
  %zero = arith.constant 0.0 : f32
  scf.if %ok {
    linalg.fill ins(%zero : f32) outs(%s : memref<8xf32>)
    linalg.fill ins(%zero : f32) outs(%t : memref<16xf32>)
  }
  return
}

// -----

// Functions share nests too; a nest's results are the call's.
// CHECK-LABEL: func.func @first
// CHECK: %[[SUM:.*]] = call @[[SUMMATION:first_loops_[0-9]+]](
// CHECK: return %[[SUM]]
// CHECK-LABEL: func.func @second
// CHECK: call @[[SUMMATION]](
// CHECK: func.func private @[[SUMMATION]]({{.*}}) -> f32
// CHECK: %[[R:.*]] = scf.for
// CHECK: return %[[R]] : f32
func.func @first(%x: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> f32 {
    %v = memref.load %x[%i] : memref<4xf32>
    %next = arith.addf %acc, %v : f32
    scf.yield %next : f32
  }
  return %sum : f32
}
func.func @second(%x: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> f32 {
    %v = memref.load %x[%i] : memref<4xf32>
    %next = arith.addf %acc, %v : f32
    scf.yield %next : f32
  }
  return %sum : f32
}
