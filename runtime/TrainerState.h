/*===- TrainerState.h - what a mixprec_trainer holds ----------------------===*
 *
 * Shared by the trainer (Trainer.cpp) and its checkpoints (Checkpoint.cpp).
 * Not part of the public ABI.
 *
 *===----------------------------------------------------------------------===*/

#ifndef MIXPREC_RUNTIME_TRAINERSTATE_H
#define MIXPREC_RUNTIME_TRAINERSTATE_H

#include "ModelEntries.h"

struct mixprec_trainer {
  const mixprec_model_entry *step;
  // The current value of each state tensor, which the step updates in
  // place (a failed or refused step leaves it as it was).
  void **state;
  // Where the state is allocated: one block of pages of its own, each
  // tensor 64-byte aligned (runtime/Pages.cpp).
  char *stateBlock;
  size_t stateBlockBytes;
  // Where the step writes a state tensor it does not read (the skipped and
  // finite flags), swapped in after a step that succeeds; null for others.
  void **updated;
  int32_t *inputSources;
  int32_t *outputStates; // state index of each step output; -1 for the loss
  mixprec_tensor *inputs, *outputs;
  int64_t rng[2];
  // Every state buffer (state and updated), registered as resident: on
  // CUDA the state lives on the device between steps.
  void **buffers;
  int32_t numBuffers;
  // The state as the host copies hold it since their last synchronization:
  // what the trainer goes back to when the device's copies are lost.
  mutable void **syncedState, **syncedUpdated;
  mutable int64_t syncedRng[2];
  // State indices of the step's counters and loss-scaler buffers; -1 when
  // the step has none.
  int32_t stepCount, lossScale, skipped, skippedSteps, finiteGradients;
};

namespace mixprec::runtime {

/// Elements and bytes of a dense tensor of `spec`.
int64_t elementsOf(const mixprec_tensor_spec &spec);
size_t bytesOf(const mixprec_tensor_spec &spec);

/// The index of the state tensor `name` (its first `length` bytes), or -1.
int32_t stateIndex(const char *name);
int32_t stateIndex(const char *name, size_t length);

/// The RNG state's spec: "rng_state", i64[2].
extern const mixprec_tensor_spec kRngSpec;

/// Makes the host copies of `trainer`'s state current (on CUDA, downloads
/// what the device holds newer) and remembers them as what a lost device
/// goes back to.
mixprec_status syncToHost(const mixprec_trainer *trainer);

/// After every host copy of the state was written (a checkpoint loaded):
/// the next step uploads them, and a lost device goes back to them.
void hostWritten(mixprec_trainer *trainer);

} // namespace mixprec::runtime

#endif // MIXPREC_RUNTIME_TRAINERSTATE_H
