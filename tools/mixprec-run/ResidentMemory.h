//===- ResidentMemory.h - the process's resident memory ---------*- C++ -*-===//
//
// What `mixprec-run train --memory-report` measures: the growth of the
// process's resident memory (RSS) while it trains, from /proc/self (Linux).
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_TOOLS_MIXPREC_RUN_RESIDENTMEMORY_H
#define MIXPREC_TOOLS_MIXPREC_RUN_RESIDENTMEMORY_H

#include <cstdint>

namespace mixprec {

/// The process's resident bytes now and at most since it started or since
/// the last resetPeakResidentMemory; -1 each where the system does not say.
struct ResidentMemory {
  int64_t current = -1, peak = -1;
};
ResidentMemory residentMemory();

/// Makes the peak what is resident now (Linux's /proc/self/clear_refs);
/// false where the system cannot.
bool resetPeakResidentMemory();

/// Settles the process's resident memory before a measurement, so that
/// what grows after it is what the trainer allocates and touches:
/// - every read-only page of the loaded files becomes resident (the code and
///   constants of the model's library and of what it links: libm's tables,
///   BLAS): what the first step runs for the first time is file-backed and
///   shared, not memory a plan places;
/// - the heap's free pages go back to the system, so the trainer's state is
///   counted even where malloc places it on pages freed before;
/// - the stack's first 256 KiB below the caller become resident: the stack
///   is the process's, as its code is.
void settleResidentMemory();

} // namespace mixprec

#endif // MIXPREC_TOOLS_MIXPREC_RUN_RESIDENTMEMORY_H
