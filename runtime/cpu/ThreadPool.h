//===- ThreadPool.h - the threads a CPU model's work runs on ----*- C++ -*-===//

#ifndef MIXPREC_RUNTIME_CPU_THREADPOOL_H
#define MIXPREC_RUNTIME_CPU_THREADPOOL_H

#include <cstdint>
#include <functional>

namespace mixprec::cpu {

/// Runs `task(0)` to `task(count - 1)` on up to `threads` threads, the
/// calling one among them, and returns when all are done. Which thread
/// runs a task is not fixed: a task's result must not depend on it.
void parallelFor(int64_t count, int threads,
                 const std::function<void(int64_t)> &task);

/// The libraries' OpenMP threads: oneDNN runs a primitive on this many
/// threads of the thread that calls it (libgomp's per-thread setting).
extern "C" int omp_get_max_threads(void);
extern "C" void omp_set_num_threads(int count);

/// Sets the calling thread's OpenMP thread count to 1 for the scope, so
/// that library calls made in it run on it alone.
class OneOpenMPThread {
public:
  OneOpenMPThread() : saved(omp_get_max_threads()) { omp_set_num_threads(1); }
  ~OneOpenMPThread() { omp_set_num_threads(saved); }
  OneOpenMPThread(const OneOpenMPThread &) = delete;
  OneOpenMPThread &operator=(const OneOpenMPThread &) = delete;

private:
  int saved;
};

} // namespace mixprec::cpu

#endif
