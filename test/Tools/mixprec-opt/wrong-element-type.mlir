// Float ops of mixprec take f32, f16 or bf16 tensors: mixprec.relu on f64 is
// rejected by the operand type constraint, in custom and in generic form.
// RUN: not mixprec-opt %S/Inputs/wrong-element-type.mlir 2>&1 | FileCheck %s -DFILE=wrong-element-type.mlir --implicit-check-not=error:
// RUN: not mixprec-opt %S/Inputs/wrong-element-type-generic.mlir 2>&1 | FileCheck %s -DFILE=wrong-element-type-generic.mlir --implicit-check-not=error:

// CHECK:      [[FILE]]:3:8: error: 'mixprec.relu' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xf64>'
// CHECK:      [[FILE]]:3:8: note: see current operation: %0 = "mixprec.relu"(%arg0) : (tensor<4xf64>) -> tensor<4xf64>
