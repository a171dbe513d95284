// RUN: mixprec-opt %s -split-input-file -verify-diagnostics --mixprec-memory-report
// RUN: not mixprec-opt %S/linear.mlir --mixprec-autodiff --mixprec-expose-state --mixprec-memory-report 2>&1 | FileCheck %s --check-prefix=EXPOSED
// RUN: not mixprec-opt %S/linear.mlir --mixprec-autodiff --mixprec-memory-report=json-file=%t.missing/report.json 2>&1 | FileCheck %s --check-prefix=JSON

// Without an optimizer step there is nothing to report: an error, not an
// empty table, so a pipeline that forgot --mixprec-autodiff (or ran
// --mixprec-expose-state, which removes the marks, too early) fails loudly.

// expected-error @below {{mixprec-memory-report: no optimizer-step function (func.func marked mixprec.optimizer_step); run it after --mixprec-autodiff and before --mixprec-expose-state}}
module {
  mixprec.parameter @w : tensor<2x3xf32> = #mixprec.zeros
  func.func @loss(%x: tensor<4x3xf32>, %t: tensor<4xi32>) -> tensor<f32> {
    %w = mixprec.read @w : tensor<2x3xf32>
    %y = mixprec.matmul %x, %w {transpose_rhs} : tensor<4x3xf32>, tensor<2x3xf32> -> tensor<4x2xf32>
    %l = mixprec.softmax_cross_entropy %y, %t : tensor<4x2xf32>, tensor<4xi32>
    return %l : tensor<f32>
  }
  mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>
}

// -----

// The liveness simulation walks one block in program order.

// expected-error @below {{mixprec-memory-report: the optimizer step must have a single block}}
func.func @train(%x: tensor<4xf32>, %lr: tensor<f32>) -> tensor<4xf32>
    attributes {mixprec.optimizer_step} {
  cf.br ^next
^next:
  return %x : tensor<4xf32>
}

// EXPOSED: error: mixprec-memory-report: no optimizer-step function

// JSON: error: mixprec-memory-report: cannot write '{{.*}}report.json'
