// RUN: mixprec-opt %s -split-input-file --mixprec-reuse-buffers | FileCheck %s

// An elementwise chain: each op writes over its input, which dies there;
// the frees of the replaced buffers go with them.
// CHECK-LABEL: func.func @chain(
// CHECK-SAME: %[[X:[^:]+]]: memref<4xf32>, %[[OUT:[^:]+]]: memref<4xf32>)
// CHECK: %[[A:.+]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT: linalg.exp ins(%[[X]] : memref<4xf32>) outs(%[[A]] : memref<4xf32>)
// CHECK-NEXT: linalg.negf ins(%[[A]] : memref<4xf32>) outs(%[[A]] : memref<4xf32>)
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[A]], %[[A]] : memref<4xf32>, memref<4xf32>) outs(%[[A]] : memref<4xf32>)
// CHECK: linalg.copy ins(%[[A]] : memref<4xf32>) outs(%[[OUT]] : memref<4xf32>)
// CHECK-NEXT: memref.dealloc %[[A]] : memref<4xf32>
// CHECK-NEXT: return
#id = affine_map<(d0) -> (d0)>
func.func @chain(%x: memref<4xf32>, %out: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  linalg.exp ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
  %b = memref.alloc() : memref<4xf32>
  linalg.negf ins(%a : memref<4xf32>) outs(%b : memref<4xf32>)
  %c = memref.alloc() : memref<4xf32>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%b, %b : memref<4xf32>, memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%p: f32, %q: f32, %r: f32):
    %s = arith.mulf %p, %q : f32
    linalg.yield %s : f32
  }
  linalg.copy ins(%c : memref<4xf32>) outs(%out : memref<4xf32>)
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  memref.dealloc %c : memref<4xf32>
  return
}

// -----

// No reuse: an input read again later, an argument (the caller's), another
// element type, a transposing op, an input also read through a view.
// CHECK-LABEL: func.func @kept(
// CHECK-COUNT-5: memref.alloc()
// CHECK-NOT: memref.alloc()
func.func @kept(%x: memref<4xf32>, %m: memref<2x2xf32>, %out: memref<4xf32>, %h: memref<4xf16>) {
  %a = memref.alloc() : memref<4xf32>
  linalg.exp ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
  %b = memref.alloc() : memref<4xf32>
  linalg.negf ins(%a : memref<4xf32>) outs(%b : memref<4xf32>)
  linalg.copy ins(%a : memref<4xf32>) outs(%out : memref<4xf32>)
  %c = memref.alloc() : memref<4xf16>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%b : memref<4xf32>) outs(%c : memref<4xf16>) {
  ^bb0(%p: f32, %q: f16):
    %t = arith.truncf %p : f32 to f16
    linalg.yield %t : f16
  }
  linalg.copy ins(%c : memref<4xf16>) outs(%h : memref<4xf16>)
  %t0 = memref.alloc() : memref<2x2xf32>
  linalg.copy ins(%m : memref<2x2xf32>) outs(%t0 : memref<2x2xf32>)
  %t1 = memref.alloc() : memref<2x2xf32>
  linalg.transpose ins(%t0 : memref<2x2xf32>) outs(%t1 : memref<2x2xf32>) permutation = [1, 0]
  linalg.copy ins(%t1 : memref<2x2xf32>) outs(%m : memref<2x2xf32>)
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  memref.dealloc %c : memref<4xf16>
  memref.dealloc %t0 : memref<2x2xf32>
  memref.dealloc %t1 : memref<2x2xf32>
  return
}
