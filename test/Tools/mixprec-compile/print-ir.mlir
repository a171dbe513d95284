// The pass-manager options name mixprec's own passes too: the IR before
// one of them, with locations under --mlir-print-debuginfo.
// RUN: mixprec-compile %s --mlir-print-ir-before=mixprec-plan-memory --mlir-print-debuginfo --emit=mlir -o %t.mlir 2>&1 | FileCheck %s

// CHECK: IR Dump Before MixprecPlanMemory (mixprec-plan-memory)
// CHECK-LABEL: func.func @double(
// CHECK:         linalg.generic
// CHECK:           math.exp {{.*}} loc(#[[EXP:loc[0-9]+]])
func.func @double(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // The alias, defined after the module, is this line's.
  // CHECK: #[[EXP]] = loc("{{.*}}print-ir.mlir":[[# @LINE + 1]]:8)
  %e = mixprec.exp %x : tensor<4x8xf32>
  %y = mixprec.add %e, %e : tensor<4x8xf32>, tensor<4x8xf32>
  %z = mixprec.mul %y, %x : tensor<4x8xf32>, tensor<4x8xf32>
  return %z : tensor<4x8xf32>
}
