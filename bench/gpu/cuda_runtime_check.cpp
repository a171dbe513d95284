//===- cuda_runtime_check.cpp - the CUDA runtime on a real GPU ------------===//
//
//   cuda_runtime_check kernels.cubin
//
// Runs runtime/cuda/CudaDriver against the machine's driver: a kernel that
// must add one to 1M floats, then each error path the unit tests fake (out of
// memory, a missing kernel, a faulting launch). Prints one line per check
// and exits non-zero if any check fails (3 if there is no driver or GPU).
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"
#include "ModelEntries.h"

#include <cstdio>
#include <cstring>
#include <vector>

extern "C" {
const mixprec_model_entry mixprec_model_entries[1] = {};
const int32_t mixprec_model_num_entries = 0;
}

using namespace mixprec;

namespace {

int failures = 0;

void check(bool ok, const char *what) {
  std::printf("%s: %s%s%s\n", ok ? "PASS" : "FAIL", what, ok ? "" : " -- ",
              ok ? "" : mixprec_last_error());
  failures += !ok;
}

void expectError(mixprec_status status, mixprec_status expected,
                 const char *fragment, const char *what) {
  bool ok = status == expected &&
            std::strstr(mixprec_last_error(), fragment) != nullptr;
  std::printf("%s: %s (status %d: %s)\n", ok ? "PASS" : "FAIL", what,
              int(status), mixprec_last_error());
  failures += !ok;
}

std::vector<char> readFile(const char *path) {
  std::vector<char> bytes;
  if (FILE *file = std::fopen(path, "rb")) {
    char chunk[65536];
    size_t got;
    while ((got = std::fread(chunk, 1, sizeof(chunk), file)) > 0)
      bytes.insert(bytes.end(), chunk, chunk + got);
    std::fclose(file);
  }
  return bytes;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: cuda_runtime_check kernels.cubin\n");
    return 2;
  }
  std::vector<char> image = readFile(argv[1]);
  if (image.empty()) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 2;
  }
  cuda::Driver *driver = nullptr;
  mixprec_status status = cuda::open(0, &driver);
  // Exit status 3, as model_check's: a machine without a GPU, not a failure.
  if (status == MIXPREC_UNAVAILABLE) {
    std::printf("SKIP: open device 0 -- %s\n", mixprec_last_error());
    return 3;
  }
  check(status == MIXPREC_OK, "open device 0");
  if (status != MIXPREC_OK)
    return 1;

  cuda::Module module;
  cuda::Function addOne, wild, missing;
  check(cuda::loadKernel(driver, image.data(), "add_one", &module, &addOne) ==
            MIXPREC_OK,
        "load add_one");
  const int n = 1 << 20;
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i)
    host[i] = float(i % 1000) * 0.5f;
  cuda::DevicePointer data = 0;
  check(cuda::allocate(driver, n * sizeof(float), &data) == MIXPREC_OK,
        "allocate 4 MiB");
  check(cuda::copyToDevice(driver, data, host.data(), n * sizeof(float)) ==
            MIXPREC_OK,
        "copy to the GPU");
  int count = n;
  void *arguments[] = {&data, &count};
  unsigned grid[3] = {unsigned((n + 255) / 256), 1, 1}, block[3] = {256, 1, 1};
  check(cuda::launch(driver, addOne, "add_one", grid, block, 0, arguments) ==
            MIXPREC_OK,
        "launch add_one");
  std::vector<float> back(n);
  check(cuda::copyToHost(driver, back.data(), data, n * sizeof(float)) ==
            MIXPREC_OK,
        "copy back");
  bool correct = true;
  for (int i = 0; i < n; ++i)
    correct &= back[i] == host[i] + 1.0f;
  check(correct, "add_one added one to 1M floats");

  cuda::DevicePointer huge = 0;
  expectError(cuda::allocate(driver, size_t(1) << 50, &huge),
              MIXPREC_DEVICE_ERROR, "CUDA_ERROR_OUT_OF_MEMORY",
              "allocating 1 PiB is out of memory");
  expectError(cuda::loadKernel(driver, image.data(), "no_such_kernel", &module,
                               &missing),
              MIXPREC_DEVICE_ERROR, "finding kernel 'no_such_kernel'",
              "a missing kernel is named");
  check(cuda::loadKernel(driver, image.data(), "write_wild", &module, &wild) ==
            MIXPREC_OK,
        "load write_wild");
  void *wildArguments[] = {&data};
  unsigned one[3] = {1, 1, 1}, warp[3] = {32, 1, 1};
  mixprec_status launched =
      cuda::launch(driver, wild, "write_wild", one, warp, 0, wildArguments);
  mixprec_status waited =
      launched == MIXPREC_OK ? cuda::synchronize(driver) : launched;
  expectError(waited, MIXPREC_DEVICE_ERROR, "CUDA_ERROR_ILLEGAL_ADDRESS",
              "a faulting kernel is reported, not fatal");
  cuda::close(driver);
  std::printf("%d failed\n", failures);
  return failures ? 1 : 0;
}
