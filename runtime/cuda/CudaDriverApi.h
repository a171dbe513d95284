//===- CudaDriverApi.h - the CUDA driver entry points mixprec uses -*- C++ -*-//
//
// The one list of the driver API (libcuda) entry points the CUDA runtime
// resolves (CudaDriver.cpp) and every stand-in driver exports (the GPU
// simulator, runtime/gpusim/Driver.cpp; the tests' unittests/FakeCuda.cpp),
// with the driver's types as cuda.h declares them for 64-bit hosts, so no
// toolkit header is needed; and the one list of the error codes they name.
// A stand-in declares its entry points from the list, so a definition whose
// type differs from the one the runtime calls does not compile.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_RUNTIME_CUDA_CUDADRIVERAPI_H
#define MIXPREC_RUNTIME_CUDA_CUDADRIVERAPI_H

#include <cstddef>

namespace mixprec::cuda::libcuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = void *;
using CUstream = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUmemoryPool = void *;

} // namespace mixprec::cuda::libcuda

/// REQUIRED(field, symbol, parameters) for each entry point every driver
/// has; OPTIONAL(...) for the stream-ordered allocator (CUDA 11.2), which an
/// older driver lacks. Every entry point returns a CUresult. `field` is the
/// runtime's name for it.
#define MIXPREC_CUDA_DRIVER_ENTRY_POINTS(REQUIRED, OPTIONAL)                   \
  REQUIRED(init, cuInit, (unsigned))                                           \
  REQUIRED(deviceGetCount, cuDeviceGetCount, (int *))                          \
  REQUIRED(deviceGet, cuDeviceGet, (CUdevice *, int))                          \
  REQUIRED(deviceGetAttribute, cuDeviceGetAttribute, (int *, int, CUdevice))   \
  REQUIRED(ctxCreate, cuCtxCreate_v2, (CUcontext *, unsigned, CUdevice))       \
  REQUIRED(ctxDestroy, cuCtxDestroy_v2, (CUcontext))                           \
  REQUIRED(ctxSetCurrent, cuCtxSetCurrent, (CUcontext))                        \
  REQUIRED(streamCreate, cuStreamCreate, (CUstream *, unsigned))               \
  REQUIRED(streamDestroy, cuStreamDestroy_v2, (CUstream))                      \
  REQUIRED(streamSynchronize, cuStreamSynchronize, (CUstream))                 \
  REQUIRED(moduleLoadData, cuModuleLoadData, (CUmodule *, const void *))       \
  REQUIRED(moduleGetFunction, cuModuleGetFunction,                             \
           (CUfunction *, CUmodule, const char *))                             \
  REQUIRED(moduleUnload, cuModuleUnload, (CUmodule))                           \
  REQUIRED(funcSetAttribute, cuFuncSetAttribute, (CUfunction, int, int))       \
  REQUIRED(memAlloc, cuMemAlloc_v2, (CUdeviceptr *, size_t))                   \
  REQUIRED(memFree, cuMemFree_v2, (CUdeviceptr))                               \
  REQUIRED(memcpyHtoDAsync, cuMemcpyHtoDAsync_v2,                              \
           (CUdeviceptr, const void *, size_t, CUstream))                      \
  REQUIRED(memcpyDtoHAsync, cuMemcpyDtoHAsync_v2,                              \
           (void *, CUdeviceptr, size_t, CUstream))                            \
  REQUIRED(memcpyAsync, cuMemcpyAsync,                                         \
           (CUdeviceptr, CUdeviceptr, size_t, CUstream))                       \
  REQUIRED(memsetD32Async, cuMemsetD32Async,                                   \
           (CUdeviceptr, unsigned, size_t, CUstream))                          \
  REQUIRED(memsetD16Async, cuMemsetD16Async,                                   \
           (CUdeviceptr, unsigned short, size_t, CUstream))                    \
  REQUIRED(launchKernel, cuLaunchKernel,                                       \
           (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,      \
            unsigned, unsigned, CUstream, void **, void **))                   \
  REQUIRED(getErrorName, cuGetErrorName, (CUresult, const char **))            \
  REQUIRED(getErrorString, cuGetErrorString, (CUresult, const char **))        \
  OPTIONAL(memAllocAsync, cuMemAllocAsync, (CUdeviceptr *, size_t, CUstream))  \
  OPTIONAL(memFreeAsync, cuMemFreeAsync, (CUdeviceptr, CUstream))              \
  OPTIONAL(deviceGetDefaultMemPool, cuDeviceGetDefaultMemPool,                 \
           (CUmemoryPool *, CUdevice))                                         \
  OPTIONAL(memPoolSetAttribute, cuMemPoolSetAttribute,                         \
           (CUmemoryPool, int, void *))

/// X(code, name, text) for each error code a driver here returns or the
/// runtime names, with the driver's description (the stub library's is
/// ours: the toolkit's stub describes nothing).
#define MIXPREC_CUDA_ERRORS(X)                                                 \
  X(0, CUDA_SUCCESS, "no error")                                               \
  X(1, CUDA_ERROR_INVALID_VALUE, "invalid argument")                           \
  X(2, CUDA_ERROR_OUT_OF_MEMORY, "out of memory")                              \
  X(3, CUDA_ERROR_NOT_INITIALIZED, "initialization error")                     \
  X(34, CUDA_ERROR_STUB_LIBRARY,                                               \
    "this is the CUDA toolkit's stub libcuda, not a driver")                   \
  X(100, CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected")           \
  X(101, CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal")                  \
  X(200, CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid")           \
  X(201, CUDA_ERROR_INVALID_CONTEXT, "invalid device context")                 \
  X(209, CUDA_ERROR_NO_BINARY_FOR_GPU,                                         \
    "no kernel image is available for execution on the device")                \
  X(218, CUDA_ERROR_INVALID_PTX, "a PTX JIT compilation failed")               \
  X(400, CUDA_ERROR_INVALID_HANDLE, "invalid resource handle")                 \
  X(500, CUDA_ERROR_NOT_FOUND, "named symbol not found")                       \
  X(700, CUDA_ERROR_ILLEGAL_ADDRESS,                                           \
    "an illegal memory access was encountered")                                \
  X(701, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,                                   \
    "too many resources requested for launch")                                 \
  X(702, CUDA_ERROR_LAUNCH_TIMEOUT, "the launch timed out and was terminated") \
  X(714, CUDA_ERROR_HARDWARE_STACK_ERROR, "hardware stack error")              \
  X(715, CUDA_ERROR_ILLEGAL_INSTRUCTION,                                       \
    "an illegal instruction was encountered")                                  \
  X(716, CUDA_ERROR_MISALIGNED_ADDRESS, "misaligned address")                  \
  X(719, CUDA_ERROR_LAUNCH_FAILED, "unspecified launch failure")               \
  X(801, CUDA_ERROR_NOT_SUPPORTED, "operation not supported")

namespace mixprec::cuda::libcuda {

enum : CUresult {
#define MIXPREC_CUDA_ERROR_CODE(code, name, text) name = code,
  MIXPREC_CUDA_ERRORS(MIXPREC_CUDA_ERROR_CODE)
#undef MIXPREC_CUDA_ERROR_CODE
};

/// An error code with its name and description.
struct ErrorText {
  CUresult code;
  const char *name, *text;
};

constexpr ErrorText kErrorTexts[] = {
#define MIXPREC_CUDA_ERROR_TEXT(code, name, text) {code, #name, text},
    MIXPREC_CUDA_ERRORS(MIXPREC_CUDA_ERROR_TEXT)
#undef MIXPREC_CUDA_ERROR_TEXT
};

/// The entry of `code` in kErrorTexts, or null.
constexpr const ErrorText *findError(CUresult code) {
  for (const ErrorText &error : kErrorTexts)
    if (error.code == code)
      return &error;
  return nullptr;
}

} // namespace mixprec::cuda::libcuda

#endif // MIXPREC_RUNTIME_CUDA_CUDADRIVERAPI_H
