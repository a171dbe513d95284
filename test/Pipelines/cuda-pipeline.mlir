// REQUIRES: cuda-toolkit
// RUN: mixprec-opt %s --mixprec-cuda-pipeline="chips=sm_80,sm_90" | FileCheck %s
// RUN: not mixprec-opt %s --mixprec-cuda-pipeline="chips=sm_75" 2>&1 | FileCheck %s --check-prefix=BAD-CHIP
// RUN: not mixprec-opt %s --mixprec-cuda-pipeline 2>&1 | FileCheck %s --check-prefix=NO-CHIP

// BAD-CHIP: mixprec-cuda-pipeline: unknown chip 'sm_75' (expected sm_80, sm_90 or sm_90a)
// NO-CHIP: mixprec-cuda-pipeline needs chips=sm_80, sm_90 or sm_90a

// The whole pipeline on a 16-bit matmul and an elementwise op: host code in
// the LLVM dialect whose launches go through the runtime's mgpu* calls on
// one stream, with the f32 accumulator (33x24, 3168 bytes, 256-aligned) in
// the planned workspace, the function's last argument, so the call
// allocates nothing; and one gpu.binary with the PTX of each chip.
// CHECK-LABEL: llvm.func @step(
// CHECK-SAME: %[[WORKSPACE:[^:]+]]: !llvm.ptr, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64)
// CHECK-SAME: mixprec.live_bytes = 3168 : i64
// CHECK-SAME: mixprec.workspace_bytes = 3328 : i64
// CHECK: %[[STREAM:.*]] = llvm.call @mgpuStreamCreate()
// CHECK-NOT: mgpuMemAlloc
// The product is written into the accumulator (no zeroing kernel: the GEMM
// writes every element once), then the relu runs:
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.launch_func <%[[STREAM]] : !llvm.ptr> @kernels::@step_gemm_0 {{.*}}%[[WORKSPACE]] : !llvm.ptr)
// CHECK: gpu.launch_func <%[[STREAM]] : !llvm.ptr> @kernels::@step_kernel_0 {{.*}}(%[[WORKSPACE]] : !llvm.ptr,
// CHECK-NOT: mgpuMemFree
// CHECK: llvm.call @mgpuStreamSynchronize(%[[STREAM]])
// CHECK: llvm.call @mgpuStreamDestroy(%[[STREAM]])
// CHECK: gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_80", features = "+ptx80">, {{.*}}assembly = "{{.*}}.target sm_80{{.*}}mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32{{.*}}">, #gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">, {{.*}}assembly = "{{.*}}.target sm_90{{.*}}">]
func.func @step(%a: tensor<33x40xf16>, %b: tensor<40x24xf16>) -> tensor<33x24xf32> {
  %c = mixprec.matmul %a, %b : tensor<33x40xf16>, tensor<40x24xf16> -> tensor<33x24xf32>
  %d = mixprec.relu %c : tensor<33x24xf32>
  return %d : tensor<33x24xf32>
}
