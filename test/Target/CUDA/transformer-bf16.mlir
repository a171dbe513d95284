// REQUIRES: cuda-toolkit
// The transformer block's AMP train step in bf16 for sm_90: nine products
// forward (q, k, v, scores, context, output projection, two MLP layers,
// the head) and two per product backward are tensor-core kernels with
// ldmatrix and mma.sync on bf16; ptxas takes every kernel without spills.
//
// RUN: mixprec-compile %mixprec_src_root/examples/transformer.mlir --target=cuda --arch=sm_90 --amp=precision=bf16 --emit=ptx -o %t.ptx
// RUN: mixprec-compile %mixprec_src_root/examples/transformer.mlir --target=cuda --arch=sm_90 --amp=precision=bf16 --emit=mlir -o %t.mlir
// RUN: %python %S/Inputs/check_kernels.py %t.ptx bf16 %t.mlir | FileCheck %s
// RUN: %ptxas -arch=sm_90 -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=NUMERICS --input-file %t.ptx

// CHECK: loss: 9 tensor-core launches
// CHECK: train: 27 tensor-core launches

// PTXAS-NOT: error
// PTXAS: Compiling entry function '{{(loss|train)}}_gemm_0' for 'sm_90'
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill

// Square roots (layer norm, Adam) round correctly, as on the CPU.
// NUMERICS-NOT: sqrt.approx
// NUMERICS: sqrt.rn.f32
// NUMERICS-NOT: sqrt.approx
