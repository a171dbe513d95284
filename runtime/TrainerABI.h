//===- TrainerABI.h - a model library's trainer entry points ----*- C++ -*-===//
//
// The trainer functions of mixprec.h, looked up in a loaded model library,
// for host tools that drive training (mixprec-run, bench/gpu/model_check).
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_RUNTIME_TRAINERABI_H
#define MIXPREC_RUNTIME_TRAINERABI_H

#include "ModelLibrary.h"

#include <cstring>
#include <type_traits>
#include <vector>

namespace mixprec {

struct TrainerABI {
  mixprec_status (*create)(const char *, uint64_t, mixprec_trainer **);
  void (*destroy)(mixprec_trainer *);
  mixprec_status (*step)(mixprec_trainer *, const mixprec_tensor *, int32_t,
                         float, float *);
  int64_t (*stepCount)(const mixprec_trainer *);
  float (*lossScale)(const mixprec_trainer *);
  int64_t (*skippedSteps)(const mixprec_trainer *);
  int32_t (*numStates)();
  const mixprec_tensor_spec *(*stateAt)(int32_t);
  int32_t (*skipped)(const mixprec_trainer *);
  const char *(*nonfinite)(const mixprec_trainer *, int32_t);
  mixprec_status (*save)(const mixprec_trainer *, const char *);
  mixprec_status (*load)(mixprec_trainer *, const char *);
  mixprec_status (*evaluate)(mixprec_trainer *, const char *, int64_t,
                             const mixprec_tensor *, int32_t,
                             const mixprec_tensor *, int32_t);
  const char *(*lastError)();
  /// Null in libraries older than the CUDA backend.
  mixprec_status (*deviceMemory)(int64_t *, int64_t *);

  /// Whether the trainer supplies `input` itself: a parameter, a buffer or
  /// the RNG state.
  bool isState(const mixprec_tensor_spec &input) const {
    bool state = std::strcmp(input.name, "rng_state") == 0;
    for (int32_t j = 0; j < numStates() && !state; ++j)
      state = std::strcmp(input.name, stateAt(j)->name) == 0;
    return state;
  }

  /// The inputs of the train step `step` a caller passes, in order: all but
  /// the state, the RNG state and the learning rate (the last input), which
  /// the trainer supplies itself.
  std::vector<const mixprec_tensor_spec *>
  batchInputs(const mixprec_function &step) const {
    std::vector<const mixprec_tensor_spec *> batch;
    for (int32_t i = 0; i + 1 < step.num_inputs; ++i)
      if (!isState(step.inputs[i]))
        batch.push_back(&step.inputs[i]);
    return batch;
  }

  /// The inputs of `function` a caller of `evaluate` passes: all but the
  /// state and the RNG state.
  std::vector<const mixprec_tensor_spec *>
  evaluateInputs(const mixprec_function &function) const {
    std::vector<const mixprec_tensor_spec *> inputs;
    for (int32_t i = 0; i < function.num_inputs; ++i)
      if (!isState(function.inputs[i]))
        inputs.push_back(&function.inputs[i]);
    return inputs;
  }

  /// Looks every entry point up; false if one is missing.
  bool resolve(const ModelLibrary &library) {
    auto get = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
          library.symbol(name));
      return fn != nullptr;
    };
    get(deviceMemory, "mixprec_device_memory");
    return get(create, "mixprec_trainer_create") &&
           get(destroy, "mixprec_trainer_destroy") &&
           get(step, "mixprec_trainer_step") &&
           get(stepCount, "mixprec_trainer_step_count") &&
           get(lossScale, "mixprec_trainer_loss_scale") &&
           get(skippedSteps, "mixprec_trainer_skipped_steps") &&
           get(numStates, "mixprec_num_states") &&
           get(stateAt, "mixprec_state_at") &&
           get(evaluate, "mixprec_trainer_evaluate") &&
           get(skipped, "mixprec_trainer_skipped") &&
           get(nonfinite, "mixprec_trainer_nonfinite_parameter") &&
           get(save, "mixprec_trainer_save") &&
           get(load, "mixprec_trainer_load") &&
           get(lastError, "mixprec_last_error");
  }
};

} // namespace mixprec

#endif // MIXPREC_RUNTIME_TRAINERABI_H
