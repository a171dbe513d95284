// REQUIRES: cuda-toolkit
// The precisions the other tests leave out: the MLP and the CNN in bf16,
// the transformer in f16 (for sm_90, and sm_80 for the CNN). Every GEMM
// kernel has ldmatrix and the mma.sync of its precision, no other kernel
// has either (Inputs/check_kernels.py), and ptxas takes all of them without
// spills.
//
// RUN: mixprec-compile %mixprec_src_root/examples/mlp.mlir --target=cuda --arch=sm_90 --amp=precision=bf16 --emit=ptx -o %t.mlp.ptx
// RUN: mixprec-compile %mixprec_src_root/examples/mlp.mlir --target=cuda --arch=sm_90 --amp=precision=bf16 --emit=mlir -o %t.mlp.mlir
// RUN: %python %S/Inputs/check_kernels.py %t.mlp.ptx bf16 %t.mlp.mlir | FileCheck %s --check-prefix=MLP
// RUN: %ptxas -arch=sm_90 -v %t.mlp.ptx -o %t.mlp.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: mixprec-compile %mixprec_src_root/examples/cnn.mlir --target=cuda --arch=sm_80 --amp=precision=bf16 --emit=ptx -o %t.cnn.ptx
// RUN: mixprec-compile %mixprec_src_root/examples/cnn.mlir --target=cuda --arch=sm_80 --amp=precision=bf16 --emit=mlir -o %t.cnn.mlir
// RUN: %python %S/Inputs/check_kernels.py %t.cnn.ptx bf16 %t.cnn.mlir | FileCheck %s --check-prefix=CNN
// RUN: %ptxas -arch=sm_80 -v %t.cnn.ptx -o %t.cnn.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: mixprec-compile %mixprec_src_root/examples/transformer.mlir --target=cuda --arch=sm_90 --amp=precision=f16 --emit=ptx -o %t.transformer.ptx
// RUN: mixprec-compile %mixprec_src_root/examples/transformer.mlir --target=cuda --arch=sm_90 --amp=precision=f16 --emit=mlir -o %t.transformer.mlir
// RUN: %python %S/Inputs/check_kernels.py %t.transformer.ptx f16 %t.transformer.mlir | FileCheck %s --check-prefix=TRANSFORMER
// RUN: %ptxas -arch=sm_90 -v %t.transformer.ptx -o %t.transformer.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// And sm_90a (the arch-specific Hopper target; mma.sync too for now):
// RUN: mixprec-compile %mixprec_src_root/examples/mlp.mlir --target=cuda --arch=sm_90a --amp=precision=f16 --emit=ptx -o %t.mlp90a.ptx
// RUN: mixprec-compile %mixprec_src_root/examples/mlp.mlir --target=cuda --arch=sm_90a --amp=precision=f16 --emit=mlir -o %t.mlp90a.mlir
// RUN: %python %S/Inputs/check_kernels.py %t.mlp90a.ptx f16 %t.mlp90a.mlir | FileCheck %s --check-prefix=MLP
// RUN: FileCheck %s --check-prefix=SM90A --input-file %t.mlp90a.ptx
// RUN: %ptxas -arch=sm_90a -v %t.mlp90a.ptx -o %t.mlp90a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// SM90A: .target sm_90a
// MLP: train: 5 tensor-core launches
// CNN: train: 9 tensor-core launches
// TRANSFORMER: train: 27 tensor-core launches

// PTXAS-NOT: error
// PTXAS: Compiling entry function '{{(loss|train)}}_gemm_0'
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill
