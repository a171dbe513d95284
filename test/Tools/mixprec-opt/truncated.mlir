// A file that ends in the middle of an op is a located parse error, not a
// crash. MLIR reports an error at the end of the file on the last character
// before it.
// RUN: not mixprec-opt %S/Inputs/truncated.mlir 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not="LLVM ERROR"

// CHECK:      truncated.mlir:5:24: error: expected ':'
// CHECK-NEXT: {{^}}    %0 = mixprec.relu %x{{$}}
// CHECK-NEXT: {{^}}                       ^{{$}}
