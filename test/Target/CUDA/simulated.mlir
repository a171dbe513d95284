// REQUIRES: cuda-toolkit, gpusim
// A CUDA library run by the GPU simulator: its fatbin keeps the PTX text
// (uncompressed, so the simulator can read it), mixprec-run calls it with
// MIXPREC_LIBCUDA naming the simulator, and the outputs are the CPU's.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: mixprec-compile %s --target=cuda --arch=sm_90 -o %t/libcuda.so
// RUN: mixprec-compile %s -o %t/libcpu.so
// RUN: llvm-strings %t/libcuda.so | FileCheck %s --check-prefix=PTX
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.array([1.5, -2.0, 3.25, 1e30, 0.0, -0.0, 7.0, 1.0e-40], np.float32)); np.save('%t/y.npy', np.array([2.0, 0.5, -3.0, 7.0, -1.0, 2.0, 1.0/3, 2.0], np.float32))"
// RUN: env MIXPREC_LIBCUDA=%gpusim mixprec-run %t/libcuda.so mul_add -i %t/x.npy -i %t/y.npy -o %t/cuda.npy
// RUN: mixprec-run %t/libcpu.so mul_add -i %t/x.npy -i %t/y.npy -o %t/cpu.npy
// RUN: %python -c "import numpy as np; x, y = np.load('%t/x.npy'), np.load('%t/y.npy'); a, b = np.load('%t/cuda.npy'), np.load('%t/cpu.npy'); print(a.tobytes() == b.tobytes(), np.array_equal(a, x * y + x), a[7] != 0)" | FileCheck %s --check-prefix=SAME
//
// Without a driver the library says so; a library that is not a driver is
// refused by name.
// RUN: env MIXPREC_LIBCUDA=%t/missing.so not mixprec-run %t/libcuda.so mul_add -i %t/x.npy -i %t/y.npy -o %t/z.npy 2>&1 | FileCheck %s --check-prefix=MISSING

// PTX: .version 8.0
// PTX: .target sm_90
// PTX: .entry mul_add_kernel

// x * y + x in f32, each rounded (as numpy rounds), bit for bit the CPU's;
// the subnormal 1e-40 is not flushed to zero.
// SAME: True True True

// MISSING: no CUDA driver on this machine: cannot load {{.*}}missing.so

func.func @mul_add(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %m = mixprec.mul %x, %y : tensor<8xf32>, tensor<8xf32>
  %z = mixprec.add %m, %x : tensor<8xf32>, tensor<8xf32>
  return %z : tensor<8xf32>
}
