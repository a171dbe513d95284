//===- GpuLaunchRuntime.cpp - the mgpu* functions of CUDA models ----------===//
//
// What the host code of a CUDA model calls (gpu-to-llvm's mgpu* functions)
// and the trampolines around it (CudaModel.h), over CudaDriver.
//
// The mgpu* functions return nothing, so the first failure of a call is kept
// with its message and every later mgpu* call of that call does nothing: an
// allocation returns null, a launch, copy or fill is skipped, and no pointer
// a failed step did not produce is ever used. mixprec_cuda_leave reports it.
//
// A trainer's state is resident (mixprec_resident_add): it lives on the
// device between calls and moves to or from the host only when one side
// needs the other's newer bytes.
//
// Everything runs, in order, on the one stream of one Driver per library,
// opened by the first call that needs it: loading the library only records
// its GPU images (a library loads on a machine without a driver), and the
// images are loaded into the context when their first kernel is looked up.
// Calls are serialized; within one the host waits for the GPU only in
// mixprec_cuda_leave. C library only, like the rest of the model runtime.
//
//===----------------------------------------------------------------------===//

#include "GpuLaunchRuntime.h"
#include "CudaDriver.h"
#include "CudaModel.h"
#include "Dtype.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <pthread.h>

using namespace mixprec;
using namespace mixprec::cuda;

namespace {

/// A kernel of an image: what mgpuModuleGetFunction returns.
struct Kernel {
  Kernel *next;
  const char *name; // a constant of the generated code
  Function function;
  unsigned sharedBytes; // the dynamic shared memory it is allowed
};

/// A GPU image of the library (cubin, fatbin or PTX): what mgpuModuleLoad
/// returns.
struct Image {
  Image *next;
  const void *data;
  Module module; // null until one of its kernels is looked up
  Kernel *kernels;
};

struct Allocation {
  DevicePointer pointer;
  size_t bytes;
};

/// Which copy of a registered buffer holds bytes the other lacks.
enum class Newer : uint8_t { Neither, Host, Device };

/// A registered host buffer and its device copy (0 until a call first uses
/// it; the host's is newer then).
struct Resident {
  void *host;
  size_t bytes;
  DevicePointer device;
  Newer newer;
  bool lost; // newer device bytes went with a fault or a failed call
};

// Zero-initialized, so the generated global constructors can use it before
// any constructor of ours would have run.
pthread_mutex_t stateLock = PTHREAD_MUTEX_INITIALIZER;
// Held from mixprec_cuda_enter to mixprec_cuda_leave: a call owns the stream
// and the kept error.
pthread_mutex_t callLock = PTHREAD_MUTEX_INITIALIZER;
Driver *driver;
Image *images;
// What the compiled code allocates during a call (freed by the call).
Allocation *allocations;
size_t numAllocations, allocationCapacity;
// The calls' tensors and workspaces, kept between calls.
Allocation frame;
// Sorted by host address: a call looks each of its tensors up.
Resident *residents;
size_t numResidents, residentCapacity;
// The resident buffer of each input, then each output, of the current
// call, or null.
Resident **callResidents;
int32_t callCapacity;
int64_t currentBytes, peakBytes;
mixprec_status error;
char errorMessage[512];
// What mgpuStreamCreate and mgpuEventCreate return: the work is on one
// stream, in order, so streams and events need no state.
char streamHandle, eventHandle;

/// Keeps the first failure (`status`, the message mixprec_fail just set).
void keep(mixprec_status status) {
  if (status == MIXPREC_OK || error != MIXPREC_OK)
    return;
  error = status;
  std::snprintf(errorMessage, sizeof(errorMessage), "%s", mixprec_last_error());
}

/// The driver, opened on first use; null once the call has failed.
Driver *usableDriver() {
  if (error != MIXPREC_OK)
    return nullptr;
  if (!driver)
    keep(open(0, &driver));
  return driver;
}

void forgetKernels(Image *image) {
  while (Kernel *kernel = image->kernels) {
    image->kernels = kernel->next;
    std::free(kernel);
  }
}

/// Closes the driver: its context takes the loaded images and the device
/// memory with it.
void closeDriver() {
  for (Image *image = images; image; image = image->next) {
    image->module = nullptr;
    forgetKernels(image);
  }
  numAllocations = 0;
  frame = {0, 0};
  for (size_t i = 0; i < numResidents; ++i) {
    Resident &resident = residents[i];
    resident.lost = resident.lost || resident.newer == Newer::Device;
    resident.device = 0;
    resident.newer = Newer::Host;
  }
  currentBytes = 0;
  close(driver);
  driver = nullptr;
}

/// The index of the first registered buffer at or after `host`.
size_t residentIndex(const void *host) {
  size_t low = 0, high = numResidents;
  while (low < high) {
    size_t middle = low + (high - low) / 2;
    if (uintptr_t(residents[middle].host) < uintptr_t(host))
      low = middle + 1;
    else
      high = middle;
  }
  return low;
}

/// The registered buffer whose host copy is at `host`, or null.
Resident *residentAt(const void *host) {
  size_t index = residentIndex(host);
  return index < numResidents && residents[index].host == host
             ? &residents[index]
             : nullptr;
}

/// `bytes` of device memory, counted in currentBytes and peakBytes.
void *allocateBytes(size_t bytes) {
  Driver *open = usableDriver();
  if (!open)
    return nullptr;
  DevicePointer pointer = 0;
  if (mixprec_status status = allocateOnStream(open, bytes, &pointer)) {
    keep(status);
    return nullptr;
  }
  currentBytes += int64_t(bytes);
  if (currentBytes > peakBytes)
    peakBytes = currentBytes;
  return reinterpret_cast<void *>(pointer);
}

/// Device memory the compiled code allocates during a call.
void *allocate(size_t bytes) {
  if (!usableDriver())
    return nullptr;
  if (numAllocations == allocationCapacity) {
    size_t capacity = allocationCapacity ? 2 * allocationCapacity : 64;
    auto *grown = static_cast<Allocation *>(
        std::realloc(allocations, capacity * sizeof(Allocation)));
    if (!grown) {
      keep(mixprec_fail(MIXPREC_INTERNAL, "out of memory tracking GPU memory"));
      return nullptr;
    }
    allocations = grown;
    allocationCapacity = capacity;
  }
  void *pointer = allocateBytes(bytes);
  if (pointer)
    allocations[numAllocations++] = {DevicePointer(pointer), bytes};
  return pointer;
}

void release(size_t index) {
  Allocation allocation = allocations[index];
  allocations[index] = allocations[--numAllocations];
  currentBytes -= int64_t(allocation.bytes);
  keep(releaseOnStream(driver, allocation.pointer));
}

void releaseFrame() {
  currentBytes -= int64_t(frame.bytes);
  keep(releaseOnStream(driver, frame.pointer));
  frame = {0, 0};
}

/// Gives every registered buffer its device copy, all at once, so that
/// later calls allocate none (a trainer's buffers take turns as outputs).
void allocateResidents() {
  for (size_t i = 0; i < numResidents && usableDriver(); ++i)
    if (!residents[i].device)
      residents[i].device = DevicePointer(allocateBytes(residents[i].bytes));
}

/// `resident`'s device copy, uploaded when the host holds newer bytes and
/// `upload`. Null once the call has failed.
void *deviceCopyOf(Resident &resident, bool upload) {
  Driver *open = usableDriver();
  if (!open)
    return nullptr;
  if (upload && resident.newer == Newer::Host && resident.bytes) {
    keep(copyToDevice(open, resident.device, resident.host, resident.bytes));
    if (error == MIXPREC_OK)
      resident.newer = Newer::Neither;
  }
  return reinterpret_cast<void *>(resident.device);
}

/// Every buffer of a frame starts 256-byte aligned, as cuMemAlloc's do.
size_t alignFrame(size_t bytes) { return (bytes + 255) & ~size_t(255); }

/// The input output `index` of `entry` lives in, or -1 (the index report,
/// past the entry's outputs, lives in none).
int32_t homeOf(const mixprec_model_entry *entry, int32_t index) {
  return index < entry->function.num_outputs ? mixprec_output_home(entry, index)
                                             : -1;
}

size_t specBytes(const mixprec_tensor_spec &spec) {
  size_t bytes = mixprec::dtypeSize(spec.dtype);
  for (int32_t dim = 0; dim < spec.rank; ++dim)
    bytes *= size_t(spec.shape[dim]);
  return bytes;
}

size_t bytesOf(const mixprec_tensor &tensor) {
  size_t bytes = mixprec::dtypeSize(tensor.dtype);
  for (int32_t dim = 0; dim < tensor.rank; ++dim)
    bytes *= size_t(tensor.shape[dim]);
  return bytes;
}

/// The kept error as the result of the call, its message set again (later
/// failures may have replaced it).
mixprec_status takeError() {
  if (error == MIXPREC_OK)
    return MIXPREC_OK;
  return mixprec_fail(error, "%s", errorMessage);
}

/// Scoped stateLock.
struct Locked {
  Locked() { pthread_mutex_lock(&stateLock); }
  ~Locked() { pthread_mutex_unlock(&stateLock); }
  Locked(const Locked &) = delete;
  Locked &operator=(const Locked &) = delete;
};

/// Forgets every registered buffer (their device copies went with the
/// context).
void forgetResidents() {
  std::free(residents);
  residents = nullptr;
  numResidents = residentCapacity = 0;
  std::free(callResidents);
  callResidents = nullptr;
  callCapacity = 0;
}

/// Scoped callLock, then stateLock: no call is under way.
struct CallLocked {
  CallLocked() { pthread_mutex_lock(&callLock); }
  ~CallLocked() { pthread_mutex_unlock(&callLock); }
  CallLocked(const CallLocked &) = delete;
  CallLocked &operator=(const CallLocked &) = delete;
  Locked locked;
};

/// Room for the resident buffer of each of a call's `count` inputs and
/// outputs (callResidents); null, with the call failed, when memory runs
/// out.
Resident **residentSlots(int32_t count) {
  if (count > callCapacity) {
    auto *grown = static_cast<Resident **>(
        std::realloc(callResidents, size_t(count) * sizeof(Resident *)));
    if (!grown) {
      keep(mixprec_fail(MIXPREC_INTERNAL, "out of memory starting a call"));
      return nullptr;
    }
    callResidents = grown;
    callCapacity = count;
  }
  return callResidents;
}

/// The bytes of `entry`'s frame, in which each input, then each output,
/// that lives in no input has a buffer unless `resident(slot)` (inputs
/// first, then outputs); the index report and the workspace follow.
template <typename IsResident>
size_t frameBytes(const mixprec_model_entry *entry, IsResident resident) {
  const mixprec_function &function = entry->function;
  size_t bytes = 0;
  for (int32_t i = 0; i < function.num_inputs; ++i)
    if (!resident(i))
      bytes += alignFrame(specBytes(function.inputs[i]));
  for (int32_t i = 0; i < function.num_outputs; ++i)
    if (homeOf(entry, i) < 0 && !resident(function.num_inputs + i))
      bytes += alignFrame(specBytes(function.outputs[i]));
  if (entry->num_index_checks > 0)
    bytes += alignFrame(3 * sizeof(int64_t));
  return bytes + alignFrame(size_t(entry->workspace_bytes));
}

void *recordImage(const void *data) {
  Locked locked;
  auto *image = static_cast<Image *>(std::calloc(1, sizeof(Image)));
  if (!image)
    return nullptr; // mgpuModuleGetFunction reports it
  image->data = data;
  image->next = images;
  images = image;
  return image;
}

} // namespace

//===----------------------------------------------------------------------===//
// gpu-to-llvm's functions
//===----------------------------------------------------------------------===//

void *mgpuStreamCreate(void) { return &streamHandle; }
void mgpuStreamDestroy(void *) {}
// The trampoline waits once, at the end: a step never stops mid-way.
void mgpuStreamSynchronize(void *) {}

void *mgpuEventCreate(void) { return &eventHandle; }
void mgpuEventDestroy(void *) {}
void mgpuEventSynchronize(void *) {}
void mgpuEventRecord(void *, void *) {}
void mgpuStreamWaitEvent(void *, void *) {}

void *mgpuMemAlloc(uint64_t sizeBytes, void *, bool isHostShared) {
  Locked locked;
  if (error == MIXPREC_OK && isHostShared) {
    keep(mixprec_fail(MIXPREC_INTERNAL,
                      "host-shared GPU memory is not supported"));
    return nullptr;
  }
  return allocate(sizeBytes);
}

void mgpuMemFree(void *ptr, void *) {
  Locked locked;
  // After a failure, mixprec_cuda_leave frees what is left.
  if (error != MIXPREC_OK || !ptr)
    return;
  // Most frees are of the latest allocations.
  for (size_t i = numAllocations; i-- > 0;)
    if (allocations[i].pointer == DevicePointer(ptr))
      return release(i);
  keep(mixprec_fail(MIXPREC_INTERNAL,
                    "freeing %p, which is not GPU memory of this model", ptr));
}

void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *) {
  Locked locked;
  if (Driver *open = usableDriver())
    keep(copyOnStream(open, dst, src, sizeBytes));
}

void mgpuMemset32(void *dst, unsigned value, size_t count, void *) {
  Locked locked;
  if (Driver *open = usableDriver())
    keep(fill(open, DevicePointer(dst), value, 4, count));
}

void mgpuMemset16(void *dst, unsigned short value, size_t count, void *) {
  Locked locked;
  if (Driver *open = usableDriver())
    keep(fill(open, DevicePointer(dst), value, 2, count));
}

// Called by global constructors when the library is loaded: no driver yet.
void *mgpuModuleLoad(void *data, size_t) { return recordImage(data); }
// cuModuleLoadData compiles PTX too, at the driver's highest level.
void *mgpuModuleLoadJIT(void *data, int) { return recordImage(data); }

// Called by global destructors when the library is unloaded.
void mgpuModuleUnload(void *module) {
  Locked locked;
  auto *image = static_cast<Image *>(module);
  for (Image **link = &images; *link; link = &(*link)->next)
    if (*link == image) {
      *link = image->next;
      // The result has no one to go to; a failure leaks only the code.
      if (driver && image->module)
        unloadModule(driver, image->module);
      forgetKernels(image);
      std::free(image);
      break;
    }
  // The library is going away: so do its context and the table of its
  // allocations.
  if (!images) {
    if (driver)
      closeDriver();
    std::free(allocations);
    allocations = nullptr;
    allocationCapacity = 0;
    forgetResidents();
  }
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  Locked locked;
  Driver *open = usableDriver();
  if (!open)
    return nullptr;
  auto *image = static_cast<Image *>(module);
  if (!image) {
    keep(mixprec_fail(MIXPREC_INTERNAL,
                      "kernel '%s': its GPU code was not recorded (out of "
                      "memory loading the library)",
                      name));
    return nullptr;
  }
  // Called before every launch.
  for (Kernel *kernel = image->kernels; kernel; kernel = kernel->next)
    if (kernel->name == name || std::strcmp(kernel->name, name) == 0)
      return kernel;
  if (!image->module) {
    if (mixprec_status status = loadModule(open, image->data, &image->module)) {
      keep(status);
      return nullptr;
    }
  }
  Function function = nullptr;
  if (mixprec_status status =
          getFunction(open, image->module, name, &function)) {
    keep(status);
    return nullptr;
  }
  auto *kernel = static_cast<Kernel *>(std::calloc(1, sizeof(Kernel)));
  if (!kernel) {
    keep(mixprec_fail(MIXPREC_INTERNAL, "out of memory finding kernel '%s'",
                      name));
    return nullptr;
  }
  *kernel = {image->kernels, name, function, 0};
  image->kernels = kernel;
  return kernel;
}

// gpu-to-llvm passes the arguments in `params`, never in `extra`.
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *, void **params,
                      void **, size_t) {
  Locked locked;
  Driver *open = usableDriver();
  if (!open)
    return;
  auto *kernel = static_cast<Kernel *>(function);
  if (!kernel) {
    keep(mixprec_fail(MIXPREC_INTERNAL, "launching a kernel never found"));
    return;
  }
  const intptr_t sizes[6] = {gridX, gridY, gridZ, blockX, blockY, blockZ};
  bool valid = smem >= 0;
  for (intptr_t size : sizes)
    valid = valid && size >= 1 && uintptr_t(size) <= UINT32_MAX;
  if (!valid) {
    keep(mixprec_fail(MIXPREC_INTERNAL,
                      "launching kernel '%s': grid %ldx%ldx%ld, block "
                      "%ldx%ldx%ld or %d bytes of shared memory out of range",
                      kernel->name, long(gridX), long(gridY), long(gridZ),
                      long(blockX), long(blockY), long(blockZ), int(smem)));
    return;
  }
  unsigned grid[3] = {unsigned(gridX), unsigned(gridY), unsigned(gridZ)};
  unsigned block[3] = {unsigned(blockX), unsigned(blockY), unsigned(blockZ)};
  // Beyond 48 KiB of dynamic shared memory a kernel must be allowed it.
  constexpr unsigned kDefaultSharedBytes = 48 * 1024;
  unsigned sharedBytes = unsigned(smem);
  if (sharedBytes > kDefaultSharedBytes && sharedBytes > kernel->sharedBytes) {
    if (mixprec_status status = reserveSharedMemory(open, kernel->function,
                                                    kernel->name, sharedBytes))
      return keep(status);
    kernel->sharedBytes = sharedBytes;
  }
  keep(launch(open, kernel->function, kernel->name, grid, block, sharedBytes,
              params));
}

//===----------------------------------------------------------------------===//
// The trampolines and the ABI
//===----------------------------------------------------------------------===//

extern "C" {

mixprec_status mixprec_cuda_enter(const mixprec_model_entry *entry,
                                  const mixprec_tensor *inputs,
                                  int32_t num_inputs, void **device_inputs,
                                  const mixprec_tensor *outputs,
                                  int32_t num_outputs, void **device_outputs,
                                  void **device_workspace) {
  pthread_mutex_lock(&callLock);
  Locked locked;
  error = MIXPREC_OK;
  Driver *open = usableDriver();
  Resident **inputResidents = residentSlots(num_inputs + num_outputs);
  if (!inputResidents) {
    pthread_mutex_unlock(&callLock);
    return takeError();
  }
  Resident **outputResidents = inputResidents + num_inputs;
  for (int32_t i = 0; i < num_inputs; ++i)
    inputResidents[i] = residentAt(inputs[i].data);
  for (int32_t i = 0; i < num_outputs; ++i) {
    outputResidents[i] = residentAt(outputs[i].data);
    // An input that an output lives in, with a buffer of its own, must stay
    // as it was: it goes in the frame, and so does the output.
    int32_t home = homeOf(entry, i);
    if (home >= 0 && outputs[i].data != inputs[home].data)
      inputResidents[home] = nullptr;
    if (home >= 0 && !inputResidents[home])
      outputResidents[i] = nullptr;
  }
  size_t size = frameBytes(
      entry, [&](int32_t slot) { return inputResidents[slot] != nullptr; });
  if (open && frame.bytes < size) {
    if (frame.pointer)
      releaseFrame();
    if (void *pointer = allocateBytes(size))
      frame = {DevicePointer(pointer), size};
  }
  allocateResidents();
  // The frame's layout (frameBytes): inputs, the outputs that live in no
  // input (the index report last), the workspace; resident ones elsewhere.
  size_t offset = 0;
  auto next = [&](size_t bytes) {
    auto *buffer = reinterpret_cast<void *>(frame.pointer + offset);
    offset += alignFrame(bytes);
    return buffer;
  };
  for (int32_t i = 0; i < num_inputs && error == MIXPREC_OK; ++i)
    device_inputs[i] = inputResidents[i]
                           ? deviceCopyOf(*inputResidents[i], /*upload=*/true)
                           : next(bytesOf(inputs[i]));
  for (int32_t i = 0; i < num_outputs && error == MIXPREC_OK; ++i) {
    int32_t home = homeOf(entry, i);
    device_outputs[i] = home >= 0 ? device_inputs[home]
                        : outputResidents[i]
                            ? deviceCopyOf(*outputResidents[i], false)
                            : next(bytesOf(outputs[i]));
  }
  *device_workspace = next(size_t(entry->workspace_bytes));
  for (int32_t i = 0; i < num_inputs && error == MIXPREC_OK; ++i)
    if (size_t bytes = bytesOf(inputs[i]); bytes && !inputResidents[i])
      keep(copyToDevice(open, DevicePointer(device_inputs[i]), inputs[i].data,
                        bytes));
  if (error == MIXPREC_OK)
    return MIXPREC_OK;
  pthread_mutex_unlock(&callLock);
  return takeError();
}

mixprec_status mixprec_cuda_leave(const mixprec_model_entry *entry,
                                  const mixprec_tensor *outputs,
                                  int32_t num_outputs,
                                  void *const *device_outputs) {
  mixprec_status status;
  {
    Locked locked;
    // A kernel's fault shows when the stream is waited on; so does a
    // launch's error that left the context unusable (a sticky one).
    bool faulted = false;
    if (driver) {
      mixprec_status waited = synchronize(driver);
      faulted = waited != MIXPREC_OK;
      keep(waited);
    }
    // Resident outputs stay on the device; after a failure their device
    // copies may be half written, and the host's are the state again.
    Resident **outputResidents = callResidents + entry->function.num_inputs;
    for (int32_t i = 0; i < num_outputs; ++i) {
      if (Resident *resident = outputResidents[i]) {
        bool written = error == MIXPREC_OK;
        resident->lost =
            resident->lost || (!written && resident->newer == Newer::Device);
        resident->newer = written ? Newer::Device : Newer::Host;
      } else if (size_t bytes = bytesOf(outputs[i]);
                 bytes && error == MIXPREC_OK) {
        keep(copyOnStream(driver, outputs[i].data, device_outputs[i], bytes));
      }
    }
    // Pinned host memory is written asynchronously.
    if (error == MIXPREC_OK && num_outputs > 0)
      keep(synchronize(driver));
    // A fault leaves the context unusable: the next call opens a new one.
    if (faulted)
      closeDriver();
    // Also what the compiled code did not free after a failure.
    while (numAllocations)
      release(numAllocations - 1);
    status = takeError();
  }
  pthread_mutex_unlock(&callLock);
  return status;
}

int64_t mixprec_device_frame_bytes(const mixprec_model_entry *entry,
                                   const uint8_t *resident) {
  return int64_t(frameBytes(
      entry, [&](int32_t slot) { return resident && resident[slot]; }));
}

mixprec_status mixprec_resident_add(void *host, size_t bytes) {
  CallLocked locked;
  if (residentAt(host))
    return MIXPREC_OK;
  if (numResidents == residentCapacity) {
    size_t capacity = residentCapacity ? 2 * residentCapacity : 64;
    auto *grown = static_cast<Resident *>(
        std::realloc(residents, capacity * sizeof(Resident)));
    if (!grown)
      return mixprec_fail(MIXPREC_INTERNAL,
                          "out of memory registering a trainer's state");
    residents = grown;
    residentCapacity = capacity;
  }
  size_t index = residentIndex(host);
  std::memmove(residents + index + 1, residents + index,
               (numResidents++ - index) * sizeof(Resident));
  residents[index] = {host, bytes, 0, Newer::Host, false};
  return MIXPREC_OK;
}

void mixprec_resident_remove(void *host) {
  CallLocked locked;
  Resident *resident = residentAt(host);
  if (!resident)
    return;
  if (resident->device && driver) {
    currentBytes -= int64_t(resident->bytes);
    // Nobody to tell of a failure: the context goes with the library.
    releaseOnStream(driver, resident->device);
  }
  size_t index = size_t(resident - residents);
  std::memmove(residents + index, residents + index + 1,
               (--numResidents - index) * sizeof(Resident));
}

mixprec_status mixprec_resident_sync(void *const *hosts, int32_t count) {
  CallLocked locked;
  mixprec_status status = MIXPREC_OK;
  bool copied = false;
  for (int32_t i = 0; i < count && status == MIXPREC_OK; ++i) {
    Resident *resident = residentAt(hosts[i]);
    if (!resident || resident->newer != Newer::Device)
      continue;
    status = copyOnStream(driver, resident->host,
                          reinterpret_cast<void *>(resident->device),
                          resident->bytes);
    copied = true;
  }
  if (status == MIXPREC_OK && copied)
    status = synchronize(driver);
  if (status != MIXPREC_OK) {
    // The copies are unknown, and a fault took the device's with it.
    if (driver)
      closeDriver();
    return status;
  }
  for (int32_t i = 0; i < count; ++i)
    if (Resident *resident = residentAt(hosts[i]);
        resident && resident->newer == Newer::Device)
      resident->newer = Newer::Neither;
  return MIXPREC_OK;
}

void mixprec_resident_written(void *host) {
  CallLocked locked;
  if (Resident *resident = residentAt(host))
    resident->newer = Newer::Host;
}

mixprec_status mixprec_resident_read(const void *host, void *out,
                                     size_t bytes) {
  CallLocked locked;
  Resident *resident = residentAt(host);
  if (!resident || resident->newer != Newer::Device) {
    std::memcpy(out, host, bytes);
    return MIXPREC_OK;
  }
  mixprec_status status = copyToHost(driver, out, resident->device, bytes);
  if (status != MIXPREC_OK && driver)
    closeDriver();
  return status;
}

int32_t mixprec_resident_recover(void *const *hosts, int32_t count) {
  CallLocked locked;
  bool lost = false;
  for (int32_t i = 0; i < count; ++i)
    if (Resident *resident = residentAt(hosts[i]))
      lost = lost || resident->lost;
  if (!lost)
    return 0;
  for (int32_t i = 0; i < count; ++i)
    if (Resident *resident = residentAt(hosts[i])) {
      resident->lost = false;
      resident->newer = Newer::Host;
    }
  return 1;
}

mixprec_status mixprec_device_memory(int64_t *current_bytes,
                                     int64_t *peak_bytes) {
  Locked locked;
  if (current_bytes)
    *current_bytes = currentBytes;
  if (peak_bytes)
    *peak_bytes = peakBytes;
  return MIXPREC_OK;
}

} // extern "C"

void mixprec::cuda::resetLaunchRuntime() {
  Locked locked;
  if (driver)
    closeDriver();
  while (Image *image = images) {
    images = image->next;
    forgetKernels(image);
    std::free(image);
  }
  std::free(allocations);
  allocations = nullptr;
  numAllocations = allocationCapacity = 0;
  forgetResidents();
  currentBytes = peakBytes = 0;
  error = MIXPREC_OK;
}
