// RUN: mixprec-opt %s --mixprec-cpu-pipeline="vectorize=true library-contractions=false tile-m=8 tile-n=32 tile-k=1" | FileCheck %s
// RUN: mixprec-opt %s --mixprec-cpu-pipeline="vectorize=false" | FileCheck %s --check-prefix=LOOPS
// RUN: mixprec-opt %s --mixprec-cpu-pipeline | FileCheck %s --check-prefix=LIBRARY

// With `vectorize` and without library contractions the CPU pipeline turns
// a matmul into 8x32 register tiles whose k steps are broadcasts and vector
// FMAs (llvm.intr.fmuladd on vector<32xf32>), with no fast-math flag;
// without `vectorize` the matmul is scalar loops; by default it is one call
// of the runtime's mixprec_cpu_contract.

// LIBRARY-LABEL: llvm.func @matmul(
// LIBRARY-NOT:     llvm.intr.fmuladd
// LIBRARY:         llvm.call @mixprec_cpu_contract(%{{.+}}) : (!llvm.ptr) -> ()
// LIBRARY-NOT:     llvm.intr.fmuladd

// CHECK-LABEL: llvm.func @matmul(
// CHECK-COUNT-8: llvm.intr.fmuladd({{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// CHECK-NOT:     llvm.intr.fmuladd
// CHECK-NOT:     fastmath<{{.*(fast|nnan|ninf|reassoc|contract|afn|arcp)}}

// LOOPS-LABEL: llvm.func @matmul(
// LOOPS-NOT:     vector<
// LOOPS:         llvm.fmul %{{.+}}, %{{.+}} : f32
// LOOPS:         llvm.fadd %{{.+}}, %{{.+}} : f32
// LOOPS-NOT:     vector<
func.func @matmul(%a: tensor<16x8xf32>, %b: tensor<8x64xf32>) -> tensor<16x64xf32> {
  %0 = mixprec.matmul %a, %b : tensor<16x8xf32>, tensor<8x64xf32> -> tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}
