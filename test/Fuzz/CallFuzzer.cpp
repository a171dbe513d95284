//===- CallFuzzer.cpp - libFuzzer target: the C ABI's argument checks -----===//
//
// Fuzzes the tensor descriptors (dtype, rank, shape, counts, null pointers)
// of mixprec_call (by name and by handle), mixprec_trainer_step,
// mixprec_trainer_evaluate and mixprec_trainer_get/set against the compiled
// fuzz model. The contract checked besides "no crash, no out-of-bounds access":
//   - a call succeeds exactly when every descriptor matches its spec;
//   - a failed call sets a message, writes no output of mixprec_call and
//     leaves the trainer's state bit-identical.
//
//===----------------------------------------------------------------------===//

#include "FuzzModel.h"

#include <cmath>

using namespace mixprec::fuzz;

namespace {

enum class Entry : uint8_t { Call, Step, Evaluate, GetSet, Last = GetSet };

int32_t numFunctions() {
  int32_t count = 0;
  if (mixprec_num_functions(&count) != MIXPREC_OK)
    fail("cannot count the functions:", mixprec_last_error());
  return count;
}

/// A function of the model, an unknown name or null; the chosen function
/// (null for the last two) goes to `function`.
const char *pickFunction(FuzzedDataProvider &fdp,
                         const mixprec_function *&function) {
  int32_t count = numFunctions();
  int32_t index = fdp.ConsumeIntegralInRange<int32_t>(0, count + 1);
  function = nullptr;
  if (index < count && mixprec_function_at(index, &function) != MIXPREC_OK)
    fail("cannot read a function:", mixprec_last_error());
  if (function)
    return function->name;
  return index == count ? "no_such_function" : nullptr;
}

/// The handle mixprec_call_function gets for `function`; for none, a null
/// pointer or one into the function table that is no function.
const mixprec_function *handleOf(const mixprec_function *function,
                                 const char *name) {
  if (function || !name)
    return function;
  const mixprec_function *first = nullptr;
  if (mixprec_function_at(0, &first) != MIXPREC_OK)
    fail("cannot read a function:", mixprec_last_error());
  return reinterpret_cast<const mixprec_function *>(
      reinterpret_cast<const char *>(first) + 1);
}

void fuzzCall(FuzzedDataProvider &fdp, mixprec_trainer *trainer) {
  const mixprec_function *function;
  const char *name = pickFunction(fdp, function);
  int32_t numInputs = function ? function->num_inputs : 1;
  int32_t numOutputs = function ? function->num_outputs : 1;
  int32_t inputCount = pickCount(fdp, numInputs);
  int32_t outputCount = pickCount(fdp, numOutputs);
  TensorList inputs, outputs;
  inputs.build(fdp, inputCount, function ? function->inputs : nullptr,
               function ? numInputs : 0);
  // Outputs start as a pattern no result leaves whole.
  outputs.build(fdp, outputCount, function ? function->outputs : nullptr,
                function ? numOutputs : 0, -1, 0xA5);
  bool valid = function && inputs.allMatch(inputCount, numInputs) &&
               outputs.allMatch(outputCount, numOutputs);

  // Consumed last, so the choices above read the bytes they always read.
  bool byHandle = fdp.ConsumeBool();

  std::string sentinel = setSentinelError(trainer);
  auto before = outputs.contents();
  mixprec_status status =
      byHandle ? mixprec_call_function(handleOf(function, name), inputs.data(),
                                       inputCount, outputs.data(), outputCount)
               : mixprec_call(name, inputs.data(), inputCount, outputs.data(),
                              outputCount);
  if (valid && status != MIXPREC_OK)
    fail("a call that matches its specs failed:", mixprec_last_error());
  if (!valid && status == MIXPREC_OK)
    fail("a call with a wrong descriptor succeeded:", name);
  if (!valid) {
    expectNewError(sentinel,
                   byHandle ? "mixprec_call_function" : "mixprec_call");
    if (outputs.contents() != before)
      fail("a failed call wrote its outputs:", mixprec_last_error());
    // By handle, no function is an invalid argument; by name, not found.
    mixprec_status unknown =
        byHandle ? MIXPREC_INVALID_ARGUMENT : MIXPREC_NOT_FOUND;
    if (!function && status != unknown)
      fail("a call of no function gave another status:", mixprec_last_error());
    if (function && status == MIXPREC_NOT_FOUND)
      fail("MIXPREC_NOT_FOUND for a known function:", mixprec_last_error());
  }
}

/// The inputs of the train step a caller passes (mixprec.h): all but the
/// state, the RNG state and the learning rate (the last one).
std::vector<mixprec_tensor_spec> batchSpecs() {
  const mixprec_function *step = nullptr;
  if (mixprec_find_function(kTrainStep, &step) != MIXPREC_OK)
    fail("no train step:", mixprec_last_error());
  std::vector<mixprec_tensor_spec> specs;
  for (int32_t i = 0; i + 1 < step->num_inputs; ++i)
    if (!stateSpec(step->inputs[i].name))
      specs.push_back(step->inputs[i]);
  return specs;
}

void fuzzStep(FuzzedDataProvider &fdp, mixprec_trainer *trainer) {
  static const std::vector<mixprec_tensor_spec> specs = batchSpecs();
  int32_t numBatch = int32_t(specs.size());
  int32_t count = pickCount(fdp, numBatch);
  TensorList batch;
  batch.build(fdp, count, specs.data(), numBatch);
  float lr = 0.01f;
  if (fdp.ConsumeBool())
    lr = fdp.ConsumeFloatingPoint<float>();
  float loss = 0;
  float *lossOut =
      fdp.ConsumeIntegralInRange<uint8_t>(0, 7) == 7 ? nullptr : &loss;
  bool valid = batch.allMatch(count, numBatch);

  std::string sentinel = setSentinelError(trainer);
  auto before = snapshot(trainer);
  mixprec_status status =
      mixprec_trainer_step(trainer, batch.data(), count, lr, lossOut);
  if (!valid && status == MIXPREC_OK)
    fail("a train step with a wrong descriptor succeeded");
  // A valid batch may still be refused (a learning rate the runtime does
  // not accept); either way a refused step changes nothing.
  if (status != MIXPREC_OK) {
    expectNewError(sentinel, "mixprec_trainer_step");
    if (snapshot(trainer) != before)
      fail("a failed train step changed the state:", mixprec_last_error());
  }
}

void fuzzEvaluate(FuzzedDataProvider &fdp, mixprec_trainer *trainer) {
  const mixprec_function *function;
  const char *name = pickFunction(fdp, function);
  // The inputs a caller passes (those that are not state) and the rows.
  std::vector<mixprec_tensor_spec> specs;
  for (int32_t i = 0; function && i < function->num_inputs; ++i)
    if (!stateSpec(function->inputs[i].name))
      specs.push_back(function->inputs[i]);
  int64_t rows = 1;
  switch (fdp.ConsumeIntegralInRange<uint8_t>(0, 3)) {
  case 1:
    rows = fdp.ConsumeIntegralInRange<int64_t>(-1, 9);
    break;
  case 2:
    rows = fdp.ConsumeIntegral<int64_t>();
    break;
  default:
    break;
  }
  int32_t numInputs = int32_t(specs.size());
  int32_t numOutputs = function ? function->num_outputs : 1;
  int32_t inputCount = pickCount(fdp, numInputs);
  int32_t outputCount = pickCount(fdp, numOutputs);
  TensorList inputs, outputs;
  // Rank-0 inputs pass through unbatched.
  inputs.build(fdp, inputCount, specs.data(), numInputs, rows);
  outputs.build(fdp, outputCount, function ? function->outputs : nullptr,
                function ? numOutputs : 0, rows);
  bool valid = function && rows >= 1 &&
               inputs.allMatch(inputCount, numInputs) &&
               outputs.allMatch(outputCount, numOutputs);

  std::string sentinel = setSentinelError(trainer);
  auto before = snapshot(trainer);
  mixprec_status status =
      mixprec_trainer_evaluate(trainer, name, rows, inputs.data(), inputCount,
                               outputs.data(), outputCount);
  // Valid descriptors may still name a function evaluate does not run (a
  // train step, a scalar result).
  if (!valid && status == MIXPREC_OK)
    fail("evaluate with a wrong descriptor succeeded:", name);
  if (status != MIXPREC_OK)
    expectNewError(sentinel, "mixprec_trainer_evaluate");
  if (snapshot(trainer) != before)
    fail("evaluate changed the state");
}

void fuzzGetSet(FuzzedDataProvider &fdp, mixprec_trainer *trainer) {
  static const std::vector<const mixprec_tensor_spec *> specs = states();
  int32_t count = int32_t(specs.size());
  int32_t index = fdp.ConsumeIntegralInRange<int32_t>(0, count + 2);
  const char *name = index < count        ? specs[size_t(index)]->name
                     : index == count     ? "rng_state"
                     : index == count + 1 ? "no_such_state"
                                          : nullptr;
  const mixprec_tensor_spec *spec = stateSpec(name);
  bool set = fdp.ConsumeBool();
  TensorList tensor;
  tensor.build(fdp, 1, spec, spec ? 1 : 0);
  const mixprec_tensor *given = fdp.ConsumeIntegralInRange<uint8_t>(0, 15) == 15
                                    ? nullptr
                                    : tensor.data();
  bool valid = spec && given && tensor.allMatch(1, 1);

  std::string sentinel = setSentinelError(trainer);
  auto before = snapshot(trainer);
  mixprec_status status = set ? mixprec_trainer_set(trainer, name, given)
                              : mixprec_trainer_get(trainer, name, given);
  if (valid != (status == MIXPREC_OK))
    fail(valid ? "a matching get/set failed:"
               : "a get/set with a wrong descriptor succeeded:",
         valid ? mixprec_last_error() : (name ? name : "(null)"));
  if (status != MIXPREC_OK) {
    expectNewError(sentinel,
                   set ? "mixprec_trainer_set" : "mixprec_trainer_get");
    if (snapshot(trainer) != before)
      fail("a failed set changed the state");
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  // A fresh trainer per input: a finding replays from its file alone.
  mixprec_trainer *trainer = createTrainer();
  switch (Entry(fdp.ConsumeIntegralInRange<uint8_t>(0, uint8_t(Entry::Last)))) {
  case Entry::Call:
    fuzzCall(fdp, trainer);
    break;
  case Entry::Step:
    fuzzStep(fdp, trainer);
    break;
  case Entry::Evaluate:
    fuzzEvaluate(fdp, trainer);
    break;
  case Entry::GetSet:
    fuzzGetSet(fdp, trainer);
    break;
  }
  mixprec_trainer_destroy(trainer);
  return 0;
}
