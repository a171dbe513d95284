//===- GpuLaunchRuntime.h - the functions gpu-to-llvm code calls -*- C++
//-*-===//
//
// The host side of MLIR's `gpu-to-llvm` lowering (MLIR 22), with the
// signatures the generated LLVM IR declares. They return nothing, so errors
// are sticky: see GpuLaunchRuntime.cpp. Hidden: a model's code binds to its
// own copy, never to another library's mgpu* (MLIR's runtime, say).
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_RUNTIME_CUDA_GPULAUNCHRUNTIME_H
#define MIXPREC_RUNTIME_CUDA_GPULAUNCHRUNTIME_H

#include <cstddef>
#include <cstdint>

#define MIXPREC_MGPU extern "C" __attribute__((visibility("hidden")))

MIXPREC_MGPU void *mgpuStreamCreate(void);
MIXPREC_MGPU void mgpuStreamSynchronize(void *stream);
MIXPREC_MGPU void mgpuStreamDestroy(void *stream);
MIXPREC_MGPU void *mgpuMemAlloc(uint64_t sizeBytes, void *stream,
                                bool isHostShared);
MIXPREC_MGPU void mgpuMemFree(void *ptr, void *stream);
MIXPREC_MGPU void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                             void *stream);
MIXPREC_MGPU void mgpuMemset32(void *dst, unsigned value, size_t count,
                               void *stream);
MIXPREC_MGPU void mgpuMemset16(void *dst, unsigned short value, size_t count,
                               void *stream);
MIXPREC_MGPU void *mgpuModuleLoad(void *data, size_t gpuBlobSize);
MIXPREC_MGPU void *mgpuModuleLoadJIT(void *data, int optLevel);
MIXPREC_MGPU void mgpuModuleUnload(void *module);
MIXPREC_MGPU void *mgpuModuleGetFunction(void *module, const char *name);
MIXPREC_MGPU void mgpuLaunchKernel(void *function, intptr_t gridX,
                                   intptr_t gridY, intptr_t gridZ,
                                   intptr_t blockX, intptr_t blockY,
                                   intptr_t blockZ, int32_t smem, void *stream,
                                   void **params, void **extra,
                                   size_t paramsCount);
MIXPREC_MGPU void *mgpuEventCreate(void);
MIXPREC_MGPU void mgpuEventDestroy(void *event);
MIXPREC_MGPU void mgpuEventSynchronize(void *event);
MIXPREC_MGPU void mgpuEventRecord(void *event, void *stream);
MIXPREC_MGPU void mgpuStreamWaitEvent(void *stream, void *event);

#undef MIXPREC_MGPU

namespace mixprec::cuda {

/// For tests: closes the driver and forgets every image, allocation, error
/// and the peak, as if the library had just been loaded.
__attribute__((visibility("hidden"))) void resetLaunchRuntime();

} // namespace mixprec::cuda

#endif // MIXPREC_RUNTIME_CUDA_GPULAUNCHRUNTIME_H
