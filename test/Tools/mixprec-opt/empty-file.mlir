// An empty file is a valid, empty module: mixprec-opt succeeds, prints just
// the module and reports nothing.
// RUN: mixprec-opt %S/Inputs/empty.mlir 2>&1 | FileCheck %s
// RUN: mixprec-opt < %S/Inputs/empty.mlir 2>&1 | FileCheck %s

// CHECK-NOT:  {{.}}
// CHECK:      {{^}}module {{[{]}}{{$}}
// CHECK-NEXT: {{^[}]$}}
// CHECK-NOT:  {{.}}
