// RUN: mixprec-opt %s -split-input-file --mixprec-autocast="fp32-ops=gelu" | FileCheck %s --check-prefix=FP32
// RUN: mixprec-opt %s -split-input-file --mixprec-autocast="follow-ops=mixprec.softmax" | FileCheck %s --check-prefix=FOLLOW
// RUN: mixprec-opt %s -split-input-file --mixprec-autocast="tensor-core-ops=add promote-ops=relu" | FileCheck %s --check-prefix=TC
// RUN: mixprec-opt %s -split-input-file --mixprec-autocast="fp32-ops=matmul" | FileCheck %s --check-prefix=DENY
// RUN: mixprec-opt %s -split-input-file --mixprec-autocast="level=tensor-core-only" | FileCheck %s --check-prefix=LEVEL

// Overrides move op kinds between categories (TF's allow/deny lists), and
// level=tensor-core-only changes only tensor-core ops.

// A gelu moved to fp32 takes the first matmul's FP32 accumulator; the add
// of two FP32 values promotes, and one cast feeds the relu and the second
// matmul.
// FP32-LABEL: func.func @mlp_block(
// FP32:         [[H:%.+]] = mixprec.matmul {{.*}}-> tensor<4x8xf32>
// FP32-NEXT:    [[G:%.+]] = mixprec.gelu [[H]] {mixprec.autocast = "fp32 (override)"} : tensor<4x8xf32>
// FP32-NEXT:    [[S:%.+]] = mixprec.softmax [[G]] {{.*}}: tensor<4x8xf32>
// FP32-NEXT:    [[A:%.+]] = mixprec.add [[G]], [[S]] {mixprec.autocast = "propagated (promote)"} : tensor<4x8xf32>, tensor<4x8xf32>
// FP32-NEXT:    [[A16:%.+]] = mixprec.cast [[A]] {{.*}}: tensor<4x8xf32> to tensor<4x8xf16>
// FP32-NEXT:    [[R:%.+]] = mixprec.relu [[A16]] {{.*}}: tensor<4x8xf16>
// FP32-NEXT:    mixprec.matmul [[R]], {{.*}}-> tensor<4x4xf32>

// A softmax moved to follow runs in 16 bits between the matmuls.
// FOLLOW-LABEL: func.func @mlp_block(
// FOLLOW:         [[H:%.+]] = mixprec.matmul {{.*}}-> tensor<4x8xf16>
// FOLLOW-NEXT:    [[G:%.+]] = mixprec.gelu [[H]] {mixprec.autocast = "propagated (follow)"} : tensor<4x8xf16>
// FOLLOW-NEXT:    [[S:%.+]] = mixprec.softmax [[G]] {{{.*}}mixprec.autocast = "propagated (follow (override))"} : tensor<4x8xf16>
// FOLLOW-NOT:     mixprec.cast
// FOLLOW:         return

// An add moved to tensor_core runs in 16 bits, its inputs cast down; a relu
// moved to promote behaves as before (one input).
// TC-LABEL: func.func @mlp_block(
// TC:         mixprec.add {{.*}} {mixprec.autocast = "tensor_core (override)"} : tensor<4x8xf16>, tensor<4x8xf16>
// TC-NEXT:    mixprec.relu {{.*}} {mixprec.autocast = "propagated (promote (override))"} : tensor<4x8xf16>

// A matmul moved to fp32 (a deny list) takes FP32 inputs: no cast at all.
// DENY-LABEL: func.func @mlp_block(
// DENY-NOT:     mixprec.cast
// DENY:         mixprec.matmul {{.*}} {mixprec.autocast = "fp32 (override)"} : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
// DENY-NOT:     mixprec.cast
// DENY:         return

// Only the matmuls change: every other op keeps its FP32 types, so the
// first matmul yields FP32 and the relu's result is cast for the second.
// LEVEL-LABEL: func.func @mlp_block(
// LEVEL:         [[H:%.+]] = mixprec.matmul {{.*}} : tensor<4x16xf16>, tensor<16x8xf16> -> tensor<4x8xf32>
// LEVEL-NEXT:    mixprec.gelu [[H]] {mixprec.autocast = "kept (level=tensor-core-only)"} : tensor<4x8xf32>
// LEVEL:         [[R:%.+]] = mixprec.relu {{.*}}: tensor<4x8xf32>
// LEVEL-NEXT:    [[R16:%.+]] = mixprec.cast [[R]] {{.*}}: tensor<4x8xf32> to tensor<4x8xf16>
// LEVEL-NEXT:    mixprec.matmul [[R16]], {{.*}}-> tensor<4x4xf32>
func.func @mlp_block(%x: tensor<4x16xf32>, %w1: tensor<16x8xf32>, %w2: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %h = mixprec.matmul %x, %w1 : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %g = mixprec.gelu %h : tensor<4x8xf32>
  %s = mixprec.softmax %g {axis = 1 : i64} : tensor<4x8xf32>
  %a = mixprec.add %g, %s : tensor<4x8xf32>, tensor<4x8xf32>
  %r = mixprec.relu %a : tensor<4x8xf32>
  %y = mixprec.matmul %r, %w2 : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}
