// RUN: mixprec-opt %s --mixprec-memory-report=json-file=%t.json -o /dev/null 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: mixprec-opt %s --mixprec-memory-report=tensor-alignment=256 -o /dev/null 2>&1 | FileCheck %s --check-prefix=FRAME
// RUN: not mixprec-opt %s --mixprec-memory-report=tensor-alignment=3 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not mixprec-opt %s --mixprec-memory-report=json-file=%t.missing/report.json 2>&1 | FileCheck %s --check-prefix=UNWRITABLE

// A planned step, worked out by hand. Inputs: the state %w (64 bytes,
// updated in place: result 1 lives in argument 0) and the batch %x (256);
// outputs: the loss (4); a 320-byte workspace holding %a (256 bytes at 0)
// and %b (64 bytes at 256), then %c (256 bytes at 0, %a's) once %a is dead.
// The most live at once is 320 bytes, %a and %b, when %b is computed.
// Peak: 320 + 4 + 320 = 644. In a CUDA frame each tensor and the workspace
// start 256-byte aligned: 3 x 256 + 512 = 1280.
// CHECK:      memory report for @step
// CHECK-NEXT:   inputs                 320 bytes in 2 tensors, 1 updated in place
// CHECK-NEXT:   outputs                  4 bytes in 1 tensors
// CHECK-NEXT:   workspace              320 bytes for 3 buffers (320 live at most)
// CHECK-NEXT:   peak                   644 bytes (inputs + outputs + workspace)
// CHECK-NEXT:   live at the peak, when {{.*}}memory-report.mlir:[[# @LINE + 41]]:8 is computed:
// CHECK-NEXT:              256  f32[64]  {{.*}}memory-report.mlir:[[# @LINE + 38]]:8
// CHECK-NEXT:               64  f32[16]  {{.*}}memory-report.mlir:[[# @LINE + 39]]:8
// CHECK-NOT: live at the peak
// A function without a plan.
// CHECK:      memory report for @nothing
// CHECK-NEXT:   inputs                   4 bytes in 1 tensors, 0 updated in place
// CHECK-NEXT:   outputs                  0 bytes in 0 tensors
// CHECK-NEXT:   workspace                0 bytes for 0 buffers (0 live at most)
// CHECK-NEXT:   peak                     4 bytes (inputs + outputs + workspace)

// JSON:       "function": "step",
// JSON-NEXT:  "inputs": {
// JSON-NEXT:    "bytes": 320,
// JSON-NEXT:    "tensors": 2,
// JSON-NEXT:    "updated_in_place": 1
// JSON-NEXT:  },
// JSON-NEXT:  "live_at_peak": [
// JSON-NEXT:    {
// JSON-NEXT:      "bytes": 256,
// JSON-NEXT:      "location": "{{.*}}memory-report.mlir:[[# @LINE + 19]]:8",
// JSON-NEXT:      "type": "f32[64]"
// JSON-NEXT:    },
// JSON:       "live_bytes": 320,
// JSON:       "peak_bytes": 644,
// JSON-NEXT:  "peak_location": "{{.*}}memory-report.mlir:[[# @LINE + 16]]:8",
// JSON-NEXT:  "workspace_bytes": 320

// FRAME: peak                 1,280 bytes (inputs + outputs + workspace)

// BAD: mixprec-memory-report: tensor-alignment must be a power of two, got 3
// UNWRITABLE: error: mixprec-memory-report: cannot write '{{.*}}report.json'

func.func @step(%w: memref<16xf32>, %x: memref<64xf32>, %loss: memref<f32>, %ws: memref<320xi8>)
    attributes {mixprec.live_bytes = 320 : i64,
                mixprec.results_in_arguments = array<i64: -1, 0>,
                mixprec.workspace_bytes = 320 : i64} {
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %a = memref.view %ws[%c0][] : memref<320xi8> to memref<64xf32>
  linalg.exp ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  %b = memref.view %ws[%c256][] : memref<320xi8> to memref<16xf32>
  linalg.exp ins(%w : memref<16xf32>) outs(%b : memref<16xf32>)
  linalg.reduce ins(%a : memref<64xf32>) outs(%loss : memref<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  linalg.copy ins(%b : memref<16xf32>) outs(%w : memref<16xf32>)
  %c = memref.view %ws[%c0][] : memref<320xi8> to memref<64xf32>
  linalg.exp ins(%x : memref<64xf32>) outs(%c : memref<64xf32>)
  linalg.reduce ins(%c : memref<64xf32>) outs(%loss : memref<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return
}

func.func @nothing(%x: memref<f32>) {
  return
}
