//===- TrainerABI.h - a model library's trainer, for host tools -*- C++ -*-===//
//
// The trainer entry points of a loaded model library (its mixprec_api) and
// what host tools that drive training (mixprec-run, bench/gpu/model_check)
// derive from them: the trainer's scalars and which inputs a caller passes.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_RUNTIME_TRAINERABI_H
#define MIXPREC_RUNTIME_TRAINERABI_H

#include "ModelLibrary.h"

#include <cstring>
#include <string>
#include <vector>

namespace mixprec {

struct TrainerABI {
  explicit TrainerABI(const ModelLibrary &library) : api(library.api()) {}

  const mixprec_api &api;

  /// A scalar of `trainer` read through `getter` (mixprec_trainer_step_count,
  /// ...), which fails only without a trainer or a place for the value.
  template <typename T>
  static T scalar(mixprec_status (*getter)(const mixprec_trainer *, T *),
                  const mixprec_trainer *trainer) {
    T value{};
    getter(trainer, &value);
    return value;
  }
  int64_t stepCount(const mixprec_trainer *trainer) const {
    return scalar(api.mixprec_trainer_step_count, trainer);
  }
  float lossScale(const mixprec_trainer *trainer) const {
    return scalar(api.mixprec_trainer_loss_scale, trainer);
  }
  bool skipped(const mixprec_trainer *trainer) const {
    return scalar(api.mixprec_trainer_skipped, trainer);
  }
  int64_t skippedSteps(const mixprec_trainer *trainer) const {
    return scalar(api.mixprec_trainer_skipped_steps, trainer);
  }

  /// The names of the parameters whose gradients were not finite in the
  /// last step.
  std::vector<const char *>
  nonfiniteParameters(const mixprec_trainer *trainer) const {
    std::vector<const char *> names;
    const char *name = nullptr;
    while (api.mixprec_trainer_nonfinite_parameter(
               trainer, int32_t(names.size()), &name) == MIXPREC_OK &&
           name)
      names.push_back(name);
    return names;
  }

  /// The model's parameters and buffers, in declaration order.
  std::vector<const mixprec_tensor_spec *> states() const {
    std::vector<const mixprec_tensor_spec *> specs;
    int32_t count = 0;
    api.mixprec_num_states(&count);
    for (int32_t i = 0; i < count; ++i) {
      const mixprec_tensor_spec *spec = nullptr;
      if (api.mixprec_state_at(i, &spec) == MIXPREC_OK)
        specs.push_back(spec);
    }
    return specs;
  }

  /// Whether the train step `step` owns a buffer of role `role`.
  bool hasStepState(const std::string &step, mixprec_state_role role) const {
    int32_t count = 0;
    api.mixprec_num_states(&count);
    for (int32_t i = 0; i < count; ++i) {
      mixprec_state_role stateRole = MIXPREC_STATE_PARAMETER;
      const char *owner = nullptr;
      if (api.mixprec_state_role_at(i, &stateRole, &owner) == MIXPREC_OK &&
          stateRole == role && owner && step == owner)
        return true;
    }
    return false;
  }

  /// Whether the trainer supplies `input` itself: a parameter, a buffer or
  /// the RNG state.
  bool isState(const mixprec_tensor_spec &input) const {
    if (std::strcmp(input.name, "rng_state") == 0)
      return true;
    for (const mixprec_tensor_spec *state : states())
      if (std::strcmp(input.name, state->name) == 0)
        return true;
    return false;
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
};

} // namespace mixprec

#endif // MIXPREC_RUNTIME_TRAINERABI_H
