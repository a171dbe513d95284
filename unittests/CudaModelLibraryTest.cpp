//===- CudaModelLibraryTest.cpp - a CUDA model library, end to end --------===//
//
// The generated function table (emitABISource with `cuda`) linked, as
// mixprec-compile links a CUDA model, with stand-in compiled code that calls
// the mgpu* functions the way gpu-to-llvm's output does (an image recorded by
// a global constructor, a launch, a copy, a fill), then loaded with dlopen
// and called through the C ABI against FakeCuda. The same table for the CPU
// checks that CPU models still link and report no device memory.
//
//===----------------------------------------------------------------------===//

#include "mixprec/ModelABI/ModelABI.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <string>
#include <vector>

using namespace mixprec;

namespace {

// Stand-in for a function's lowered code: y = x through a "kernel" and a
// device-to-device copy; z filled with f16 ones; nothing.
const char kCompiledCode[] = R"(
#include <stddef.h>
#include <stdint.h>
typedef struct { void *allocated, *aligned; int64_t offset, sizes[1], strides[1]; } memref1;
void *mgpuStreamCreate(void);
void mgpuStreamDestroy(void *);
void mgpuMemcpy(void *, void *, size_t, void *);
void mgpuMemset16(void *, unsigned short, size_t, void *);
void *mgpuModuleLoad(void *, size_t);
void mgpuModuleUnload(void *);
void *mgpuModuleGetFunction(void *, const char *);
void mgpuLaunchKernel(void *, intptr_t, intptr_t, intptr_t, intptr_t, intptr_t,
                      intptr_t, int32_t, void *, void **, void **, size_t);
static char image[] = "copy_kernel";
static void *module;
__attribute__((constructor)) static void load(void) {
  module = mgpuModuleLoad(image, sizeof image);
}
__attribute__((destructor)) static void unload(void) { mgpuModuleUnload(module); }
void _mlir_ciface_copy(memref1 *x, memref1 *y) {
  void *stream = mgpuStreamCreate();
  void *args[] = {&x->aligned, &y->aligned};
  mgpuLaunchKernel(mgpuModuleGetFunction(module, "copy_kernel"), 1, 1, 1, 4, 1,
                   1, 0, stream, args, 0, 2);
  mgpuMemcpy(y->aligned, x->aligned, 4 * sizeof(float), stream);
  mgpuStreamDestroy(stream);
}
void _mlir_ciface_fill(memref1 *z) {
  mgpuMemset16(z->aligned, 0x3c00, 3, mgpuStreamCreate());
}
void _mlir_ciface_nothing(void) {}
)";

const char kCpuCode[] = R"(
#include <stdint.h>
#include <string.h>
typedef struct { void *allocated, *aligned; int64_t offset, sizes[1], strides[1]; } memref1;
void _mlir_ciface_copy(memref1 *x, memref1 *y) { memcpy(y->aligned, x->aligned, 16); }
void _mlir_ciface_fill(memref1 *z) { memset(z->aligned, 0, 6); }
void _mlir_ciface_nothing(void) {}
)";

std::vector<FunctionSignature> signatures() {
  // No index checks.
  FunctionSignature copy{
      "copy", {{"x", MIXPREC_F32, {4}}}, {{"y", MIXPREC_F32, {4}}}, {}};
  FunctionSignature fill{"fill", {}, {{"z", MIXPREC_F16, {3}}}, {}};
  FunctionSignature nothing{"nothing", {}, {}, {}};
  return {copy, fill, nothing};
}

std::string run(const std::string &command) {
  std::string output;
  if (FILE *pipe = popen((command + " 2>&1").c_str(), "r")) {
    char chunk[4096];
    while (size_t got = fread(chunk, 1, sizeof(chunk), pipe))
      output.append(chunk, got);
    if (pclose(pipe) != 0)
      output += "\n(failed)";
  }
  return output;
}

class CudaModelLibrary : public ::testing::Test {
protected:
  void SetUp() override {
    char pattern[] = "/tmp/mixprec-cuda-model-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir = pattern;
    fake = dlopen(MIXPREC_FAKE_LIBCUDA, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(fake, nullptr) << dlerror();
  }
  void TearDown() override {
    if (fake)
      dlclose(fake);
    run("rm -rf " + dir);
    unsetenv("MIXPREC_LIBCUDA");
  }

  /// Links the table and `code` into `name`.so as mixprec-compile does;
  /// the linker's complaints, if any.
  std::string build(const std::string &name, bool cuda, const char *code) {
    std::ofstream(dir + "/" + name + "_abi.c")
        << emitABISource(signatures(), {}, cuda);
    std::ofstream(dir + "/" + name + "_code.c") << code;
    std::string runtimes = cuda ? MIXPREC_CUDA_RUNTIME_LIBRARY " " : "";
    runtimes += MIXPREC_MODEL_RUNTIME_LIBRARY;
    std::string output =
        run("cc -shared -fPIC -O2 -Wall -Werror -I" MIXPREC_SOURCE_DIR
            "/include -I" MIXPREC_SOURCE_DIR "/runtime -I" MIXPREC_SOURCE_DIR
            "/runtime/cuda -o " +
            dir + "/" + name + ".so " + dir + "/" + name + "_code.c " + dir +
            "/" + name + "_abi.c -Wl,--whole-archive " + runtimes +
            " -Wl,--no-whole-archive -lm -ldl");
    return output;
  }

  int calls(const char *entryPoint) {
    using Count = int (*)(const char *);
    return reinterpret_cast<Count>(dlsym(fake, "fakeCudaCalls"))(entryPoint);
  }

  std::string dir;
  void *fake = nullptr;
};

/// The entry points of the loaded model `library`, through its table.
const mixprec_api &entryPoints(void *library) {
  using GetApi = const mixprec_api *(*)(uint32_t);
  auto getApi = reinterpret_cast<GetApi>(dlsym(library, "mixprec_get_api"));
  static const mixprec_api none = {};
  const mixprec_api *api = getApi ? getApi(MIXPREC_API_VERSION) : nullptr;
  EXPECT_NE(api, nullptr) << "no table of version " << MIXPREC_API_VERSION;
  return api ? *api : none;
}

const int64_t kVector4[] = {4};
const int64_t kVector3[] = {3};

TEST_F(CudaModelLibrary, RunsThroughTheTrampolines) {
  std::string errors = build("model", /*cuda=*/true, kCompiledCode);
  ASSERT_EQ(errors, "");
  // The model needs neither libcuda nor the C++ runtime, and keeps the
  // mgpu* functions to itself.
  std::string needed = run("readelf -d " + dir + "/model.so");
  EXPECT_EQ(needed.find("libstdc++"), std::string::npos) << needed;
  EXPECT_EQ(needed.find("libcuda"), std::string::npos) << needed;
  std::string exported = run("nm -D --defined-only " + dir + "/model.so");
  EXPECT_EQ(exported.find("mgpu"), std::string::npos) << exported;
  EXPECT_NE(exported.find("mixprec_device_memory"), std::string::npos);

  // It loads without a driver, and says so when called.
  setenv("MIXPREC_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  int inits = calls("cuInit");
  void *model = dlopen((dir + "/model.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(model, nullptr) << dlerror();
  const mixprec_api &api = entryPoints(model);
  ASSERT_NE(api.mixprec_call, nullptr);
  auto call = api.mixprec_call;
  auto lastError = api.mixprec_last_error;
  auto deviceMemory = api.mixprec_device_memory;
  float x[4] = {1.0f, 2.0f, -3.0f, 0.5f}, y[4] = {};
  mixprec_tensor in[] = {{x, MIXPREC_F32, 1, kVector4}};
  mixprec_tensor out[] = {{y, MIXPREC_F32, 1, kVector4}};
  EXPECT_EQ(call("copy", in, 1, out, 1), MIXPREC_UNAVAILABLE);
  EXPECT_NE(std::string(lastError()).find("no CUDA driver"), std::string::npos)
      << lastError();

  setenv("MIXPREC_LIBCUDA", MIXPREC_FAKE_LIBCUDA, 1);
  int launches = calls("cuLaunchKernel");
  ASSERT_EQ(call("copy", in, 1, out, 1), MIXPREC_OK) << lastError();
  EXPECT_EQ(std::memcmp(x, y, sizeof(x)), 0);
  EXPECT_EQ(calls("cuInit"), inits + 1);
  EXPECT_EQ(calls("cuLaunchKernel"), launches + 1);
  uint16_t z[3] = {};
  mixprec_tensor filled[] = {{z, MIXPREC_F16, 1, kVector3}};
  ASSERT_EQ(call("fill", nullptr, 0, filled, 1), MIXPREC_OK) << lastError();
  for (uint16_t value : z)
    EXPECT_EQ(value, 0x3c00);
  ASSERT_EQ(call("nothing", nullptr, 0, nullptr, 0), MIXPREC_OK) << lastError();
  // One frame, sized by the largest call (copy's x and y, 256-byte
  // aligned each), kept for the next.
  int64_t current = -1, peak = -1;
  ASSERT_EQ(deviceMemory(&current, &peak), MIXPREC_OK);
  EXPECT_EQ(current, 512);
  EXPECT_EQ(peak, 512);

  // Unloading the library unloads its image and closes its context.
  int contexts = calls("cuCtxDestroy_v2");
  dlclose(model);
  EXPECT_EQ(calls("cuCtxDestroy_v2"), contexts + 1);
}

TEST_F(CudaModelLibrary, ACpuModelHasNoDeviceMemory) {
  std::string errors = build("cpu", /*cuda=*/false, kCpuCode);
  ASSERT_EQ(errors, "");
  void *model = dlopen((dir + "/cpu.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(model, nullptr) << dlerror();
  const mixprec_api &api = entryPoints(model);
  ASSERT_NE(api.mixprec_call, nullptr);
  float x[4] = {1.0f, 2.0f, -3.0f, 0.5f}, y[4] = {};
  mixprec_tensor in[] = {{x, MIXPREC_F32, 1, kVector4}};
  mixprec_tensor out[] = {{y, MIXPREC_F32, 1, kVector4}};
  ASSERT_EQ(api.mixprec_call("copy", in, 1, out, 1), MIXPREC_OK);
  EXPECT_EQ(std::memcmp(x, y, sizeof(x)), 0);
  // The table's entry is the CPU runtime's, not the CUDA runtime's.
  int64_t current = -1;
  EXPECT_EQ(api.mixprec_device_memory(&current, nullptr), MIXPREC_UNAVAILABLE);
  EXPECT_EQ(current, -1);
  dlclose(model);
}

} // namespace
