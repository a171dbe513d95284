//===- Trainer.cpp - the model's state behind the C ABI -------------------===//
//
// A trainer owns every parameter and buffer of the model and threads them
// through the compiled train step and through evaluation functions. Like the
// rest of the model runtime it uses the C library only.
//
//===----------------------------------------------------------------------===//

#include "Dtype.h"
#include "OutParameters.h"
#include "ThreadCount.h"
#include "TrainerState.h"
#include "TypeText.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace mixprec::runtime {

const int64_t kRngShape[] = {2};
const mixprec_tensor_spec kRngSpec = {"rng_state", MIXPREC_I64, 1, kRngShape};

int64_t elementsOf(const mixprec_tensor_spec &spec) {
  int64_t elements = 1;
  for (int32_t dim = 0; dim < spec.rank; ++dim)
    elements *= spec.shape[dim];
  return elements;
}

size_t bytesOf(const mixprec_tensor_spec &spec) {
  return size_t(elementsOf(spec)) * mixprec::dtypeSize(spec.dtype);
}

int32_t stateIndex(const char *name) {
  return stateIndex(name, std::strlen(name));
}

int32_t stateIndex(const char *name, size_t length) {
  for (int32_t i = 0; i < mixprec_model_num_states; ++i) {
    // `name` may hold a NUL (a checkpoint's bytes): lengths first.
    const char *candidate = mixprec_model_states[i].spec->name;
    if (std::strlen(candidate) == length &&
        std::memcmp(candidate, name, length) == 0)
      return i;
  }
  return -1;
}

/// Takes the host copies as the state (a snapshot's pointers and RNG).
static void rememberSynced(const mixprec_trainer *trainer) {
  size_t bytes = size_t(mixprec_model_num_states) * sizeof(void *);
  std::memcpy(trainer->syncedState, trainer->state, bytes);
  std::memcpy(trainer->syncedUpdated, trainer->updated, bytes);
  std::memcpy(trainer->syncedRng, trainer->rng, sizeof(trainer->rng));
}

/// After a failed call: when it lost the device's newer copies of the state,
/// the trainer goes back to the host's, as of their last synchronization,
/// and `status`'s message says so.
static mixprec_status recoverAfter(const mixprec_trainer *trainer,
                                   mixprec_status status) {
  if (!mixprec_resident_recover(trainer->buffers, trainer->numBuffers))
    return status;
  auto *restored = const_cast<mixprec_trainer *>(trainer);
  size_t bytes = size_t(mixprec_model_num_states) * sizeof(void *);
  std::memcpy(restored->state, trainer->syncedState, bytes);
  std::memcpy(restored->updated, trainer->syncedUpdated, bytes);
  std::memcpy(restored->rng, trainer->syncedRng, sizeof(trainer->rng));
  char message[512];
  std::snprintf(message, sizeof(message), "%s", mixprec_last_error());
  if (trainer->stepCount < 0)
    return mixprec_fail(status,
                        "%s; the state on the GPU was lost with it: the "
                        "trainer is back at its last copy on the host",
                        message);
  return mixprec_fail(
      status,
      "%s; the state on the GPU was lost with it: the trainer is back at its "
      "last copy on the host, after step %lld",
      message,
      (long long)*static_cast<const int64_t *>(
          trainer->state[trainer->stepCount]));
}

mixprec_status syncToHost(const mixprec_trainer *trainer) {
  if (mixprec_status status =
          mixprec_resident_sync(trainer->buffers, trainer->numBuffers))
    return recoverAfter(trainer, status);
  rememberSynced(trainer);
  return MIXPREC_OK;
}

void hostWritten(mixprec_trainer *trainer) {
  for (int32_t i = 0; i < trainer->numBuffers; ++i)
    mixprec_resident_written(trainer->buffers[i]);
  rememberSynced(trainer);
}

} // namespace mixprec::runtime

using namespace mixprec::runtime;

namespace {

constexpr const char *kRngStateName = "rng_state";

/// The entry `name`; null, with the error set, when there is none.
const mixprec_model_entry *entryNamed(const char *name) {
  const mixprec_model_entry *entry = mixprec_find_entry(name);
  if (!entry)
    mixprec_fail(MIXPREC_NOT_FOUND, "no function named '%s'",
                 name ? name : "(null)");
  return entry;
}

/// Where a function's input comes from, or where its output goes.
enum Source : int32_t { FromCaller = -1, FromRng = -2, FromLearningRate = -3 };

void *allocateZeroed(size_t bytes) {
  void *memory = nullptr;
  // One byte at least: a tensor's data is never null.
  if (posix_memalign(&memory, 64, bytes ? bytes : 1) != 0)
    return nullptr;
  std::memset(memory, 0, bytes ? bytes : 1);
  return memory;
}

/// `bytes` (at least 1) rounded up to a multiple of 64.
size_t alignedBytes(size_t bytes) {
  return ((bytes ? bytes : 1) + 63) / 64 * 64;
}

//===----------------------------------------------------------------------===//
// Initial values
//===----------------------------------------------------------------------===//

/// Philox4x32-10, as python/mixprec/philox.py and the dropout lowering.
void philox(uint32_t counter[4], uint64_t seed) {
  uint32_t key0 = uint32_t(seed), key1 = uint32_t(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    if (round) {
      key0 += 0x9E3779B9u;
      key1 += 0xBB67AE85u;
    }
    uint64_t product0 = uint64_t(0xD2511F53u) * counter[0];
    uint64_t product1 = uint64_t(0xCD9E8D57u) * counter[2];
    uint32_t next[4] = {
        uint32_t(product1 >> 32) ^ counter[1] ^ key0, uint32_t(product1),
        uint32_t(product0 >> 32) ^ counter[3] ^ key1, uint32_t(product0)};
    std::memcpy(counter, next, sizeof(next));
  }
}

/// Element `index` of the initial value of `state`, in double.
double initialValue(const mixprec_model_state &state, uint64_t index) {
  if (state.init_kind == MIXPREC_INIT_CONSTANT)
    return state.a;
  uint32_t words[4] = {uint32_t(index), uint32_t(index >> 32), 0u, 0xFFFFFFFFu};
  philox(words, state.seed);
  double u = double(words[0] >> 8) * 0x1p-24;
  double v = double(words[1] >> 8) * 0x1p-24;
  if (state.init_kind == MIXPREC_INIT_UNIFORM)
    return state.a + (state.b - state.a) * u;
  // Box-Muller; 1 - u is in (0, 1], so the logarithm is finite.
  return state.a + state.b * std::sqrt(-2.0 * std::log(1.0 - u)) *
                       std::cos(2.0 * M_PI * v);
}

/// Rounds to nearest even; NaN stays NaN.
uint16_t toBF16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if (std::isnan(value))
    return uint16_t((bits >> 16) | 0x40);
  bits += 0x7FFFu + ((bits >> 16) & 1u);
  return uint16_t(bits >> 16);
}

/// `value` as a float rounded to odd: rounding that to bf16 (8 bits of
/// mantissa, far fewer than float's 24) equals rounding `value` once.
float roundToOddFloat(double value) {
  float rounded = float(value);
  if (double(rounded) == value || std::isnan(value) || std::isinf(rounded))
    return rounded;
  if (std::fabs(double(rounded)) > std::fabs(value))
    rounded = std::nextafter(rounded, 0.0f);
  uint32_t bits;
  std::memcpy(&bits, &rounded, sizeof(bits));
  bits |= 1u;
  std::memcpy(&rounded, &bits, sizeof(bits));
  return rounded;
}

void storeElement(void *data, mixprec_dtype dtype, int64_t index,
                  double value) {
  switch (dtype) {
  case MIXPREC_F32:
    static_cast<float *>(data)[index] = float(value);
    return;
  case MIXPREC_F16: {
    // One rounding, from double (not through float).
    _Float16 half = _Float16(value);
    std::memcpy(static_cast<uint16_t *>(data) + index, &half, sizeof(half));
    return;
  }
  case MIXPREC_BF16:
    static_cast<uint16_t *>(data)[index] = toBF16(roundToOddFloat(value));
    return;
  case MIXPREC_I32:
    static_cast<int32_t *>(data)[index] = int32_t(value);
    return;
  case MIXPREC_I64:
    static_cast<int64_t *>(data)[index] = int64_t(value);
    return;
  case MIXPREC_BOOL:
    static_cast<uint8_t *>(data)[index] = value != 0.0;
    return;
  }
}

void initialize(const mixprec_model_state &state, void *data) {
  int64_t elements = elementsOf(*state.spec);
  for (int64_t i = 0; i < elements; ++i)
    storeElement(data, state.spec->dtype, i, initialValue(state, uint64_t(i)));
}

/// Checks a caller's tensor against `spec`, the rows of dim 0 excepted when
/// `rows` is not kNoRows; a mismatch shows both types in full.
mixprec_status checkTensor(const char *what, const mixprec_tensor *tensor,
                           const mixprec_tensor_spec &spec, int64_t rows) {
  if (!tensor || !tensor->data)
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT, "%s ('%s') has no data", what,
                        spec.name);
  bool matches = tensor->dtype == spec.dtype && tensor->rank == spec.rank &&
                 (spec.rank == 0 || tensor->shape);
  for (int32_t dim = 0; matches && dim < spec.rank; ++dim)
    matches = tensor->shape[dim] ==
              (dim == 0 && rows != kNoRows ? rows : spec.shape[dim]);
  if (matches)
    return MIXPREC_OK;
  char expected[kTypeTextSize], actual[kTypeTextSize];
  return mixprec_fail(MIXPREC_INVALID_ARGUMENT, "%s ('%s') must be %s, got %s",
                      what, spec.name,
                      formatType(expected, sizeof(expected), spec.dtype,
                                 spec.rank, spec.shape, rows),
                      formatType(actual, sizeof(actual), tensor->dtype,
                                 tensor->rank, tensor->shape));
}

/// Where each input of `function` comes from: a state index, the RNG, the
/// learning rate (the last input of a train step) or the caller.
void mapInputs(const mixprec_function &function, bool trainStep,
               int32_t *sources) {
  for (int32_t i = 0; i < function.num_inputs; ++i) {
    const char *name = function.inputs[i].name;
    if (std::strcmp(name, kRngStateName) == 0)
      sources[i] = FromRng;
    else if (trainStep && i == function.num_inputs - 1)
      sources[i] = FromLearningRate;
    else
      sources[i] = stateIndex(name) >= 0 ? stateIndex(name) : FromCaller;
  }
}

/// "x: f32[64, 64], labels: i32[64]": the inputs of `function` whose source
/// is the caller, dim 0 of each batched one shown as `rows` unless kNoRows.
void callerInputText(const mixprec_function &function, const int32_t *sources,
                     int64_t rows, char *text, size_t size) {
  char type[kTypeTextSize];
  size_t length = 0;
  text[0] = '\0';
  for (int32_t i = 0; i < function.num_inputs && length < size; ++i) {
    const mixprec_tensor_spec &spec = function.inputs[i];
    if (sources[i] != FromCaller)
      continue;
    int written = std::snprintf(text + length, size - length, "%s%s: %s",
                                length ? ", " : "", spec.name,
                                formatType(type, sizeof(type), spec.dtype,
                                           spec.rank, spec.shape, rows));
    length += written > 0 ? size_t(written) : 0;
  }
}

/// The index of the state tensor of role `role` that `step` owns, or -1.
int32_t stepStateIndex(const char *step, mixprec_state_role role) {
  for (int32_t i = 0; i < mixprec_model_num_states; ++i) {
    const mixprec_model_state &state = mixprec_model_states[i];
    if (state.role == role && state.step && std::strcmp(state.step, step) == 0)
      return i;
  }
  return -1;
}

bool sameSpec(const mixprec_tensor_spec &a, const mixprec_tensor_spec &b) {
  if (a.dtype != b.dtype || a.rank != b.rank)
    return false;
  for (int32_t dim = 0; dim < a.rank; ++dim)
    if (a.shape[dim] != b.shape[dim])
      return false;
  return true;
}

mixprec_tensor tensorOf(const mixprec_tensor_spec &spec, void *data) {
  return {data, spec.dtype, spec.rank, spec.shape};
}

/// The trainer's scalar state tensor `field` (an index into its state,
/// stored as `Stored`) into `*value`; `absent` when the step has no such
/// tensor. `entryPoint` names the caller in messages.
template <typename Stored, typename Value>
mixprec_status
readScalar(const char *entryPoint, const mixprec_trainer *trainer,
           int32_t mixprec_trainer::*field, Value absent, Value *value) {
  if (!trainer)
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT, "%s: no trainer", entryPoint);
  int32_t index = trainer->*field;
  Stored stored{};
  if (index >= 0)
    if (mixprec_status status = mixprec_resident_read(trainer->state[index],
                                                      &stored, sizeof(stored)))
      return recoverAfter(trainer, status);
  return writeOut(entryPoint, "value", value,
                  index < 0 ? absent : Value(stored));
}

} // namespace

extern "C" {

mixprec_status mixprec_num_states(int32_t *count) {
  return writeOut("mixprec_num_states", "count", count,
                  mixprec_model_num_states);
}

mixprec_status mixprec_state_at(int32_t index,
                                const mixprec_tensor_spec **spec) {
  return writeItemAt("mixprec_state_at", "parameter or buffer", index,
                     mixprec_model_num_states, spec,
                     [](int32_t i) { return mixprec_model_states[i].spec; });
}

mixprec_status mixprec_state_role_at(int32_t index, mixprec_state_role *role,
                                     const char **step) {
  if (!step)
    return noPlaceFor("mixprec_state_role_at", "step");
  mixprec_status status =
      writeItemAt("mixprec_state_role_at", "parameter or buffer", index,
                  mixprec_model_num_states, role,
                  [](int32_t i) { return mixprec_model_states[i].role; });
  if (status == MIXPREC_OK)
    *step = mixprec_model_states[index].step;
  return status;
}

void mixprec_trainer_destroy(mixprec_trainer *trainer) {
  if (!trainer)
    return;
  for (int32_t i = 0; trainer->buffers && i < trainer->numBuffers; ++i)
    mixprec_resident_remove(trainer->buffers[i]);
  // A step swaps a tensor's buffer and its updated one: either may be in
  // the block.
  auto freeOutsideBlock = [trainer](void *buffer) {
    uintptr_t address = reinterpret_cast<uintptr_t>(buffer);
    uintptr_t block = reinterpret_cast<uintptr_t>(trainer->stateBlock);
    if (address - block >= trainer->stateBlockBytes)
      std::free(buffer);
  };
  for (int32_t i = 0; i < mixprec_model_num_states; ++i) {
    if (trainer->state)
      freeOutsideBlock(trainer->state[i]);
    if (trainer->updated)
      freeOutsideBlock(trainer->updated[i]);
  }
  mixprec_pages_free(trainer->stateBlock, trainer->stateBlockBytes);
  std::free(trainer->state);
  std::free(trainer->updated);
  std::free(trainer->buffers);
  std::free(trainer->syncedState);
  std::free(trainer->syncedUpdated);
  std::free(trainer->inputSources);
  std::free(trainer->outputStates);
  std::free(trainer->inputs);
  std::free(trainer->outputs);
  std::free(trainer);
}

mixprec_status mixprec_trainer_create(const char *step, uint64_t seed,
                                      mixprec_trainer **trainer) {
  if (!trainer)
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT, "no place for the trainer");
  *trainer = nullptr;
  const mixprec_model_entry *entry = entryNamed(step);
  if (!entry)
    return MIXPREC_NOT_FOUND;
  const mixprec_function &function = entry->function;
  if (!entry->train_step)
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                        "'%s' is not a train step (compile the model with "
                        "--autodiff)",
                        step);
  if (function.num_outputs < 1 || function.outputs[0].dtype != MIXPREC_F32 ||
      function.outputs[0].rank != 0)
    return mixprec_fail(MIXPREC_INTERNAL, "%s: result 0 is not an f32 loss",
                        step);
  // Its kernels are made before its memory is planned and its steps run.
  mixprec_cpu_prepare_contractions();

  auto *created =
      static_cast<mixprec_trainer *>(std::calloc(1, sizeof(mixprec_trainer)));
  size_t states = size_t(mixprec_model_num_states) + 1;
  bool allocated =
      created &&
      (created->state =
           static_cast<void **>(std::calloc(states, sizeof(void *)))) &&
      (created->updated =
           static_cast<void **>(std::calloc(states, sizeof(void *)))) &&
      (created->buffers =
           static_cast<void **>(std::calloc(2 * states, sizeof(void *)))) &&
      (created->syncedState =
           static_cast<void **>(std::calloc(states, sizeof(void *)))) &&
      (created->syncedUpdated =
           static_cast<void **>(std::calloc(states, sizeof(void *)))) &&
      (created->inputSources = static_cast<int32_t *>(
           std::calloc(size_t(function.num_inputs) + 1, sizeof(int32_t)))) &&
      (created->outputStates = static_cast<int32_t *>(
           std::calloc(size_t(function.num_outputs), sizeof(int32_t)))) &&
      (created->inputs = static_cast<mixprec_tensor *>(std::calloc(
           size_t(function.num_inputs) + 1, sizeof(mixprec_tensor)))) &&
      (created->outputs = static_cast<mixprec_tensor *>(
           std::calloc(size_t(function.num_outputs), sizeof(mixprec_tensor))));
  size_t blockBytes = 0;
  for (int32_t i = 0; i < mixprec_model_num_states; ++i)
    blockBytes += alignedBytes(bytesOf(*mixprec_model_states[i].spec));
  allocated = allocated && (created->stateBlock = static_cast<char *>(
                                mixprec_pages_allocate(blockBytes)));
  if (allocated) {
    created->stateBlockBytes = blockBytes;
    size_t offset = 0;
    for (int32_t i = 0; i < mixprec_model_num_states; ++i) {
      created->state[i] = created->stateBlock + offset;
      initialize(mixprec_model_states[i], created->state[i]);
      offset += alignedBytes(bytesOf(*mixprec_model_states[i].spec));
    }
  }
  if (!allocated) {
    mixprec_trainer_destroy(created);
    return mixprec_fail(MIXPREC_INTERNAL, "out of memory creating a trainer");
  }
  created->step = entry;
  created->rng[0] = int64_t(seed);
  mapInputs(function, /*trainStep=*/true, created->inputSources);
  for (int32_t i = 0; i < function.num_inputs; ++i) {
    int32_t source = created->inputSources[i];
    const mixprec_tensor_spec &spec = function.inputs[i];
    bool matches = source >= 0
                       ? sameSpec(spec, *mixprec_model_states[source].spec)
                   : source == FromRng ? sameSpec(spec, kRngSpec)
                   : source == FromLearningRate
                       ? spec.dtype == MIXPREC_F32 && spec.rank == 0
                       : true;
    if (!matches) {
      mixprec_trainer_destroy(created);
      return mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                          "%s: input %d ('%s') does not match the model's "
                          "state or the learning rate",
                          step, i, spec.name);
    }
  }
  created->outputStates[0] = -1;
  for (int32_t i = 1; i < function.num_outputs; ++i) {
    // Every result after the loss is the new value of a state tensor.
    int32_t index = stateIndex(function.outputs[i].name);
    const mixprec_tensor_spec &spec = function.outputs[i];
    if (index < 0 || !sameSpec(spec, *mixprec_model_states[index].spec)) {
      mixprec_trainer_destroy(created);
      return mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                          "%s: result %d ('%s') is not a parameter or buffer "
                          "of the model",
                          step, i, spec.name);
    }
    created->outputStates[i] = index;
    // The step updates the state it reads in place; what it only writes
    // goes to a buffer of its own until the step succeeds.
    int32_t home = mixprec_output_home(entry, i);
    if (home >= 0 && created->inputSources[home] != index) {
      mixprec_trainer_destroy(created);
      return mixprec_fail(MIXPREC_INTERNAL,
                          "%s: result %d ('%s') is computed in the buffer of "
                          "input %d ('%s')",
                          step, i, spec.name, home, function.inputs[home].name);
    }
    if (home < 0 && !created->updated[index] &&
        !(created->updated[index] = allocateZeroed(bytesOf(spec)))) {
      mixprec_trainer_destroy(created);
      return mixprec_fail(MIXPREC_INTERNAL, "out of memory creating a trainer");
    }
  }
  // Every state buffer lives on the device between steps (CUDA).
  for (int32_t i = 0; i < 2 * mixprec_model_num_states; ++i) {
    int32_t index = i % mixprec_model_num_states;
    void *buffer = i < mixprec_model_num_states ? created->state[index]
                                                : created->updated[index];
    if (!buffer)
      continue;
    created->buffers[created->numBuffers++] = buffer;
    if (mixprec_status status = mixprec_resident_add(
            buffer, bytesOf(*mixprec_model_states[index].spec))) {
      mixprec_trainer_destroy(created);
      return status;
    }
  }
  rememberSynced(created);
  created->stepCount = stepStateIndex(step, MIXPREC_STATE_STEP_COUNT);
  created->lossScale = stepStateIndex(step, MIXPREC_STATE_LOSS_SCALE);
  created->skipped = stepStateIndex(step, MIXPREC_STATE_SKIPPED);
  created->skippedSteps = stepStateIndex(step, MIXPREC_STATE_SKIPPED_STEPS);
  created->finiteGradients =
      stepStateIndex(step, MIXPREC_STATE_FINITE_GRADIENTS);
  *trainer = created;
  return MIXPREC_OK;
}

mixprec_status mixprec_trainer_step(mixprec_trainer *trainer,
                                    const mixprec_tensor *batch,
                                    int32_t num_batch, float lr, float *loss) {
  if (!trainer)
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT, "no trainer");
  const mixprec_function &function = trainer->step->function;
  // A NaN, infinite or negative rate would silently ruin every weight.
  if (!(lr >= 0.0f) || std::isinf(lr))
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                        "%s: the learning rate must be finite and >= 0, got %g",
                        function.name, double(lr));
  int32_t expected = 0;
  for (int32_t i = 0; i < function.num_inputs; ++i)
    expected += trainer->inputSources[i] == FromCaller;
  if (num_batch != expected || (num_batch > 0 && !batch)) {
    char names[512];
    callerInputText(function, trainer->inputSources, kNoRows, names,
                    sizeof(names));
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                        "%s: expects %d batch tensors (%s), got %d%s",
                        function.name, expected, names, num_batch,
                        num_batch > 0 && !batch ? " in a null array" : "");
  }
  float stepLoss = 0.0f;
  for (int32_t i = 0, next = 0; i < function.num_inputs; ++i) {
    int32_t source = trainer->inputSources[i];
    const mixprec_tensor_spec &spec = function.inputs[i];
    if (source == FromCaller)
      trainer->inputs[i] = batch[next++];
    else if (source == FromRng)
      trainer->inputs[i] = tensorOf(spec, trainer->rng);
    else if (source == FromLearningRate)
      trainer->inputs[i] = tensorOf(spec, &lr);
    else
      trainer->inputs[i] = tensorOf(spec, trainer->state[source]);
  }
  for (int32_t i = 0; i < function.num_outputs; ++i) {
    int32_t state = trainer->outputStates[i];
    bool inPlace = mixprec_output_home(trainer->step, i) >= 0;
    trainer->outputs[i] =
        tensorOf(function.outputs[i], state < 0 ? &stepLoss
                                      : inPlace ? trainer->state[state]
                                                : trainer->updated[state]);
  }
  // The inputs are checked before anything runs, and a step that fails
  // writes no state (docs/design.md §3): a failed call leaves the state as
  // it was.
  if (mixprec_status status = mixprec_call_entry(
          trainer->step, trainer->inputs, function.num_inputs, trainer->outputs,
          function.num_outputs))
    return recoverAfter(trainer, status);
  for (int32_t i = 1; i < function.num_outputs; ++i) {
    int32_t state = trainer->outputStates[i];
    if (mixprec_output_home(trainer->step, i) >= 0)
      continue;
    void *previous = trainer->state[state];
    trainer->state[state] = trainer->updated[state];
    trainer->updated[state] = previous;
  }
  trainer->rng[1] += 1;
  if (loss)
    *loss = stepLoss;
  return MIXPREC_OK;
}

mixprec_status mixprec_trainer_memory(const mixprec_trainer *trainer,
                                      mixprec_memory_plan *plan) {
  if (!trainer)
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                        "mixprec_trainer_memory: no trainer");
  const mixprec_model_entry *step = trainer->step;
  const mixprec_function &function = step->function;
  // On CUDA the state lives on the device: the step's frame holds the rest.
  auto *resident = static_cast<uint8_t *>(
      std::calloc(size_t(function.num_inputs + function.num_outputs) + 1, 1));
  if (!resident)
    return mixprec_fail(MIXPREC_INTERNAL,
                        "mixprec_trainer_memory: out of memory");
  for (int32_t i = 0; i < function.num_inputs; ++i)
    resident[i] = trainer->inputSources[i] >= 0;
  for (int32_t i = 0; i < function.num_outputs; ++i)
    resident[function.num_inputs + i] = trainer->outputStates[i] >= 0;
  int64_t frame = mixprec_device_frame_bytes(step, resident);
  std::free(resident);
  // The state (the RNG's too) and the buffers of the state the step only
  // writes; on CUDA, all but the RNG's live on the device as well.
  int64_t buffers = 0;
  for (int32_t i = 0; i < mixprec_model_num_states; ++i)
    buffers += int64_t(bytesOf(*mixprec_model_states[i].spec));
  int64_t rng = int64_t(sizeof(trainer->rng));
  mixprec_memory_plan memory = {buffers + rng, step->workspace_bytes, 0, 0};
  for (int32_t i = 0; i < function.num_outputs; ++i)
    if (mixprec_output_home(step, i) < 0 && trainer->outputStates[i] >= 0)
      buffers += int64_t(bytesOf(function.outputs[i]));
  int64_t loss = int64_t(bytesOf(function.outputs[0]));
  memory.host_bytes = buffers + rng + loss;
  if (frame == 0)
    memory.host_bytes +=
        step->workspace_bytes +
        mixprec_cpu_prepare_contractions() * mixprec::numThreads();
  else
    memory.device_bytes = buffers + frame;
  return writeOut("mixprec_trainer_memory", "plan", plan, memory);
}

// The trainer's scalars: the entry point, the type it gives, the trainer's
// index of the state tensor, the tensor's element type and the value when
// the step has no such tensor.
#define MIXPREC_TRAINER_SCALARS(X)                                             \
  X(mixprec_trainer_step_count, int64_t, stepCount, int64_t, 0)                \
  X(mixprec_trainer_loss_scale, float, lossScale, float, 1.0f)                 \
  X(mixprec_trainer_skipped, int32_t, skipped, uint8_t, 0)                     \
  X(mixprec_trainer_skipped_steps, int64_t, skippedSteps, int64_t, 0)

#define MIXPREC_TRAINER_SCALAR_GETTER(entryPoint, Value, field, Stored,        \
                                      absent)                                  \
  mixprec_status entryPoint(const mixprec_trainer *trainer, Value *value) {    \
    return readScalar<Stored, Value>(#entryPoint, trainer,                     \
                                     &mixprec_trainer::field, absent, value);  \
  }
MIXPREC_TRAINER_SCALARS(MIXPREC_TRAINER_SCALAR_GETTER)
#undef MIXPREC_TRAINER_SCALAR_GETTER
#undef MIXPREC_TRAINER_SCALARS

mixprec_status
mixprec_trainer_nonfinite_parameter(const mixprec_trainer *trainer,
                                    int32_t index, const char **name) {
  if (!trainer)
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                        "mixprec_trainer_nonfinite_parameter: no trainer");
  if (!name)
    return noPlaceFor("mixprec_trainer_nonfinite_parameter", "name");
  *name = nullptr;
  if (trainer->finiteGradients < 0 || index < 0)
    return MIXPREC_OK;
  // Flag k belongs to the k-th parameter in declaration order.
  size_t flags = bytesOf(*mixprec_model_states[trainer->finiteGradients].spec);
  auto *finite = static_cast<uint8_t *>(std::malloc(flags ? flags : 1));
  if (!finite)
    return mixprec_fail(MIXPREC_INTERNAL,
                        "mixprec_trainer_nonfinite_parameter: out of memory");
  if (mixprec_status status = mixprec_resident_read(
          trainer->state[trainer->finiteGradients], finite, flags)) {
    std::free(finite);
    return recoverAfter(trainer, status);
  }
  for (int32_t i = 0, parameter = 0; i < mixprec_model_num_states; ++i) {
    if (mixprec_model_states[i].role != MIXPREC_STATE_PARAMETER)
      continue;
    if (!finite[parameter++] && index-- == 0) {
      *name = mixprec_model_states[i].spec->name;
      break;
    }
  }
  std::free(finite);
  return MIXPREC_OK;
}

mixprec_status mixprec_trainer_get(const mixprec_trainer *trainer,
                                   const char *name,
                                   const mixprec_tensor *tensor) {
  if (!trainer || !name)
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT, "no trainer or no name");
  int32_t index = stateIndex(name);
  bool isRng = std::strcmp(name, kRngStateName) == 0;
  if (index < 0 && !isRng)
    return mixprec_fail(MIXPREC_NOT_FOUND, "no parameter or buffer named '%s'",
                        name);
  const mixprec_tensor_spec &spec =
      isRng ? kRngSpec : *mixprec_model_states[index].spec;
  if (mixprec_status status = checkTensor("tensor", tensor, spec, kNoRows))
    return status;
  if (mixprec_status status = syncToHost(trainer))
    return status;
  std::memcpy(tensor->data, isRng ? trainer->rng : trainer->state[index],
              bytesOf(spec));
  return MIXPREC_OK;
}

mixprec_status mixprec_trainer_set(mixprec_trainer *trainer, const char *name,
                                   const mixprec_tensor *value) {
  if (!trainer || !name)
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT, "no trainer or no name");
  int32_t index = stateIndex(name);
  if (std::strcmp(name, kRngStateName) == 0) {
    if (mixprec_status status = checkTensor("value", value, kRngSpec, kNoRows))
      return status;
    if (mixprec_status status = syncToHost(trainer))
      return status;
    std::memcpy(trainer->rng, value->data, sizeof(trainer->rng));
    std::memcpy(trainer->syncedRng, value->data, sizeof(trainer->rng));
    return MIXPREC_OK;
  }
  if (index < 0)
    return mixprec_fail(MIXPREC_NOT_FOUND, "no parameter or buffer named '%s'",
                        name);
  const mixprec_tensor_spec &spec = *mixprec_model_states[index].spec;
  if (mixprec_status status = checkTensor("value", value, spec, kNoRows))
    return status;
  // The host copies are all current first: what a lost device goes back
  // to includes this value.
  if (mixprec_status status = syncToHost(trainer))
    return status;
  std::memcpy(trainer->state[index], value->data, bytesOf(spec));
  mixprec_resident_written(trainer->state[index]);
  return MIXPREC_OK;
}

mixprec_status mixprec_trainer_evaluate(mixprec_trainer *trainer,
                                        const char *function, int64_t count,
                                        const mixprec_tensor *inputs,
                                        int32_t num_inputs,
                                        const mixprec_tensor *outputs,
                                        int32_t num_outputs) {
  if (!trainer)
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT, "no trainer");
  const mixprec_model_entry *entry = entryNamed(function);
  if (!entry)
    return MIXPREC_NOT_FOUND;
  const mixprec_function &fn = entry->function;
  if (entry->train_step)
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                        "%s is a train step; evaluate runs functions that do "
                        "not update the state",
                        fn.name);
  if (count < 1)
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                        "%s: evaluate needs at least one row, got %lld",
                        fn.name, (long long)count);
  if (fn.num_outputs < 1)
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                        "%s has no results to evaluate", fn.name);
  for (int32_t i = 0; i < fn.num_outputs; ++i) {
    const mixprec_tensor_spec &spec = fn.outputs[i];
    if (stateIndex(spec.name) >= 0)
      return mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                          "%s updates '%s'; evaluate runs functions that do "
                          "not update the state",
                          fn.name, spec.name);
    if (spec.rank == 0)
      return mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                          "%s: result %d is a scalar; evaluate needs "
                          "per-row results",
                          fn.name, i);
  }

  int32_t *sources = static_cast<int32_t *>(
      std::calloc(size_t(fn.num_inputs) + 1, sizeof(int32_t)));
  int32_t total = fn.num_inputs + fn.num_outputs;
  auto *chunks = static_cast<mixprec_tensor *>(
      std::calloc(size_t(total) + 1, sizeof(mixprec_tensor)));
  void **buffers =
      static_cast<void **>(std::calloc(size_t(total) + 1, sizeof(void *)));
  mixprec_status status = MIXPREC_OK;
  if (!sources || !chunks || !buffers)
    status = mixprec_fail(MIXPREC_INTERNAL, "out of memory in evaluate");
  int32_t callerInputs = 0;
  if (status == MIXPREC_OK) {
    mapInputs(fn, /*trainStep=*/false, sources);
    for (int32_t i = 0; i < fn.num_inputs; ++i)
      callerInputs += sources[i] == FromCaller;
    if (num_inputs != callerInputs || num_outputs != fn.num_outputs ||
        (num_inputs && !inputs) || (num_outputs && !outputs)) {
      char names[512];
      callerInputText(fn, sources, count, names, sizeof(names));
      status = mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                            "%s: expects %d inputs (%s) and %d outputs, got "
                            "%d and %d",
                            fn.name, callerInputs, names, fn.num_outputs,
                            num_inputs, num_outputs);
    }
  }
  // The compiled batch: dim 0 of every batched input and output.
  int64_t batchSize = fn.outputs[0].shape[0];
  if (status == MIXPREC_OK && batchSize < 1)
    status = mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                          "%s: result 0 has no rows to evaluate", fn.name);
  for (int32_t i = 0, next = 0; status == MIXPREC_OK && i < total; ++i) {
    bool isInput = i < fn.num_inputs;
    const mixprec_tensor_spec &spec =
        isInput ? fn.inputs[i] : fn.outputs[i - fn.num_inputs];
    if (isInput && sources[i] != FromCaller) {
      chunks[i] = tensorOf(spec, sources[i] == FromRng
                                     ? static_cast<void *>(trainer->rng)
                                     : trainer->state[sources[i]]);
      continue;
    }
    const mixprec_tensor *given =
        isInput ? &inputs[next++] : &outputs[i - fn.num_inputs];
    if (spec.rank == 0) {
      status = checkTensor("input", given, spec, kNoRows);
      chunks[i] = *given;
      continue;
    }
    if (spec.shape[0] != batchSize) {
      status = mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                            "%s: '%s' has %lld rows, result 0 %lld; evaluate "
                            "needs one batch dim",
                            fn.name, spec.name, (long long)spec.shape[0],
                            (long long)batchSize);
      continue;
    }
    status = checkTensor(isInput ? "input" : "output", given, spec, count);
    if (status == MIXPREC_OK && !(buffers[i] = allocateZeroed(bytesOf(spec))))
      status = mixprec_fail(MIXPREC_INTERNAL, "out of memory in evaluate");
    chunks[i] = tensorOf(spec, buffers[i]);
  }
  // Chunks of the compiled batch, the last one padded with zero rows.
  for (int64_t first = 0; status == MIXPREC_OK && first < count;
       first += batchSize) {
    int64_t rows = count - first < batchSize ? count - first : batchSize;
    for (int32_t i = 0, next = 0; i < fn.num_inputs; ++i) {
      if (sources[i] != FromCaller)
        continue;
      const mixprec_tensor &given = inputs[next++];
      if (!buffers[i])
        continue;
      size_t rowBytes = bytesOf(fn.inputs[i]) / size_t(batchSize);
      std::memset(buffers[i], 0, bytesOf(fn.inputs[i]));
      std::memcpy(buffers[i],
                  static_cast<const char *>(given.data) + first * rowBytes,
                  size_t(rows) * rowBytes);
    }
    status = mixprec_call_entry(entry, chunks, fn.num_inputs,
                                chunks + fn.num_inputs, fn.num_outputs);
    if (status != MIXPREC_OK && status != MIXPREC_INVALID_ARGUMENT)
      status = recoverAfter(trainer, status);
    if (status == MIXPREC_INVALID_ARGUMENT) {
      // A bad label's row is within the chunk: say which rows it holds.
      char message[512];
      std::snprintf(message, sizeof(message), "%s", mixprec_last_error());
      status =
          mixprec_fail(status, "%s; in the chunk of rows %lld to %lld", message,
                       (long long)first, (long long)(first + rows - 1));
    }
    for (int32_t o = 0; status == MIXPREC_OK && o < fn.num_outputs; ++o) {
      size_t rowBytes = bytesOf(fn.outputs[o]) / size_t(batchSize);
      std::memcpy(static_cast<char *>(outputs[o].data) + first * rowBytes,
                  buffers[fn.num_inputs + o], size_t(rows) * rowBytes);
    }
  }
  for (int32_t i = 0; buffers && i < total; ++i)
    std::free(buffers[i]);
  std::free(buffers);
  std::free(chunks);
  std::free(sources);
  return status;
}

} // extern "C"
