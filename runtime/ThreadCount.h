//===- ThreadCount.h - how many threads a model's CPU code uses -*- C++ -*-===//

#ifndef MIXPREC_RUNTIME_THREADCOUNT_H
#define MIXPREC_RUNTIME_THREADCOUNT_H

namespace mixprec {

/// The most threads mixprec_set_num_threads accepts.
constexpr int kMaxThreads = 1024;

/// The threads a CPU model's parallel work runs on now.
__attribute__((visibility("hidden"))) int numThreads();

} // namespace mixprec

#endif
