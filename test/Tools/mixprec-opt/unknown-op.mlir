// An op name the mixprec dialect does not define is a located error, in
// custom form and in generic form (mixprec does not allow unknown ops).
// RUN: not mixprec-opt %S/Inputs/unknown-op.mlir 2>&1 | FileCheck %s --check-prefix=CUSTOM --implicit-check-not=error:
// RUN: not mixprec-opt %S/Inputs/unknown-op-generic.mlir 2>&1 | FileCheck %s --check-prefix=GENERIC --implicit-check-not=error:

// CUSTOM:      unknown-op.mlir:3:8: error: custom op 'mixprec.frobnicate' is unknown
// CUSTOM-NEXT: {{^}}  %0 = mixprec.frobnicate %x : tensor<4xf32>{{$}}
// CUSTOM-NEXT: {{^}}       ^{{$}}

// GENERIC:      unknown-op-generic.mlir:3:8: error: unregistered operation 'mixprec.frobnicate' found in dialect ('mixprec') that does not allow unknown operations
// GENERIC-NEXT: {{^}}  %0 = "mixprec.frobnicate"(%x) : (tensor<4xf32>) -> tensor<4xf32>{{$}}
// GENERIC-NEXT: {{^}}       ^{{$}}
