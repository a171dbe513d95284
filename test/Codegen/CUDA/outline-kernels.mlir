// RUN: mixprec-opt %s --mixprec-gpu-outline-kernels -split-input-file -verify-diagnostics | FileCheck %s

// A view moves into the kernel, which takes the whole buffer; the index
// constants it uses move too, the scalar does not. The second launch is the
// same kernel on other buffers and launches the first kernel; the third
// computes something else and is a kernel of its own.
// CHECK-LABEL: func.func @views
// CHECK-SAME: (%[[BUF:.*]]: memref<4x8xf32>, %[[OUT:.*]]: memref<4x4xf32>, %[[OTHER:.*]]: memref<4x8xf32>, %[[S:.*]]: f32)
// CHECK: gpu.launch_func @kernels::@views_kernel_0 {{.*}} args(%[[BUF]] : memref<4x8xf32>, %[[S]] : f32, %[[OUT]] : memref<4x4xf32>)
// CHECK-NEXT: gpu.launch_func @kernels::@views_kernel_0 {{.*}} args(%[[OTHER]] : memref<4x8xf32>, %[[S]] : f32, %[[OUT]] : memref<4x4xf32>)
// CHECK-NEXT: gpu.launch_func @kernels::@views_kernel_2 {{.*}} args(%[[BUF]] : memref<4x8xf32>, %[[OUT]] : memref<4x4xf32>)
// CHECK: gpu.module @kernels
// CHECK: gpu.func @views_kernel_0(%[[K_BUF:.*]]: memref<4x8xf32>, %[[K_S:.*]]: f32, %[[K_OUT:.*]]: memref<4x4xf32>) kernel
// CHECK: %[[VIEW:.*]] = memref.subview %[[K_BUF]][0, 4] [4, 4] [1, 1]
// CHECK: %[[X:.*]] = memref.load %[[VIEW]]
// CHECK: arith.mulf %[[X]], %[[K_S]]
// CHECK: gpu.func @views_kernel_2(
// CHECK: arith.negf
// CHECK-NOT: gpu.func
module attributes {gpu.container_module} {
  func.func @views(%buf: memref<4x8xf32>, %out: memref<4x4xf32>, %other: memref<4x8xf32>, %s: f32) {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c4 = arith.constant 4 : index
    %view = memref.subview %buf[0, 4] [4, 4] [1, 1] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1], offset: 4>>
    %view2 = memref.subview %other[0, 4] [4, 4] [1, 1] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1], offset: 4>>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) module(@kernels) function(@views_kernel_0) {
      %i = arith.divui %tx, %c4 : index
      %j = arith.remui %tx, %c4 : index
      %x = memref.load %view[%i, %j] : memref<4x4xf32, strided<[8, 1], offset: 4>>
      %y = arith.mulf %x, %s : f32
      memref.store %y, %out[%i, %j] : memref<4x4xf32>
      gpu.terminator
    }
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) module(@kernels) function(@views_kernel_1) {
      %i = arith.divui %tx, %c4 : index
      %j = arith.remui %tx, %c4 : index
      %x = memref.load %view2[%i, %j] : memref<4x4xf32, strided<[8, 1], offset: 4>>
      %y = arith.mulf %x, %s : f32
      memref.store %y, %out[%i, %j] : memref<4x4xf32>
      gpu.terminator
    }
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) module(@kernels) function(@views_kernel_2) {
      %i = arith.divui %tx, %c4 : index
      %j = arith.remui %tx, %c4 : index
      %x = memref.load %view[%i, %j] : memref<4x4xf32, strided<[8, 1], offset: 4>>
      %y = arith.negf %x : f32
      memref.store %y, %out[%i, %j] : memref<4x4xf32>
      gpu.terminator
    }
    return
  }
}

// -----

// The same body with other launch sizes is another kernel (their known
// block sizes differ); kernels made before (a GEMM's) are shared too.
// CHECK-LABEL: func.func @sizes
// CHECK: gpu.launch_func @kernels::@made_0
// CHECK-NEXT: gpu.launch_func @kernels::@made_0
// CHECK-NEXT: gpu.launch_func @kernels::@sizes_kernel_0
// CHECK-NEXT: gpu.launch_func @kernels::@sizes_kernel_1
// CHECK: gpu.func @made_0(
// CHECK-NOT: gpu.func @made_1(
// CHECK: gpu.func @sizes_kernel_0({{.*}}) kernel attributes {known_block_size = array<i32: 16, 1, 1>
// CHECK: gpu.func @sizes_kernel_1({{.*}}) kernel attributes {known_block_size = array<i32: 32, 1, 1>
module attributes {gpu.container_module} {
  func.func @sizes(%out: memref<32xf32>) {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @kernels::@made_0 blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%out : memref<32xf32>)
    gpu.launch_func @kernels::@made_1 blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%out : memref<32xf32>)
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) module(@kernels) function(@sizes_kernel_0) {
      %zero = arith.constant 0.0 : f32
      memref.store %zero, %out[%tx] : memref<32xf32>
      gpu.terminator
    }
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) module(@kernels) function(@sizes_kernel_1) {
      %zero = arith.constant 0.0 : f32
      memref.store %zero, %out[%tx] : memref<32xf32>
      gpu.terminator
    }
    return
  }
  gpu.module @kernels {
    gpu.func @made_0(%out: memref<32xf32>) kernel {
      %i = gpu.thread_id x
      %one = arith.constant 1.0 : f32
      memref.store %one, %out[%i] : memref<32xf32>
      gpu.return
    }
    gpu.func @made_1(%out: memref<32xf32>) kernel {
      %i = gpu.thread_id x
      %one = arith.constant 1.0 : f32
      memref.store %one, %out[%i] : memref<32xf32>
      gpu.return
    }
  }
}

// -----

// A buffer argument with a layout (a view made where the kernel cannot
// make it, here by the caller) cannot be passed as one pointer.
module attributes {gpu.container_module} {
  func.func @strided(%view: memref<4xf32, strided<[2]>>) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    // expected-error@+1 {{kernel argument 0 of type 'memref<4xf32, strided<[2]>>' is not a whole buffer (static shape, identity layout)}}
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) module(@kernels) function(@strided_kernel_0) {
      %zero = arith.constant 0.0 : f32
      memref.store %zero, %view[%tx] : memref<4xf32, strided<[2]>>
      gpu.terminator
    }
    return
  }
}
