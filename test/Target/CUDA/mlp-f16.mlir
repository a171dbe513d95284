// REQUIRES: cuda-toolkit
// The digits MLP's AMP train step in f16 for sm_90: its five matrix
// products (two forward, two weight gradients, one input gradient; the
// input's gradient is never needed) are tensor-core kernels, and ptxas
// takes every kernel without spills.
//
// RUN: mixprec-compile %mixprec_src_root/examples/mlp.mlir --target=cuda --arch=sm_90 --amp=precision=f16 --emit=ptx -o %t.ptx
// RUN: FileCheck %s --input-file %t.ptx
// RUN: %ptxas -arch=sm_90 -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=NUMERICS --input-file %t.ptx
//
// No contraction of the step is left to the elementwise path:
// RUN: mixprec-opt %mixprec_src_root/examples/mlp.mlir --pass-pipeline='builtin.module(mixprec-amp{precision=f16},mixprec-expose-state,convert-mixprec-to-linalg,canonicalize,func.func(mixprec-distinct-results),one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},mixprec-gpu-tensor-core-gemm)' | FileCheck %s --check-prefix=LINALG

// Each distinct kernel is in the PTX once, named after the first function
// that launches it; the train step launches all five GEMMs, which the
// forward and gradient functions share. What the step's other launches
// are: elementwise and reduction kernels (long reductions in chunks,
// --mixprec-parallel-reductions), and one-thread kernels for the scalar
// code between them (the loss scaler; the selects that keep the state on
// an index failure, --mixprec-guard-state-updates), each gathering the
// scalar code up to the next loop nest, and none for scalars only the next
// kernel reads (--mixprec-gpu-map-to-kernels). Kernels that can run
// together share a launch (--mixprec-gpu-merge-kernels), and each
// optimizer update computes the guarded new values of its state in one
// kernel (--mixprec-fuse-elementwise).
// RUN: mixprec-compile %mixprec_src_root/examples/mlp.mlir --target=cuda --arch=sm_90 --amp=precision=f16 --emit=mlir -o %t.mlir
// RUN: %python %S/Inputs/check_kernels.py %t.ptx f16 %t.mlir | FileCheck %s --check-prefix=LAUNCHES
// LAUNCHES: loss: 2 tensor-core launches, 5 other launches
// LAUNCHES: train: 5 tensor-core launches, 15 other launches
// LAUNCHES: train_gradients: 5 tensor-core launches
// LAUNCHES: distinct: 5 tensor-core kernels

// CHECK: .target sm_90
// CHECK-LABEL: .entry loss_gemm_0(
// The batch and the weight are contiguous along K: 16-byte copies.
// CHECK: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{.*}};
// CHECK: cp.async.commit_group;
// CHECK: cp.async.wait_group 2;
// CHECK: ldmatrix.sync.aligned.m8n8.x4{{(.trans)?}}.shared.b16
// CHECK: ldmatrix.sync.aligned.m8n8.x2{{(.trans)?}}.shared.b16
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-LABEL: .entry loss_gemm_1(
// CHECK: ldmatrix.sync.aligned.m8n8.x4{{(.trans)?}}.shared.b16
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-LABEL: .entry train_gradients_gemm_2(
// CHECK: ldmatrix.sync.aligned.m8n8.x4{{(.trans)?}}.shared.b16
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-LABEL: .entry train_gradients_gemm_3(
// CHECK: ldmatrix.sync.aligned.m8n8.x4{{(.trans)?}}.shared.b16
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-LABEL: .entry train_gradients_gemm_4(
// CHECK: ldmatrix.sync.aligned.m8n8.x4{{(.trans)?}}.shared.b16
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-NOT: _gemm_{{[0-9]+}}(
// Elementwise kernels, the unscale, the finiteness check and the update:
// CHECK-LABEL: .entry loss_kernel_0(
// CHECK-NOT: mma.sync

// No arithmetic flushes subnormals to zero (FP16 subnormals carry small
// gradients; docs/design.md §4). libdevice's expf range-reduces before its
// ex2.approx.ftz, so that one is exact for every input that matters.
// NUMERICS-NOT: {{(add|sub|mul|fma|div|max|min|cvt|setp|neg|abs)[.a-z0-9]*\.ftz}}

// PTXAS-NOT: error
// PTXAS: Compiling entry function 'loss_gemm_0' for 'sm_90'
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill

// LINALG-LABEL: func.func @train(
// LINALG-COUNT-5: gpu.launch_func @kernels::@train_gemm_
// LINALG-NOT: linalg.matmul
// LINALG: return
