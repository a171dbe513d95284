// RUN: mixprec-opt %s -split-input-file --pass-pipeline="builtin.module(mixprec-contractions-to-calls,cse)" | FileCheck %s
// RUN: mixprec-opt %s -split-input-file --pass-pipeline="builtin.module(mixprec-contractions-to-calls{bf16-dot-products=false},cse)" | FileCheck %s --check-prefix=KORDER

// A matmul on buffers becomes one call: the description holds 3 loops
// (9 + 3 * 5 words), the operands' addresses (aligned pointer plus offset
// times element bytes) and each loop's kind, extent and strides. The zero
// fill before it goes: the call writes the sums alone (accumulate = 0).

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:      %[[A:.+]]: memref<64x32xf32>, %[[B:.+]]: memref<32x16xf32>, %[[C:.+]]: memref<64x16xf32>)
// CHECK:         %[[DESC:.+]] = memref.alloca() : memref<24xi64>
// CHECK-NOT:     linalg.fill
// CHECK:         %[[LOOPS:.+]] = arith.constant 3 : i64
// CHECK:         memref.store %[[LOOPS]], %[[DESC]][%{{.+}}] : memref<24xi64>
// CHECK:         %[[ZERO:.+]] = arith.constant 0 : i64
// CHECK:         memref.store %[[ZERO]], %[[DESC]][%{{.+}}] : memref<24xi64>
// CHECK:         memref.store %[[ZERO]], %[[DESC]][%{{.+}}] : memref<24xi64>
// CHECK:         memref.store %[[ZERO]], %[[DESC]][%[[W3:.+]]] : memref<24xi64>
// bf16 dot products allowed (word 7, read for bf16 inputs alone).
// CHECK:         %[[ONE:.+]] = arith.constant 1 : i64
// CHECK:         %[[SEVEN:.+]] = arith.constant 7 : index
// CHECK:         memref.store %[[ONE]], %[[DESC]][%[[SEVEN]]] : memref<24xi64>
// CHECK:         %{{.+}}, %[[AOFF:.+]], %{{.+}}:2, %[[ASTR:.+]]:2 = memref.extract_strided_metadata %[[A]]
// CHECK:         %[[APTR:.+]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK:         %[[FOUR:.+]] = arith.constant 4 : index
// CHECK:         %[[ABYTES:.+]] = arith.muli %[[AOFF]], %[[FOUR]] : index
// CHECK:         %[[AADDR:.+]] = arith.addi %[[APTR]], %[[ABYTES]] : index
// CHECK:         %[[AWORD:.+]] = arith.index_cast %[[AADDR]] : index to i64
// CHECK:         memref.store %[[AWORD]], %[[DESC]][%[[FOUR]]] : memref<24xi64>
// CHECK:         memref.extract_strided_metadata %[[B]]
// CHECK:         %{{.+}}, %{{.+}}, %{{.+}}:2, %[[CSTR:.+]]:2 = memref.extract_strided_metadata %[[C]]
// The first loop: m (kind 1), extent 64, A's row stride, none in B, C's row
// stride.
// CHECK:         memref.store %[[ONE]], %[[DESC]][%{{.+}}] : memref<24xi64>
// CHECK:         %[[EXTENT:.+]] = arith.constant 64 : i64
// CHECK:         memref.store %[[EXTENT]], %[[DESC]][%{{.+}}] : memref<24xi64>
// CHECK:         %[[AROW:.+]] = arith.index_cast %[[ASTR]]#0 : index to i64
// CHECK:         memref.store %[[AROW]], %[[DESC]][%{{.+}}] : memref<24xi64>
// CHECK:         memref.store %[[ZERO]], %[[DESC]][%{{.+}}] : memref<24xi64>
// CHECK:         %[[CROW:.+]] = arith.index_cast %[[CSTR]]#0 : index to i64
// CHECK:         memref.store %[[CROW]], %[[DESC]][%{{.+}}] : memref<24xi64>
// CHECK:         %[[WHERE:.+]] = memref.extract_aligned_pointer_as_index %[[DESC]]
// CHECK:         %[[WORD:.+]] = arith.index_cast %[[WHERE]] : index to i64
// CHECK:         %[[POINTER:.+]] = llvm.inttoptr %[[WORD]] : i64 to !llvm.ptr
// CHECK:         call @mixprec_cpu_contract(%[[POINTER]]) : (!llvm.ptr) -> ()
// CHECK-NOT:     linalg.matmul
// CHECK:         func.func private @mixprec_cpu_contract(!llvm.ptr)
// The table for the runtime to prepare the call before it runs: one
// description, the same words but for the addresses (0), the strides the
// buffer types' (A's rows 32, C's 16).
// CHECK:         llvm.mlir.global external hidden constant @mixprec_cpu_contractions(dense<[1, 3, 0, 0, 0, 0, 0, 0, 1, 0, 1, 64, 32, 0, 16, 2, 16, 0, 1, 1, 3, 32, 1, 16, 0]> : tensor<25xi64>)
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
// CHECK:         %[[DESC:.+]] = memref.alloca() : memref<29xi64>
// CHECK:         %[[LOOPS:.+]] = arith.constant 4 : i64
// CHECK:         memref.store %[[LOOPS]], %[[DESC]][%{{.+}}] : memref<29xi64>
// CHECK:         %[[BF16:.+]] = arith.constant 2 : i64
// CHECK:         memref.store %[[BF16]], %[[DESC]][%{{.+}}] : memref<29xi64>
// CHECK:         memref.store %[[BF16]], %[[DESC]][%{{.+}}] : memref<29xi64>
// CHECK:         %[[ADD:.+]] = arith.constant 1 : i64
// CHECK:         memref.store %[[ADD]], %[[DESC]][%{{.+}}] : memref<29xi64>
// CHECK:         memref.store %[[ADD]], %[[DESC]][%{{.+}}] : memref<29xi64>
// The loops' kinds: batch, m, n, k.
// CHECK:         %[[BATCH:.+]] = arith.constant 0 : i64
// CHECK:         memref.store %[[BATCH]], %[[DESC]][%{{.+}}] : memref<29xi64>
// CHECK:         memref.store %[[ADD]], %[[DESC]][%{{.+}}] : memref<29xi64>
// CHECK:         memref.store %[[BF16]], %[[DESC]][%{{.+}}] : memref<29xi64>
// CHECK:         %[[K:.+]] = arith.constant 3 : i64
// CHECK:         memref.store %[[K]], %[[DESC]][%{{.+}}] : memref<29xi64>
// CHECK:         call @mixprec_cpu_contract

// Without bf16 dot products, word 7 is 0: widened, summed in k order.
// KORDER-LABEL: func.func @bf16_batch(
// KORDER:         %[[DESC:.+]] = memref.alloca() : memref<29xi64>
// KORDER:         %[[ADD:.+]] = arith.constant 1 : i64
// KORDER:         %[[THREE:.+]] = arith.constant 3 : index
// KORDER:         memref.store %[[ADD]], %[[DESC]][%[[THREE]]] : memref<29xi64>
// KORDER:         %[[OFF:.+]] = arith.constant 0 : i64
// KORDER:         %[[SEVEN:.+]] = arith.constant 7 : index
// KORDER:         memref.store %[[OFF]], %[[DESC]][%[[SEVEN]]] : memref<29xi64>
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

// -----

// A zero-filled product rounded to bf16 right after, by the only reader of
// its f32 buffer (an allocation, read through a reshape): the call writes
// the bf16 buffer (result type 2, word 8) with the f32 buffer's strides
// (constants: both are static and contiguous), where the rounding was, and
// the rounding and the f32 buffer go. The call and the reads of its
// buffers' addresses are one op, where the memory plan sees them used.
// Rounded after another op ran in between, read by something else as well,
// or an argument (a result the caller reads), the f32 result stays.

// CHECK-LABEL: func.func @rounded(
// CHECK-SAME:      %[[A:[^:]+]]: memref<64x32xbf16>, %[[B:[^:]+]]: memref<32x16xbf16>, %[[R:[^:]+]]: memref<1024xbf16>)
// CHECK-NOT:     memref.alloc()
// CHECK-NOT:     linalg.fill
// CHECK:         scf.execute_region {
// CHECK:         %[[BF16:.+]] = arith.constant 2 : i64
// CHECK:         %[[EIGHT:.+]] = arith.constant 8 : index
// CHECK:         memref.store %[[BF16]], %[[DESC:.+]][%[[EIGHT]]] : memref<24xi64>
// CHECK:         %{{.+}}, %[[ROFF:.+]], %{{.+}}, %{{.+}} = memref.extract_strided_metadata %[[R]]
// CHECK:         %[[RPTR:.+]] = memref.extract_aligned_pointer_as_index %[[R]]
// CHECK:         %[[RBYTES:.+]] = arith.muli %[[ROFF]], %c2 : index
// CHECK:         %[[RADDR:.+]] = arith.addi %[[RPTR]], %[[RBYTES]] : index
// CHECK:         %[[RWORD:.+]] = arith.index_cast %[[RADDR]] : index to i64
// CHECK:         %[[SIX:.+]] = arith.constant 6 : index
// CHECK:         memref.store %[[RWORD]], %[[DESC]][%[[SIX]]] : memref<24xi64>
// CHECK:         %[[CROW:.+]] = arith.constant 16 : i64
// CHECK:         memref.store %[[CROW]], %[[DESC]][%{{.+}}] : memref<24xi64>
// CHECK:         call @mixprec_cpu_contract
// CHECK-NEXT:    scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-LABEL: func.func @not_rounded(
// CHECK:         call @mixprec_cpu_contract
// CHECK:         linalg.fill
// CHECK:         arith.truncf
// CHECK:         call @mixprec_cpu_contract
// CHECK:         arith.truncf
// CHECK:         linalg.copy
// CHECK:         call @mixprec_cpu_contract
// CHECK:         arith.truncf
func.func @rounded(%a: memref<64x32xbf16>, %b: memref<32x16xbf16>, %r: memref<1024xbf16>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<64x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<64x16xf32>)
  linalg.matmul ins(%a, %b : memref<64x32xbf16>, memref<32x16xbf16>) outs(%c : memref<64x16xf32>)
  %flat = memref.collapse_shape %c [[0, 1]] : memref<64x16xf32> into memref<1024xf32>
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%flat : memref<1024xf32>) outs(%r : memref<1024xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  }
  memref.dealloc %c : memref<64x16xf32>
  return
}
func.func @not_rounded(%a: memref<64x32xbf16>, %b: memref<32x16xbf16>, %r: memref<64x16xbf16>, %s: memref<64x16xf32>, %e: memref<64x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<64x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<64x16xf32>)
  linalg.matmul ins(%a, %b : memref<64x32xbf16>, memref<32x16xbf16>) outs(%c : memref<64x16xf32>)
  linalg.fill ins(%zero : f32) outs(%s : memref<64x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%c : memref<64x16xf32>) outs(%r : memref<64x16xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  }
  %d = memref.alloc() : memref<64x16xf32>
  linalg.fill ins(%zero : f32) outs(%d : memref<64x16xf32>)
  linalg.matmul ins(%a, %b : memref<64x32xbf16>, memref<32x16xbf16>) outs(%d : memref<64x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%d : memref<64x16xf32>) outs(%r : memref<64x16xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  }
  linalg.copy ins(%d : memref<64x16xf32>) outs(%s : memref<64x16xf32>)
  linalg.fill ins(%zero : f32) outs(%e : memref<64x16xf32>)
  linalg.matmul ins(%a, %b : memref<64x32xbf16>, memref<32x16xbf16>) outs(%e : memref<64x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%e : memref<64x16xf32>) outs(%r : memref<64x16xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  }
  memref.dealloc %c : memref<64x16xf32>
  memref.dealloc %d : memref<64x16xf32>
  return
}

// -----

// The bf16 buffer is written while the inputs are read: rounded into the
// buffer of an input (through a reshape), the f32 result stays.

// CHECK-LABEL: func.func @into_input(
// CHECK:         call @mixprec_cpu_contract
// CHECK:         arith.truncf
func.func @into_input(%a: memref<32x32xbf16>, %b: memref<32x32xbf16>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<32x32xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<32x32xf32>)
  linalg.matmul ins(%a, %b : memref<32x32xbf16>, memref<32x32xbf16>) outs(%c : memref<32x32xf32>)
  %flat = memref.collapse_shape %c [[0, 1]] : memref<32x32xf32> into memref<1024xf32>
  %over = memref.collapse_shape %a [[0, 1]] : memref<32x32xbf16> into memref<1024xbf16>
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%flat : memref<1024xf32>) outs(%over : memref<1024xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  }
  memref.dealloc %c : memref<32x32xf32>
  return
}

// -----

// A stride known only at run time keeps the contraction out of the table:
// the runtime makes its GEMM on the first call. The table counts only the
// static one (accumulating: no fill before it).

// CHECK-LABEL: func.func @dynamic_stride(
// CHECK:         call @mixprec_cpu_contract
// CHECK:         call @mixprec_cpu_contract
// CHECK:         llvm.mlir.global external hidden constant @mixprec_cpu_contractions(dense<[1, 3, 0, 0, 1, 0, 0, 0, 1, 0, 1, 8, 4, 0, 16, 2, 16, 0, 1, 1, 3, 4, 1, 16, 0]> : tensor<25xi64>)
func.func @dynamic_stride(%a: memref<8x4xf32, strided<[?, 1], offset: ?>>, %b: memref<4x16xf32>, %c: memref<8x16xf32>, %s: memref<8x4xf32>) {
  linalg.matmul ins(%a, %b : memref<8x4xf32, strided<[?, 1], offset: ?>>, memref<4x16xf32>) outs(%c : memref<8x16xf32>)
  linalg.matmul ins(%s, %b : memref<8x4xf32>, memref<4x16xf32>) outs(%c : memref<8x16xf32>)
  return
}
