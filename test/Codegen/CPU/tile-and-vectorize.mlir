// RUN: mixprec-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(mixprec-tile-and-vectorize{tile-m=8 tile-n=32 tile-k=1}))" | FileCheck %s
// RUN: mixprec-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(mixprec-tile-and-vectorize{tile-m=8 tile-n=32 tile-k=4 peel=false}))" | FileCheck %s --check-prefix=MASK
// RUN: mixprec-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(mixprec-tile-and-vectorize{tile-m=8 tile-n=32 tile-k=1 widen-limit=0}))" | FileCheck %s --check-prefix=REGS

// Contractions on tensors become scf.for loops over (batch, m, n, k) register
// tiles: one vector.contract per k step, the accumulator tile read before the
// k loop and written after it (it stays in registers). Partial tiles are
// peeled: every tile has a static shape (the MASK prefix: without peeling,
// the partial tiles are masked instead). 16-bit inputs are widened once to f32, exactly,
// and a transposed RHS is copied into a layout with n innermost.

// CHECK-LABEL: func.func @matmul_f32(
// CHECK-SAME:    [[A:%[^:]+]]: tensor<16x8xf32>, [[B:%[^:]+]]: tensor<8x64xf32>)
// CHECK-DAG:     [[C0:%[^ ,)]+]] = arith.constant 0 : index
// CHECK-DAG:     [[C1:%[^ ,)]+]] = arith.constant 1 : index
// CHECK-DAG:     [[C8:%[^ ,)]+]] = arith.constant 8 : index
// CHECK-DAG:     [[C16:%[^ ,)]+]] = arith.constant 16 : index
// CHECK-DAG:     [[C32:%[^ ,)]+]] = arith.constant 32 : index
// CHECK-DAG:     [[C64:%[^ ,)]+]] = arith.constant 64 : index
// CHECK:         [[FILL:%[^ ,)]+]] = linalg.fill
// CHECK:         scf.for [[I:%[^ ,)]+]] = [[C0]] to [[C16]] step [[C8]] iter_args([[T0:%[^ ,)]+]] = [[FILL]]) -> (tensor<16x64xf32>) {
// CHECK:           scf.for [[J:%[^ ,)]+]] = [[C0]] to [[C64]] step [[C32]] iter_args([[T1:%[^ ,)]+]] = [[T0]]) -> (tensor<16x64xf32>) {
// CHECK:             [[ACC:%[^ ,)]+]] = vector.transfer_read [[T1]][[[I]], [[J]]], {{.*}} : tensor<16x64xf32>, vector<8x32xf32>
// CHECK:             [[SUM:%[^ ,)]+]] = scf.for [[K:%[^ ,)]+]] = [[C0]] to [[C8]] step [[C1]] iter_args([[V:%[^ ,)]+]] = [[ACC]]) -> (vector<8x32xf32>) {
// CHECK:               [[X:%[^ ,)]+]] = vector.transfer_read [[A]][[[I]], [[K]]], {{.*}} : tensor<16x8xf32>, vector<8x1xf32>
// CHECK:               [[Y:%[^ ,)]+]] = vector.transfer_read [[B]][[[K]], [[J]]], {{.*}} : tensor<8x64xf32>, vector<32xf32>
// CHECK:               [[YB:%[^ ,)]+]] = vector.broadcast [[Y]] : vector<32xf32> to vector<1x32xf32>
// CHECK:               [[P:%[^ ,)]+]] = vector.contract {{.*}}iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} [[X]], [[YB]], [[V]] : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK:               scf.yield [[P]] : vector<8x32xf32>
// CHECK:             }
// CHECK:             vector.transfer_write [[SUM]], [[T1]][[[I]], [[J]]] {{.*}} : vector<8x32xf32>, tensor<16x64xf32>
// CHECK-NOT:     linalg.matmul
// CHECK-NOT:     vector.mask

// Divisible by the tiles: no masks either way.
// MASK-LABEL: func.func @matmul_f32(
// MASK-NOT:     vector.create_mask
// MASK:         vector.contract {{.*}} : vector<8x4xf32>, vector<4x32xf32> into vector<8x32xf32>
// MASK-NOT:     vector.create_mask
// MASK:         return
func.func @matmul_f32(%a: tensor<16x8xf32>, %b: tensor<8x64xf32>) -> tensor<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x64xf32>) outs(%acc : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}

// -----

// 37x53x29 with f16 inputs: the inputs are widened once (arith.extf, exact);
// the n dim (29 < 32) is not tiled; the m dim (37 = 4 * 8 + 5) runs four full
// 8-row tiles and one peeled 5-row tile, both static: no masks.
// CHECK-LABEL: func.func @matmul_f16_odd(
// CHECK-SAME:    [[A:%[^:]+]]: tensor<37x53xf16>, [[B:%[^:]+]]: tensor<53x29xf16>)
// CHECK-DAG:     [[C0:%[^ ,)]+]] = arith.constant 0 : index
// CHECK-DAG:     [[C8:%[^ ,)]+]] = arith.constant 8 : index
// CHECK-DAG:     [[C32:%[^ ,)]+]] = arith.constant 32 : index
// CHECK-DAG:     [[C53:%[^ ,)]+]] = arith.constant 53 : index
// CHECK:         [[AW:%[^ ,)]+]] = linalg.generic {{.*}} ins([[A]] : tensor<37x53xf16>) outs(%{{.+}} : tensor<37x53xf32>)
// CHECK:           arith.extf %{{.+}} : f16 to f32
// CHECK:         [[BW:%[^ ,)]+]] = linalg.generic {{.*}} ins([[B]] : tensor<53x29xf16>) outs(%{{.+}} : tensor<53x29xf32>)
// CHECK:           arith.extf %{{.+}} : f16 to f32
// CHECK:         [[MAIN:%[^ ,)]+]] = scf.for [[I:%[^ ,)]+]] = [[C0]] to [[C32]] step [[C8]] iter_args({{.*}}) -> (tensor<37x29xf32>) {
// CHECK:           scf.for {{.*}} = [[C0]] to [[C53]] {{.*}} -> (vector<8x29xf32>) {
// CHECK:             vector.transfer_read [[AW]]{{.*}} : tensor<37x53xf32>, vector<8x1xf32>
// CHECK:             vector.transfer_read [[BW]]{{.*}} : tensor<53x29xf32>, vector<29xf32>
// CHECK:             vector.contract {{.*}} : vector<8x1xf32>, vector<1x29xf32> into vector<8x29xf32>
// CHECK:         vector.transfer_read [[MAIN]][[[C32]], [[C0]]], {{.*}} : tensor<37x29xf32>, vector<5x29xf32>
// CHECK:         scf.for {{.*}} = [[C0]] to [[C53]] {{.*}} -> (vector<5x29xf32>) {
// CHECK:           vector.transfer_read [[AW]][[[C32]], {{.*}} : tensor<37x53xf32>, vector<5x1xf32>
// CHECK:           vector.contract {{.*}} : vector<5x1xf32>, vector<1x29xf32> into vector<5x29xf32>
// CHECK:         vector.transfer_write {{.*}} : vector<5x29xf32>, tensor<37x29xf32>
// CHECK-NOT:     vector.mask
// CHECK-NOT:     vector.create_mask
// CHECK:         return

// Without peeling, the last m tile and the last k tile (53 = 13 * 4 + 1) are
// masked at the tile sizes.
// MASK-LABEL: func.func @matmul_f16_odd(
// MASK:         scf.for
// MASK:           [[ROWS:%[^ ,)]+]] = affine.min
// MASK:           vector.create_mask [[ROWS]], %{{.+}} : vector<8x29xi1>
// MASK:           scf.for
// MASK:             [[KS:%[^ ,)]+]] = affine.min
// MASK:             vector.create_mask [[ROWS]], [[KS]] : vector<8x4xi1>
// MASK:             vector.mask %{{.+}} { vector.multi_reduction <add>, {{.*}} : vector<8x29x4xf32> to vector<8x29xf32> }
// Inputs whose f32 copies would pass widen-limit are read as they are and
// widened in registers, each loaded tile once, before the contract.
// REGS-LABEL: func.func @matmul_f16_odd(
// REGS-SAME:    [[A:%[^:]+]]: tensor<37x53xf16>, [[B:%[^:]+]]: tensor<53x29xf16>)
// REGS-NOT:     linalg.generic
// REGS:         scf.for
// REGS:           scf.for
// REGS:             [[LA:%[^ ]+]] = vector.transfer_read [[A]]{{.*}} : tensor<37x53xf16>, vector<8x1xf16>
// REGS:             [[LB:%[^ ]+]] = vector.transfer_read [[B]]{{.*}} : tensor<53x29xf16>, vector<29xf16>
// REGS:             [[WA:%[^ ]+]] = arith.extf [[LA]] : vector<8x1xf16> to vector<8x1xf32>
// REGS:             [[WB:%[^ ]+]] = arith.extf [[LB]] : vector<29xf16> to vector<29xf32>
// REGS:             vector.contract {{.*}} [[WA]], {{.*}} : vector<8x1xf32>, vector<1x29xf32> into vector<8x29xf32>
func.func @matmul_f16_odd(%a: tensor<37x53xf16>, %b: tensor<53x29xf16>) -> tensor<37x29xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<37x29xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<37x29xf32>) -> tensor<37x29xf32>
  %r = linalg.matmul ins(%a, %b : tensor<37x53xf16>, tensor<53x29xf16>) outs(%acc : tensor<37x29xf32>) -> tensor<37x29xf32>
  return %r : tensor<37x29xf32>
}

// -----

// n = 70 = 2 * 32 + 6: two full column tiles and a peeled 6-column tile.
// CHECK-LABEL: func.func @matmul_odd_n(
// CHECK-DAG:     [[C64:%[^ ,)]+]] = arith.constant 64 : index
// CHECK:         scf.for
// CHECK:           scf.for {{.*}} to [[C64]] step
// CHECK:             vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK:           vector.transfer_read %{{.+}}[%{{.+}}, [[C64]]], {{.*}} : tensor<16x70xf32>, vector<8x6xf32>
// CHECK:           scf.for
// CHECK:             vector.contract {{.*}} : vector<8x1xf32>, vector<1x6xf32> into vector<8x6xf32>
func.func @matmul_odd_n(%a: tensor<16x4xf32>, %b: tensor<4x70xf32>) -> tensor<16x70xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x70xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<16x70xf32>) -> tensor<16x70xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x4xf32>, tensor<4x70xf32>) outs(%acc : tensor<16x70xf32>) -> tensor<16x70xf32>
  return %r : tensor<16x70xf32>
}

// -----

// A generic contraction as mixprec.linear produces it (bf16 inputs widened in
// the body, the weight read transposed): the weight is copied once,
// transposed and widened, so each k step loads a contiguous row of it.
// CHECK-DAG:   #[[$ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[$T:map[0-9]*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @linear_bf16(
// CHECK-SAME:    [[X:%[^:]+]]: tensor<16x8xbf16>, [[W:%[^:]+]]: tensor<32x8xbf16>)
// CHECK:         [[XW:%[^ ,)]+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]]{{.*}} ins([[X]] : tensor<16x8xbf16>) outs(%{{.+}} : tensor<16x8xf32>)
// CHECK:           arith.extf %{{.+}} : bf16 to f32
// CHECK:         [[WT:%[^ ,)]+]] = linalg.generic {indexing_maps = [#[[$T]], #[[$ID]]]{{.*}} ins([[W]] : tensor<32x8xbf16>) outs(%{{.+}} : tensor<8x32xf32>)
// CHECK:           arith.extf %{{.+}} : bf16 to f32
// CHECK:         scf.for
// CHECK:           scf.for [[K:%[^ ,)]+]] =
// CHECK:             vector.transfer_read [[XW]]{{.*}} : tensor<16x8xf32>, vector<8x1xf32>
// CHECK:             vector.transfer_read [[WT]][[[K]], %{{.+}}], {{.*}} : tensor<8x32xf32>, vector<32xf32>
// CHECK:             vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK-NOT:     linalg.generic
// CHECK:         return
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs_t = affine_map<(m, n, k) -> (n, k)>
#out = affine_map<(m, n, k) -> (m, n)>
func.func @linear_bf16(%x: tensor<16x8xbf16>, %w: tensor<32x8xbf16>) -> tensor<16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r = linalg.generic {indexing_maps = [#lhs, #rhs_t, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<16x8xbf16>, tensor<32x8xbf16>) outs(%acc : tensor<16x32xf32>) {
  ^bb0(%a: bf16, %b: bf16, %c: f32):
    %aw = arith.extf %a : bf16 to f32
    %bw = arith.extf %b : bf16 to f32
    %p = arith.mulf %aw, %bw : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

// -----

// batch_matmul: the batch dim is tiled by 1 and leaves the vectors.
// CHECK-LABEL: func.func @batch_matmul(
// CHECK-SAME:    [[A:%[^:]+]]: tensor<3x8x4xf32>, [[B:%[^:]+]]: tensor<3x4x32xf32>, [[C:%[^:]+]]: tensor<3x8x32xf32>)
// CHECK-DAG:     [[C1:%[^ ,)]+]] = arith.constant 1 : index
// CHECK-DAG:     [[C3:%[^ ,)]+]] = arith.constant 3 : index
// CHECK:         scf.for [[BI:%[^ ,)]+]] = %{{.+}} to [[C3]] step [[C1]] iter_args({{.*}} = [[C]])
// CHECK:           vector.transfer_read {{.*}}[[[BI]], {{.*}} : tensor<3x8x32xf32>, vector<8x32xf32>
// CHECK:           scf.for
// CHECK:             vector.transfer_read [[A]][[[BI]], {{.*}} : tensor<3x8x4xf32>, vector<8x1xf32>
// CHECK:             vector.transfer_read [[B]][[[BI]], {{.*}} : tensor<3x4x32xf32>, vector<32xf32>
// CHECK:             vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK-NOT:     linalg.batch_matmul
func.func @batch_matmul(%a: tensor<3x8x4xf32>, %b: tensor<3x4x32xf32>, %acc: tensor<3x8x32xf32>) -> tensor<3x8x32xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<3x8x4xf32>, tensor<3x4x32xf32>) outs(%acc : tensor<3x8x32xf32>) -> tensor<3x8x32xf32>
  return %r : tensor<3x8x32xf32>
}

// -----

// Not what linalg.contract computes (out - a * b): left alone.
// CHECK-LABEL: func.func @not_a_contraction(
// CHECK:         linalg.generic
// CHECK:           arith.subf
// CHECK-NOT:     vector.contract
#map = affine_map<(m, n, k) -> (m, k)>
#map1 = affine_map<(m, n, k) -> (k, n)>
#map2 = affine_map<(m, n, k) -> (m, n)>
func.func @not_a_contraction(%a: tensor<8x4xf32>, %b: tensor<4x32xf32>, %acc: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %r = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<8x4xf32>, tensor<4x32xf32>) outs(%acc : tensor<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %c: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.subf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}

// -----

// Dynamic shapes are left to the loop lowering.
// CHECK-LABEL: func.func @dynamic(
// CHECK:         linalg.matmul
// CHECK-NOT:     vector.contract
func.func @dynamic(%a: tensor<?x8xf32>, %b: tensor<8x32xf32>, %acc: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x8xf32>, tensor<8x32xf32>) outs(%acc : tensor<?x32xf32>) -> tensor<?x32xf32>
  return %r : tensor<?x32xf32>
}

// -----

// A dot product into a 0-d tensor (no m or n dim) would need a 0-d vector
// accumulator, which vector.contract rejects: left to the loop lowering.
// CHECK-LABEL: func.func @dot_to_scalar(
// CHECK:         linalg.generic
// CHECK-NOT:     vector.contract
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> ()>
func.func @dot_to_scalar(%a: tensor<13x37xf32>, %b: tensor<13x37xf32>, %acc: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [#map, #map, #map1], iterator_types = ["reduction", "reduction"]}
      ins(%a, %b : tensor<13x37xf32>, tensor<13x37xf32>) outs(%acc : tensor<f32>) {
  ^bb0(%x: f32, %y: f32, %c: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}
