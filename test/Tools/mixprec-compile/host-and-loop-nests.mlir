// The CPU backend's objects: the loop nests, each distinct one once and
// hidden in the library, optimized at O3; the host code (the public
// functions and their C wrappers) generated at O0, beside the loop nests
// split into a part per hardware thread, each compiled on a thread of its
// own; --emit=object joins them into one relocatable object. --mlir-timing
// reports every stage.
//
// RUN: mixprec-compile %mixprec_src_root/examples/mlp.mlir --amp=precision=bf16 --emit=object -o %t.o --mlir-timing --mlir-timing-display=tree 2> %t.timing
// RUN: llvm-nm %t.o | FileCheck %s
// RUN: llvm-readelf --syms %t.o | FileCheck %s --check-prefix=VISIBILITY
// RUN: FileCheck %s --check-prefix=TIMING --input-file %t.timing
// RUN: mixprec-compile %mixprec_src_root/examples/mlp.mlir --amp=precision=bf16 --emit=llvm -o %t.ll
// RUN: FileCheck %s --check-prefix=IR --input-file %t.ll

// CHECK-DAG: T _mlir_ciface_train
// CHECK-DAG: T train
// CHECK-DAG: T loss_loops_{{[0-9]+}}
// VISIBILITY: HIDDEN {{.*}} loss_loops_{{[0-9]+}}

// TIMING: Parse
// TIMING: Training passes
// TIMING: Lowering passes
// TIMING: MixprecOutlineLoopNests
// TIMING: LLVM code generation (host at O0, loop nests at O3 in {{[1-9][0-9]*}} parts)
// TIMING: Link

// The host code is left as it is; a loop nest is not inlined into it.
// IR: ; Function Attrs: noinline optnone
// IR-NEXT: define void @loss(
// IR: call void @{{[a-z_]+}}_loops_{{[0-9]+}}(
// IR: ; Function Attrs: noinline optnone
// IR-NEXT: define void @_mlir_ciface_loss(
// IR: define {{.*}}void @{{[a-z_]+}}_loops_{{[0-9]+}}(
