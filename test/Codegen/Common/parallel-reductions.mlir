// RUN: mixprec-opt %s --mixprec-parallel-reductions=parallel-outermost -split-input-file | FileCheck %s
// RUN: mixprec-opt %s --mixprec-parallel-reductions -split-input-file | FileCheck %s --check-prefix=CPU
// RUN: mixprec-opt %s --mixprec-parallel-reductions="max-serial=2048 parallel-outermost" -split-input-file | FileCheck %s --check-prefix=LONG
// RUN: not mixprec-opt %s --mixprec-parallel-reductions=max-serial=0 -split-input-file 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: max-serial must be at least 1

// A sum of 1024 elements: 4 chunks of 256 summed in parallel from the
// neutral element, then the 4 partial sums in order into the original
// accumulator. The input is viewed in chunks, not copied.
// CHECK-LABEL: func.func @sum
// CHECK-SAME: (%[[X:.*]]: tensor<1024xf32>, %[[INIT:.*]]: tensor<f32>)
// CHECK: %[[CHUNKS:.*]] = tensor.expand_shape %[[X]] {{\[}}[0, 1]] output_shape [4, 256]
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[START:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK: %[[PARTIAL:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[CHUNKS]] : tensor<4x256xf32>) outs(%[[START]] : tensor<4xf32>)
// CHECK: arith.addf
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["reduction"]} ins(%[[PARTIAL]] : tensor<4xf32>) outs(%[[INIT]] : tensor<f32>)
// CHECK-NEXT: ^bb0(%[[P:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[NEXT:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[NEXT]]
// CHECK: return %[[SUM]]
// Below max-serial nothing changes.
// LONG-LABEL: func.func @sum
// LONG-NOT: expand_shape
// LONG: linalg.generic {{.*}}iterator_types = ["reduction"]} ins(%{{.*}} : tensor<1024xf32>)
// LONG-NOT: linalg.generic
// LONG: return
// The CPU cuts the same chunks.
// CPU-LABEL: func.func @sum
// CPU: tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [4, 256]
#id1 = affine_map<(d0) -> (d0)>
#scalar1 = affine_map<(d0) -> ()>
func.func @sum(%x: tensor<1024xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [#id1, #scalar1], iterator_types = ["reduction"]} ins(%x : tensor<1024xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// A bias gradient reduces the batch, its outer dimension: the loops are
// interchanged so that the features are the parallel loop outside (one
// thread per feature, not one thread for all), and 64 rows stay whole.
// CHECK: #[[$TRANSPOSED:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @bias_gradient
// CHECK: linalg.generic {indexing_maps = [#[[$TRANSPOSED]], #{{.*}}], iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<64x128xf16>) outs(%{{.*}} : tensor<128xf32>)
// CHECK-NOT: linalg.generic
// CHECK: return
// Without parallel-outermost (the CPU) the loops keep their order.
// CPU-LABEL: func.func @bias_gradient
// CPU: linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]}
func.func @bias_gradient(%g: tensor<64x128xf16>, %init: tensor<128xf32>) -> tensor<128xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%g : tensor<64x128xf16>) outs(%init : tensor<128xf32>) {
  ^bb0(%in: f16, %out: f32):
    %e = arith.extf %in : f16 to f32
    %s = arith.addf %out, %e : f32
    linalg.yield %s : f32
  } -> tensor<128xf32>
  return %r : tensor<128xf32>
}

// -----

// Batch-norm statistics: 2048 elements per channel. The batch (the
// outermost reduced dimension) is cut into the fewest chunks that leave at
// most 256 each: 8 of 4 rows; the channel and the chunk are parallel.
// CHECK-LABEL: func.func @channel_statistics
// CHECK: %[[CHUNKS:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2], [3], [4]] output_shape [8, 4, 8, 8, 8]
// CHECK: %[[PARTIAL:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[CHUNKS]] : tensor<8x4x8x8x8xf32>) outs(%{{.*}} : tensor<8x8xf32>)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[PARTIAL]] : tensor<8x8xf32>) outs(%{{.*}} : tensor<8xf32>)
func.func @channel_statistics(%x: tensor<32x8x8x8xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%x : tensor<32x8x8x8xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// The all-finite check of a 3x300 tensor (a conjunction, neutral element
// true): 3 rows are too few chunks, so each row is one (the dimension
// becomes parallel) and, 300 still being too many, each row is cut in 2;
// two combinations follow, in order.
// CHECK-LABEL: func.func @all_finite
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: %[[ROWS:.*]] = linalg.fill ins(%[[TRUE]] : i1) outs(%{{.*}} : tensor<3xi1>)
// CHECK: %[[HALVES:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [3, 2, 150]
// CHECK: %[[PARTIAL:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[HALVES]] : tensor<3x2x150xf32>) outs(%{{.*}} : tensor<2x3xi1>)
// CHECK: arith.andi
// CHECK: %[[PER_ROW:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[PARTIAL]] : tensor<2x3xi1>) outs(%[[ROWS]] : tensor<3xi1>)
// CHECK: arith.andi
// CHECK: %[[ALL:.*]] = linalg.generic {{.*}}iterator_types = ["reduction"]} ins(%[[PER_ROW]] : tensor<3xi1>) outs(%{{.*}} : tensor<i1>)
// CHECK: arith.andi
// CHECK: return %[[ALL]]
func.func @all_finite(%x: tensor<3x300xf32>, %init: tensor<i1>) -> tensor<i1> {
  %inf = arith.constant 0x7F800000 : f32
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%x : tensor<3x300xf32>) outs(%init : tensor<i1>) {
  ^bb0(%in: f32, %out: i1):
    %a = math.absf %in : f32
    %c = arith.cmpf olt, %a, %inf : f32
    %n = arith.andi %out, %c : i1
    linalg.yield %n : i1
  } -> tensor<i1>
  return %r : tensor<i1>
}

// -----

// A prime length alone cannot be cut: left whole, not cut without end.
// Twice a prime is cut into as many chunks as it divides into (2 of 1031).
// CHECK-LABEL: func.func @prime_length
// CHECK-NOT: expand_shape
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction"]} ins(%{{.*}} : tensor<1031xf32>)
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @twice_a_prime
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [1031, 2]
// CHECK: linalg.generic {{.*}}ins(%{{.*}} : tensor<1031x2xf32>) outs(%{{.*}} : tensor<1031xf32>)
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction"]} ins(%{{.*}} : tensor<1031xf32>)
#id1 = affine_map<(d0) -> (d0)>
#scalar1 = affine_map<(d0) -> ()>
func.func @prime_length(%x: tensor<1031xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [#id1, #scalar1], iterator_types = ["reduction"]} ins(%x : tensor<1031xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

func.func @twice_a_prime(%x: tensor<2062xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [#id1, #scalar1], iterator_types = ["reduction"]} ins(%x : tensor<2062xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// Left alone: a reduction whose update is a select (no combiner with a
// neutral element: the index check's first failure), and a contraction
// (the tensor-core GEMM's).
// CHECK-LABEL: func.func @first_failure
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction"]} ins(%{{.*}} : tensor<1024xi32>)
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @contraction
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<4x512xf16>, tensor<512x4xf16>)
// CHECK-NOT: linalg.generic
#id1 = affine_map<(d0) -> (d0)>
#scalar1 = affine_map<(d0) -> ()>
func.func @first_failure(%x: tensor<1024xi32>, %init: tensor<i64>) -> tensor<i64> {
  %r = linalg.generic {indexing_maps = [#id1, #scalar1], iterator_types = ["reduction"]} ins(%x : tensor<1024xi32>) outs(%init : tensor<i64>) {
  ^bb0(%in: i32, %out: i64):
    %z = arith.constant 0 : i32
    %bad = arith.cmpi slt, %in, %z : i32
    %v = arith.extsi %in : i32 to i64
    %s = arith.select %bad, %v, %out : i64
    linalg.yield %s : i64
  } -> tensor<i64>
  return %r : tensor<i64>
}

func.func @contraction(%a: tensor<4x512xf16>, %b: tensor<512x4xf16>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<4x512xf16>, tensor<512x4xf16>) outs(%c : tensor<4x4xf32>) {
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %xe = arith.extf %x : f16 to f32
    %ye = arith.extf %y : f16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
