//===- ThreadPool.cpp - the threads a CPU model's work runs on ------------===//
//
// Workers start when a call first needs them and live as long as the
// process; each takes the next index until none is left.
//
// pthreads, not OpenMP or std::thread: the model library links the C
// library alone (docs/design.md §8), and the runtime is built by g++ and by
// clang (the sanitizer build), whose OpenMP runtimes differ.
//
//===----------------------------------------------------------------------===//

#include "ThreadPool.h"
#include "ThreadCount.h"

#include <atomic>
#include <pthread.h>

namespace mixprec::cpu {
namespace {

pthread_mutex_t callMutex = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
pthread_cond_t done = PTHREAD_COND_INITIALIZER;
int workers = 0;
// The current call: its task, and the workers that take part (indices
// below `active`) and have not finished.
Task currentTask = nullptr;
void *currentContext = nullptr;
std::atomic<int64_t> next{0};
int64_t total = 0;
int active = 0, unfinished = 0;
uint64_t generation = 0;
__thread bool isWorker = false;

void drain(Task task, void *context) {
  for (int64_t index = next.fetch_add(1); index < total;
       index = next.fetch_add(1))
    task(context, index);
}

void *work(void *argument) {
  int index = int(reinterpret_cast<intptr_t>(argument));
  isWorker = true;
  uint64_t seen = 0;
  while (true) {
    pthread_mutex_lock(&mutex);
    while (generation == seen)
      pthread_cond_wait(&wake, &mutex);
    seen = generation;
    bool takesPart = index < active;
    Task task = currentTask;
    void *context = currentContext;
    pthread_mutex_unlock(&mutex);
    if (!takesPart)
      continue;
    drain(task, context);
    pthread_mutex_lock(&mutex);
    if (--unfinished == 0)
      pthread_cond_signal(&done);
    pthread_mutex_unlock(&mutex);
  }
  return nullptr;
}

} // namespace

void parallelFor(int64_t count, int threads, Task task, void *context) {
  if (threads > count)
    threads = int(count);
  if (threads <= 1) {
    for (int64_t index = 0; index < count; ++index)
      task(context, index);
    return;
  }
  // One call at a time: the workers serve one set of indices.
  pthread_mutex_lock(&callMutex);
  pthread_mutex_lock(&mutex);
  while (workers < threads - 1 && workers < kMaxThreads) {
    pthread_t thread;
    if (pthread_create(&thread, nullptr, work,
                       reinterpret_cast<void *>(intptr_t(workers))) != 0)
      break;
    pthread_detach(thread);
    ++workers;
  }
  int helpers = threads - 1 < workers ? threads - 1 : workers;
  currentTask = task;
  currentContext = context;
  total = count;
  next.store(0);
  active = helpers;
  unfinished = helpers;
  ++generation;
  pthread_cond_broadcast(&wake);
  pthread_mutex_unlock(&mutex);
  drain(task, context);
  pthread_mutex_lock(&mutex);
  while (unfinished > 0)
    pthread_cond_wait(&done, &mutex);
  pthread_mutex_unlock(&mutex);
  pthread_mutex_unlock(&callMutex);
}

bool onWorker() { return isWorker; }

} // namespace mixprec::cpu

namespace {

struct Chunks {
  void (*chunk)(void *, int64_t, int64_t);
  void *slots;
  int64_t extent, size;
};

void runChunk(void *context, int64_t index) {
  const Chunks &chunks = *static_cast<const Chunks *>(context);
  int64_t begin = index * chunks.size;
  int64_t end =
      begin + chunks.size < chunks.extent ? begin + chunks.size : chunks.extent;
  chunks.chunk(chunks.slots, begin, end);
}

} // namespace

extern "C" void
mixprec_cpu_parallel_for(void (*chunk)(void *, int64_t, int64_t), void *slots,
                         int64_t extent, int64_t chunkSize) {
  int64_t count = chunkSize > 0 ? (extent + chunkSize - 1) / chunkSize : 1;
  int threads = mixprec::numThreads();
  if (threads <= 1 || count <= 1) {
    chunk(slots, 0, extent);
    return;
  }
  Chunks chunks{chunk, slots, extent, chunkSize};
  mixprec::cpu::parallelFor(count, threads, runChunk, &chunks);
}
