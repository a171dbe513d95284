// RUN: not mixprec-opt %s --mixprec-autocast=precision=fp8 2>&1 | FileCheck %s --check-prefix=PRECISION
// RUN: not mixprec-opt %s --mixprec-autocast=level=some 2>&1 | FileCheck %s --check-prefix=LEVEL
// RUN: not mixprec-opt %s --mixprec-autocast=fp32-ops=softmx 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not mixprec-opt %s --mixprec-autocast=follow-ops=func.call 2>&1 | FileCheck %s --check-prefix=FOREIGN
// RUN: not mixprec-opt %s --mixprec-autocast=fp32-ops=cast 2>&1 | FileCheck %s --check-prefix=KEEPS
// RUN: not mixprec-opt %s "--mixprec-autocast=fp32-ops=add follow-ops=add" 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not mixprec-opt %s --mixprec-autocast=nonsense=1 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not mixprec-opt %s --mixprec-precision-report=json-file=%t.missing/dir/report.json 2>&1 | FileCheck %s --check-prefix=JSON

// Bad options are errors, never crashes: a value outside an enum option's
// values is refused by the option parser, the rest with the module's location.

// PRECISION: mixprec-opt: for the --precision option: 'fp8' is not one of f16, bf16{{$}}
// LEVEL: mixprec-opt: for the --level option: 'some' is not one of all, tensor-core-only{{$}}
// UNKNOWN: error: mixprec-autocast: unknown op 'softmx' in fp32-ops (expected a compute op of the mixprec dialect, e.g. softmax)
// FOREIGN: error: mixprec-autocast: unknown op 'func.call' in follow-ops
// KEEPS: error: mixprec-autocast: 'mixprec.cast' keeps its types; it cannot be moved to another category
// TWICE: error: mixprec-autocast: 'mixprec.add' is moved to both fp32 and follow
// OPTION: no such option nonsense
// JSON: error: mixprec-precision-report: cannot write '{{.*}}report.json': {{.*}}
module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = mixprec.relu %x : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
