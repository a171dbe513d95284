// RUN: mixprec-opt %s -split-input-file --mixprec-parallel-loop-nests="chunk-work=64" | FileCheck %s
// RUN: mixprec-opt %s -split-input-file --mixprec-parallel-loop-nests="chunk-work=64" --lower-affine --convert-scf-to-cf --finalize-memref-to-llvm --convert-to-llvm --reconcile-unrealized-casts --mixprec-launch-parallel-nests | FileCheck %s --check-prefix=LAUNCH
// RUN: not mixprec-opt %s -split-input-file --mixprec-parallel-loop-nests="chunk-work=0" 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: mixprec-parallel-loop-nests: chunk-work must be positive

// An outlined nest whose first loop is parallel and indexes the output
// becomes loops whose outer range is two new arguments; its call passes
// the whole range, and the function records the extent and the chunk (64
// work / (16 columns x 2 body ops) = 2 rows).

// CHECK-LABEL: func.func private @nest(
// CHECK-SAME:      %[[X:.+]]: memref<10x16xf32>, %[[Y:.+]]: memref<10x16xf32>, %[[BEGIN:.+]]: index, %[[END:.+]]: index)
// CHECK-SAME:      mixprec.parallel_chunk = 2 : i64, mixprec.parallel_extent = 10 : i64
// CHECK:         scf.for %[[I:.+]] = %[[BEGIN]] to %[[END]] step %{{.+}} {
// CHECK:           scf.for %[[J:.+]] = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK:             %[[ROW:.+]] = affine.apply #{{.+}}(%[[I]])
// CHECK:             %[[COL:.+]] = affine.apply #{{.+}}(%[[J]])
// CHECK:             memref.load %[[X]][%[[ROW]], %[[COL]]]
// CHECK:             memref.store %{{.+}}, %[[Y]][%{{.+}}, %{{.+}}]
// CHECK-LABEL: func.func @host(
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[TEN:.+]] = arith.constant 10 : index
// CHECK:         call @nest(%{{.+}}, %{{.+}}, %[[ZERO]], %[[TEN]])

// The call becomes the runtime's parallel loop over a chunk function that
// reads the nest's 14 arguments (two memref descriptors) from 8-byte
// slots.

// LAUNCH-LABEL: llvm.func @host(
// LAUNCH:         %[[SLOTS:.+]] = llvm.alloca %{{.+}} x i64 : (i64) -> !llvm.ptr
// LAUNCH-COUNT-14: llvm.store
// LAUNCH:         %[[CHUNK:.+]] = llvm.mlir.addressof @nest_chunk : !llvm.ptr
// LAUNCH:         %[[EXTENT:.+]] = llvm.mlir.constant(10 : i64) : i64
// LAUNCH:         %[[SIZE:.+]] = llvm.mlir.constant(2 : i64) : i64
// LAUNCH:         llvm.call @mixprec_cpu_parallel_for(%[[CHUNK]], %[[SLOTS]], %[[EXTENT]], %[[SIZE]])
// LAUNCH-NOT:     llvm.call @nest(
// LAUNCH-LABEL: llvm.func internal @nest_chunk(
// LAUNCH-SAME:      %[[ARGS:.+]]: !llvm.ptr, %[[B:.+]]: i64, %[[E:.+]]: i64)
// LAUNCH-COUNT-14: llvm.load
// LAUNCH:         llvm.call @nest({{.*}}, %[[B]], %[[E]])
// LAUNCH:       llvm.func @mixprec_cpu_parallel_for(!llvm.ptr, !llvm.ptr, i64, i64)
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func private @nest(%x: memref<10x16xf32>, %y: memref<10x16xf32>) {
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<10x16xf32>) outs(%y : memref<10x16xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  }
  return
}
func.func @host(%x: memref<10x16xf32>, %y: memref<10x16xf32>) {
  call @nest(%x, %y) : (memref<10x16xf32>, memref<10x16xf32>) -> ()
  return
}

// -----

// Left whole: a first loop that is reduced, an output the first loop does
// not index, one chunk of work or less, and public functions.

// CHECK-LABEL: func.func private @reduced_first(
// CHECK-NOT:     mixprec.parallel_extent
// CHECK:         linalg.generic
// CHECK-LABEL: func.func private @small(
// CHECK-NOT:     mixprec.parallel_extent
// CHECK:         linalg.generic
// CHECK-LABEL: func.func @public(
// CHECK-NOT:     mixprec.parallel_extent
// CHECK:         linalg.generic
#map = affine_map<(d0, d1) -> (d0, d1)>
#sum = affine_map<(d0, d1) -> (d1)>
func.func private @reduced_first(%x: memref<10x16xf32>, %y: memref<16xf32>) {
  linalg.generic {indexing_maps = [#map, #sum], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<10x16xf32>) outs(%y : memref<16xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}
func.func private @small(%x: memref<2x16xf32>, %y: memref<2x16xf32>) {
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<2x16xf32>) outs(%y : memref<2x16xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  }
  return
}
func.func @public(%x: memref<10x16xf32>, %y: memref<10x16xf32>) {
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<10x16xf32>) outs(%y : memref<10x16xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  }
  return
}


// -----

// An outlined scf.forall (--mixprec-transpose-lane-blocks' blocks) becomes
// scf.for loops the same way; its work per outer iteration counts the ops
// of an inner scf.for once per iteration: (1 + 4 x 4 + 1) = 18, so chunks
// of 64 / 18 = 3 rows.

// CHECK-LABEL: func.func private @blocks(
// CHECK-SAME:      %[[X:.+]]: memref<10x4xf32>, %[[Y:.+]]: memref<10x4xf32>, %[[BEGIN:.+]]: index, %[[END:.+]]: index)
// CHECK-SAME:      mixprec.parallel_chunk = 3 : i64, mixprec.parallel_extent = 10 : i64
// CHECK:         scf.for %[[I:.+]] = %[[BEGIN]] to %[[END]] step %{{.+}} {
// CHECK:           scf.for %[[J:.+]] = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK:             memref.load %[[X]][%[[I]], %[[J]]]
// CHECK:             memref.store %{{.+}}, %[[Y]][%[[I]], %[[J]]]
// CHECK-NOT:     scf.forall
// CHECK-LABEL: func.func @blocks_host(
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[TEN:.+]] = arith.constant 10 : index
// CHECK:         call @blocks(%{{.+}}, %{{.+}}, %[[ZERO]], %[[TEN]])
func.func private @blocks(%x: memref<10x4xf32>, %y: memref<10x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.forall (%i) in (10) {
    scf.for %j = %c0 to %c4 step %c1 {
      %a = memref.load %x[%i, %j] : memref<10x4xf32>
      %s = arith.addf %a, %a : f32
      memref.store %s, %y[%i, %j] : memref<10x4xf32>
    }
  }
  return
}
func.func @blocks_host(%x: memref<10x4xf32>, %y: memref<10x4xf32>) {
  call @blocks(%x, %y) : (memref<10x4xf32>, memref<10x4xf32>) -> ()
  return
}
