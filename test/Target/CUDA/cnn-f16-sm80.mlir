// REQUIRES: cuda-toolkit
// The CNN's AMP train step in f16 for sm_80: the three forward products
// (two convolutions as implicit GEMMs, the classifier) and five backward
// ones (each layer's weight gradient; the input gradients of the classifier
// and the second convolution) are tensor-core kernels with ldmatrix and
// mma.sync, no other kernel uses either, and ptxas takes them all without
// spills. The train step runs the second convolution twice: its f32
// product, larger than its f16 operands, is recomputed for the batch
// norm's gradient rather than kept (--mixprec-rematerialize).
//
// RUN: mixprec-compile %mixprec_src_root/examples/cnn.mlir --target=cuda --arch=sm_80 --amp=precision=f16 --emit=ptx -o %t.ptx
// RUN: mixprec-compile %mixprec_src_root/examples/cnn.mlir --target=cuda --arch=sm_80 --amp=precision=f16 --emit=mlir -o %t.mlir
// RUN: %python %S/Inputs/check_kernels.py %t.ptx f16 %t.mlir | FileCheck %s
// RUN: %ptxas -arch=sm_80 -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// CHECK: loss: 3 tensor-core launches
// CHECK: train: 9 tensor-core launches

// PTXAS-NOT: error
// PTXAS: Compiling entry function '{{(loss|train)}}_gemm_0' for 'sm_80'
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill
