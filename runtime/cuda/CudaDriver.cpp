//===- CudaDriver.cpp - the CUDA driver API, loaded at run time -----------===//

#include "CudaDriver.h"
#include "ModelEntries.h"

#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>

namespace mixprec::cuda {

namespace {

// The driver API's types, as cuda.h declares them; the toolkit's headers are
// not needed to build the runtime.
using CUresult = int;
using CUdevice = int;
using CUcontext = void *;
using CUstream = void *;
using CUmemoryPool = void *;
constexpr CUresult kSuccess = 0;
constexpr CUresult kNoDevice = 100;
constexpr CUresult kInvalidDevice = 101;
constexpr CUresult kStubLibrary = 34;
constexpr int kMemoryPoolsSupported = 115; // CU_DEVICE_ATTRIBUTE_...
constexpr int kMaxDynamicSharedBytes = 8;  // CU_FUNC_ATTRIBUTE_...
constexpr int kReleaseThreshold = 4;       // CU_MEMPOOL_ATTR_...

/// The entry points, resolved by name.
struct Api {
  CUresult (*init)(unsigned);
  CUresult (*deviceGetCount)(int *);
  CUresult (*deviceGet)(CUdevice *, int);
  CUresult (*deviceGetAttribute)(int *, int, CUdevice);
  CUresult (*ctxCreate)(CUcontext *, unsigned, CUdevice);
  CUresult (*ctxDestroy)(CUcontext);
  CUresult (*ctxSetCurrent)(CUcontext);
  CUresult (*streamCreate)(CUstream *, unsigned);
  CUresult (*streamDestroy)(CUstream);
  CUresult (*streamSynchronize)(CUstream);
  CUresult (*moduleLoadData)(Module *, const void *);
  CUresult (*moduleGetFunction)(Function *, Module, const char *);
  CUresult (*moduleUnload)(Module);
  CUresult (*funcSetAttribute)(Function, int, int);
  CUresult (*memAlloc)(DevicePointer *, size_t);
  CUresult (*memFree)(DevicePointer);
  CUresult (*memcpyHtoDAsync)(DevicePointer, const void *, size_t, CUstream);
  CUresult (*memcpyDtoHAsync)(void *, DevicePointer, size_t, CUstream);
  CUresult (*memcpyAsync)(DevicePointer, DevicePointer, size_t, CUstream);
  CUresult (*memsetD32Async)(DevicePointer, unsigned, size_t, CUstream);
  CUresult (*memsetD16Async)(DevicePointer, unsigned short, size_t, CUstream);
  CUresult (*launchKernel)(Function, unsigned, unsigned, unsigned, unsigned,
                           unsigned, unsigned, unsigned, CUstream, void **,
                           void **);
  CUresult (*getErrorName)(CUresult, const char **);
  CUresult (*getErrorString)(CUresult, const char **);
  // The stream-ordered allocator (CUDA 11.2); null when the driver is older.
  CUresult (*memAllocAsync)(DevicePointer *, size_t, CUstream);
  CUresult (*memFreeAsync)(DevicePointer, CUstream);
  CUresult (*deviceGetDefaultMemPool)(CUmemoryPool *, CUdevice);
  CUresult (*memPoolSetAttribute)(CUmemoryPool, int, void *);
};

/// Resolves `symbol` into `function`; false when the driver lacks it.
template <typename Fn>
bool resolve(void *library, const char *symbol, Fn &function) {
  function = reinterpret_cast<Fn>(dlsym(library, symbol));
  return function != nullptr;
}

} // namespace

struct Driver {
  void *library;
  Api api;
  CUcontext context;
  CUstream stream;
  bool streamOrdered; // allocations use cuMemAllocAsync / cuMemFreeAsync
  // The kernels launched since the stream was last waited on, for messages.
  const char *firstLaunched, *lastLaunched;
  unsigned launches;
};

namespace {

/// Names of the errors a driver may not describe itself (the toolkit's stub
/// describes none).
struct KnownError {
  CUresult code;
  const char *name, *text;
};
constexpr KnownError kKnownErrors[] = {
    {2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {34, "CUDA_ERROR_STUB_LIBRARY",
     "this is the CUDA toolkit's stub libcuda, not a driver"},
    {100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access"},
    {719, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
};

/// Fails with the driver's name and description of `result`.
mixprec_status fail(const Driver *driver, CUresult result, const char *what) {
  const char *name = "CUDA_ERROR_UNKNOWN", *text = "unknown error";
  for (const KnownError &known : kKnownErrors)
    if (known.code == result)
      name = known.name, text = known.text;
  // A driver that does not know the code fails and may null the strings.
  const char *own = nullptr;
  if (driver && driver->api.getErrorName &&
      driver->api.getErrorName(result, &own) == kSuccess && own)
    name = own;
  own = nullptr;
  if (driver && driver->api.getErrorString &&
      driver->api.getErrorString(result, &own) == kSuccess && own)
    text = own;
  mixprec_status status =
      result == kNoDevice || result == kInvalidDevice || result == kStubLibrary
          ? MIXPREC_UNAVAILABLE
          : MIXPREC_DEVICE_ERROR;
  return mixprec_fail(status, "%s: %s (%s, %d)", what, text, name, result);
}

bool resolveAll(Driver &driver) {
  Api &api = driver.api;
  void *lib = driver.library;
  return resolve(lib, "cuInit", api.init) &&
         resolve(lib, "cuDeviceGetCount", api.deviceGetCount) &&
         resolve(lib, "cuDeviceGet", api.deviceGet) &&
         resolve(lib, "cuDeviceGetAttribute", api.deviceGetAttribute) &&
         resolve(lib, "cuCtxCreate_v2", api.ctxCreate) &&
         resolve(lib, "cuCtxDestroy_v2", api.ctxDestroy) &&
         resolve(lib, "cuCtxSetCurrent", api.ctxSetCurrent) &&
         resolve(lib, "cuStreamCreate", api.streamCreate) &&
         resolve(lib, "cuStreamDestroy_v2", api.streamDestroy) &&
         resolve(lib, "cuStreamSynchronize", api.streamSynchronize) &&
         resolve(lib, "cuModuleLoadData", api.moduleLoadData) &&
         resolve(lib, "cuModuleGetFunction", api.moduleGetFunction) &&
         resolve(lib, "cuModuleUnload", api.moduleUnload) &&
         resolve(lib, "cuFuncSetAttribute", api.funcSetAttribute) &&
         resolve(lib, "cuMemAlloc_v2", api.memAlloc) &&
         resolve(lib, "cuMemFree_v2", api.memFree) &&
         resolve(lib, "cuMemcpyHtoDAsync_v2", api.memcpyHtoDAsync) &&
         resolve(lib, "cuMemcpyDtoHAsync_v2", api.memcpyDtoHAsync) &&
         resolve(lib, "cuMemcpyAsync", api.memcpyAsync) &&
         resolve(lib, "cuMemsetD32Async", api.memsetD32Async) &&
         resolve(lib, "cuMemsetD16Async", api.memsetD16Async) &&
         resolve(lib, "cuLaunchKernel", api.launchKernel) &&
         resolve(lib, "cuGetErrorName", api.getErrorName) &&
         resolve(lib, "cuGetErrorString", api.getErrorString);
}

/// Uses the stream-ordered allocator when the driver and the device have it.
void setUpAllocator(Driver &driver, CUdevice device) {
  Api &api = driver.api;
  void *lib = driver.library;
  int pools = 0;
  if (!resolve(lib, "cuMemAllocAsync", api.memAllocAsync) ||
      !resolve(lib, "cuMemFreeAsync", api.memFreeAsync) ||
      api.deviceGetAttribute(&pools, kMemoryPoolsSupported, device) || !pools)
    return;
  driver.streamOrdered = true;
  // The pool would hand memory back to the system at every synchronization
  // (threshold 0); a model frees all it allocates at the end of each call.
  CUmemoryPool pool = nullptr;
  uint64_t keep = UINT64_MAX;
  if (resolve(lib, "cuDeviceGetDefaultMemPool", api.deviceGetDefaultMemPool) &&
      resolve(lib, "cuMemPoolSetAttribute", api.memPoolSetAttribute) &&
      api.deviceGetDefaultMemPool(&pool, device) == kSuccess)
    api.memPoolSetAttribute(pool, kReleaseThreshold, &keep);
}

} // namespace

mixprec_status open(int device, Driver **driver) {
  *driver = nullptr;
  const char *path = std::getenv("MIXPREC_LIBCUDA");
  if (!path || !*path)
    path = "libcuda.so.1";
  void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    return mixprec_fail(MIXPREC_UNAVAILABLE,
                        "no CUDA driver on this machine: cannot load %s (%s)",
                        path, why ? why : "not found");
  }
  auto *opened = static_cast<Driver *>(std::calloc(1, sizeof(Driver)));
  if (!opened) {
    dlclose(library);
    return mixprec_fail(MIXPREC_INTERNAL, "out of memory opening CUDA");
  }
  opened->library = library;
  if (!resolveAll(*opened)) {
    close(opened);
    return mixprec_fail(MIXPREC_UNAVAILABLE,
                        "%s is not a usable CUDA driver: an entry point is "
                        "missing",
                        path);
  }
  const Api &api = opened->api;
  int count = 0;
  CUdevice handle = 0;
  CUresult result = api.init(0);
  if (result == kSuccess)
    result = api.deviceGetCount(&count);
  if (result == kSuccess && (device < 0 || device >= count)) {
    close(opened);
    return mixprec_fail(MIXPREC_UNAVAILABLE,
                        "no CUDA device %d: the driver sees %d", device, count);
  }
  if (result == kSuccess)
    result = api.deviceGet(&handle, device);
  if (result == kSuccess)
    result = api.ctxCreate(&opened->context, 0, handle);
  if (result == kSuccess)
    result = api.streamCreate(&opened->stream, 0);
  if (result != kSuccess) {
    mixprec_status status = fail(opened, result, "initializing CUDA");
    close(opened);
    return status;
  }
  setUpAllocator(*opened, handle);
  *driver = opened;
  return MIXPREC_OK;
}

void close(Driver *driver) {
  if (!driver)
    return;
  if (driver->context)
    driver->api.ctxSetCurrent(driver->context);
  if (driver->stream)
    driver->api.streamDestroy(driver->stream);
  if (driver->context)
    driver->api.ctxDestroy(driver->context);
  dlclose(driver->library);
  std::free(driver);
}

/// Makes the driver's context current on the calling thread: each Driver
/// owns a context, and a caller may use several, or other threads.
mixprec_status makeCurrent(Driver *driver) {
  if (CUresult result = driver->api.ctxSetCurrent(driver->context))
    return fail(driver, result, "selecting the CUDA context");
  return MIXPREC_OK;
}

mixprec_status loadModule(Driver *driver, const void *image, Module *module) {
  if (mixprec_status status = makeCurrent(driver))
    return status;
  if (CUresult result = driver->api.moduleLoadData(module, image))
    return fail(driver, result, "loading the GPU code");
  return MIXPREC_OK;
}

mixprec_status getFunction(Driver *driver, Module module, const char *name,
                           Function *kernel) {
  if (mixprec_status status = makeCurrent(driver))
    return status;
  if (CUresult result = driver->api.moduleGetFunction(kernel, module, name)) {
    char what[256];
    std::snprintf(what, sizeof(what), "finding kernel '%s'", name);
    return fail(driver, result, what);
  }
  return MIXPREC_OK;
}

mixprec_status unloadModule(Driver *driver, Module module) {
  if (mixprec_status status = makeCurrent(driver))
    return status;
  if (CUresult result = driver->api.moduleUnload(module))
    return fail(driver, result, "unloading the GPU code");
  return MIXPREC_OK;
}

mixprec_status loadKernel(Driver *driver, const void *image, const char *name,
                          Module *module, Function *kernel) {
  if (mixprec_status status = loadModule(driver, image, module))
    return status;
  return getFunction(driver, *module, name, kernel);
}

/// The status of an allocation of `bytes` that returned `result`.
static mixprec_status allocated(Driver *driver, CUresult result, size_t bytes) {
  if (result == 0)
    return MIXPREC_OK;
  char what[96];
  std::snprintf(what, sizeof(what), "allocating %zu bytes of GPU memory",
                bytes);
  return fail(driver, result, what);
}

mixprec_status allocate(Driver *driver, size_t bytes, DevicePointer *pointer) {
  if (mixprec_status status = makeCurrent(driver))
    return status;
  return allocated(driver, driver->api.memAlloc(pointer, bytes ? bytes : 1),
                   bytes);
}

mixprec_status release(Driver *driver, DevicePointer pointer) {
  if (mixprec_status status = makeCurrent(driver))
    return status;
  if (CUresult result = driver->api.memFree(pointer))
    return fail(driver, result, "freeing GPU memory");
  return MIXPREC_OK;
}

mixprec_status allocateOnStream(Driver *driver, size_t bytes,
                                DevicePointer *pointer) {
  if (!driver->streamOrdered)
    return allocate(driver, bytes, pointer);
  if (mixprec_status status = makeCurrent(driver))
    return status;
  return allocated(
      driver,
      driver->api.memAllocAsync(pointer, bytes ? bytes : 1, driver->stream),
      bytes);
}

mixprec_status releaseOnStream(Driver *driver, DevicePointer pointer) {
  if (!driver->streamOrdered) {
    // cuMemFree does not wait for the kernels that may still use the memory.
    if (mixprec_status status = synchronize(driver))
      return status;
    return release(driver, pointer);
  }
  if (mixprec_status status = makeCurrent(driver))
    return status;
  if (CUresult result = driver->api.memFreeAsync(pointer, driver->stream))
    return fail(driver, result, "freeing GPU memory");
  return MIXPREC_OK;
}

mixprec_status copyToDevice(Driver *driver, DevicePointer destination,
                            const void *source, size_t bytes) {
  if (mixprec_status status = makeCurrent(driver))
    return status;
  if (CUresult result = driver->api.memcpyHtoDAsync(destination, source, bytes,
                                                    driver->stream))
    return fail(driver, result, "copying to the GPU");
  return MIXPREC_OK;
}

mixprec_status copyToHost(Driver *driver, void *destination,
                          DevicePointer source, size_t bytes) {
  if (mixprec_status status = makeCurrent(driver))
    return status;
  const Api &api = driver->api;
  if (CUresult result =
          api.memcpyDtoHAsync(destination, source, bytes, driver->stream))
    return fail(driver, result, "copying from the GPU");
  // The host reads the bytes next.
  return synchronize(driver);
}

mixprec_status copyOnStream(Driver *driver, void *destination,
                            const void *source, size_t bytes) {
  if (mixprec_status status = makeCurrent(driver))
    return status;
  if (CUresult result =
          driver->api.memcpyAsync(DevicePointer(destination),
                                  DevicePointer(source), bytes, driver->stream))
    return fail(driver, result, "copying GPU memory");
  return MIXPREC_OK;
}

mixprec_status fill(Driver *driver, DevicePointer destination, uint32_t value,
                    unsigned elementBytes, size_t count) {
  if (mixprec_status status = makeCurrent(driver))
    return status;
  CUresult result =
      elementBytes == 4
          ? driver->api.memsetD32Async(destination, value, count,
                                       driver->stream)
          : driver->api.memsetD16Async(destination, uint16_t(value), count,
                                       driver->stream);
  if (result)
    return fail(driver, result, "filling GPU memory");
  return MIXPREC_OK;
}

mixprec_status reserveSharedMemory(Driver *driver, Function kernel,
                                   const char *name, unsigned bytes) {
  if (mixprec_status status = makeCurrent(driver))
    return status;
  if (CUresult result = driver->api.funcSetAttribute(
          kernel, kMaxDynamicSharedBytes, int(bytes))) {
    char what[256];
    std::snprintf(what, sizeof(what),
                  "giving kernel '%s' %u bytes of shared memory", name, bytes);
    return fail(driver, result, what);
  }
  return MIXPREC_OK;
}

mixprec_status launch(Driver *driver, Function kernel, const char *name,
                      const unsigned grid[3], const unsigned block[3],
                      unsigned sharedBytes, void **arguments) {
  if (mixprec_status status = makeCurrent(driver))
    return status;
  if (CUresult result = driver->api.launchKernel(
          kernel, grid[0], grid[1], grid[2], block[0], block[1], block[2],
          sharedBytes, driver->stream, arguments, nullptr)) {
    char what[256];
    std::snprintf(what, sizeof(what), "launching kernel '%s'", name);
    return fail(driver, result, what);
  }
  if (driver->launches++ == 0)
    driver->firstLaunched = name;
  driver->lastLaunched = name;
  return MIXPREC_OK;
}

mixprec_status synchronize(Driver *driver) {
  if (mixprec_status status = makeCurrent(driver))
    return status;
  CUresult result = driver->api.streamSynchronize(driver->stream);
  // A kernel's fault shows here, not at its launch: name the kernels that
  // may have caused it.
  char what[320] = "running GPU work";
  if (driver->launches == 1)
    std::snprintf(what, sizeof(what), "running kernel '%s'",
                  driver->firstLaunched);
  else if (driver->launches > 1)
    std::snprintf(
        what, sizeof(what), "running kernels '%s' to '%s' (%u launches)",
        driver->firstLaunched, driver->lastLaunched, driver->launches);
  driver->launches = 0;
  if (result)
    return fail(driver, result, what);
  return MIXPREC_OK;
}

} // namespace mixprec::cuda
