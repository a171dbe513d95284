// RUN: mixprec-opt %s --mixprec-booleans-as-bytes | FileCheck %s

// A masked scale: the i1 is loaded as its byte and compared with zero, and
// a stored i1 is its zero-extended byte; the f32 accesses are unchanged.
// CHECK-LABEL: llvm.func @masked_scale(
// CHECK-SAME:    [[MASK:%[^:]+]]: !llvm.ptr, [[X:%[^:]+]]: !llvm.ptr, [[OUT:%[^:]+]]: !llvm.ptr)
// CHECK-NOT:     -> i1
// CHECK:         [[BYTE:%.+]] = llvm.load [[MASK]] {alignment = 1 : i64} : !llvm.ptr -> i8
// CHECK-NEXT:    [[ZERO:%.+]] = llvm.mlir.constant(0 : i8) : i8
// CHECK-NEXT:    [[M:%.+]] = llvm.icmp "ne" [[BYTE]], [[ZERO]] : i8
// CHECK-NEXT:    [[V:%.+]] = llvm.load [[X]] : !llvm.ptr -> f32
// CHECK:         llvm.select [[M]], {{%.+}}, [[V]] : i1, f32
// CHECK:         [[WIDE:%.+]] = llvm.zext [[M]] : i1 to i8
// CHECK-NEXT:    llvm.store [[WIDE]], [[OUT]] : i8, !llvm.ptr
// CHECK-NEXT:    llvm.return
llvm.func @masked_scale(%mask: !llvm.ptr, %x: !llvm.ptr, %out: !llvm.ptr) {
  %m = llvm.load %mask {alignment = 1 : i64} : !llvm.ptr -> i1
  %v = llvm.load %x : !llvm.ptr -> f32
  %zero = llvm.mlir.constant(0.0 : f32) : f32
  %s = llvm.select %m, %zero, %v : i1, f32
  llvm.store %s, %x : f32, !llvm.ptr
  llvm.store %m, %out : i1, !llvm.ptr
  llvm.return
}

// Volatile accesses are left as they are (LLVM has no atomic i1).
// CHECK-LABEL: llvm.func @left_alone(
// CHECK:         llvm.load volatile {{%.+}} : !llvm.ptr -> i1
// CHECK:         llvm.store volatile {{%.+}}, {{%.+}} : i1, !llvm.ptr
llvm.func @left_alone(%p: !llvm.ptr) {
  %a = llvm.load volatile %p : !llvm.ptr -> i1
  llvm.store volatile %a, %p : i1, !llvm.ptr
  llvm.return
}
