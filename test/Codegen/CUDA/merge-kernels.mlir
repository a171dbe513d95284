// RUN: mixprec-opt %s --mixprec-gpu-merge-kernels -split-input-file -verify-diagnostics | FileCheck %s
// RUN: mixprec-opt %s --mixprec-gpu-merge-kernels=max-thread-cost=8 -split-input-file | FileCheck %s --check-prefix=SHORT
// RUN: mixprec-opt %s --mixprec-gpu-merge-kernels=max-parameter-bytes=16 -split-input-file | FileCheck %s --check-prefix=FEW
// RUN: mixprec-opt %s --mixprec-gpu-merge-kernels=max-parameter-bytes=24 -split-input-file | FileCheck %s --check-prefix=SHARED
// RUN: not mixprec-opt %s --mixprec-gpu-merge-kernels=max-thread-cost=0 -split-input-file 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: max-thread-cost must be positive

// Two kernels that touch different buffers: one grid of 2 + 3 blocks. A
// block finds the kernel whose range holds its index by binary search and
// runs it as that kernel's block. The first kernel's name stays.
// CHECK-LABEL: func.func @side_by_side
// CHECK-SAME: (%[[A:.*]]: memref<512xf32>, %[[B:.*]]: memref<768xf32>)
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C5]], {{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C256]], {{.*}}) module(@kernels) function(@first)
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[FIRST:.*]] = arith.cmpi ult, %[[BX]], %[[C2]]
// CHECK: scf.if %[[FIRST]]
// CHECK: %[[BASE:.*]] = arith.muli %[[BX]]
// CHECK: %[[I:.*]] = arith.addi %[[BASE]], %[[TX]]
// CHECK: memref.store %{{.*}}, %[[A]][%[[I]]]
// CHECK: } else {
// CHECK: %[[OWN:.*]] = arith.subi %[[BX]], %[[C2]]
// CHECK: arith.muli %[[OWN]]
// CHECK: memref.store %{{.*}}, %[[B]]
// CHECK-NOT: gpu.launch
// CHECK: return
// Each kernel takes its buffer and %one: 16 bytes of parameters each, 24
// merged (%one once). Under 16 bytes they keep launches of their own.
// FEW-LABEL: func.func @side_by_side
// FEW: gpu.launch {{.*}} function(@first)
// FEW: gpu.terminator
// FEW: gpu.launch {{.*}} function(@second)
// SHARED-LABEL: func.func @side_by_side
// SHARED: gpu.launch {{.*}} function(@first)
// SHARED-NOT: gpu.launch
// SHARED: return
func.func @side_by_side(%a: memref<512xf32>, %b: memref<768xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c256 = arith.constant 256 : index
  %one = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1)
             module(@kernels) function(@first) {
    %base = arith.muli %bx, %c256 : index
    %i = arith.addi %base, %tx : index
    memref.store %one, %a[%i] : memref<512xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c3, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1)
             module(@kernels) function(@second) {
    %base = arith.muli %bx, %c256 : index
    %i = arith.addi %base, %tx : index
    memref.store %one, %b[%i] : memref<768xf32>
    gpu.terminator
  }
  return
}

// -----

// Three kernels side by side: the search halves the kernels at each branch,
// so the second and third are told apart inside the first branch's else.
// CHECK-LABEL: func.func @three_side_by_side
// CHECK-SAME: (%[[A:.*]]: memref<64xf32>, %[[B:.*]]: memref<64xf32>, %[[C:.*]]: memref<64xf32>)
// CHECK: gpu.launch blocks(%[[BX:[^,]*]], %{{.*}}, %{{.*}}) in
// CHECK: %[[LOW:.*]] = arith.cmpi ult, %[[BX]], %[[ONE:.*]] :
// CHECK: scf.if %[[LOW]]
// CHECK: memref.store %{{.*}}, %[[A]]
// CHECK: } else {
// CHECK: %[[MIDDLE:.*]] = arith.cmpi ult, %[[BX]], %[[TWO:.*]] :
// CHECK: scf.if %[[MIDDLE]]
// CHECK: arith.subi %[[BX]], %[[ONE]]
// CHECK: memref.store %{{.*}}, %[[B]]
// CHECK: } else {
// CHECK: arith.subi %[[BX]], %[[TWO]]
// CHECK: memref.store %{{.*}}, %[[C]]
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @three_side_by_side(%a: memref<64xf32>, %b: memref<64xf32>,
                              %c: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             module(@kernels) function(@first) {
    memref.store %one, %a[%tx] : memref<64xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             module(@kernels) function(@second) {
    memref.store %one, %b[%tx] : memref<64xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             module(@kernels) function(@third) {
    memref.store %one, %c[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}

// -----

// A kernel of one block that reads what one of one block wrote follows it
// in the same block, past a barrier; one that reads only what the barrier
// already made visible needs none. A kernel of one thread runs on thread 0
// of the block.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:.*]]: memref<256xf32>, %[[SUM:.*]]: memref<f32>, %[[Y:.*]]: memref<256xf32>, %[[Z:.*]]: memref<256xf32>)
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[ONE]], {{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %{{.*}}, {{.*}}) module(@kernels) function(@sum)
// CHECK: %[[ONE_THREAD:.*]] = arith.cmpi ult, %[[TX]], %{{.*}}
// CHECK: scf.if %[[ONE_THREAD]]
// CHECK: scf.for
// CHECK: memref.load %[[X]]
// CHECK: memref.store %{{.*}}, %[[SUM]][]
// CHECK: gpu.barrier
// CHECK: memref.load %[[SUM]][]
// CHECK: memref.store %{{.*}}, %[[Y]]
// CHECK-NOT: gpu.barrier
// CHECK: memref.load %[[SUM]][]
// CHECK: memref.store %{{.*}}, %[[Z]]
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @chain(%x: memref<256xf32>, %sum: memref<f32>, %y: memref<256xf32>,
                 %z: memref<256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             module(@kernels) function(@sum) {
    %total = scf.for %i = %c0 to %c256 step %c1 iter_args(%acc = %zero) -> f32 {
      %v = memref.load %x[%i] : memref<256xf32>
      %next = arith.addf %acc, %v : f32
      scf.yield %next : f32
    }
    memref.store %total, %sum[] : memref<f32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1)
             module(@kernels) function(@normalize) {
    %total = memref.load %sum[] : memref<f32>
    %v = memref.load %x[%tx] : memref<256xf32>
    %w = arith.divf %v, %total : f32
    memref.store %w, %y[%tx] : memref<256xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1)
             module(@kernels) function(@scale) {
    %total = memref.load %sum[] : memref<f32>
    %v = memref.load %x[%tx] : memref<256xf32>
    %w = arith.mulf %v, %total : f32
    memref.store %w, %z[%tx] : memref<256xf32>
    gpu.terminator
  }
  return
}

// With one thread's work bounded to 8 ops, the sum's loop alone is past
// it: the two kernels that read the sum follow in a launch of their own,
// side by side.
// SHORT-LABEL: func.func @chain
// SHORT: gpu.launch {{.*}} function(@sum)
// SHORT: gpu.launch {{.*}} function(@normalize)
// SHORT-NOT: gpu.barrier
// SHORT-NOT: gpu.launch
// SHORT: return

// -----

// A kernel of several blocks that reads what another wrote needs the whole
// grid done first: two launches, in their order.
// CHECK-LABEL: func.func @dependent
// CHECK: gpu.launch {{.*}} function(@produce)
// CHECK: gpu.launch {{.*}} function(@consume)
func.func @dependent(%a: memref<512xf32>, %b: memref<512xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c256 = arith.constant 256 : index
  %one = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1)
             module(@kernels) function(@produce) {
    %base = arith.muli %bx, %c256 : index
    %i = arith.addi %base, %tx : index
    memref.store %one, %a[%i] : memref<512xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1)
             module(@kernels) function(@consume) {
    %base = arith.muli %bx, %c256 : index
    %i = arith.addi %base, %tx : index
    %v = memref.load %a[%i] : memref<512xf32>
    memref.store %v, %b[%i] : memref<512xf32>
    gpu.terminator
  }
  return
}

// -----

// Scheduled by what they touch, not where they stand: the third kernel
// depends on neither the first nor the second and joins the first, the
// second follows. A view counts as the buffer it views, so the second
// (through a view of %a) depends on the first. The buffer only the second
// uses is allocated just before it; the free stays at the end.
// CHECK-LABEL: func.func @reordered
// CHECK-SAME: (%[[A:.*]]: memref<2x256xf32>, %[[B:.*]]: memref<512xf32>, %[[C:.*]]: memref<512xf32>)
// CHECK: gpu.launch {{.*}} function(@write_a)
// CHECK: memref.store %{{.*}}, %[[A]]
// CHECK: memref.store %{{.*}}, %[[C]]
// CHECK-DAG: %[[TEMP:.*]] = memref.alloc() : memref<512xf32>
// CHECK-DAG: %[[FLAT:.*]] = memref.collapse_shape %[[A]]
// CHECK: gpu.launch {{.*}} function(@read_a)
// CHECK: memref.load %[[FLAT]]
// CHECK: memref.store %{{.*}}, %[[TEMP]]
// CHECK: memref.store %{{.*}}, %[[B]]
// CHECK-NOT: gpu.launch
// CHECK: memref.dealloc %[[TEMP]]
// CHECK-NEXT: return
func.func @reordered(%a: memref<2x256xf32>, %b: memref<512xf32>,
                     %c: memref<512xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c256 = arith.constant 256 : index
  %one = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1)
             module(@kernels) function(@write_a) {
    memref.store %one, %a[%bx, %tx] : memref<2x256xf32>
    gpu.terminator
  }
  %temp = memref.alloc() : memref<512xf32>
  %flat = memref.collapse_shape %a [[0, 1]] : memref<2x256xf32> into memref<512xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1)
             module(@kernels) function(@read_a) {
    %base = arith.muli %bx, %c256 : index
    %i = arith.addi %base, %tx : index
    %v = memref.load %flat[%i] : memref<512xf32>
    memref.store %v, %temp[%i] : memref<512xf32>
    memref.store %v, %b[%i] : memref<512xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1)
             module(@kernels) function(@write_c) {
    %base = arith.muli %bx, %c256 : index
    %i = arith.addi %base, %tx : index
    memref.store %one, %c[%i] : memref<512xf32>
    gpu.terminator
  }
  memref.dealloc %temp : memref<512xf32>
  return
}

// -----

// A kernel whose threads synchronize keeps its own launch, and an op of
// unknown effect (a call) keeps its place between the launches around it.
// CHECK-LABEL: func.func @kept_apart
// CHECK: gpu.launch {{.*}} function(@synchronized)
// CHECK: gpu.barrier
// CHECK: gpu.launch {{.*}} function(@before_call)
// CHECK: call @unknown()
// CHECK: gpu.launch {{.*}} function(@after_call)
func.func private @unknown()
func.func @kept_apart(%a: memref<256xf32>, %b: memref<256xf32>,
                      %c: memref<256xf32>) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %one = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1)
             module(@kernels) function(@synchronized) {
    memref.store %one, %a[%tx] : memref<256xf32>
    gpu.barrier
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1)
             module(@kernels) function(@before_call) {
    memref.store %one, %b[%tx] : memref<256xf32>
    gpu.terminator
  }
  func.call @unknown() : () -> ()
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1)
             module(@kernels) function(@after_call) {
    memref.store %one, %c[%tx] : memref<256xf32>
    gpu.terminator
  }
  return
}
