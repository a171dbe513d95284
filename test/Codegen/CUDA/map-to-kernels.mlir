// RUN: mixprec-opt %s --mixprec-gpu-map-to-kernels -split-input-file -verify-diagnostics | FileCheck %s

// 4x100 iterations: 2 blocks of 256 threads; the linear index is split back
// into (i, j) and threads past 400 do nothing.
// CHECK-LABEL: func.func @parallel
// CHECK-SAME: (%[[IN:.*]]: memref<4x100xf32>, %[[OUT:.*]]: memref<4x100xf32>)
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C2]], {{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C256]], {{.*}}) module(@kernels) function(@parallel_kernel_0)
// CHECK: %[[BASE:.*]] = arith.muli %[[BX]]
// CHECK: %[[LINEAR:.*]] = arith.addi %[[BASE]], %[[TX]]
// CHECK: %[[INSIDE:.*]] = arith.cmpi ult, %[[LINEAR]], %{{.*}}
// CHECK: scf.if %[[INSIDE]]
// CHECK: %[[J:.*]] = arith.remui %[[LINEAR]]
// CHECK: %[[ROW:.*]] = arith.divui %[[LINEAR]]
// CHECK: %[[I:.*]] = arith.remui %[[ROW]]
// CHECK: %[[X:.*]] = memref.load %[[IN]][%[[IV0:.*]], %[[IV1:.*]]]
// CHECK: memref.store %[[X]], %[[OUT]][%[[IV0]], %[[IV1]]]
// CHECK-NOT: scf.parallel
func.func @parallel(%in: memref<4x100xf32>, %out: memref<4x100xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c100 = arith.constant 100 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c100) step (%c1, %c1) {
    %x = memref.load %in[%i, %j] : memref<4x100xf32>
    memref.store %x, %out[%i, %j] : memref<4x100xf32>
    scf.reduce
  }
  return
}

// -----

// Scalar code runs on one thread; the scalar later kernels need goes
// through a one-element device buffer, written where it is computed and
// read where it is used, and freed at the return.
// CHECK-LABEL: func.func @scalars
// CHECK-SAME: (%[[LR:.*]]: memref<f32>, %[[W:.*]]: memref<8xf32>, %[[U:.*]]: memref<8xf32>)
// CHECK: %[[SCRATCH:.*]] = memref.alloc() : memref<f32>
// CHECK: gpu.launch {{.*}} function(@scalars_kernel_0)
// CHECK: %[[V:.*]] = memref.load %[[LR]][]
// CHECK: %[[HALF:.*]] = arith.mulf %[[V]]
// CHECK: memref.store %[[HALF]], %[[SCRATCH]][]
// CHECK: gpu.launch {{.*}} function(@scalars_kernel_1)
// CHECK: scf.if
// CHECK: %[[READ:.*]] = memref.load %[[SCRATCH]][]
// CHECK: memref.store %[[READ]], %[[W]]
// CHECK: gpu.launch {{.*}} function(@scalars_kernel_2)
// CHECK: %[[AGAIN:.*]] = memref.load %[[SCRATCH]][]
// CHECK: memref.store %[[AGAIN]], %[[U]]
// CHECK: memref.dealloc %[[SCRATCH]]
// CHECK-NEXT: return
func.func @scalars(%lr: memref<f32>, %w: memref<8xf32>, %u: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %half = arith.constant 0.5 : f32
  %v = memref.load %lr[] : memref<f32>
  %h = arith.mulf %v, %half : f32
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    memref.store %h, %w[%i] : memref<8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    memref.store %h, %u[%i] : memref<8xf32>
    scf.reduce
  }
  return
}

// -----

// Scalar code on both sides of an allocation and a constant is one kernel,
// launched after them; a free ends the run (its kernel must come first).
// CHECK-LABEL: func.func @one_run_past_host_ops
// CHECK-SAME: (%[[A:.*]]: memref<f32>, %[[B:.*]]: memref<f32>)
// CHECK: %[[FRESH:.*]] = memref.alloc() : memref<f32>
// CHECK: %[[TWO:.*]] = arith.constant 2.0
// CHECK: gpu.launch {{.*}} function(@one_run_past_host_ops_kernel_0)
// CHECK: memref.load %[[A]][]
// CHECK: memref.store %{{.*}}, %[[FRESH]][]
// CHECK: memref.load %[[FRESH]][]
// CHECK: memref.store %{{.*}}, %[[B]][]
// CHECK: gpu.terminator
// CHECK: memref.dealloc %[[FRESH]]
// CHECK: gpu.launch {{.*}} function(@one_run_past_host_ops_kernel_1)
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @one_run_past_host_ops(%a: memref<f32>, %b: memref<f32>) {
  %one = arith.constant 1.0 : f32
  %x = memref.load %a[] : memref<f32>
  %fresh = memref.alloc() : memref<f32>
  %two = arith.constant 2.0 : f32
  %y = arith.mulf %x, %two : f32
  memref.store %y, %fresh[] : memref<f32>
  %z = memref.load %fresh[] : memref<f32>
  memref.store %z, %b[] : memref<f32>
  memref.dealloc %fresh : memref<f32>
  memref.store %one, %a[] : memref<f32>
  return
}

// -----

// Scalar reads that only the next loop nest uses are done by each of its
// threads: no kernel of their own, no device buffer.
// CHECK-LABEL: func.func @scalar_read_by_each_thread
// CHECK-SAME: (%[[LR:.*]]: memref<f32>, %[[W:.*]]: memref<8xf32>)
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch {{.*}} function(@scalar_read_by_each_thread_kernel_0)
// CHECK: scf.if
// CHECK: %[[V:.*]] = memref.load %[[LR]][]
// CHECK: %[[HALF:.*]] = arith.mulf %[[V]]
// CHECK: memref.store %[[HALF]], %[[W]]
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @scalar_read_by_each_thread(%lr: memref<f32>, %w: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %half = arith.constant 0.5 : f32
  %v = memref.load %lr[] : memref<f32>
  %h = arith.mulf %v, %half : f32
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    memref.store %h, %w[%i] : memref<8xf32>
    scf.reduce
  }
  return
}

// -----

// Not when the loop nest writes what they read (through a view here):
// threads would race with the read.
// CHECK-LABEL: func.func @scalar_read_then_written
// CHECK: gpu.launch {{.*}} function(@scalar_read_then_written_kernel_0)
// CHECK: memref.load
// CHECK: gpu.launch {{.*}} function(@scalar_read_then_written_kernel_1)
func.func @scalar_read_then_written(%w: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %first = memref.load %w[%c0] : memref<8xf32>
  %view = memref.subview %w[0] [8] [1] : memref<8xf32> to memref<8xf32, strided<[1]>>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    memref.store %first, %view[%i] : memref<8xf32, strided<[1]>>
    scf.reduce
  }
  return
}

// -----

// A sequential loop nest (a full reduction) is a one-thread kernel.
// CHECK-LABEL: func.func @full_reduction
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %[[ONE:.*]], {{.*}}) threads({{.*}}) in ({{.*}} = %[[ONE]],
// CHECK: scf.for
// CHECK-NOT: scf.for
func.func @full_reduction(%in: memref<16xf32>, %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %x = memref.load %in[%i] : memref<16xf32>
    %s = memref.load %out[] : memref<f32>
    %t = arith.addf %s, %x : f32
    memref.store %t, %out[] : memref<f32>
  }
  return
}

// -----

func.func @dynamic(%in: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{the CUDA backend needs static loop bounds (static shapes)}}
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %x = memref.load %in[%i] : memref<?xf32>
    memref.store %x, %in[%i] : memref<?xf32>
    scf.reduce
  }
  return
}

// -----

func.func @size_from_device(%in: memref<index>) {
  %n = memref.load %in[] : memref<index>
  // expected-error @below {{the host needs a value computed on the GPU (a dynamic size?); the CUDA backend needs static shapes}}
  %b = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %b : memref<?xf32>
  return
}

// -----

func.func @conditional_free(%in: memref<4xf32>, %cond: i1) {
  %b = memref.alloc() : memref<4xf32>
  scf.if %cond {
    // expected-error @below {{the CUDA backend allocates and frees buffers on the host only, not under control flow}}
    memref.dealloc %b : memref<4xf32>
  }
  return
}

// -----

// A view stays on the host, even one that is not a subview.
// CHECK-LABEL: func.func @views
// CHECK: %[[T:.*]] = memref.transpose
// CHECK: gpu.launch
// CHECK: memref.load %[[T]]
func.func @views(%in: memref<4x8xf32>, %out: memref<8x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %t = memref.transpose %in (i, j) -> (j, i) : memref<4x8xf32> to memref<8x4xf32, strided<[1, 8]>>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c4) step (%c1, %c1) {
    %x = memref.load %t[%i, %j] : memref<8x4xf32, strided<[1, 8]>>
    memref.store %x, %out[%i, %j] : memref<8x4xf32>
    scf.reduce
  }
  return
}
