// Thousands of mutated copies of the examples and the dialect tests (tokens
// dropped or doubled, edge-case numbers, swapped element types and shapes,
// truncation) must give diagnostics, never a crash. The seed is fixed, so a
// failure reproduces; the script prints the mutant that crashed.
//
// RUN: %python %S/Inputs/mutate.py --tool mixprec-opt --seed 1 \
// RUN:   --mutants-per-chunk 20 %mixprec_src_root/examples/mlp.mlir \
// RUN:   %mixprec_src_root/examples/cnn.mlir \
// RUN:   %mixprec_src_root/examples/transformer.mlir \
// RUN:   %S/../../Dialect/Mixprec/ops.mlir \
// RUN:   %S/../../Dialect/Mixprec/invalid.mlir \
// RUN:   %S/../../Dialect/Mixprec/canonicalize.mlir | FileCheck %s
// CHECK: {{[0-9]+}} mutants, no crash
