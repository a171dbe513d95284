//===- GpuLaunchRuntimeTest.cpp - what CUDA models' host code calls -------===//
//
// The mgpu* functions and the trampolines (mixprec_cuda_enter/leave) driven
// the way a model's generated code drives them, against FakeCuda.cpp, whose
// device memory is host memory (so a test reads it directly) and whose
// fakeCudaCalls counts what the runtime asked the driver for.
//
//===----------------------------------------------------------------------===//

#include "GpuLaunchRuntime.h"
#include "CudaModel.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <string>
#include <thread>

using namespace mixprec;

namespace {

const int64_t kVector4[] = {4};
const int64_t kVector2[] = {2};
const int64_t kVector3[] = {3};
constexpr float kSentinel = -777.0f;
// The image FakeCuda "loads": the names of its kernels.
const char kImage[] = "step_gemm_0 step_relu_1";
// Every buffer of a call's frame starts 256-byte aligned.
constexpr int64_t kFrameAlignment = 256;

const mixprec_tensor_spec kVectorSpec[] = {{"x", MIXPREC_F32, 1, kVector4}};
const int32_t kOwnOutputs[] = {-1, -1};
const int32_t kOutputInInput[] = {0};
// f(x: f32[4]) -> (y: f32[4]), an entry as a model's generated code has.
const mixprec_model_entry kEntry = {
    {"f", 1, kVectorSpec, 1, kVectorSpec}, nullptr, 0, kOwnOutputs, 0, 0};

class GpuLaunchRuntimeTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    // Held open so the fake's counters outlive the runtime's handle.
    fake = dlopen(MIXPREC_FAKE_LIBCUDA, RTLD_NOW | RTLD_LOCAL);
    legacy = dlopen(MIXPREC_FAKE_LIBCUDA_LEGACY, RTLD_NOW | RTLD_LOCAL);
  }
  static void TearDownTestSuite() {
    dlclose(fake);
    dlclose(legacy);
  }
  void SetUp() override {
    ASSERT_NE(fake, nullptr) << dlerror();
    ASSERT_NE(legacy, nullptr) << dlerror();
    setenv("MIXPREC_LIBCUDA", MIXPREC_FAKE_LIBCUDA, 1);
    unsetenv("FAKE_CUDA");
    cuda::resetLaunchRuntime();
    for (float &value : y)
      value = kSentinel;
  }
  void TearDown() override {
    cuda::resetLaunchRuntime();
    unsetenv("MIXPREC_LIBCUDA");
    unsetenv("FAKE_CUDA");
  }

  /// Calls of `entryPoint` the fake driver (or the legacy one) has seen.
  static int calls(const char *entryPoint, bool inLegacy = false) {
    using Count = int (*)(const char *);
    auto count = reinterpret_cast<Count>(
        dlsym(inLegacy ? legacy : fake, "fakeCudaCalls"));
    return count(entryPoint);
  }
  static std::string error() { return mixprec_last_error(); }
  static int64_t current() {
    int64_t bytes = -1;
    EXPECT_EQ(mixprec_device_memory(&bytes, nullptr), MIXPREC_OK);
    return bytes;
  }
  static int64_t peak() {
    int64_t bytes = -1;
    EXPECT_EQ(mixprec_device_memory(nullptr, &bytes), MIXPREC_OK);
    return bytes;
  }

  /// Starts a call of f(x: f32[4]) -> (y: f32[4]).
  mixprec_status enter() {
    return mixprec_cuda_enter(&kEntry, in, 1, din, out, 1, dout, &dws);
  }
  mixprec_status leave() { return mixprec_cuda_leave(&kEntry, out, 1, dout); }
  bool outputUntouched() const {
    for (float value : y)
      if (value != kSentinel)
        return false;
    return true;
  }
  void launch(void *kernel, int32_t sharedBytes = 0) {
    mgpuLaunchKernel(kernel, 1, 1, 1, 32, 1, 1, sharedBytes, mgpuStreamCreate(),
                     nullptr, nullptr, 0);
  }

  static void *fake, *legacy;
  float x[4] = {1.0f, -2.0f, 3.5f, 0.25f};
  float y[4];
  mixprec_tensor in[1] = {{x, MIXPREC_F32, 1, kVector4}};
  mixprec_tensor out[1] = {{y, MIXPREC_F32, 1, kVector4}};
  void *din[1] = {};
  void *dout[1] = {};
  void *dws = nullptr;
};

void *GpuLaunchRuntimeTest::fake = nullptr;
void *GpuLaunchRuntimeTest::legacy = nullptr;

TEST_F(GpuLaunchRuntimeTest, NoDriverIsUnavailable) {
  setenv("MIXPREC_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  EXPECT_EQ(enter(), MIXPREC_UNAVAILABLE);
  EXPECT_NE(error().find("no CUDA driver on this machine"), std::string::npos)
      << error();
  // Nothing is held: the next call does not wait forever, and finds the
  // driver once there is one.
  EXPECT_EQ(enter(), MIXPREC_UNAVAILABLE);
  setenv("MIXPREC_LIBCUDA", MIXPREC_FAKE_LIBCUDA, 1);
  ASSERT_EQ(enter(), MIXPREC_OK) << error();
  EXPECT_EQ(leave(), MIXPREC_OK) << error();
  // The call's frame stays for the next call.
  EXPECT_EQ(current(), 2 * kFrameAlignment);
}

TEST_F(GpuLaunchRuntimeTest, ACallCopiesThroughTheDevice) {
  void *image = mgpuModuleLoad(const_cast<char *>(kImage), sizeof(kImage));
  int launches = calls("cuLaunchKernel");
  int allocations = calls("cuMemAllocAsync");
  int frees = calls("cuMemFreeAsync");
  int synchronousAllocations = calls("cuMemAlloc_v2");
  ASSERT_EQ(enter(), MIXPREC_OK) << error();
  // The inputs are on the device, the outputs allocated there, in one
  // frame.
  ASSERT_NE(din[0], nullptr);
  ASSERT_NE(dout[0], nullptr);
  EXPECT_EQ(static_cast<char *>(dout[0]) - static_cast<char *>(din[0]),
            kFrameAlignment);
  EXPECT_EQ(std::memcmp(din[0], x, sizeof(x)), 0);
  EXPECT_EQ(current(), 2 * kFrameAlignment);

  // What compiled code does: a kernel, a temporary, copies and fills.
  void *stream = mgpuStreamCreate();
  launch(mgpuModuleGetFunction(image, "step_gemm_0"));
  void *temporary = mgpuMemAlloc(8, stream, false);
  ASSERT_NE(temporary, nullptr) << error();
  EXPECT_EQ(current(), 2 * kFrameAlignment + 8);
  static const float kConstant[2] = {5.0f, 6.0f}; // a host global
  mgpuMemcpy(temporary, const_cast<float *>(kConstant), 8, stream);
  mgpuMemcpy(dout[0], din[0], 8, stream);
  mgpuMemcpy(static_cast<float *>(dout[0]) + 2, temporary, 8, stream);
  int waits = calls("cuStreamSynchronize");
  mgpuStreamSynchronize(stream);
  EXPECT_EQ(calls("cuStreamSynchronize"), waits) << "waited mid-call";
  mgpuMemFree(temporary, stream);
  mgpuStreamDestroy(stream);
  EXPECT_EQ(current(), 2 * kFrameAlignment);

  ASSERT_EQ(leave(), MIXPREC_OK) << error();
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_EQ(y[1], -2.0f);
  EXPECT_EQ(y[2], 5.0f);
  EXPECT_EQ(y[3], 6.0f);
  EXPECT_EQ(calls("cuLaunchKernel"), launches + 1);
  // Stream-ordered; the temporary freed, the frame kept.
  EXPECT_EQ(calls("cuMemAllocAsync"), allocations + 2);
  EXPECT_EQ(calls("cuMemFreeAsync"), frees + 1);
  EXPECT_EQ(calls("cuMemAlloc_v2"), synchronousAllocations);
  EXPECT_EQ(current(), 2 * kFrameAlignment);
  EXPECT_EQ(peak(), 2 * kFrameAlignment + 8);

  // The next call of the same function allocates nothing.
  ASSERT_EQ(enter(), MIXPREC_OK) << error();
  mgpuMemcpy(dout[0], din[0], sizeof(x), mgpuStreamCreate());
  ASSERT_EQ(leave(), MIXPREC_OK) << error();
  EXPECT_EQ(std::memcmp(x, y, sizeof(x)), 0);
  EXPECT_EQ(calls("cuMemAllocAsync"), allocations + 2);
  EXPECT_EQ(peak(), 2 * kFrameAlignment + 8);
  mgpuModuleUnload(image);
}

// An output the compiled code computes in an input's buffer (a state
// updated in place) is that buffer on the device, downloaded on success;
// the workspace follows the tensors, and a larger frame replaces the old.
TEST_F(GpuLaunchRuntimeTest, AnOutputInAnInputSharesItsDeviceBuffer) {
  const mixprec_model_entry inPlace = {{"g", 1, kVectorSpec, 1, kVectorSpec},
                                       nullptr,
                                       0,
                                       kOutputInInput,
                                       1000,
                                       0};
  ASSERT_EQ(enter(), MIXPREC_OK) << error();
  ASSERT_EQ(leave(), MIXPREC_OK) << error();
  int allocations = calls("cuMemAllocAsync"), frees = calls("cuMemFreeAsync");
  ASSERT_EQ(mixprec_cuda_enter(&inPlace, in, 1, din, out, 1, dout, &dws),
            MIXPREC_OK)
      << error();
  EXPECT_EQ(dout[0], din[0]);
  EXPECT_EQ(static_cast<char *>(dws) - static_cast<char *>(din[0]),
            kFrameAlignment);
  EXPECT_EQ(current(), kFrameAlignment + 1024);
  EXPECT_EQ(calls("cuMemAllocAsync"), allocations + 1);
  EXPECT_EQ(calls("cuMemFreeAsync"), frees + 1);
  static_cast<float *>(dout[0])[1] = 9.0f;
  ASSERT_EQ(mixprec_cuda_leave(&inPlace, out, 1, dout), MIXPREC_OK) << error();
  EXPECT_EQ(y[0], x[0]);
  EXPECT_EQ(y[1], 9.0f);
  // The smaller frame went before the larger came.
  EXPECT_EQ(peak(), kFrameAlignment + 1024);
}

// A trainer's state: registered, it stays on the device from call to call,
// and moves only when one side needs the other's newer bytes.
TEST_F(GpuLaunchRuntimeTest, ResidentStateStaysOnTheDevice) {
  const mixprec_model_entry inPlace = {
      {"g", 1, kVectorSpec, 1, kVectorSpec}, nullptr, 0, kOutputInInput, 0, 0};
  mixprec_tensor state[1] = {{x, MIXPREC_F32, 1, kVector4}};
  auto call = [&](float *deviceWrite, int index, float value) {
    EXPECT_EQ(mixprec_cuda_enter(&inPlace, state, 1, din, state, 1, dout, &dws),
              MIXPREC_OK)
        << error();
    EXPECT_EQ(dout[0], din[0]);
    if (deviceWrite)
      static_cast<float *>(dout[0])[index] = value;
    return mixprec_cuda_leave(&inPlace, state, 1, dout);
  };
  void *hosts[] = {x};
  ASSERT_EQ(mixprec_resident_add(x, sizeof(x)), MIXPREC_OK);
  int uploads = calls("cuMemcpyHtoDAsync_v2");
  int downloads = calls("cuMemcpyDtoHAsync_v2") + calls("cuMemcpyAsync");
  ASSERT_EQ(call(x, 1, 9.0f), MIXPREC_OK) << error();
  void *device = din[0];
  EXPECT_EQ(calls("cuMemcpyHtoDAsync_v2"), uploads + 1);
  // The result stays on the device; the host copy is as it was.
  EXPECT_EQ(x[1], -2.0f);
  float values[2] = {};
  ASSERT_EQ(mixprec_resident_read(x, values, sizeof(values)), MIXPREC_OK);
  EXPECT_EQ(values[0], 1.0f);
  EXPECT_EQ(values[1], 9.0f);
  EXPECT_EQ(x[1], -2.0f);
  // The next call finds it there: nothing is copied either way.
  ASSERT_EQ(call(nullptr, 0, 0.0f), MIXPREC_OK) << error();
  EXPECT_EQ(din[0], device);
  EXPECT_EQ(calls("cuMemcpyHtoDAsync_v2"), uploads + 1);
  int read = 1;
  EXPECT_EQ(calls("cuMemcpyDtoHAsync_v2") + calls("cuMemcpyAsync"),
            downloads + read);
  // Synchronized, the host copy is current; written, it goes up again.
  ASSERT_EQ(mixprec_resident_sync(hosts, 1), MIXPREC_OK) << error();
  EXPECT_EQ(x[1], 9.0f);
  x[1] = 5.0f;
  mixprec_resident_written(x);
  ASSERT_EQ(call(nullptr, 0, 0.0f), MIXPREC_OK) << error();
  EXPECT_EQ(calls("cuMemcpyHtoDAsync_v2"), uploads + 2);
  EXPECT_EQ(static_cast<float *>(device)[1], 5.0f);
  EXPECT_EQ(mixprec_resident_recover(hosts, 1), 0);

  // A call that fails on the device loses the copy it wrote: the host's,
  // as of the last synchronization, is the state again.
  ASSERT_EQ(call(x, 2, 7.0f), MIXPREC_OK) << error();
  void *image = mgpuModuleLoad(const_cast<char *>(kImage), sizeof(kImage));
  setenv("FAKE_CUDA", "launch", 1);
  ASSERT_EQ(mixprec_cuda_enter(&inPlace, state, 1, din, state, 1, dout, &dws),
            MIXPREC_OK)
      << error();
  launch(mgpuModuleGetFunction(image, "step_gemm_0"));
  EXPECT_EQ(mixprec_cuda_leave(&inPlace, state, 1, dout), MIXPREC_DEVICE_ERROR);
  unsetenv("FAKE_CUDA");
  EXPECT_EQ(mixprec_resident_recover(hosts, 1), 1);
  EXPECT_EQ(mixprec_resident_recover(hosts, 1), 0);
  EXPECT_EQ(x[1], 5.0f);
  EXPECT_EQ(x[2], 3.5f);
  ASSERT_EQ(mixprec_resident_read(x, values, sizeof(values)), MIXPREC_OK);
  EXPECT_EQ(values[1], 5.0f);
  // The next call uploads it into the new context; removing it frees its
  // device copy.
  ASSERT_EQ(call(nullptr, 0, 0.0f), MIXPREC_OK) << error();
  EXPECT_EQ(static_cast<float *>(din[0])[2], 3.5f);
  int64_t held = current();
  mixprec_resident_remove(x);
  EXPECT_EQ(current(), held - int64_t(sizeof(x)));
  mgpuModuleUnload(image);
}

TEST_F(GpuLaunchRuntimeTest, FillsWriteTheirElementSize) {
  uint16_t half[3] = {};
  uint32_t words[2] = {};
  mixprec_tensor outputs[2] = {{half, MIXPREC_F16, 1, kVector3},
                               {words, MIXPREC_I32, 1, kVector2}};
  void *device[2];
  const mixprec_tensor_spec specs[] = {{"h", MIXPREC_F16, 1, kVector3},
                                       {"w", MIXPREC_I32, 1, kVector2}};
  const mixprec_model_entry fills = {
      {"fills", 0, nullptr, 2, specs}, nullptr, 0, kOwnOutputs, 0, 0};
  ASSERT_EQ(
      mixprec_cuda_enter(&fills, nullptr, 0, nullptr, outputs, 2, device, &dws),
      MIXPREC_OK)
      << error();
  mgpuMemset16(device[0], 0x3c00, 3, mgpuStreamCreate());
  mgpuMemset32(device[1], 0x3fc00000u, 2, mgpuStreamCreate());
  ASSERT_EQ(mixprec_cuda_leave(&fills, outputs, 2, device), MIXPREC_OK)
      << error();
  for (uint16_t value : half)
    EXPECT_EQ(value, 0x3c00);
  for (uint32_t value : words)
    EXPECT_EQ(value, 0x3fc00000u);
}

TEST_F(GpuLaunchRuntimeTest, OutOfMemoryIsKeptAndLaterCallsDoNothing) {
  void *image = mgpuModuleLoad(const_cast<char *>(kImage), sizeof(kImage));
  ASSERT_EQ(enter(), MIXPREC_OK) << error();
  void *stream = mgpuStreamCreate();
  void *gemm = mgpuModuleGetFunction(image, "step_gemm_0");
  ASSERT_NE(gemm, nullptr) << error();
  std::memset(dout[0], 0, sizeof(y));
  setenv("FAKE_CUDA", "oom", 1);
  EXPECT_EQ(mgpuMemAlloc(1 << 20, stream, false), nullptr);
  unsetenv("FAKE_CUDA");

  // The driver would now succeed; the failed call does nothing more.
  int launches = calls("cuLaunchKernel");
  EXPECT_EQ(mgpuMemAlloc(16, stream, false), nullptr);
  EXPECT_EQ(mgpuModuleGetFunction(image, "step_relu_1"), nullptr);
  launch(gemm);
  mgpuMemcpy(dout[0], din[0], sizeof(x), stream);
  mgpuMemset32(dout[0], 7, 4, stream);
  mgpuMemFree(din[0], stream);
  EXPECT_EQ(calls("cuLaunchKernel"), launches);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(static_cast<float *>(dout[0])[i], 0.0f) << i;

  EXPECT_EQ(leave(), MIXPREC_DEVICE_ERROR);
  EXPECT_EQ(error(), "allocating 1048576 bytes of GPU memory: out of memory "
                     "(CUDA_ERROR_OUT_OF_MEMORY, 2)");
  EXPECT_TRUE(outputUntouched());
  // The frame stays; what the call allocated is gone.
  EXPECT_EQ(current(), 2 * kFrameAlignment);
  EXPECT_EQ(peak(), 2 * kFrameAlignment);

  // The next call starts clean.
  ASSERT_EQ(enter(), MIXPREC_OK) << error();
  mgpuMemcpy(dout[0], din[0], sizeof(x), stream);
  ASSERT_EQ(leave(), MIXPREC_OK) << error();
  EXPECT_EQ(std::memcmp(x, y, sizeof(x)), 0);
  mgpuModuleUnload(image);
}

TEST_F(GpuLaunchRuntimeTest, OutOfMemoryForTheArgumentsFailsTheEnter) {
  setenv("FAKE_CUDA", "oom", 1);
  EXPECT_EQ(enter(), MIXPREC_DEVICE_ERROR);
  EXPECT_NE(error().find("out of memory"), std::string::npos) << error();
  unsetenv("FAKE_CUDA");
  EXPECT_EQ(current(), 0);
  ASSERT_EQ(enter(), MIXPREC_OK) << error();
  EXPECT_EQ(leave(), MIXPREC_OK) << error();
}

TEST_F(GpuLaunchRuntimeTest, AFaultingKernelIsNamedAndTheContextReplaced) {
  void *image = mgpuModuleLoad(const_cast<char *>(kImage), sizeof(kImage));
  setenv("FAKE_CUDA", "launch", 1);
  ASSERT_EQ(enter(), MIXPREC_OK) << error();
  launch(mgpuModuleGetFunction(image, "step_gemm_0"));
  mgpuMemcpy(dout[0], din[0], sizeof(x), mgpuStreamCreate());
  int contexts = calls("cuCtxDestroy_v2");
  EXPECT_EQ(leave(), MIXPREC_DEVICE_ERROR);
  EXPECT_EQ(error(), "running kernel 'step_gemm_0': unspecified launch "
                     "failure (CUDA_ERROR_LAUNCH_FAILED, 719)");
  EXPECT_TRUE(outputUntouched());
  EXPECT_EQ(current(), 0);
  EXPECT_EQ(calls("cuCtxDestroy_v2"), contexts + 1);

  // A new context, the image loaded into it again.
  unsetenv("FAKE_CUDA");
  int loads = calls("cuModuleLoadData");
  ASSERT_EQ(enter(), MIXPREC_OK) << error();
  launch(mgpuModuleGetFunction(image, "step_gemm_0"));
  mgpuMemcpy(dout[0], din[0], sizeof(x), mgpuStreamCreate());
  ASSERT_EQ(leave(), MIXPREC_OK) << error();
  EXPECT_EQ(calls("cuModuleLoadData"), loads + 1);
  EXPECT_EQ(std::memcmp(x, y, sizeof(x)), 0);
  mgpuModuleUnload(image);
}

TEST_F(GpuLaunchRuntimeTest, AMissingKernelIsNamed) {
  void *image = mgpuModuleLoad(const_cast<char *>(kImage), sizeof(kImage));
  ASSERT_EQ(enter(), MIXPREC_OK) << error();
  int launches = calls("cuLaunchKernel");
  launch(mgpuModuleGetFunction(image, "softmax_9"));
  EXPECT_EQ(leave(), MIXPREC_DEVICE_ERROR);
  EXPECT_EQ(error(), "finding kernel 'softmax_9': named symbol not found "
                     "(CUDA_ERROR_NOT_FOUND, 500)");
  EXPECT_EQ(calls("cuLaunchKernel"), launches);
  mgpuModuleUnload(image);
}

TEST_F(GpuLaunchRuntimeTest, MisuseIsReportedNotFollowed) {
  ASSERT_EQ(enter(), MIXPREC_OK) << error();
  float host[2];
  mgpuMemFree(host, mgpuStreamCreate());
  EXPECT_EQ(leave(), MIXPREC_INTERNAL);
  EXPECT_NE(error().find("which is not GPU memory of this model"),
            std::string::npos)
      << error();

  ASSERT_EQ(enter(), MIXPREC_OK) << error();
  EXPECT_EQ(mgpuMemAlloc(8, mgpuStreamCreate(), true), nullptr);
  EXPECT_EQ(leave(), MIXPREC_INTERNAL);
  EXPECT_EQ(error(), "host-shared GPU memory is not supported");

  void *image = mgpuModuleLoad(const_cast<char *>(kImage), sizeof(kImage));
  ASSERT_EQ(enter(), MIXPREC_OK) << error();
  mgpuLaunchKernel(mgpuModuleGetFunction(image, "step_gemm_0"), 0, 1, 1, 32, 1,
                   1, 0, mgpuStreamCreate(), nullptr, nullptr, 0);
  EXPECT_EQ(leave(), MIXPREC_INTERNAL);
  EXPECT_NE(error().find("launching kernel 'step_gemm_0': grid 0x1x1"),
            std::string::npos)
      << error();
  mgpuModuleUnload(image);
}

TEST_F(GpuLaunchRuntimeTest, LargeSharedMemoryIsAllowedOncePerKernel) {
  void *image = mgpuModuleLoad(const_cast<char *>(kImage), sizeof(kImage));
  int allowed = calls("cuFuncSetAttribute");
  ASSERT_EQ(enter(), MIXPREC_OK) << error();
  void *gemm = mgpuModuleGetFunction(image, "step_gemm_0");
  launch(gemm, 48 * 1024);
  EXPECT_EQ(calls("cuFuncSetAttribute"), allowed);
  launch(gemm, 96 * 1024);
  launch(gemm, 64 * 1024);
  launch(gemm, 96 * 1024);
  EXPECT_EQ(calls("cuFuncSetAttribute"), allowed + 1);
  EXPECT_EQ(leave(), MIXPREC_OK) << error();
  mgpuModuleUnload(image);
}

// Loading a library records its images and nothing more: it loads without a
// driver. The first kernel looked up opens the driver and loads its image,
// once; the last image unloaded closes the driver.
TEST_F(GpuLaunchRuntimeTest, ImagesLoadLazily) {
  setenv("MIXPREC_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  void *image = mgpuModuleLoad(const_cast<char *>(kImage), sizeof(kImage));
  EXPECT_NE(image, nullptr);
  mgpuModuleUnload(image);

  setenv("MIXPREC_LIBCUDA", MIXPREC_FAKE_LIBCUDA, 1);
  int inits = calls("cuInit"), loads = calls("cuModuleLoadData");
  int unloads = calls("cuModuleUnload"), contexts = calls("cuCtxDestroy_v2");
  void *first = mgpuModuleLoad(const_cast<char *>(kImage), sizeof(kImage));
  void *second = mgpuModuleLoadJIT(const_cast<char *>(kImage), 2);
  EXPECT_EQ(calls("cuInit"), inits);
  void *gemm = mgpuModuleGetFunction(first, "step_gemm_0");
  ASSERT_NE(gemm, nullptr) << error();
  EXPECT_EQ(calls("cuInit"), inits + 1);
  EXPECT_EQ(mgpuModuleGetFunction(first, "step_gemm_0"), gemm);
  EXPECT_NE(mgpuModuleGetFunction(first, "step_relu_1"), nullptr);
  EXPECT_EQ(calls("cuModuleLoadData"), loads + 1);
  mgpuModuleUnload(second);
  EXPECT_EQ(calls("cuModuleUnload"), unloads);
  EXPECT_EQ(calls("cuCtxDestroy_v2"), contexts);
  mgpuModuleUnload(first);
  EXPECT_EQ(calls("cuModuleUnload"), unloads + 1);
  EXPECT_EQ(calls("cuCtxDestroy_v2"), contexts + 1);
}

// Without cuMemAllocAsync (CUDA < 11.2): cuMemAlloc, and cuMemFree after
// waiting for the kernels that may use the memory.
TEST_F(GpuLaunchRuntimeTest, ALegacyDriverAllocatesSynchronously) {
  setenv("MIXPREC_LIBCUDA", MIXPREC_FAKE_LIBCUDA_LEGACY, 1);
  int allocations = calls("cuMemAlloc_v2", true);
  int frees = calls("cuMemFree_v2", true);
  ASSERT_EQ(enter(), MIXPREC_OK) << error();
  void *temporary = mgpuMemAlloc(16, mgpuStreamCreate(), false);
  mgpuMemcpy(temporary, din[0], sizeof(x), mgpuStreamCreate());
  mgpuMemcpy(dout[0], temporary, sizeof(x), mgpuStreamCreate());
  int waits = calls("cuStreamSynchronize", true);
  mgpuMemFree(temporary, mgpuStreamCreate());
  EXPECT_EQ(calls("cuStreamSynchronize", true), waits + 1);
  ASSERT_EQ(leave(), MIXPREC_OK) << error();
  EXPECT_EQ(std::memcmp(x, y, sizeof(x)), 0);
  EXPECT_EQ(calls("cuMemAlloc_v2", true), allocations + 2);
  EXPECT_EQ(calls("cuMemFree_v2", true), frees + 1);
  EXPECT_EQ(peak(), 2 * kFrameAlignment + 16);
}

// Calls from several threads take turns: each sees only its own buffers.
TEST_F(GpuLaunchRuntimeTest, CallsFromThreadsTakeTurns) {
  auto run = [](float offset) {
    for (int i = 0; i < 200; ++i) {
      float x[4] = {offset, offset + 1, offset + 2, float(i)}, y[4] = {};
      mixprec_tensor in[1] = {{x, MIXPREC_F32, 1, kVector4}};
      mixprec_tensor out[1] = {{y, MIXPREC_F32, 1, kVector4}};
      void *din[1], *dout[1], *dws;
      ASSERT_EQ(mixprec_cuda_enter(&kEntry, in, 1, din, out, 1, dout, &dws),
                MIXPREC_OK);
      EXPECT_EQ(current(), 2 * kFrameAlignment);
      mgpuMemcpy(dout[0], din[0], sizeof(x), mgpuStreamCreate());
      ASSERT_EQ(mixprec_cuda_leave(&kEntry, out, 1, dout), MIXPREC_OK);
      ASSERT_EQ(std::memcmp(x, y, sizeof(x)), 0);
    }
  };
  std::thread first(run, 100.0f), second(run, 200.0f);
  first.join();
  second.join();
  EXPECT_EQ(peak(), 2 * kFrameAlignment);
}

} // namespace
