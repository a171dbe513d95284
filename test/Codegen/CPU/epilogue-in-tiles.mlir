// RUN: mixprec-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(mixprec-tile-and-vectorize{tile-m=8 tile-n=32 tile-k=1},mixprec-epilogue-in-tiles))" | FileCheck %s
// RUN: mixprec-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(mixprec-tile-and-vectorize{tile-m=8 tile-n=32 tile-k=1 peel=false},mixprec-epilogue-in-tiles))" | FileCheck %s --check-prefix=MASK

// The elementwise op that reads a tiled contraction's f32 sums runs on each
// register tile right before the tile is written: the tiles start from the
// fill's value, the loops carry the epilogue's result, and no f32 tensor of
// the whole contraction is left.

// A bias broadcast over the rows, added and rounded to bf16 per 8x32 tile:
// the bias is read at the tile's columns, broadcast over its rows.
// CHECK-DAG:   #[[$ROWS:map[0-9]*]] = affine_map<(d0) -> (0, d0)>
// CHECK-LABEL: func.func @bias_bf16(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<16x8xf32>, %[[B:[^:]+]]: tensor<8x64xf32>, %[[BIAS:[^:]+]]: tensor<64xf32>)
// CHECK-DAG:     %[[ZERO:[^ ]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT:     linalg.fill
// CHECK:         %[[INIT:[^ ]+]] = tensor.empty() : tensor<16x64xbf16>
// CHECK-NOT:     linalg.fill
// CHECK:         %[[R:[^ ]+]] = scf.for %[[I:[^ ]+]] = {{.*}} iter_args(%[[T0:[^ ]+]] = %[[INIT]]) -> (tensor<16x64xbf16>) {
// CHECK:           scf.for %[[J:[^ ]+]] = {{.*}} iter_args(%[[T1:[^ ]+]] = %[[T0]]) -> (tensor<16x64xbf16>) {
// CHECK-NEXT:        %[[FILLED:[^ ]+]] = vector.broadcast %[[ZERO]] : f32 to vector<8x32xf32>
// CHECK-NEXT:        %[[SUM:[^ ]+]] = scf.for {{.*}} iter_args(%{{[^ ]+}} = %[[FILLED]]) -> (vector<8x32xf32>) {
// CHECK:               vector.contract
// CHECK:             }
// CHECK:             %[[BT:[^ ]+]] = vector.transfer_read %[[BIAS]][%[[J]]], %{{[^ ]+}} {in_bounds = [true, true], permutation_map = #[[$ROWS]]} : tensor<64xf32>, vector<8x32xf32>
// CHECK-NEXT:        %[[ADD:[^ ]+]] = arith.addf %[[SUM]], %[[BT]] : vector<8x32xf32>
// CHECK-NEXT:        %[[H:[^ ]+]] = arith.truncf %[[ADD]] : vector<8x32xf32> to vector<8x32xbf16>
// CHECK-NEXT:        %[[W:[^ ]+]] = vector.transfer_write %[[H]], %[[T1]][%[[I]], %[[J]]] {{.*}} : vector<8x32xbf16>, tensor<16x64xbf16>
// CHECK-NEXT:        scf.yield %[[W]] : tensor<16x64xbf16>
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[R]] : tensor<16x64xbf16>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
func.func @bias_bf16(%a: tensor<16x8xf32>, %b: tensor<8x64xf32>, %bias: tensor<64xf32>) -> tensor<16x64xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x64xf32>) outs(%acc : tensor<16x64xf32>) -> tensor<16x64xf32>
  %eh = tensor.empty() : tensor<16x64xbf16>
  %h = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r, %bias : tensor<16x64xf32>, tensor<64xf32>) outs(%eh : tensor<16x64xbf16>) {
  ^bb0(%s: f32, %c: f32, %o: bf16):
    %t = arith.addf %s, %c : f32
    %u = arith.truncf %t : f32 to bf16
    linalg.yield %u : bf16
  } -> tensor<16x64xbf16>
  return %h : tensor<16x64xbf16>
}

// -----

// 37 rows = 4 * 8 + 5: the epilogue runs on the full tiles in the loop and on
// the peeled 5-row tile after it. A residual read transposed (its map
// permutes the dims) is read through a transposing transfer_read, a per-row
// scale broadcast over the columns, and the body's constant is splat.
// CHECK-DAG:   #[[$T:map[0-9]*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG:   #[[$COLS:map[0-9]*]] = affine_map<(d0) -> (d0, 0)>
// CHECK-LABEL: func.func @peeled_transposed(
// CHECK-SAME:    %{{[^:]+}}: tensor<37x53xf16>, %{{[^:]+}}: tensor<53x29xf16>, %[[RES:[^:]+]]: tensor<29x37xf32>, %[[SCALE:[^:]+]]: tensor<37xf32>)
// CHECK-DAG:     %[[HALF:[^ ]+]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG:     %[[C0:[^ ]+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C32:[^ ]+]] = arith.constant 32 : index
// CHECK-NOT:     linalg.fill
// CHECK:         %[[MAIN:[^ ]+]] = scf.for %[[I:[^ ]+]] = {{.*}} iter_args(%[[T:[^ ]+]] = %{{[^ ]+}}) -> (tensor<37x29xbf16>) {
// CHECK:           %[[SUM:[^ ]+]] = scf.for {{.*}} -> (vector<8x29xf32>) {
// CHECK:           }
// CHECK-DAG:       %[[X:[^ ]+]] = vector.transfer_read %[[RES]][%[[C0]], %[[I]]], {{.*}}permutation_map = #[[$T]]} : tensor<29x37xf32>, vector<8x29xf32>
// CHECK-DAG:       %[[S:[^ ]+]] = vector.transfer_read %[[SCALE]][%[[I]]], {{.*}}permutation_map = #[[$COLS]]} : tensor<37xf32>, vector<8x29xf32>
// CHECK:           %[[M:[^ ]+]] = arith.mulf %[[SUM]], %[[S]] : vector<8x29xf32>
// CHECK-NEXT:      %[[ADD:[^ ]+]] = arith.addf %[[M]], %[[X]] : vector<8x29xf32>
// CHECK-NEXT:      %[[HALVES:[^ ]+]] = vector.broadcast %[[HALF]] : f32 to vector<8x29xf32>
// CHECK-NEXT:      %[[M2:[^ ]+]] = arith.mulf %[[ADD]], %[[HALVES]] : vector<8x29xf32>
// CHECK-NEXT:      %[[H:[^ ]+]] = arith.truncf %[[M2]] : vector<8x29xf32> to vector<8x29xbf16>
// CHECK-NEXT:      vector.transfer_write %[[H]], %[[T]][%[[I]], %[[C0]]] {{.*}} : vector<8x29xbf16>, tensor<37x29xbf16>
// CHECK:         }
// CHECK:         %[[SUM5:[^ ]+]] = scf.for {{.*}} -> (vector<5x29xf32>) {
// CHECK:         }
// CHECK-DAG:     %[[X5:[^ ]+]] = vector.transfer_read %[[RES]][%[[C0]], %[[C32]]], {{.*}}permutation_map = #[[$T]]} : tensor<29x37xf32>, vector<5x29xf32>
// CHECK-DAG:     %[[S5:[^ ]+]] = vector.transfer_read %[[SCALE]][%[[C32]]], {{.*}}permutation_map = #[[$COLS]]} : tensor<37xf32>, vector<5x29xf32>
// CHECK:         arith.mulf %[[SUM5]], %[[S5]] : vector<5x29xf32>
// CHECK:         %[[H5:[^ ]+]] = arith.truncf %{{[^ ]+}} : vector<5x29xf32> to vector<5x29xbf16>
// CHECK-NEXT:    %[[W5:[^ ]+]] = vector.transfer_write %[[H5]], %[[MAIN]][%[[C32]], %[[C0]]] {{.*}} : vector<5x29xbf16>, tensor<37x29xbf16>
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[W5]] : tensor<37x29xbf16>
#id = affine_map<(i, j) -> (i, j)>
#t = affine_map<(i, j) -> (j, i)>
#col = affine_map<(i, j) -> (i)>
func.func @peeled_transposed(%a: tensor<37x53xf16>, %b: tensor<53x29xf16>, %res: tensor<29x37xf32>, %scale: tensor<37xf32>) -> tensor<37x29xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<37x29xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<37x29xf32>) -> tensor<37x29xf32>
  %r = linalg.matmul ins(%a, %b : tensor<37x53xf16>, tensor<53x29xf16>) outs(%acc : tensor<37x29xf32>) -> tensor<37x29xf32>
  %eh = tensor.empty() : tensor<37x29xbf16>
  %h = linalg.generic {indexing_maps = [#id, #t, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r, %res, %scale : tensor<37x29xf32>, tensor<29x37xf32>, tensor<37xf32>) outs(%eh : tensor<37x29xbf16>) {
  ^bb0(%s: f32, %x: f32, %c: f32, %o: bf16):
    %half = arith.constant 0.5 : f32
    %t0 = arith.mulf %s, %c : f32
    %t1 = arith.addf %t0, %x : f32
    %t2 = arith.mulf %t1, %half : f32
    %u = arith.truncf %t2 : f32 to bf16
    linalg.yield %u : bf16
  } -> tensor<37x29xbf16>
  return %h : tensor<37x29xbf16>
}

// -----

// batch_matmul: the batch dim is not in the 8x32 tile. A per-batch scale is
// read at the tile's batch index and broadcast over the whole tile.
// CHECK-DAG:   #[[$ALL:map[0-9]*]] = affine_map<(d0) -> (0, 0)>
// CHECK-LABEL: func.func @batch_scale(
// CHECK-SAME:    %{{[^:]+}}: tensor<3x8x4xf32>, %{{[^:]+}}: tensor<3x4x32xf32>, %[[SCALE:[^:]+]]: tensor<3xf32>)
// CHECK-DAG:     %[[C0:[^ ]+]] = arith.constant 0 : index
// CHECK-NOT:     linalg.fill
// CHECK:         scf.for %[[BI:[^ ]+]] = {{.*}} iter_args(%[[T:[^ ]+]] = %{{[^ ]+}}) -> (tensor<3x8x32xbf16>) {
// CHECK:           %[[SUM:[^ ]+]] = scf.for {{.*}} -> (vector<8x32xf32>) {
// CHECK:           }
// CHECK:           %[[S:[^ ]+]] = vector.transfer_read %[[SCALE]][%[[BI]]], {{.*}}permutation_map = #[[$ALL]]} : tensor<3xf32>, vector<8x32xf32>
// CHECK-NEXT:      %[[M:[^ ]+]] = arith.mulf %[[SUM]], %[[S]] : vector<8x32xf32>
// CHECK-NEXT:      %[[H:[^ ]+]] = arith.truncf %[[M]] : vector<8x32xf32> to vector<8x32xbf16>
// CHECK-NEXT:      vector.transfer_write %[[H]], %[[T]][%[[BI]], %[[C0]], %[[C0]]] {{.*}} : vector<8x32xbf16>, tensor<3x8x32xbf16>
// CHECK-NOT:     linalg.generic
// CHECK:         return
#id3 = affine_map<(b, i, j) -> (b, i, j)>
#batch = affine_map<(b, i, j) -> (b)>
func.func @batch_scale(%a: tensor<3x8x4xf32>, %b: tensor<3x4x32xf32>, %s: tensor<3xf32>) -> tensor<3x8x32xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x8x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<3x8x32xf32>) -> tensor<3x8x32xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<3x8x4xf32>, tensor<3x4x32xf32>) outs(%acc : tensor<3x8x32xf32>) -> tensor<3x8x32xf32>
  %eh = tensor.empty() : tensor<3x8x32xbf16>
  %h = linalg.generic {indexing_maps = [#id3, #batch, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r, %s : tensor<3x8x32xf32>, tensor<3xf32>) outs(%eh : tensor<3x8x32xbf16>) {
  ^bb0(%v: f32, %c: f32, %o: bf16):
    %m = arith.mulf %v, %c : f32
    %u = arith.truncf %m : f32 to bf16
    linalg.yield %u : bf16
  } -> tensor<3x8x32xbf16>
  return %h : tensor<3x8x32xbf16>
}

// -----

// The f32 sums are also returned: they must be held whole, so the epilogue
// stays a linalg.generic reading them and the tiles stay f32.
// CHECK-LABEL: func.func @sums_returned(
// CHECK:         %[[FILL:[^ ]+]] = linalg.fill
// CHECK:         %[[R:[^ ]+]] = scf.for {{.*}} iter_args(%{{[^ ]+}} = %[[FILL]]) -> (tensor<16x32xf32>) {
// CHECK:           vector.transfer_read
// CHECK-NOT:       arith.truncf
// CHECK:           vector.transfer_write {{.*}} : vector<8x32xf32>, tensor<16x32xf32>
// CHECK:         }
// CHECK:         %[[H:[^ ]+]] = linalg.generic {{.*}} ins(%[[R]] : tensor<16x32xf32>)
// CHECK:           arith.truncf %{{[^ ]+}} : f32 to bf16
// CHECK:         return %[[H]], %[[R]]
#id = affine_map<(i, j) -> (i, j)>
func.func @sums_returned(%a: tensor<16x8xf32>, %b: tensor<8x32xf32>) -> (tensor<16x32xbf16>, tensor<16x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x32xf32>) outs(%acc : tensor<16x32xf32>) -> tensor<16x32xf32>
  %eh = tensor.empty() : tensor<16x32xbf16>
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<16x32xf32>) outs(%eh : tensor<16x32xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %u = arith.truncf %v : f32 to bf16
    linalg.yield %u : bf16
  } -> tensor<16x32xbf16>
  return %h, %r : tensor<16x32xbf16>, tensor<16x32xf32>
}

// -----

// A scalar the epilogue captures is computed after the contraction's fill
// (after its loops): it could not be read inside the tiles. Left alone.
// CHECK-LABEL: func.func @scalar_after_fill(
// CHECK-SAME:    %{{[^:]+}}: tensor<16x8xf32>, %{{[^:]+}}: tensor<8x32xf32>, %[[X:[^:]+]]: f32)
// CHECK:         linalg.fill
// CHECK:         %[[R:[^ ]+]] = scf.for {{.*}} -> (tensor<16x32xf32>) {
// CHECK-NOT:       arith.mulf {{.*}} : vector<8x32xf32>
// CHECK:           vector.transfer_write {{.*}} : vector<8x32xf32>, tensor<16x32xf32>
// CHECK:         }
// CHECK:         %[[S:[^ ]+]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK:         linalg.generic {{.*}} ins(%[[R]] : tensor<16x32xf32>)
// CHECK:           arith.mulf %{{[^ ]+}}, %[[S]] : f32
#id = affine_map<(i, j) -> (i, j)>
func.func @scalar_after_fill(%a: tensor<16x8xf32>, %b: tensor<8x32xf32>, %x: f32) -> tensor<16x32xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x32xf32>) outs(%acc : tensor<16x32xf32>) -> tensor<16x32xf32>
  %s = arith.mulf %x, %x : f32
  %eh = tensor.empty() : tensor<16x32xbf16>
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<16x32xf32>) outs(%eh : tensor<16x32xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %m = arith.mulf %v, %s : f32
    %u = arith.truncf %m : f32 to bf16
    linalg.yield %u : bf16
  } -> tensor<16x32xbf16>
  return %h : tensor<16x32xbf16>
}

// -----

// Another input of the epilogue is produced after the fill: left alone.
// CHECK-LABEL: func.func @input_after_fill(
// CHECK:         linalg.fill
// CHECK:         %[[R:[^ ]+]] = scf.for {{.*}} -> (tensor<16x32xf32>) {
// CHECK-NOT:       arith.addf {{.*}} : vector<8x32xf32>
// CHECK:           vector.transfer_write {{.*}} : vector<8x32xf32>, tensor<16x32xf32>
// CHECK:         }
// CHECK:         %[[N:[^ ]+]] = linalg.generic
// CHECK:           arith.negf
// CHECK:         linalg.generic {{.*}} ins(%[[R]], %[[N]] : tensor<16x32xf32>, tensor<16x32xf32>)
// CHECK:           arith.addf
#id = affine_map<(i, j) -> (i, j)>
func.func @input_after_fill(%a: tensor<16x8xf32>, %b: tensor<8x32xf32>, %y: tensor<16x32xf32>) -> tensor<16x32xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x32xf32>) outs(%acc : tensor<16x32xf32>) -> tensor<16x32xf32>
  %en = tensor.empty() : tensor<16x32xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<16x32xf32>) outs(%en : tensor<16x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.negf %v : f32
    linalg.yield %m : f32
  } -> tensor<16x32xf32>
  %eh = tensor.empty() : tensor<16x32xbf16>
  %h = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r, %n : tensor<16x32xf32>, tensor<16x32xf32>) outs(%eh : tensor<16x32xbf16>) {
  ^bb0(%v: f32, %w: f32, %o: bf16):
    %m = arith.addf %v, %w : f32
    %u = arith.truncf %m : f32 to bf16
    linalg.yield %u : bf16
  } -> tensor<16x32xbf16>
  return %h : tensor<16x32xbf16>
}

// -----

// 13 rows = 8 + 5. Peeled (CHECK), both tiles are static and take the
// epilogue. Masked (MASK, peel=false), the tiles are slices written through
// masks: not the shape the pass moves an epilogue into, so it is left alone.
// CHECK-LABEL: func.func @remainder(
// CHECK-NOT:     linalg.fill
// CHECK:         arith.truncf %{{[^ ]+}} : vector<8x32xf32> to vector<8x32xbf16>
// CHECK:         arith.truncf %{{[^ ]+}} : vector<5x32xf32> to vector<5x32xbf16>
// CHECK-NOT:     linalg.generic
// CHECK:         return

// MASK-LABEL: func.func @remainder(
// MASK:         linalg.fill
// MASK:         %[[R:[^ ]+]] = scf.for {{.*}} -> (tensor<13x32xf32>) {
// MASK:           vector.create_mask
// MASK-NOT:       arith.truncf
// MASK:         }
// MASK:         linalg.generic {{.*}} ins(%[[R]] : tensor<13x32xf32>)
// MASK:           arith.truncf %{{[^ ]+}} : f32 to bf16
#id = affine_map<(i, j) -> (i, j)>
func.func @remainder(%a: tensor<13x8xf32>, %b: tensor<8x32xf32>) -> tensor<13x32xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<13x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<13x32xf32>) -> tensor<13x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<13x8xf32>, tensor<8x32xf32>) outs(%acc : tensor<13x32xf32>) -> tensor<13x32xf32>
  %eh = tensor.empty() : tensor<13x32xbf16>
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<13x32xf32>) outs(%eh : tensor<13x32xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %u = arith.truncf %v : f32 to bf16
    linalg.yield %u : bf16
  } -> tensor<13x32xbf16>
  return %h : tensor<13x32xbf16>
}

// -----

// An epilogue that writes its result transposed stays a whole-tensor op:
// tiles are written where the sums are.
// CHECK-LABEL: func.func @transposed_output(
// CHECK:         linalg.generic
// CHECK-SAME:      outs(%{{.*}} : tensor<16x16xbf16>)
// MASK-LABEL:  func.func @transposed_output(
func.func @transposed_output(%a: tensor<16x8xf32>, %b: tensor<8x16xf32>) -> tensor<16x16xbf16> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x16xf32>) outs(%acc : tensor<16x16xf32>) -> tensor<16x16xf32>
  %eh = tensor.empty() : tensor<16x16xbf16>
  %h = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j, i)>], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<16x16xf32>) outs(%eh : tensor<16x16xbf16>) {
  ^bb0(%s: f32, %o: bf16):
    %u = arith.truncf %s : f32 to bf16
    linalg.yield %u : bf16
  } -> tensor<16x16xbf16>
  return %h : tensor<16x16xbf16>
}

// -----

// An epilogue inside another region (what it reads there is not defined
// where the tiles are) stays where it is.
// CHECK-LABEL: func.func @in_a_region(
// CHECK:         scf.if
// CHECK:           arith.mulf
// CHECK:           linalg.generic
// MASK-LABEL:  func.func @in_a_region(
func.func @in_a_region(%a: tensor<16x8xf32>, %b: tensor<8x32xf32>, %c: i1, %x: f32) -> tensor<16x32xbf16> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x32xf32>) outs(%acc : tensor<16x32xf32>) -> tensor<16x32xf32>
  %eh = tensor.empty() : tensor<16x32xbf16>
  %h = scf.if %c -> tensor<16x32xbf16> {
    %s = arith.mulf %x, %x : f32
    %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
        ins(%r : tensor<16x32xf32>) outs(%eh : tensor<16x32xbf16>) {
    ^bb0(%v: f32, %o: bf16):
      %m = arith.mulf %v, %s : f32
      %u = arith.truncf %m : f32 to bf16
      linalg.yield %u : bf16
    } -> tensor<16x32xbf16>
    scf.yield %g : tensor<16x32xbf16>
  } else {
    scf.yield %eh : tensor<16x32xbf16>
  }
  return %h : tensor<16x32xbf16>
}

// -----

// An i1 mask stays with the whole-tensor op: a vector of i1 is bit-packed
// in memory, a buffer of i1 holds a byte per element.
// CHECK-LABEL: func.func @masked(
// CHECK:         scf.for
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%{{.*}}, %{{.*}} : tensor<16x32xi1>, tensor<16x32xf32>)
// MASK-LABEL:  func.func @masked(
func.func @masked(%a: tensor<16x8xf32>, %b: tensor<8x32xf32>, %keep: tensor<16x32xi1>) -> tensor<16x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x32xf32>) outs(%acc : tensor<16x32xf32>) -> tensor<16x32xf32>
  %h = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%keep, %r : tensor<16x32xi1>, tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%k: i1, %s: f32, %o: f32):
    %inf = arith.constant 0xFF800000 : f32
    %u = arith.select %k, %s, %inf : f32
    linalg.yield %u : f32
  } -> tensor<16x32xf32>
  return %h : tensor<16x32xf32>
}
