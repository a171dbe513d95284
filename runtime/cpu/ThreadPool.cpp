//===- ThreadPool.cpp - the threads a CPU model's work runs on ------------===//
//
// Workers are started when a call first needs them and live as long as the
// process; each takes the next task index until none is left. They run
// library code on one OpenMP thread (their own), set once as they start.
//
// Not OpenMP itself: mixprec's runtime is built by g++ and by clang (the
// sanitizer build), whose OpenMP runtimes differ, and a pool of its own
// keeps one set of threads whatever the compiler.
//
//===----------------------------------------------------------------------===//

#include "ThreadPool.h"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace mixprec::cpu {
namespace {

class Pool {
public:
  void run(int64_t count, int threads,
           const std::function<void(int64_t)> &task) {
    // One call at a time: the workers serve one set of tasks.
    std::lock_guard<std::mutex> serial(callMutex);
    int helpers = threads - 1;
    {
      std::lock_guard<std::mutex> lock(mutex);
      while (int(workers.size()) < helpers)
        workers.emplace_back(
            [this, index = int(workers.size())] { work(index); });
      current = &task;
      total = count;
      next.store(0);
      active = helpers;
      unfinished = helpers;
      ++generation;
    }
    wake.notify_all();
    drain(task);
    std::unique_lock<std::mutex> lock(mutex);
    done.wait(lock, [&] { return unfinished == 0; });
    current = nullptr;
  }

private:
  void drain(const std::function<void(int64_t)> &task) {
    for (int64_t index = next.fetch_add(1); index < total;
         index = next.fetch_add(1))
      task(index);
  }

  void work(int index) {
    omp_set_num_threads(1);
    uint64_t seen = 0;
    while (true) {
      const std::function<void(int64_t)> *task;
      {
        std::unique_lock<std::mutex> lock(mutex);
        wake.wait(lock, [&] { return generation != seen; });
        seen = generation;
        // Workers past the call's count sit this one out.
        if (index >= active)
          continue;
        task = current;
      }
      drain(*task);
      std::lock_guard<std::mutex> lock(mutex);
      if (--unfinished == 0)
        done.notify_one();
    }
  }

  std::mutex callMutex, mutex;
  std::condition_variable wake, done;
  std::vector<std::thread> workers;
  const std::function<void(int64_t)> *current = nullptr;
  std::atomic<int64_t> next{0};
  int64_t total = 0;
  int active = 0, unfinished = 0;
  uint64_t generation = 0;
};

} // namespace

void parallelFor(int64_t count, int threads,
                 const std::function<void(int64_t)> &task) {
  if (threads <= 1 || count <= 1) {
    for (int64_t index = 0; index < count; ++index)
      task(index);
    return;
  }
  // Never destroyed: workers wait on it until the process ends.
  static Pool *pool = new Pool;
  pool->run(count, threads, task);
}

} // namespace mixprec::cpu
