//===- FuzzModel.h - the compiled model the ABI fuzzers run -----*- C++ -*-===//
//
// The fuzzers of the C ABI link libmixprec_fuzz_model.so, compiled from
// Inputs/model.mlir by this build's mixprec-compile, so the model runtime
// inside it is sanitized and instrumented too.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_TEST_FUZZ_FUZZMODEL_H
#define MIXPREC_TEST_FUZZ_FUZZMODEL_H

#include "FuzzTensors.h"

#include <cstring>
#include <string>
#include <vector>

namespace mixprec::fuzz {

/// The train step of Inputs/model.mlir.
constexpr const char *kTrainStep = "train";

inline mixprec_trainer *createTrainer() {
  mixprec_trainer *trainer = nullptr;
  if (mixprec_trainer_create(kTrainStep, 1, &trainer) != MIXPREC_OK)
    fail("cannot create the trainer:", mixprec_last_error());
  return trainer;
}

/// The model's parameters and buffers, through the ABI.
inline std::vector<const mixprec_tensor_spec *> states() {
  std::vector<const mixprec_tensor_spec *> specs;
  int32_t count = 0;
  if (mixprec_num_states(&count) != MIXPREC_OK)
    fail("cannot count the states:", mixprec_last_error());
  for (int32_t i = 0; i < count; ++i) {
    const mixprec_tensor_spec *spec = nullptr;
    if (mixprec_state_at(i, &spec) != MIXPREC_OK)
      fail("cannot read a state's spec:", mixprec_last_error());
    specs.push_back(spec);
  }
  return specs;
}

/// The spec of the state tensor `name`, "rng_state" included, or null.
inline const mixprec_tensor_spec *stateSpec(const char *name) {
  static const int64_t kRngShape[1] = {2};
  static const mixprec_tensor_spec kRng = {"rng_state", MIXPREC_I64, 1,
                                           kRngShape};
  if (name && std::strcmp(name, kRng.name) == 0)
    return &kRng;
  for (const mixprec_tensor_spec *state : states())
    if (name && std::strcmp(state->name, name) == 0)
      return state;
  return nullptr;
}

inline size_t bytesOf(const mixprec_tensor_spec &spec) {
  size_t bytes = elementBytes(spec.dtype);
  for (int32_t dim = 0; dim < spec.rank; ++dim)
    bytes *= size_t(spec.shape[dim]);
  return bytes;
}

/// Every state tensor's bytes and the RNG state, read through the ABI.
inline std::vector<std::vector<uint8_t>>
snapshot(const mixprec_trainer *trainer) {
  std::vector<std::vector<uint8_t>> state;
  std::vector<const mixprec_tensor_spec *> specs = states();
  specs.push_back(stateSpec("rng_state"));
  for (const mixprec_tensor_spec *each : specs) {
    const mixprec_tensor_spec &spec = *each;
    state.emplace_back(bytesOf(spec));
    mixprec_tensor tensor = {state.back().data(), spec.dtype, spec.rank,
                             spec.shape};
    if (mixprec_trainer_get(trainer, spec.name, &tensor) != MIXPREC_OK)
      fail("cannot read the state:", mixprec_last_error());
  }
  return state;
}

/// Sets mixprec_last_error to a message no call makes, so a failing call
/// that sets no message of its own is caught.
inline std::string setSentinelError(mixprec_trainer *trainer) {
  mixprec_tensor none = {};
  if (mixprec_trainer_get(trainer, "fuzz: no such state", &none) == MIXPREC_OK)
    fail("a state named 'fuzz: no such state' was found");
  return mixprec_last_error();
}

inline void expectNewError(const std::string &sentinel, const char *call) {
  if (sentinel == mixprec_last_error())
    fail("a failing call set no message:", call);
}

} // namespace mixprec::fuzz

#endif // MIXPREC_TEST_FUZZ_FUZZMODEL_H
