//===- Execute.h - running one kernel launch --------------------*- C++ -*-===//

#ifndef MIXPREC_GPUSIM_EXECUTE_H
#define MIXPREC_GPUSIM_EXECUTE_H

#include "DeviceMemory.h"
#include "Ptx.h"

#include <string>
#include <vector>

namespace gpusim {

/// What one launch did, the figures `ncu` would report.
struct KernelStats {
  uint64_t launches = 0, threads = 0, warpInstructions = 0, mmaInstructions = 0,
           globalLoadBytes = 0, globalStoreBytes = 0, sharedLoadBytes = 0,
           sharedStoreBytes = 0, sharedBankConflicts = 0,
           maxThreadInstructions = 0;
  // Loads from global memory (ld and cp.async), one per thread, and those
  // of 16 bytes.
  uint64_t globalLoads = 0, globalLoads16 = 0;
  void add(const KernelStats &other);
};

/// Why a launch stopped: the CUDA error the hardware would give and a
/// message naming the kernel, PTX line, block, thread and address.
struct Fault {
  int code = 0;
  std::string message;
};

struct LaunchConfig {
  unsigned grid[3], block[3];
  unsigned dynamicSharedBytes;
  std::vector<uint8_t> parameters; // the kernel's parameter buffer
};

/// Runs `kernel` of `module` to completion or to its first fault.
void execute(const Module &module, const Function &kernel,
             const LaunchConfig &config, DeviceMemory &memory,
             KernelStats &stats, Fault &fault);

/// The generic addresses of the shared and local windows (cvta).
constexpr uint64_t kSharedWindow = 0xfe00000000000000ull;
constexpr uint64_t kLocalWindow = 0xfd00000000000000ull;
constexpr uint64_t kWindowSize = 1ull << 32;

} // namespace gpusim

#endif // MIXPREC_GPUSIM_EXECUTE_H
