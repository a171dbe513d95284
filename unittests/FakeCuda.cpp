//===- FakeCuda.cpp - a stand-in libcuda for the CUDA runtime's tests -----===//
//
// Implements the driver entry points runtime/cuda/CudaDriver.cpp uses, with
// the failure $FAKE_CUDA names: no_device, init, oom, launch (an error the
// stream reports at synchronization, as an illegal address would), or none.
// Memory is host memory and a launch runs nothing. fakeCudaCalls(name) counts
// the calls of an entry point, for tests that check what the runtime asked
// for. Built twice: FAKE_CUDA_LEGACY leaves out the stream-ordered allocator
// (CUDA < 11.2).
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>

namespace {

using CUresult = int;
constexpr CUresult kSuccess = 0, kNotInitialized = 3, kOutOfMemory = 2,
                   kNoDevice = 100, kNotFound = 500, kLaunchFailed = 719;

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
Counter counters[] = {
    {"cuInit", 0},
    {"cuCtxDestroy_v2", 0},
    {"cuStreamSynchronize", 0},
    {"cuModuleLoadData", 0},
    {"cuModuleUnload", 0},
    {"cuFuncSetAttribute", 0},
    {"cuMemAlloc_v2", 0},
    {"cuMemFree_v2", 0},
    {"cuMemAllocAsync", 0},
    {"cuMemFreeAsync", 0},
    {"cuMemPoolSetAttribute", 0},
    {"cuLaunchKernel", 0},
};

/// Device memory is host memory that belongs to the context current when
/// it was allocated: destroying the context frees it, as the driver does.
struct Context {};
Context *currentContext;
std::map<void *, Context *> allocations;

uint64_t allocate(size_t bytes) {
  void *memory = std::malloc(bytes);
  allocations[memory] = currentContext;
  return reinterpret_cast<uint64_t>(memory);
}

void release(uint64_t pointer) {
  void *memory = reinterpret_cast<void *>(pointer);
  allocations.erase(memory);
  std::free(memory);
}

void count(const char *entryPoint) {
  for (Counter &counter : counters)
    if (std::strcmp(counter.entryPoint, entryPoint) == 0)
      ++counter.calls;
}

struct Error {
  CUresult code;
  const char *name, *text;
};
const Error kErrors[] = {
    {kOutOfMemory, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {kNotInitialized, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {kNotFound, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {kLaunchFailed, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {kNoDevice, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
};

} // namespace

extern "C" {

int fakeCudaCalls(const char *entryPoint) {
  for (const Counter &counter : counters)
    if (std::strcmp(counter.entryPoint, entryPoint) == 0)
      return counter.calls;
  return -1;
}

CUresult cuInit(unsigned) {
  count("cuInit");
  return failing("init") ? kNotInitialized : 0;
}
CUresult cuDeviceGetCount(int *count) {
  *count = failing("no_device") ? 0 : 1;
  return kSuccess;
}
CUresult cuDeviceGet(int *device, int ordinal) {
  *device = ordinal;
  return kSuccess;
}
CUresult cuDeviceGetAttribute(int *value, int, int) {
  *value = 1;
  return kSuccess;
}
CUresult cuCtxCreate_v2(void **context, unsigned, int) {
  *context = currentContext = new Context;
  return kSuccess;
}
CUresult cuCtxDestroy_v2(void *context) {
  count("cuCtxDestroy_v2");
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
  return kSuccess;
}
CUresult cuCtxSetCurrent(void *context) {
  currentContext = static_cast<Context *>(context);
  return kSuccess;
}
CUresult cuStreamCreate(void **stream, unsigned) {
  *stream = &launched;
  return kSuccess;
}
CUresult cuStreamDestroy_v2(void *) { return kSuccess; }
CUresult cuStreamSynchronize(void *) {
  count("cuStreamSynchronize");
  // A launch error surfaces when the stream is waited on.
  return failing("launch") && launched ? kLaunchFailed : kSuccess;
}
CUresult cuModuleLoadData(void **module, const void *image) {
  count("cuModuleLoadData");
  *module = const_cast<void *>(image);
  return kSuccess;
}
CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  // A fatbin (a compiled model's kernels) holds every kernel asked for; a
  // text "image" is the list of kernel names it holds.
  const uint32_t fatbinMagic = 0xBA55ED50;
  uint32_t magic;
  std::memcpy(&magic, module, sizeof(magic));
  if (magic != fatbinMagic &&
      !std::strstr(static_cast<const char *>(module), name))
    return kNotFound;
  *function = module;
  return kSuccess;
}
CUresult cuModuleUnload(void *) {
  count("cuModuleUnload");
  return kSuccess;
}
CUresult cuFuncSetAttribute(void *, int, int) {
  count("cuFuncSetAttribute");
  return kSuccess;
}
CUresult cuMemAlloc_v2(uint64_t *pointer, size_t bytes) {
  count("cuMemAlloc_v2");
  if (failing("oom"))
    return kOutOfMemory;
  *pointer = allocate(bytes);
  return kSuccess;
}
CUresult cuMemFree_v2(uint64_t pointer) {
  count("cuMemFree_v2");
  release(pointer);
  return kSuccess;
}
#ifndef FAKE_CUDA_LEGACY
CUresult cuMemAllocAsync(uint64_t *pointer, size_t bytes, void *) {
  count("cuMemAllocAsync");
  if (failing("oom"))
    return kOutOfMemory;
  *pointer = allocate(bytes);
  return kSuccess;
}
CUresult cuMemFreeAsync(uint64_t pointer, void *) {
  count("cuMemFreeAsync");
  release(pointer);
  return kSuccess;
}
CUresult cuDeviceGetDefaultMemPool(void **pool, int) {
  *pool = &launched;
  return kSuccess;
}
CUresult cuMemPoolSetAttribute(void *, int, void *) {
  count("cuMemPoolSetAttribute");
  return kSuccess;
}
#endif
CUresult cuMemcpyAsync(uint64_t destination, uint64_t source, size_t bytes,
                       void *) {
  std::memcpy(reinterpret_cast<void *>(destination),
              reinterpret_cast<const void *>(source), bytes);
  return kSuccess;
}
CUresult cuMemsetD32Async(uint64_t destination, unsigned value, size_t count,
                          void *) {
  for (size_t i = 0; i < count; ++i)
    std::memcpy(reinterpret_cast<char *>(destination) + 4 * i, &value, 4);
  return kSuccess;
}
CUresult cuMemsetD16Async(uint64_t destination, unsigned short value,
                          size_t count, void *) {
  for (size_t i = 0; i < count; ++i)
    std::memcpy(reinterpret_cast<char *>(destination) + 2 * i, &value, 2);
  return kSuccess;
}
CUresult cuMemcpyHtoDAsync_v2(uint64_t destination, const void *source,
                              size_t bytes, void *) {
  std::memcpy(reinterpret_cast<void *>(destination), source, bytes);
  return kSuccess;
}
CUresult cuMemcpyDtoHAsync_v2(void *destination, uint64_t source, size_t bytes,
                              void *) {
  std::memcpy(destination, reinterpret_cast<void *>(source), bytes);
  return kSuccess;
}
CUresult cuLaunchKernel(void *, unsigned, unsigned, unsigned, unsigned,
                        unsigned, unsigned, unsigned, void *, void **,
                        void **) {
  count("cuLaunchKernel");
  ++launched;
  return kSuccess;
}
CUresult cuGetErrorName(CUresult result, const char **name) {
  for (const Error &error : kErrors)
    if (error.code == result) {
      *name = error.name;
      return kSuccess;
    }
  return 1;
}
CUresult cuGetErrorString(CUresult result, const char **text) {
  for (const Error &error : kErrors)
    if (error.code == result) {
      *text = error.text;
      return kSuccess;
    }
  return 1;
}

} // extern "C"
