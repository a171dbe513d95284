// RUN: mixprec-opt %s --mixprec-cpu-pipeline | FileCheck %s
// RUN: mixprec-opt %s --mixprec-cpu-pipeline="expand-math=false" | FileCheck %s --check-prefix=LIBM

// By default f32 exp and erf leave the CPU pipeline as arithmetic with LLVM
// FMAs and no libm call, and a maximum as LLVM's intrinsic (the pass runs
// before arith-expand-ops, which would make it selects); with
// expand-math=false exp and erf call libm's expf and erff and the maximum
// is selects. tanh calls libm either way.

// CHECK-LABEL: llvm.func @f_loops_0(
// CHECK-NOT:     llvm.call @expf
// CHECK-NOT:     llvm.call @erff
// CHECK:         llvm.intr.fma
// CHECK:         llvm.call @tanhf
// CHECK:         llvm.intr.maximum

// LIBM-LABEL: llvm.func @f_loops_0(
// LIBM-NOT:     llvm.intr.fma
// LIBM-DAG:     llvm.call @expf
// LIBM-DAG:     llvm.call @erff
// LIBM-DAG:     llvm.call @tanhf
// LIBM-NOT:     llvm.intr.maximum
#id = affine_map<(d0) -> (d0)>
func.func @f(%x: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
    ^bb0(%a: f32, %o: f32):
      %p = math.exp %a : f32
      %q = math.erf %p : f32
      %r = math.tanh %q : f32
      %m = arith.maximumf %r, %a : f32
      linalg.yield %m : f32
  } -> tensor<64xf32>
  return %y : tensor<64xf32>
}
