//===- NpyFuzzer.cpp - libFuzzer target: the .npy reader ------------------===//
//
// Any bytes are parsed as a .npy file (runtime/Npy.cpp). A parse either
// fails with a message or yields an array whose data holds exactly its
// shape's elements; such an array serializes and parses back to itself.
//
//===----------------------------------------------------------------------===//

#include "Dtype.h"
#include "Npy.h"

#include <cstdio>
#include <cstdlib>

using namespace mixprec;

static void fail(const char *what) {
  std::fprintf(stderr, "npy fuzzer: %s\n", what);
  std::abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  std::string error;
  std::optional<npy::Array> array = npy::parse(bytes, error);
  if (!array) {
    if (error.empty())
      fail("a rejected file without a message");
    return 0;
  }
  // The element count cannot overflow: the data is in memory.
  size_t elements = 1;
  for (int64_t dim : array->shape) {
    if (dim < 0)
      fail("a negative dimension was accepted");
    elements *= size_t(dim);
  }
  if (array->data.size() != elements * mixprec::dtypeSize(array->dtype))
    fail("the data does not hold the shape's elements");

  std::optional<npy::Array> again = npy::parse(npy::serialize(*array), error);
  if (!again)
    fail(("a parsed array does not parse back: " + error).c_str());
  if (again->dtype != array->dtype || again->shape != array->shape ||
      again->data != array->data)
    fail("a parsed array parses back to another array");
  return 0;
}
