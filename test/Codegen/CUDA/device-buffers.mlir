// RUN: mixprec-opt %s --mixprec-gpu-device-buffers -split-input-file -verify-diagnostics | FileCheck %s

memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>

// Temporaries and constants live on the device; the constant's device copy
// is freed at the return.
// CHECK-LABEL: func.func @buffers
// CHECK-SAME: (%[[OUT:.*]]: memref<4xf32>)
// CHECK: %[[TMP:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: %[[CONST:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: %[[HOST:.*]] = memref.get_global @table : memref<4xf32>
// CHECK: gpu.memcpy %[[CONST]], %[[HOST]] : memref<4xf32>, memref<4xf32>
// CHECK: gpu.launch
// CHECK: memref.load %[[CONST]]
// CHECK: memref.store %{{.*}}, %[[TMP]]
// CHECK: gpu.dealloc %[[TMP]] : memref<4xf32>
// CHECK: gpu.dealloc %[[CONST]] : memref<4xf32>
// CHECK-NEXT: return
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.dealloc
func.func @buffers(%out: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %tmp = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  %table = memref.get_global @table : memref<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1) {
    %c0 = arith.constant 0 : index
    %v = memref.load %table[%c0] : memref<4xf32>
    memref.store %v, %tmp[%c0] : memref<4xf32>
    gpu.terminator
  }
  memref.dealloc %tmp : memref<4xf32>
  return
}

// -----

func.func @host_load(%in: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'memref.load' on the host would touch GPU memory; the CUDA backend runs it in no kernel}}
  %v = memref.load %in[%c0] : memref<4xf32>
  return %v : f32
}
