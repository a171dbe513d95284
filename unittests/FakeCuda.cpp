//===- FakeCuda.cpp - a stand-in libcuda for the CUDA runtime's tests -----===//
//
// Implements the driver entry points runtime/cuda/CudaDriver.cpp uses, with
// the failure $FAKE_CUDA names: no_device, init, oom, launch (an error the
// stream reports at synchronization, as an illegal address would), or none.
// Memory is host memory.
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {

using CUresult = int;
constexpr CUresult kSuccess = 0, kNotInitialized = 3, kOutOfMemory = 2,
                   kNoDevice = 100, kNotFound = 500, kLaunchFailed = 719;

bool failing(const char *what) {
  const char *mode = std::getenv("FAKE_CUDA");
  return mode && std::strcmp(mode, what) == 0;
}

int launched = 0;

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

CUresult cuInit(unsigned) { return failing("init") ? kNotInitialized : 0; }
CUresult cuDeviceGetCount(int *count) {
  *count = failing("no_device") ? 0 : 1;
  return kSuccess;
}
CUresult cuDeviceGet(int *device, int ordinal) {
  *device = ordinal;
  return kSuccess;
}
CUresult cuCtxCreate_v2(void **context, unsigned, int) {
  *context = &launched;
  return kSuccess;
}
CUresult cuCtxDestroy_v2(void *) { return kSuccess; }
CUresult cuCtxSetCurrent(void *) { return kSuccess; }
CUresult cuStreamCreate(void **stream, unsigned) {
  *stream = &launched;
  return kSuccess;
}
CUresult cuStreamDestroy_v2(void *) { return kSuccess; }
CUresult cuStreamSynchronize(void *) {
  // A launch error surfaces when the stream is waited on.
  return failing("launch") && launched ? kLaunchFailed : kSuccess;
}
CUresult cuModuleLoadData(void **module, const void *image) {
  *module = const_cast<void *>(image);
  return kSuccess;
}
CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  // The "image" is the list of kernel names it holds.
  if (!std::strstr(static_cast<const char *>(module), name))
    return kNotFound;
  *function = module;
  return kSuccess;
}
CUresult cuMemAlloc_v2(uint64_t *pointer, size_t bytes) {
  if (failing("oom"))
    return kOutOfMemory;
  *pointer = reinterpret_cast<uint64_t>(std::malloc(bytes));
  return kSuccess;
}
CUresult cuMemFree_v2(uint64_t pointer) {
  std::free(reinterpret_cast<void *>(pointer));
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
