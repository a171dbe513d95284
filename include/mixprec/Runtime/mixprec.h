/*===- mixprec.h - the C ABI of compiled mixprec models -------------------===*
 *
 * A model compiled by `mixprec-compile --target=cpu` is a shared library that
 * exports the functions below. Each public function of the model becomes one
 * entry of a function table; a function takes input tensors and fills output
 * tensors.
 *
 * Memory: the caller allocates every input and output buffer and owns it; a
 * call never keeps a pointer past its return and never returns memory that
 * the caller must free. Temporaries are allocated and freed inside the call.
 * Tensors are dense and row-major. bf16 elements are the upper 16 bits of
 * the f32 with the same value; f16 elements are IEEE binary16.
 *
 * Errors: every entry point returns a mixprec_status; on failure,
 * mixprec_last_error() describes it (the message is per thread and stays
 * valid until the next failing call on that thread).
 *
 *===----------------------------------------------------------------------===*/

#ifndef MIXPREC_RUNTIME_MIXPREC_H
#define MIXPREC_RUNTIME_MIXPREC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MIXPREC_ABI_VERSION 2

/* A dtype field holds any 32-bit value a caller or a file puts there; in C++
 * the fixed underlying type makes every such value one the runtime may read
 * (and reject) without undefined behaviour. */
typedef enum mixprec_dtype
#ifdef __cplusplus
    : int32_t
#endif
{
  MIXPREC_F32 = 0,
  MIXPREC_F16 = 1,
  MIXPREC_BF16 = 2,
  MIXPREC_I32 = 3,
  MIXPREC_I64 = 4,
  MIXPREC_BOOL = 5, /* one byte per element, 0 or 1 */
} mixprec_dtype;

typedef enum mixprec_status {
  MIXPREC_OK = 0,
  /* wrong count, dtype, rank, shape or null; or a label or token id out of
   * range (nothing was read out of bounds and no state changed) */
  MIXPREC_INVALID_ARGUMENT = 1,
  MIXPREC_NOT_FOUND = 2,        /* no function of that name */
  MIXPREC_INTERNAL = 3,
  MIXPREC_UNAVAILABLE = 4,  /* no CUDA driver or device on this machine */
  MIXPREC_DEVICE_ERROR = 5, /* the GPU reported an error (launch, memory) */
} mixprec_status;

/* A tensor the caller passes in: `data` points at the first element. */
typedef struct mixprec_tensor {
  void *data;
  mixprec_dtype dtype;
  int32_t rank;
  const int64_t *shape; /* `rank` sizes; may be null when rank is 0 */
} mixprec_tensor;

/* What a function expects for one argument or result. */
typedef struct mixprec_tensor_spec {
  const char *name; /* the parameter/buffer name, or "arg<i>" / "result<i>" */
  mixprec_dtype dtype;
  int32_t rank;
  const int64_t *shape;
} mixprec_tensor_spec;

typedef struct mixprec_function {
  const char *name;
  int32_t num_inputs;
  const mixprec_tensor_spec *inputs;
  int32_t num_outputs;
  const mixprec_tensor_spec *outputs;
} mixprec_function;

/* The ABI version this library was compiled for (MIXPREC_ABI_VERSION). */
int32_t mixprec_abi_version(void);

/* The function table. */
int32_t mixprec_num_functions(void);
const mixprec_function *mixprec_function_at(int32_t index);
const mixprec_function *mixprec_find_function(const char *name);

/* Checks every input and output against the function's specs, then runs it.
 * Nothing is written to the outputs when a check fails. A CUDA model's
 * function can also fail to run (MIXPREC_UNAVAILABLE, MIXPREC_DEVICE_ERROR);
 * its outputs then hold no result. */
mixprec_status mixprec_call(const char *name, const mixprec_tensor *inputs,
                            int32_t num_inputs, const mixprec_tensor *outputs,
                            int32_t num_outputs);

const char *mixprec_last_error(void);

/* A model compiled with --target=cuda: the bytes of device memory it holds
 * now and the most it held at once since the library was loaded (either
 * pointer may be null). A CPU model returns MIXPREC_UNAVAILABLE. */
mixprec_status mixprec_device_memory(int64_t *current_bytes,
                                     int64_t *peak_bytes);

/*===----------------------------------------------------------------------===*
 * Model state and training
 *
 * Every parameter and buffer of the model is listed with its name, type and
 * shape. A trainer owns one copy of that state, initialized deterministically
 * from the declarations' initializers and seeds, and threads it through a
 * train step (a function built by `mixprec-compile --autodiff`), so a caller
 * passes only batches.
 *
 * Initial values: element i of a random tensor comes from Philox4x32-10
 * (python/mixprec/philox.py) with key (seed & 0xffffffff, seed >> 32) and
 * counter (i & 0xffffffff, i >> 32, 0, 0xffffffff); with w0, w1 its first two
 * output words, u = (w0 >> 8) * 2^-24 and v = (w1 >> 8) * 2^-24:
 *   uniform(low, high): low + (high - low) * u
 *   normal(mean, std):  mean + std * sqrt(-2 ln(1 - u)) * cos(2 pi v)
 * evaluated in double and rounded once to the tensor's type. Xavier and
 * Kaiming initializers are uniform or normal draws with torch.nn.init's
 * bounds.
 *===----------------------------------------------------------------------===*/

/* The parameters and buffers, in declaration order. */
int32_t mixprec_num_states(void);
const mixprec_tensor_spec *mixprec_state_at(int32_t index);

typedef struct mixprec_trainer mixprec_trainer;

/* Creates a trainer for the train step `step`: every parameter and buffer at
 * its initial value, the RNG state (`rng_state`, i64[2]) at (seed, 0). */
mixprec_status mixprec_trainer_create(const char *step, uint64_t seed,
                                      mixprec_trainer **trainer);
/* Frees the trainer and its state; null is allowed. */
void mixprec_trainer_destroy(mixprec_trainer *trainer);

/* One optimizer step on one batch (the step's batch inputs, in order) at
 * learning rate `lr`, which must be finite and >= 0 (MIXPREC_INVALID_ARGUMENT
 * otherwise); the step's loss goes to `*loss` unless it is null. The RNG
 * offset advances by one per step. On failure the state is unchanged. */
mixprec_status mixprec_trainer_step(mixprec_trainer *trainer,
                                    const mixprec_tensor *batch,
                                    int32_t num_batch, float lr, float *loss);

/* Steps taken (the step's `<step>.step_count` buffer). */
int64_t mixprec_trainer_step_count(const mixprec_trainer *trainer);

/* Steps compiled with loss scaling (--amp): the scale the next step uses
 * (1 without dynamic loss scaling; a static scale is a constant of the
 * step), whether the last step was skipped because a
 * gradient was not finite (its update not applied), how many steps were
 * skipped, and the index-th parameter (0, 1, ...) whose gradient had an Inf
 * or NaN in the last step (null past the last one). */
float mixprec_trainer_loss_scale(const mixprec_trainer *trainer);
int32_t mixprec_trainer_skipped(const mixprec_trainer *trainer);
int64_t mixprec_trainer_skipped_steps(const mixprec_trainer *trainer);
const char *mixprec_trainer_nonfinite_parameter(const mixprec_trainer *trainer,
                                                int32_t index);

/* Checkpoints: every parameter and buffer (moments, step count, loss-scale
 * state) and the RNG state. Saving writes a temporary file beside `path`,
 * fsyncs it and renames it over `path`, so a crash leaves the old
 * checkpoint or the new one. Loading checks the format version, a checksum
 * and every tensor's name, dtype and shape against the model before it
 * changes anything: a truncated, corrupted or foreign file is refused and
 * the trainer is untouched. */
mixprec_status mixprec_trainer_save(const mixprec_trainer *trainer,
                                    const char *path);
mixprec_status mixprec_trainer_load(mixprec_trainer *trainer,
                                    const char *path);

/* Copies the parameter or buffer `name` (or "rng_state") out of / into the
 * trainer; `tensor` must have its exact dtype and shape. */
mixprec_status mixprec_trainer_get(const mixprec_trainer *trainer,
                                   const char *name,
                                   const mixprec_tensor *tensor);
mixprec_status mixprec_trainer_set(mixprec_trainer *trainer, const char *name,
                                   const mixprec_tensor *value);

/* Runs `function`, a function that reads the model's state but does not
 * update it (a forward, a prediction), on the trainer's state. Its other
 * inputs and all its outputs are batched along dim 0: the caller passes
 * `count` rows (any count >= 1) and the function runs on chunks of its
 * compiled batch size, the last chunk padded with zeros. Rank-0 inputs pass
 * through unchanged; rank-0 outputs are not allowed. */
mixprec_status mixprec_trainer_evaluate(mixprec_trainer *trainer,
                                        const char *function, int64_t count,
                                        const mixprec_tensor *inputs,
                                        int32_t num_inputs,
                                        const mixprec_tensor *outputs,
                                        int32_t num_outputs);

/* Bytes per element of `dtype` (0 for an unknown value). */
size_t mixprec_dtype_size(mixprec_dtype dtype);
const char *mixprec_dtype_name(mixprec_dtype dtype);

#ifdef __cplusplus
}
#endif

#endif /* MIXPREC_RUNTIME_MIXPREC_H */
