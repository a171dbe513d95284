// RUN: mixprec-opt %s --mixprec-split-deallocs -split-input-file | FileCheck %s

// Distinct fresh allocations: one dealloc each, on its own condition.
// CHECK-LABEL: func.func @fresh
// CHECK-SAME: (%[[C:.*]]: i1)
// CHECK-DAG: %[[TRUE:.*]] = arith.constant true
// CHECK-DAG: %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK-DAG: %[[B:.*]] = memref.alloc() : memref<8xf32>
// CHECK: bufferization.dealloc (%[[A]] : memref<4xf32>) if (%[[TRUE]])
// CHECK-NEXT: bufferization.dealloc (%[[B]] : memref<8xf32>) if (%[[C]])
// CHECK-NEXT: return
func.func @fresh(%c: i1) {
  %true = arith.constant true
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<8xf32>
  bufferization.dealloc (%a, %b : memref<4xf32>, memref<8xf32>) if (%true, %c)
  return
}

// -----

// A memref that is not a fresh allocation (an argument, which may alias
// the other) or a retained value: left to buffer-deallocation-simplification.
// CHECK-LABEL: func.func @maybe_aliasing
// CHECK: bufferization.dealloc (%{{.*}}, %{{.*}} : memref<4xf32>, memref<4xf32>) if
// CHECK-LABEL: func.func @retaining
// CHECK: bufferization.dealloc (%{{.*}}, %{{.*}} : memref<4xf32>, memref<8xf32>) if ({{.*}}) retain (
func.func @maybe_aliasing(%arg: memref<4xf32>, %c: i1) {
  %a = memref.alloc() : memref<4xf32>
  bufferization.dealloc (%a, %arg : memref<4xf32>, memref<4xf32>) if (%c, %c)
  return
}
func.func @retaining(%keep: memref<2xf32>, %c: i1) -> i1 {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<8xf32>
  %r = bufferization.dealloc (%a, %b : memref<4xf32>, memref<8xf32>) if (%c, %c) retain (%keep : memref<2xf32>)
  return %r : i1
}
