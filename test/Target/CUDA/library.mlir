// REQUIRES: cuda-toolkit
// A CUDA model library for two architectures: ptxas builds a cubin per
// --arch, fatbinary bundles them, and the library needs nothing at run time
// but libc and libm (no libMLIR, no libLLVM, no libcuda: the driver is
// opened with dlopen when the first function runs).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: mixprec-compile %mixprec_src_root/examples/mlp.mlir --target=cuda --arch=sm_80,sm_90 --amp=precision=bf16 -o %t/libmlp.so
// RUN: llvm-readelf -d %t/libmlp.so | FileCheck %s --check-prefix=NEEDED
// RUN: llvm-nm -D --defined-only %t/libmlp.so | FileCheck %s --check-prefix=ABI
// RUN: FileCheck %s --check-prefix=HEADER --input-file %t/libmlp.h
//
// Options are checked before any work is done, each with its reason.
// RUN: not mixprec-compile %s --target=cuda -o %t/x.so 2>&1 | FileCheck %s --check-prefix=NO-ARCH
// RUN: not mixprec-compile %s --target=cuda --arch=sm_75 -o %t/x.so 2>&1 | FileCheck %s --check-prefix=BAD-ARCH
// RUN: not mixprec-compile %s --target=cuda --arch=sm_80,sm_90 --emit=ptx -o %t/x.ptx 2>&1 | FileCheck %s --check-prefix=PTX-ARCHS
// RUN: not mixprec-compile %s --arch=sm_90 -o %t/x.so 2>&1 | FileCheck %s --check-prefix=CPU-ARCH
// RUN: not mixprec-compile %s --target=rocm -o %t/x.so 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not mixprec-compile %s --target=cuda --arch=sm_90 --cuda-path=%t/no-toolkit -o %t/x.so 2>&1 | FileCheck %s --check-prefix=TOOLKIT

// NEEDED: Shared library: [libm.so.6]
// NEEDED-NOT: LLVM
// NEEDED-NOT: MLIR
// NEEDED-NOT: libcuda
// NEEDED-NOT: libstdc++

// ABI: mixprec_call
// ABI: mixprec_trainer_step

// HEADER: static inline mixprec_status mixprec_train(

// NO-ARCH: mixprec-compile: error: --target=cuda needs --arch: sm_80, sm_90 or sm_90a
// BAD-ARCH: mixprec-compile: error: unknown --arch 'sm_75' (expected sm_80, sm_90 or sm_90a)
// PTX-ARCHS: mixprec-compile: error: --emit=ptx needs --target=cuda and one --arch
// CPU-ARCH: mixprec-compile: error: --arch applies to --target=cuda only
// TARGET: mixprec-compile: error: unknown --target 'rocm' (expected cpu or cuda)
// TOOLKIT: error: cannot find ptxas at {{.*}}no-toolkit/bin/ptxas (the CUDA toolkit; set --cuda-path)

func.func @double(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = mixprec.add %x, %x : tensor<4xf32>, tensor<4xf32>
  return %y : tensor<4xf32>
}
