//===- ThreadPool.h - the threads a CPU model's work runs on ----*- C++ -*-===//

#ifndef MIXPREC_RUNTIME_CPU_THREADPOOL_H
#define MIXPREC_RUNTIME_CPU_THREADPOOL_H

#include <cstdint>

namespace mixprec::cpu {

using Task = void (*)(void *context, int64_t index);

/// Runs `task(context, 0)` to `task(context, count - 1)` on up to
/// `threads` threads, the calling one among them, and returns when all are
/// done. Which thread runs an index is not fixed: a task's result must not
/// depend on it.
void parallelFor(int64_t count, int threads, Task task, void *context);

/// Whether the calling thread is one of the pool's workers.
bool onWorker();

} // namespace mixprec::cpu

extern "C" {
/// What --mixprec-launch-parallel-nests calls: `chunk(slots, begin, end)`
/// over [0, extent) in pieces of `chunkSize` (the last one shorter), on the
/// model's threads.
__attribute__((visibility("hidden"))) void
mixprec_cpu_parallel_for(void (*chunk)(void *, int64_t, int64_t), void *slots,
                         int64_t extent, int64_t chunkSize);
}

#endif
