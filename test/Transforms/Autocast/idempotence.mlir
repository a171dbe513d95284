// A second run of --mixprec-autocast changes nothing: on every autocast test
// input and on the three example models, in both precisions.

// RUN: mixprec-opt %S/painting.mlir -split-input-file --mixprec-autocast -o %t.painting1.mlir
// RUN: mixprec-opt %t.painting1.mlir -split-input-file --mixprec-autocast -o %t.painting2.mlir
// RUN: diff %t.painting1.mlir %t.painting2.mlir

// RUN: mixprec-opt %S/categories.mlir -split-input-file --mixprec-autocast=precision=bf16 -o %t.categories1.mlir
// RUN: mixprec-opt %t.categories1.mlir -split-input-file --mixprec-autocast=precision=bf16 -o %t.categories2.mlir
// RUN: diff %t.categories1.mlir %t.categories2.mlir

// RUN: mixprec-opt %S/overrides.mlir --mixprec-autocast="fp32-ops=gelu" -o %t.overrides1.mlir
// RUN: mixprec-opt %t.overrides1.mlir --mixprec-autocast="fp32-ops=gelu" -o %t.overrides2.mlir
// RUN: diff %t.overrides1.mlir %t.overrides2.mlir

// RUN: mixprec-opt %S/pinning.mlir --mixprec-autocast -o %t.pinning1.mlir
// RUN: mixprec-opt %t.pinning1.mlir --mixprec-autocast -o %t.pinning2.mlir
// RUN: diff %t.pinning1.mlir %t.pinning2.mlir

// RUN: for model in mlp cnn transformer; do \
// RUN:   for precision in f16 bf16; do \
// RUN:     mixprec-opt %mixprec_src_root/examples/$model.mlir --mixprec-autocast=precision=$precision -o %t.$model.1.mlir && \
// RUN:     mixprec-opt %t.$model.1.mlir --mixprec-autocast=precision=$precision -o %t.$model.2.mlir && \
// RUN:     diff %t.$model.1.mlir %t.$model.2.mlir || exit 1; \
// RUN:   done; \
// RUN: done
