// RUN: mixprec-opt %s -split-input-file -verify-diagnostics --mixprec-verify-memory-plan

// Two views sharing bytes while both are live: the plan is wrong.
func.func @overlap(%x: memref<8xf32>, %out: memref<8xf32>, %ws: memref<64xi8>)
    attributes {mixprec.live_bytes = 64 : i64, mixprec.workspace_bytes = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  // expected-note @+1 {{that buffer}}
  %a = memref.view %ws[%c0][] : memref<64xi8> to memref<8xf32>
  linalg.exp ins(%x : memref<8xf32>) outs(%a : memref<8xf32>)
  // expected-error @+1 {{mixprec-verify-memory-plan: bytes [16, 48) of the workspace are also bytes [0, 32) of a buffer live at the same time}}
  %b = memref.view %ws[%c16][] : memref<64xi8> to memref<8xf32>
  linalg.exp ins(%a : memref<8xf32>) outs(%b : memref<8xf32>)
  linalg.copy ins(%b : memref<8xf32>) outs(%out : memref<8xf32>)
  return
}

// -----

// Shared bytes at different times are the plan's point.
func.func @reused(%x: memref<8xf32>, %out: memref<8xf32>, %ws: memref<64xi8>)
    attributes {mixprec.live_bytes = 64 : i64, mixprec.workspace_bytes = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %a = memref.view %ws[%c0][] : memref<64xi8> to memref<8xf32>
  linalg.exp ins(%x : memref<8xf32>) outs(%a : memref<8xf32>)
  %b = memref.view %ws[%c32][] : memref<64xi8> to memref<8xf32>
  linalg.exp ins(%a : memref<8xf32>) outs(%b : memref<8xf32>)
  %c = memref.view %ws[%c0][] : memref<64xi8> to memref<8xf32>
  linalg.exp ins(%b : memref<8xf32>) outs(%c : memref<8xf32>)
  linalg.copy ins(%c : memref<8xf32>) outs(%out : memref<8xf32>)
  return
}

// -----

func.func @past_the_end(%x: memref<8xf32>, %ws: memref<64xi8>)
    attributes {mixprec.live_bytes = 32 : i64, mixprec.workspace_bytes = 64 : i64} {
  %c48 = arith.constant 48 : index
  // expected-error @+1 {{mixprec-verify-memory-plan: bytes [48, 80) of a workspace of 64 bytes}}
  %a = memref.view %ws[%c48][] : memref<64xi8> to memref<8xf32>
  linalg.exp ins(%x : memref<8xf32>) outs(%a : memref<8xf32>)
  return
}
