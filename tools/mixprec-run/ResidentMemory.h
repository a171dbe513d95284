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

} // namespace mixprec

#endif // MIXPREC_TOOLS_MIXPREC_RUN_RESIDENTMEMORY_H
