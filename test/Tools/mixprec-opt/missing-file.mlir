// An input path that does not exist is an error with the path, not a crash.
// (The message is MLIR's: "cannot open input file", no line or column.)
// RUN: not mixprec-opt %S/Inputs/no-such-file.mlir 2>&1 | FileCheck %s -DFILE=%S/Inputs/no-such-file.mlir --implicit-check-not=error:

// CHECK: cannot open input file '[[FILE]]': {{[Nn]}}o such file or directory
