//===- CudaDriver.cpp - the CUDA driver API, loaded at run time -----------===//

#include "CudaDriver.h"
#include "CudaDriverApi.h"
#include "ModelEntries.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>

namespace mixprec::cuda {

using namespace libcuda;

namespace {

constexpr int kMemoryPoolsSupported = 115; // CU_DEVICE_ATTRIBUTE_...
constexpr int kMaxDynamicSharedBytes = 8;  // CU_FUNC_ATTRIBUTE_...
constexpr int kReleaseThreshold = 4;       // CU_MEMPOOL_ATTR_...

/// The entry points, resolved by name; an optional one is null when the
/// driver lacks it.
struct Api {
#define MIXPREC_CUDA_API_FIELD(field, symbol, parameters)                      \
  CUresult(*field) parameters;
  MIXPREC_CUDA_DRIVER_ENTRY_POINTS(MIXPREC_CUDA_API_FIELD,
                                   MIXPREC_CUDA_API_FIELD)
#undef MIXPREC_CUDA_API_FIELD
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

/// Fails with the driver's name and description of `result` (ours where
/// the driver has none: the toolkit's stub describes no code), after what
/// was done, formatted from `whatFormat`.
__attribute__((format(printf, 3, 4))) mixprec_status
fail(const Driver *driver, CUresult result, const char *whatFormat, ...) {
  char what[320];
  va_list args;
  va_start(args, whatFormat);
  std::vsnprintf(what, sizeof(what), whatFormat, args);
  va_end(args);
  const char *name = "CUDA_ERROR_UNKNOWN", *text = "unknown error";
  if (const ErrorText *known = findError(result))
    name = known->name, text = known->text;
  // A driver that does not know the code fails and may null the strings.
  const char *own = nullptr;
  if (driver && driver->api.getErrorName &&
      driver->api.getErrorName(result, &own) == CUDA_SUCCESS && own)
    name = own;
  own = nullptr;
  if (driver && driver->api.getErrorString &&
      driver->api.getErrorString(result, &own) == CUDA_SUCCESS && own)
    text = own;
  mixprec_status status = result == CUDA_ERROR_NO_DEVICE ||
                                  result == CUDA_ERROR_INVALID_DEVICE ||
                                  result == CUDA_ERROR_STUB_LIBRARY
                              ? MIXPREC_UNAVAILABLE
                              : MIXPREC_DEVICE_ERROR;
  return mixprec_fail(status, "%s: %s (%s, %d)", what, text, name, result);
}

/// Resolves every entry point; false when a required one is missing.
bool resolveAll(Driver &driver) {
  Api &api = driver.api;
  void *lib = driver.library;
  bool found = true;
#define MIXPREC_CUDA_RESOLVE_REQUIRED(field, symbol, parameters)               \
  found = resolve(lib, #symbol, api.field) && found;
#define MIXPREC_CUDA_RESOLVE_OPTIONAL(field, symbol, parameters)               \
  resolve(lib, #symbol, api.field);
  MIXPREC_CUDA_DRIVER_ENTRY_POINTS(MIXPREC_CUDA_RESOLVE_REQUIRED,
                                   MIXPREC_CUDA_RESOLVE_OPTIONAL)
#undef MIXPREC_CUDA_RESOLVE_REQUIRED
#undef MIXPREC_CUDA_RESOLVE_OPTIONAL
  return found;
}

/// Uses the stream-ordered allocator when the driver and the device have it.
void setUpAllocator(Driver &driver, CUdevice device) {
  const Api &api = driver.api;
  int pools = 0;
  if (!api.memAllocAsync || !api.memFreeAsync ||
      api.deviceGetAttribute(&pools, kMemoryPoolsSupported, device) || !pools)
    return;
  driver.streamOrdered = true;
  // The pool would hand memory back to the system at every synchronization
  // (threshold 0); a model frees all it allocates at the end of each call.
  CUmemoryPool pool = nullptr;
  uint64_t keep = UINT64_MAX;
  if (api.deviceGetDefaultMemPool && api.memPoolSetAttribute &&
      api.deviceGetDefaultMemPool(&pool, device) == CUDA_SUCCESS)
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
  if (result == CUDA_SUCCESS)
    result = api.deviceGetCount(&count);
  if (result == CUDA_SUCCESS && (device < 0 || device >= count)) {
    close(opened);
    return mixprec_fail(MIXPREC_UNAVAILABLE,
                        "no CUDA device %d: the driver sees %d", device, count);
  }
  if (result == CUDA_SUCCESS)
    result = api.deviceGet(&handle, device);
  if (result == CUDA_SUCCESS)
    result = api.ctxCreate(&opened->context, 0, handle);
  if (result == CUDA_SUCCESS)
    result = api.streamCreate(&opened->stream, 0);
  if (result != CUDA_SUCCESS) {
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

/// Runs the driver call `call(api)` with the driver's context current; a
/// failure of either is one of `what` (what the call does).
template <typename Call>
static mixprec_status inContext(Driver *driver, const char *what, Call call) {
  if (mixprec_status status = makeCurrent(driver))
    return status;
  if (CUresult result = call(driver->api))
    return fail(driver, result, "%s", what);
  return MIXPREC_OK;
}

mixprec_status loadModule(Driver *driver, const void *image, Module *module) {
  return inContext(driver, "loading the GPU code", [&](const Api &api) {
    return api.moduleLoadData(module, image);
  });
}

mixprec_status getFunction(Driver *driver, Module module, const char *name,
                           Function *kernel) {
  char what[256];
  std::snprintf(what, sizeof(what), "finding kernel '%s'", name);
  return inContext(driver, what, [&](const Api &api) {
    return api.moduleGetFunction(kernel, module, name);
  });
}

mixprec_status unloadModule(Driver *driver, Module module) {
  return inContext(driver, "unloading the GPU code",
                   [&](const Api &api) { return api.moduleUnload(module); });
}

mixprec_status loadKernel(Driver *driver, const void *image, const char *name,
                          Module *module, Function *kernel) {
  if (mixprec_status status = loadModule(driver, image, module))
    return status;
  return getFunction(driver, *module, name, kernel);
}

/// Runs the allocation `call` of `bytes` with the driver's context current.
template <typename Call>
static mixprec_status allocateWith(Driver *driver, size_t bytes, Call call) {
  char what[96];
  std::snprintf(what, sizeof(what), "allocating %zu bytes of GPU memory",
                bytes);
  return inContext(driver, what, call);
}

mixprec_status allocate(Driver *driver, size_t bytes, DevicePointer *pointer) {
  return allocateWith(driver, bytes, [&](const Api &api) {
    return api.memAlloc(pointer, bytes ? bytes : 1);
  });
}

mixprec_status release(Driver *driver, DevicePointer pointer) {
  return inContext(driver, "freeing GPU memory",
                   [&](const Api &api) { return api.memFree(pointer); });
}

mixprec_status allocateOnStream(Driver *driver, size_t bytes,
                                DevicePointer *pointer) {
  if (!driver->streamOrdered)
    return allocate(driver, bytes, pointer);
  return allocateWith(driver, bytes, [&](const Api &api) {
    return api.memAllocAsync(pointer, bytes ? bytes : 1, driver->stream);
  });
}

mixprec_status releaseOnStream(Driver *driver, DevicePointer pointer) {
  if (!driver->streamOrdered) {
    // cuMemFree does not wait for the kernels that may still use the memory.
    if (mixprec_status status = synchronize(driver))
      return status;
    return release(driver, pointer);
  }
  return inContext(driver, "freeing GPU memory", [&](const Api &api) {
    return api.memFreeAsync(pointer, driver->stream);
  });
}

mixprec_status copyToDevice(Driver *driver, DevicePointer destination,
                            const void *source, size_t bytes) {
  return inContext(driver, "copying to the GPU", [&](const Api &api) {
    return api.memcpyHtoDAsync(destination, source, bytes, driver->stream);
  });
}

mixprec_status copyToHost(Driver *driver, void *destination,
                          DevicePointer source, size_t bytes) {
  if (mixprec_status status =
          inContext(driver, "copying from the GPU", [&](const Api &api) {
            return api.memcpyDtoHAsync(destination, source, bytes,
                                       driver->stream);
          }))
    return status;
  // The host reads the bytes next.
  return synchronize(driver);
}

mixprec_status copyOnStream(Driver *driver, void *destination,
                            const void *source, size_t bytes) {
  return inContext(driver, "copying GPU memory", [&](const Api &api) {
    return api.memcpyAsync(DevicePointer(destination), DevicePointer(source),
                           bytes, driver->stream);
  });
}

mixprec_status fill(Driver *driver, DevicePointer destination, uint32_t value,
                    unsigned elementBytes, size_t count) {
  return inContext(driver, "filling GPU memory", [&](const Api &api) {
    return elementBytes == 4
               ? api.memsetD32Async(destination, value, count, driver->stream)
               : api.memsetD16Async(destination, uint16_t(value), count,
                                    driver->stream);
  });
}

mixprec_status reserveSharedMemory(Driver *driver, Function kernel,
                                   const char *name, unsigned bytes) {
  char what[256];
  std::snprintf(what, sizeof(what),
                "giving kernel '%s' %u bytes of shared memory", name, bytes);
  return inContext(driver, what, [&](const Api &api) {
    return api.funcSetAttribute(kernel, kMaxDynamicSharedBytes, int(bytes));
  });
}

mixprec_status launch(Driver *driver, Function kernel, const char *name,
                      const unsigned grid[3], const unsigned block[3],
                      unsigned sharedBytes, void **arguments) {
  if (mixprec_status status = makeCurrent(driver))
    return status;
  if (CUresult result = driver->api.launchKernel(
          kernel, grid[0], grid[1], grid[2], block[0], block[1], block[2],
          sharedBytes, driver->stream, arguments, nullptr))
    return fail(driver, result, "launching kernel '%s'", name);
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
    return fail(driver, result, "%s", what);
  return MIXPREC_OK;
}

} // namespace mixprec::cuda
