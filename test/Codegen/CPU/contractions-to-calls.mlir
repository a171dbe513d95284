// RUN: mixprec-opt %s -split-input-file --pass-pipeline="builtin.module(mixprec-contractions-to-calls,cse)" | FileCheck %s
// RUN: mixprec-opt %s -split-input-file --pass-pipeline="builtin.module(mixprec-contractions-to-calls{bf16-dot-products=false},cse)" | FileCheck %s --check-prefix=KORDER

// A matmul on buffers becomes one call: the description holds 3 loops
// (8 + 3 * 5 words), the operands' addresses (aligned pointer plus offset
// times element bytes) and each loop's kind, extent and strides. The zero
// fill before it goes: the call writes the sums alone (accumulate = 0).

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:      %[[A:.+]]: memref<64x32xf32>, %[[B:.+]]: memref<32x16xf32>, %[[C:.+]]: memref<64x16xf32>)
// CHECK:         %[[DESC:.+]] = memref.alloca() : memref<23xi64>
// CHECK-NOT:     linalg.fill
// CHECK:         %[[LOOPS:.+]] = arith.constant 3 : i64
// CHECK:         memref.store %[[LOOPS]], %[[DESC]][%{{.+}}] : memref<23xi64>
// CHECK:         %[[ZERO:.+]] = arith.constant 0 : i64
// CHECK:         memref.store %[[ZERO]], %[[DESC]][%{{.+}}] : memref<23xi64>
// CHECK:         memref.store %[[ZERO]], %[[DESC]][%{{.+}}] : memref<23xi64>
// CHECK:         memref.store %[[ZERO]], %[[DESC]][%[[W3:.+]]] : memref<23xi64>
// bf16 dot products allowed (word 7, read for bf16 inputs alone).
// CHECK:         %[[ONE:.+]] = arith.constant 1 : i64
// CHECK:         %[[SEVEN:.+]] = arith.constant 7 : index
// CHECK:         memref.store %[[ONE]], %[[DESC]][%[[SEVEN]]] : memref<23xi64>
// CHECK:         %{{.+}}, %[[AOFF:.+]], %{{.+}}:2, %[[ASTR:.+]]:2 = memref.extract_strided_metadata %[[A]]
// CHECK:         %[[APTR:.+]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK:         %[[FOUR:.+]] = arith.constant 4 : index
// CHECK:         %[[ABYTES:.+]] = arith.muli %[[AOFF]], %[[FOUR]] : index
// CHECK:         %[[AADDR:.+]] = arith.addi %[[APTR]], %[[ABYTES]] : index
// CHECK:         %[[AWORD:.+]] = arith.index_cast %[[AADDR]] : index to i64
// CHECK:         memref.store %[[AWORD]], %[[DESC]][%[[FOUR]]] : memref<23xi64>
// CHECK:         memref.extract_strided_metadata %[[B]]
// CHECK:         %{{.+}}, %{{.+}}, %{{.+}}:2, %[[CSTR:.+]]:2 = memref.extract_strided_metadata %[[C]]
// The first loop: m (kind 1), extent 64, A's row stride, none in B, C's row
// stride.
// CHECK:         memref.store %[[ONE]], %[[DESC]][%{{.+}}] : memref<23xi64>
// CHECK:         %[[EXTENT:.+]] = arith.constant 64 : i64
// CHECK:         memref.store %[[EXTENT]], %[[DESC]][%{{.+}}] : memref<23xi64>
// CHECK:         %[[AROW:.+]] = arith.index_cast %[[ASTR]]#0 : index to i64
// CHECK:         memref.store %[[AROW]], %[[DESC]][%{{.+}}] : memref<23xi64>
// CHECK:         memref.store %[[ZERO]], %[[DESC]][%{{.+}}] : memref<23xi64>
// CHECK:         %[[CROW:.+]] = arith.index_cast %[[CSTR]]#0 : index to i64
// CHECK:         memref.store %[[CROW]], %[[DESC]][%{{.+}}] : memref<23xi64>
// CHECK:         %[[WHERE:.+]] = memref.extract_aligned_pointer_as_index %[[DESC]]
// CHECK:         %[[WORD:.+]] = arith.index_cast %[[WHERE]] : index to i64
// CHECK:         %[[POINTER:.+]] = llvm.inttoptr %[[WORD]] : i64 to !llvm.ptr
// CHECK:         call @mixprec_cpu_contract(%[[POINTER]]) : (!llvm.ptr) -> ()
// CHECK-NOT:     linalg.matmul
// CHECK:         func.func private @mixprec_cpu_contract(!llvm.ptr)
func.func @matmul(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<64x16xf32>)
  linalg.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// -----

// An output holding other values (a bias) is added to: accumulate = 1.
// bf16 inputs go as they are (type code 2), each loop's kind in order:
// batch 0, m 1, n 2, k 3.

// CHECK-LABEL: func.func @bf16_batch(
// CHECK:         %[[DESC:.+]] = memref.alloca() : memref<28xi64>
// CHECK:         %[[LOOPS:.+]] = arith.constant 4 : i64
// CHECK:         memref.store %[[LOOPS]], %[[DESC]][%{{.+}}] : memref<28xi64>
// CHECK:         %[[BF16:.+]] = arith.constant 2 : i64
// CHECK:         memref.store %[[BF16]], %[[DESC]][%{{.+}}] : memref<28xi64>
// CHECK:         memref.store %[[BF16]], %[[DESC]][%{{.+}}] : memref<28xi64>
// CHECK:         %[[ADD:.+]] = arith.constant 1 : i64
// CHECK:         memref.store %[[ADD]], %[[DESC]][%{{.+}}] : memref<28xi64>
// CHECK:         memref.store %[[ADD]], %[[DESC]][%{{.+}}] : memref<28xi64>
// The loops' kinds: batch, m, n, k.
// CHECK:         %[[BATCH:.+]] = arith.constant 0 : i64
// CHECK:         memref.store %[[BATCH]], %[[DESC]][%{{.+}}] : memref<28xi64>
// CHECK:         memref.store %[[ADD]], %[[DESC]][%{{.+}}] : memref<28xi64>
// CHECK:         memref.store %[[BF16]], %[[DESC]][%{{.+}}] : memref<28xi64>
// CHECK:         %[[K:.+]] = arith.constant 3 : i64
// CHECK:         memref.store %[[K]], %[[DESC]][%{{.+}}] : memref<28xi64>
// CHECK:         call @mixprec_cpu_contract

// Without bf16 dot products, word 7 is 0: widened, summed in k order.
// KORDER-LABEL: func.func @bf16_batch(
// KORDER:         %[[DESC:.+]] = memref.alloca() : memref<28xi64>
// KORDER:         %[[ADD:.+]] = arith.constant 1 : i64
// KORDER:         %[[THREE:.+]] = arith.constant 3 : index
// KORDER:         memref.store %[[ADD]], %[[DESC]][%[[THREE]]] : memref<28xi64>
// KORDER:         %[[OFF:.+]] = arith.constant 0 : i64
// KORDER:         %[[SEVEN:.+]] = arith.constant 7 : index
// KORDER:         memref.store %[[OFF]], %[[DESC]][%[[SEVEN]]] : memref<28xi64>
func.func @bf16_batch(%a: memref<2x8x4xbf16>, %b: memref<2x4x16xbf16>, %c: memref<2x8x16xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<2x8x4xbf16>, memref<2x4x16xbf16>) outs(%c : memref<2x8x16xf32>)
  return
}

// -----

// What the runtime does not take stays: f16 inputs, mixed inputs, dynamic
// shapes, and tensors (before bufferization).

// CHECK-LABEL: func.func @left_alone(
// CHECK-NOT:     call @mixprec_cpu_contract
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : memref<8x4xf16>, memref<4x16xf16>)
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : memref<8x4xbf16>, memref<4x16xf32>)
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : memref<?x4xf32>, memref<4x16xf32>)
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<8x4xf32>, tensor<4x16xf32>)
// CHECK-NOT:     func.func private @mixprec_cpu_contract
func.func @left_alone(%a: memref<8x4xf16>, %b: memref<4x16xf16>, %c: memref<8x16xf32>,
                      %d: memref<8x4xbf16>, %e: memref<4x16xf32>,
                      %f: memref<?x4xf32>, %g: memref<?x16xf32>,
                      %t: tensor<8x4xf32>, %u: tensor<4x16xf32>, %v: tensor<8x16xf32>) -> tensor<8x16xf32> {
  linalg.matmul ins(%a, %b : memref<8x4xf16>, memref<4x16xf16>) outs(%c : memref<8x16xf32>)
  linalg.matmul ins(%d, %e : memref<8x4xbf16>, memref<4x16xf32>) outs(%c : memref<8x16xf32>)
  linalg.matmul ins(%f, %e : memref<?x4xf32>, memref<4x16xf32>) outs(%g : memref<?x16xf32>)
  %r = linalg.matmul ins(%t, %u : tensor<8x4xf32>, tensor<4x16xf32>) outs(%v : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

// Contractions in two functions call one declaration.

// CHECK-LABEL: func.func @first(
// CHECK:         call @mixprec_cpu_contract
// CHECK-LABEL: func.func @second(
// CHECK:         call @mixprec_cpu_contract
// CHECK:         func.func private @mixprec_cpu_contract(!llvm.ptr)
// CHECK-NOT:     func.func private @mixprec_cpu_contract
func.func @first(%a: memref<8x4xf32>, %b: memref<4x16xf32>, %c: memref<8x16xf32>) {
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x16xf32>) outs(%c : memref<8x16xf32>)
  return
}
func.func @second(%a: memref<8x4xf32>, %b: memref<4x16xf32>, %c: memref<8x16xf32>) {
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x16xf32>) outs(%c : memref<8x16xf32>)
  return
}
