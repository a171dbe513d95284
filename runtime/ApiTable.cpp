//===- ApiTable.cpp - the versioned table of a model's entry points -------===//
//
// mixprec_get_api and mixprec_abi_version, the two entry points outside the
// table: a loader that dlopens a model finds every other one through them.
// A file of its own, since the table refers to every entry point: a program
// that links the runtime for a few of them (the CUDA runtime's tests) does
// not pull in the rest.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Runtime/mixprec.h"

extern "C" {

int32_t mixprec_abi_version(void) { return MIXPREC_API_VERSION; }

const mixprec_api *mixprec_get_api(uint32_t version) {
  static const mixprec_api api = {
#define MIXPREC_ENTRY_POINT(result, name, parameters) name,
#include "mixprec/Runtime/mixprec_entry_points.def"
#undef MIXPREC_ENTRY_POINT
  };
  return version == MIXPREC_API_VERSION ? &api : nullptr;
}

} // extern "C"
