// RUN: mixprec-opt %s --mixprec-gpu-tensor-core-gemm -split-input-file | FileCheck %s

// An odd shape: one 64x64 tile covers 37x29 in 2 K steps (53 rounded up to
// 32-deep steps), loaded element by element (53 and 29 are not multiples
// of 8) into three stages, with zeros past 53. The first two steps load
// before the loop, each later one two steps ahead.
// CHECK-LABEL: func.func @matmul_f16
// CHECK-SAME: (%[[A:.*]]: memref<37x53xf16>, %[[B:.*]]: memref<53x29xf16>, %[[C:.*]]: memref<37x29xf32>)
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : index
// CHECK: gpu.launch_func @kernels::@matmul_f16_gemm_0 blocks in (%[[C1]], %{{.*}}, %{{.*}}) threads in (%[[C128]], %{{.*}}, %{{.*}}) args(%[[A]] : memref<37x53xf16>, %[[B]] : memref<53x29xf16>, %[[C]] : memref<37x29xf32>)
// CHECK-NOT: linalg.matmul
// CHECK: gpu.module @kernels
// CHECK: gpu.func @matmul_f16_gemm_0(%[[KA:.*]]: memref<37x53xf16>, %[[KB:.*]]: memref<53x29xf16>, %[[KC:.*]]: memref<37x29xf32>)
// CHECK-SAME: workgroup(%[[SA:.*]] : memref<3x64x32xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[SB:.*]] : memref<3x64x32xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-SAME: kernel attributes {known_block_size = array<i32: 128, 1, 1>}
// CHECK-DAG: %[[C53:.*]] = arith.constant 53 : index
// CHECK-DAG: %[[STEPS:.*]] = arith.constant 2 : index
// CHECK: arith.cmpi ult, %{{.*}}, %[[C53]]
// CHECK: memref.load %[[KA]]
// CHECK: memref.store %{{.*}}, %[[SA]]
// CHECK: memref.load %[[KB]]
// CHECK: memref.store %{{.*}}, %[[SB]]
// CHECK-NOT: nvgpu.device_async_copy
// CHECK-NOT: nvvm.cp.async
// CHECK: scf.for %[[STEP:.*]] = %{{.*}} to %[[STEPS]] step %{{.*}} iter_args
// CHECK: %[[AHEAD:.*]] = arith.addi %[[STEP]], %[[STEPS]]
// CHECK: %[[LATER:.*]] = arith.cmpi ult, %[[AHEAD]], %[[STEPS]]
// CHECK: scf.if %[[LATER]]
// CHECK: gpu.barrier
// CHECK: nvgpu.ldmatrix %[[SA]]{{.*}} {numTiles = 4 : i32, transpose = false} : memref<3x64x32xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: nvgpu.ldmatrix %[[SB]]{{.*}} {numTiles = 2 : i32, transpose = false} : memref<3x64x32xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-COUNT-15: nvvm.mma.sync
// CHECK: gpu.barrier
// Epilogue: each accumulator element is added to the output once, masked.
// CHECK: scf.if
// CHECK: %[[OLD:.*]] = memref.load %[[KC]]
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]]
// CHECK: memref.store %[[NEW]], %[[KC]]
// CHECK: gpu.return
func.func @matmul_f16(%a: memref<37x53xf16>, %b: memref<53x29xf16>, %c: memref<37x29xf32>) {
  linalg.matmul ins(%a, %b : memref<37x53xf16>, memref<53x29xf16>) outs(%c : memref<37x29xf32>)
  return
}

// -----

// Aligned row-major operands: A is contiguous along K, B along N, so both
// go in 16-byte cp.async copies (zero-filled past the rows), A stored
// [rows][K], B [K][rows] and read with ldmatrix.trans; the copies of each
// step are one group, and each step waits for all but the two newest. The
// output was just filled with zeros: the kernel writes its sums and the
// fill goes.
// CHECK-LABEL: func.func @aligned
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch_func @kernels::@aligned_gemm_0
// CHECK: gpu.func @aligned_gemm_0(%[[KA:.*]]: memref<72x64xf16>, %[[KB:.*]]: memref<64x48xf16>, %[[KC:.*]]: memref<72x48xf32>)
// CHECK-SAME: workgroup(%[[SA:.*]] : memref<3x64x32xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[SB:.*]] : memref<3x32x64xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: %[[READ:.*]] = arith.select %{{.*}}, %c8, %c0 : index
// CHECK: nvgpu.device_async_copy %[[KA]][{{.*}}], %[[SA]][{{.*}}], 8, %[[READ]] {bypassL1} : memref<72x64xf16> to memref<3x64x32xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_copy %[[KB]][{{.*}}], %[[SB]][{{.*}}], 8, %{{.*}} {bypassL1} : memref<64x48xf16> to memref<3x32x64xf16, #gpu.address_space<workgroup>>
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.for
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 2
// CHECK-NEXT: gpu.barrier
// CHECK: nvgpu.ldmatrix %[[SA]]{{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK: nvgpu.ldmatrix %[[SB]]{{.*}} {numTiles = 2 : i32, transpose = true}
// CHECK: nvvm.mma.sync
// Epilogue: the sums are written, not added.
// CHECK: scf.if
// CHECK-NOT: memref.load %[[KC]]
// CHECK: memref.store %{{.*}}, %[[KC]]
// CHECK-NOT: memref.load %[[KC]]
// CHECK: gpu.return
func.func @aligned(%a: memref<72x64xf16>, %b: memref<64x48xf16>, %c: memref<72x48xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<72x48xf32>)
  linalg.matmul ins(%a, %b : memref<72x64xf16>, memref<64x48xf16>) outs(%c : memref<72x48xf32>)
  return
}

// -----

// A fill of another value, or one whose buffer is read before the
// contraction, stays: the kernel adds its sums.
// CHECK-LABEL: func.func @kept_fills
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[ONES:.*]] : memref<8x8xf32>)
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[ZEROS:.*]] : memref<8x8xf32>)
// CHECK: memref.copy %[[ZEROS]]
// CHECK: gpu.launch_func @kernels::@kept_fills_gemm_0
// CHECK: gpu.launch_func @kernels::@kept_fills_gemm_1
// CHECK: gpu.func @kept_fills_gemm_0
// CHECK: memref.load
// CHECK: arith.addf
// CHECK: gpu.func @kept_fills_gemm_1
// CHECK: memref.load
// CHECK: arith.addf
func.func @kept_fills(%h: memref<8x8xf16>, %ones: memref<8x8xf32>, %zeros: memref<8x8xf32>, %copy: memref<8x8xf32>) {
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%one : f32) outs(%ones : memref<8x8xf32>)
  linalg.fill ins(%zero : f32) outs(%zeros : memref<8x8xf32>)
  memref.copy %zeros, %copy : memref<8x8xf32> to memref<8x8xf32>
  linalg.matmul ins(%h, %h : memref<8x8xf16>, memref<8x8xf16>) outs(%ones : memref<8x8xf32>)
  linalg.matmul ins(%h, %h : memref<8x8xf16>, memref<8x8xf16>) outs(%zeros : memref<8x8xf32>)
  return
}

// -----

// bf16 fragments go to mma as i32 registers; 130x70 needs 3x2 tiles and the
// batch of 5 is grid z.
// CHECK-LABEL: func.func @batch_matmul_bf16
// CHECK-DAG: %[[C6:.*]] = arith.constant 6 : index
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK: gpu.launch_func @kernels::@batch_matmul_bf16_gemm_0 blocks in (%[[C6]], %{{.*}}, %[[C5]])
// CHECK: gpu.func @batch_matmul_bf16_gemm_0
// CHECK-SAME: memref<3x64x32xbf16, #gpu.address_space<workgroup>>
// CHECK: gpu.block_id z
// CHECK: nvgpu.ldmatrix {{.*}} -> vector<4x2xbf16>
// CHECK: vector.bitcast %{{.*}} : vector<2xbf16> to vector<1xi32>
// CHECK: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>{{.*}} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
func.func @batch_matmul_bf16(%a: memref<5x130x40xbf16>, %b: memref<5x40x70xbf16>, %c: memref<5x130x70xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<5x130x40xbf16>, memref<5x40x70xbf16>) outs(%c : memref<5x130x70xf32>)
  return
}

// -----

// A convolution is an implicit GEMM: M = n*oh*ow = 2*6*6 = 72 (2 tiles),
// N = f = 8, K = c*kh*kw = 3*3*3; the input is read at (oh + kh, ow + kw).
// CHECK-LABEL: func.func @conv
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK: gpu.launch_func @kernels::@conv_gemm_0 blocks in (%[[C2]],
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// CHECK: gpu.func @conv_gemm_0
// CHECK: nvvm.mma.sync
func.func @conv(%x: memref<2x3x8x8xf16>, %w: memref<8x3x3x3xf16>, %y: memref<2x8x6x6xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<2x3x8x8xf16>, memref<8x3x3x3xf16>) outs(%y : memref<2x8x6x6xf32>)
  return
}

// -----

// The weight gradient of a linear layer reads both operands transposed
// (k = batch rows is the outer dim of both): A is contiguous along M, so
// its tiles are copied in 16-byte pieces, stored [K][M] and read with
// ldmatrix.trans; B is contiguous along N but 24 columns of 16-byte pieces
// need N a multiple of 8: it is.
#lhs = affine_map<(m, n, k) -> (k, m)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @transposed_generic
// CHECK: gpu.launch_func @kernels::@transposed_generic_gemm_0
// CHECK: gpu.func @transposed_generic_gemm_0(%[[KA:.*]]: memref<64x16xf16>, %[[KB:.*]]: memref<64x24xf16>, %[[KC:.*]]: memref<16x24xf32>)
// CHECK-SAME: workgroup(%{{.*}} : memref<3x32x64xf16, #gpu.address_space<workgroup>> {{.*}}, %{{.*}} : memref<3x32x64xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_copy %[[KA]]
// CHECK: nvgpu.device_async_copy %[[KB]]
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 2 : i32, transpose = true}
// CHECK: nvvm.mma.sync
// CHECK: %[[OLD:.*]] = memref.load %[[KC]]
// CHECK: %[[SUM:.*]] = arith.addf %[[OLD]]
// CHECK: memref.store %[[SUM]], %[[KC]]
func.func @transposed_generic(%a: memref<64x16xf16>, %b: memref<64x24xf16>, %c: memref<16x24xf32>) {
  linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x16xf16>, memref<64x24xf16>) outs(%c : memref<16x24xf32>) {
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %xw = arith.extf %x : f16 to f32
    %yw = arith.extf %y : f16 to f32
    %p = arith.mulf %xw, %yw : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Not tensor-core work: f32 inputs, mixed input types, a body that is not a
// multiply-accumulate, an empty output, a 16-bit accumulator (it rounds at
// every step; the kernel would round once), a reduction loop the output is
// indexed by, and a contraction inside a loop stay linalg ops (they become
// loops, or nothing).
#map = affine_map<(m, n, k) -> (m, k)>
#map1 = affine_map<(m, n, k) -> (k, n)>
#map2 = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: gpu.launch_func
// CHECK: linalg.matmul ins({{.*}} : memref<8x8xf32>, memref<8x8xf32>)
// CHECK: linalg.matmul ins({{.*}} : memref<8x8xf16>, memref<8x8xbf16>)
// CHECK: linalg.generic
// CHECK: arith.maximumf
// CHECK: linalg.matmul ins({{.*}} : memref<0x8xf16>, memref<8x8xf16>)
// CHECK: linalg.matmul ins({{.*}} : memref<8x8xf16>, memref<8x8xf16>) outs({{.*}} : memref<8x8xf16>)
// CHECK: linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "reduction"]}
// CHECK: scf.for
// CHECK-NEXT: linalg.matmul
// CHECK-NOT: gpu.module
#row = affine_map<(m, k) -> (m, k)>
#col = affine_map<(m, k) -> (k)>
func.func @left_alone(%a: memref<8x8xf32>, %h: memref<8x8xf16>, %bf: memref<8x8xbf16>, %c: memref<8x8xf32>, %e: memref<0x8xf16>, %ec: memref<0x8xf32>, %hc: memref<8x8xf16>, %v: memref<8xf16>) {
  linalg.matmul ins(%a, %a : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
  linalg.matmul ins(%h, %bf : memref<8x8xf16>, memref<8x8xbf16>) outs(%c : memref<8x8xf32>)
  linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%h, %h : memref<8x8xf16>, memref<8x8xf16>) outs(%c : memref<8x8xf32>) {
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %p = arith.mulf %x, %y : f16
    %w = arith.extf %p : f16 to f32
    %s = arith.maximumf %acc, %w : f32
    linalg.yield %s : f32
  }
  linalg.matmul ins(%e, %h : memref<0x8xf16>, memref<8x8xf16>) outs(%ec : memref<0x8xf32>)
  linalg.matmul ins(%h, %h : memref<8x8xf16>, memref<8x8xf16>) outs(%hc : memref<8x8xf16>)
  linalg.generic {indexing_maps = [#row, #col, #row], iterator_types = ["parallel", "reduction"]}
      ins(%h, %v : memref<8x8xf16>, memref<8xf16>) outs(%c : memref<8x8xf32>) {
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %xw = arith.extf %x : f16 to f32
    %yw = arith.extf %y : f16 to f32
    %p = arith.mulf %xw, %yw : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.for %i = %c0 to %c2 step %c1 {
    linalg.matmul ins(%h, %h : memref<8x8xf16>, memref<8x8xf16>) outs(%c : memref<8x8xf32>)
  }
  return
}
