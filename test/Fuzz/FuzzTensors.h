//===- FuzzTensors.h - tensor descriptors from fuzzer input -----*- C++ -*-===//
//
// Builds the mixprec_tensor arguments of a C ABI call from fuzzer bytes:
// each descriptor starts from the spec it is checked against and may get
// another dtype (also outside the enum), rank, shape, or null pointers. The
// caller's side of the contract always holds: a shape array has `rank`
// entries, and data, when not null, points at a buffer as large as the
// descriptor says (or at one byte when the descriptor describes no size).
// All-zero bytes give descriptors that match their specs exactly.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_TEST_FUZZ_FUZZTENSORS_H
#define MIXPREC_TEST_FUZZ_FUZZTENSORS_H

#include "mixprec/Runtime/mixprec.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <vector>

namespace mixprec::fuzz {

[[noreturn]] inline void fail(const char *what, const char *detail = "") {
  std::fprintf(stderr, "fuzzer: %s %s\n", what, detail);
  std::abort();
}

/// Bytes per element of `dtype`, through the ABI; 0 outside the enum.
inline size_t elementBytes(mixprec_dtype dtype) {
  size_t bytes = 0;
  return mixprec_dtype_size(dtype, &bytes) == MIXPREC_OK ? bytes : 0;
}

/// The most bytes one descriptor's buffer gets; larger ones get no data.
constexpr size_t kMaxBufferBytes = 1 << 20;
/// Ranks tried besides the spec's: up to this many (and negative ones).
constexpr int32_t kMaxRank = 40;

/// The descriptors of one call's inputs or outputs, with their storage.
class TensorList {
public:
  /// `count` descriptors; the i-th against `specs[i]` while i < numSpecs.
  /// `rows` >= 0 replaces dim 0 of ranked specs (mixprec_trainer_evaluate).
  void build(FuzzedDataProvider &fdp, int32_t count,
             const mixprec_tensor_spec *specs, int32_t numSpecs,
             int64_t rows = -1, uint8_t fill = 0) {
    tensors.assign(count > 0 ? size_t(count) : 0, mixprec_tensor{});
    matches.assign(tensors.size(), false);
    for (size_t i = 0; i < tensors.size(); ++i) {
      const mixprec_tensor_spec *spec =
          int32_t(i) < numSpecs ? &specs[i] : nullptr;
      matches[i] = buildOne(fdp, spec, rows, fill, tensors[i]);
    }
    nullArray = fdp.ConsumeIntegralInRange<uint8_t>(0, 15) == 15;
  }

  const mixprec_tensor *data() const {
    return nullArray || tensors.empty() ? nullptr : tensors.data();
  }
  /// Whether `count` descriptors were built, all matching `numSpecs` specs.
  bool allMatch(int32_t count, int32_t numSpecs) const {
    if (count != numSpecs || (count > 0 && !data()))
      return false;
    for (bool match : matches)
      if (!match)
        return false;
    return true;
  }
  /// A snapshot of every buffer, to check that a failed call wrote nothing.
  std::vector<std::vector<uint8_t>> contents() const { return buffers; }

private:
  /// Fills `tensor`; true when it matches `spec` exactly (and has data).
  bool buildOne(FuzzedDataProvider &fdp, const mixprec_tensor_spec *spec,
                int64_t rows, uint8_t fill, mixprec_tensor &tensor) {
    static const int64_t kScalarShape[1] = {1};
    mixprec_tensor_spec fallback = {"", MIXPREC_F32, 1, kScalarShape};
    const mixprec_tensor_spec &expected = spec ? *spec : fallback;

    int32_t dtype = expected.dtype;
    switch (fdp.ConsumeIntegralInRange<uint8_t>(0, 3)) {
    case 1:
      dtype = (dtype + fdp.ConsumeIntegralInRange<int32_t>(1, 5)) % 6;
      break;
    case 2:
      dtype = fdp.ConsumeIntegral<int32_t>();
      break;
    default:
      break;
    }
    // The ABI is C: a caller may store any int in the enum field.
    std::memcpy(&tensor.dtype, &dtype, sizeof(dtype));

    int32_t rank = expected.rank;
    if (fdp.ConsumeIntegralInRange<uint8_t>(0, 3) == 3)
      rank = fdp.ConsumeIntegralInRange<int32_t>(-3, kMaxRank);
    tensor.rank = rank;

    bool nullShape = fdp.ConsumeIntegralInRange<uint8_t>(0, 15) == 15;
    shapes.emplace_back(rank > 0 ? size_t(rank) : 0);
    std::vector<int64_t> &shape = shapes.back();
    bool shapeMatches = rank == expected.rank && (rank == 0 || !nullShape);
    for (int32_t dim = 0; dim < rank; ++dim) {
      int64_t want = dim < expected.rank ? expected.shape[dim] : 1;
      if (dim == 0 && rows >= 0)
        want = rows;
      shape[size_t(dim)] = pickDim(fdp, want);
      shapeMatches = shapeMatches && shape[size_t(dim)] == want;
    }
    tensor.shape = nullShape ? nullptr : shape.data();

    // The bytes the descriptor describes, if it describes any.
    bool describable =
        dtype >= 0 && dtype <= 5 && rank >= 0 && (rank == 0 || !nullShape);
    size_t bytes = elementBytes(mixprec_dtype(describable ? dtype : 0));
    // A size that fits in kMaxBufferBytes gets a buffer of that size; a
    // larger one gets no data, since the caller could not allocate it.
    bool tooLarge = false;
    for (int32_t dim = 0; describable && dim < rank; ++dim) {
      int64_t size = shape[size_t(dim)];
      if (size < 0) {
        describable = false;
      } else if (size > 0 && bytes > kMaxBufferBytes / size_t(size)) {
        tooLarge = true;
        bytes = kMaxBufferBytes;
      } else {
        bytes *= size_t(size);
      }
    }
    // An unknown dtype, a negative rank or size: no size is described, but
    // a pointer is still passed, so the shape check must reject it.
    if (!describable)
      bytes = 1;
    bool nullData =
        tooLarge || fdp.ConsumeIntegralInRange<uint8_t>(0, 15) == 15;
    if (nullData) {
      tensor.data = nullptr;
    } else {
      // At least one byte: an empty tensor still has a non-null pointer.
      buffers.emplace_back(bytes ? bytes : 1, fill);
      tensor.data = buffers.back().data();
    }
    return spec && dtype == expected.dtype && shapeMatches && !nullData;
  }

  static int64_t pickDim(FuzzedDataProvider &fdp, int64_t want) {
    // `want` may be any int64_t (evaluate's row count): no overflow.
    int64_t near;
    switch (fdp.ConsumeIntegralInRange<uint8_t>(0, 7)) {
    case 4:
      return __builtin_add_overflow(
                 want, fdp.ConsumeIntegralInRange<int64_t>(-2, 2), &near)
                 ? want
                 : near;
    case 5:
      return 0;
    case 6:
      return __builtin_sub_overflow(int64_t(0), want, &near) ? want : near;
    case 7:
      return fdp.ConsumeIntegral<int64_t>();
    default:
      return want;
    }
  }

  std::vector<mixprec_tensor> tensors;
  std::vector<bool> matches;
  std::deque<std::vector<int64_t>> shapes;
  // Moving a vector keeps its storage: data pointers stay valid.
  std::vector<std::vector<uint8_t>> buffers;
  bool nullArray = false;
};

/// A count near `expected`: itself, one more or fewer, or negative.
inline int32_t pickCount(FuzzedDataProvider &fdp, int32_t expected) {
  switch (fdp.ConsumeIntegralInRange<uint8_t>(0, 7)) {
  case 5:
    return expected + 1;
  case 6:
    return expected - 1;
  case 7:
    return fdp.ConsumeIntegralInRange<int32_t>(-2, expected + 3);
  default:
    return expected;
  }
}

} // namespace mixprec::fuzz

#endif // MIXPREC_TEST_FUZZ_FUZZTENSORS_H
