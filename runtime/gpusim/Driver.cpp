//===- Driver.cpp - the CUDA driver API over the simulator ----------------===//
//
// libmixprec_gpusim.so exports the driver entry points a CUDA program
// resolves (runtime/cuda/CudaDriver.cpp's and a few more), with the real
// driver's error codes; MIXPREC_LIBCUDA=<this library> runs any mixprec
// CUDA model on it. Work on a stream runs when it is enqueued, in order; a
// kernel's fault is reported as the hardware reports it: the launch
// succeeds, the fault is sticky, and every later call on the context
// returns it. cuGetErrorString of that code adds the simulator's message
// (kernel, PTX line, block, thread, address), which also goes to stderr.
//
//===----------------------------------------------------------------------===//

#include "../cuda/CudaDriverApi.h"
#include "DeviceMemory.h"
#include "Execute.h"
#include "Image.h"
#include "Ptx.h"
#include "Report.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

using namespace gpusim;
// The driver's types, error codes and error texts, as the CUDA runtime
// (runtime/cuda/CudaDriver.cpp) knows them.
using namespace mixprec::cuda::libcuda;

namespace {

constexpr const char *kDeviceName = "mixprec gpusim (simulated sm_90)";
constexpr unsigned kMaxThreadsPerBlock = 1024;
constexpr unsigned kDefaultSharedBytes = 48 * 1024;
constexpr unsigned kMaxSharedBytes = 227 * 1024;

struct LoadedModule;
struct Context;

struct Kernel {
  LoadedModule *module;
  const Function *function;
  unsigned maxDynamicSharedBytes = kDefaultSharedBytes;
};

struct LoadedModule {
  Context *context;
  std::unique_ptr<gpusim::Module> ptx;
  std::vector<std::unique_ptr<Kernel>> kernels;
};

struct Stream {
  Context *context;
};

struct Context {
  std::vector<std::unique_ptr<LoadedModule>> modules;
  std::vector<std::unique_ptr<Stream>> streams;
  std::set<uint64_t> allocations;
  CUresult sticky = CUDA_SUCCESS;
};

bool flagSet(const char *name) {
  const char *value = std::getenv(name);
  return value && *value && std::strcmp(value, "0") != 0;
}

/// The one simulated device and everything on it.
struct Device {
  std::mutex lock;
  bool initialized = false;
  DeviceMemory memory;
  std::vector<std::unique_ptr<Context>> contexts;
  Counters counters;
  // MIXPREC_GPUSIM_SKIP_KERNELS=1: launches are checked and counted but
  // not executed. What a program allocates does not depend on what its
  // kernels compute, so this measures device memory (peak, allocations) of
  // steps too long to simulate.
  bool executeKernels = !flagSet("MIXPREC_GPUSIM_SKIP_KERNELS");
  // The message of the last error of each kind, for cuGetErrorString.
  std::string details[1000];
  std::string texts[1000];

  ~Device() { report(); }

  void report() {
    const char *path = std::getenv("MIXPREC_GPUSIM_REPORT");
    counters.peakDeviceBytes = memory.peak();
    counters.kernelsExecuted = executeKernels;
    if (path && *path && !writeReport(counters, path))
      std::fprintf(stderr, "gpusim: cannot write the report to %s\n", path);
  }
};

Device &device() {
  static Device *instance = new Device();
  return *instance;
}

// The report is written at exit even though the device is never destroyed
// (a model library may still call the driver from its own destructors).
struct ReportAtExit {
  ~ReportAtExit() { device().report(); }
} reportAtExit;

thread_local Context *current = nullptr;

/// Fails with `code`, keeping `message` for cuGetErrorString and stderr.
CUresult failWith(CUresult code, const std::string &message) {
  Device &d = device();
  if (code > 0 && code < 1000) {
    d.details[code] = message;
    std::fprintf(stderr, "%s\n", message.c_str());
  }
  return code;
}

bool isLive(Context *context) {
  for (const auto &each : device().contexts)
    if (each.get() == context)
      return true;
  return false;
}

/// The current context, or the reason there is none usable.
CUresult currentContext(Context *&context) {
  if (!device().initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  context = current;
  if (!context || !isLive(context))
    return CUDA_ERROR_INVALID_CONTEXT;
  return context->sticky;
}

#define LOCK std::lock_guard<std::mutex> guard(device().lock)
#define WITH_CONTEXT(context)                                                  \
  Context *context = nullptr;                                                  \
  if (CUresult status = currentContext(context))                               \
  return status

bool findKernel(Kernel *kernel) {
  for (const auto &context : device().contexts)
    for (const auto &module : context->modules)
      for (const auto &each : module->kernels)
        if (each.get() == kernel)
          return true;
  return false;
}

/// Whether [address, address + bytes) is inside one live allocation.
bool isDeviceRange(uint64_t address, size_t bytes) {
  return device().memory.contains(address, bytes ? bytes : 1);
}

CUresult copy(uint64_t destination, uint64_t source, size_t bytes) {
  Device &d = device();
  bool toDevice = d.memory.isDeviceAddress(destination);
  bool fromDevice = d.memory.isDeviceAddress(source);
  if ((toDevice && !isDeviceRange(destination, bytes)) ||
      (fromDevice && !isDeviceRange(source, bytes)))
    return failWith(CUDA_ERROR_INVALID_VALUE,
                    "gpusim: a copy of " + std::to_string(bytes) +
                        " bytes touches device memory outside every live "
                        "allocation");
  if (!toDevice && !fromDevice)
    return failWith(CUDA_ERROR_INVALID_VALUE,
                    "gpusim: a device copy between two host pointers");
  if (bytes)
    std::memmove(reinterpret_cast<void *>(destination),
                 reinterpret_cast<const void *>(source), bytes);
  if (toDevice && !fromDevice)
    d.counters.hostToDeviceBytes += bytes;
  if (fromDevice && !toDevice)
    d.counters.deviceToHostBytes += bytes;
  return CUDA_SUCCESS;
}

template <typename T>
CUresult fill(CUdeviceptr destination, T value, size_t count) {
  if (count > SIZE_MAX / sizeof(T) ||
      !isDeviceRange(destination, count * sizeof(T)))
    return failWith(CUDA_ERROR_INVALID_VALUE,
                    "gpusim: a memset outside every live allocation");
  if (destination % sizeof(T))
    return CUDA_ERROR_INVALID_VALUE;
  T *data = reinterpret_cast<T *>(destination);
  for (size_t i = 0; i < count; ++i)
    data[i] = value;
  return CUDA_SUCCESS;
}

CUresult allocate(CUdeviceptr *pointer, size_t bytes) {
  WITH_CONTEXT(context);
  if (!pointer || bytes == 0)
    return CUDA_ERROR_INVALID_VALUE;
  uint64_t address = device().memory.allocate(bytes);
  if (!address)
    return CUDA_ERROR_OUT_OF_MEMORY;
  context->allocations.insert(address);
  ++device().counters.deviceAllocations;
  *pointer = address;
  return CUDA_SUCCESS;
}

CUresult release(CUdeviceptr pointer) {
  WITH_CONTEXT(context);
  if (!context->allocations.erase(pointer) || !device().memory.release(pointer))
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

void destroyContext(Context *context) {
  Device &d = device();
  for (uint64_t address : context->allocations)
    d.memory.release(address);
  for (auto it = d.contexts.begin(); it != d.contexts.end(); ++it)
    if (it->get() == context) {
      d.contexts.erase(it);
      break;
    }
  if (current == context)
    current = nullptr;
  d.report();
}

CUresult loadModule(LoadedModule **result, const void *image) {
  WITH_CONTEXT(context);
  if (!result || !image)
    return CUDA_ERROR_INVALID_VALUE;
  std::string text;
  switch (extractPtx(image, text)) {
  case ImageKind::CompressedPtx:
    return failWith(CUDA_ERROR_NOT_SUPPORTED,
                    "gpusim: the fatbin's PTX is compressed; build it with "
                    "fatbinary --compress=false (mixprec-compile does)");
  case ImageKind::CubinOnly:
    return failWith(CUDA_ERROR_NO_BINARY_FOR_GPU,
                    "gpusim: the image holds no PTX (only cubins, which the "
                    "simulator cannot run)");
  case ImageKind::Unknown:
    return failWith(CUDA_ERROR_INVALID_IMAGE,
                    "gpusim: the image is neither a fatbin nor PTX text");
  case ImageKind::Ptx:
    break;
  }
  std::string error;
  std::unique_ptr<gpusim::Module> ptx = parsePtx(text, error);
  if (!ptx) {
    bool unsupported = error.find("unsupported") != std::string::npos ||
                       error.find("not supported") != std::string::npos;
    return failWith(unsupported ? CUDA_ERROR_NOT_SUPPORTED
                                : CUDA_ERROR_INVALID_PTX,
                    "gpusim: cannot load the PTX: " + error);
  }
  auto module = std::make_unique<LoadedModule>();
  module->context = context;
  module->ptx = std::move(ptx);
  *result = module.get();
  context->modules.push_back(std::move(module));
  return CUDA_SUCCESS;
}

LoadedModule *findModule(Context *context, LoadedModule *module) {
  for (const auto &each : context->modules)
    if (each.get() == module)
      return module;
  return nullptr;
}

CUresult launch(Kernel *kernel, const unsigned grid[3], const unsigned block[3],
                unsigned sharedBytes, void **parameters, void **extra) {
  WITH_CONTEXT(context);
  if (!findKernel(kernel) || kernel->module->context != context)
    return CUDA_ERROR_INVALID_HANDLE;
  const Function &function = *kernel->function;
  unsigned threads = block[0] * block[1] * block[2];
  if (!grid[0] || !grid[1] || !grid[2] || !block[0] || !block[1] || !block[2] ||
      grid[1] > 65535 || grid[2] > 65535 || block[2] > 64 ||
      uint64_t(block[0]) * block[1] * block[2] > kMaxThreadsPerBlock)
    return failWith(CUDA_ERROR_INVALID_VALUE,
                    "gpusim: launch of '" + function.name +
                        "' with an invalid grid or block shape");
  if (function.maxThreads && threads > function.maxThreads)
    return failWith(CUDA_ERROR_INVALID_VALUE,
                    "gpusim: launch of '" + function.name + "' with " +
                        std::to_string(threads) +
                        " threads per block; its .maxntid allows " +
                        std::to_string(function.maxThreads));
  if (sharedBytes > kernel->maxDynamicSharedBytes ||
      function.sharedBytes + sharedBytes > kMaxSharedBytes)
    return failWith(CUDA_ERROR_INVALID_VALUE,
                    "gpusim: launch of '" + function.name + "' with " +
                        std::to_string(sharedBytes) +
                        " bytes of dynamic shared memory (allowed: " +
                        std::to_string(kernel->maxDynamicSharedBytes) + ")");
  if (extra)
    return failWith(CUDA_ERROR_NOT_SUPPORTED,
                    "gpusim: cuLaunchKernel's 'extra' parameters");
  if (!function.params.empty() && !parameters)
    return CUDA_ERROR_INVALID_VALUE;
  LaunchConfig config{};
  for (int i = 0; i < 3; ++i) {
    config.grid[i] = grid[i];
    config.block[i] = block[i];
  }
  config.dynamicSharedBytes = sharedBytes;
  config.parameters.assign(function.paramBytes, 0);
  for (size_t i = 0; i < function.params.size(); ++i) {
    const Function::Param &param = function.params[i];
    std::memcpy(&config.parameters[param.offset], parameters[i], param.bytes);
  }
  Device &d = device();
  KernelStats &stats = d.counters.kernels[function.name];
  if (!d.executeKernels) {
    stats.launches += 1;
    return CUDA_SUCCESS;
  }
  Fault fault;
  execute(*kernel->module->ptx, function, config, d.memory, stats, fault);
  if (fault.code) {
    // As on a GPU: the launch went in; the fault shows at the next call.
    context->sticky = fault.code;
    failWith(fault.code, fault.message);
  }
  return CUDA_SUCCESS;
}

} // namespace

#define API __attribute__((visibility("default")))

// Every entry point CUDA programs resolve, with the type they call it with.
#define GPUSIM_DECLARE(field, symbol, parameters)                              \
  extern "C" API CUresult symbol parameters;
MIXPREC_CUDA_DRIVER_ENTRY_POINTS(GPUSIM_DECLARE, GPUSIM_DECLARE)
#undef GPUSIM_DECLARE

extern "C" {

API CUresult cuInit(unsigned flags) {
  LOCK;
  if (flags)
    return CUDA_ERROR_INVALID_VALUE;
  device().initialized = true;
  return CUDA_SUCCESS;
}

API CUresult cuDriverGetVersion(int *version) {
  if (!version)
    return CUDA_ERROR_INVALID_VALUE;
  *version = 13000;
  return CUDA_SUCCESS;
}

API CUresult cuDeviceGetCount(int *count) {
  LOCK;
  if (!device().initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (!count)
    return CUDA_ERROR_INVALID_VALUE;
  *count = 1;
  return CUDA_SUCCESS;
}

API CUresult cuDeviceGet(int *handle, int ordinal) {
  LOCK;
  if (!device().initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (!handle)
    return CUDA_ERROR_INVALID_VALUE;
  if (ordinal != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  *handle = 0;
  return CUDA_SUCCESS;
}

API CUresult cuDeviceGetName(char *name, int length, int handle) {
  if (!name || length <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (handle != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  std::snprintf(name, size_t(length), "%s", kDeviceName);
  return CUDA_SUCCESS;
}

API CUresult cuDeviceTotalMem_v2(size_t *bytes, int handle) {
  if (!bytes)
    return CUDA_ERROR_INVALID_VALUE;
  if (handle != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  *bytes = DeviceMemory::kCapacity;
  return CUDA_SUCCESS;
}

API CUresult cuDeviceGetAttribute(int *value, int attribute, int handle) {
  LOCK;
  if (!device().initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (!value)
    return CUDA_ERROR_INVALID_VALUE;
  if (handle != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  switch (attribute) {
  case 1: // max threads per block
  case 2: // max block dim x
  case 3: // max block dim y
    *value = 1024;
    return CUDA_SUCCESS;
  case 4: // max block dim z
    *value = 64;
    return CUDA_SUCCESS;
  case 5: // max grid dim x
    *value = 0x7fffffff;
    return CUDA_SUCCESS;
  case 6: // max grid dim y
  case 7: // max grid dim z
    *value = 65535;
    return CUDA_SUCCESS;
  case 8: // max shared memory per block
    *value = int(kDefaultSharedBytes);
    return CUDA_SUCCESS;
  case 10: // warp size
    *value = 32;
    return CUDA_SUCCESS;
  case 16: // multiprocessors
    *value = 1;
    return CUDA_SUCCESS;
  case 41:  // unified addressing
  case 115: // memory pools supported
    *value = 1;
    return CUDA_SUCCESS;
  case 75: // compute capability major
    *value = 9;
    return CUDA_SUCCESS;
  case 76: // compute capability minor
    *value = 0;
    return CUDA_SUCCESS;
  case 97: // max shared memory per block, opt-in
    *value = int(kMaxSharedBytes);
    return CUDA_SUCCESS;
  default:
    if (attribute <= 0 || attribute > 150)
      return CUDA_ERROR_INVALID_VALUE;
    *value = 0;
    return CUDA_SUCCESS;
  }
}

API CUresult cuCtxCreate_v2(void **context, unsigned, int handle) {
  LOCK;
  if (!device().initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (!context)
    return CUDA_ERROR_INVALID_VALUE;
  if (handle != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  device().contexts.push_back(std::make_unique<Context>());
  current = device().contexts.back().get();
  *context = current;
  return CUDA_SUCCESS;
}

API CUresult cuCtxDestroy_v2(void *context) {
  LOCK;
  auto *target = static_cast<Context *>(context);
  if (!isLive(target))
    return CUDA_ERROR_INVALID_CONTEXT;
  destroyContext(target);
  return CUDA_SUCCESS;
}

API CUresult cuCtxSetCurrent(void *context) {
  LOCK;
  if (!device().initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  auto *target = static_cast<Context *>(context);
  if (target && !isLive(target))
    return CUDA_ERROR_INVALID_CONTEXT;
  current = target;
  return CUDA_SUCCESS;
}

API CUresult cuCtxGetCurrent(void **context) {
  if (!context)
    return CUDA_ERROR_INVALID_VALUE;
  *context = current;
  return CUDA_SUCCESS;
}

API CUresult cuCtxSynchronize() {
  LOCK;
  WITH_CONTEXT(context);
  return CUDA_SUCCESS;
}

API CUresult cuStreamCreate(void **stream, unsigned) {
  LOCK;
  WITH_CONTEXT(context);
  if (!stream)
    return CUDA_ERROR_INVALID_VALUE;
  context->streams.push_back(std::make_unique<Stream>(Stream{context}));
  *stream = context->streams.back().get();
  return CUDA_SUCCESS;
}

API CUresult cuStreamDestroy_v2(void *stream) {
  LOCK;
  WITH_CONTEXT(context);
  for (auto it = context->streams.begin(); it != context->streams.end(); ++it)
    if (it->get() == stream) {
      context->streams.erase(it);
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_INVALID_HANDLE;
}

API CUresult cuStreamSynchronize(void *) {
  LOCK;
  WITH_CONTEXT(context);
  return CUDA_SUCCESS;
}

API CUresult cuModuleLoadData(void **module, const void *image) {
  LOCK;
  return loadModule(reinterpret_cast<LoadedModule **>(module), image);
}

API CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned,
                                void *, void **) {
  LOCK;
  return loadModule(reinterpret_cast<LoadedModule **>(module), image);
}

API CUresult cuModuleUnload(void *handle) {
  LOCK;
  WITH_CONTEXT(context);
  for (auto it = context->modules.begin(); it != context->modules.end(); ++it)
    if (it->get() == handle) {
      context->modules.erase(it);
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_INVALID_HANDLE;
}

API CUresult cuModuleGetFunction(void **function, void *handle,
                                 const char *name) {
  LOCK;
  WITH_CONTEXT(context);
  LoadedModule *module =
      findModule(context, static_cast<LoadedModule *>(handle));
  if (!module)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!function || !name)
    return CUDA_ERROR_INVALID_VALUE;
  auto found = module->ptx->byName.find(name);
  if (found == module->ptx->byName.end() ||
      !module->ptx->functions[found->second]->isKernel)
    return CUDA_ERROR_NOT_FOUND;
  const Function *target = module->ptx->functions[found->second].get();
  for (const auto &kernel : module->kernels)
    if (kernel->function == target) {
      *function = kernel.get();
      return CUDA_SUCCESS;
    }
  module->kernels.push_back(std::make_unique<Kernel>(Kernel{module, target}));
  *function = module->kernels.back().get();
  return CUDA_SUCCESS;
}

API CUresult cuFuncSetAttribute(void *function, int attribute, int value) {
  LOCK;
  WITH_CONTEXT(context);
  auto *kernel = static_cast<Kernel *>(function);
  if (!findKernel(kernel))
    return CUDA_ERROR_INVALID_HANDLE;
  if (attribute == 8) { // max dynamic shared memory
    if (value < 0 ||
        kernel->function->sharedBytes + unsigned(value) > kMaxSharedBytes)
      return CUDA_ERROR_INVALID_VALUE;
    kernel->maxDynamicSharedBytes = unsigned(value);
  }
  return CUDA_SUCCESS;
}

API CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes) {
  LOCK;
  return allocate(pointer, bytes);
}

API CUresult cuMemFree_v2(CUdeviceptr pointer) {
  LOCK;
  return release(pointer);
}

API CUresult cuMemAllocAsync(CUdeviceptr *pointer, size_t bytes, void *) {
  LOCK;
  return allocate(pointer, bytes);
}

API CUresult cuMemFreeAsync(CUdeviceptr pointer, void *) {
  LOCK;
  return release(pointer);
}

API CUresult cuDeviceGetDefaultMemPool(void **pool, int handle) {
  if (!pool)
    return CUDA_ERROR_INVALID_VALUE;
  if (handle != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  static int defaultPool;
  *pool = &defaultPool;
  return CUDA_SUCCESS;
}

API CUresult cuMemPoolSetAttribute(void *pool, int, void *value) {
  return pool && value ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

API CUresult cuMemGetInfo_v2(size_t *free, size_t *total) {
  LOCK;
  WITH_CONTEXT(context);
  if (!free || !total)
    return CUDA_ERROR_INVALID_VALUE;
  *total = DeviceMemory::kCapacity;
  *free = DeviceMemory::kCapacity - device().memory.used();
  return CUDA_SUCCESS;
}

API CUresult cuMemcpyHtoD_v2(CUdeviceptr destination, const void *source,
                             size_t bytes) {
  LOCK;
  WITH_CONTEXT(context);
  if (!isDeviceRange(destination, bytes))
    return CUDA_ERROR_INVALID_VALUE;
  return copy(destination, reinterpret_cast<uint64_t>(source), bytes);
}

API CUresult cuMemcpyDtoH_v2(void *destination, CUdeviceptr source,
                             size_t bytes) {
  LOCK;
  WITH_CONTEXT(context);
  if (!isDeviceRange(source, bytes))
    return CUDA_ERROR_INVALID_VALUE;
  return copy(reinterpret_cast<uint64_t>(destination), source, bytes);
}

API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr destination, const void *source,
                                  size_t bytes, void *) {
  return cuMemcpyHtoD_v2(destination, source, bytes);
}

API CUresult cuMemcpyDtoHAsync_v2(void *destination, CUdeviceptr source,
                                  size_t bytes, void *) {
  return cuMemcpyDtoH_v2(destination, source, bytes);
}

API CUresult cuMemcpy(CUdeviceptr destination, CUdeviceptr source,
                      size_t bytes) {
  LOCK;
  WITH_CONTEXT(context);
  return copy(destination, source, bytes);
}

API CUresult cuMemcpyAsync(CUdeviceptr destination, CUdeviceptr source,
                           size_t bytes, void *) {
  LOCK;
  WITH_CONTEXT(context);
  return copy(destination, source, bytes);
}

API CUresult cuMemsetD8_v2(CUdeviceptr destination, unsigned char value,
                           size_t count) {
  LOCK;
  WITH_CONTEXT(context);
  return fill<uint8_t>(destination, value, count);
}

API CUresult cuMemsetD32Async(CUdeviceptr destination, unsigned value,
                              size_t count, void *) {
  LOCK;
  WITH_CONTEXT(context);
  return fill<uint32_t>(destination, value, count);
}

API CUresult cuMemsetD16Async(CUdeviceptr destination, unsigned short value,
                              size_t count, void *) {
  LOCK;
  WITH_CONTEXT(context);
  return fill<uint16_t>(destination, value, count);
}

API CUresult cuMemsetD8Async(CUdeviceptr destination, unsigned char value,
                             size_t count, void *) {
  LOCK;
  WITH_CONTEXT(context);
  return fill<uint8_t>(destination, value, count);
}

API CUresult cuLaunchKernel(void *function, unsigned gridX, unsigned gridY,
                            unsigned gridZ, unsigned blockX, unsigned blockY,
                            unsigned blockZ, unsigned sharedBytes, void *,
                            void **parameters, void **extra) {
  LOCK;
  const unsigned grid[3] = {gridX, gridY, gridZ};
  const unsigned block[3] = {blockX, blockY, blockZ};
  return launch(static_cast<Kernel *>(function), grid, block, sharedBytes,
                parameters, extra);
}

API CUresult cuGetErrorName(CUresult code, const char **name) {
  if (!name)
    return CUDA_ERROR_INVALID_VALUE;
  const ErrorText *error = findError(code);
  *name = error ? error->name : nullptr;
  return error ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

API CUresult cuGetErrorString(CUresult code, const char **text) {
  if (!text)
    return CUDA_ERROR_INVALID_VALUE;
  LOCK;
  Device &d = device();
  for (const ErrorText &error : kErrorTexts)
    if (error.code == code) {
      // The simulator's account of the last error with this code.
      std::string &full = d.texts[code];
      full = error.text;
      if (!d.details[code].empty())
        full += " [" + d.details[code] + "]";
      *text = full.c_str();
      return CUDA_SUCCESS;
    }
  *text = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}

/// The simulator's own entry point: its device name, so a program can tell
/// it runs on the simulator.
API const char *mixprecGpusimName() { return kDeviceName; }

} // extern "C"
