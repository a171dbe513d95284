// Elementwise binary ops do not broadcast: mixprec.add of [4, 8] and [8, 4]
// fails result-type inference. In custom form that happens while parsing; in
// generic form the verifier re-infers the result type and reports both the
// reason and the failed inference.
// RUN: not mixprec-opt %S/Inputs/shape-mismatch.mlir 2>&1 | FileCheck %s --check-prefix=CUSTOM --implicit-check-not=error:
// RUN: not mixprec-opt %S/Inputs/shape-mismatch-generic.mlir 2>&1 | FileCheck %s --check-prefix=GENERIC --implicit-check-not=error:

// CUSTOM:      shape-mismatch.mlir:3:8: error: operand shapes must match, got [4, 8] and [8, 4]; broadcast explicitly with mixprec.broadcast
// CUSTOM-NEXT: {{^}}  %0 = mixprec.add %a, %b : tensor<4x8xf32>, tensor<8x4xf32>{{$}}
// CUSTOM-NEXT: {{^}}       ^{{$}}

// GENERIC:     shape-mismatch-generic.mlir:4:8: error: operand shapes must match, got [4, 8] and [8, 4]; broadcast explicitly with mixprec.broadcast
// GENERIC:     shape-mismatch-generic.mlir:4:8: error: 'mixprec.add' op failed to infer returned types
