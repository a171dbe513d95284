//===- CudaDriver.h - the CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// What CUDA model binaries run on: the driver API (libcuda) opened with
// dlopen, so a binary starts on a machine without a driver and says so, and
// every call returns a mixprec_status with a message (mixprec_last_error)
// instead of aborting. One context and one stream per Driver. C library
// only, like the rest of the model runtime.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_RUNTIME_CUDA_CUDADRIVER_H
#define MIXPREC_RUNTIME_CUDA_CUDADRIVER_H

#include "CudaDriverApi.h"
#include "mixprec/Runtime/mixprec.h"

#include <cstddef>
#include <cstdint>

namespace mixprec::cuda {

struct Driver;
using DevicePointer = libcuda::CUdeviceptr;
using Module = libcuda::CUmodule;
using Function = libcuda::CUfunction;

/// Loads the driver (libcuda.so.1, or the library $MIXPREC_LIBCUDA names),
/// initializes it, and creates a context and a stream on `device`.
/// MIXPREC_UNAVAILABLE when there is no driver or no such device.
mixprec_status open(int device, Driver **driver);
/// Destroys the stream and the context and unloads the driver; null is
/// allowed.
void close(Driver *driver);

/// Loads a cubin, fatbin or PTX (null-terminated) image.
mixprec_status loadModule(Driver *driver, const void *image, Module *module);
mixprec_status getFunction(Driver *driver, Module module, const char *name,
                           Function *kernel);
mixprec_status unloadModule(Driver *driver, Module module);
/// loadModule, then getFunction.
mixprec_status loadKernel(Driver *driver, const void *image, const char *name,
                          Module *module, Function *kernel);

mixprec_status allocate(Driver *driver, size_t bytes, DevicePointer *pointer);
mixprec_status release(Driver *driver, DevicePointer pointer);
/// Stream-ordered (cuMemAllocAsync, cuMemFreeAsync) where the driver and
/// the device support it; otherwise allocate, and release after waiting for
/// the stream.
mixprec_status allocateOnStream(Driver *driver, size_t bytes,
                                DevicePointer *pointer);
mixprec_status releaseOnStream(Driver *driver, DevicePointer pointer);
mixprec_status copyToDevice(Driver *driver, DevicePointer destination,
                            const void *source, size_t bytes);
mixprec_status copyToHost(Driver *driver, void *destination,
                          DevicePointer source, size_t bytes);
/// Copies on the stream in any direction, which the driver infers from the
/// addresses (unified addressing).
mixprec_status copyOnStream(Driver *driver, void *destination,
                            const void *source, size_t bytes);
/// Sets `count` elements of `elementBytes` (4 or 2) bytes to `value`, on
/// the stream.
mixprec_status fill(Driver *driver, DevicePointer destination, uint32_t value,
                    unsigned elementBytes, size_t count);

/// Lets `kernel` launch with more than 48 KiB of dynamic shared memory.
mixprec_status reserveSharedMemory(Driver *driver, Function kernel,
                                   const char *name, unsigned bytes);
/// Launches `kernel` on the driver's stream; `name` is for messages and must
/// stay valid until the next synchronize.
mixprec_status launch(Driver *driver, Function kernel, const char *name,
                      const unsigned grid[3], const unsigned block[3],
                      unsigned sharedBytes, void **arguments);
/// Waits for the stream; reports an error of a kernel launched before,
/// naming the kernels launched since the last wait.
mixprec_status synchronize(Driver *driver);

} // namespace mixprec::cuda

#endif // MIXPREC_RUNTIME_CUDA_CUDADRIVER_H
