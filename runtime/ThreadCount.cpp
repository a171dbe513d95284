//===- ThreadCount.cpp - how many threads a model's CPU code uses ---------===//
//
// One count per loaded model library: MIXPREC_NUM_THREADS when set, else
// the CPUs the process may run on; mixprec_set_num_threads changes it. Results
// do not depend on it (work is split the same way for every count).
//
//===----------------------------------------------------------------------===//

#include "ThreadCount.h"
#include "ModelEntries.h"

#include <atomic>
#include <cstdlib>
#include <sched.h>

namespace {

int defaultThreadCount() {
  if (const char *text = std::getenv("MIXPREC_NUM_THREADS")) {
    char *end = nullptr;
    long value = std::strtol(text, &end, 10);
    if (end != text && *end == '\0' && value >= 1 &&
        value <= mixprec::kMaxThreads)
      return int(value);
  }
  cpu_set_t cpus;
  if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0 && CPU_COUNT(&cpus) > 0)
    return CPU_COUNT(&cpus) < mixprec::kMaxThreads ? CPU_COUNT(&cpus)
                                                   : mixprec::kMaxThreads;
  return 1;
}

// 0 until first read or set. Not a function-local static: the model runtime
// links against the C library alone, without libstdc++'s guards.
std::atomic<int> threadCount{0};

} // namespace

int mixprec::numThreads() {
  int count = threadCount.load();
  if (count > 0)
    return count;
  // Racing first readers compute the same default.
  int expected = 0;
  threadCount.compare_exchange_strong(expected, defaultThreadCount());
  return threadCount.load();
}

extern "C" {

mixprec_status mixprec_set_num_threads(int32_t count) {
  if (count < 1 || count > mixprec::kMaxThreads)
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                        "mixprec_set_num_threads: the count must be 1 to %d, "
                        "not %d",
                        mixprec::kMaxThreads, int(count));
  threadCount.store(count);
  return MIXPREC_OK;
}

mixprec_status mixprec_num_threads(int32_t *count) {
  if (!count)
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                        "mixprec_num_threads: no place for the count");
  *count = mixprec::numThreads();
  return MIXPREC_OK;
}

} // extern "C"
