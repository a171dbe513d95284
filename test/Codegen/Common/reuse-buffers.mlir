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

// -----

// The reused input and the output are read and written through identity
// maps; another operand (a bias broadcast over the rows) is not, which does
// not matter: the output takes the dying input's buffer.
// CHECK-LABEL: func.func @broadcast_operand(
// CHECK-SAME: %[[X:[^:]+]]: memref<4x8xf32>, %[[BIAS:[^:]+]]: memref<8xf32>, %[[OUT:[^:]+]]: memref<4x8xf32>)
// CHECK: %[[A:.+]] = memref.alloc() : memref<4x8xf32>
// CHECK-NEXT: linalg.exp ins(%[[X]] : memref<4x8xf32>) outs(%[[A]] : memref<4x8xf32>)
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[BIAS]], %[[A]] : memref<8xf32>, memref<4x8xf32>) outs(%[[A]] : memref<4x8xf32>)
// CHECK: linalg.copy ins(%[[A]] : memref<4x8xf32>) outs(%[[OUT]] : memref<4x8xf32>)
// CHECK-NEXT: memref.dealloc %[[A]] : memref<4x8xf32>
// CHECK-NEXT: return
// CHECK-NOT: memref.alloc
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
func.func @broadcast_operand(%x: memref<4x8xf32>, %bias: memref<8xf32>, %out: memref<4x8xf32>) {
  %a = memref.alloc() : memref<4x8xf32>
  linalg.exp ins(%x : memref<4x8xf32>) outs(%a : memref<4x8xf32>)
  %b = memref.alloc() : memref<4x8xf32>
  linalg.generic {indexing_maps = [#row, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias, %a : memref<8xf32>, memref<4x8xf32>) outs(%b : memref<4x8xf32>) {
  ^bb0(%p: f32, %q: f32, %r: f32):
    %s = arith.addf %q, %p : f32
    linalg.yield %s : f32
  }
  linalg.copy ins(%b : memref<4x8xf32>) outs(%out : memref<4x8xf32>)
  memref.dealloc %a : memref<4x8xf32>
  memref.dealloc %b : memref<4x8xf32>
  return
}

// -----

// A generic with two outputs: each takes the buffer of an input that dies
// there, the first the first input's; the second, as the first input is
// written there now, the second input's.
// CHECK-LABEL: func.func @two_outputs(
// CHECK: %[[A:.+]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT: linalg.exp {{.*}} outs(%[[A]] : memref<4xf32>)
// CHECK-NEXT: %[[B:.+]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT: linalg.exp {{.*}} outs(%[[B]] : memref<4xf32>)
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[A]], %[[B]] : memref<4xf32>, memref<4xf32>) outs(%[[A]], %[[B]] : memref<4xf32>, memref<4xf32>)
// CHECK-NOT: memref.alloc
// CHECK: linalg.copy ins(%[[A]] : memref<4xf32>)
// CHECK-NEXT: linalg.copy ins(%[[B]] : memref<4xf32>)
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: memref.dealloc %[[B]]
// CHECK-NEXT: return
#id = affine_map<(i) -> (i)>
func.func @two_outputs(%x: memref<4xf32>, %out0: memref<4xf32>, %out1: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  linalg.exp ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
  %b = memref.alloc() : memref<4xf32>
  linalg.exp ins(%x : memref<4xf32>) outs(%b : memref<4xf32>)
  %c = memref.alloc() : memref<4xf32>
  %d = memref.alloc() : memref<4xf32>
  linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : memref<4xf32>, memref<4xf32>) outs(%c, %d : memref<4xf32>, memref<4xf32>) {
  ^bb0(%p: f32, %q: f32, %r: f32, %s: f32):
    %u = arith.addf %p, %q : f32
    %v = arith.mulf %p, %q : f32
    linalg.yield %u, %v : f32, f32
  }
  linalg.copy ins(%c : memref<4xf32>) outs(%out0 : memref<4xf32>)
  linalg.copy ins(%d : memref<4xf32>) outs(%out1 : memref<4xf32>)
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  memref.dealloc %c : memref<4xf32>
  memref.dealloc %d : memref<4xf32>
  return
}

// -----

// The input is a view of a temporary (a collapse_shape, a subview) of the
// output's type, and the temporary dies at the op: the output is that view;
// the output's allocation and free go, the temporary's free stays.
// CHECK-LABEL: func.func @collapsed_input(
// CHECK: %[[T:.+]] = memref.alloc() : memref<2x4xf32>
// CHECK: %[[V:.+]] = memref.collapse_shape %[[T]]
// CHECK-NEXT: linalg.negf ins(%[[V]] : memref<8xf32>) outs(%[[V]] : memref<8xf32>)
// CHECK-NEXT: linalg.copy ins(%[[V]] : memref<8xf32>)
// CHECK-NEXT: memref.dealloc %[[T]] : memref<2x4xf32>
// CHECK-NEXT: return
func.func @collapsed_input(%x: memref<2x4xf32>, %out: memref<8xf32>) {
  %t = memref.alloc() : memref<2x4xf32>
  linalg.exp ins(%x : memref<2x4xf32>) outs(%t : memref<2x4xf32>)
  %v = memref.collapse_shape %t [[0, 1]] : memref<2x4xf32> into memref<8xf32>
  %o = memref.alloc() : memref<8xf32>
  linalg.negf ins(%v : memref<8xf32>) outs(%o : memref<8xf32>)
  linalg.copy ins(%o : memref<8xf32>) outs(%out : memref<8xf32>)
  memref.dealloc %t : memref<2x4xf32>
  memref.dealloc %o : memref<8xf32>
  return
}

// CHECK-LABEL: func.func @subview_input(
// CHECK: %[[T:.+]] = memref.alloc() : memref<8xf32>
// CHECK: %[[V:.+]] = memref.subview %[[T]][0] [4] [1]
// CHECK-NEXT: linalg.negf ins(%[[V]] : memref<4xf32, strided<[1]>>) outs(%[[V]] : memref<4xf32, strided<[1]>>)
// CHECK-NEXT: linalg.copy ins(%[[V]] : memref<4xf32, strided<[1]>>)
// CHECK-NEXT: memref.dealloc %[[T]] : memref<8xf32>
// CHECK-NEXT: return
func.func @subview_input(%x: memref<8xf32>, %out: memref<4xf32, strided<[1]>>) {
  %t = memref.alloc() : memref<8xf32>
  linalg.exp ins(%x : memref<8xf32>) outs(%t : memref<8xf32>)
  %v = memref.subview %t[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
  %o = memref.alloc() : memref<4xf32, strided<[1]>>
  linalg.negf ins(%v : memref<4xf32, strided<[1]>>) outs(%o : memref<4xf32, strided<[1]>>)
  linalg.copy ins(%o : memref<4xf32, strided<[1]>>) outs(%out : memref<4xf32, strided<[1]>>)
  memref.dealloc %t : memref<8xf32>
  memref.dealloc %o : memref<4xf32, strided<[1]>>
  return
}

// -----

// No reuse: the dying input is read through a transposing map (element i of
// the output is not computed from element i of the input), or the output is
// written through one, or another operand reads the input's buffer through
// a view.
// CHECK-LABEL: func.func @not_elementwise(
// CHECK: %[[T0:.+]] = memref.alloc() : memref<4x4xf32>
// CHECK: %[[T1:.+]] = memref.alloc() : memref<4x4xf32>
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[T0]] : memref<4x4xf32>) outs(%[[T1]] : memref<4x4xf32>)
// CHECK: %[[T2:.+]] = memref.alloc() : memref<4x4xf32>
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[T1]] : memref<4x4xf32>) outs(%[[T2]] : memref<4x4xf32>)
// CHECK: %[[T3:.+]] = memref.alloc() : memref<8xf32>
// CHECK: %[[S:.+]] = memref.subview %[[T3]]
// CHECK-NEXT: %[[T4:.+]] = memref.alloc() : memref<8xf32>
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[T3]], %[[S]] : memref<8xf32>, memref<4xf32, strided<[1], offset: 4>>) outs(%[[T4]] : memref<8xf32>)
#id = affine_map<(i, j) -> (i, j)>
#t = affine_map<(i, j) -> (j, i)>
#id1 = affine_map<(i) -> (i)>
#half = affine_map<(i) -> (i floordiv 2)>
func.func @not_elementwise(%m: memref<4x4xf32>, %out: memref<4x4xf32>, %x: memref<8xf32>, %out8: memref<8xf32>) {
  %t0 = memref.alloc() : memref<4x4xf32>
  linalg.copy ins(%m : memref<4x4xf32>) outs(%t0 : memref<4x4xf32>)
  %t1 = memref.alloc() : memref<4x4xf32>
  linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t0 : memref<4x4xf32>) outs(%t1 : memref<4x4xf32>) {
  ^bb0(%p: f32, %q: f32):
    %s = arith.negf %p : f32
    linalg.yield %s : f32
  }
  %t2 = memref.alloc() : memref<4x4xf32>
  linalg.generic {indexing_maps = [#id, #t], iterator_types = ["parallel", "parallel"]}
      ins(%t1 : memref<4x4xf32>) outs(%t2 : memref<4x4xf32>) {
  ^bb0(%p: f32, %q: f32):
    %s = arith.negf %p : f32
    linalg.yield %s : f32
  }
  linalg.copy ins(%t2 : memref<4x4xf32>) outs(%out : memref<4x4xf32>)
  %t3 = memref.alloc() : memref<8xf32>
  linalg.exp ins(%x : memref<8xf32>) outs(%t3 : memref<8xf32>)
  %s = memref.subview %t3[4] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 4>>
  %t4 = memref.alloc() : memref<8xf32>
  linalg.generic {indexing_maps = [#id1, #half, #id1], iterator_types = ["parallel"]}
      ins(%t3, %s : memref<8xf32>, memref<4xf32, strided<[1], offset: 4>>) outs(%t4 : memref<8xf32>) {
  ^bb0(%p: f32, %q: f32, %r: f32):
    %u = arith.addf %p, %q : f32
    linalg.yield %u : f32
  }
  linalg.copy ins(%t4 : memref<8xf32>) outs(%out8 : memref<8xf32>)
  memref.dealloc %t0 : memref<4x4xf32>
  memref.dealloc %t1 : memref<4x4xf32>
  memref.dealloc %t2 : memref<4x4xf32>
  memref.dealloc %t3 : memref<8xf32>
  memref.dealloc %t4 : memref<8xf32>
  return
}

// -----

// The input read twice, once transposed: the output keeps its own buffer,
// as an element written early would be read later through the transpose.
// CHECK-LABEL: func.func @read_twice(
// CHECK:         %[[T:.*]] = memref.alloc() : memref<4x4xf32>
// CHECK:         %[[O:.*]] = memref.alloc() : memref<4x4xf32>
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[T]], %[[T]] : memref<4x4xf32>, memref<4x4xf32>) outs(%[[O]] : memref<4x4xf32>)
func.func @read_twice(%m: memref<4x4xf32>, %out: memref<4x4xf32>) {
  %t = memref.alloc() : memref<4x4xf32>
  linalg.copy ins(%m : memref<4x4xf32>) outs(%t : memref<4x4xf32>)
  %o = memref.alloc() : memref<4x4xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%t, %t : memref<4x4xf32>, memref<4x4xf32>) outs(%o : memref<4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  linalg.copy ins(%o : memref<4x4xf32>) outs(%out : memref<4x4xf32>)
  memref.dealloc %t : memref<4x4xf32>
  memref.dealloc %o : memref<4x4xf32>
  return
}

// -----

// The input read twice at the same element (x * x): the output takes its
// buffer.
// CHECK-LABEL: func.func @squared(
// CHECK:         %[[T:.*]] = memref.alloc() : memref<4x4xf32>
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[T]], %[[T]] : memref<4x4xf32>, memref<4x4xf32>) outs(%[[T]] : memref<4x4xf32>)
func.func @squared(%m: memref<4x4xf32>, %out: memref<4x4xf32>) {
  %t = memref.alloc() : memref<4x4xf32>
  linalg.copy ins(%m : memref<4x4xf32>) outs(%t : memref<4x4xf32>)
  %o = memref.alloc() : memref<4x4xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%t, %t : memref<4x4xf32>, memref<4x4xf32>) outs(%o : memref<4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %s = arith.mulf %a, %b : f32
    linalg.yield %s : f32
  }
  linalg.copy ins(%o : memref<4x4xf32>) outs(%out : memref<4x4xf32>)
  memref.dealloc %t : memref<4x4xf32>
  memref.dealloc %o : memref<4x4xf32>
  return
}
