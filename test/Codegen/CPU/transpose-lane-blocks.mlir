// RUN: mixprec-opt %s -split-input-file --mixprec-transpose-lane-blocks | FileCheck %s

// A softmax's sum of exponentials, 16 rows as lanes: a forall over the
// batch; the sums are read before the loop over 16-column blocks and
// written after it; each block is read as 16 contiguous rows and
// transposed with 64 shuffles; then each column is added to the sums, one
// after the other, starting from the loop's accumulator.
// CHECK-LABEL: func.func @row_sums(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<2x16x64xf32>, [[M:%[^:]+]]: tensor<2x16xf32>, [[INIT:%[^:]+]]: tensor<2x16xf32>)
// CHECK:         scf.forall ([[B:%.+]]) in (2) shared_outs([[OUT:%.+]] = [[INIT]])
// CHECK:           [[SLICE:%.+]] = tensor.extract_slice [[OUT]][[[B]], 0] [1, 16]
// CHECK:           [[MAX:%.+]] = vector.transfer_read [[M]][[[B]], %{{.+}}], %{{.+}} {in_bounds = [true]} : tensor<2x16xf32>, vector<16xf32>
// CHECK:           [[SUMS:%.+]] = vector.transfer_read [[SLICE]]
// CHECK:           [[FINAL:%.+]] = scf.for [[K:%.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args([[ACC:%.+]] = [[SUMS]]) -> (vector<16xf32>) {
// CHECK-NEXT:        [[BLOCK:%.+]] = vector.transfer_read [[X]][[[B]], %{{.+}}, [[K]]], %{{.+}} {in_bounds = [true, true]} : tensor<2x16x64xf32>, vector<16x16xf32>
// CHECK-COUNT-16:    vector.extract [[BLOCK]][{{[0-9]+}}] : vector<16xf32> from vector<16x16xf32>
// CHECK-COUNT-64:    vector.shuffle
// CHECK-NEXT:        [[D0:%.+]] = arith.subf %{{.+}}, [[MAX]] : vector<16xf32>
// CHECK-NEXT:        [[E0:%.+]] = math.exp [[D0]] : vector<16xf32>
// CHECK-NEXT:        [[S0:%.+]] = arith.addf [[E0]], [[ACC]] : vector<16xf32>
// CHECK-NEXT:        [[D1:%.+]] = arith.subf %{{.+}}, [[MAX]] : vector<16xf32>
// CHECK-NEXT:        [[E1:%.+]] = math.exp [[D1]] : vector<16xf32>
// CHECK-NEXT:        [[S1:%.+]] = arith.addf [[E1]], [[S0]] : vector<16xf32>
// CHECK-COUNT-39:    {{arith.subf|math.exp|arith.addf}}
// CHECK-NEXT:        [[D15:%.+]] = arith.subf %{{.+}}, [[MAX]] : vector<16xf32>
// CHECK-NEXT:        [[E15:%.+]] = math.exp [[D15]] : vector<16xf32>
// CHECK-NEXT:        [[S15:%.+]] = arith.addf [[E15]], %{{.+}} : vector<16xf32>
// CHECK-NEXT:        scf.yield [[S15]] : vector<16xf32>
// CHECK:           [[WRITTEN:%.+]] = vector.transfer_write [[FINAL]], [[SLICE]]
// CHECK:           tensor.parallel_insert_slice [[WRITTEN]] into [[OUT]][[[B]], 0] [1, 16]
// CHECK-NOT:     linalg.generic
func.func @row_sums(%x: tensor<2x16x64xf32>, %m: tensor<2x16xf32>, %init: tensor<2x16xf32>) -> tensor<2x16xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(b, k, l) -> (b, l, k)>, affine_map<(b, k, l) -> (b, l)>, affine_map<(b, k, l) -> (b, l)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%x, %m : tensor<2x16x64xf32>, tensor<2x16xf32>) outs(%init : tensor<2x16xf32>) {
  ^bb0(%in: f32, %max: f32, %out: f32):
    %d = arith.subf %in, %max : f32
    %e = math.exp %d : f32
    %s = arith.addf %out, %e : f32
    linalg.yield %s : f32
  } -> tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}

// -----

// A column's offset (indexed by the reduced loop alone) is not
// transposed: row i of its block is its element i, splat.
// CHECK-LABEL: func.func @column_offsets(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<4x16x32xf32>, [[W:%[^:]+]]: tensor<32xf32>,
// CHECK:         scf.for [[K:%.+]] = {{.+}} iter_args([[ACC:%.+]] = {{%.+}}) -> (vector<16xf32>) {
// CHECK-COUNT-64:    vector.shuffle
// CHECK-NEXT:        [[WEIGHTS:%.+]] = vector.transfer_read [[W]][[[K]]], %{{.+}} {in_bounds = [true]} : tensor<32xf32>, vector<16xf32>
// CHECK-NEXT:        [[W0:%.+]] = vector.extract [[WEIGHTS]][0] : f32 from vector<16xf32>
// CHECK-NEXT:        [[SPLAT0:%.+]] = vector.broadcast [[W0]] : f32 to vector<16xf32>
// CHECK-NEXT:        [[P0:%.+]] = arith.subf %{{.+}}, [[SPLAT0]] : vector<16xf32>
// CHECK-NEXT:        arith.addf [[P0]], [[ACC]] : vector<16xf32>
// CHECK-NEXT:        [[W1:%.+]] = vector.extract [[WEIGHTS]][1] : f32 from vector<16xf32>
// CHECK-NOT:         vector.shuffle
// CHECK:             scf.yield
func.func @column_offsets(%x: tensor<4x16x32xf32>, %w: tensor<32xf32>, %init: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(b, k, l) -> (b, l, k)>, affine_map<(b, k, l) -> (k)>, affine_map<(b, k, l) -> (b, l)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%x, %w : tensor<4x16x32xf32>, tensor<32xf32>) outs(%init : tensor<4x16xf32>) {
  ^bb0(%in: f32, %wk: f32, %out: f32):
    %p = arith.subf %in, %wk : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// A row cut in chunks (--mixprec-parallel-reductions: a layer norm's 384 as
// 2 x 192) has the chunk between the lanes' dimension and the reduced one:
// the block is still read row by row, then transposed.
// CHECK: #[[ROWS:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
// CHECK-LABEL: func.func @chunked_rows(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<4x16x2x32xf32>,
// CHECK:         scf.forall ([[C:%.+]], [[B:%.+]]) in (2, 4)
// CHECK:           scf.for [[K:%[^ ]+]] = {{.+}} -> (vector<16xf32>) {
// CHECK-NEXT:        [[BLOCK:%.+]] = vector.transfer_read [[X]][[[B]], %{{.+}}, [[C]], [[K]]], %{{.+}} {in_bounds = [true, true], permutation_map = #[[ROWS]]} : tensor<4x16x2x32xf32>, vector<16x16xf32>
// CHECK-COUNT-16:    vector.extract [[BLOCK]][{{[0-9]+}}] : vector<16xf32> from vector<16x16xf32>
// CHECK-COUNT-64:    vector.shuffle
// CHECK-COUNT-16:    arith.addf
// CHECK-NEXT:        scf.yield
func.func @chunked_rows(%x: tensor<4x16x2x32xf32>, %init: tensor<2x4x16xf32>) -> tensor<2x4x16xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(c, b, k, l) -> (b, l, c, k)>, affine_map<(c, b, k, l) -> (c, b, l)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%x : tensor<4x16x2x32xf32>) outs(%init : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}

// -----

// Left as they are: a bf16 block (no 16x16 shuffle transpose for it), a
// reduced loop that is not a multiple of 16 long, 8 lanes, an operand
// whose contiguous dimension is the lanes' (LLVM vectorizes it with plain
// loads already), and a contraction's body (its products are added with
// fused multiply-adds, docs/design.md §4).
// CHECK-LABEL: func.func @left_alone(
// CHECK-NOT:     scf.forall
// CHECK-COUNT-5: linalg.generic
// CHECK-NOT:     scf.forall
func.func @left_alone(%h: tensor<2x16x64xbf16>, %odd: tensor<2x16x40xf32>, %narrow: tensor<2x8x64xf32>, %rows: tensor<2x64x16xf32>, %init: tensor<2x16xf32>, %init8: tensor<2x8xf32>, %y: tensor<2x16x64xf32>) -> (tensor<2x16xf32>, tensor<2x16xf32>, tensor<2x8xf32>, tensor<2x16xf32>, tensor<2x16xf32>) {
  %0 = linalg.generic {indexing_maps = [affine_map<(b, k, l) -> (b, l, k)>, affine_map<(b, k, l) -> (b, l)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%h : tensor<2x16x64xbf16>) outs(%init : tensor<2x16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %e = arith.extf %in : bf16 to f32
    %s = arith.addf %out, %e : f32
    linalg.yield %s : f32
  } -> tensor<2x16xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(b, k, l) -> (b, l, k)>, affine_map<(b, k, l) -> (b, l)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%odd : tensor<2x16x40xf32>) outs(%init : tensor<2x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<2x16xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(b, k, l) -> (b, l, k)>, affine_map<(b, k, l) -> (b, l)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%narrow : tensor<2x8x64xf32>) outs(%init8 : tensor<2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<2x8xf32>
  %3 = linalg.generic {indexing_maps = [affine_map<(b, k, l) -> (b, k, l)>, affine_map<(b, k, l) -> (b, l)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%rows : tensor<2x64x16xf32>) outs(%init : tensor<2x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<2x16xf32>
  %4 = linalg.generic {indexing_maps = [affine_map<(b, k, l) -> (b, l, k)>, affine_map<(b, k, l) -> (b, l, k)>, affine_map<(b, k, l) -> (b, l)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%y, %y : tensor<2x16x64xf32>, tensor<2x16x64xf32>) outs(%init : tensor<2x16xf32>) {
  ^bb0(%p: f32, %q: f32, %out: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x16xf32>
  return %0, %1, %2, %3, %4 : tensor<2x16xf32>, tensor<2x16xf32>, tensor<2x8xf32>, tensor<2x16xf32>, tensor<2x16xf32>
}
