// RUN: mixprec-opt %s -split-input-file --mixprec-plan-memory --mixprec-verify-memory-plan | FileCheck %s
// RUN: mixprec-opt %s -split-input-file --mixprec-plan-memory=alignment=256 | FileCheck %s --check-prefix=ALIGNED
// RUN: not mixprec-opt %s --mixprec-plan-memory=alignment=48 2>&1 | FileCheck %s --check-prefix=BAD-ALIGNMENT

// BAD-ALIGNMENT: mixprec-plan-memory: alignment must be a power of two, got 48

// Three 256-byte temporaries in a chain: %a is dead once %b is written, so
// %c takes its bytes. The plan places the first (largest first, ties in
// program order) at 0, %b beside it, %c over %a. The workspace is the
// function's new last argument; the frees go.
// CHECK-LABEL: func.func @chain(
// CHECK-SAME: %[[X:[^:]+]]: memref<64xf32>, %[[OUT:[^:]+]]: memref<64xf32>, %[[WS:[^:]+]]: memref<512xi8>)
// CHECK-SAME: mixprec.live_bytes = 512 : i64, mixprec.workspace_bytes = 512 : i64
// CHECK: %[[A:.+]] = memref.view %[[WS]][%c0{{.*}}][] : memref<512xi8> to memref<64xf32>
// CHECK: linalg.exp ins(%[[X]] : memref<64xf32>) outs(%[[A]] : memref<64xf32>)
// CHECK: %[[B:.+]] = memref.view %[[WS]][%c256{{.*}}][] : memref<512xi8> to memref<64xf32>
// CHECK: linalg.exp ins(%[[A]] : memref<64xf32>) outs(%[[B]] : memref<64xf32>)
// CHECK: %[[C:.+]] = memref.view %[[WS]][%c0{{.*}}][] : memref<512xi8> to memref<64xf32>
// CHECK: linalg.exp ins(%[[B]] : memref<64xf32>) outs(%[[C]] : memref<64xf32>)
// CHECK: linalg.copy ins(%[[C]] : memref<64xf32>) outs(%[[OUT]] : memref<64xf32>)
// CHECK-NOT: memref.dealloc
// CHECK: return
// With 256-byte alignment the same offsets (the buffers are 256 bytes).
// ALIGNED-LABEL: func.func @chain(
// ALIGNED-SAME: memref<512xi8>)
func.func @chain(%x: memref<64xf32>, %out: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  linalg.exp ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  %b = memref.alloc() : memref<64xf32>
  linalg.exp ins(%a : memref<64xf32>) outs(%b : memref<64xf32>)
  %c = memref.alloc() : memref<64xf32>
  linalg.exp ins(%b : memref<64xf32>) outs(%c : memref<64xf32>)
  linalg.copy ins(%c : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %a : memref<64xf32>
  memref.dealloc %b : memref<64xf32>
  memref.dealloc %c : memref<64xf32>
  return
}

// -----

// A buffer read inside a loop is live to the loop's end, so the loop's own
// temporary cannot share it; the ones after the loop can. Offsets are
// multiples of the alignment (the 3-byte mask goes at 64, or 256).
// CHECK-LABEL: func.func @loop(
// CHECK-SAME: %[[WS:[^:]+]]: memref<128xi8>)
// CHECK-SAME: mixprec.live_bytes = 128 : i64, mixprec.workspace_bytes = 128 : i64
// CHECK: %[[A:.+]] = memref.view %[[WS]][%c0{{.*}}][] : memref<128xi8> to memref<16xf32>
// CHECK: scf.for
// CHECK:   %[[T:.+]] = memref.view %[[WS]][%c64{{.*}}][] : memref<128xi8> to memref<16xf32>
// CHECK:   linalg.exp ins(%[[A]] : memref<16xf32>) outs(%[[T]] : memref<16xf32>)
// CHECK: }
// CHECK: %[[M:.+]] = memref.view %[[WS]][%c64{{.*}}][] : memref<128xi8> to memref<3xi1>
// CHECK: %[[D:.+]] = memref.view %[[WS]][%c0{{.*}}][] : memref<128xi8> to memref<16xf32>
// ALIGNED-LABEL: func.func @loop(
// ALIGNED-SAME: memref<512xi8>)
func.func @loop(%x: memref<16xf32>, %out: memref<16xf32>, %flags: memref<3xi1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<16xf32>
  linalg.copy ins(%x : memref<16xf32>) outs(%a : memref<16xf32>)
  scf.for %i = %c0 to %c4 step %c1 {
    %t = memref.alloc() : memref<16xf32>
    linalg.exp ins(%a : memref<16xf32>) outs(%t : memref<16xf32>)
    linalg.copy ins(%t : memref<16xf32>) outs(%out : memref<16xf32>)
    memref.dealloc %t : memref<16xf32>
  }
  memref.dealloc %a : memref<16xf32>
  %m = memref.alloc() : memref<3xi1>
  linalg.copy ins(%flags : memref<3xi1>) outs(%m : memref<3xi1>)
  %d = memref.alloc() : memref<16xf32>
  linalg.copy ins(%out : memref<16xf32>) outs(%d : memref<16xf32>)
  linalg.exp ins(%d : memref<16xf32>) outs(%out : memref<16xf32>)
  linalg.copy ins(%m : memref<3xi1>) outs(%flags : memref<3xi1>)
  memref.dealloc %m : memref<3xi1>
  memref.dealloc %d : memref<16xf32>
  return
}

// -----

// Views of a buffer keep it live; a buffer that leaves its block (here,
// yielded by a loop) is not the plan's and keeps its allocation.
// CHECK-LABEL: func.func @views_and_escapes(
// CHECK-SAME: %[[WS:[^:]+]]: memref<128xi8>)
// CHECK: %[[A:.+]] = memref.view %[[WS]][%c0{{.*}}][] : memref<128xi8> to memref<4x4xf32>
// CHECK: %[[ROW:.+]] = memref.subview %[[A]]
// CHECK: %[[B:.+]] = memref.view %[[WS]][%c64{{.*}}][] : memref<128xi8> to memref<4xf32>
// CHECK: %[[KEPT:.+]] = memref.alloc() : memref<4xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.+}} = %[[KEPT]])
func.func @views_and_escapes(%x: memref<4x4xf32>, %out: memref<4xf32>) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<4x4xf32>
  linalg.copy ins(%x : memref<4x4xf32>) outs(%a : memref<4x4xf32>)
  %row = memref.subview %a[1, 0] [1, 4] [1, 1] : memref<4x4xf32> to memref<4xf32, strided<[1], offset: 4>>
  %b = memref.alloc() : memref<4xf32>
  linalg.copy ins(%row : memref<4xf32, strided<[1], offset: 4>>) outs(%b : memref<4xf32>)
  linalg.copy ins(%b : memref<4xf32>) outs(%out : memref<4xf32>)
  %kept = memref.alloc() : memref<4xf32>
  %r = scf.for %i = %c0 to %c1 step %c1 iter_args(%it = %kept) -> (memref<4xf32>) {
    scf.yield %it : memref<4xf32>
  }
  return %r : memref<4xf32>
}

// -----

// A function something calls allocates its workspace on entry and frees it
// at its return.
// CHECK-LABEL: func.func private @helper(
// CHECK-SAME: %{{[^:]+}}: memref<8xf32>) attributes {mixprec.live_bytes = 32 : i64, mixprec.workspace_bytes = 64 : i64}
// CHECK: %[[WS:.+]] = memref.alloc() {alignment = 64 : i64, mixprec.workspace} : memref<64xi8>
// CHECK: memref.view %[[WS]]
// CHECK: memref.dealloc %[[WS]] : memref<64xi8>
// CHECK-NEXT: return
func.func private @helper(%x: memref<8xf32>) {
  %t = memref.alloc() : memref<8xf32>
  linalg.exp ins(%x : memref<8xf32>) outs(%t : memref<8xf32>)
  linalg.copy ins(%t : memref<8xf32>) outs(%x : memref<8xf32>)
  memref.dealloc %t : memref<8xf32>
  return
}
func.func @caller(%x: memref<8xf32>) {
  call @helper(%x) : (memref<8xf32>) -> ()
  return
}

// -----

// On the GPU (after --mixprec-gpu-device-buffers) the plan places the
// gpu.alloc buffers and drops their gpu.dealloc.
// CHECK-LABEL: func.func @device(
// CHECK-SAME: %[[WS:[^:]+]]: memref<128xi8>)
// CHECK: memref.view %[[WS]][%c0{{.*}}][] : memref<128xi8> to memref<8xf32>
// CHECK: memref.view %[[WS]][%c64{{.*}}][] : memref<128xi8> to memref<8xf32>
// CHECK-NOT: gpu.alloc
// CHECK-NOT: gpu.dealloc
func.func @device(%x: memref<8xf32>, %out: memref<8xf32>) {
  %a = gpu.alloc () : memref<8xf32>
  %b = gpu.alloc () : memref<8xf32>
  gpu.memcpy %a, %x : memref<8xf32>, memref<8xf32>
  gpu.memcpy %b, %a : memref<8xf32>, memref<8xf32>
  gpu.memcpy %out, %b : memref<8xf32>, memref<8xf32>
  gpu.dealloc %a : memref<8xf32>
  gpu.dealloc %b : memref<8xf32>
  return
}
