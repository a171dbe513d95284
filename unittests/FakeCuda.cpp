//===- FakeCuda.cpp - a stand-in libcuda for the CUDA runtime's tests -----===//
//
// Implements the driver entry points runtime/cuda/CudaDriver.cpp uses
// (declared from the list in CudaDriverApi.h), with the failure $FAKE_CUDA
// names: no_device, init, oom, launch (an error the stream reports at
// synchronization, as an illegal address would), or none. Memory is host
// memory and a launch runs nothing. fakeCudaCalls(name) counts the calls of
// an entry point, for tests that check what the runtime asked for. Built
// twice: FAKE_CUDA_LEGACY leaves out the stream-ordered allocator (the
// list's optional entry points, CUDA < 11.2).
//
//===----------------------------------------------------------------------===//

#include "../runtime/cuda/CudaDriverApi.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>

using namespace mixprec::cuda::libcuda;

// The entry points, as the runtime calls them, and a counter of each.
#define FAKE_CUDA_DECLARE(field, symbol, parameters)                           \
  extern "C" CUresult symbol parameters;
#define FAKE_CUDA_COUNTER(field, symbol, parameters) {#symbol, 0},
#ifdef FAKE_CUDA_LEGACY
#define FAKE_CUDA_DECLARE_OPTIONAL(field, symbol, parameters)
#define FAKE_CUDA_COUNTER_OPTIONAL(field, symbol, parameters)
#else
#define FAKE_CUDA_DECLARE_OPTIONAL FAKE_CUDA_DECLARE
#define FAKE_CUDA_COUNTER_OPTIONAL FAKE_CUDA_COUNTER
#endif
MIXPREC_CUDA_DRIVER_ENTRY_POINTS(FAKE_CUDA_DECLARE, FAKE_CUDA_DECLARE_OPTIONAL)

namespace {

bool failing(const char *what) {
  const char *mode = std::getenv("FAKE_CUDA");
  return mode && std::strcmp(mode, what) == 0;
}

int launched = 0;

/// Calls per entry point.
struct Counter {
  const char *entryPoint;
  int calls;
};
Counter counters[] = {MIXPREC_CUDA_DRIVER_ENTRY_POINTS(
    FAKE_CUDA_COUNTER, FAKE_CUDA_COUNTER_OPTIONAL)};

/// Device memory is host memory that belongs to the context current when
/// it was allocated: destroying the context frees it, as the driver does.
struct Context {};
Context *currentContext;
// Never destroyed: a model library's own destructors free device memory
// at exit, after this library's static objects would be gone.
std::map<void *, Context *> &allocations = *new std::map<void *, Context *>;

CUdeviceptr allocate(size_t bytes) {
  void *memory = std::malloc(bytes);
  allocations[memory] = currentContext;
  return reinterpret_cast<CUdeviceptr>(memory);
}

void release(CUdeviceptr pointer) {
  void *memory = reinterpret_cast<void *>(pointer);
  allocations.erase(memory);
  std::free(memory);
}

void count(const char *entryPoint) {
  for (Counter &counter : counters)
    if (std::strcmp(counter.entryPoint, entryPoint) == 0)
      ++counter.calls;
}

/// Points `*out` at the `field` (name or text) of the error `result`.
CUresult describe(CUresult result, const char *ErrorText::*field,
                  const char **out) {
  const ErrorText *error = findError(result);
  if (!error)
    return CUDA_ERROR_INVALID_VALUE;
  *out = error->*field;
  return CUDA_SUCCESS;
}

} // namespace

extern "C" {

int fakeCudaCalls(const char *entryPoint) {
  for (const Counter &counter : counters)
    if (std::strcmp(counter.entryPoint, entryPoint) == 0)
      return counter.calls;
  return -1;
}

CUresult cuInit(unsigned) {
  count(__func__);
  return failing("init") ? CUDA_ERROR_NOT_INITIALIZED : CUDA_SUCCESS;
}
CUresult cuDeviceGetCount(int *devices) {
  count(__func__);
  *devices = failing("no_device") ? 0 : 1;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGet(int *device, int ordinal) {
  count(__func__);
  *device = ordinal;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int *value, int, int) {
  count(__func__);
  *value = 1;
  return CUDA_SUCCESS;
}
CUresult cuCtxCreate_v2(void **context, unsigned, int) {
  count(__func__);
  *context = currentContext = new Context;
  return CUDA_SUCCESS;
}
CUresult cuCtxDestroy_v2(void *context) {
  count(__func__);
  auto *destroyed = static_cast<Context *>(context);
  for (auto it = allocations.begin(); it != allocations.end();)
    if (it->second == destroyed) {
      std::free(it->first);
      it = allocations.erase(it);
    } else {
      ++it;
    }
  if (currentContext == destroyed)
    currentContext = nullptr;
  delete destroyed;
  return CUDA_SUCCESS;
}
CUresult cuCtxSetCurrent(void *context) {
  count(__func__);
  currentContext = static_cast<Context *>(context);
  return CUDA_SUCCESS;
}
CUresult cuStreamCreate(void **stream, unsigned) {
  count(__func__);
  *stream = &launched;
  return CUDA_SUCCESS;
}
CUresult cuStreamDestroy_v2(void *) {
  count(__func__);
  return CUDA_SUCCESS;
}
CUresult cuStreamSynchronize(void *) {
  count(__func__);
  // A launch error surfaces when the stream is waited on.
  return failing("launch") && launched ? CUDA_ERROR_LAUNCH_FAILED
                                       : CUDA_SUCCESS;
}
CUresult cuModuleLoadData(void **module, const void *image) {
  count(__func__);
  *module = const_cast<void *>(image);
  return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  count(__func__);
  // A fatbin (a compiled model's kernels) holds every kernel asked for; a
  // text "image" is the list of kernel names it holds.
  const uint32_t fatbinMagic = 0xBA55ED50;
  uint32_t magic;
  std::memcpy(&magic, module, sizeof(magic));
  if (magic != fatbinMagic &&
      !std::strstr(static_cast<const char *>(module), name))
    return CUDA_ERROR_NOT_FOUND;
  *function = module;
  return CUDA_SUCCESS;
}
CUresult cuModuleUnload(void *) {
  count(__func__);
  return CUDA_SUCCESS;
}
CUresult cuFuncSetAttribute(void *, int, int) {
  count(__func__);
  return CUDA_SUCCESS;
}
CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes) {
  count(__func__);
  if (failing("oom"))
    return CUDA_ERROR_OUT_OF_MEMORY;
  *pointer = allocate(bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemFree_v2(CUdeviceptr pointer) {
  count(__func__);
  release(pointer);
  return CUDA_SUCCESS;
}
#ifndef FAKE_CUDA_LEGACY
CUresult cuMemAllocAsync(CUdeviceptr *pointer, size_t bytes, void *) {
  count(__func__);
  if (failing("oom"))
    return CUDA_ERROR_OUT_OF_MEMORY;
  *pointer = allocate(bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemFreeAsync(CUdeviceptr pointer, void *) {
  count(__func__);
  release(pointer);
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetDefaultMemPool(void **pool, int) {
  count(__func__);
  *pool = &launched;
  return CUDA_SUCCESS;
}
CUresult cuMemPoolSetAttribute(void *, int, void *) {
  count(__func__);
  return CUDA_SUCCESS;
}
#endif
CUresult cuMemcpyAsync(CUdeviceptr destination, CUdeviceptr source,
                       size_t bytes, void *) {
  count(__func__);
  std::memcpy(reinterpret_cast<void *>(destination),
              reinterpret_cast<const void *>(source), bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemsetD32Async(CUdeviceptr destination, unsigned value,
                          size_t elements, void *) {
  count(__func__);
  for (size_t i = 0; i < elements; ++i)
    std::memcpy(reinterpret_cast<char *>(destination) + 4 * i, &value, 4);
  return CUDA_SUCCESS;
}
CUresult cuMemsetD16Async(CUdeviceptr destination, unsigned short value,
                          size_t elements, void *) {
  count(__func__);
  for (size_t i = 0; i < elements; ++i)
    std::memcpy(reinterpret_cast<char *>(destination) + 2 * i, &value, 2);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr destination, const void *source,
                              size_t bytes, void *) {
  count(__func__);
  std::memcpy(reinterpret_cast<void *>(destination), source, bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoHAsync_v2(void *destination, CUdeviceptr source,
                              size_t bytes, void *) {
  count(__func__);
  std::memcpy(destination, reinterpret_cast<void *>(source), bytes);
  return CUDA_SUCCESS;
}
CUresult cuLaunchKernel(void *, unsigned, unsigned, unsigned, unsigned,
                        unsigned, unsigned, unsigned, void *, void **,
                        void **) {
  count(__func__);
  ++launched;
  return CUDA_SUCCESS;
}
CUresult cuGetErrorName(CUresult result, const char **name) {
  count(__func__);
  return describe(result, &ErrorText::name, name);
}
CUresult cuGetErrorString(CUresult result, const char **text) {
  count(__func__);
  return describe(result, &ErrorText::text, text);
}

} // extern "C"
