//===- CudaDriverTest.cpp - the CUDA runtime's error paths ----------------===//
//
// Against FakeCuda.cpp (a stand-in libcuda chosen through $MIXPREC_LIBCUDA):
// no driver, no device, a failing initialization, out of device memory, a
// missing kernel and a failing launch each give a clear message and a
// status, never a crash; the normal path copies data through.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"
#include "ModelEntries.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <unistd.h>

using namespace mixprec;

// The runtime's error reporting lives beside the function table of a model;
// this test has no model.
extern "C" {
const mixprec_model_entry mixprec_model_entries[1] = {};
const int32_t mixprec_model_num_entries = 0;
}

namespace {

class CudaDriverTest : public ::testing::Test {
protected:
  void SetUp() override {
    setenv("MIXPREC_LIBCUDA", MIXPREC_FAKE_LIBCUDA, 1);
    unsetenv("FAKE_CUDA");
  }
  void TearDown() override {
    cuda::close(driver);
    unsetenv("MIXPREC_LIBCUDA");
    unsetenv("FAKE_CUDA");
  }
  std::string error() const { return mixprec_last_error(); }

  /// Opens the driver and loads the kernel gemm_0 into `kernel`.
  void openWithKernel(cuda::Function *kernel) {
    ASSERT_EQ(cuda::open(0, &driver), MIXPREC_OK) << error();
    cuda::Module module;
    ASSERT_EQ(cuda::loadKernel(driver, "gemm_0", "gemm_0", &module, kernel),
              MIXPREC_OK);
  }

  /// Launches `kernel` as `name` on one block of 32 threads.
  mixprec_status launch(cuda::Function kernel, const char *name) {
    unsigned grid[3] = {1, 1, 1}, block[3] = {32, 1, 1};
    return cuda::launch(driver, kernel, name, grid, block, 0, nullptr);
  }

  cuda::Driver *driver = nullptr;
};

TEST_F(CudaDriverTest, NoDriverIsReportedNotFatal) {
  setenv("MIXPREC_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  EXPECT_EQ(cuda::open(0, &driver), MIXPREC_UNAVAILABLE);
  EXPECT_EQ(driver, nullptr);
  EXPECT_NE(error().find("no CUDA driver on this machine: cannot load "
                         "/nonexistent/libcuda.so.1"),
            std::string::npos)
      << error();
}

TEST_F(CudaDriverTest, ALibraryWithoutTheEntryPointsIsRefused) {
  setenv("MIXPREC_LIBCUDA", "libm.so.6", 1);
  EXPECT_EQ(cuda::open(0, &driver), MIXPREC_UNAVAILABLE);
  EXPECT_NE(error().find("libm.so.6 is not a usable CUDA driver"),
            std::string::npos)
      << error();
}

// The toolkit's stub libcuda has every entry point under the names the
// runtime resolves, and fails initialization: what a binary meets on a
// machine with the toolkit but no driver.
TEST_F(CudaDriverTest, TheToolkitStubResolvesAndSaysItIsAStub) {
  const char *stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
  if (access(stub, R_OK) != 0)
    GTEST_SKIP() << "no CUDA toolkit at /usr/local/cuda";
  setenv("MIXPREC_LIBCUDA", stub, 1);
  EXPECT_EQ(cuda::open(0, &driver), MIXPREC_UNAVAILABLE);
  EXPECT_NE(error().find("initializing CUDA: "), std::string::npos) << error();
  EXPECT_NE(error().find("CUDA_ERROR_STUB_LIBRARY, 34"), std::string::npos)
      << error();
}

TEST_F(CudaDriverTest, NoDevice) {
  setenv("FAKE_CUDA", "no_device", 1);
  EXPECT_EQ(cuda::open(0, &driver), MIXPREC_UNAVAILABLE);
  EXPECT_EQ(error(), "no CUDA device 0: the driver sees 0");
}

TEST_F(CudaDriverTest, FailedInitialization) {
  setenv("FAKE_CUDA", "init", 1);
  EXPECT_EQ(cuda::open(0, &driver), MIXPREC_DEVICE_ERROR);
  EXPECT_EQ(error(), "initializing CUDA: initialization error "
                     "(CUDA_ERROR_NOT_INITIALIZED, 3)");
}

TEST_F(CudaDriverTest, OutOfDeviceMemory) {
  ASSERT_EQ(cuda::open(0, &driver), MIXPREC_OK) << error();
  setenv("FAKE_CUDA", "oom", 1);
  cuda::DevicePointer pointer = 0;
  EXPECT_EQ(cuda::allocate(driver, size_t(1) << 40, &pointer),
            MIXPREC_DEVICE_ERROR);
  EXPECT_EQ(error(), "allocating 1099511627776 bytes of GPU memory: out of "
                     "memory (CUDA_ERROR_OUT_OF_MEMORY, 2)");
}

TEST_F(CudaDriverTest, MissingKernel) {
  ASSERT_EQ(cuda::open(0, &driver), MIXPREC_OK) << error();
  cuda::Module module;
  cuda::Function kernel;
  EXPECT_EQ(
      cuda::loadKernel(driver, "gemm_0 softmax_1", "relu_2", &module, &kernel),
      MIXPREC_DEVICE_ERROR);
  EXPECT_EQ(error(), "finding kernel 'relu_2': named symbol not found "
                     "(CUDA_ERROR_NOT_FOUND, 500)");
}

TEST_F(CudaDriverTest, LaunchErrorSurfacesAtSynchronize) {
  cuda::Function kernel = nullptr;
  ASSERT_NO_FATAL_FAILURE(openWithKernel(&kernel));
  setenv("FAKE_CUDA", "launch", 1);
  ASSERT_EQ(launch(kernel, "gemm_0"), MIXPREC_OK);
  EXPECT_EQ(cuda::synchronize(driver), MIXPREC_DEVICE_ERROR);
  EXPECT_EQ(error(), "running kernel 'gemm_0': unspecified launch failure "
                     "(CUDA_ERROR_LAUNCH_FAILED, 719)");
}

// The fault of one of several kernels shows at the wait: the message names
// the range; a wait forgets the kernels before it.
TEST_F(CudaDriverTest, AFaultAfterSeveralLaunchesNamesThemAll) {
  cuda::Function kernel = nullptr;
  ASSERT_NO_FATAL_FAILURE(openWithKernel(&kernel));
  ASSERT_EQ(launch(kernel, "early_0"), MIXPREC_OK);
  ASSERT_EQ(cuda::synchronize(driver), MIXPREC_OK) << error();
  setenv("FAKE_CUDA", "launch", 1);
  for (const char *name : {"gemm_0", "relu_1", "softmax_2"})
    ASSERT_EQ(launch(kernel, name), MIXPREC_OK);
  EXPECT_EQ(cuda::synchronize(driver), MIXPREC_DEVICE_ERROR);
  EXPECT_EQ(error(), "running kernels 'gemm_0' to 'softmax_2' (3 launches): "
                     "unspecified launch failure (CUDA_ERROR_LAUNCH_FAILED, "
                     "719)");
}

TEST_F(CudaDriverTest, DataRoundTrips) {
  ASSERT_EQ(cuda::open(0, &driver), MIXPREC_OK) << error();
  float in[4] = {1.0f, -2.0f, 3.5f, 0.25f}, out[4] = {};
  cuda::DevicePointer pointer = 0;
  ASSERT_EQ(cuda::allocate(driver, sizeof(in), &pointer), MIXPREC_OK);
  ASSERT_EQ(cuda::copyToDevice(driver, pointer, in, sizeof(in)), MIXPREC_OK);
  ASSERT_EQ(cuda::copyToHost(driver, out, pointer, sizeof(out)), MIXPREC_OK);
  EXPECT_EQ(cuda::release(driver, pointer), MIXPREC_OK);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(in[i], out[i]);
}

} // namespace
